"""The laid-out document: what a paged artifact (a deck, a briefing) shows, where, before any
library draws it.

A planner (render/pptx_plan.py, render/pdf.py's pager) builds one ``Document`` from a report for a
given page size or template; the manifest is built from it (``Document.placements``) before
anything is drawn; a painter translates its blocks into library calls and decides nothing. It is
frozen: a painter cannot move a figure, change its text or its marks.

    Document      format, page size, units
      Unit        a slide or a page: number, title, blocks, speaker notes
        Block     TableBlock | ChartBlock | KpiBlock | TextBlock
          cells   str, or BoundCell: a figure with its shown text, letters, notes and Location

Sizes and positions are in points from the unit's top left corner, whatever the format's own unit.
``Document.text()`` is the plan in text form (alt texts and speaker notes included), for golden
tests and for reading a layout by eye.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Union

from .. import embedding as emb
from ..report import BoundFigure

UNIT_KINDS = ("slide", "page")
BLOCK_KINDS = ("table", "chart", "headline")


@dataclass(frozen=True, slots=True)
class Frame:
    """A rectangle in points: from the unit's left and top edges."""

    left: float
    top: float
    width: float
    height: float

    @property
    def bottom(self) -> float:
        return self.top + self.height

    @property
    def right(self) -> float:
        return self.left + self.width


@dataclass(frozen=True, slots=True)
class Location:
    """Where a figure stands, typed; ``str()`` gives the format's location syntax (embedding.py),
    which the manifest records and the checker reads back.

    ``unit``: "slide" (PPTX) or "page" (PDF); ``block``: "table", "chart" or "headline";
    ``index``: the block's number (PPTX: among the slide's tables or charts; PDF: the section's
    number); ``row``, ``column`` (tables, from 1, the header being row 1 in PPTX) or ``point``
    (a chart's bar, from 1)."""

    unit: str
    number: int
    block: str
    index: int = 1
    row: int = 0
    column: int = 0
    point: int = 0

    def __post_init__(self):
        if self.unit not in UNIT_KINDS or self.block not in BLOCK_KINDS:
            raise ValueError(f"no location syntax for a {self.block!r} on a {self.unit!r}")

    def __str__(self) -> str:
        if self.unit == "slide":
            if self.block == "table":
                return emb.pptx_table_cell(self.number, self.index, self.row, self.column)
            if self.block == "chart":
                return emb.pptx_chart_point(self.number, self.index, self.point)
            return emb.pptx_headline(self.number)
        if self.block == "table":
            return emb.pdf_table_cell(self.number, self.index, self.row, self.column)
        if self.block == "chart":
            return emb.pdf_chart_bar(self.number, self.index, self.point)
        return emb.pdf_headline(self.number, self.index)


@dataclass(frozen=True, slots=True)
class BoundCell:
    """A figure as the artifact shows it at one location: its text with the marks of its scope
    (a slide, a page), the letters of those marks and the note texts they resolve to there.
    It is also what the manifest reads of a placement (manifest.Placement)."""

    figure: BoundFigure
    shown_text: str
    letters: tuple[str, ...]
    notes: tuple[str, ...]
    where: Location
    shown_value: float | None = None  # the number a cell holds (none in a deck or a briefing)

    @property
    def location(self) -> str:
        return str(self.where)


Cell = Union[str, BoundCell]


@dataclass(frozen=True, slots=True)
class Para:
    """A paragraph of a text block or a notes block, at its size."""

    text: str
    size: float
    bold: bool = False
    italic: bool = False
    space_after: float = 0.0
    mark: str = ""  # a note's mark ("a"), drawn before its text: a notes block's paragraph is "[a] text"
    lines: tuple[str, ...] = ()  # a paged format's lines of it, as its pager wrapped them (the PDF)
    style: str = ""  # the format's named paragraph style, where its painter has several (pdf_layout.PROSE)
    lead: str = ""  # run-in words its first line starts with, set in bold ("How to read the figures.")
    tail: str = ""  # what stands right-aligned on its first line (a contents entry's page)


@dataclass(frozen=True, slots=True)
class TableLines:
    """A paged table share's text as the pager wrapped it, so that its painter draws lines without
    measuring or wrapping anything: the caption's lines; the table's label where it runs in on the
    shared conditions' first line, and how far that line starts after it; the shared conditions'
    lines; each header's lines; each row's cells' lines (None for a figure: one line, its shown text)."""

    caption: tuple[str, ...]
    run_in: str
    run_in_indent: float
    shared: tuple[str, ...]
    head: tuple[tuple[str, ...], ...]
    cells: tuple[tuple[tuple[str, ...] | None, ...], ...]


