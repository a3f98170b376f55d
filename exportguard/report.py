"""A render-neutral report: immutable sections, bound tables, notes, caveat. Renderers (render/)
receive only this, through the walker (render/walk.py). Every figure in it is a BoundFigure, whose
only printable forms carry unit, band (or the words for its absence), labels and marks.

Marks are not part of a figure: they are lettered at render time for each table, slide or page
(render/walk.py Lettering), so each can carry its own notes.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Union

from .citation import Note, TableNote, result_id_words
from .model import CohortKey, Result, Slack
from .wording import (band_edge_words, binding_words, decimals_for, edge_binding_words, figure_parts, rank_words,
                      unit_words, with_marks)


@dataclass(frozen=True, slots=True)  # one or more per figure: no instance dict
class Derivation:
    """How a derived figure was computed from an official one."""

    label: str  # "per accelerator", "cost per million tokens"
    unit: str  # "tok/s per accelerator"
    note: Note  # states the basis and the MLPerf shape it comes from


@dataclass(frozen=True, slots=True)  # one or more per figure: no instance dict
class BoundFigure:
    """A value that cannot be printed without its binding.

    ``magnitude`` is for sorting, ranking and numeric cells; every text form goes through
    wording.py and carries unit, band, marks and labels.
    """

    result: Result
    cohort: CohortKey
    slack: Slack  # the whole stored cohort's
    note: Note  # the result's citation
    magnitude: float
    derivation: Derivation | None = None
    # the figure's words, worked out on first use (a slot, not a cached_property: slots have no instance dict)
    _parts: tuple[str, str] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def unit_text(self) -> str:
        return self.derivation.unit if self.derivation else unit_words(self.result.unit)

    @property
    def verified(self) -> bool:
        return self.result.conditions.identity.verified == "verified"

    @property
    def own(self) -> bool:
        """An own measurement: its text says so next to the number ('own measurement, unverified')."""
        return self.result.own

    @property
    def notes(self) -> tuple[Note, ...]:
        """The notes its marks resolve to, in mark order: the result's, then a derivation's basis."""
        return (self.note, self.derivation.note) if self.derivation else (self.note,)

    @property
    def decimals(self) -> int:
        return decimals_for(self.magnitude)

    def text(self, marks: str = "") -> str:
        """'101,527 tok/s ±5.4% [a]'; without marks, the terminal's form of the same figure."""
        return with_marks(self._words, marks)

    # A figure prints as what it says, never as its fields: the dataclass form ran to 3,000 characters
    # of conditions, and a bare magnitude in it would be a figure without its binding.
    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"BoundFigure({self.text()!r}, {result_id_words(self.result)})"

    @property  # written once, then with the marks of each place the figure stands in
    def _words(self) -> tuple[str, str]:
        if self._parts is None:
            object.__setattr__(self, "_parts", figure_parts(
                self.magnitude, self.unit_text, self.slack, decimals=self.decimals,
                derived=self.derivation is not None, verified=self.verified, own=self.own))
        return self._parts

    def forget_words(self) -> None:
        """Drop the cached words (a renderer that has written the figure for good: a 100,000-figure
        export then holds no words of the figures it has written; they are worked out again if asked)."""
        object.__setattr__(self, "_parts", None)

    def binding(self, marks: str = "") -> str:
        """What follows the number in ``text``: 'tok/s ±5.4% [a]' (a number format's literal)."""
        return binding_words(self.unit_text, self.slack, marks, self.derivation is not None, self.verified, self.own)

    def edge_binding(self, low: bool, marks: str = "") -> str:
        """What follows a band edge's number in ``edge_text``: 'tok/s, low edge of ±5.4% [a]'."""
        return edge_binding_words(self.unit_text, self.slack, low, marks, self.derivation is not None, self.verified,
                                  self.own)

    def band_edges(self) -> tuple[float, float] | None:
        frac = self.slack.band_fraction
        return None if frac is None else (self.magnitude * (1 - frac), self.magnitude * (1 + frac))

    def edge_text(self, low: bool, marks: str = "") -> str:
        """'96,045 tok/s, low edge of ±5.4% [a]'; the band words when there is no band."""
        edges = self.band_edges()
        if edges is None:
            return self.text(marks)
        return band_edge_words(edges[0] if low else edges[1], self.unit_text, self.slack, low, marks,
                               decimals=self.decimals, derived=self.derivation is not None, verified=self.verified,
                               own=self.own)


Cell = Union[str, BoundFigure]


@dataclass(frozen=True, slots=True)  # one per ranked row: no instance dict
class RankSpan:
    """Where a row stands in its ranking: its position by value (from 1) and the ranks it is tied
    with (``tie_from`` to ``tie_to``, itself included: every figure within slack of it, and no other).
    Both are None where the cohort's slack is not estimable: the rows are in order of value, unranked.
    The numbers are for formats that hold numbers; ``words`` is the rank cell every format shows."""

    position: int
    tie_from: int | None
    tie_to: int | None
    of: int | None = None  # the cohort's size, where the rows shown are not its first ones

    @property
    def ranked(self) -> bool:
        return self.tie_from is not None

    @property
    def tied(self) -> bool:
        return self.ranked and self.tie_from < self.tie_to

    def words(self) -> str:
        return rank_words(self.position, self.tie_from, self.tie_to, self.of)


