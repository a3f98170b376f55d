"""XLSX renderer: vendor-comparison workbooks in which every throughput cell carries its binding.

Layout (see docs/xlsx.md):

- one sheet per table or chart section, named after its cohort ("llama2-70b-99 Offline"): the
  section title, the table note (the conditions every row shares), the one-line caveat, then the
  header row and one row per result. A figure cell is numeric and its number format carries unit,
  band and marks as literal text (``#,##0" tok/s ±5.4% [a]"``), so copying the cell as text keeps
  them; a cell comment holds the full footnote; band low and band high columns sit beside it. Below
  the table: the notes block (``[a] ...``, one row each, merged across the table) and the trademark
  legend. Frozen header, autofilter, landscape print fitted to the page width with the header rows
  repeated and the one-line caveat in the page footer.
- "Headline" (KPI sections), "Notes" (text sections), "Caveat" (the full caveat) and "Sources"
  (one citation row per result shown).
- "exportguard_manifest", a very hidden sheet: the manifest as JSON in column A, in chunks of at most
  32,000 characters; ``read_manifest(path)`` reads it back.

With ``text_cells=True`` (``--text-cells``) a figure cell holds the text ``101,527 tok/s ±5.4% [a]``
and a numeric "sort value" column sits beside it.

Memory stays bounded by streaming: the workbook is an openpyxl write-only Workbook (which writes
the workbook part, styles, relationships, content types and the zip), but each sheet's XML is
written here, row by row, into an anonymous temporary file (``_Sheet``), and so are cell comments
and their VML shapes (``_CommentSpool``), which openpyxl would otherwise hold per sheet and
serialise as one tree; ``_Writer`` copies them into the archive. This relies on openpyxl 3.1's
``ExcelWriter.write_worksheet`` hook; the tests read every part back with openpyxl and LibreOffice.

Excel holds at most 65,430 distinct cell formats per workbook and every mark needs its own number
format: a table that would go past ``XF_BUDGET`` is written as text cells with a numeric sort
column, and its sheet says so.
"""
from __future__ import annotations

import functools
import json
import math
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence
from xml.sax.saxutils import escape as _xml_escape
from zipfile import ZIP_DEFLATED, ZipFile

from openpyxl import Workbook, load_workbook
from openpyxl.cell.cell import Cell
from openpyxl.packaging.relationship import Relationship, RelationshipList
from openpyxl.styles import Alignment, Border, Font, PatternFill, Side
from openpyxl.styles.cell_style import StyleArray
from openpyxl.styles.numbers import BUILTIN_FORMATS_MAX_SIZE, BUILTIN_FORMATS_REVERSE
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.properties import PageSetupProperties
from openpyxl.writer.excel import ExcelWriter
from openpyxl.xml.functions import tostring

from .. import manifest as manifest_mod
from ..citation import suite_name
from ..errors import ExportguardError
from ..report import BoundFigure, BoundTable, ChartSection, KpiSection, Report, TableSection, TextSection

EMBEDS_MANIFEST = True
MANIFEST_SHEET = "exportguard_manifest"
MANIFEST_CHUNK = 32_000  # characters per cell of the manifest sheet (Excel allows 32,767)
CELL_MAX = 32_767
XF_BUDGET = 60_000  # distinct cell formats we allow ourselves (Excel's limit is 65,430)
TEXT_WIDTH_CAP = 28  # text columns wrap beyond this many characters...
BAND_TEXT_CAP = 22  # "slack not estimable: ..." in a band column wraps at this width
PAGE_COL = 80  # the one column of a portrait text sheet (Caveat, Notes) fits the page at 100 %
TEXT_CAPS = {"rank": 13, "tokens_per_sample": 20, "system": 30, "software": 40}  # ...or these
FIGURE_WIDTH_CAP = 250  # numeric cells cannot wrap: a figure column is as wide as its widest figure
WIDTH_SAMPLE = 4000  # rows sampled for text column widths in very long tables
AUTHOR = "exportguard"
ZIP_LEVEL = 3  # deflate level: 2.5x faster than the default 6 on these sheets, for ~13 % more bytes
RESERVED_SHEETS = ("Caveat", "Sources", MANIFEST_SHEET, "History")

_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
_BAD_SHEET_CHARS = re.compile(r"[\[\]:*?/\\\x00-\x1f]")
_RISKY_START = ("=", "+", "-", "@", "\t", "\r", "\n")


class ManifestNotFound(ExportguardError):
    """The workbook carries no exportguard manifest (it was not made by exportguard, or the manifest
    sheet was removed)."""


# -- text hygiene ------------------------------------------------------------------------------

def clean_text(value) -> str:
    """A string a worksheet can hold: characters XML cannot carry become U+FFFD, line ends are
    normalised to LF (XML would turn a bare CR into LF on reading anyway), at most 32,767 chars."""
    text = str(value)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if _ILLEGAL.search(text):
        text = _ILLEGAL.sub("\ufffd", text)
    return text[:CELL_MAX]


def _xml_text(value: str) -> str:
    return _xml_escape(clean_text(value), {'"': "&quot;"})


def sheet_location(title: str, coordinate: str) -> str:
    """``'llama2-70b-99 Offline'!I7``: the form the manifest uses for a cell."""
    return "'" + title.replace("'", "''") + "'!" + coordinate


def _display_len(text: str) -> int:
    return max((len(line) for line in str(text).split("\n")), default=0)