@dataclass(frozen=True, slots=True)
class TableBlock:
    """Rows ``first``..``first + len(rows)`` of a table, with their header and footer rows.

    ``footer``: the rows under the body, each one paragraph across the table (the table note and
    the statements beside the comparison; the notes of this unit's marks, run on; the legend)."""

    name: str
    frame: Frame
    headers: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    widths: tuple[float, ...]
    header_h: float
    row_heights: tuple[float, ...]
    footer: tuple[Para, ...]
    footer_heights: tuple[float, ...]
    body_pt: float
    note_pt: float
    figure_columns: tuple[int, ...] = ()  # right-aligned
    first: int = 0  # the index of its first row in the whole table
    of: int = 0  # the whole table's rows
    alt_text: str = ""
    head: tuple[Para, ...] = ()  # above the header row, on every share: the caption, the shared conditions
    derived_columns: tuple[int, ...] = ()  # figures derived from the measured ones: drawn in their own style
    lines: TableLines | None = None  # a paged format's wrapped text (the PDF)
    kind: str = field(default="table", init=False)

    def cells(self) -> Iterator[BoundCell]:
        for row in self.rows:
            for cell in row:
                if isinstance(cell, BoundCell):
                    yield cell


@dataclass(frozen=True, slots=True)
class Bar:
    category: tuple[str, ...]  # its label's lines
    cell: Cell  # the figure, or the words that say why a row has none (a bar without a figure)
    label_offset: float = 0.0  # pt the data label moves left of its bar's end, to stay inside the plot


@dataclass(frozen=True, slots=True)
class ChartLines:
    """A paged chart share's text as the pager wrapped it and its bars' heights, so that its painter
    measures nothing: the head's lines by kind ("caption", "shared" conditions, "small" print: the
    legend), each bar's rank, label lines and height, the rank column's width, the words under the
    value axis and the "continues" line of a share the chart goes on after ("" where it ends)."""

    head: tuple[tuple[str, tuple[str, ...]], ...]
    ranks: tuple[str, ...]
    labels: tuple[tuple[str, ...], ...]
    heights: tuple[float, ...]
    rank_width: float
    axis_words: str
    continues: str = ""


@dataclass(frozen=True, slots=True)
class ChartBlock:
    """A bar chart: one bar per figure, its band as error bars, its data labels the figures' shown
    texts; the notes its marks resolve to are a TextBlock on the same unit."""

    name: str
    frame: Frame
    title: tuple[str, ...]  # lines
    title_pt: float
    series: str
    bars: tuple[Bar, ...]
    label_pt: float
    axis_max: float
    plot: Frame  # the bars' area, from ``frame``'s top left corner
    band: float | None  # the band as a fraction of each bar, or None: no error bars
    band_words: str = ""
    chart_notes: tuple[str, ...] = ()  # what the chart's embedded data states beside its figures
    alt_text: str = ""
    axis_title: str = ""  # the value axis's title: what its numbers count, in which unit
    axis_step: float = 0.0  # its major unit (a light gridline each), from zero to axis_max
    axis_title_at: tuple[float, float] = (0.0, 0.0)  # the axis title's top left, from ``frame``'s top left
    lines: ChartLines | None = None  # a paged format's wrapped text (the PDF)
    kind: str = field(default="chart", init=False)

    def cells(self) -> Iterator[BoundCell]:
        for bar in self.bars:
            if isinstance(bar.cell, BoundCell):
                yield bar.cell


@dataclass(frozen=True, slots=True)
class KpiBlock:
    """A headline figure and, in the same box, its conditions and notes."""

    name: str
    frame: Frame
    cell: BoundCell
    paras: tuple[Para, ...]  # the figure's paragraph first
    alt_text: str = ""
    kind: str = field(default="headline", init=False)

    def cells(self) -> Iterator[BoundCell]:
        yield self.cell


@dataclass(frozen=True, slots=True)
class TextBlock:
    """Paragraphs in a box: prose, a chart's notes (``columns`` > 1: in columns), a caveat."""

    name: str
    frame: Frame
    paras: tuple[Para, ...]
    columns: int = 1
    column_gap: float = 0.0
    anchor: str = "top"
    alt_text: str = ""
    placeholder: str = ""  # a placeholder of the unit's layout that holds the text ("subtitle"), or none: a box
    inset_y: float | None = None  # pt inside its top and bottom edges; None: the format's default
    column_starts: tuple[int, ...] = ()  # the paragraph each column after the first starts with (as planned)
    outline: str = ""  # the key of the document outline's entry (a PDF bookmark) this block starts, titled its text
    kind: str = field(default="text", init=False)

    def cells(self) -> Iterator[BoundCell]:
        return iter(())


