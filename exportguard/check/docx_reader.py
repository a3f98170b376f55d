"""Word (.docx, .docm): every text a person sees in the document, read from the package through the
safe-open layer.

A Word file flows: Word lays it out into pages only when it opens it, and every reader's Word lays it
out a little differently. So the whole file is one scope (``document``), and a location names what
stays put: the body's own paragraphs and tables.

What is read, in this order (the evaluator resolves a mark in its block first, then by this order):

- the body, paragraph by paragraph and table by table. In a paragraph: its runs, hyperlinks,
  insertions (not deletions, nor the source of a move), smart tags, inline content controls, custom
  XML, simple fields and the results of complex fields (between ``separate`` and ``end``; never a
  field code), math text; a tab as a tab, a line or carriage break as a new line; hidden text
  (``w:vanish``) too, as hidden slides and sheets are read. A table cell by cell: the first row is
  the header, and a column whose header names a throughput unit makes its numbers figures; so does
  a row's first cell when it names one (detect.header_unit, detect.row_units, as in a deck's table);
- after each paragraph or cell, what is anchored in it: the alternative text (title and
  description) of each picture, chart or shape (w:drawing; a VML picture's ``alt``), its text boxes
  (DrawingML or VML; of an mc:AlternateContent only the Choice, else the Fallback, never both, as
  they hold the same text), and a native chart's title, axis titles, series names, data labels and
  data (read as a deck's chart is: check/pptx_reader.py); then the footnotes and endnotes it
  references (below);
- headers and footers, those the sections reference first (in section order), then any other
  header or footer part related from the document;
- comments (not seen on the page, like a cell's comment);
- footnotes and endnotes that nothing references (so that nothing in the file goes unread).

Not read: text in images, SmartArt, embedded OLE objects other than a chart's workbook, imported
content (w:altChunk), the glossary document (building blocks not placed in the text).

Counting (locations, docs/check.md):
- ``paragraph N``: the body's own paragraphs, from 1, in body order; paragraphs in tables, text
  boxes, headers and notes not counted. A block-level content control (w:sdt) or custom XML element
  around paragraphs and tables is transparent: its paragraphs and tables count as the body's own, in
  body order, as a reader counts them on the page (exportguard writes none, so its locations are
  unaffected). Empty paragraphs count too; only those with text are items.
- ``table T, row R, column C``: the body's own tables from 1 in body order (the same content-control
  rule); rows and grid columns from 1, the header row included; a cell spanning columns
  (``gridSpan``) stands at its first column and the next cell after its last; a row's ``gridBefore``
  shifts its first cell; a vertically merged cell's continuation (``vMerge`` without
  ``restart``) is not read again. A table nested in a cell: ``table 2, row 3, column 1, table 1,
  row 2, column 2`` (nested tables counted from 1 within their cell), in the outer table's block.
- ``picture K (alt text)``: every drawing and VML picture, from 1 in reading order (body first,
  then headers and footers); ``text box N`` likewise for text boxes; ``chart K, ...`` for native
  charts. What is anchored in a header, footer or note says so:
  ``header 1, picture 4 (alt text)``.
- ``header N``, ``footer N``: the whole part as one text; ``comment N`` from 1 in file order;
  ``footnote I`` and ``endnote I`` by the note's own ``w:id``.

Footnotes and endnotes, the binding rule. A figure's note must read as a note in the text a person
copies, so each reference becomes a bracketed mark in the text that holds it:
- a custom mark (``w:customMarkFollows``) that is ``[letters]``; or one that shows nothing (a hair
  space) after text that holds the ``[letters]`` its note opens with, or that ends with ``[letters]``
  (exportguard writes ``101,527 tok/s ±5.4% [a]`` or ``... [a][b] derived`` and then such a reference
  to the note ``[a] ...``): the mark is already in the text; nothing is inserted, and a mark that
  shows nothing adds nothing;
- any other reference (numbered, as Word writes them by default, or a custom mark such as ``*``):
  `` [fn<letters>]`` is inserted at the reference (``[fna]``, ``[fnb]``: wording.mark_name of the
  number of such notes met before, footnotes and endnotes together, in reading order), so the
  detector sees a mark and never the note's number pasted onto the figure (``5.4%1``).
Right after the item that holds references (and what is anchored in it), each referenced note is an
item of its own in the same block (a paragraph's, or the whole table's), its paragraphs joined by
new lines and opening with its mark (prefixed unless the note already opens with it): the
evaluator resolves the mark there, inside that table or paragraph. Word's separator notes are not
read.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import islice

from ..detect import MARK, header_unit, row_units
from ..embedding import DOCX_FOOTNOTE_MARK
from ..figure_forms import HIDDEN
from ..wording import mark_name
from .evaluate import DOCUMENT, stands_under
from .pptx_reader import MC, _Slide
from .safety import NotInspectable, SafeZip, parse_tree
from .xlsx_reader import main_part, relationships

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
WP = "{http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
C = "{http://schemas.openxmlformats.org/drawingml/2006/chart}"
R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
M = "{http://schemas.openxmlformats.org/officeDocument/2006/math}"
V = "{urn:schemas-microsoft-com:vml}"
_STRICT = "{http://purl.oclc.org/ooxml/wordprocessingml/main}"
_CHART_URI = "http://schemas.openxmlformats.org/drawingml/2006/chart"

# Inline elements whose content a reader does not see: properties, deletions, the source of a move,
# field codes. Everything else is a container to read through (hyperlinks, insertions, smart tags,
# content controls, custom XML, simple fields, bidi overrides, math), so an unknown wrapper hides nothing.
_NOT_SHOWN = frozenset(W + t for t in (
    "pPr", "rPr", "sdtPr", "sdtEndPr", "customXmlPr", "smartTagPr", "del", "moveFrom", "instrText",
    "delText", "delInstrText", "tblPr", "tblGrid", "trPr", "tcPr", "sectPr", "fldData")) | {M + "rPr", M + "ctrlPr"}
_TRUE = ("1", "true", "on")
_NOTE_KINDS = ("footnote", "endnote")
_SEPARATORS = ("separator", "continuationSeparator", "continuationNotice")  # Word's own rules, not notes
_CUSTOM_MARK = re.compile(r"[ \t\u00a0\u200a]?\[(" + MARK + r")\]")  # what follows a custom mark reference
_MARK_BEFORE = re.compile(r"\[(" + MARK + r")\]\s*$")  # ...or what ends the text before it
_NOTE_OPENS = re.compile(r"\[(" + MARK + r")\]")  # the mark a note's text opens with
_HEADING = re.compile(r"(?i)heading|title")


@dataclass
class _Ref:
    """A footnote or endnote reference met in a run."""
    kind: str  # "footnote" or "endnote"
    id: str
    custom: bool  # w:customMarkFollows: the mark is the text that follows
    tail: str = ""  # a custom mark's own text: the rest of its run, as Word writes it


@dataclass
class _Shown:
    """What a paragraph (or a story of them) shows: its text with marks, the notes it references as
    (kind, id, mark), and what is anchored in it (drawings, VML pictures) to read after it."""
    text: str
    refs: list = field(default_factory=list)
    objects: list = field(default_factory=list)


class _Charts(_Slide):
    """A deck's chart reading (check/pptx_reader.py) for a native chart in a Word part: its items
    name no slide. ``at`` (used for its blocks and embedded workbook) is ``body`` or ``header 1``."""

    def __init__(self, z: SafeZip, sink, part: str, at: str, prefix: str):
        super().__init__(z, sink, 0, part)
        self.at, self.prefix = at, prefix

    def emit(self, label: str, text: str, block: str = "", detail: str = "", **kw) -> None:
        if text.strip():
            key = self.prefix + label
            self.sink.item(key, key + (f" ({detail})" if detail else ""), text, block=block or key, **kw)


class _Document:
    def __init__(self, z: SafeZip, sink, part: str):
        self.z, self.sink, self.main = z, sink, part
        self.rels = relationships(z, part)
        self.paragraphs = self.tables = self.pictures = self.boxes = self.charts = 0
        self.marks: dict[tuple[str, str], str] = {}  # (kind, id) -> the mark its references read as
        self.synthesized = 0  # notes given a [fn..] mark so far
        self.notes: dict[str, dict] = {}  # kind -> {id: w:footnote element}, read when first needed
        self.read_notes: set[tuple[str, str]] = set()
        self.emitted: set[tuple[str, str, str]] = set()  # (kind, id, block): a note once per block
        self.heading = ""  # the last heading above: what the body's texts stand under ('API pricing')
        self.part, self.at = part, "body"  # the part being read (its charts' relationships) and its name
        self._charts: dict[tuple[str, str], _Charts] = {}
        self.note_parts: dict[str, str] = {}  # kind -> its part

    def emit(self, key: str, text: str, block: str, kind: str = "text", **kw) -> None:
        if text.strip():
            self.sink.item(key, key, text, block=block, kind=kind, **kw)

    # -- what a paragraph shows ------------------------------------------------------------------
    def shown(self, p) -> _Shown:
        parts: list = []
        objects: list = []
        self._inline(p, parts, objects, [])
        return self._marked(parts, objects)

    def _inline(self, el, parts: list, objects: list, fields: list) -> None:
        for child in el:
            tag = child.tag
            if tag in _NOT_SHOWN:
                continue
            if tag in (W + "r", M + "r"):
                self._run(child, parts, objects, fields)
            elif tag == MC + "AlternateContent":
                chosen = _chosen(child)
                if chosen is not None:
                    self._inline(chosen, parts, objects, fields)
            else:
                self._inline(child, parts, objects, fields)

    def _run(self, r, parts: list, objects: list, fields: list) -> None:
        """A run's content. ``fields`` is the paragraph's stack of complex fields, True for one
        showing its result: text inside any field's instructions (a nested field's result) is not shown."""
        custom = None  # a custom mark reference met in this run: the run's text after it is the mark's
        for child in r:
            tag = child.tag
            if tag == W + "fldChar":
                kind = child.get(W + "fldCharType")
                if kind == "begin":
                    fields.append(False)
                elif kind == "separate" and fields:
                    fields[-1] = True
                elif kind == "end" and fields:
                    fields.pop()
            elif not all(fields):
                continue
            elif tag in (W + "t", M + "t"):
                if custom is not None:
                    custom.tail += child.text or ""
                else:
                    parts.append(child.text or "")
            elif tag in (W + "tab", W + "ptab"):
                parts.append("\t")
            elif tag in (W + "br", W + "cr"):
                parts.append("\n")
            elif tag == W + "noBreakHyphen":
                parts.append("-")
            elif tag in (W + "footnoteReference", W + "endnoteReference"):
                kind = "footnote" if tag == W + "footnoteReference" else "endnote"
                ref = _Ref(kind, child.get(W + "id", ""), child.get(W + "customMarkFollows", "") in _TRUE)
                parts.append(ref)
                custom = ref if ref.custom else None
            elif tag in (W + "drawing", W + "pict", W + "object"):
                objects.append(child)
            elif tag == MC + "AlternateContent":
                chosen = _chosen(child)
                if chosen is not None:
                    self._run(chosen, parts, objects, fields)
            elif tag == W + "ruby":  # the base text is the line's text; the guide above it is not
                base = child.find(W + "rubyBase")
                if base is not None:
                    self._inline(base, parts, objects, fields)

    def _marked(self, parts: list, objects: list) -> _Shown:
        """The text with each note reference read as a mark (the binding rule, module docstring)."""
        out: list[str] = []
        refs = []
        for i, part in enumerate(parts):
            if isinstance(part, str):
                out.append(part)
                continue
            key = (part.kind, part.id)
            tail = "" if _blank(part.tail) else part.tail  # a custom mark that shows nothing adds nothing
            mark = self._custom_mark(part, tail + _following(parts, i), out) if part.custom else None
            if mark:
                self.marks.setdefault(key, mark)
            else:
                mark = self.marks.get(key) or self._synthesize(key)
                before = _preceding(out, 1)
                out.append(f"[{mark}]" if not before or before.isspace() else f" [{mark}]")
            out.append(tail)
            refs.append((part.kind, part.id, mark))
        return _Shown("".join(out), refs, objects)

    def _custom_mark(self, ref: _Ref, following: str, before: list[str]) -> str | None:
        """The letters of a custom mark reference's bracketed mark: the mark that follows it (its own
        text, or the run after), or, when the reference itself shows nothing, the mark its note opens
        with if the text before it holds that mark (``101,527 tok/s ±5.4% [a][b] derived`` and then
        the reference to a note ``[a] ...``), else the mark that ends the text right before it; None
        when none is a bracketed mark (``*``), which gets a mark of its own."""
        after = _CUSTOM_MARK.match(following)
        if after:
            return after.group(1)
        if ref.tail and not _blank(ref.tail):
            return None
        opening = self._note_mark(ref.kind, ref.id)
        if opening and f"[{opening}]" in "".join(before):
            return opening
        last = _MARK_BEFORE.search(_preceding(before))
        return last.group(1) if last else None

    def _note_mark(self, kind: str, nid: str) -> str | None:
        """The bracketed mark a note's text opens with ('[a] Result 5.1-0065, ...'), or None."""
        note = self._notes(kind).get(nid)
        if note is None:
            return None
        opening = "".join(t.text or "" for t in islice(note.iter(W + "t"), 4)).lstrip()
        found = _NOTE_OPENS.match(opening)
        return found.group(1) if found else None

    def _synthesize(self, key: tuple[str, str]) -> str:
        mark = DOCX_FOOTNOTE_MARK + mark_name(self.synthesized)
        self.synthesized += 1
        self.marks[key] = mark
        return mark

    def story(self, container) -> _Shown:
        """All a container's paragraphs and tables as one text (a header, a note, a comment, a text
        box): a table a row a line, its cells apart by tabs."""
        texts, refs, objects = [], [], []
        for el in _blocks(container):
            got = self.shown(el) if el.tag == W + "p" else self._table_text(el)
            texts.append(got.text)
            refs += got.refs
            objects += got.objects
        return _Shown("\n".join(texts), refs, objects)

    def _table_text(self, tbl) -> _Shown:
        lines, refs, objects = [], [], []
        for tr in _rows(tbl):
            cells = []
            for tc in _cells(tr):
                if _continues(tc):
                    continue
                got = self.story(tc)
                cells.append(got.text.replace("\n", " "))
                refs += got.refs
                objects += got.objects
            lines.append("\t".join(cells))
        return _Shown("\n".join(lines), refs, objects)

    # -- the body --------------------------------------------------------------------------------
    def body(self, body) -> None:
        for el in _blocks(body):
            if el.tag == W + "p":
                self.paragraphs += 1
                self.paragraph(el, f"paragraph {self.paragraphs}")
            else:
                self.tables += 1
                self.table(el, f"table {self.tables}", f"table {self.tables}")

    def paragraph(self, p, key: str) -> None:
        got = self.shown(p)
        heading = _is_heading(p)
        self.emit(key, got.text, key, about="" if heading else self.heading)
        if heading and got.text.strip():
            self.heading = " ".join(got.text.split())[:200]
        self.after(got, key)

    def after(self, got: _Shown, block: str, prefix: str = "") -> None:
        """What is anchored in an item, then the notes it references, in the item's block."""
        for obj in got.objects:
            if obj.tag == W + "drawing":
                self.drawing(obj, block, prefix)
            else:
                self.vml(obj, block, prefix)
        self.notes_of(got.refs, block)

    def table(self, tbl, label: str, block: str) -> None:
        units: dict[int, str] = {}
        heads: dict[int, str] = {}  # column -> its heading's text
        for r, tr in enumerate(_rows(tbl), 1):
            column = _grid_before(tr)
            cells = []  # (column, key, what it shows, the cell)
            for tc in _cells(tr):
                col = column + 1
                column += _span(tc)
                if not _continues(tc):
                    key = f"{label}, row {r}, column {col}"
                    cells.append((col, key, self._cell_text(tc), tc))
            labelled = row_units([got.text for _, _, got, _ in cells]) if r > 1 else []
            for k, (col, key, got, tc) in enumerate(cells):
                if r == 1:
                    heads[col] = got.text
                    unit = header_unit(" ".join(got.text.split()))
                    if unit:
                        units[col] = unit
                    self.emit(key, got.text, block, kind="header")
                else:
                    self.emit(key, got.text, block, kind="cell", unit=units.get(col) or labelled[k],
                              about=stands_under(heads.get(col, ""), self.heading))
                self.after(got, block)
                for n, inner in enumerate(_nested_tables(tc), 1):
                    self.table(inner, f"{key}, table {n}", block)

    def _cell_text(self, tc) -> _Shown:
        """A cell's own paragraphs (a table nested in it is read as a table of its own)."""
        texts, refs, objects = [], [], []
        for el in _blocks(tc):
            if el.tag == W + "p":
                got = self.shown(el)
                texts.append(got.text)
                refs += got.refs
                objects += got.objects
        return _Shown("\n".join(texts).strip("\n"), refs, objects)

    # -- what is anchored in a paragraph ---------------------------------------------------------
    def drawing(self, drawing, block: str, prefix: str) -> None:
        self.pictures += 1
        doc_pr = next(drawing.iter(WP + "docPr"), None)
        if doc_pr is not None:
            self.emit(f"{prefix}picture {self.pictures} (alt text)",
                      _alt(doc_pr.get("title", ""), doc_pr.get("descr", "")), block, kind="alt-text")
        for el in _shown_tree(drawing):
            if el.tag == W + "txbxContent":
                self.text_box(el, block, prefix)
            elif el.tag == A + "graphicData" and el.get("uri") == _CHART_URI:
                ref = el.find(C + "chart")
                if ref is not None:
                    self.charts += 1
                    self._charter(prefix).chart(ref.get(R + "id", ""), self.charts, prefix)

    def vml(self, pict, block: str, prefix: str) -> None:
        """A VML picture or shape (w:pict, w:object): its alt text and text boxes."""
        self.pictures += 1
        shape = next((el for el in _shown_tree(pict) if el.tag.startswith(V) and el.get("alt") is not None), None)
        if shape is not None:
            self.emit(f"{prefix}picture {self.pictures} (alt text)", _alt(shape.get("title", ""), shape.get("alt", "")),
                      block, kind="alt-text")
        for el in _shown_tree(pict):
            if el.tag == W + "txbxContent":
                self.text_box(el, block, prefix)

    def text_box(self, content, block: str, prefix: str) -> None:
        self.boxes += 1
        key = f"{prefix}text box {self.boxes}"
        got = self.story(content)
        self.emit(key, got.text, block)
        self.after(got, block, prefix)

    def _charter(self, prefix: str) -> _Charts:
        """The chart reader of the part being read (a chart's relationship is its part's)."""
        at = (self.part, prefix)
        if at not in self._charts:
            self._charts[at] = _Charts(self.z, self.sink, self.part, self.at, prefix)
        return self._charts[at]

    # -- notes -------------------------------------------------------------------------------------
    def notes_of(self, refs: list, block: str) -> None:
        for kind, nid, mark in refs:
            if (kind, nid, block) in self.emitted:
                continue
            self.emitted.add((kind, nid, block))
            self.read_notes.add((kind, nid))
            note = self._notes(kind).get(nid)
            if note is not None:
                self.note(kind, nid, note, block, mark)

    def note(self, kind: str, nid: str, note, block: str, mark: str = "") -> None:
        """A note as an item: its text, opening with its mark (unless it already does)."""
        key = f"{kind} {nid}"
        outer = self.part, self.at
        self.part, self.at = self.note_parts.get(kind, self.main), key
        got = self.story(note)
        text = got.text.strip()
        if mark and not text.startswith(f"[{mark}]"):
            text = f"[{mark}] {text}"
        if got.text.strip():
            self.emit(key, text, block)
        self.after(got, block, f"{key}, ")
        self.part, self.at = outer

    def _notes(self, kind: str) -> dict:
        """id -> note element of the document's footnotes or endnotes part (separators left out)."""
        if kind not in self.notes:
            found: dict = {}
            part = self._related(f"/{kind}s")
            if part is not None:
                self.note_parts[kind] = part
                root = parse_tree(self.z.read(part), part, self.z.limits)
                for note in root.findall(W + kind):
                    if note.get(W + "type", "normal") not in _SEPARATORS:
                        found.setdefault(note.get(W + "id", ""), note)
            self.notes[kind] = found
        return self.notes[kind]

    def unreferenced_notes(self) -> None:
        for kind in _NOTE_KINDS:
            for nid, note in self._notes(kind).items():
                if (kind, nid) not in self.read_notes:
                    self.read_notes.add((kind, nid))
                    self.note(kind, nid, note, f"{kind} {nid}")

    # -- the rest of the package -------------------------------------------------------------------
    def _related(self, suffix: str) -> str | None:
        return next((t for k, t, mode in self.rels.values() if k.endswith(suffix) and mode != "External"
                     and self.z.find(t)), None)

    def headers_and_footers(self, root) -> None:
        parts: list[tuple[str, str]] = []  # (header or footer, part), the sections' own first
        for el in root.iter():
            if el.tag in (W + "headerReference", W + "footerReference"):
                rel = self.rels.get(el.get(R + "id", ""))
                if rel and rel[2] != "External" and self.z.find(rel[1]):
                    parts.append((el.tag[len(W):-len("Reference")], rel[1]))
        for kind, target, mode in self.rels.values():
            for word in ("header", "footer"):
                if kind.endswith("/" + word) and mode != "External" and self.z.find(target):
                    parts.append((word, target))
        counts = {"header": 0, "footer": 0}
        seen: set[str] = set()
        for word, part in parts:
            if part in seen:
                continue
            seen.add(part)
            counts[word] += 1
            self.story_part(part, f"{word} {counts[word]}")

    def story_part(self, part: str, key: str) -> None:
        """A header or footer: one item, and what is anchored in it."""
        root = parse_tree(self.z.read(part), part, self.z.limits)
        outer = self.part, self.at
        self.part, self.at = part, key
        got = self.story(root)
        self.emit(key, got.text, key)
        self.after(got, key, f"{key}, ")
        self.part, self.at = outer

    def comments(self) -> None:
        part = self._related("/comments")
        if part is None:
            return
        root = parse_tree(self.z.read(part), part, self.z.limits)
        for n, comment in enumerate(root.findall(W + "comment"), 1):
            key = f"comment {n}"
            self.emit(key, self.story(comment).text.strip("\n"), key, kind="comment")