@functools.lru_cache(maxsize=8192)
def _lines(text: str, width_chars: float, font_pt: float = 11) -> int:
    """Lines a wrapped text takes in a cell ``width_chars`` wide (Excel's unit: widths of "0"), by
    greedy word wrap. Generous on purpose: without Calibri, LibreOffice draws with a wider
    substitute (DejaVu Sans), and neither application grows a merged row to fit its text."""
    # Measured in LibreOffice with DejaVu Sans: ~1.15-1.25 characters per width unit for prose, ~1.17
    # for dense notes (capitals, digits, URLs); a 10 pt text gets no credit for being smaller.
    cap = max(4, int((width_chars - 1) * 1.05 * min(1.0, 11 / font_pt)))
    total = 0
    for para in str(text).split("\n"):
        if len(para) <= cap:
            total += 1
            continue
        count, line = 1, 0
        for word in para.split(" "):
            w = len(word)
            if line and line + 1 + w <= cap:
                line += 1 + w
                continue
            if line:
                count += 1
            while w > cap:  # a word longer than the line (a URL) breaks anywhere
                count += 1
                w -= cap
            line = w
        total += count
    return total


LINE_PT = 14.5  # one line of 11 pt text


def _height(text: str, width_chars: float, line_pt: float = LINE_PT, font_pt: float = 11) -> float:
    return round(_lines(text, width_chars, font_pt) * line_pt + 3, 1)


# -- styles ------------------------------------------------------------------------------------

FONT = "Calibri"  # the workbook's default font; named in every style so no application falls back to a serif


def _font(**kw) -> Font:
    return Font(name=FONT, **kw)


_THIN = Side(style="thin", color="BFBFBF")
_BOX = Border(left=_THIN, right=_THIN, top=_THIN, bottom=_THIN)
_TOP_WRAP = Alignment(wrap_text=True, vertical="top")
_STYLE_DEFS = {
    "title": dict(font=_font(bold=True, size=13), alignment=_TOP_WRAP),
    "note": dict(font=_font(size=10), alignment=_TOP_WRAP),
    "caveat": dict(font=_font(italic=True, size=10, color="404040"), alignment=_TOP_WRAP),
    "warning": dict(font=_font(bold=True, size=10, color="9C0006"), alignment=_TOP_WRAP),
    "label": dict(font=_font(bold=True, size=11), alignment=Alignment(vertical="top")),
    "legend": dict(font=_font(italic=True, size=9, color="404040"), alignment=_TOP_WRAP),
    "header": dict(font=_font(bold=True), fill=PatternFill("solid", fgColor="D9E1F2"), border=_BOX,
                   alignment=Alignment(wrap_text=True, vertical="center")),
    "text": dict(border=_BOX, alignment=_TOP_WRAP),
    "figure": dict(border=_BOX, alignment=Alignment(vertical="top", horizontal="right")),
    "figure_text": dict(border=_BOX, alignment=Alignment(vertical="top", horizontal="right")),
    "derived": dict(font=_font(italic=True, color="595959"), fill=PatternFill("solid", fgColor="F2F2F2"),
                    border=_BOX, alignment=Alignment(vertical="top", horizontal="right")),
    "band": dict(font=_font(color="595959"), border=_BOX, alignment=Alignment(vertical="top", horizontal="right")),
    "band_text": dict(font=_font(color="595959"), border=_BOX, alignment=_TOP_WRAP),
    "plain": dict(),
}


_XCell = tuple  # (value, xf index as text, is_text): a cell ready to write
_REL_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


def _xml(element) -> str:
    return tostring(element).decode("utf-8")


def _esc(text: str) -> str:
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
    return text


_LETTERS = [get_column_letter(i) for i in range(1, 16385)]


class _Styles:
    """Cell formats registered with the workbook once per (style, number format, quote prefix): the
    cell's ``s`` attribute, as a string ("" for the default format)."""

    def __init__(self, wb):
        self.wb = wb
        self._cache: dict[tuple, str] = {}
        self._base: dict[str, StyleArray] = {}

    def get(self, ws, key: str, number_format: str | None = None, quote: bool = False) -> str:
        k = (key, number_format, quote)
        xf = self._cache.get(k)
        if xf is None:
            base = self._base.get(key)
            if base is None:  # font, fill, border and alignment registered once per style
                proto = Cell(ws, 1, 1)
                for attr, value in _STYLE_DEFS[key].items():
                    setattr(proto, attr, value)
                base = self._base[key] = StyleArray(proto._style or StyleArray())
            style = StyleArray(base)
            if number_format:  # as openpyxl's NumberFormatDescriptor does it
                style.numFmtId = BUILTIN_FORMATS_REVERSE.get(number_format) or (
                    self.wb._number_formats.add(number_format) + BUILTIN_FORMATS_MAX_SIZE)
            if quote:
                style.quotePrefix = 1
            index = self.wb._cell_styles.add(style)
            xf = self._cache[k] = str(index) if index else ""
        return xf


# -- streamed parts: comments, and the writer that puts them and the sheets into the archive ----
# Relies on openpyxl 3.1's ExcelWriter (write_worksheet, _archive, manifest) and the workbook's style
# tables (_cell_styles, _number_formats); tests/test_render_xlsx.py reads everything back with
# openpyxl and LibreOffice, so a change there fails loudly.

_COMMENTS_MIME = "application/vnd.openxmlformats-officedocument.spreadsheetml.comments+xml"
_SHEET_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"


@dataclass
class _Part:
    path: str
    mime_type: str