Block = Union[TableBlock, ChartBlock, KpiBlock, TextBlock]


@dataclass(frozen=True, slots=True)
class Unit:
    """A slide or a page."""

    kind: str  # "slide" or "page"
    number: int
    title: str
    blocks: tuple[Block, ...]
    layout: str = ""  # the template layout a slide uses ("title", "content"); a page has none
    title_pt: float = 0.0
    speaker_notes: str = ""
    width: float = 0.0  # this unit's size where it differs from the document's (0: the document's)
    height: float = 0.0

    def cells(self) -> Iterator[BoundCell]:
        for block in self.blocks:
            yield from block.cells()


@dataclass(frozen=True, slots=True)
class Document:
    format: str  # "pptx", "pdf"
    width: float  # the page or slide, in points
    height: float
    units: tuple[Unit, ...]
    title: str = ""  # the artifact's own properties (a deck's core properties), as shown
    subject: str = ""

    def placements(self) -> Iterator[BoundCell]:
        """Every figure as shown, in reading order: what the manifest records."""
        for unit in self.units:
            yield from unit.cells()

    def text(self) -> str:
        """The plan in text form: each unit, its blocks with their frames and sizes, every cell's
        shown text and every figure's location. Deterministic: golden tests compare it."""
        out = [f"{self.format} {_pt(self.width)} x {_pt(self.height)} pt, {len(self.units)} {self.units and self.units[0].kind or 'unit'}s"]
        for unit in self.units:
            size = f" {_pt(unit.width)} x {_pt(unit.height)} pt" if unit.width else ""
            layout = f" [{unit.layout}]" if unit.layout else ""
            out.append(f"\n{unit.kind} {unit.number}{size}{layout}" + (f" {_pt(unit.title_pt)} pt" if unit.title_pt else "")
                       + f": {unit.title}")
            for block in unit.blocks:
                out.extend("  " + line for line in _block_text(block))
                if block.alt_text:
                    out.append(f"    alt text: {block.alt_text}")
            if unit.speaker_notes:
                out.extend(("  speaker notes: " if i == 0 else "    ") + line if line else ""
                           for i, line in enumerate(unit.speaker_notes.split("\n")))
        return "\n".join(out) + "\n"


def _pt(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def _frame(f: Frame) -> str:
    return f"at {_pt(f.left)},{_pt(f.top)} size {_pt(f.width)}x{_pt(f.height)}"


def _cell_text(cell: Cell) -> str:
    if isinstance(cell, BoundCell):
        return f"{cell.shown_text} @ {cell.location}"
    return cell


def _paras_text(paras, indent: str = "  ") -> list[str]:
    return [f"{indent}{_pt(p.size)} pt{' bold' if p.bold else ''}{' italic' if p.italic else ''}: "
            f"{f'[{p.mark}] ' if p.mark else ''}{p.text}{f' ... {p.tail}' if p.tail else ''}" for p in paras]


def _block_text(block: Block) -> list[str]:
    if isinstance(block, TableBlock):
        out = [f"table {block.name!r} {_frame(block.frame)}, text {_pt(block.body_pt)} pt, notes {_pt(block.note_pt)} pt, "
               f"rows {block.first + 1}-{block.first + len(block.rows)} of {block.of}",
               "  widths " + " ".join(_pt(w) for w in block.widths)]
        out.extend(f"  head {line.strip()}" for line in _paras_text(block.head, indent=""))
        out.append("  header: " + " | ".join(block.headers))
        for h, row in zip(block.row_heights, block.rows):
            out.append(f"  row {_pt(h)} pt: " + " | ".join(_cell_text(c) for c in row))
        out.extend(f"  footer {_pt(h)} pt: {p.text}" for h, p in zip(block.footer_heights, block.footer))
        return out
    if isinstance(block, ChartBlock):
        out = [f"chart {block.name!r} {_frame(block.frame)}, labels {_pt(block.label_pt)} pt, axis to {block.axis_max:g}, "
               f"band {block.band_words or 'none'}",
               f"  title {_pt(block.title_pt)} pt: " + " / ".join(block.title)]
        if block.axis_title:
            out.append(f"  value axis from 0 by {block.axis_step:g}: {block.axis_title}")
        out.extend(f"  bar {' / '.join(b.category)}: {_cell_text(b.cell)}" for b in block.bars)
        return out
    if isinstance(block, KpiBlock):
        return [f"headline {block.name!r} {_frame(block.frame)}: {_cell_text(block.cell)}"] + _paras_text(block.paras[1:])
    cols = f", {block.columns} columns" if block.columns > 1 else ""
    return [f"text {block.name!r} {_frame(block.frame)}{cols}"] + _paras_text(block.paras)
