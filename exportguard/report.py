"""A render-neutral report: immutable sections, bound tables, notes, caveat. Renderers (render/)
receive only this; every figure in it is a BoundFigure, whose printable forms all carry unit,
band (or the words for its absence), verified status and footnote mark."""
from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Iterator, Union

from .model import CohortKey, Result, Slack
from .textviews import UNIT_SHORT


@dataclass(frozen=True)
class Derivation:
    """How a derived figure was computed from an official one."""

    label: str  # "per accelerator", "USD per 1M tokens"
    unit: str  # "tok/s per accelerator"
    basis: str  # a sentence: the formula, the inputs, the MLPerf shape it comes from
    mark: str  # the note that states the basis


@dataclass(frozen=True)
class BoundFigure:
    """A value that cannot be printed without its binding.

    ``magnitude`` is for sorting and ranking inside the guard; renderers use ``text()``,
    ``spreadsheet_cell()`` or ``chart_point()``, which always carry the binding.
    """

    result: Result
    cohort: CohortKey
    slack: Slack
    mark: str
    magnitude: float
    derivation: Derivation | None = None

    @property
    def unit_text(self) -> str:
        return self.derivation.unit if self.derivation else UNIT_SHORT.get(self.result.unit, self.result.unit)

    @property
    def verified(self) -> bool:
        return self.result.conditions.identity.verified == "verified"

    @property
    def marks(self) -> tuple[str, ...]:
        return (self.mark, self.derivation.mark) if self.derivation else (self.mark,)

    def mark_text(self) -> str:
        return "".join(f"[{m}]" for m in self.marks)

    def band_text(self) -> str:
        return self.slack.band_text()

    @property
    def decimals(self) -> int:
        return 0 if self.magnitude >= 100 else 2 if self.magnitude >= 1 else 4

    def digit_pattern(self) -> str:
        """The spreadsheet pattern for this figure's digits (the number format before its literal)."""
        return {0: "#,##0", 2: "#,##0.00", 4: "0.0000"}[self.decimals]

    def format_number(self, value: float) -> str:
        """A number (this figure or its band edge) as this figure's digit pattern shows it."""
        # Half away from zero, as spreadsheets round a number format: the text and the cell agree.
        places = Decimal(1).scaleb(-self.decimals)
        return f"{Decimal(repr(value)).quantize(places, ROUND_HALF_UP):,}"

    def _number(self) -> str:
        return self.format_number(self.magnitude)

    def _suffix(self) -> str:
        """Everything after the number: unit, band, marks, labels (the binding)."""
        band = self.slack.band_text() if self.slack.estimable else f"({self.slack.band_text()})"
        parts = [self.unit_text, band, self.mark_text()]
        if self.derivation:
            parts.append("derived")
        if not self.verified:
            parts.append("unverified")
        return " ".join(parts)

    def text(self) -> str:
        """'101,527 tok/s ±5.4% [a]', '12,691 tok/s per accelerator ±5.4% [a][d] derived'."""
        return f"{self._number()} {self._suffix()}"

    def number_format(self) -> str:
        """A spreadsheet number format whose literal text carries the binding."""
        digits = self.digit_pattern()
        # A quote would end the literal and a semicolon would start another format section.
        literal = " " + self._suffix().replace('"', "'").replace(";", ",")
        return f'{digits}"{literal}"'

    def spreadsheet_cell(self) -> tuple[float, str]:
        """(number, number format): the number never leaves without the format that binds it."""
        return self.magnitude, self.number_format()

    def chart_point(self) -> tuple[float, float | None, str]:
        """(value, half-width of the band or None, label with the binding)."""
        half = None if self.slack.band_fraction is None else self.magnitude * self.slack.band_fraction
        return self.magnitude, half, self.text()


Cell = Union[str, BoundFigure]


@dataclass(frozen=True)
class Column:
    key: str
    header: str
    kind: str = "text"  # text / figure / derived / rank


@dataclass(frozen=True)
class Note:
    mark: str
    text: str


@dataclass(frozen=True)
class BoundTable:
    title: str
    cohort: CohortKey
    slack: Slack
    columns: tuple[Column, ...]
    rows: tuple[tuple[Cell, ...], ...]
    table_note: str  # the conditions every row shares, stated once
    notes: tuple[Note, ...]  # per-mark notes in order of appearance
    ranked: bool = False

    def figures(self) -> Iterator[tuple[int, int, BoundFigure]]:
        for r, row in enumerate(self.rows):
            for c, cell in enumerate(row):
                if isinstance(cell, BoundFigure):
                    yield r, c, cell


@dataclass(frozen=True)
class TableSection:
    title: str
    table: BoundTable
    kind: str = "table"


@dataclass(frozen=True)
class ChartSection:
    title: str  # carries cohort and shape
    table: BoundTable  # the same figures, bound, for formats that draw no chart
    kind: str = "chart"


@dataclass(frozen=True)
class KpiSection:
    title: str
    figure: BoundFigure
    inline_conditions: str  # scenario and shape stated next to the headline number
    table_note: str
    notes: tuple[Note, ...]
    kind: str = "kpi"


@dataclass(frozen=True)
class TextSection:
    title: str
    paragraphs: tuple[str, ...]
    kind: str = "text"


Section = Union[TableSection, ChartSection, KpiSection, TextSection]


@dataclass(frozen=True)
class Report:
    title: str
    audience: str
    sections: tuple[Section, ...]
    caveat_short: str
    caveat_full: tuple[str, ...]
    legend: str
    warnings: tuple = ()  # Findings of warning severity, recorded in the manifest
    spec_name: str = ""
    generated_on: str = ""

    def figures(self) -> Iterator[tuple[int, BoundFigure]]:
        for i, s in enumerate(self.sections):
            if isinstance(s, (TableSection, ChartSection)):
                for _, _, f in s.table.figures():
                    yield i, f
            elif isinstance(s, KpiSection):
                yield i, s.figure
