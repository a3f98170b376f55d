"""The renderer protocol: one walker over a Report that every format uses.

A renderer is an object with seven methods, called in this order::

    front(doc)                     title, audience, date and the one-line caveat
    table(doc, n, TableSection)    \\
    chart(doc, n, ChartSection)     |  one call per section, in report order (n counts from 1),
    kpi(doc, n, KpiSection)         |  chosen by the section's type
    text(doc, n, TextSection)       |
    beside(doc, n, BesideSection)  /
    back(doc)                      the full caveat, the trademark legend, the sources, and the
                                   manifest (doc.manifest(), complete once every figure is placed)

The walker (``walk``) gives each call a ``Walk`` (``doc``) that holds what every format needs and
none should rebuild: ``doc.part(...)`` letters the notes of a whole table, or of the rows one slide
or page shows, in order of first appearance; ``doc.kpi_part(...)`` does the same for a headline;
``doc.place(...)`` records where a figure was put and what the artifact shows there, for the
manifest; ``doc.sources()`` lists the results shown. Format-specific forms (number formats,
escaping, layout) stay inside each renderer.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Protocol, Sequence

from ..citation import Note, TableNote
from ..clock import Clock
from ..model import Result
from ..report import (BesideSection, BoundFigure, BoundTable, Cell, ChartSection, KpiSection, Report, TableSection,
                      TextSection)
from ..wording import mark_name, marks_words, note_line


class Lettering:
    """Marks of one scope (a table, a slide, a page, a headline): each distinct note gets the next
    letter in order of first appearance, so identical notes share a mark."""

    def __init__(self, figures: Sequence[BoundFigure] = ()):
        self._letters: dict[Note, str] = {}
        for fig in figures:
            self.add(fig)

    def add(self, fig: BoundFigure) -> None:
        for note in self.notes_of(fig):
            if note not in self._letters:
                self._letters[note] = mark_name(len(self._letters))

    def notes_of(self, fig: BoundFigure) -> tuple[Note, ...]:
        """The notes a figure's marks resolve to in this scope: its own (a lettering of another kind,
        such as a workbook's one mark per table, resolves them to other notes)."""
        return fig.notes

    def letters(self, fig: BoundFigure) -> tuple[str, ...]:
        return tuple(self._letters[n] for n in self.notes_of(fig))

    def marks(self, fig: BoundFigure) -> str:
        return marks_words(self.letters(fig))

    def text(self, fig: BoundFigure) -> str:
        """The figure with its marks: '101,527 tok/s ±5.4% [a]'."""
        return fig.text(self.marks(fig))

    def edge_text(self, fig: BoundFigure, low: bool) -> str:
        return fig.edge_text(low, self.marks(fig))

    def notes(self) -> list[tuple[str, Note]]:
        return [(m, n) for n, m in self._letters.items()]

    def note_lines(self) -> list[str]:
        """'[a] NVIDIA, ...': the notes block of this scope."""
        return [note_line(m, n.text) for m, n in self.notes()]

    def footnote(self, fig: BoundFigure, table_note: TableNote) -> str:
        """A figure's full footnote: its text, the conditions its table shares, its marks' notes."""
        return "\n\n".join([self.text(fig), table_note.text] +
                           [note_line(m, n.text) for m, n in zip(self.letters(fig), self.notes_of(fig))])


@dataclass(frozen=True)
class FigureCell:
    figure: BoundFigure
    text: str  # with the marks of its part


@dataclass(frozen=True)
class TablePart:
    """Rows ``start``..``stop`` of a table, lettered on their own: a whole table, or the share of it
    that one slide or page shows (each with its own header and notes)."""

    n: int  # the section's number, from 1
    title: str
    table: BoundTable
    start: int
    stop: int
    lettering: Lettering

    @property
    def continued(self) -> bool:
        return self.start > 0

    @property
    def rows(self) -> tuple[tuple[Cell, ...], ...]:
        return self.table.rows[self.start:self.stop]

    def cells(self) -> Iterator[tuple[int, list[str | FigureCell]]]:
        """(row index in the table, cells): text as it is, figures with their marks."""
        for r in range(self.start, self.stop):
            yield r, [FigureCell(c, self.lettering.text(c)) if isinstance(c, BoundFigure) else c
                      for c in self.table.rows[r]]

    def figures(self) -> Iterator[tuple[int, int, BoundFigure]]:
        return _figures(self.table, self.start, self.stop)