# -- the structure of a story ----------------------------------------------------------------------

def _chosen(alternate):
    """An mc:AlternateContent's Choice, else its Fallback: never both (they show the same thing)."""
    choice = alternate.find(MC + "Choice")
    return choice if choice is not None else alternate.find(MC + "Fallback")


def _blocks(container):
    """The paragraphs and tables of a story in order; a block-level content control, custom XML
    element or alternate content around them is transparent."""
    for el in container:
        if el.tag in (W + "p", W + "tbl"):
            yield el
        elif el.tag == W + "sdt":
            content = el.find(W + "sdtContent")
            if content is not None:
                yield from _blocks(content)
        elif el.tag == W + "customXml":
            yield from _blocks(el)
        elif el.tag == MC + "AlternateContent":
            chosen = _chosen(el)
            if chosen is not None:
                yield from _blocks(chosen)


def _rows(tbl):
    yield from _wrapped(tbl, W + "tr")


def _cells(tr):
    yield from _wrapped(tr, W + "tc")


def _wrapped(parent, tag: str):
    """Children of ``tag``, also inside the content controls and custom XML that may wrap rows and cells."""
    for el in parent:
        if el.tag == tag:
            yield el
        elif el.tag == W + "sdt":
            content = el.find(W + "sdtContent")
            if content is not None:
                yield from _wrapped(content, tag)
        elif el.tag == W + "customXml":
            yield from _wrapped(el, tag)


