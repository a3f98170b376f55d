"""XLSX renderer: vendor-comparison workbooks in which every throughput cell carries its binding.

Layout (docs/xlsx.md; decided in xlsx_layout.py):

- one sheet per table or chart section, named after its cohort ("llama2-70b-99 Offline"): the
  section title, the table note (the conditions every row shares), the one-line caveat, then the
  header row and one row per result. A figure cell is numeric and its number format carries unit,
  band and marks as literal text (``#,##0" tok/s ±5.4% [a]"``), so copying the cell as text keeps
  them; a cell comment holds the full footnote; the band's low and high edges are the table's last
  columns, each a number whose format says what it is (``96,045 tok/s, low edge of ±5.4% [a]``).
  Below the table:
  the notes block (``[a] ...``, one row each, merged across the table's first printed page) and the
  trademark legend. Frozen header, autofilter, landscape print at a planned scale that keeps the
  smallest text at 8 pt on paper (page-wide column groups where the sheet is wider; xlsx_layout.py),
  with the header rows repeated and the one-line caveat in the page footer.
- "Headline" (KPI sections), "Notes" (text sections), "Caveat" (the full caveat) and "Sources"
  (one citation row per result shown).
- "exportguard_manifest", a very hidden sheet: the manifest as JSON in column A, in chunks of at most
  32,000 characters (read back by exportguard.check.manifests).

With ``text_cells=True`` (``--text-cells``) a figure cell holds the text ``101,527 tok/s ±5.4% [a]``
and a numeric "sort value" column sits beside it.

Written by xlsx_writer.py, which streams each sheet's rows, merged ranges, comments and their
drawing to temporary files as they are appended and joins them into the package at the end, so
that memory does not grow with the number of figures. The number formats are planned
before anything is written, within a budget every application honours (xlsx_formats.py): each
table's figures carry their row's marks, or one mark for the table, or are written as text beside
a numeric sort column, and the sheet says which.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Iterable, NamedTuple, Sequence

from .. import manifest as manifest_mod
from ..clock import resolve as resolve_clock
from ..embedding import XLSX_MANIFEST_SHEET as XLSX_SHEET, xlsx_cell
from ..citation import result_id_cell
from ..errors import ExportguardError
from ..escaping import formula_like, worksheet_text
from ..layout import compose
from ..report import (BesideSection, BoundFigure, BoundTable, ChartSection, KpiSection, RankSpan, Report, TableSection,
                      TextSection)
from ..wording import BESIDE_RULE, TIE_RULE, band_words, both_shapes_title, note_line, number, shape_line
from . import xlsx_formats as fmts
from . import xlsx_layout as lay
from .panels import beside_parts
from .walk import Lettering, TablePart, Walk, walk
from .xlsx_formats import edge_format, figure_format, number_format, sort_format  # noqa: F401 (API)
from .xlsx_writer import MAX_ROW_HEIGHT, Alignment, Font, PageSetup, Style, WorkbookWriter
from .xlsx_writer import column_letter as get_column_letter

MANIFEST_SHEET = XLSX_SHEET
MANIFEST_CHUNK = 32_000  # characters per cell of the manifest sheet (Excel allows 32,767)
AUTHOR = "exportguard"

# -- escaping: what a worksheet cell may hold ------------------------------------------------------



def shown(value: float, fig: BoundFigure, fmt: str) -> str:
    """What a numeric cell with this format shows: the number as the format rounds it, and the literal."""
    return number(value, fig.decimals) + fmt[fmt.index('"') + 1:-1]


sheet_location = xlsx_cell  # ``'llama2-70b-99 Offline'!I7``: the form the manifest uses for a cell


# -- styles ---------------------------------------------------------------------------------------

FONT = "Calibri"  # named in every style so no application falls back to a serif
_BOX = "BFBFBF"  # a thin grey border on all four sides
_TOP_WRAP = Alignment(wrap=True, vertical="top")
_RIGHT = Alignment(vertical="top", horizontal="right")
# Every text at 11 pt or more: the print scale that keeps the smallest at 8 pt on paper (73 %) then
# fits the most columns and rows on a page.
_STYLES = {  # named styles, "eg <key>" in the workbook
    "title": Style(Font(FONT, 13, bold=True), alignment=_TOP_WRAP),
    "note": Style(Font(FONT, 11), alignment=_TOP_WRAP),
    # a note beside the title block (a sheet printed in strips): set off from the key's texts on its left
    "aside": Style(Font(FONT, 11), alignment=Alignment(horizontal="left", vertical="top", wrap=True, indent=1)),
    "caveat": Style(Font(FONT, 11, italic=True, color="404040"), alignment=_TOP_WRAP),
    "warning": Style(Font(FONT, 11, bold=True, color="9C0006"), alignment=_TOP_WRAP),
    "label": Style(Font(FONT, 11, bold=True), alignment=Alignment(vertical="top")),
    "legend": Style(Font(FONT, 11, italic=True, color="404040"), alignment=_TOP_WRAP),
    "header": Style(Font(FONT, bold=True), fill="D9E1F2", border=_BOX, alignment=Alignment(wrap=True, vertical="center")),
    "text": Style(Font(FONT), border=_BOX, alignment=_TOP_WRAP),
    "count": Style(Font(FONT), border=_BOX, alignment=Alignment(vertical="top", horizontal="left")),
    "figure": Style(Font(FONT), border=_BOX, alignment=_RIGHT),
    "derived": Style(Font(FONT, italic=True, color="595959"), fill="F2F2F2", border=_BOX, alignment=_RIGHT),
    "band": Style(Font(FONT, color="595959"), border=_BOX, alignment=_RIGHT),
    "band_text": Style(Font(FONT, color="595959"), border=_BOX, alignment=_TOP_WRAP),
    "plain": Style(Font(FONT)),
}
_FONT_PT = {key: s.font.size for key, s in _STYLES.items()}
MAX_ROW_PT = MAX_ROW_HEIGHT - 9  # a title block's row, a little under the tallest the writer writes
ASIDE_INDENT = 2.0  # width units the "aside" style's indent takes from its cell (about three spaces)
_BOLD = {key: s.font.bold for key, s in _STYLES.items()}
_SMALLEST_PT = min(_FONT_PT.values())  # what the print scale keeps at lay.PRINT_MIN_PT or more


# -- one sheet, streamed --------------------------------------------------------------------------

class _Sheet:
    """A streamed worksheet with its row counter, merged note rows and print set-up."""

    def __init__(self, wb: WorkbookWriter, title: str, report: Report, widths: Sequence[float], paper: lay.Paper, *,
                 freeze_row: int | None = None, title_rows: str | None = None,
                 keep: Sequence[tuple[int, int]] = (), key: int = 0, printed: int | None = None,
                 areas: Sequence[tuple[int, int]] = ()):
        """``printed``: the columns that print, from the first (a table's band edges do not); ``areas``:
        instead, column ranges (0-based, end exclusive) that print each on pages of their own (a beside
        section's panels)."""
        self.wb = wb
        plan = self.print = lay.print_plan(widths, _SMALLEST_PT, paper, keep, key, printed, areas)
        self.text_cols = plan.first_cols  # wide texts merge across the first page's columns
        self.text_width = sum(list(widths)[:self.text_cols])
        left = worksheet_text(report.title).replace("\n", " ").replace("&", "&&")[:120]
        pt = f"&{plan.header_pt:g}"
        page = PageSetup(landscape=paper.landscape, scale=plan.scale, col_breaks=tuple(plan.col_breaks),
                         margins=lay.MARGINS, paper=paper.size, title_cols=plan.key,
                         areas=tuple((a + 1, b) for a, b in plan.areas if (a, b) != (0, len(widths))))
        self.ws = wb.add_sheet(title, [round(w, 1) for w in widths], freeze_row=freeze_row, page=page,
                               title_rows=title_rows,
                               header=f"&L{pt} {left}&R{pt} &A, page &P of &N",
                               footer=f"&C{pt} {lay.footer_caveat(worksheet_text(report.caveat_short))}")
        self.title = title
        self.widths = list(widths)
        self.row = 0
        self._author = wb.author(AUTHOR)

    def text(self, value, style: str = "text") -> _Cell:
        return _text(value, style)

    def number(self, value: float, fmt: str, style: str) -> _Cell:
        return _number(value, fmt, style)

    def append(self, cells: Sequence[_Cell | None], height: float | None = None) -> int:
        self.row += 1
        out = []
        known, xf = self.wb.styles.xfs, self.wb.xf
        for col, spec in enumerate(cells, 1):
            if spec is None:
                continue
            value, style, fmt, comment, is_text = spec
            # A text that a spreadsheet would read as a formula stays text when edited in Excel too.
            key = (style, fmt, is_text and formula_like(value))
            out.append((col, value, known.get(key) or xf(*key), is_text))
            if comment:
                self.ws.comment(self.row, col, comment, self._author, 460, _comment_height(comment))
        self.ws.append(out, height)
        return self.row

    def wide_text(self, text: str, ncols: int, width_chars: float, style: str = "note") -> int:
        """A wrapped text merged across ``ncols`` columns, its row tall enough to show it all."""
        row = self.append([self.text(text, style)], height=lay.height(worksheet_text(text), width_chars, _FONT_PT[style], _BOLD[style]))
        if ncols > 1:
            self.ws.merge(row, 1, row, ncols)
        return row

    def blank(self) -> None:
        self.append([])

    def split_rows(self, left: Sequence[tuple[str, str]], right: Sequence[tuple[str, str]],
                   strips: Sequence[int] | None = None) -> list[float | None]:
        """Rows for a sheet printed in strips that repeat its key columns (``_stacked``); returns the
        heights."""
        heights, places = _stacked(left, right, self.widths, self.print, strips)
        first = self.row + 1
        rows: list[list[_Cell | None]] = [[None] * self.print.printed_cols for _ in heights]
        for r0, r1, a, b, text, style in places:
            rows[r0][a] = _text(text, style)
        for cells, height in zip(rows, heights):
            self.append(cells, height)
        for r0, r1, a, b, _, _ in places:
            if b - a > 1 or r1 > r0:
                self.ws.merge(first + r0, a + 1, first + r1, b)
        return list(heights)

    def page_break(self, after_row: int) -> None:
        """A printed page ends after this row."""
        self.ws.row_break(after_row)

    def write(self, panels: Sequence["_Rows"]) -> None:
        """Panels side by side, row by row: each from its own first column, each row as tall as the
        tallest of its panels' rows, each wide text merged across its own panel's columns."""
        for i in range(max(len(p.rows) for p in panels)):
            cells: list[_Cell | None] = []
            height = None
            for p in panels:
                if i >= len(p.rows):
                    continue
                cells += [None] * (p.col0 - len(cells))
                cells += p.rows[i]
                h = p.heights[i]
                height = max(height or 0, h) if h else height
            row = self.append(cells, height)
            for p in panels:
                if i < len(p.rows) and i in p.merged and p.text_cols > 1:
                    self.ws.merge(row, p.col0 + 1, row, p.col0 + p.text_cols)


class _Rows:
    """A panel's rows before they are written (a table, or one side of a beside section): its cells
    from column ``col0`` on, their heights, the rows whose first cell is merged across the panel."""

    def __init__(self, first_row: int, col0: int, ncols: int, text_cols: int | None = None):
        self.first_row, self.col0, self.ncols = first_row, col0, ncols
        self.text_cols = ncols if text_cols is None else min(ncols, text_cols)  # what a wide text merges across
        self.rows: list[list[_Cell | None]] = []
        self.heights: list[float | None] = []
        self.merged: set[int] = set()
        self.notes_at: int | None = None  # the row (from 0) where the notes block begins

    @property
    def next_row(self) -> int:
        """The sheet row the next appended row lands on."""
        return self.first_row + len(self.rows)

    def append(self, cells: Sequence[_Cell | None], height: float | None = None) -> int:
        self.rows.append(list(cells))
        self.heights.append(height)
        return self.next_row - 1

    def wide_text(self, text: str, width_chars: float, style: str = "note") -> int:
        row = self.append([_text(text, style)], height=lay.height(worksheet_text(text), width_chars, _FONT_PT[style], _BOLD[style]))
        self.merged.add(len(self.rows) - 1)
        return row

    def blank(self) -> None:
        self.append([])


class _SheetRows(_Rows):
    """A panel that is the only one across its sheet's rows: each row goes to the sheet as it comes
    (only its height is kept, for the print plan's page break before the notes)."""

    def __init__(self, sheet: _Sheet, ncols: int, text_cols: int | None = None):
        super().__init__(sheet.row + 1, 0, ncols, text_cols)
        self.sheet = sheet

    @property
    def next_row(self) -> int:
        return self.sheet.row + 1

    def append(self, cells: Sequence[_Cell | None], height: float | None = None) -> int:
        self.heights.append(height)
        return self.sheet.append(cells, height)

    def wide_text(self, text: str, width_chars: float, style: str = "note") -> int:
        row = self.append([_text(text, style)], height=lay.height(worksheet_text(text), width_chars, _FONT_PT[style], _BOLD[style]))
        if self.text_cols > 1:
            self.sheet.ws.merge(row, 1, row, self.text_cols)
        return row


class _Cell(NamedTuple):
    value: str | float
    style: str
    number_format: str | None
    comment: str | None
    is_text: bool

    def with_comment(self, text: str) -> "_Cell":
        return self._replace(comment=worksheet_text(text))


def _text(value, style: str = "text") -> _Cell:
    """A string cell, whatever the text starts with: never a formula, an error or a number."""
    return _Cell(worksheet_text(value), style, None, None, True)


def _number(value: float, fmt: str, style: str) -> _Cell:
    value = float(value)
    if not math.isfinite(value):
        raise ExportguardError(f"cannot write {value!r} as a number")
    return _Cell(value, style, fmt, None, False)


def _comment_height(text: str) -> int:
    return min(900, 16 * sum(len(p) // 64 + 1 for p in text.split("\n")) + 16)


# -- the renderer -----------------------------------------------------------------------------------

class XlsxRenderer:
    format = "xlsx"

    def __init__(self, report: Report, text_cells: bool, page_size: str | None = None,
                 orientation: str | None = None):
        self.report = report
        self.text_cells = text_cells
        size = (page_size or lay.paper.DEFAULT_SIZE).lower()
        # tables print across the paper, text sheets down it, unless the export asks for one orientation
        self.wide = lay.Paper(size, landscape=(orientation or "landscape").lower() == "landscape")
        self.tall = lay.Paper(size, landscape=(orientation or "portrait").lower() == "landscape")
        self.wb = WorkbookWriter(_STYLES, title=worksheet_text(report.title)[:255], creator=AUTHOR)
        self.names = lay.sheet_names(report)
        self.plan = plan_formats(report, self.text_cells)
        self.shown_on: dict[tuple, str] = {}
        self.manifest = manifest_mod.Builder(self.format)
        self.headline: _Sheet | None = None
        self.notes: _Sheet | None = None

    def front(self, doc: Walk) -> None:
        pass  # every sheet opens with the report title and the one-line caveat

    def _top(self, sheet: _Sheet, title: str, ncols: int, width: float, lines: Iterable[tuple[str, str]]) -> None:
        sheet.wide_text(title, ncols, width, "title")
        for text, style in lines:
            sheet.wide_text(text, ncols, width, style)

    # -- a table (or a chart's table) --
    def table(self, doc: Walk, n: int, section: TableSection | ChartSection) -> None:
        panel = self._panel(n, section.title, section.table, notes_on_top=True)
        sheet = _Sheet(self.wb, self.names[n - 1], self.report, panel.widths, self.wide,
                       freeze_row=panel.header_row + 1, title_rows=f"1:{panel.header_row}",
                       keep=lay.keep_runs(panel.cols), key=lay.key_columns(panel.cols),
                       printed=lay.printed_columns(panel.cols))
        # a table alone on its sheet: each row written as it is made, so that none is held (only its height)
        rows = self._panel_rows(doc, sheet.title, panel, col0=0, first_row=1,
                                rows=_SheetRows(sheet, panel.ncols, sheet.text_cols))
        head, tail = panel.header_row, rows.notes_at
        for before in lay.page_breaks(sheet.print, rows.heights[:head], rows.heights[head:tail], rows.heights[tail:]):
            sheet.page_break(rows.first_row + head + before - 1)
        table = section.table
        if table.rows:
            sheet.ws.auto_filter = (f"A{panel.header_row}:{get_column_letter(panel.ncols)}"
                                        f"{panel.header_row + len(table.rows)}")
        self._shown(table, sheet.title)

    chart = table

    # -- an MLPerf cohort beside own runs, on one sheet --
    def beside(self, doc: Walk, n: int, section: BesideSection) -> None:
        """Two panels side by side, never one comparison: the MLPerf cohort from column A, the own
        runs (one table per own cohort, one under the other) right of it after an empty column, each
        with its own header, band rule and notes, marks lettered across both; under both, the shape
        panel that states both shapes in numbers and why a throughput does not carry over."""
        mlperf = self._panel(n, section.mlperf.title, section.mlperf, caveat=False)
        own = [self._panel(n, t.title, t, caveat=False) for t in section.own]
        own_width = max(p.ncols for p in own) if own else 0
        widths = mlperf.widths + [3.0] + [max((p.widths[i] for p in own if i < p.ncols), default=10.0)
                                           for i in range(own_width)]
        col0 = mlperf.ncols + 1  # the own runs' first column
        # each panel prints on pages of its own (a print area each), its band edges for the screen
        shown = lay.printed_columns(mlperf.cols)
        own_shown = max((lay.printed_columns(p.cols) for p in own), default=own_width)
        sheet = _Sheet(self.wb, self.names[n - 1], self.report, widths, self.wide, title_rows="1:2",
                       areas=[(0, shown)] + ([(col0, col0 + own_shown)] if own else []))
        heads = [_Rows(1, 0, shown)] + ([_Rows(1, col0, own_width, own_shown)] if own else [])
        for head in heads:  # the section's title and caveat over each panel: every printed page repeats them
            width = sum(widths[head.col0:head.col0 + head.text_cols])
            head.wide_text(section.title, width, "title")
            head.wide_text(self.report.caveat_short, width, "caveat")
            head.blank()
        sheet.write(heads)
        first = sheet.row + 1
        left = self._panel_rows(doc, sheet.title, mlperf, col0=0, first_row=first, text_cols=shown)
        right = _Rows(first, col0, own_width, own_shown)
        for p in own:
            rows = self._panel_rows(doc, sheet.title, p, col0=right.col0, first_row=right.next_row,
                                    text_cols=min(p.ncols, own_shown))
            for cells, height, k in zip(rows.rows, rows.heights, range(len(rows.rows))):
                if k in rows.merged:
                    right.merged.add(len(right.rows))
                right.append(cells, height)
            right.blank()
        sheet.write([left, right])
        shape = _Rows(sheet.row + 1, 0, len(widths), sheet.text_cols)
        total = sheet.text_width
        shape.blank()
        shape.wide_text(both_shapes_title(section.title), total, "title")
        for r in (section.shape.mlperf, *section.shape.own):
            shape.wide_text(shape_line(r.label, r.shape, r.load), total)
        shape.wide_text(section.shape.sentence, total)
        shape.wide_text(BESIDE_RULE, total, "legend")
        sheet.write([shape])
        for t in section.tables():
            self._shown(t, sheet.title)

    def _shown(self, table, title: str) -> None:
        for _, _, fig in table.figures():
            self.shown_on.setdefault(fig.result.natural_key, title)

    def _panel(self, n, title: str, table, key=None, caveat: bool = True, notes_on_top: bool = False) -> "_Panel":
        """A table's columns, widths, marks and the lines above and below it, as planned. ``notes_on_top``:
        a table alone on its sheet states its notes above its header, in the rows every printed page
        repeats, where they are few enough (lay.NOTES_ON_TOP_LINES): each figure's note then prints on
        its page."""
        key = n if key is None else key
        mode, lettering = self.plan.mode(key), self.plan.lettering(key)
        part = TablePart(n, title, table, 0, len(table.rows), lettering)
        text_cells = mode == fmts.TEXT
        figure_widths, band_chars, sort_chars = self._measure(part)
        cols = lay.table_columns(table, lettering, text_cells)
        wanted = {note for _, _, f in table.figures() for note in lettering.notes_of(f)}
        notes = [(m, note) for m, note in lettering.notes() if note in wanted]  # this panel's, in mark order
        marked_once = isinstance(lettering, fmts.TableMarks)  # one mark for the table (TABLE, or TEXT beside them)
        table_note = lettering.table_note if marked_once and table.cohort.mlperf else None
        if table_note is not None:  # the table note is the note of the table's one mark: [a] at the top
            noted = [(note_line(m, note.text), "note") for m, note in notes if note == table_note]
            notes = [(m, note) for m, note in notes if note != table_note]
        else:
            noted = [(table.table_note.text, "note")]
        note_lines = [note_line(m, note.text) for m, note in notes]
        if table.ranked and table.slack.estimable:
            note_lines = note_lines + [TIE_RULE]
        above = [(self.report.caveat_short, "caveat")] if caveat else []
        if text_cells and not self.text_cells:
            above.append((BUDGET_SENTENCE, "warning"))
        above += [(notice.text, "note") for notice in table.notices]  # EG020: the scales, beside the comparison
        # printed in strips: the trademark legend in the rows every page repeats, rather than a tail that
        # can take a page of its own
        strip_above = above + [(self.report.legend, "legend")] if caveat else above
        left = [(title, "title")]

        def top(cols) -> tuple:
            """The title block these widths give: (printed in strips, the strips with marks, the notes
            above the header, those below, the texts beside them, its rows' heights)."""
            plan = lay.sheet_plan(cols, _SMALLEST_PT, self.wide)
            own = _own_widths(plan, [c.width for c in cols])
            marked = [k for k, (a, b) in enumerate(plan.strips()) if any(c.kind in ("figure", "sort") for c in cols[a:b])]
            width = min(w for k, w in enumerate(own) if k in marked or not marked)
            # the notes on the strips that show marks, and on every other as wide (so that no printed
            # page of the table goes without them, at no extra height)
            marked = tuple(k for k, w in enumerate(own) if k in marked or w >= 0.8 * width)
            above_ = strip_above if plan.key else above
            if sum(lay.lines(line, width, _FONT_PT["note"]) for line in note_lines) <= lay.NOTES_ON_TOP_LINES:
                noted_, below = noted + [(line, "note") for line in note_lines], []
            else:
                noted_, below = noted, note_lines
            if plan.key:
                heights = _stacked(left + above_, noted_, [c.width for c in cols], plan, marked)[0]
            else:
                total = sum(c.width for c in cols[:plan.first_cols])
                heights = [lay.height(worksheet_text(t), total, _FONT_PT[st], _BOLD[st]) for t, st in left + noted_ + above_]
            return bool(plan.key), marked, noted_, below, above_, heights

        title_pt = (lambda cols: sum(top(cols)[-1]) + (lay.header_height(cols) or lay.DEFAULT_ROW_PT)) if notes_on_top else None
        lay.size_columns(cols, table, figure_widths, band_chars, sort_chars, paper_=self.wide, title_pt=title_pt)
        split, marked, block = False, (), 0
        if notes_on_top:
            split, marked, noted, note_lines, above, heights = top(cols)
            block = len(heights) if split else 0
        numeric = (self.plan.extras.get(("rank", key), False), self.plan.extras.get(("count", key), False))
        return _Panel(n, title, table, part, cols, noted, above, note_lines, text_cells, numeric, split, marked, block)

    def _panel_rows(self, doc: Walk, sheet_title: str, panel: "_Panel", col0: int, first_row: int,
                    rows: "_Rows | None" = None, text_cols: int | None = None) -> "_Rows":
        """The panel's rows (into ``rows`` where given); its wide texts (title, notes) merged across its first
        ``text_cols`` columns."""
        rows = _Rows(first_row, col0, panel.ncols, text_cols) if rows is None else rows
        total = sum(panel.widths[:rows.text_cols])
        if panel.split:  # printed in strips: the title beside the notes, which each strip with marks repeats
            rows.heights += rows.sheet.split_rows(panel.left, panel.noted, panel.marked)
        else:
            for text, style in panel.left:
                rows.wide_text(text, total, style)
            for text, style in panel.noted[1:]:
                rows.wide_text(text, total, style)
        rows.append([_text(c.header, "header") for c in panel.cols], height=lay.header_height(panel.cols))
        for r in range(len(panel.table.rows)):
            self._table_row(doc, sheet_title, rows, panel, r)
        rows.notes_at = len(rows.heights)
        tail = [("", "note")] + ([("Notes", "label")] if panel.note_lines else [])
        tail += [(line, "note") for line in panel.note_lines]
        if panel.split:  # the notes where the marks are (the legend stands under the caveat)
            if panel.note_lines:
                rows.heights += rows.sheet.split_rows([], tail, panel.marked)
        else:
            rows.blank()
            for text, style in tail[1:] + [(self.report.legend, "legend")]:
                if style == "label":
                    rows.append([_text(text, style)])
                else:
                    rows.wide_text(text, total, style)
        return rows

    def _measure(self, part: TablePart) -> tuple[dict[int, float], dict[int, int], dict[int, int]]:
        """A table's figure columns' widths (in units: the widest figure's text, measured), and its band
        and sort-value columns' widest texts (in characters)."""
        figure_widths: dict[int, float] = {}
        bindings: dict[str, float] = {}  # a number format -> its literal text's width in points
        band_chars: dict[int, int] = {}
        sort_chars: dict[int, int] = {}
        lettering = part.lettering
        for _, c, fig in part.figures():
            # a figure's text is its number and its binding, measured (the binding once per number format);
            # a band edge's length is its number format's less the digits pattern and the two quotes
            decimals = fig.decimals
            marks = lettering.marks(fig)
            figure_fmt, _, high_fmt = fmts.formats(fig, marks)
            beyond = len(fmts.DIGITS[decimals]) + 2
            shown = number(fig.magnitude, decimals)
            digits = len(shown)
            binding = bindings.get(figure_fmt)
            if binding is None:
                binding = bindings[figure_fmt] = lay.text_pt(fig.binding(marks))
            figure_widths[c] = max(figure_widths.get(c, 0), lay.figure_width(lay.text_pt(shown) + binding))
            sort_chars[c] = max(sort_chars.get(c, 0), digits + len(fmts.SORT_LITERAL))
            band = (len(number(fig.band_edges()[1], decimals)) + len(high_fmt) - beyond if fig.slack.estimable else
                    min(len(band_words(fig.slack)), lay.BAND_TEXT_CAP))
            band_chars[c] = max(band_chars.get(c, 0), band)
        for row in part.rows:  # "not derivable: ..." words in a derived column
            for c in figure_widths:
                if isinstance(row[c], str):
                    figure_widths[c] = max(figure_widths[c], lay.chars_width(min(len(row[c]), lay.TEXT_WIDTH_CAP)))
        return figure_widths, band_chars, sort_chars

    def _table_row(self, doc: Walk, sheet_title: str, rows: "_Rows", panel: "_Panel", r: int) -> None:
        cells: list[_Cell | None] = []
        table, lettering, text_cells = panel.table, panel.part.lettering, panel.text_cells
        row = table.rows[r]
        first_fig = next((c for c in row if isinstance(c, BoundFigure)), None)
        n_lines = 1
        at = rows.next_row
        for k, col in enumerate(panel.cols, 1):
            value = row[col.src] if col.src >= 0 else None
            if col.kind == "verified":
                cells.append(_text(first_fig.result.conditions.identity.verified if first_fig else ""))
            elif col.kind == "rank":
                cells.append(self._rank_cell(table.ranks[r] if table.ranks else None, value, panel.numeric[0]))
            elif col.kind == "count":
                cells.append(_count_cell(first_fig, table.columns[col.src].key, value, panel.numeric[1]))
            elif col.kind == "text":
                cells.append(_text(value))
                n_lines = max(n_lines, lay.lines(value, col.width))
            elif not isinstance(value, BoundFigure):
                # a derived column's "not derivable: ..." words, or nothing in the sort/band columns
                cells.append(_text(value, "derived") if col.kind == "figure" else None)
            elif col.kind == "figure":
                location = sheet_location(sheet_title, f"{get_column_letter(rows.col0 + k)}{at}")
                cells.append(self._figure_cell(doc, location, value, col.as_text, table.table_note.text, lettering))
            elif col.kind == "sort":
                cells.append(_number(value.magnitude, sort_format(value.decimals), "band"))
            else:
                cells.append(self._edge_cell(value, col.kind == "band_low", lettering, text_cells))
                if not value.slack.estimable:
                    n_lines = max(n_lines, lay.lines(band_words(value.slack), col.width))
        rows.append(cells, height=lay.row_height(n_lines))

    @staticmethod
    def _rank_cell(span: RankSpan | None, words: str, numeric: bool) -> _Cell:
        """The rank as a number (it sorts and filters) whose format shows its words, '3 (tie 3-11)';
        the words as text where the rank is not a number ('not ranked') or its formats did not fit."""
        if numeric and span is not None and span.ranked and words == span.words():
            return _number(span.position, fmts.rank_format(span), "count")
        return _text(words)

    def _figure_cell(self, doc: Walk, location: str, fig: BoundFigure, as_text: bool, table_note: str,
                     lettering: Lettering) -> _Cell:
        style = "derived" if fig.derivation else "figure"
        if as_text:
            text = lettering.text(fig)
            cell, value = _text(text, style), None
        else:
            fmt = figure_format(fig, lettering)
            # the number as the file holds it (xlsx_writer writes 16 significant digits)
            cell, value = _number(fig.magnitude, fmt, style), float(f"{fig.magnitude:.16g}")
            text = shown(fig.magnitude, fig, fmt)
        notes = lettering.notes_of(fig)
        marked = [note_line(m, note.full) for m, note in zip(lettering.letters(fig), notes)]
        own = [] if fig.note in notes else [f"This row: {fig.note.full}"]  # one mark per table: the row's note
        cell = cell.with_comment("\n\n".join([text] + ([] if own else [table_note]) + marked + own))
        doc.place(location, fig, lettering, worksheet_text(text), value)
        # into the manifest as it is placed, and not kept: a workbook of 100,000 figures holds no placements
        self.manifest.place(doc.placements.pop())
        fig.forget_words()
        return cell

    def _edge_cell(self, fig: BoundFigure, low: bool, lettering: Lettering, as_text: bool = False) -> _Cell:
        edges = fig.band_edges()
        if edges is None:
            return _text(band_words(fig.slack), "band_text")  # the words that say why there is no band
        if as_text:
            return _text(lettering.edge_text(fig, low), "band")
        return _number(edges[0] if low else edges[1], edge_format(fig, low, lettering), "band")

    # -- headline figures (KPI sections), all on one sheet --
    def kpi(self, doc: Walk, n: int, section: KpiSection) -> None:
        # who and which result beside the figure; its band edges last, for the screen (the figure states its band)
        heads = ["Figure", "Submitter", "System", "Result ID", "Band low edge", "Band high edge"]
        if self.headline is None:
            self.headline = self._headline_sheet(heads)
        sheet = self.headline
        widths = sheet.widths
        wide, total = sheet.text_cols, sheet.text_width
        fig, i = section.figure, section.figure.result.conditions.identity
        lettering = self.plan.lettering(n)
        as_text = self.plan.mode(n) == fmts.TEXT
        sheet.blank()
        sheet.wide_text(section.title, wide, total, "title")
        sheet.wide_text(section.inline_conditions, wide, total)
        for notice in section.notices:  # EG020: the scales the headline was picked among
            sheet.wide_text(notice.text, wide, total)
        sheet.append([sheet.text(h, "header") for h in heads])
        texts = [i.submitter, i.system_name, result_id_cell(fig.result)]
        if not fig.slack.estimable:
            texts += [band_words(fig.slack)] * 2
        n_lines = max(lay.lines(t, w) for t, w in zip(texts, widths[1:]))
        cells = [self._figure_cell(doc, sheet_location(sheet.title, f"A{sheet.row + 1}"), fig, as_text,
                                   section.table_note.text, lettering),
                 sheet.text(i.submitter), sheet.text(i.system_name), sheet.text(result_id_cell(fig.result)),
                 self._edge_cell(fig, True, lettering, as_text), self._edge_cell(fig, False, lettering, as_text)]
        sheet.append(cells, height=lay.row_height(n_lines))
        if not isinstance(lettering, fmts.TableMarks):  # else the note of its one mark [a] begins with it
            sheet.wide_text(section.table_note.text, wide, total)
        for line in lettering.note_lines():
            sheet.wide_text(line, wide, total)
        self.shown_on.setdefault(fig.result.natural_key, sheet.title)

    def _headline_sheet(self, heads: list[str]) -> _Sheet:
        figs = [s.figure for s in self.report.sections if isinstance(s, KpiSection)]
        figure = max(len(f.text("[a]")) for f in figs)
        band = max(len(f.edge_text(False, "[a]")) if f.slack.estimable else lay.BAND_TEXT_CAP for f in figs)
        widths = [max(14, figure * 1.05 + 2.5),
                  max(12, min(lay.HEADLINE_TEXT_CAP, max(len(f.result.conditions.identity.submitter) for f in figs) + 2)),
                  max(10, min(lay.HEADLINE_TEXT_CAP, max(len(f.result.conditions.identity.system_name) for f in figs) + 2)),
                  12, max(16, band * 1.05 + 2.5), max(16, band * 1.05 + 2.5)]
        # what the page leaves at full size goes to the system's column: the notes merged above and below
        # the figure then wrap to fewer lines, and the sheet stays one page
        spare = (self.wide.width - lay.columns_pt(widths[:4])) / lay.PT_PER_UNIT - 0.5
        widths[2] += min(max(0.0, spare), 60.0)
        sheet = _Sheet(self.wb, "Headline", self.report, widths, self.wide, printed=4)
        self._top(sheet, "Headline figures", sheet.text_cols, sheet.text_width, [(self.report.caveat_short, "caveat")])
        return sheet

    # -- text sections, all on one sheet --
    def text(self, doc: Walk, n: int, section: TextSection) -> None:
        if self.notes is None:
            self.notes = _Sheet(self.wb, "Notes", self.report, [lay.PAGE_COL], self.tall)
            self.notes.wide_text(self.report.title, 1, lay.PAGE_COL, "title")
            self.notes.wide_text(self.report.caveat_short, 1, lay.PAGE_COL, "caveat")
        self.notes.blank()
        self.notes.wide_text(section.title, 1, lay.PAGE_COL, "title")
        for p in section.paragraphs:
            self.notes.wide_text(p, 1, lay.PAGE_COL)

    # -- the end: legends, caveat, sources, manifest --
    def back(self, doc: Walk) -> dict:
        for sheet in (self.headline, self.notes):
            if sheet is not None:
                sheet.blank()
                sheet.wide_text(self.report.legend, sheet.text_cols, sheet.text_width, "legend")
        self._caveat_sheet()
        self._sources_sheet(doc)
        manifest = self.manifest.finish(self.report, doc.clock)
        sheet = _Sheet(self.wb, MANIFEST_SHEET, self.report, [20], self.tall)
        sheet.ws.state = "veryHidden"
        for chunk in _manifest_chunks(manifest):
            sheet.append([sheet.text(chunk, "plain")])
        return manifest

    def _caveat_sheet(self) -> None:
        sheet = _Sheet(self.wb, "Caveat", self.report, [lay.PAGE_COL], self.tall)
        sheet.wide_text("Caveat", 1, lay.PAGE_COL, "title")
        for p in self.report.caveat_full:
            sheet.wide_text(p, 1, lay.PAGE_COL)
        sheet.blank()
        sheet.wide_text(self.report.legend, 1, lay.PAGE_COL, "legend")

    def _sources_sheet(self, doc: Walk) -> None:
        """One row per result shown. What every row shares (the suite, round, division, the date
        retrieved, the kind of source, the folder of the source files) is stated once above the
        header, so that the sheet prints one page wide with its rows a few lines tall."""
        results = doc.sources()
        src = compose.sources(results, self.shown_on)
        heads = list(src.headers)
        row = src.row

        # one page wide, each row on one line where the page has the room (each row made when it is
        # written, and those the widths are measured on, before)
        measured = [row(r) for r in lay.sample(results)]
        widths = lay.page_wide([[r[i] for r in measured] for i in range(len(heads))], heads, _SMALLEST_PT, self.wide)
        lines = [(self.report.caveat_short, "caveat")]
        if src.said():
            lines.append((src.said(), "note"))  # the one-line caveat first
        header_row = 2 + len(lines)
        sheet = _Sheet(self.wb, "Sources", self.report, widths, self.wide, freeze_row=header_row + 1,
                       title_rows=f"1:{header_row}")
        wide, total = sheet.text_cols, sheet.text_width
        self._top(sheet, f"{compose.SOURCES_TITLE} in this workbook", wide, total, lines)
        sheet.append([sheet.text(h, "header") for h in heads],
                     height=lay.row_height(max(lay.lines(h, w, bold=True) for h, w in zip(heads, widths))))
        for r in results:
            values = row(r)
            n_lines = max(lay.lines(v, w) for v, w in zip(values, widths))
            sheet.append([sheet.text(v) for v in values], height=lay.row_height(n_lines))
        if results:
            sheet.ws.auto_filter = f"A{header_row}:{get_column_letter(len(heads))}{header_row + len(results)}"
        sheet.blank()
        sheet.wide_text(self.report.legend, wide, total, "legend")


BUDGET_SENTENCE = (f"This table's figures are written as text with their binding, beside a numeric sort-value "
                   f"column: a workbook holds at most {fmts.BUDGET} custom number formats (Excel cannot open one "
                   "with more) and this workbook's figures would need more.")


@dataclass(frozen=True)
class _Panel:
    n: int
    title: str
    table: BoundTable
    part: TablePart
    cols: list
    noted: list  # (text, style) above the header row: the table note, and its other notes where they fit there
    above: list  # (text, style) above the header row: the caveat, notices
    note_lines: list  # below the table
    text_cells: bool
    numeric: tuple  # (ranks, counts) written as numbers
    split: bool = False  # printed in strips that repeat the row's key: the title block beside the notes
    marked: tuple = ()  # the printed strips (0-based) that show figures, and so their marks
    block: int = 0  # in ``split``: the rows the title block takes

    @property
    def left(self) -> list:
        """The title block (without its notes in ``split``): title, table note, caveat, notices."""
        head = [(self.title, "title")]
        return head + self.above if self.split else head + self.noted[:1] + self.above

    @property
    def widths(self) -> list[float]:
        return [c.width for c in self.cols]

    @property
    def ncols(self) -> int:
        return len(self.cols)

    @property
    def total(self) -> float:
        return sum(self.widths)

    @property
    def header_row(self) -> int:
        if self.split:
            return self.block + 1
        return len(self.left) + len(self.noted[1:]) + 1


def _stacked(left: Sequence[tuple[str, str]], right: Sequence[tuple[str, str]], widths: Sequence[float],
             plan: lay.PrintPlan, strips: Sequence[int] | None = None) -> tuple[list[float], list[tuple]]:
    """The rows above a table printed in strips that repeat its key columns (print titles): ``left``
    (the title, the caveat, notices, the legend) in the key columns, which every page prints;
    ``right`` (the notes) beside them, once in each strip's own columns, so that every printed page
    shows them whole (a text merged across the first strip would print cut off at the key's edge on the
    others); ``strips``: only in these (0-based: the strips that show marks). The two stacks are
    independent: each text is as tall as it needs and spans (merged) the rows its stack gives it, so that
    the block is as tall as its taller stack. Returns the rows' heights and each text's place: (first
    row, last row, first column, end column, text, style), rows from 0, columns 0-based, end exclusive."""
    key = plan.key
    own = [s for k, s in enumerate(plan.own_columns()) if strips is None or k in strips]

    def tall(text: str, style: str, places) -> tuple[float, str]:
        style = "aside" if style == "note" and places is own else style  # set off from the key's texts
        inset = ASIDE_INDENT if style == "aside" else 0.0
        return (max((lay.height(worksheet_text(text), sum(widths[a:b]) - inset, _FONT_PT[style], _BOLD[style])
                     for a, b in places), default=0.0) if text else lay.DEFAULT_ROW_PT), style

    left, right = list(left), list(right)
    if left and len(right) > 1:
        # the block is as tall as its taller stack: the notes after the first may go, in their order,
        # under the key's texts where that makes it shorter (the key's columns print on every strip)
        under = [(0, key)]
        lefts = list(itertools.accumulate((tall(t, st, under)[0] for t, st in reversed(right[1:])),
                                          initial=sum(tall(t, st, under)[0] for t, st in left)))
        rights = list(itertools.accumulate(tall(t, st, own)[0] for t, st in right))
        # k notes stay beside: the block's height with the rest under the key's texts
        k = min(range(1, len(right) + 1), key=lambda k: (max(lefts[len(right) - k], rights[k - 1]), -k))
        left, right = left + right[k:], right[:k]
    stacks = []  # (top, bottom, places, text, style), in points from the block's top
    for texts, places in ((left, [(0, key)]), (right, own)):
        top = 0.0
        for text, style in texts:
            h, style = tall(text, style, places)
            stacks.append((round(top, 1), round(top + h, 1), places, text, style))
            top += h
    edges = sorted({y for t, b, *_ in stacks for y in (t, b)})
    for a, b in list(zip(edges, edges[1:])):  # no row taller than Excel allows: a long text spans more rows
        edges += [round(a + k * MAX_ROW_PT, 1) for k in range(1, math.ceil((b - a) / MAX_ROW_PT))]
    edges = sorted(set(edges))
    heights = [round(b - a, 1) for a, b in zip(edges, edges[1:])]
    out = [(edges.index(t), edges.index(b) - 1, a, e, text, style)
           for t, b, places, text, style in stacks if text for a, e in places]
    return heights, out


def _own_widths(plan: lay.PrintPlan, widths: Sequence[float]) -> list[float]:
    """Each printed strip's width (of its own columns, the repeated key left out)."""
    return [sum(widths[a:b]) for a, b in plan.own_columns()] or [sum(widths)]


def _count_cell(fig: BoundFigure | None, key: str, words: str, numeric: bool) -> _Cell:
    """An accelerator or node count as a number whose format shows its words ('48 (6 nodes x 8)')."""
    c = fig.result.conditions.configuration if fig is not None else None
    count = None if c is None else c.accelerators_total if key == "accelerators" else c.nodes
    if numeric and count is not None and words.startswith(str(count)):
        return _number(count, fmts.count_format(words, count), "count")
    return _text(words)


def _units(report: Report) -> list[fmts.Unit]:
    """Each section that shows figures, as the format plan sees it (keyed by its number, from 1)."""
    units = []
    for n, s in enumerate(report.sections, 1):
        if isinstance(s, (TableSection, ChartSection)):
            units.append(fmts.unit(n, s.table, lambda t=s.table: Lettering([f for _, _, f in t.figures()])))
        elif isinstance(s, KpiSection):
            marks = fmts.headline_marks(s.table_note, s.figure) if s.figure.result.conditions.identity.mlperf else None
            units.append(fmts.unit(n, None, Lettering([s.figure]), [s.figure], kpi=True, marks=marks))
        elif isinstance(s, BesideSection):  # one unit: the panels share one lettering, so one mode
            _, _, lettering = beside_parts(n, s)
            figures = [f for t in s.tables() for _, _, f in t.figures()]
            units.append(fmts.unit(n, s.mlperf, lettering, figures, marks=fmts.BesideMarks(s.mlperf, s.own)))
    return units


def plan_formats(report: Report, text_cells: bool = False) -> fmts.Plan:
    """The workbook's number formats, planned within the budget before anything is written."""
    return fmts.plan(_units(report), text_cells, _extras(report))


def _extras(report: Report) -> list[tuple[tuple, set]]:
    """The formats each table's rank and count cells would take as numbers, in section order."""
    out = []
    for n, s in enumerate(report.sections, 1):
        if isinstance(s, (TableSection, ChartSection)):
            out += fmts.table_extras(n, s.table)
        elif isinstance(s, BesideSection):  # the panels' ranks and counts: numbers only if all fit
            pairs = [fmts.table_extras(n, t) for t in s.tables()]
            out += [(key, set().union(*(p[k][1] for p in pairs))) for k, (key, _) in enumerate(pairs[0])]
    return out


# The Sources sheet's columns: header -> the cell of a result (and the sheets that show it).
def _manifest_chunks(manifest: dict) -> Iterable[str]:
    """The manifest as JSON (ASCII-only, so any XML-hostile character travels escaped), cut into
    cells of at most MANIFEST_CHUNK characters. Figures are encoded one by one, so the whole text
    never sits in memory."""
    buf: list[str] = []
    size = 0
    for piece in manifest_mod.json_pieces(manifest):
        buf.append(piece)
        size += len(piece)
        if size >= MANIFEST_CHUNK:
            text = "".join(buf)
            while len(text) >= MANIFEST_CHUNK:
                yield text[:MANIFEST_CHUNK]
                text = text[MANIFEST_CHUNK:]
            buf, size = [text], len(text)
    text = "".join(buf)
    if text:
        yield text


def render(report: Report, path, text_cells: bool = False, clock=None, page_size: str | None = None,
           orientation: str | None = None, **_options) -> dict:
    """Write the workbook to ``path``; return the manifest embedded in it.

    ``text_cells``: figure cells hold the text ``101,527 tok/s ±5.4% [a]`` (with a numeric sort-value
    column beside) instead of a number whose format carries the binding. ``page_size`` ("a4", the
    default, or "letter") and ``orientation`` (every sheet; by default tables landscape, text
    portrait): the paper the workbook prints on. Other options are for other formats and are ignored
    here.
    """
    renderer = XlsxRenderer(report, bool(text_cells), page_size, orientation)
    try:
        clock = resolve_clock(clock)  # the export's instant: package dates and the manifest
        manifest = walk(report, renderer, clock)
        renderer.wb.save(path, clock)
    finally:
        renderer.wb.close()  # the sheets' temporary files, whatever happened
    return manifest