class _CommentSpool:
    """One sheet's cell comments, written to temporary files as rows are written."""

    def __init__(self, first_block: int):
        self.first_block = first_block  # VML shape-id block (1024 shapes each), unique per workbook
        self.count = 0
        self.xml = tempfile.TemporaryFile()
        self.vml = tempfile.TemporaryFile()

    @property
    def blocks(self) -> int:
        return self.count // 1024 + 1

    def add(self, row: int, col: int, text: str, width_px: int, height_px: int) -> None:
        ref = f"{get_column_letter(col)}{row}"
        self.xml.write(f'<comment ref="{ref}" authorId="0"><text><t xml:space="preserve">{_xml_text(text)}'
                       f'</t></text></comment>'.encode("utf-8"))
        shape_id = self.first_block * 1024 + 1 + self.count
        self.vml.write(
            f'<v:shape id="_x0000_s{shape_id}" type="#_x0000_t202" style="position:absolute;margin-left:59.25pt;'
            f'margin-top:1.5pt;width:{width_px}px;height:{height_px}px;z-index:1;visibility:hidden" '
            f'fillcolor="#ffffe1" o:insetmode="auto"><v:fill color2="#ffffe1"/><v:shadow color="black" '
            f'obscured="t"/><v:path o:connecttype="none"/><v:textbox style="mso-direction-alt:auto">'
            f'<div style="text-align:left"/></v:textbox><x:ClientData ObjectType="Note"><x:MoveWithCells/>'
            f'<x:SizeWithCells/><x:AutoFill>False</x:AutoFill><x:Row>{row - 1}</x:Row><x:Column>{col - 1}'
            f'</x:Column></x:ClientData></v:shape>'.encode("utf-8"))
        self.count += 1

    def write_parts(self, archive: ZipFile, comments_path: str, vml_path: str) -> None:
        with archive.open(comments_path, "w", force_zip64=True) as out:
            out.write(f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<comments xmlns="{_SHEET_NS}">'
                      f'<authors><author>{AUTHOR}</author></authors><commentList>'.encode("utf-8"))
            self.xml.seek(0)
            shutil.copyfileobj(self.xml, out, 1 << 20)
            out.write(b"</commentList></comments>")
        ids = ",".join(str(self.first_block + i) for i in range(self.blocks))
        with archive.open(vml_path, "w", force_zip64=True) as out:
            out.write(
                '<xml xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office" '
                'xmlns:x="urn:schemas-microsoft-com:office:excel"><o:shapelayout v:ext="edit">'
                f'<o:idmap v:ext="edit" data="{ids}"/></o:shapelayout><v:shapetype id="_x0000_t202" '
                'coordsize="21600,21600" o:spt="202" path="m,l,21600r21600,l21600,xe"><v:stroke joinstyle="miter"/>'
                '<v:path gradientshapeok="t" o:connecttype="rect"/></v:shapetype>'.encode("utf-8"))
            self.vml.seek(0)
            shutil.copyfileobj(self.vml, out, 1 << 20)
            out.write(b"</xml>")


class _Writer(ExcelWriter):
    """openpyxl's ExcelWriter (workbook, styles, relationships, content types, zip), taking each
    sheet's XML and comments from the temporary files the sheet streamed them into."""

    def write_worksheet(self, ws):
        sheet: _Sheet = ws._eg_sheet
        ws._drawing = None
        ws._rels = RelationshipList()
        sheet.close()
        with self._archive.open(ws.path[1:], "w", force_zip64=True) as out:
            sheet.xml.seek(0)
            shutil.copyfileobj(sheet.xml, out, 1 << 20)
        self.manifest.append(ws)
        spool = sheet.spool
        if spool is not None and spool.count:
            n = getattr(self, "_eg_parts", 0) + 1
            self._eg_parts = n
            comments_path = f"xl/comments/comment{n}.xml"
            spool.write_parts(self._archive, comments_path, ws.legacy_drawing)
            ws._rels.append(Relationship(Id="comments", type="comments", Target="/" + comments_path))
            self.manifest.append(_Part("/" + comments_path, _COMMENTS_MIME))


# -- the workbook ------------------------------------------------------------------------------

@dataclass
class _Col:
    kind: str  # text / figure / sort / band_low / band_high / verified
    header: str
    src: int  # index into the table's cells (-1: from the row's first figure)
    width: float = 10.0
    as_text: bool = False  # a figure written as its text (text-cell mode)
    shared_format: bool = False  # a sort column with one format per unit (cell-format budget)