def _nested_tables(tc):
    return [el for el in _blocks(tc) if el.tag == W + "tbl"]


def _number(el, default: int) -> int:
    """A w:val count (gridSpan, gridBefore); a damaged or absurd value reads as the default."""
    if el is None:
        return default
    value = el.get(W + "val", "")
    return int(value) if value.isdigit() and 0 < int(value) <= 1000 else default


def _span(tc) -> int:
    return _number(tc.find(f"{W}tcPr/{W}gridSpan"), 1)


def _grid_before(tr) -> int:
    return _number(tr.find(f"{W}trPr/{W}gridBefore"), 0)


def _continues(tc) -> bool:
    """A merged cell's continuation: what it shows is its first cell's."""
    pr = tc.find(W + "tcPr")
    if pr is None:
        return False
    v, h = pr.find(W + "vMerge"), pr.find(W + "hMerge")
    return any(m is not None and m.get(W + "val", "continue") != "restart" for m in (v, h))


def _is_heading(p) -> bool:
    pr = p.find(W + "pPr")
    if pr is None:
        return False
    style = pr.find(W + "pStyle")
    level = pr.find(W + "outlineLvl")  # level 9 is body text
    if level is not None and level.get(W + "val", "9") != "9":
        return True
    return style is not None and bool(_HEADING.match(style.get(W + "val", "")))


