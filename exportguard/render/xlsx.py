"""XLSX renderer: vendor-comparison workbooks in which every throughput cell carries its binding.

Layout (docs/xlsx.md; decided in xlsx_layout.py):

- one sheet per table or chart section, named after its cohort ("llama2-70b-99 Offline"): the
  section title, the table note (the conditions every row shares), the one-line caveat, then the
  header row and one row per result. A figure cell is numeric and its number format carries unit,
  band and marks as literal text (``#,##0" tok/s ±5.4% [a]"``), so copying the cell as text keeps
  them; a cell comment holds the full footnote; the band's low and high edges sit beside it, each
  a number whose format says what it is (``96,045 tok/s, low edge of ±5.4% [a]``). Below the table:
  the notes block (``[a] ...``, one row each, merged across the table) and the trademark legend.
  Frozen header, autofilter, landscape print fitted to the page width with the header rows
  repeated and the one-line caveat in the page footer.
- "Headline" (KPI sections), "Notes" (text sections), "Caveat" (the full caveat) and "Sources"
  (one citation row per result shown).
- "exportguard_manifest", a very hidden sheet: the manifest as JSON in column A, in chunks of at most
  32,000 characters (read back by exportguard.check.manifests).

With ``text_cells=True`` (``--text-cells``) a figure cell holds the text ``101,527 tok/s ±5.4% [a]``
and a numeric "sort value" column sits beside it.

Written with openpyxl's write-only workbook and its public cell, style, comment and worksheet
attributes: rows stream to temporary files as they are appended. Excel holds at most 65,430
distinct cell formats per workbook and every mark of a table needs its own number format: a table
that would go past ``XF_BUDGET`` is written as text cells with a numeric sort column, and its sheet
says so.
"""
from __future__ import annotations

import math
import re
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator, NamedTuple, Sequence

from openpyxl import Workbook
from openpyxl.cell import WriteOnlyCell
from openpyxl.comments import Comment
from openpyxl.styles import Alignment, Border, Font, NamedStyle, PatternFill, Side
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.cell_range import CellRange
from openpyxl.worksheet.properties import PageSetupProperties

from .. import manifest as manifest_mod
from ..clock import resolve as resolve_clock
from .package import save as save_package
from ..embedding import XLSX_MANIFEST_SHEET as XLSX_SHEET, xlsx_cell
from ..citation import result_id_cell, suite_name
from ..errors import ExportguardError
from ..report import BoundFigure, ChartSection, KpiSection, Report, TableSection, TextSection
from ..wording import band_words, number
from . import xlsx_layout as lay
from .walk import Lettering, TablePart, Walk, walk

EMBEDS_MANIFEST = True
MANIFEST_SHEET = XLSX_SHEET
MANIFEST_CHUNK = 32_000  # characters per cell of the manifest sheet (Excel allows 32,767)
CELL_MAX = 32_767
XF_BUDGET = 60_000  # distinct cell formats we allow ourselves (Excel's limit is 65,430)
AUTHOR = "exportguard"

_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
_RISKY_START = ("=", "+", "-", "@", "\t", "\r", "\n")
_DIGITS = {0: "#,##0", 2: "#,##0.00", 4: "0.0000"}


# -- escaping: what a worksheet cell may hold ------------------------------------------------------

def clean_text(value) -> str:
    """A string a worksheet can hold: characters XML cannot carry become U+FFFD, line ends are
    normalised to LF (XML would turn a bare CR into LF on reading anyway), at most 32,767 chars."""
    text = str(value)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if _ILLEGAL.search(text):
        text = _ILLEGAL.sub("\ufffd", text)
    return text[:CELL_MAX]


def literal(text: str) -> str:
    """Text as a number format's quoted literal: a quote would end it (Excel has no escape for it)."""
    return text.replace('"', "'")


def number_format(fig: BoundFigure, binding: str) -> str:
    """'#,##0" tok/s ±5.4% [a]"': the figure's digits, then its binding as literal text."""
    return f'{_DIGITS[fig.decimals]}" {literal(binding)}"'


def edge_format(fig: BoundFigure, low: bool, marks: str) -> str:
    """'#,##0" tok/s, low edge of ±5.4% [a]"': a band edge's digits and what it is."""
    return f'{_DIGITS[fig.decimals]}" {literal(fig.edge_binding(low, marks))}"'


