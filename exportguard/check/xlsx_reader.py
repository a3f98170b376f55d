"""XLSX (and the workbook embedded in a chart): every cell as displayed, and every cell comment.

Read straight from the package through the safe-open layer (safety.SafeZip, streamed XML): the
workbook's sheet list and states, shared strings (rich text runs joined, phonetic runs left out),
the cell formats (a numeric cell is shown through its number format: numfmt), each sheet's cells
in row order, then the sheet's comments (legacy notes and threaded comments). A formula cell shows
its cached result; a formula that was never calculated (openpyxl writes formulas so) has no value
to read, and where a reader would see a throughput figure there (under a throughput heading, after
a throughput label, a unit in its number format or its formula's text) it is reported as "could
not read the value" (EG023).

Locations are the manifest's: ``'Sheet name'!K5`` (quotes doubled inside), shown to a person as
``Sheet 'Sheet name'!K5``; a comment is ``'Sheet name'!K5 (comment)``. Each sheet is a scope; a
cell and its comment share a block, so a comment's note resolves the marks of its own cell first.

A column is a throughput column from a header row (a row of text cells only, one of which names
a throughput unit: detect.header_unit) down to the next empty row. In any other row, a text cell
that names a throughput labels the number cells right of it (detect.row_units).
"""
from __future__ import annotations

import posixpath
import re
from typing import Callable

from .numfmt import CUSTOM_FORMAT_BUDGET, FIRST_CUSTOM_ID, builtin, format_number
from .safety import NotInspectable, SafeZip, local, parse_tree, stream_xml
from ..detect import find_figures, header_unit, row_units
from ..embedding import XLSX_MANIFEST_SHEET as MANIFEST_SHEET, xlsx_cell as sheet_location

_R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_REL = "http://schemas.openxmlformats.org/package/2006/relationships"
_TYPE_SHEET = "/worksheet"
_TYPE_SST = "/sharedStrings"
_TYPE_STYLES = "/styles"
_TYPE_COMMENTS = "/comments"
_TYPE_THREADED = "/threadedComment"


_ESCAPED = re.compile(r"_x([0-9A-Fa-f]{4})_")


def unescape(text: str) -> str:
    """OOXML string escapes: ``_xHHHH_`` is the character U+HHHH (``_x005F_`` a literal underscore),
    as Excel and LibreOffice write characters XML cannot carry and text that looks like an escape."""
    if "_x" not in text:
        return text
    return _ESCAPED.sub(lambda m: chr(int(m.group(1), 16)), text)


def relationships(z: SafeZip, part: str) -> dict[str, tuple[str, str, str]]:
    """rId -> (type, target part, target mode) for a part's relationships."""
    folder, name = posixpath.split(part)
    rels_name = posixpath.join(folder, "_rels", name + ".rels")
    if z.find(rels_name) is None:
        return {}
    root = parse_tree(z.read(rels_name), rels_name, z.limits)
    out = {}
    for rel in root.iter(f"{{{_REL}}}Relationship"):
        target, mode = rel.get("Target", ""), rel.get("TargetMode", "")
        if mode != "External":
            target = target.lstrip("/") if target.startswith("/") else posixpath.normpath(posixpath.join(folder, target))
        out[rel.get("Id", "")] = (rel.get("Type", ""), target, mode)
    return out


def main_part(z: SafeZip, default: str) -> str:
    for kind, target, _ in relationships(z, "").values():
        if kind.endswith("/officeDocument"):
            return target
    return default