def _figures(table: BoundTable, start: int, stop: int) -> Iterator[tuple[int, int, BoundFigure]]:
    for r in range(start, stop):
        for c, cell in enumerate(table.rows[r]):
            if isinstance(cell, BoundFigure):
                yield r, c, cell


@dataclass(frozen=True)
class Placement:
    location: str  # a stable string a person can find: "'llama2-70b-99 Offline'!I7", "slide 3, table 1, row 4, column 6"
    figure: BoundFigure
    shown_text: str  # what the artifact shows there
    shown_value: float | None  # the number the artifact holds there, where it holds one (a numeric cell)
    letters: tuple[str, ...]  # the marks at that location
    notes: tuple[str, ...]  # the texts those marks resolve to in that scope


@dataclass
class Walk:
    report: Report
    placements: list[Placement] = field(default_factory=list)
    artifact_format: str = ""
    clock: Clock | None = None  # the export's (exportguard/clock.py); None: SOURCE_DATE_EPOCH, else now

    def part(self, n: int, title: str, table: BoundTable, start: int = 0, stop: int | None = None) -> TablePart:
        stop = len(table.rows) if stop is None else min(stop, len(table.rows))
        figures = [fig for _, _, fig in _figures(table, start, stop)]
        return TablePart(n, title, table, start, stop, Lettering(figures))

    def kpi_part(self, section: KpiSection) -> Lettering:
        return Lettering([section.figure])

    def place(self, location: str, fig: BoundFigure, lettering: Lettering, shown_text: str | None = None,
              shown_value: float | None = None) -> None:
        letters = lettering.letters(fig)
        self.placements.append(Placement(location, fig, lettering.text(fig) if shown_text is None else shown_text,
                                         shown_value, letters, tuple(n.text for n in lettering.notes_of(fig))))

    def sources(self) -> list[Result]:
        """Every result shown, once, in order of first appearance."""
        seen, out = set(), []
        for _, fig in self.report.figures():
            if fig.result.natural_key not in seen:
                seen.add(fig.result.natural_key)
                out.append(fig.result)
        return out

    def data_dates(self) -> str:
        """The first slide's or page's words on its data: publication and retrieval dates (citation)."""
        from ..citation import data_dates_words

        return data_dates_words(self.sources())

    def manifest(self, key: bytes | None = None) -> dict:
        from ..manifest import build

        return build(self.report, self.placements, self.artifact_format, key, self.clock)


class Renderer(Protocol):
    format: str

    def front(self, doc: Walk) -> None: ...
    def table(self, doc: Walk, n: int, section: TableSection) -> None: ...
    def chart(self, doc: Walk, n: int, section: ChartSection) -> None: ...
    def kpi(self, doc: Walk, n: int, section: KpiSection) -> None: ...
    def text(self, doc: Walk, n: int, section: TextSection) -> None: ...
    def beside(self, doc: Walk, n: int, section: BesideSection) -> None: ...
    def back(self, doc: Walk) -> dict: ...


def walk(report: Report, renderer: Renderer, clock: Clock | None = None) -> dict:
    """Drive a renderer over a report; returns what ``back`` returns (the manifest it embedded)."""
    doc = Walk(report, artifact_format=renderer.format, clock=clock)
    renderer.front(doc)
    for n, section in enumerate(report.sections, 1):
        match section:
            case TableSection():
                renderer.table(doc, n, section)
            case ChartSection():
                renderer.chart(doc, n, section)
            case KpiSection():
                renderer.kpi(doc, n, section)
            case TextSection():
                renderer.text(doc, n, section)
            case BesideSection():
                renderer.beside(doc, n, section)
            case _:
                raise TypeError(f"section {n}: {type(section).__name__} is no section a renderer draws")
    return renderer.back(doc)