def shown(value: float, fig: BoundFigure, fmt: str) -> str:
    """What a numeric cell with this format shows: the number as the format rounds it, and the literal."""
    return number(value, fig.decimals) + fmt[fmt.index('"') + 1:-1]


sheet_location = xlsx_cell  # ``'llama2-70b-99 Offline'!I7``: the form the manifest uses for a cell


# -- styles ---------------------------------------------------------------------------------------

FONT = "Calibri"  # named in every style so no application falls back to a serif
_THIN = Side(style="thin", color="BFBFBF")
_BOX = Border(left=_THIN, right=_THIN, top=_THIN, bottom=_THIN)
_TOP_WRAP = Alignment(wrap_text=True, vertical="top")
_RIGHT = Alignment(vertical="top", horizontal="right")
_STYLES = {
    "title": dict(font=Font(name=FONT, bold=True, size=13), alignment=_TOP_WRAP),
    "note": dict(font=Font(name=FONT, size=10), alignment=_TOP_WRAP),
    "caveat": dict(font=Font(name=FONT, italic=True, size=10, color="404040"), alignment=_TOP_WRAP),
    "warning": dict(font=Font(name=FONT, bold=True, size=10, color="9C0006"), alignment=_TOP_WRAP),
    "label": dict(font=Font(name=FONT, bold=True, size=11), alignment=Alignment(vertical="top")),
    "legend": dict(font=Font(name=FONT, italic=True, size=9, color="404040"), alignment=_TOP_WRAP),
    "header": dict(font=Font(name=FONT, bold=True), fill=PatternFill("solid", fgColor="D9E1F2"), border=_BOX,
                   alignment=Alignment(wrap_text=True, vertical="center")),
    "text": dict(font=Font(name=FONT), border=_BOX, alignment=_TOP_WRAP),
    "figure": dict(font=Font(name=FONT), border=_BOX, alignment=_RIGHT),
    "derived": dict(font=Font(name=FONT, italic=True, color="595959"), fill=PatternFill("solid", fgColor="F2F2F2"),
                    border=_BOX, alignment=_RIGHT),
    "band": dict(font=Font(name=FONT, color="595959"), border=_BOX, alignment=_RIGHT),
    "band_text": dict(font=Font(name=FONT, color="595959"), border=_BOX, alignment=_TOP_WRAP),
    "plain": dict(font=Font(name=FONT)),
}
_FONT_PT = {key: (d["font"].sz or 11) for key, d in _STYLES.items()}


def _register_styles(wb: Workbook) -> None:
    for key, attrs in _STYLES.items():
        wb.add_named_style(NamedStyle(name=f"eg {key}", **attrs))


# -- one sheet, streamed --------------------------------------------------------------------------