def _following(parts: list, i: int, n: int = 12) -> str:
    """Up to ``n`` characters of the text after ``parts[i]``."""
    got = ""
    for part in parts[i + 1:]:
        if isinstance(part, str):
            got += part
            if len(got) >= n:
                break
    return got[:n]


def _preceding(out: list[str], n: int = 12) -> str:
    """Up to ``n`` characters of the text read so far."""
    got = ""
    for part in reversed(out):
        got = part + got
        if len(got) >= n:
            break
    return got[-n:]


def _blank(text: str) -> bool:
    """Shows nothing: empty, spaces (a hair space) or characters of no width."""
    return not HIDDEN.sub("", text).strip()


def _shown_tree(el):
    """The descendants of a drawing or VML picture a reader sees: of an mc:AlternateContent only
    the chosen branch; a text box's content is yielded, not entered (it is read as a story)."""
    for child in el:
        if child.tag == MC + "AlternateContent":
            chosen = _chosen(child)
            if chosen is not None:
                yield from _shown_tree(chosen)
            continue
        yield child
        if child.tag != W + "txbxContent":
            yield from _shown_tree(child)


def _alt(title: str, description: str) -> str:
    """A picture's title and description as one text; a title the description opens with once."""
    if title.strip() and description.startswith(title):
        return description
    return "\n".join(t for t in (title, description) if t.strip())


def read(z: SafeZip, sink) -> None:
    part = main_part(z, "word/document.xml")
    if z.find(part) is None:
        raise NotInspectable(f"not a Word document: no {part}")
    root = parse_tree(z.read(part), part, z.limits)
    if root.tag == _STRICT + "document":
        raise NotInspectable("a Word document in Strict Open XML, which the checker does not read: save it as a "
                             "Word Document (.docx) and check that")
    if root.tag != W + "document":
        raise NotInspectable(f"not a Word document: its main part {part!r} is a {root.tag.rpartition('}')[2]!r}")
    sink.scope(DOCUMENT)
    doc = _Document(z, sink, part)
    body = root.find(W + "body")
    if body is not None:
        doc.body(body)
    doc.headers_and_footers(root)
    doc.comments()
    doc.unreferenced_notes()