class Workbook:
    """The parts of a workbook the checker needs, read once."""

    def __init__(self, z: SafeZip):
        self.z = z
        self.part = main_part(z, "xl/workbook.xml")
        if z.find(self.part) is None:
            raise NotInspectable(f"{z.label + ': ' if z.label else ''}not a workbook: no {self.part}")
        root = parse_tree(z.read(self.part), self.part, z.limits)
        if root.tag.rpartition("}")[2] != "workbook":
            raise NotInspectable(f"{z.label + ': ' if z.label else ''}not a workbook: its main part {self.part!r} is "
                                 f"a {root.tag.rpartition('}')[2]!r}")
        ns = root.tag[1:].split("}")[0] if root.tag.startswith("{") else ""
        q = (lambda t: f"{{{ns}}}{t}") if ns else (lambda t: t)
        pr = root.find(q("workbookPr"))
        self.date1904 = pr is not None and pr.get("date1904") in ("1", "true")
        rels = relationships(z, self.part)
        self.sheets: list[tuple[str, str, str]] = []  # (name, state, part)
        sheets = root.find(q("sheets"))
        for s in (sheets if sheets is not None else ()):
            rel = rels.get(s.get(f"{{{_R}}}id", ""))
            if rel and rel[0].endswith(_TYPE_SHEET) and z.find(rel[1]):
                self.sheets.append((s.get("name", "?"), s.get("state", "visible"), rel[1]))
        self._rels = rels
        self._strings: list[str] | None = None
        self._formats: list[str] | None = None
        self._custom = 0

    def _target(self, suffix: str) -> str | None:
        for kind, target, _ in self._rels.values():
            if kind.endswith(suffix) and self.z.find(target):
                return target
        return None

    @property
    def strings(self) -> list[str]:
        if self._strings is None:
            part = self._target(_TYPE_SST)
            self._strings = _shared_strings(self.z, part) if part else []
        return self._strings

    @property
    def formats(self) -> list[str]:
        """Cell style index -> number format code."""
        if self._formats is None:
            part = self._target(_TYPE_STYLES)
            self._formats, self._custom = _cell_formats(self.z, part) if part else ([], 0)
        return self._formats

    @property
    def custom_formats(self) -> int:
        """How many custom number formats the workbook defines (distinct ids from 164 up)."""
        self.formats
        return self._custom

    def sheet(self, name: str) -> str | None:
        return next((part for n, _, part in self.sheets if n == name), None)


# -- shared strings and styles ----------------------------------------------------------------------

def _shared_strings(z: SafeZip, part: str) -> list[str]:
    return [text for _, text in _element_texts(z, part, "si", ("t",))]


def _element_texts(z: SafeZip, part: str, element: str, text_tags: tuple[str, ...],
                   key: str = "") -> list[tuple[str, str]]:
    """Each ``element`` of a part, streamed: its attribute ``key`` and the text a reader sees in it
    (its ``text_tags``, phonetic runs left out)."""
    out: list[tuple[str, str]] = []
    buf: list[str] = []
    st = {"key": None, "in_t": False, "rph": 0}

    def start(tag, attrs):
        t = local(tag)
        if t == element:
            st["key"] = attrs.get(key, "") if key else ""
            buf.clear()
        elif t in text_tags and st["key"] is not None:
            st["in_t"] = not st["rph"]
        elif t == "rPh":
            st["rph"] += 1

    def end(tag):
        t = local(tag)
        if t in text_tags:
            st["in_t"] = False
        elif t == "rPh":
            st["rph"] -= 1
        elif t == element:
            out.append((st["key"], unescape("".join(buf))))
            st["key"] = None

    def data(text):
        if st["in_t"]:
            buf.append(text)

    with z.open(part) as f:
        stream_xml(f, part, start, end, data)
    return out


def _cell_formats(z: SafeZip, part: str) -> tuple[list[str], int]:
    custom: dict[int, str] = {}
    xfs: list[str] = []
    state = {"cellXfs": False}

    def start(tag, attrs):
        t = local(tag)
        if t == "numFmt":
            try:
                custom[int(attrs.get("numFmtId", "0"))] = attrs.get("formatCode", "General")
            except ValueError:
                pass
        elif t == "cellXfs":
            state["cellXfs"] = True
        elif t == "xf" and state["cellXfs"]:
            try:
                xfs.append(int(attrs.get("numFmtId", "0")))
            except ValueError:
                xfs.append(0)

    def end(tag):
        if local(tag) == "cellXfs":
            state["cellXfs"] = False

    with z.open(part) as f:
        stream_xml(f, part, start, end)
    return [custom.get(i) or builtin(i) for i in xfs], sum(1 for i in custom if i >= FIRST_CUSTOM_ID)


