"""A streaming writer of SpreadsheetML packages: the one module that knows the XML of an XLSX.

Memory does not grow with the number of cells: each sheet's rows are written as XML to an unnamed
temporary file as they arrive (with its merged ranges, its comments and their VML drawing, each in
a temporary file of its own), and the package is assembled at ``save``: every part streamed into
the zip, entries in the order and with the timestamps of render/package.py, so that one report
gives one file. Only what is small stays in memory: the cell formats in use (one per style, number
format and quote prefix) and, per sheet, its settings.

Strings are inline (``t="inlineStr"``), not shared: a shared-string table must be held whole until
the end (every distinct text of the workbook, most of them distinct here: system names, result IDs,
notes) and written before anything refers to it, which would make memory grow with the figures.
Excel, LibreOffice and openpyxl read inline strings (openpyxl's own write-only mode writes them);
the deflated part is a little larger than with a table, since repeated texts repeat in the sheet.

Element order follows the schema (ECMA-376 Part 1, 18.3.1.99 CT_Worksheet; 18.8.39 CT_Stylesheet),
one ``_write``/``_part`` function per part, in the manner of XlsxWriter.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import BinaryIO, Iterable, Mapping, Sequence

from ..clock import Clock
from ..scratch import temporary_file
from .package import write_parts

# Characters XML 1.0 cannot carry (and the non-characters U+FFFE/U+FFFF, and lone surrogates).
ILLEGAL_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
# Excel reads "_x0041_" in a string as the escape of "A": a text that looks like one is escaped
# itself (its underscore as _x005F_), so that it reads back as written.
_LOOKS_ESCAPED = re.compile(r"_(x[0-9A-Fa-f]{4}_)")

_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PKG_REL = "http://schemas.openxmlformats.org/package/2006/relationships"
_REL_SHEET = _R + "/worksheet"
_REL_STYLES = _R + "/styles"
_REL_COMMENTS = _R + "/comments"
_REL_VML = _R + "/vmlDrawing"
_CT_SHEET = "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"
_DECL = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
_BUILTIN_IDS = {"General": 0, "0": 1, "0.00": 2, "#,##0": 3, "#,##0.00": 4, "@": 49}
FIRST_CUSTOM_ID = 164
_SPOOL = 1 << 20  # write buffer of each temporary file


def text(value: str) -> str:
    """Text as XML character data: escaped, without the characters XML 1.0 forbids."""
    if ILLEGAL_XML.search(value):
        value = ILLEGAL_XML.sub("\ufffd", value)
    if "&" in value:
        value = value.replace("&", "&amp;")
    if "<" in value:
        value = value.replace("<", "&lt;")
    if ">" in value:
        value = value.replace(">", "&gt;")
    return value


def attr(value: str) -> str:
    """Text as a double-quoted attribute value (white space kept as written: &#10; and friends)."""
    return (text(value).replace('"', "&quot;").replace("\n", "&#10;").replace("\r", "&#13;")
            .replace("\t", "&#9;"))


def string(value: str) -> str:
    """A cell's or a comment's text as a ``<t>`` element, white space preserved where it matters."""
    # short cell texts repeat down a table's columns: each is written once; long ones are mostly unique
    return _short_string(value) if len(value) <= 200 else _string(value)


def _string(value: str) -> str:
    if "_x" in value:
        value = _LOOKS_ESCAPED.sub(r"_x005F_\1", value)
    body = text(value)
    if value[:1].isspace() or value[-1:].isspace() or "\n" in value or "  " in value or "\t" in value:
        return f'<t xml:space="preserve">{body}</t>'
    return f"<t>{body}</t>"


_short_string = functools.lru_cache(maxsize=8192)(_string)


_LETTERS: dict[int, str] = {}


def column_letter(col: int) -> str:
    """1 -> A, 27 -> AA."""
    found = _LETTERS.get(col)
    if found is None:
        out, n = "", col
        while n:
            n, rem = divmod(n - 1, 26)
            out = chr(65 + rem) + out
        found = _LETTERS[col] = out
    return found


def quote_sheet(name: str) -> str:
    """A sheet name as a formula reference writes it: 'It''s'."""
    return "'" + name.replace("'", "''") + "'"


# -- styles ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Font:
    name: str = "Calibri"
    size: float = 11
    bold: bool = False
    italic: bool = False
    color: str | None = None  # RRGGBB


@dataclass(frozen=True)
class Alignment:
    horizontal: str | None = None
    vertical: str | None = None
    wrap: bool = False
    indent: int = 0  # from the cell's left edge, in widths of three spaces (needs a left alignment)


@dataclass(frozen=True)
class Style:
    """A named cell style: its font, a solid fill, a thin box border, its alignment."""

    font: Font = Font()
    fill: str | None = None  # RRGGBB of a solid fill
    border: str | None = None  # RRGGBB of a thin border on all four sides
    alignment: Alignment | None = None


def _font_xml(f: Font) -> str:
    return ("<font>" + ("<b/>" if f.bold else "") + ("<i/>" if f.italic else "") + f'<sz val="{f.size:g}"/>'
            + (f'<color rgb="FF{f.color}"/>' if f.color else "") + f'<name val="{attr(f.name)}"/>'
            + '<family val="2"/></font>')


def _fill_xml(color: str | None) -> str:
    if color is None:
        return '<fill><patternFill patternType="none"/></fill>'
    return f'<fill><patternFill patternType="solid"><fgColor rgb="FF{color}"/><bgColor indexed="64"/></patternFill></fill>'


def _border_xml(color: str | None) -> str:
    if color is None:
        return "<border><left/><right/><top/><bottom/><diagonal/></border>"
    side = f'style="thin"><color rgb="FF{color}"/>'
    return (f"<border><left {side}</left><right {side}</right><top {side}</top><bottom {side}</bottom>"
            "<diagonal/></border>")


def _alignment_xml(a: Alignment | None) -> str:
    if a is None:
        return ""
    attrs = ((f' horizontal="{a.horizontal}"' if a.horizontal else "") + (f' vertical="{a.vertical}"' if a.vertical else "")
             + (' wrapText="1"' if a.wrap else "") + (f' indent="{a.indent}"' if a.indent else ""))
    return f"<alignment{attrs}/>"


class _Styles:
    """The styles part: the named styles given, and one cell format per (style, number format,
    quote prefix) in the order first used."""

    def __init__(self, named: Mapping[str, Style]):
        self.names = list(named)
        self.named = dict(named)
        self.fonts = [Font()]
        self.fills: list[str | None] = [None, "gray125"]
        self.borders: list[str | None] = [None]
        self.parts: dict[str, tuple[int, int, int]] = {}
        for key, s in self.named.items():
            self.parts[key] = (self._index(self.fonts, s.font), self._index(self.fills, s.fill) if s.fill else 0,
                               self._index(self.borders, s.border) if s.border else 0)
        self.formats: dict[str, int] = {}  # custom number format code -> id
        self.xfs: dict[tuple[str, str | None, bool], int] = {}
        self._xf_list: list[tuple[str, int, bool]] = []

    @staticmethod
    def _index(items: list, item) -> int:
        if item not in items:
            items.append(item)
        return items.index(item)

    def format_id(self, code: str | None) -> int:
        if not code:
            return 0
        if code in _BUILTIN_IDS:
            return _BUILTIN_IDS[code]
        if code not in self.formats:
            self.formats[code] = FIRST_CUSTOM_ID + len(self.formats)
        return self.formats[code]

    def xf(self, style: str, code: str | None, quote: bool) -> int:
        key = (style, code, quote)
        found = self.xfs.get(key)
        if found is None:
            if style not in self.named:
                raise KeyError(f"no cell style {style!r}")
            found = self.xfs[key] = len(self._xf_list) + 1  # 0 is the default format
            self._xf_list.append((style, self.format_id(code), quote))
        return found

    def xml(self) -> bytes:
        out = [_DECL, f'<styleSheet xmlns="{_MAIN}">']
        if self.formats:
            out.append(f'<numFmts count="{len(self.formats)}">')
            out += [f'<numFmt numFmtId="{i}" formatCode="{attr(code)}"/>' for code, i in self.formats.items()]
            out.append("</numFmts>")
        out.append(f'<fonts count="{len(self.fonts)}">' + "".join(map(_font_xml, self.fonts)) + "</fonts>")
        fills = [_fill_xml(None), '<fill><patternFill patternType="gray125"/></fill>'] + [
            _fill_xml(c) for c in self.fills[2:]]
        out.append(f'<fills count="{len(fills)}">' + "".join(fills) + "</fills>")
        out.append(f'<borders count="{len(self.borders)}">' + "".join(map(_border_xml, self.borders)) + "</borders>")
        # the named styles' formats (cellStyleXfs), then the cells' formats, each based on its named style
        out.append(f'<cellStyleXfs count="{len(self.names) + 1}"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/>')
        for key in self.names:
            out.append(self._xf(key, 0, False, None))
        out.append("</cellStyleXfs>")
        out.append(f'<cellXfs count="{len(self._xf_list) + 1}"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>')
        for style, fmt, quote in self._xf_list:
            out.append(self._xf(style, fmt, quote, self.names.index(style) + 1))
        out.append("</cellXfs>")
        out.append(f'<cellStyles count="{len(self.names) + 1}"><cellStyle name="Normal" xfId="0" builtinId="0"/>')
        out += [f'<cellStyle name="{attr(self.style_name(k))}" xfId="{i}"/>' for i, k in enumerate(self.names, 1)]
        out.append('</cellStyles><dxfs count="0"/><tableStyles count="0" defaultTableStyle="TableStyleMedium9" '
                   'defaultPivotStyle="PivotStyleLight16"/></styleSheet>')
        return "".join(out).encode("utf-8")

    def _xf(self, key: str, fmt: int, quote: bool, xf_id: int | None) -> str:
        s = self.named[key]
        font, fill, border = self.parts[key]
        applied = (' applyNumberFormat="1"' if fmt else "") + ' applyFont="1"' + (' applyFill="1"' if fill else "") + (
            ' applyBorder="1"' if border else "") + (' applyAlignment="1"' if s.alignment else "")
        attrs = (f'numFmtId="{fmt}" fontId="{font}" fillId="{fill}" borderId="{border}"'
                 + (f' xfId="{xf_id}"' if xf_id is not None else "") + (' quotePrefix="1"' if quote else "") + applied)
        align = _alignment_xml(s.alignment)
        return f"<xf {attrs}>{align}</xf>" if align else f"<xf {attrs}/>"

    @staticmethod
    def style_name(key: str) -> str:
        return f"eg {key}"


# -- a sheet ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PageSetup:
    landscape: bool = True
    fit_width: int = 1
    fit_height: int = 0
    scale: int | None = None  # a fixed print scale (per cent) instead of fitting to the page width
    col_breaks: tuple[int, ...] = ()  # manual page breaks after these columns, pages printed across then down
    margins: tuple[float, float, float, float, float, float] = (0.4, 0.4, 0.6, 0.85, 0.25, 0.3)  # l r t b header footer
    paper: str | None = None  # "a4" or "letter"; None: the application's default
    title_cols: int = 0  # the leading columns printed on every page (the row's key on each strip)
    areas: tuple[tuple[int, int], ...] = ()  # the column ranges that print (1-based, inclusive), each on pages
    # of its own; empty: every column


PAPER_CODES = {"letter": 1, "a4": 9}  # OOXML ST_PaperSize
MAX_ROW_HEIGHT = 409.0  # points: Excel's tallest row


class SheetWriter:
    """One worksheet: rows appended in order (each a list of cells), streamed to a temporary file;
    merged ranges and comments spooled beside it. Cells are (column, value, cell format index,
    is_text): a text value is an inline string, a float a number."""

    def __init__(self, book: "WorkbookWriter", index: int, title: str, widths: Sequence[float], *,
                 freeze_row: int | None, page: PageSetup, title_rows: str | None, header: str, footer: str,
                 state: str = "visible"):
        self.book, self.index, self.title = book, index, title
        self.widths = list(widths)
        self.freeze_row, self.page, self.title_rows = freeze_row, page, title_rows
        self.header, self.footer = header, footer
        self.state = state
        self.auto_filter: str | None = None  # "A5:L100"
        self.row_breaks: list[int] = []  # manual page breaks after these rows
        self.row = 0
        self.max_col = 0
        self._data = book._spool()
        self._merged = book._spool()
        self.merged_count = 0
        self._comments: BinaryIO | None = None
        self._shapes: BinaryIO | None = None
        self.comment_count = 0

    def append(self, cells: Iterable[tuple[int, object, int, bool]], height: float | None = None) -> int:
        """Write the next row; return its number (from 1)."""
        self.row += 1
        r = self.row
        if height:
            height = min(height, MAX_ROW_HEIGHT)  # a taller row is not a valid workbook to Excel
        out = [f'<row r="{r}" ht="{height:g}" customHeight="1">' if height else f'<row r="{r}">']
        last = 0
        letters = _LETTERS
        for col, value, xf, is_text in cells:
            ref = f"{letters.get(col) or column_letter(col)}{r}"
            last = col
            if is_text:
                if value == "":
                    out.append(f'<c r="{ref}" s="{xf}"/>')  # a styled empty cell (a table's border)
                else:
                    out.append(f'<c r="{ref}" s="{xf}" t="inlineStr"><is>{string(value)}</is></c>')
            else:
                out.append(f'<c r="{ref}" s="{xf}"><v>{value:.16g}</v></c>')
        out.append("</row>")
        self.max_col = max(self.max_col, last)
        self._data.write("".join(out).encode("utf-8"))
        return r

    def row_break(self, after_row: int) -> None:
        self.row_breaks.append(after_row)

    def merge(self, min_row: int, min_col: int, max_row: int, max_col: int) -> None:
        self._merged.write(f'<mergeCell ref="{column_letter(min_col)}{min_row}:{column_letter(max_col)}{max_row}"/>'
                           .encode("ascii"))
        self.merged_count += 1

    def comment(self, row: int, col: int, body: str, author_id: int, width: int, height: int) -> None:
        """A note on a cell (a legacy comment and its VML shape, hidden until the cell is pointed at)."""
        if self._comments is None:
            self._comments, self._shapes = self.book._spool(), self.book._spool()
        self._comments.write(f'<comment ref="{column_letter(col)}{row}" authorId="{author_id}"><text>{string(body)}'
                             "</text></comment>".encode("utf-8"))
        self.comment_count += 1
        self._shapes.write(_vml_shape(self.book.shape_base(self) + self.comment_count, row - 1, col - 1, width, height))

    # -- the parts, at save --
    def part_name(self) -> str:
        return f"xl/worksheets/sheet{self.index}.xml"

    def head(self) -> bytes:
        out = [_DECL, f'<worksheet xmlns="{_MAIN}" xmlns:r="{_R}">']
        fits = self.page.scale is None and (self.page.fit_width or self.page.fit_height)
        out.append('<sheetPr><pageSetUpPr fitToPage="1"/></sheetPr>' if fits else "<sheetPr/>")
        last = f"{column_letter(max(self.max_col, 1))}{max(self.row, 1)}"
        out.append(f'<dimension ref="{"A1" if last == "A1" else "A1:" + last}"/>')
        selected = ' tabSelected="1"' if self.index == 1 else ""
        if self.freeze_row and self.freeze_row > 1:
            top = f"A{self.freeze_row}"
            out.append(f'<sheetViews><sheetView{selected} workbookViewId="0"><pane ySplit="{self.freeze_row - 1}" '
                       f'topLeftCell="{top}" activePane="bottomLeft" state="frozen"/><selection pane="bottomLeft" '
                       f'activeCell="{top}" sqref="{top}"/></sheetView></sheetViews>')
        else:
            out.append(f'<sheetViews><sheetView{selected} workbookViewId="0"><selection activeCell="A1" sqref="A1"/>'
                       "</sheetView></sheetViews>")
        out.append('<sheetFormatPr defaultRowHeight="15"/>')
        if self.widths:
            out.append("<cols>" + "".join(f'<col min="{i}" max="{i}" width="{round(w, 1):g}" customWidth="1"/>'
                                          for i, w in enumerate(self.widths, 1)) + "</cols>")
        out.append("<sheetData>")
        return "".join(out).encode("utf-8")

    def tail_before_merges(self) -> bytes:
        return b"</sheetData>" + (f'<autoFilter ref="{self.auto_filter}"/>'.encode("ascii") if self.auto_filter else b"")

    def tail(self) -> bytes:
        p = self.page
        left, right, top, bottom, header, footer = p.margins
        scale = "" if p.scale is None else f' scale="{p.scale}"'
        order = ' pageOrder="overThenDown"' if p.col_breaks else ""  # a row block's continuation comes next
        order += f' paperSize="{PAPER_CODES[p.paper]}"' if p.paper else ""
        out = [f'<pageMargins left="{left:g}" right="{right:g}" top="{top:g}" bottom="{bottom:g}" header="{header:g}" '
               f'footer="{footer:g}"/>',
               f'<pageSetup{scale}{order} orientation="{"landscape" if p.landscape else "portrait"}" '
               f'fitToWidth="{p.fit_width}" fitToHeight="{p.fit_height}"/>']
        if self.header or self.footer:
            out.append("<headerFooter>" + (f"<oddHeader>{text(self.header)}</oddHeader>" if self.header else "")
                       + (f"<oddFooter>{text(self.footer)}</oddFooter>" if self.footer else "") + "</headerFooter>")
        # manual breaks (CT_Worksheet: after headerFooter, rows before columns); max: the sheet's last column / row
        rows = sorted(set(self.row_breaks))
        if rows:
            out.append(f'<rowBreaks count="{len(rows)}" manualBreakCount="{len(rows)}">'
                       + "".join(f'<brk id="{r}" max="16383" man="1"/>' for r in rows) + "</rowBreaks>")
        cols = sorted(set(p.col_breaks))
        if cols:
            out.append(f'<colBreaks count="{len(cols)}" manualBreakCount="{len(cols)}">'
                       + "".join(f'<brk id="{c}" max="1048575" man="1"/>' for c in cols) + "</colBreaks>")
        if self.comment_count:
            out.append('<legacyDrawing r:id="rId2"/>')
        out.append("</worksheet>")
        return "".join(out).encode("utf-8")

    def chunks(self) -> list:
        """The sheet part as pieces: bytes, and the spooled files (rewound)."""
        out: list = [self.head(), _rewound(self._data), self.tail_before_merges()]
        if self.merged_count:
            out += [f'<mergeCells count="{self.merged_count}">'.encode("ascii"), _rewound(self._merged),
                    b"</mergeCells>"]
        out.append(self.tail())
        return out

    def comment_chunks(self, authors: Sequence[str]) -> list:
        head = (_DECL + f'<comments xmlns="{_MAIN}"><authors>' + "".join(f"<author>{text(a)}</author>" for a in authors)
                + "</authors><commentList>").encode("utf-8")
        return [head, _rewound(self._comments), b"</commentList></comments>"]

    def vml_chunks(self) -> list:
        start = self.book.shape_base(self) // 1024
        blocks = ",".join(str(start + k) for k in range(-(-(self.comment_count + 1) // 1024)))
        head = ('<xml xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office" '
                'xmlns:x="urn:schemas-microsoft-com:office:excel"><o:shapelayout v:ext="edit">'
                f'<o:idmap v:ext="edit" data="{blocks}"/></o:shapelayout><v:shapetype id="_x0000_t202" '
                'coordsize="21600,21600" o:spt="202" path="m,l,21600r21600,l21600,xe"><v:stroke joinstyle="miter"/>'
                '<v:path gradientshapeok="t" o:connecttype="rect"/></v:shapetype>').encode("ascii")
        return [head, _rewound(self._shapes), b"</xml>"]

    def rels(self) -> bytes | None:
        if not self.comment_count:
            return None
        return _rels([("rId1", _REL_COMMENTS, f"../comments/comment{self.index}.xml"),
                      ("rId2", _REL_VML, f"../drawings/commentsDrawing{self.index}.vml")])

    def close(self) -> None:
        for f in (self._data, self._merged, self._comments, self._shapes):
            if f is not None:
                f.close()


def _vml_shape(shape_id: int, row: int, col: int, width: int, height: int) -> bytes:
    # As Excel writes a note: anchored beside its cell, hidden until the cell is pointed at.
    return (f'<v:shape id="_x0000_s{shape_id}" type="#_x0000_t202" style="position:absolute;margin-left:59.25pt;'
            f'margin-top:1.5pt;width:{width}px;height:{height}px;z-index:1;visibility:hidden" fillcolor="#ffffe1" '
            'o:insetmode="auto"><v:fill color2="#ffffe1"/><v:shadow on="t" color="black" obscured="t"/>'
            '<v:path o:connecttype="none"/><v:textbox style="mso-direction-alt:auto"><div style="text-align:left"/>'
            '</v:textbox><x:ClientData ObjectType="Note"><x:MoveWithCells/><x:SizeWithCells/><x:AutoFill>False'
            f"</x:AutoFill><x:Row>{row}</x:Row><x:Column>{col}</x:Column></x:ClientData></v:shape>").encode("ascii")


def _rewound(f: BinaryIO) -> BinaryIO:
    f.flush()
    f.seek(0)
    return f


def _rels(items: Iterable[tuple[str, str, str]]) -> bytes:
    return (_DECL + f'<Relationships xmlns="{_PKG_REL}">' + "".join(
        f'<Relationship Id="{i}" Type="{t}" Target="{attr(target)}"/>' for i, t, target in items)
        + "</Relationships>").encode("utf-8")


# -- the workbook ----------------------------------------------------------------------------------

class WorkbookWriter:
    """Sheets in the order added, the named styles given, the document's title and author."""

    def __init__(self, styles: Mapping[str, Style], *, title: str = "", creator: str = ""):
        self.styles = _Styles(styles)
        self.title, self.creator = title, creator
        self.sheets: list[SheetWriter] = []
        self.authors: list[str] = []
        self._spooled: list[BinaryIO] = []
        self._bases: dict[int, int] = {}

    def _spool(self) -> BinaryIO:
        f = temporary_file(buffering=_SPOOL)  # unnamed: gone with the process, whatever happens
        self._spooled.append(f)
        return f

    def add_sheet(self, title: str, widths: Sequence[float], **options) -> SheetWriter:
        sheet = SheetWriter(self, len(self.sheets) + 1, title, widths, **options)
        self.sheets.append(sheet)
        return sheet

    def xf(self, style: str, number_format: str | None = None, quote: bool = False) -> int:
        return self.styles.xf(style, number_format, quote)

    def author(self, name: str) -> int:
        if name not in self.authors:
            self.authors.append(name)
        return self.authors.index(name)

    def shape_base(self, sheet: SheetWriter) -> int:
        """The shape id before a sheet's first comment: each sheet's drawing has ids of its own (2^20 of
        them from its index x 2^20, more than a sheet has rows), named in whole blocks of 1,024 in its
        o:idmap, so that no two shapes of the workbook share an id however many notes a sheet takes."""
        return sheet.index << 20

    @property
    def custom_formats(self) -> list[str]:
        return list(self.styles.formats)

    def save(self, path, clock: Clock) -> None:
        """The package, streamed to ``path``: every entry stamped with the clock, in package order."""
        parts: dict[str, list] = {}
        types = [("/xl/workbook.xml", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"),
                 ("/xl/styles.xml", "application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"),
                 ("/docProps/core.xml", "application/vnd.openxmlformats-package.core-properties+xml"),
                 ("/docProps/app.xml", "application/vnd.openxmlformats-officedocument.extended-properties+xml")]
        book_rels = []
        for s in self.sheets:
            parts[s.part_name()] = s.chunks()
            types.append(("/" + s.part_name(), _CT_SHEET))
            book_rels.append((f"rId{s.index}", _REL_SHEET, f"worksheets/sheet{s.index}.xml"))
            rels = s.rels()
            if rels is not None:
                parts[f"xl/worksheets/_rels/sheet{s.index}.xml.rels"] = [rels]
                parts[f"xl/comments/comment{s.index}.xml"] = s.comment_chunks(self.authors)
                parts[f"xl/drawings/commentsDrawing{s.index}.vml"] = s.vml_chunks()
                types.append((f"/xl/comments/comment{s.index}.xml",
                              "application/vnd.openxmlformats-officedocument.spreadsheetml.comments+xml"))
        book_rels.append((f"rId{len(self.sheets) + 1}", _REL_STYLES, "styles.xml"))
        parts["xl/workbook.xml"] = [self._workbook()]
        parts["xl/_rels/workbook.xml.rels"] = [_rels(book_rels)]
        parts["xl/styles.xml"] = [self.styles.xml()]
        parts["docProps/core.xml"] = [self._core(clock)]
        parts["docProps/app.xml"] = [self._app()]
        parts["_rels/.rels"] = [_rels([
            ("rId1", _R + "/officeDocument", "xl/workbook.xml"),
            ("rId2", "http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties",
             "docProps/core.xml"),
            ("rId3", _R + "/extended-properties", "docProps/app.xml")])]
        parts["[Content_Types].xml"] = [self._content_types(types)]
        write_parts(path, clock, parts)

    def _workbook(self) -> bytes:
        out = [_DECL, f'<workbook xmlns="{_MAIN}" xmlns:r="{_R}"><workbookPr/><bookViews><workbookView activeTab="0"/>'
               "</bookViews><sheets>"]
        for s in self.sheets:
            state = f' state="{s.state}"' if s.state != "visible" else ""
            out.append(f'<sheet name="{attr(s.title)}" sheetId="{s.index}"{state} r:id="rId{s.index}"/>')
        out.append("</sheets>")
        names = []
        for s in self.sheets:
            ref = quote_sheet(s.title)
            if s.auto_filter:
                a, _, b = s.auto_filter.partition(":")
                names.append(("_xlnm._FilterDatabase", s.index - 1, f"{ref}!{_absolute(a)}:{_absolute(b or a)}", True))
            p = s.page
            if p.areas and s.row:
                names.append(("_xlnm.Print_Area", s.index - 1, ",".join(
                    f"{ref}!${column_letter(a)}$1:${column_letter(b)}${s.row}" for a, b in p.areas), False))
            titles = []
            if p.title_cols:  # columns first, then rows, as Excel writes them
                titles.append(f"{ref}!$A:${column_letter(p.title_cols)}")
            if s.title_rows:
                first, _, last = s.title_rows.partition(":")
                titles.append(f"{ref}!${first}:${last or first}")
            if titles:
                names.append(("_xlnm.Print_Titles", s.index - 1, ",".join(titles), False))
        if names:
            out.append("<definedNames>" + "".join(
                f'<definedName name="{n}" localSheetId="{i}"{" hidden=" + chr(34) + "1" + chr(34) if hidden else ""}>'
                f"{text(v)}</definedName>" for n, i, v, hidden in names) + "</definedNames>")
        out.append('<calcPr calcId="191029"/></workbook>')
        return "".join(out).encode("utf-8")

    def _core(self, clock: Clock) -> bytes:
        when = clock.w3cdtf()
        return (_DECL + '<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/'
                'core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" '
                'xmlns:dcmitype="http://purl.org/dc/dcmitype/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">'
                + (f"<dc:title>{text(self.title)}</dc:title>" if self.title else "")
                + (f"<dc:creator>{text(self.creator)}</dc:creator>" if self.creator else "")
                + f'<dcterms:created xsi:type="dcterms:W3CDTF">{when}</dcterms:created>'
                f'<dcterms:modified xsi:type="dcterms:W3CDTF">{when}</dcterms:modified></cp:coreProperties>'
                ).encode("utf-8")

    def _app(self) -> bytes:
        return (_DECL + '<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties">'
                f"<Application>{text(self.creator or 'exportguard')}</Application></Properties>").encode("utf-8")

    @staticmethod
    def _content_types(overrides) -> bytes:
        return (_DECL + '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
                '<Default Extension="xml" ContentType="application/xml"/>'
                '<Default Extension="vml" ContentType="application/vnd.openxmlformats-officedocument.vmlDrawing"/>'
                + "".join(f'<Override PartName="{p}" ContentType="{t}"/>' for p, t in overrides)
                + "</Types>").encode("utf-8")

    def close(self) -> None:
        """Drop every temporary file (after a save, or instead of one)."""
        for f in self._spooled:
            f.close()
        self._spooled.clear()


def _absolute(ref: str) -> str:
    m = re.fullmatch(r"([A-Z]+)([0-9]+)", ref)
    return f"${m.group(1)}${m.group(2)}" if m else ref