class _Sheet:
    """A write-only worksheet with its row counter, merged note rows and print set-up."""

    def __init__(self, wb: Workbook, title: str, report: Report, widths: Sequence[float], *,
                 freeze_row: int | None = None, landscape: bool = True, title_rows: str | None = None):
        ws = self.ws = wb.create_sheet(title)
        self.title = ws.title
        self.widths = list(widths)
        self.row = 0
        self._protos: dict[tuple[str, bool], WriteOnlyCell] = {}
        for i, w in enumerate(widths, 1):
            ws.column_dimensions[get_column_letter(i)].width = round(w, 1)
        if freeze_row:
            ws.freeze_panes = f"A{freeze_row}"
        ws.page_setup.orientation = "landscape" if landscape else "portrait"
        ws.page_setup.fitToWidth = 1
        ws.page_setup.fitToHeight = 0
        ws.sheet_properties.pageSetUpPr = PageSetupProperties(fitToPage=True)
        ws.page_margins.left = ws.page_margins.right = 0.4
        ws.page_margins.top, ws.page_margins.bottom = 0.6, 0.85
        ws.page_margins.header, ws.page_margins.footer = 0.25, 0.3
        if title_rows:
            ws.print_title_rows = title_rows
        ws.oddHeader.left.text = clean_text(report.title).replace("\n", " ").replace("&", "&&")[:120]
        ws.oddHeader.left.size = 8
        ws.oddHeader.right.text = "&A, page &P of &N"
        ws.oddHeader.right.size = 8
        ws.oddFooter.center.text = lay.footer_caveat(clean_text(report.caveat_short))
        ws.oddFooter.center.size = 8

    def text(self, value, style: str = "text") -> _Cell:
        """A string cell, whatever the text starts with: never a formula, an error or a number."""
        return _Cell(clean_text(value), style, None, None, True)

    def number(self, value: float, fmt: str, style: str) -> _Cell:
        value = float(value)
        if not math.isfinite(value):
            raise ExportguardError(f"cannot write {value!r} as a number")
        return _Cell(value, style, fmt, None, False)

    def append(self, cells: Sequence[_Cell | None], height: float | None = None) -> int:
        self.row += 1
        if height:
            self.ws.row_dimensions[self.row].height = height
        self.ws.append(self._cells(cells))
        return self.row

    def _cells(self, cells: Sequence[_Cell | None]) -> Iterator[WriteOnlyCell | None]:
        """Each cell through one styled cell object per style, reused: the worksheet writes a cell
        before it asks for the next (ws.append takes a generator), so its value can change then."""
        for spec in cells:
            if spec is None:
                yield None
                continue
            value, style, fmt, comment, is_text = spec
            quote = is_text and value.startswith(_RISKY_START)
            cell = self._protos.get((style, quote))
            if cell is None or (fmt and cell.number_format != fmt):
                # A new cell object, never a changed one: a style registered with the workbook is
                # shared by every cell written with it, and changing it in place would change them all.
                cell = self._protos[(style, quote)] = WriteOnlyCell(self.ws)
                cell.style = f"eg {style}"
                if quote:
                    cell.quotePrefix = True  # and editing it in Excel keeps it text
                if fmt:
                    cell.number_format = fmt
            cell.value = value
            if is_text:
                cell.data_type = "s"  # openpyxl would read a leading '=' as a formula
            cell.comment = Comment(comment, AUTHOR, height=_comment_height(comment), width=460) if comment else None
            yield cell

    def wide_text(self, text: str, ncols: int, width_chars: float, style: str = "note") -> int:
        """A wrapped text merged across ``ncols`` columns, its row tall enough to show it all."""
        row = self.append([self.text(text, style)], height=lay.height(clean_text(text), width_chars, _FONT_PT[style]))
        if ncols > 1:
            # Added to the range set directly: MultiCellRange.add scans every range (quadratic).
            self.ws.merged_cells.ranges.add(CellRange(min_col=1, min_row=row, max_col=ncols, max_row=row))
        return row

    def blank(self) -> None:
        self.append([])



class _Cell(NamedTuple):
    value: str | float
    style: str
    number_format: str | None
    comment: str | None
    is_text: bool

    def with_comment(self, text: str) -> "_Cell":
        return self._replace(comment=clean_text(text))