class _Sheet:
    """One worksheet, streamed: its XML goes to an anonymous temporary file row by row; merged
    ranges (as runs of rows) and comments (in a spool file) are the only things kept until the end.

    The parts around <sheetData> are openpyxl's own element classes (sheet properties, views,
    columns, auto filter, print set-up, header and footer), serialised once."""

    def __init__(self, book: "_Book", title: str):
        self.book = book
        self.ws = book.wb.create_sheet(title)
        self.ws._eg_sheet = self
        self.title = self.ws.title
        self.row = 0
        self.merges: list[list[int]] = []  # runs of rows merged from A across n columns: [first, last, n]
        self.spool: _CommentSpool | None = None
        self.xml = tempfile.TemporaryFile()
        book.files.append(self.xml)
        self._buf: list[str] = []
        self._buffered = 0
        self._closed = False

    # set-up, before the first row
    def setup(self, widths: Sequence[float], *, freeze_row: int | None = None, landscape: bool = True,
              title_rows: str | None = None):
        ws = self.ws
        for i, w in enumerate(widths, 1):
            ws.column_dimensions[get_column_letter(i)].width = round(w, 1)
        if freeze_row:
            ws.freeze_panes = f"A{freeze_row}"
        ws.page_setup.orientation = "landscape" if landscape else "portrait"
        ws.page_setup.fitToWidth = 1
        ws.page_setup.fitToHeight = 0
        ws.sheet_properties.pageSetUpPr = PageSetupProperties(fitToPage=True)
        ws.page_margins.left = ws.page_margins.right = 0.4
        ws.page_margins.top = 0.6
        ws.page_margins.bottom = 0.85
        ws.page_margins.header = 0.25
        ws.page_margins.footer = 0.3
        if title_rows:
            ws.print_title_rows = title_rows
        self.book.header_footer(ws)
        head = [f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="{_SHEET_NS}" '
                f'xmlns:r="{_REL_NS}">']
        head += [_xml(ws.sheet_properties.to_tree()), _xml(ws.views.to_tree()), _xml(ws.sheet_format.to_tree())]
        cols = ws.column_dimensions.to_tree()
        if cols is not None:
            head.append(_xml(cols))
        head.append("<sheetData>")
        self.xml.write("".join(head).encode("utf-8"))

    def comments(self) -> _CommentSpool:
        if self.spool is None:
            self.spool = _CommentSpool(self.book.next_vml_block)
            self.book.files.extend((self.spool.xml, self.spool.vml))
            self.ws.legacy_drawing = f"xl/drawings/commentsDrawing{len(self.book.wb.worksheets)}.vml"
        return self.spool

    def finish(self):
        """All rows are written: the next sheet's comment shapes take the next id block."""
        if self.spool is not None:
            self.book.next_vml_block += self.spool.blocks
        self._flush()

    def close(self):
        """The parts after <sheetData>, in the order the schema requires."""
        if self._closed:
            return
        self._closed = True
        ws = self.ws
        tail = ["</sheetData>"]
        if ws.auto_filter.ref:
            tail.append(_xml(ws.auto_filter.to_tree()))
        self._flush()
        self.xml.write("".join(tail).encode("utf-8"))
        if self.merges:
            count = sum(last - first + 1 for first, last, _ in self.merges)
            self.xml.write(f'<mergeCells count="{count}">'.encode("utf-8"))
            for first, last, n in self.merges:
                end = _LETTERS[n - 1]
                for start in range(first, last + 1, 4096):
                    rows = range(start, min(last, start + 4095) + 1)
                    self.xml.write("".join(f'<mergeCell ref="A{r}:{end}{r}"/>' for r in rows).encode("utf-8"))
            self.xml.write(b"</mergeCells>")
        tail = [_xml(ws.page_margins.to_tree()), _xml(ws.page_setup.to_tree()), _xml(ws.HeaderFooter.to_tree())]
        if ws.legacy_drawing:
            tail.append('<legacyDrawing r:id="anysvml"/>')  # the id openpyxl gives the VML relationship
        tail.append("</worksheet>")
        self.xml.write("".join(tail).encode("utf-8"))

    # cells
    def text(self, value, key: str = "text") -> _XCell:
        """A string cell, whatever the text starts with: never a formula, an error or a number."""
        value = clean_text(value)
        return value, self.book.styles.get(self.ws, key, quote=value.startswith(_RISKY_START)), True

    def number(self, value: float, number_format: str, key: str) -> _XCell:
        value = float(value)
        if not math.isfinite(value):
            raise ExportguardError(f"cannot write {value!r} as a number")
        return value, self.book.styles.get(self.ws, key, number_format), False

    def append(self, cells: Sequence[_XCell | None], height: float | None = None) -> int:
        """Write one row: <row r="7"><c r="A7" s="3" t="inlineStr"><is><t>...</t></is></c>...</row>."""
        self.row += 1
        row = str(self.row)
        out = [f'<row r="{row}" ht="{height}" customHeight="1">' if height else f'<row r="{row}">']
        for col, cell in enumerate(cells):
            if cell is None:
                continue
            value, xf, is_text = cell
            style = f' s="{xf}"' if xf else ""
            if is_text:
                space = ' xml:space="preserve"' if value[:1].isspace() or value[-1:].isspace() else ""
                out.append(f'<c r="{_LETTERS[col]}{row}"{style} t="inlineStr"><is><t{space}>{_esc(value)}</t></is></c>')
            else:
                out.append(f'<c r="{_LETTERS[col]}{row}"{style} t="n"><v>{value!r}</v></c>')
        out.append("</row>")
        text = "".join(out)
        self._buf.append(text)
        self._buffered += len(text)
        if self._buffered >= 1 << 18:  # write in pieces of about 256 KB
            self._flush()
        return self.row

    def _flush(self):
        if self._buf:
            self.xml.write("".join(self._buf).encode("utf-8"))
            self._buf = []
            self._buffered = 0

    def wide_text(self, text: str, ncols: int, width_chars: float, key: str = "note") -> int:
        """A wrapped text merged across ``ncols`` columns, its row tall enough to show it all."""
        font = _STYLE_DEFS[key].get("font")
        font_pt = (font.sz if font is not None else None) or 11
        row = self.append([self.text(text, key)],
                          height=_height(text, width_chars, font_pt * LINE_PT / 11, font_pt))
        if ncols > 1:
            run = self.merges[-1] if self.merges else None
            if run and run[1] == row - 1 and run[2] == ncols:
                run[1] = row
            else:
                self.merges.append([row, row, ncols])
        return row

    def blank(self):
        self.append([])