# -- cells -----------------------------------------------------------------------------------------

_COLS: dict[str, int] = {}


def column_index(letters: str) -> int:
    n = _COLS.get(letters)
    if n is None:
        n = 0
        for ch in letters:
            n = n * 26 + (ord(ch) - 64)
        _COLS[letters] = n
    return n


def column_letters(n: int) -> str:
    out = ""
    while n:
        n, rem = divmod(n - 1, 26)
        out = chr(65 + rem) + out
    return out


def _letters(ref: str) -> str:
    return ref.rstrip("0123456789").upper()


def stream_cells(wb: Workbook, part: str, on_row: Callable[[int, list], None],
                 on_unread: Callable[[int, int, str, str, str], None] | None = None) -> None:
    """Call ``on_row(row_number, [(column, text, value, coordinate), ...])`` for each row with a
    non-empty cell, in order; text is the cell as displayed, value the number a numeric cell holds.
    ``on_unread(row, column, coordinate, formula, number format)`` is called for each formula cell
    that carries no cached value (before its row's ``on_row``)."""
    z = wb.z
    strings_needed = [None]
    formats = wb.formats
    date1904 = wb.date1904
    row: list = []
    st = {"r": 0, "ref": "", "s": 0, "t": "n", "v": None, "in_v": False, "in_t": False, "rph": 0, "col": 0,
          "f": None, "in_f": False}
    buf: list[str] = []
    formula: list[str] = []

    def start(tag, attrs):
        t = tag if ":" not in tag else local(tag)
        if t == "c":
            st["ref"] = attrs.get("r", "")
            st["s"] = attrs.get("s")
            st["t"] = attrs.get("t", "n")
            st["v"] = None
            st["f"] = None
            buf.clear()
        elif t == "f":
            st["f"], st["in_f"] = True, True
            formula.clear()
        elif t == "v":
            st["in_v"] = True
            buf.clear()
        elif t == "t":
            st["in_t"] = not st["rph"]
        elif t == "rPh":
            st["rph"] += 1
        elif t == "row":
            try:
                st["r"] = int(attrs.get("r") or st["r"] + 1)
            except ValueError:
                st["r"] += 1
            st["col"] = 0
            row.clear()

    def end(tag):
        t = tag if ":" not in tag else local(tag)
        if t == "v":
            st["in_v"] = False
            st["v"] = "".join(buf)
        elif t == "f":
            st["in_f"] = False
        elif t == "t":
            st["in_t"] = False
        elif t == "rPh":
            st["rph"] -= 1
        elif t == "c":
            ref = st["ref"]
            if ref:
                col = column_index(_letters(ref))
            else:
                col = st["col"] + 1
                ref = f"{column_letters(col)}{st['r']}"
            st["col"] = col
            kind, raw = st["t"], st["v"]
            text, value = "", None
            if kind == "inlineStr":
                text = unescape("".join(buf))
            elif raw is None or (raw == "" and kind == "n"):  # openpyxl writes a formula with an empty <v>
                if st["f"] and on_unread is not None:
                    code = "General"
                    try:
                        code = formats[int(st["s"])] if st["s"] else code
                    except (ValueError, IndexError):
                        pass
                    on_unread(st["r"], col, ref, unescape("".join(formula)), code)
            elif kind == "s":
                if strings_needed[0] is None:
                    strings_needed[0] = wb.strings
                try:
                    text = strings_needed[0][int(raw)]
                except (ValueError, IndexError):
                    text = ""
            elif kind in ("str", "e", "d"):
                text = unescape(raw)
            elif kind == "b":
                text = "TRUE" if raw.strip() in ("1", "true") else "FALSE"
            else:
                try:
                    value = float(raw)
                except ValueError:
                    text = raw
                else:
                    s = st["s"]
                    code = "General"
                    if s:
                        try:
                            code = formats[int(s)]
                        except (ValueError, IndexError):
                            pass
                    text = format_number(value, code, date1904)
            if text:
                row.append((col, text, value, ref))
        elif t == "row":
            if row:
                on_row(st["r"], list(row))
            row.clear()

    def data(text):
        if st["in_v"] or st["in_t"]:
            buf.append(text)
        elif st["in_f"]:
            formula.append(text)

    with z.open(part) as f:
        stream_xml(f, part, start, end, data)


