"""The PDF briefing's pages as a frozen plan: once the pager (layout.pager.Pager) has filled every
page, each page becomes a ``layout.document.Unit`` whose blocks hold, at the positions the pager
gave them, everything that is a figure, with its text as that page shows it (the marks of the
page), its letters, its notes and its location; the manifest is built from that plan, and the
painter (pdf.py's ``_build``) draws each figure's text from it.

Each block carries its text as the pager wrapped it (TableLines, ChartLines, a paragraph's lines), so
that render/pdf_paint.py paints it from the block alone. The frozen model holds no library object.
"""
from __future__ import annotations

from ..layout.document import (Bar, BoundCell, ChartBlock, ChartLines, Frame, Location, Para, TableBlock, TableLines,
                               TextBlock)
from ..layout.pager import LayoutError, NoteBook, Page
from ..report import BoundFigure
from . import pdf_layout as lay
from .pdf_chart import ChartShare
from .pdf_layout import CAPTION, CELL, CONTINUES_H, NOTE, SHARED, SMALL
from .pdf_tables import TableShare
from .pdf_text import clean


def bound(fig: BoundFigure, lettering, where: Location) -> BoundCell:
    """A figure as its page shows it: its text with the page's marks, the letters of those marks and
    the notes they resolve to (what walk.Walk.place recorded)."""
    return BoundCell(fig, lettering.text(fig), lettering.letters(fig),
                     tuple(n.text for n in lettering.notes_of(fig)), where)


def table_block(share: TableShare, page: int, lettering, frame: Frame) -> TableBlock:
    """A page's share of a table: its rows' cells (a figure bound at its page, table, row and
    column, the rows counted from the share's first), its head and its "continues" line."""
    layout, of = share.layout, share.of
    rows = []
    for r in range(share.start, share.stop):
        row = []
        for c, value in enumerate(layout.cells[r]):
            if isinstance(value, BoundFigure):
                if of is None:
                    raise LayoutError(f"{layout.label}: a figure in a table that has no location")
                row.append(bound(value, lettering, Location("page", page, "table", of.number,
                                                            row=r - share.start + 1, column=c + 1)))
            else:
                row.append(layout.text(r, c))  # the cell's text as drawn: cleaned, cut to its lines
        rows.append(tuple(row))
    head = []
    caption = layout.caption(share.continued)
    if caption:
        head.append(Para(caption, CAPTION.size, bold=True))
    if layout.shared:
        head.append(Para(layout.shared, SHARED.size, italic=True))
    footer = (Para(layout.continues_line(share.start), SMALL.size, italic=True),) if share.continues else ()
    run_in = layout.run_in(share.continued)
    lines = TableLines(
        caption=tuple(layout.caption_lines(share.continued, layout.width)), run_in=run_in,
        run_in_indent=layout.label_indent(run_in), shared=tuple(layout.shared_lines(layout.width, share.continued)),
        head=tuple(tuple(h) for h in layout.head_lines),
        cells=tuple(tuple(None if c is None else tuple(c) for c in layout.measured[r])
                    for r in range(share.start, share.stop)))
    return TableBlock(
        name=layout.label or "table", frame=frame, headers=tuple(layout.headers), rows=tuple(rows),
        widths=tuple(layout.widths), header_h=layout.head_h, row_heights=tuple(layout.heights[share.start:share.stop]),
        footer=footer, footer_heights=(CONTINUES_H,) * len(footer), body_pt=layout.size, note_pt=NOTE.size,
        figure_columns=tuple(c for c, numeric in enumerate(layout.numeric) if numeric), first=share.start,
        of=len(layout.rows), head=tuple(head), derived_columns=tuple(c for c, d in enumerate(layout.derived) if d),
        lines=lines)


def chart_block(share: ChartShare, page: int, lettering, frame: Frame) -> ChartBlock:
    """A page's share of a chart: a bar per row (a figure bound at its page, chart and bar, the bars
    counted from the share's first; else the words that say why it has none), its rank first
    among its category's lines where the chart shows ranks."""
    layout, of = share.layout, share.of
    bars = []
    for i in range(share.start, share.stop):
        bar = layout.bars[i]
        if isinstance(bar.cell, BoundFigure):
            if of is None:
                raise LayoutError(f"{layout.label}: a figure in a chart that has no location")
            cell = bound(bar.cell, lettering, Location("page", page, "chart", of.number, point=i - share.start + 1))
        else:
            cell = clean(bar.cell, lay.CELL_LIMIT)
        bars.append(Bar(tuple(([bar.rank] if bar.rank else []) + list(layout.label_lines[i])), cell))
    head = layout.head_height(share.continued)
    head_lines = layout.head_lines(share.continued)
    [(_, title), *_] = head_lines
    span = range(share.start, share.stop)
    lines = ChartLines(
        head=tuple((kind, tuple(text)) for kind, text in head_lines), ranks=tuple(layout.bars[i].rank for i in span),
        labels=tuple(tuple(layout.label_lines[i]) for i in span), heights=tuple(layout.heights[i] for i in span),
        rank_width=layout.rank_w, axis_words=layout.axis_words(), continues=layout.continues_line() if share.continues
        else "")
    return ChartBlock(
        name=layout.label, frame=frame, title=tuple(title), title_pt=CAPTION.size, series=layout.unit,
        bars=tuple(bars), label_pt=CELL.size, axis_max=layout.vmax,
        plot=Frame(layout.plot_x, head, layout.plot_w, sum(layout.heights[share.start:share.stop])),
        band=layout.band or None, band_words=layout.legend(), chart_notes=(layout.shared,), lines=lines)


def notes_block(page: Page, lettering, frame: Frame, notebook: NoteBook) -> TextBlock:
    """A page's notes area: one paragraph per note of its figures, "[a] text", in the order of its
    marks, with its lines in the columns the pager measured."""
    plan = page.notes_plan
    notes = lettering.notes()
    if [note.text for _, note in notes] != [note.text for note in page.notes]:  # columns hold the notes in the order they were measured
        raise LayoutError(f"page {page.number}: its notes are lettered in another order than planned")
    width = page.geometry.frame_w
    return TextBlock("Notes", frame, tuple(Para(note.text, NOTE.size, mark=mark,
                                                lines=tuple(notebook.lines(note, width, plan.columns)))
                                           for mark, note in notes),
                     columns=plan.columns, column_gap=lay.NOTE_COLUMN_GAP, column_starts=plan.starts)