class _Book:
    def __init__(self, report: Report, text_cells: bool):
        self.report = report
        self.text_cells = text_cells
        self.wb = Workbook(write_only=True)
        self.wb.properties.title = clean_text(report.title)[:255]
        self.wb.properties.creator = AUTHOR
        self.styles = _Styles(self.wb)
        self.placements: list[tuple[str, BoundFigure]] = []
        self.prepared: dict[int, tuple] = {}  # id(figure) -> (text, (value, format)) of the table being written
        self.files: list = []  # every temporary file, closed (and so removed) when render ends
        self.next_vml_block = 1
        self.figure_formats: set[str] = set()
        self.shown_on: dict[tuple, str] = {}

    # page header and footer: the report title, the page, and the one-line caveat on every page
    def header_footer(self, ws):
        hf = ws.HeaderFooter
        title = _hf_escape(clean_text(self.report.title).replace("\n", " "))[:120]
        hf.oddHeader.left.text = title
        hf.oddHeader.left.size = 8
        hf.oddHeader.right.text = "&A, page &P of &N"
        hf.oddHeader.right.size = 8
        hf.oddFooter.center.text = _footer_caveat(self.report.caveat_short)
        hf.oddFooter.center.size = 8

    # -- sheet names --
    def sheet_names(self) -> dict[int, str]:
        sections = self.report.sections
        names: dict[int, str] = {}
        taken = {n.lower() for n in RESERVED_SHEETS}
        if any(isinstance(s, KpiSection) for s in sections):
            taken.add("headline")
        if any(isinstance(s, TextSection) for s in sections):
            taken.add("notes")
        tables = [(i, s) for i, s in enumerate(sections) if isinstance(s, (TableSection, ChartSection))]
        short = {i: _cohort_sheet_name(s.table, long=False) for i, s in tables}
        counts: dict[str, int] = {}
        for n in short.values():
            counts[n.lower()] = counts.get(n.lower(), 0) + 1
        for i, s in tables:
            name = short[i] if counts[short[i].lower()] == 1 else _cohort_sheet_name(s.table, long=True)
            if isinstance(s, ChartSection) and counts[short[i].lower()] > 1:
                name = "Chart " + name
            names[i] = _unique_sheet_name(name, taken)
        return names

    # -- the whole workbook --
    def build(self):
        names = self.sheet_names()
        kpi_done = text_done = False
        for i, section in enumerate(self.report.sections):
            if isinstance(section, (TableSection, ChartSection)):
                self.table_sheet(names[i], section.title, section.table)
            elif isinstance(section, KpiSection) and not kpi_done:
                self.headline_sheet([s for s in self.report.sections if isinstance(s, KpiSection)])
                kpi_done = True
            elif isinstance(section, TextSection) and not text_done:
                self.notes_sheet([s for s in self.report.sections if isinstance(s, TextSection)])
                text_done = True
        self.caveat_sheet()
        self.sources_sheet()
        manifest = manifest_mod.build(self.report, self.placements, "xlsx")
        self.manifest_sheet(manifest)
        return manifest

    def _top(self, sheet: _Sheet, title: str, ncols: int, width: float, notes: Iterable[tuple[str, str]]):
        sheet.wide_text(title, ncols, width * 0.8, "title")
        for text, key in notes:
            sheet.wide_text(text, ncols, width, key)

    # -- a table (or a chart's table) --
    def table_sheet(self, name: str, title: str, table: BoundTable):
        fig_cols = [i for i, c in enumerate(table.columns) if c.kind in ("figure", "derived")]
        formats: set[str] = set()
        fig_width: dict[int, float] = {}
        band_width: dict[int, float] = {}
        for row in table.rows:  # every figure: a figure column must never be too narrow (####)
            for i in fig_cols:
                cell = row[i]
                if isinstance(cell, BoundFigure):
                    text, (value, fmt) = self.prepared[id(cell)] = cell.text(), cell.spreadsheet_cell()
                    formats.add(fmt)
                    fig_width[i] = max(fig_width.get(i, 0), len(text))
                    band_width[i] = max(band_width.get(i, 0), _band_chars(cell))
                else:
                    fig_width[i] = max(fig_width.get(i, 0), min(len(str(cell)), TEXT_WIDTH_CAP))
        new_formats = len(formats - self.figure_formats)
        over_budget = len(self.figure_formats) + new_formats > XF_BUDGET
        text_cells = self.text_cells or over_budget
        if not over_budget:
            self.figure_formats |= formats

        cols = _table_columns(table, text_cells, shared_sort=over_budget)
        sample = _sample(table.rows)
        for col in cols:
            head = _longest_word(col.header) + 2
            if col.kind in ("figure", "sort"):
                w = fig_width.get(col.src, 10) * 1.05 + 2.5
                col.width = min(FIGURE_WIDTH_CAP, max(head, w))
            elif col.kind in ("band_low", "band_high"):
                col.width = min(FIGURE_WIDTH_CAP, max(head, band_width.get(col.src, 10) * 1.05 + 2.5))
            elif col.kind == "verified":
                col.width = max(head, 11)
            else:
                cap = TEXT_CAPS.get(table.columns[col.src].key, TEXT_WIDTH_CAP)
                longest = max((_display_len(r[col.src]) for r in sample), default=0)
                col.width = max(head, min(cap, longest * 1.05 + 2))
        ncols = len(cols)
        total = sum(c.width for c in cols)

        top = [(table.table_note, "note"), (self.report.caveat_short, "caveat")]
        if over_budget and not self.text_cells:
            top.append(("This table needs more distinct cell formats than Excel allows in one workbook "
                        "(65,430), so its figures are written as text with their binding, beside a numeric "
                        "sort-value column.", "warning"))
        header_row = len(top) + 2
        sheet = _Sheet(self, name)
        sheet.setup([c.width for c in cols], freeze_row=header_row + 1, title_rows=f"1:{header_row}")
        self._top(sheet, title, ncols, total, top)
        sheet.append([sheet.text(c.header, "header") for c in cols], height=_header_height(cols))
        first = sheet.row + 1
        notes = {n.mark: n.text for n in table.notes}
        for row in table.rows:
            self._table_row(sheet, cols, row, table.table_note, notes)
        if table.rows:
            sheet.ws.auto_filter.ref = f"A{header_row}:{get_column_letter(ncols)}{first + len(table.rows) - 1}"
        sheet.blank()
        sheet.append([sheet.text("Notes", "label")])
        for note in table.notes:
            sheet.wide_text(f"[{note.mark}] {note.text}", ncols, total)
        sheet.wide_text(self.report.legend, ncols, total, "legend")
        sheet.finish()
        self.prepared.clear()
        for _, _, fig in table.figures():
            self.shown_on.setdefault(fig.result.natural_key, sheet.title)

    def _table_row(self, sheet: _Sheet, cols: list[_Col], row: tuple, table_note: str, notes: dict):
        cells: list[_XCell | None] = []
        first_fig = next((c for c in row if isinstance(c, BoundFigure)), None)
        lines = 1
        for n, col in enumerate(cols, 1):
            value = row[col.src] if col.src >= 0 else None
            if col.kind == "verified":
                cells.append(sheet.text(first_fig.result.conditions.identity.verified if first_fig else ""))
            elif col.kind == "text":
                cells.append(sheet.text(value))
                if len(value) > col.width - 3 or "\n" in value:
                    lines = max(lines, _lines(value, col.width))
            elif not isinstance(value, BoundFigure):
                # a derived column's "not derivable: ..." words, or nothing in the sort/band columns
                cells.append(sheet.text(value, "derived") if col.kind == "figure" else None)
            elif col.kind == "figure":
                cells.append(self._figure_cell(sheet, value, col, n, table_note, notes))
            elif col.kind == "sort":
                fmt = _sort_format(value) if col.shared_format else self.prepared[id(value)][1][1]
                cells.append(sheet.number(value.magnitude, fmt, "band"))
            else:
                cells.append(_band_cell(sheet, value, low=col.kind == "band_low"))
                if not value.slack.estimable:
                    lines = max(lines, _lines(value.band_text(), col.width))
        sheet.append(cells, height=lines * LINE_PT + 3 if lines > 1 else None)

    def _figure_cell(self, sheet: _Sheet, fig: BoundFigure, col: _Col, n: int, table_note: str,
                     notes: dict) -> _XCell:
        text, (value, fmt) = self.prepared.get(id(fig)) or (fig.text(), fig.spreadsheet_cell())
        if col.as_text:
            cell = sheet.text(text, "derived" if fig.derivation else "figure_text")
        else:
            cell = sheet.number(value, fmt, "derived" if fig.derivation else "figure")
        self.place(sheet, fig, sheet.row + 1, n, table_note, notes, text)
        return cell

    def place(self, sheet: _Sheet, fig: BoundFigure, row: int, col: int, table_note: str, notes: dict,
              figure_text: str | None = None):
        text = _comment_text(fig, table_note, notes, figure_text)
        width_px = 460
        height_px = min(900, 16 * sum(len(p) // 64 + 1 for p in text.split("\n")) + 16)
        sheet.comments().add(row, col, text, width_px, height_px)
        self.placements.append((sheet_location(sheet.title, f"{get_column_letter(col)}{row}"), fig))

    # -- headline figures (KPI sections) --
    def headline_sheet(self, sections: list[KpiSection]):
        figs = [s.figure for s in sections]
        heads = ["Figure", "Band low", "Band high", "Submitter", "System", "Result ID"]
        widths = [max(14, max(len(f.text()) for f in figs) * 1.05 + 2.5),
                  max(12, max(_band_chars(f) for f in figs) * 1.05 + 2.5),
                  max(12, max(_band_chars(f) for f in figs) * 1.05 + 2.5),
                  max(12, min(TEXT_WIDTH_CAP, max(len(f.result.conditions.identity.submitter) for f in figs) + 2)),
                  max(10, min(TEXT_WIDTH_CAP, max(len(f.result.conditions.identity.system_name) for f in figs) + 2)),
                  12]
        total = sum(widths)
        sheet = _Sheet(self, "Headline")
        sheet.setup(widths)
        self._top(sheet, "Headline figures", len(heads), total, [(self.report.caveat_short, "caveat")])
        for s in sections:
            sheet.blank()
            sheet.wide_text(s.title, len(heads), total * 0.8, "title")
            sheet.wide_text(s.inline_conditions, len(heads), total)
            sheet.append([sheet.text(h, "header") for h in heads])
            f, i = s.figure, s.figure.result.conditions.identity
            value, fmt = f.spreadsheet_cell()
            notes = {n.mark: n.text for n in s.notes}
            self.place(sheet, f, sheet.row + 1, 1, s.table_note, notes)
            texts = [f.band_text() if not f.slack.estimable else "", f.band_text() if not f.slack.estimable else "",
                     i.submitter, i.system_name, i.result_id or f"({i.result_id_state})"]
            lines = max(_lines(t, w) for t, w in zip(texts, widths[1:]))
            sheet.append([sheet.number(value, fmt, "derived" if f.derivation else "figure"),
                          _band_cell(sheet, f, low=True), _band_cell(sheet, f, low=False),
                          sheet.text(i.submitter), sheet.text(i.system_name),
                          sheet.text(i.result_id or f"({i.result_id_state})")],
                         height=lines * LINE_PT + 3 if lines > 1 else None)
            sheet.wide_text(s.table_note, len(heads), total)
            for note in s.notes:
                sheet.wide_text(f"[{note.mark}] {note.text}", len(heads), total)
            self.shown_on.setdefault(f.result.natural_key, sheet.title)
        sheet.blank()
        sheet.wide_text(self.report.legend, len(heads), total, "legend")
        sheet.finish()

    # -- text sections --
    def notes_sheet(self, sections: list[TextSection]):
        sheet = _Sheet(self, "Notes")
        sheet.setup([PAGE_COL], landscape=False)
        sheet.wide_text(clean_text(self.report.title), 1, PAGE_COL, "title")
        sheet.wide_text(self.report.caveat_short, 1, PAGE_COL, "caveat")
        for s in sections:
            sheet.blank()
            sheet.wide_text(s.title, 1, PAGE_COL, "title")
            for p in s.paragraphs:
                sheet.wide_text(p, 1, PAGE_COL)
        sheet.blank()
        sheet.wide_text(self.report.legend, 1, PAGE_COL, "legend")
        sheet.finish()

    def caveat_sheet(self):
        sheet = _Sheet(self, "Caveat")
        sheet.setup([PAGE_COL], landscape=False)
        sheet.wide_text("Caveat", 1, PAGE_COL, "title")
        for p in self.report.caveat_full:
            sheet.wide_text(p, 1, PAGE_COL)
        sheet.blank()
        sheet.wide_text(self.report.legend, 1, PAGE_COL, "legend")
        sheet.finish()

    # -- sources: one citation row per result shown --
    def sources_sheet(self):
        heads = ["Result ID", "Suite", "Round", "Division", "Availability", "Submitter", "System", "Benchmark",
                 "Scenario", "Verified", "Retrieved", "Source URL", "Source kind", "Source locator", "Shown on"]
        seen: set[tuple] = set()
        results = []
        for _, fig in self.report.figures():
            key = fig.result.natural_key
            if key not in seen:
                seen.add(key)
                results.append(fig.result)
        rows = (_source_row(r, self.shown_on.get(r.natural_key, "")) for r in results)
        sample = [_source_row(r, self.shown_on.get(r.natural_key, "")) for r in _sample(results)]
        caps = {"Source URL": 50, "Source locator": 40, "Suite": 30, "System": 30}
        widths = [max(len(h) + 2, min(caps.get(h, TEXT_WIDTH_CAP),
                                      max((len(r[i]) for r in sample), default=0) + 2))
                  for i, h in enumerate(heads)]
        total = sum(widths)
        sheet = _Sheet(self, "Sources")
        sheet.setup(widths, freeze_row=4, title_rows="1:3")
        self._top(sheet, "Sources: one citation per result shown in this workbook", len(heads), total,
                  [(self.report.caveat_short, "caveat")])
        sheet.append([sheet.text(h, "header") for h in heads])
        for values in rows:
            lines = max(_lines(v, w) if len(v) > w - 3 else 1 for v, w in zip(values, widths))
            sheet.append([sheet.text(v) for v in values], height=lines * LINE_PT + 3 if lines > 1 else None)
        if results:
            sheet.ws.auto_filter.ref = f"A3:{get_column_letter(len(heads))}{3 + len(results)}"
        sheet.blank()
        sheet.wide_text(self.report.legend, len(heads), total, "legend")
        sheet.finish()

    # -- the manifest, very hidden --
    def manifest_sheet(self, manifest: dict):
        sheet = _Sheet(self, MANIFEST_SHEET)
        sheet.ws.sheet_state = "veryHidden"
        sheet.setup([20], landscape=False)
        for chunk in _manifest_chunks(manifest):
            sheet.append([sheet.text(chunk, "plain")])
        sheet.finish()


# -- helpers -----------------------------------------------------------------------------------

def _hf_escape(text: str) -> str:
    return text.replace("&", "&&")


def _footer_caveat(short: str) -> str:
    """The one-line caveat for the page footer; Excel allows 255 characters for the whole footer
    (including the '&C&8 ' codes), so an over-long caveat is cut at a word and points to its sheet."""
    text = _hf_escape(clean_text(short).replace("\n", " "))
    room = 255 - len("&C&8 ")
    if len(text) <= room:
        return text
    tail = " ... (full caveat on the Caveat sheet)"
    cut = text[: room - len(tail)]
    return cut.rsplit(" ", 1)[0].rstrip("&") + tail


def _cohort_sheet_name(table: BoundTable, long: bool) -> str:
    k = table.cohort
    bench = k.benchmark or f"{k.model}-{k.accuracy_track}"
    base = f"{bench} {k.scenario}" if k.mlperf else f"non-MLPerf {bench} {k.scenario}"
    if long:
        base = f"{k.round} {k.division} {base}" if k.mlperf else f"{base} {k.unit}"
    return base


def _unique_sheet_name(name: str, taken: set[str]) -> str:
    name = _BAD_SHEET_CHARS.sub("-", clean_text(name)).strip().strip("'").strip() or "Table"
    name = name[:31].rstrip()
    candidate, n = name, 2
    while candidate.lower() in taken:
        suffix = f" ({n})"
        candidate = name[: 31 - len(suffix)].rstrip() + suffix
        n += 1
    taken.add(candidate.lower())
    return candidate


def _table_columns(table: BoundTable, text_cells: bool, shared_sort: bool = False) -> list[_Col]:
    """The table's columns, with band low/high (and in text-cell mode a sort value) beside each
    figure column, and a Verified column beside the result ID when the table has none."""
    cols: list[_Col] = []
    keys = [c.key for c in table.columns]
    add_verified = "verified" not in keys
    derived_marks = _derived_marks(table)
    for i, c in enumerate(table.columns):
        if c.kind in ("figure", "derived"):
            unit = _column_unit(table, i)
            derived = c.kind == "derived"
            header = c.header
            if derived and "derived" not in header.lower():
                header += " (derived)"
            if derived and i in derived_marks:
                header += f"; basis in note [{derived_marks[i]}]"
            if add_verified:
                cols.append(_Col("verified", "Verified", -1))
                add_verified = False
            tag = " (derived)" if derived else ""
            if text_cells:
                cols.append(_Col("figure", f"{header}, {unit}", i, as_text=True))
                cols.append(_Col("sort", f"{c.header} sort value{tag}, {unit}", i, shared_format=shared_sort))
            else:
                cols.append(_Col("figure", f"{header}, {unit}", i))
            if not derived:  # a derived figure's format carries the same ± band; its own edges add little
                cols.append(_Col("band_low", f"Band low, {unit}", i))
                cols.append(_Col("band_high", f"Band high, {unit}", i))
        else:
            cols.append(_Col("text", c.header, i))
            if c.key == "result_id" and add_verified:
                cols.append(_Col("verified", "Verified", -1))
                add_verified = False
    return cols


def _derived_marks(table: BoundTable) -> dict[int, str]:
    """Column -> the one derivation mark all its figures share (its basis note)."""
    found: dict[int, set] = {}
    for _, c, fig in table.figures():
        if fig.derivation is not None:
            found.setdefault(c, set()).add(fig.derivation.mark)
    return {c: next(iter(m)) for c, m in found.items() if len(m) == 1}


def _column_unit(table: BoundTable, i: int) -> str:
    for row in table.rows:
        if isinstance(row[i], BoundFigure):
            return row[i].unit_text
    return ""


def _band_format(fig: BoundFigure, low: bool) -> str:
    """Names the unit and says what the number is, so a copied band edge never reads as a figure."""
    word = "band low" if low else "band high"
    if fig.derivation is not None:
        word += " (derived)"
    return f'{fig.digit_pattern()}" {fig.unit_text.replace(chr(34), chr(39))} {word}"'


def _band_display(fig: BoundFigure) -> str:
    frac = fig.slack.band_fraction
    if frac is None:
        return fig.band_text()
    number = fig.format_number(fig.magnitude * (1 + frac))
    return f"{number} {fig.unit_text} band high" + (" (derived)" if fig.derivation is not None else "")


def _header_height(cols: Sequence[_Col]) -> float | None:
    lines = max(_lines(c.header, c.width * 0.9) for c in cols)  # bold text is wider
    return lines * LINE_PT + 3 if lines > 1 else None


def _band_chars(fig: BoundFigure) -> int:
    """Characters a band column needs for this figure (a reason for no band wraps)."""
    band = _band_display(fig)
    return len(band) if fig.slack.estimable else min(len(band), BAND_TEXT_CAP)


def _band_cell(sheet: _Sheet, fig: BoundFigure, low: bool) -> _XCell:
    frac = fig.slack.band_fraction
    if frac is None:
        return sheet.text(fig.band_text(), "band_text")  # the words that say why there is no band
    value = fig.magnitude * (1 - frac if low else 1 + frac)
    return sheet.number(value, _band_format(fig, low), "band")


def _sort_format(fig: BoundFigure) -> str:
    """A sort column's format shared by all figures of one unit: used when one format per figure
    would exceed the workbook's cell-format budget. (No ';' in literals: openpyxl's date detection
    splits on it even inside quotes.)"""
    return f'{fig.digit_pattern()}" {fig.unit_text.replace(chr(34), chr(39))} (sort value, figure and notes beside)"'


def _comment_text(fig: BoundFigure, table_note: str, notes: dict, text: str | None = None) -> str:
    """The full footnote of a figure: its text, the conditions of its table and its marks' notes."""
    parts = [text or fig.text(), table_note]
    parts += [f"[{m}] {notes[m]}" for m in fig.marks if m in notes]
    return "\n\n".join(parts)


def _source_row(r, shown_on: str) -> list[str]:
    i, b, p = r.conditions.identity, r.conditions.benchmark, r.conditions.provenance
    return [i.result_id or f"({i.result_id_state})", suite_name(r) if i.mlperf else "not MLPerf", i.round,
            i.division, i.availability, i.submitter, i.system_name, b.benchmark, b.scenario, i.verified,
            p.retrieved_on, p.source_url, p.source_kind, p.source_locator, shown_on]


def _sample(rows: Sequence) -> Sequence:
    if len(rows) <= WIDTH_SAMPLE:
        return rows
    step = len(rows) // WIDTH_SAMPLE + 1
    return list(rows[:WIDTH_SAMPLE // 2]) + list(rows[WIDTH_SAMPLE // 2::step])


def _longest_word(text: str) -> int:
    return max((len(w) for w in str(text).split()), default=0)


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


# -- entry points ------------------------------------------------------------------------------

def render(report: Report, path, text_cells: bool = False, **options) -> dict:
    """Write the workbook to ``path``; return the manifest embedded in it.

    ``text_cells``: figure cells hold the text ``101,527 tok/s ±5.4% [a]`` (with a numeric sort-value
    column beside) instead of a number whose format carries the binding. Other options are for
    other formats and are ignored here.
    """
    path = Path(path)
    book = _Book(report, bool(text_cells))
    opened = False
    try:
        manifest = book.build()
        archive = ZipFile(path, "w", ZIP_DEFLATED, allowZip64=True, compresslevel=ZIP_LEVEL)
        opened = True
        _Writer(book.wb, archive).save()
        return manifest
    except BaseException:
        if opened:
            path.unlink(missing_ok=True)
        raise
    finally:
        for f in book.files:  # anonymous temporary files: closing removes them
            f.close()


def read_manifest(path) -> dict:
    """The manifest embedded in a workbook written by ``render``.

    Raises ManifestNotFound when the workbook has no manifest sheet, ExportguardError when it cannot
    be read as a workbook or its manifest is not valid JSON. Integrity is checked separately, by
    ``exportguard.manifest.verify``.
    """
    try:
        wb = load_workbook(path, read_only=True, data_only=True, keep_links=False)
    except Exception as e:  # zipfile.BadZipFile, KeyError, XML errors: not a readable workbook
        raise ExportguardError(f"{path}: cannot read as a workbook: {e}") from None
    try:
        if MANIFEST_SHEET not in wb.sheetnames:
            raise ManifestNotFound(f"{path}: no {MANIFEST_SHEET} sheet: the workbook carries no exportguard manifest")
        parts = []
        for (value,) in wb[MANIFEST_SHEET].iter_rows(min_col=1, max_col=1, values_only=True):
            if value is not None:
                parts.append(str(value))
    finally:
        wb.close()
    try:
        manifest = json.loads("".join(parts))
    except ValueError as e:
        raise ExportguardError(f"{path}: the embedded manifest is not valid JSON: {e}") from None
    if not isinstance(manifest, dict):
        raise ExportguardError(f"{path}: the embedded manifest is not a JSON object")
    return manifest