def comments(wb: Workbook, sheet_part: str) -> list[tuple[str, str]]:
    """(coordinate, text) of each legacy note and threaded comment of a sheet."""
    z = wb.z
    out: list[tuple[str, str]] = []
    for kind, target, mode in relationships(z, sheet_part).values():
        if mode == "External" or not z.find(target):
            continue
        if kind.endswith(_TYPE_COMMENTS):
            out += _element_texts(z, target, "comment", ("t", "text"), key="ref")
        elif kind.endswith(_TYPE_THREADED):
            out += _element_texts(z, target, "threadedComment", ("t", "text"), key="ref")
    return out


# -- the reader ------------------------------------------------------------------------------------

def _report_unread(unread, cells, units: dict[int, str], sink, scope: str, quoted: str, key_prefix: str) -> None:
    """Formula cells without a cached value where a reader would see a throughput figure: under a
    throughput heading, right of a throughput label, with a unit in their number format or their
    formula's text."""
    row = sorted([(c[0], c[1]) for c in cells] + [(u[1], "") for u in unread])
    labelled = dict(zip((c for c, _ in row), row_units([t or "0" for _, t in row])))
    for _r, col, ref, formula, code in unread:
        shown = format_number(1234.5, code)
        why = (f"under a throughput heading ({units[col]!r})" if units.get(col) else
               "right of a throughput label" if labelled.get(col) else
               f"its number format shows {shown!r}" if find_figures(shown) else
               "its formula writes a throughput unit" if find_figures("1 " + _literals(formula)) else "")
        if why:
            sink.unread(key_prefix + quoted + ref, f"{scope}!{ref}", f"could not read the value: a formula "
                        f"(={formula[:80]}) saved without its calculated result, {why}; what a reader sees depends on "
                        "the application that opens the file. Recalculate and save it, then check it again.")


def _literals(formula: str) -> str:
    """The string literals of a formula ('=B2&" tok/s"' -> ' tok/s')."""
    return " ".join(re.findall(r'"([^"]*)"', formula))


def sheet_column_text(z: SafeZip, sheet_name: str) -> str | None:
    """Column A of a sheet, cells concatenated in row order (how the manifest sheet is stored);
    None when the workbook has no such sheet."""
    wb = Workbook(z)
    part = wb.sheet(sheet_name)
    if part is None:
        return None
    chunks: list[str] = []

    def on_row(_r, cells):
        for col, text, value, _ref in cells:
            if col == 1:
                chunks.append(text)

    stream_cells(wb, part, on_row)
    return "".join(chunks)