@dataclass(frozen=True)
class Notice:
    """A statement the guard puts beside a comparison, on the same slide, page or sheet (a rule of
    warning severity that the reader must see, e.g. EG020: systems of different scale)."""

    rule_id: str
    text: str


@dataclass(frozen=True)
class Column:
    key: str
    header: str
    kind: str = "text"  # text / figure / derived / rank

    @property
    def holds_figures(self) -> bool:
        """A column of bound figures: measured ("figure") or derived from them ("derived")."""
        return self.kind in ("figure", "derived")


@dataclass(frozen=True)
class BoundTable:
    title: str
    cohort: CohortKey
    slack: Slack
    columns: tuple[Column, ...]
    rows: tuple[tuple[Cell, ...], ...]
    table_note: TableNote  # the conditions every row shares, stated once
    ranked: bool = False
    ranks: tuple[RankSpan, ...] = ()  # one per row when ranked; the rank cells are their words
    notices: tuple[Notice, ...] = ()  # shown with the table, on each slide, page or sheet it spans
    # the default columns (or their lean form), not columns a user named: only these may a narrow page
    # combine into one cell; columns asked for stay columns
    defaults: bool = False
    # where the table shows part of its cohort: the whole cohort's figures, high to low, that its ranks
    # count in (guard.cohort_ranks); and the note's sentences on which rows are shown and which columns
    # were left out for saying nothing in any row
    ranked_among: tuple[float, ...] = ()
    selection: str = ""

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
    table: BoundTable  # the figures, bound; formats that draw no chart show it as a table
    kind: str = "chart"


@dataclass(frozen=True)
class KpiSection:
    title: str
    figure: BoundFigure
    inline_conditions: str  # scenario and shape stated next to the headline number
    table_note: TableNote
    kind: str = "kpi"
    rank: RankSpan | None = None  # the headline figure among those it was picked from
    notices: tuple[Notice, ...] = ()  # shown with the headline, on its slide or page


@dataclass(frozen=True)
class TextSection:
    title: str
    paragraphs: tuple[str, ...]
    kind: str = "text"


@dataclass(frozen=True)
class ShapeRow:
    """One line of a shape panel: whose shape, in numbers, and under which load."""

    label: str  # "MLPerf® v5.1 closed llama2-70b-99 Offline", "lab-h100-01, run of 2026-12-01"
    shape: str  # "272.6 to 302.0 generated tokens per sample (max 1,024 output tokens), OpenOrca"
    load: str


@dataclass(frozen=True)
class ShapePanel:
    """Both shapes stated in numbers, beside the two figure panels, and the one sentence on why a
    throughput does not carry over from one shape to another (wording.SHAPES_DO_NOT_TRANSFER)."""

    mlperf: ShapeRow
    own: tuple[ShapeRow, ...]  # one per own run shown
    sentence: str

    @classmethod
    def of(cls, mlperf: BoundTable, own: tuple[BoundTable, ...]) -> "ShapePanel":
        """The panel of two bound tables: the guard builds it with this and checks a report's against it."""
        from .wording import (SHAPES_DO_NOT_TRANSFER, mlperf_cohort_shape_words, own_load_of, own_run_label,
                              own_shape_row_words)

        any_mlperf = next(f for _, _, f in mlperf.figures())
        row = ShapeRow(mlperf.cohort.label(), mlperf_cohort_shape_words(any_mlperf.result, mlperf.slack),
                       mlperf.table_note.load)
        runs, seen = [], set()
        for _, _, fig in (f for table in own for f in table.figures()):
            if fig.result.natural_key not in seen:
                seen.add(fig.result.natural_key)
                runs.append(ShapeRow(own_run_label(fig.result), own_shape_row_words(fig.result),
                                     own_load_of(fig.result)))
        return cls(row, tuple(runs), SHAPES_DO_NOT_TRANSFER)


@dataclass(frozen=True)
class BesideSection:
    """An MLPerf cohort and the user's own runs shown side by side, never in one comparison: two
    panels, each with its own axis, band rule and notes, and a shape panel that states both shapes
    in numbers. The own panel holds one table per own cohort (runs of another shape or load are
    never one comparison either). ``axis`` is "separate"; one axis for both is refused (rules.py EG021)."""

    title: str
    mlperf: BoundTable
    own: tuple[BoundTable, ...]
    shape: ShapePanel
    axis: str = "separate"
    kind: str = "beside"

    def tables(self) -> tuple[BoundTable, ...]:
        return (self.mlperf, *self.own)


Section = Union[TableSection, ChartSection, KpiSection, TextSection, BesideSection]


@dataclass(frozen=True)
class ExportRun:
    """The export run that wrote an artifact: its id (32 hex digits, as in render/commit.py's file
    names) and every file that run wrote, each as a path relative to the artifact's own folder. The
    manifest records both, so the checker can tell a set whose members come from different runs."""

    run: str
    members: tuple[str, ...]


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
    export: ExportRun | None = None  # set by the export, per artifact (render/__init__.py)

    def figures(self) -> Iterator[tuple[int, BoundFigure]]:
        for i, s in enumerate(self.sections):
            if isinstance(s, (TableSection, ChartSection)):
                for _, _, f in s.table.figures():
                    yield i, f
            elif isinstance(s, KpiSection):
                yield i, s.figure
            elif isinstance(s, BesideSection):
                for table in s.tables():
                    for _, _, f in table.figures():
                        yield i, f