def _comment_height(text: str) -> int:
    return min(900, 16 * sum(len(p) // 64 + 1 for p in text.split("\n")) + 16)


# -- the renderer -----------------------------------------------------------------------------------

class XlsxRenderer:
    format = "xlsx"

    def __init__(self, report: Report, text_cells: bool):
        self.report = report
        self.text_cells = text_cells
        self.wb = Workbook(write_only=True)
        self.wb.properties.title = clean_text(report.title)[:255]
        self.wb.properties.creator = AUTHOR
        _register_styles(self.wb)
        self.names = lay.sheet_names(report)
        self.figure_formats: set[str] = set()
        self.shown_on: dict[tuple, str] = {}
        self.headline: _Sheet | None = None
        self.notes: _Sheet | None = None

    def front(self, doc: Walk) -> None:
        pass  # every sheet opens with the report title and the one-line caveat

    def _top(self, sheet: _Sheet, title: str, ncols: int, width: float, lines: Iterable[tuple[str, str]]) -> None:
        sheet.wide_text(title, ncols, width * 0.8, "title")
        for text, style in lines:
            sheet.wide_text(text, ncols, width, style)

    # -- a table (or a chart's table) --
    def table(self, doc: Walk, n: int, section: TableSection | ChartSection) -> None:
        table = section.table
        part = doc.part(n, section.title, table)
        formats, figure_chars, band_chars = self._measure(part)
        over_budget = len(self.figure_formats | formats) > XF_BUDGET
        text_cells = self.text_cells or over_budget
        if not over_budget:
            self.figure_formats |= formats
        cols = lay.table_columns(table, part.lettering, text_cells, shared_sort=over_budget)
        lay.size_columns(cols, table, figure_chars, band_chars)
        ncols, total = len(cols), sum(c.width for c in cols)
        top = [(table.table_note.text, "note"), (self.report.caveat_short, "caveat")]
        if over_budget and not self.text_cells:
            top.append(("This table needs more distinct cell formats than Excel allows in one workbook "
                        "(65,430), so its figures are written as text with their binding, beside a numeric "
                        "sort-value column.", "warning"))
        header_row = len(top) + 2
        sheet = _Sheet(self.wb, self.names[n - 1], self.report, [c.width for c in cols],
                       freeze_row=header_row + 1, title_rows=f"1:{header_row}")
        self._top(sheet, section.title, ncols, total, top)
        sheet.append([sheet.text(c.header, "header") for c in cols], height=lay.header_height(cols))
        first = sheet.row + 1
        for r in range(part.start, part.stop):
            self._table_row(doc, sheet, cols, table.rows[r], part, text_cells)
        if part.stop > part.start:
            sheet.ws.auto_filter.ref = f"A{header_row}:{get_column_letter(ncols)}{first + part.stop - part.start - 1}"
        sheet.blank()
        sheet.append([sheet.text("Notes", "label")])
        for line in part.lettering.note_lines():
            sheet.wide_text(line, ncols, total)
        sheet.wide_text(self.report.legend, ncols, total, "legend")
        for _, _, fig in part.figures():
            self.shown_on.setdefault(fig.result.natural_key, sheet.title)

    chart = table

    def _measure(self, part: TablePart) -> tuple[set[str], dict[int, int], dict[int, int]]:
        """The number formats a table needs, and its figure and band columns' widest texts."""
        formats: set[str] = set()
        figure_chars: dict[int, int] = {}
        band_chars: dict[int, int] = {}
        lettering = part.lettering
        for _, c, fig in part.figures():
            marks = lettering.marks(fig)
            formats.add(number_format(fig, fig.binding(marks)))
            if fig.derivation is None and fig.slack.estimable:  # its band edges get formats of their own
                formats.update((edge_format(fig, True, marks), edge_format(fig, False, marks)))
            figure_chars[c] = max(figure_chars.get(c, 0), len(fig.text(marks)))
            band = (len(fig.edge_text(False, marks)) if fig.slack.estimable else
                    min(len(band_words(fig.slack)), lay.BAND_TEXT_CAP))
            band_chars[c] = max(band_chars.get(c, 0), band)
        for row in part.rows:  # "not derivable: ..." words in a derived column
            for c in figure_chars:
                if isinstance(row[c], str):
                    figure_chars[c] = max(figure_chars[c], min(len(row[c]), lay.TEXT_WIDTH_CAP))
        return formats, figure_chars, band_chars

    def _table_row(self, doc: Walk, sheet: _Sheet, cols: list[lay.Col], row: tuple, part: TablePart,
                   text_cells: bool) -> None:
        cells: list[_Cell | None] = []
        first_fig = next((c for c in row if isinstance(c, BoundFigure)), None)
        n_lines = 1
        lettering = part.lettering
        for n, col in enumerate(cols, 1):
            value = row[col.src] if col.src >= 0 else None
            if col.kind == "verified":
                cells.append(sheet.text(first_fig.result.conditions.identity.verified if first_fig else ""))
            elif col.kind == "text":
                cells.append(sheet.text(value))
                if len(value) > col.width - 3 or "\n" in value:
                    n_lines = max(n_lines, lay.lines(value, col.width))
            elif not isinstance(value, BoundFigure):
                # a derived column's "not derivable: ..." words, or nothing in the sort/band columns
                cells.append(sheet.text(value, "derived") if col.kind == "figure" else None)
            elif col.kind == "figure":
                cells.append(self._figure_cell(doc, sheet, value, n, col.as_text, part.table.table_note.text, lettering))
            elif col.kind == "sort":
                # Shared by every row past the format budget, the sort value carries no unit: a number
                # with a throughput unit but no band or mark would be a bare figure.
                fmt = (f'{_DIGITS[value.decimals]}" (sort value of the figure beside)"'
                       if col.shared_format else number_format(value, value.binding(lettering.marks(value))))
                cells.append(sheet.number(value.magnitude, fmt, "band"))
            else:
                cells.append(self._edge_cell(sheet, value, col.kind == "band_low", lettering, text_cells))
                if not value.slack.estimable:
                    n_lines = max(n_lines, lay.lines(band_words(value.slack), col.width))
        sheet.append(cells, height=lay.row_height(n_lines))

    def _figure_cell(self, doc: Walk, sheet: _Sheet, fig: BoundFigure, col: int, as_text: bool, table_note: str,
                     lettering: Lettering) -> _Cell:
        style = "derived" if fig.derivation else "figure"
        if as_text:
            text = lettering.text(fig)
            cell, value = sheet.text(text, style), None
        else:
            fmt = number_format(fig, fig.binding(lettering.marks(fig)))
            # the number as the file holds it (openpyxl writes 16 significant digits)
            cell, value = sheet.number(fig.magnitude, fmt, style), float(f"{fig.magnitude:.16g}")
            text = shown(fig.magnitude, fig, fmt)
        cell = cell.with_comment("\n\n".join([text, table_note] + [f"[{m}] {note.text}" for m, note in
                                                                 zip(lettering.letters(fig), fig.notes)]))
        doc.place(sheet_location(sheet.title, f"{get_column_letter(col)}{sheet.row + 1}"), fig, lettering,
                  clean_text(text), value)
        return cell

    def _edge_cell(self, sheet: _Sheet, fig: BoundFigure, low: bool, lettering: Lettering,
                   as_text: bool = False) -> _Cell:
        edges = fig.band_edges()
        if edges is None:
            return sheet.text(band_words(fig.slack), "band_text")  # the words that say why there is no band
        if as_text:
            return sheet.text(lettering.edge_text(fig, low), "band")
        fmt = edge_format(fig, low, lettering.marks(fig))
        return sheet.number(edges[0] if low else edges[1], fmt, "band")

    # -- headline figures (KPI sections), all on one sheet --
    def kpi(self, doc: Walk, n: int, section: KpiSection) -> None:
        heads = ["Figure", "Band low edge", "Band high edge", "Submitter", "System", "Result ID"]
        if self.headline is None:
            self.headline = self._headline_sheet(heads)
        sheet = self.headline
        widths = sheet.widths
        total = sum(widths)
        fig, i = section.figure, section.figure.result.conditions.identity
        lettering = doc.kpi_part(section)
        sheet.blank()
        sheet.wide_text(section.title, len(heads), total * 0.8, "title")
        sheet.wide_text(section.inline_conditions, len(heads), total)
        sheet.append([sheet.text(h, "header") for h in heads])
        texts = [i.submitter, i.system_name, result_id_cell(fig.result)]
        if not fig.slack.estimable:
            texts += [band_words(fig.slack)] * 2
        n_lines = max(lay.lines(t, w) for t, w in zip(texts, widths[3:] + widths[1:3]))
        cells = [self._figure_cell(doc, sheet, fig, 1, False, section.table_note.text, lettering),
                 self._edge_cell(sheet, fig, True, lettering), self._edge_cell(sheet, fig, False, lettering),
                 sheet.text(i.submitter), sheet.text(i.system_name), sheet.text(result_id_cell(fig.result))]
        sheet.append(cells, height=lay.row_height(n_lines))
        sheet.wide_text(section.table_note.text, len(heads), total)
        for line in lettering.note_lines():
            sheet.wide_text(line, len(heads), total)
        self.shown_on.setdefault(fig.result.natural_key, sheet.title)

    def _headline_sheet(self, heads: list[str]) -> _Sheet:
        figs = [s.figure for s in self.report.sections if isinstance(s, KpiSection)]
        figure = max(len(f.text("[a]")) for f in figs)
        band = max(len(f.edge_text(False, "[a]")) if f.slack.estimable else lay.BAND_TEXT_CAP for f in figs)
        widths = [max(14, figure * 1.05 + 2.5), max(16, band * 1.05 + 2.5), max(16, band * 1.05 + 2.5),
                  max(12, min(lay.TEXT_WIDTH_CAP, max(len(f.result.conditions.identity.submitter) for f in figs) + 2)),
                  max(10, min(lay.TEXT_WIDTH_CAP, max(len(f.result.conditions.identity.system_name) for f in figs) + 2)),
                  12]
        sheet = _Sheet(self.wb, "Headline", self.report, widths)
        self._top(sheet, "Headline figures", len(heads), sum(widths), [(self.report.caveat_short, "caveat")])
        return sheet

    # -- text sections, all on one sheet --
    def text(self, doc: Walk, n: int, section: TextSection) -> None:
        if self.notes is None:
            self.notes = _Sheet(self.wb, "Notes", self.report, [lay.PAGE_COL], landscape=False)
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
                sheet.wide_text(self.report.legend, len(sheet.widths), sum(sheet.widths), "legend")
        self._caveat_sheet()
        self._sources_sheet(doc)
        manifest = doc.manifest()
        sheet = _Sheet(self.wb, MANIFEST_SHEET, self.report, [20], landscape=False)
        sheet.ws.sheet_state = "veryHidden"
        for chunk in _manifest_chunks(manifest):
            sheet.append([sheet.text(chunk, "plain")])
        return manifest

    def _caveat_sheet(self) -> None:
        sheet = _Sheet(self.wb, "Caveat", self.report, [lay.PAGE_COL], landscape=False)
        sheet.wide_text("Caveat", 1, lay.PAGE_COL, "title")
        for p in self.report.caveat_full:
            sheet.wide_text(p, 1, lay.PAGE_COL)
        sheet.blank()
        sheet.wide_text(self.report.legend, 1, lay.PAGE_COL, "legend")

    def _sources_sheet(self, doc: Walk) -> None:
        heads = ["Result ID", "Suite", "Round", "Division", "Availability", "Submitter", "System", "Benchmark",
                 "Scenario", "Verified", "Retrieved", "Source URL", "Source kind", "Source locator", "Shown on"]
        results = doc.sources()
        rows = [_source_row(r, self.shown_on.get(r.natural_key, "")) for r in results]
        caps = {"Source URL": 50, "Source locator": 40, "Suite": 30, "System": 30}
        measured = lay.sample(rows)
        widths = [max(len(h) + 2, min(caps.get(h, lay.TEXT_WIDTH_CAP), max((len(r[i]) for r in measured), default=0) + 2))
                  for i, h in enumerate(heads)]
        total = sum(widths)
        sheet = _Sheet(self.wb, "Sources", self.report, widths, freeze_row=4, title_rows="1:3")
        self._top(sheet, "Sources: one citation per result shown in this workbook", len(heads), total,
                  [(self.report.caveat_short, "caveat")])
        sheet.append([sheet.text(h, "header") for h in heads])
        for values in rows:
            n_lines = max(lay.lines(v, w) if len(v) > w - 3 else 1 for v, w in zip(values, widths))
            sheet.append([sheet.text(v) for v in values], height=lay.row_height(n_lines))
        if rows:
            sheet.ws.auto_filter.ref = f"A3:{get_column_letter(len(heads))}{3 + len(rows)}"
        sheet.blank()
        sheet.wide_text(self.report.legend, len(heads), total, "legend")


def _source_row(r, shown_on: str) -> list[str]:
    i, b, p = r.conditions.identity, r.conditions.benchmark, r.conditions.provenance
    return [result_id_cell(r), suite_name(r) if i.mlperf else "not MLPerf", i.round, i.division, i.availability,
            i.submitter, i.system_name, b.benchmark, b.scenario, i.verified, p.retrieved_on, p.source_url,
            p.source_kind, p.source_locator, shown_on]


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


def render(report: Report, path, text_cells: bool = False, clock=None, **_options) -> dict:
    """Write the workbook to ``path``; return the manifest embedded in it.

    ``text_cells``: figure cells hold the text ``101,527 tok/s ±5.4% [a]`` (with a numeric sort-value
    column beside) instead of a number whose format carries the binding. Other options are for
    other formats and are ignored here.
    """
    with _scratch_folder():
        renderer = XlsxRenderer(report, bool(text_cells))
        try:
            clock = resolve_clock(clock)  # the export's instant: package dates and the manifest (render/package.py)
            manifest = walk(report, renderer, clock)
            save_package(renderer.wb.save, path, clock)
        except BaseException:
            for ws in renderer.wb.worksheets:  # end each sheet's XML stream; the folder goes with it
                try:
                    ws.close()
                except Exception:
                    pass
            raise
    return manifest


@contextmanager
def _scratch_folder():
    """openpyxl streams each write-only sheet to a temporary file that only a successful save
    removes: during a render they go to a folder of our own, removed whatever happens. (This sets
    tempfile's process-wide default folder for the duration; exports do not run in threads.)"""
    previous = tempfile.tempdir
    with tempfile.TemporaryDirectory(prefix="exportguard-xlsx-") as folder:
        tempfile.tempdir = folder
        try:
            yield
        finally:
            tempfile.tempdir = previous