def read(z: SafeZip, sink, *, scope_prefix: str = "", key_prefix: str = "", own_scopes: bool = True) -> None:
    """Feed every sheet's cells and comments to ``sink``. A workbook embedded in a chart is read
    into the chart's slide scope (``own_scopes=False``), its locations prefixed."""
    wb = Workbook(z)
    if wb.custom_formats > CUSTOM_FORMAT_BUDGET:
        where = f"{scope_prefix}workbook" if scope_prefix else "workbook"
        sink.document("number-format-budget", f"{where} styles", f"the workbook defines {wb.custom_formats:,} custom "
                      f"number formats, more than the {CUSTOM_FORMAT_BUDGET} every application opens: Excel refuses "
                      "the file, and LibreOffice shows cells past its 9,856th format without their format (a figure "
                      "whose unit, band and mark are in its format then reads as a bare number).")
    for name, state, part in wb.sheets:
        if name == MANIFEST_SHEET and state in ("hidden", "veryHidden"):
            continue  # exportguard's manifest: data for the checker, not text a reader sees
        hidden = "" if state == "visible" else f" ({state} sheet)"
        scope = f"{scope_prefix}Sheet '{name}'"
        if own_scopes:
            sink.scope(scope + hidden)
        _read_sheet(wb, name, part, sink, scope, key_prefix)


def _read_sheet(wb: Workbook, name: str, part: str, sink, scope: str, key_prefix: str) -> None:
    quoted = sheet_location(name, "")
    units: dict[int, str] = {}
    last = [0]
    unread: list[tuple[int, int, str, str, str]] = []

    header_row: list[int] = []  # the columns of the header row that named units, while the next row may extend it
    heads: dict[int, str] = {}  # column -> the text of the last row of text over it: what its cells stand under

    def on_row(r: int, cells: list) -> None:
        if r > last[0] + 1:
            units.clear()  # an empty row ends a table
            header_row.clear()
            heads.clear()
        last[0] = r
        found = {}
        text_only = all(c[2] is None for c in cells)
        if text_only:  # a row of text only may be a header row
            for col, text, _value, _ref in cells:
                unit = header_unit(text)
                if unit:
                    found[col] = unit
            if len(cells) > 1 and not any(c[1].strip()[:1].isdigit() for c in cells):  # not a row of numbers as text
                heads.clear()
                heads.update((col, text) for col, text, _value, _ref in cells)
        if found:
            units.clear()
            units.update(found)
            header_row[:] = [c[0] for c in cells]
        elif text_only and header_row:  # a second header row under a merged one: 'Throughput (tok/s)' over
            for col, *_ in cells:       # 'Offline' and 'Server' gives both its unit
                left = [h for h in header_row if h <= col]
                if col not in units and left and left[-1] in units:
                    units[col] = units[left[-1]]
            header_row.clear()
        else:
            header_row.clear()
        labelled = row_units([c[1] for c in cells]) if not found and len(cells) > 1 else ()
        for k, (col, text, value, ref) in enumerate(cells):
            unit = "" if found else units.get(col, "") or (labelled[k] if labelled else "")
            sink.item(key_prefix + quoted + ref, f"{scope}!{ref}", text, value, block=key_prefix + ref,
                      unit=unit, kind="cell", about=heads.get(col, ""))
        if unread:
            _report_unread(unread, cells, units, sink, scope, quoted, key_prefix)
            unread.clear()

    def on_unread(r: int, col: int, ref: str, formula: str, code: str) -> None:
        if unread and unread[-1][0] != r:  # the row before held uncalculated formulas only (no on_row for it)
            _report_unread(unread, [], units, sink, scope, quoted, key_prefix)
            unread.clear()
        if r > last[0] + 1:
            units.clear()
            header_row.clear()
            heads.clear()
        last[0] = r  # a row of formulas is a row of its table: the table goes on under its heading
        unread.append((r, col, ref, formula, code))

    stream_cells(wb, part, on_row, on_unread)
    if unread:  # a row of uncalculated formulas only
        last[0] = unread[0][0]
        _report_unread(unread, [], units, sink, scope, quoted, key_prefix)
    for ref, text in comments(wb, part):
        if text.strip():
            sink.item(f"{key_prefix}{quoted}{ref} (comment)", f"{scope}!{ref} (comment)", text, None,
                      block=key_prefix + ref, kind="comment")
