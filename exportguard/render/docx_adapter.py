"""python-docx, and the WordprocessingML it has no API for, behind one adapter (docs/docx.md).

python-docx opens the package (the default document or a template), keeps its styles, sections,
headers and footers, and saves it. The body is written here as WordprocessingML elements, built
in the schema's order: paragraphs and runs, native tables (a repeated header row, rows that do not
split), pictures with alt text, and what python-docx does not write at all:

- footnotes (word/footnotes.xml): each bound figure's run is followed by a footnote reference with a
  custom mark of one hair space (w:customMarkFollows, FOOTNOTE_MARK). The figure's own text already
  ends in its mark "[a]" (as in every format, so that a copy as plain text keeps it), and the
  footnote opens with the same "[a]"; the reference itself draws as nothing. Word shows a custom
  mark as written; LibreOffice 7.4 (tested) shows an imported "[a]" mark twice, numbers a reference
  whose mark is empty, and drops from a table every footnote after the first whose mark is a space
  or a no-break space: a hair space is what both draw as nothing more than the figure's own mark;
- PAGE and NUMPAGES fields in the footer;
- the manifest as a custom XML part and its digest in docProps/custom.xml (render/ooxml.py).

Every text reaches an element through escaping.word_text in the painter; nothing here escapes.
"""
from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from ..errors import ExportguardError
from .ooxml import (CT_CUSTOM_XML_PROPS, RT_CUSTOM_XML, RT_CUSTOM_XML_PROPS, as_document, custom_properties,
                    datastore_item, safe_parse, template_bytes)

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
RT_FOOTNOTES = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/footnotes"
RT_CUSTOM_PROPERTIES = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/custom-properties"
RT_THUMBNAIL = "http://schemas.openxmlformats.org/package/2006/relationships/metadata/thumbnail"
CT_FOOTNOTES = "application/vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml"
CT_CUSTOM_PROPERTIES = "application/vnd.openxmlformats-officedocument.custom-properties+xml"
MAX_TEMPLATE_BYTES = 64 << 20
TWIPS = 20  # a point in twentieths
FOOTNOTE_MARK = "\u200a"  # a hair space: a footnote reference's custom mark (see above)
# (name, kind, based on, size in points, bold, italic, superscript, space after in points): the styles the
# painter names, added where the document (a template) lacks them; a template's own are kept as they are
_STYLES = (
    ("Title", "paragraph", "Normal", 24, True, False, False, 4),
    ("Subtitle", "paragraph", "Normal", 10, False, False, False, 10),
    ("Heading 1", "paragraph", "Normal", 14, True, False, False, 4),
    ("Heading 2", "paragraph", "Normal", 12, True, False, False, 4),
    ("Caption", "paragraph", "Normal", 8.5, False, True, False, 4),
    ("Footnote Text", "paragraph", "Normal", 8, False, False, False, 0),
    ("Footnote Reference", "character", None, None, False, False, True, None),
    ("Header", "paragraph", "Normal", None, False, False, False, 0),
    ("Footer", "paragraph", "Normal", None, False, False, False, 0),
)


def _w(tag: str) -> str:
    return f"{{{W}}}{tag}"


def _el(tag: str, **attrs: str):
    from docx.oxml import OxmlElement

    el = OxmlElement(f"w:{tag}")
    for k, v in attrs.items():
        el.set(_w(k), v)
    return el


def _sub(parent, tag: str, **attrs: str):
    el = _el(tag, **attrs)
    parent.append(el)
    return el


@dataclass(frozen=True)
class Run:
    """A run's text and look; ``text`` is already made safe (escaping.word_text)."""

    text: str
    bold: bool = False
    italic: bool = False
    size: float | None = None  # points; None: the paragraph style's
    color: str | None = None  # "RRGGBB"


def run_el(run: Run, style_id: str | None = None):
    r = _el("r")
    if style_id or run.bold or run.italic or run.size or run.color:
        pr = _sub(r, "rPr")
        if style_id:
            _sub(pr, "rStyle", val=style_id)
        if run.bold:
            _sub(pr, "b")
        if run.italic:
            _sub(pr, "i")
        if run.color:
            _sub(pr, "color", val=run.color)
        if run.size:
            half = str(round(run.size * 2))
            _sub(pr, "sz", val=half)
            _sub(pr, "szCs", val=half)
    for k, line in enumerate(run.text.split("\n")):
        if k:
            _sub(r, "br")
        for j, piece in enumerate(line.split("\t")):
            if j:
                _sub(r, "tab")
            if piece:
                t = _sub(r, "t")
                t.text = piece
                t.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")
    return r


@dataclass(frozen=True)
class Look:
    """A paragraph's look beyond its style."""

    align: str | None = None  # "left", "right", "center"
    keep_next: bool = False  # on the page of the paragraph after it (a heading, a caption)
    new_page: bool = False  # at the top of a page (a chart's section)
    space_after: float | None = None  # points
    space_before: float | None = None
    boxed: bool = False  # a thin border and a light fill: the caveat
    indent: float | None = None  # points, left


def paragraph_el(runs: Iterable, style_id: str | None = None, look: Look = Look()):
    """A paragraph of runs; an item of ``runs`` is a Run or an element made here (a footnote reference)."""
    p = _el("p")
    if style_id or look != Look():
        pr = _sub(p, "pPr")
        if style_id:
            _sub(pr, "pStyle", val=style_id)
        if look.keep_next:
            _sub(pr, "keepNext")
        if look.new_page:
            _sub(pr, "pageBreakBefore")
        if look.boxed:
            borders = _sub(pr, "pBdr")
            for side in ("top", "left", "bottom", "right"):
                _sub(borders, side, val="single", sz="6", space="4", color="9AA5B1")
            _sub(pr, "shd", val="clear", color="auto", fill="F2F4F7")
        if look.space_after is not None or look.space_before is not None:
            spacing = _sub(pr, "spacing")
            if look.space_before is not None:
                spacing.set(_w("before"), str(round(look.space_before * TWIPS)))
            if look.space_after is not None:
                spacing.set(_w("after"), str(round(look.space_after * TWIPS)))
        if look.indent is not None:
            _sub(pr, "ind", left=str(round(look.indent * TWIPS)))
        if look.align:
            _sub(pr, "jc", val={"left": "left", "right": "right", "center": "center"}[look.align])
    for item in runs:
        p.append(run_el(item) if isinstance(item, Run) else item)
    return p


@dataclass(frozen=True)
class CellText:
    """One table cell: its runs (a figure's run is followed by its footnote reference), right-aligned
    when it holds figures."""

    runs: tuple
    right: bool = False


class WordFile:
    """One Word document being written: the body in order, its footnotes, its package."""

    def __init__(self, template: str | Path | None = None):
        import docx

        if template is None:
            self.doc = docx.Document()
            self.name = "the default document"
        else:
            self.name = str(template)
            self.doc = _open_template(template)
        self.body = self.doc.element.body
        for child in list(self.body):
            if child.tag != _w("sectPr"):
                self.body.remove(child)
        self.sect = self.body.find(_w("sectPr"))
        if self.sect is None:
            self.sect = _sub(self.body, "sectPr")
        self.styles = self._styles(template is None)
        self.footnotes: list = []  # each a w:footnote element, ids from 1
        self.paragraphs = 0  # top-level paragraphs so far (docx_paragraph locations count them)
        self.tables = 0
        self.pictures = 0
        self._drop_template_parts()

    # -- styles -----------------------------------------------------------------------------------
    def _styles(self, ours: bool) -> dict[str, str]:
        """Style name -> style ID for every style the painter names, each added where missing; in the
        default document, the body text set to 10 pt Calibri (a template's own fonts are kept)."""
        from docx.enum.style import WD_STYLE_TYPE
        from docx.shared import Pt

        styles = self.doc.styles
        ids = {}
        if ours:
            normal = styles["Normal"]
            normal.font.size = Pt(10)
            normal.font.name = "Calibri"
            normal.paragraph_format.space_after = Pt(6)
        for name, kind, base, size, bold, italic, sup, after in _STYLES:
            try:
                style = styles[name]
            except KeyError:
                style = styles.add_style(name, WD_STYLE_TYPE.PARAGRAPH if kind == "paragraph" else WD_STYLE_TYPE.CHARACTER)
                if base:
                    style.base_style = styles[base]
                if size:
                    style.font.size = Pt(size)
                style.font.bold = bold or None
                style.font.italic = italic or None
                if sup:
                    style.font.superscript = True
                if after is not None:
                    style.paragraph_format.space_after = Pt(after)
            else:
                if ours and name == "Footnote Text":
                    style.font.size = Pt(size)
            ids[name] = style.style_id
        return ids

    def style(self, name: str) -> str:
        return self.styles[name]

    def table_text_style(self, size: float) -> str:
        """The paragraph style of a table's body cells at ``size`` points ("Table Text", or "Table Text
        7.5 pt" for a wide table's smaller text), added on first use; a template's own is kept."""
        from docx.enum.style import WD_STYLE_TYPE
        from docx.shared import Pt

        name = "Table Text" if size == 8.5 else f"Table Text {size:g} pt"
        if name not in self.styles:
            try:
                style = self.doc.styles[name]
            except KeyError:
                style = self.doc.styles.add_style(name, WD_STYLE_TYPE.PARAGRAPH)
                style.base_style = self.doc.styles["Normal"]
                style.font.size = Pt(size)
                style.paragraph_format.space_before = Pt(0)
                style.paragraph_format.space_after = Pt(0)
            self.styles[name] = style.style_id
        return self.styles[name]

    def _drop_template_parts(self) -> None:
        """The default document's thumbnail (a picture of another document) and any exportguard
        manifest a template carries (a Word file exported before, used as a template): the export
        writes its own."""
        package = self.doc.part.package
        for rel in list(package.rels.values()):
            if rel.reltype == RT_THUMBNAIL:
                package.rels.pop(rel.rId)
        from ..embedding import PPTX_MANIFEST_TAG

        for rel in list(self.doc.part.rels.values()):
            if rel.reltype == RT_CUSTOM_XML and not rel.is_external:
                try:
                    root = safe_parse(rel.target_part.blob, "custom XML item")
                except ExportguardError:
                    continue
                if root.tag == PPTX_MANIFEST_TAG:
                    self.doc.part.drop_rel(rel.rId)

    # -- the page ---------------------------------------------------------------------------------
    def page(self, width_pt: float, height_pt: float, margin_pt: float) -> None:
        """Every page's size and margins (one section)."""
        for tag in ("pgSz", "pgMar"):
            old = self.sect.find(_w(tag))
            if old is not None:
                self.sect.remove(old)
        size = _el("pgSz", w=str(round(width_pt * TWIPS)), h=str(round(height_pt * TWIPS)))
        if width_pt > height_pt:
            size.set(_w("orient"), "landscape")
        m = str(round(margin_pt * TWIPS))
        margins = _el("pgMar", top=m, right=m, bottom=m, left=m, header=str(round(margin_pt * TWIPS / 2)),
                      footer=str(round(margin_pt * TWIPS / 2)), gutter="0")
        # sectPr's order: header and footer references, footnotePr, endnotePr, type, pgSz, pgMar, ...
        anchor = None
        for child in self.sect:
            if child.tag in (_w("headerReference"), _w("footerReference"), _w("footnotePr"), _w("endnotePr"),
                             _w("type")):
                anchor = child
        if anchor is None:
            self.sect.insert(0, size)
        else:
            anchor.addnext(size)
        size.addnext(margins)

    def header_footer(self, header: Sequence[Run], footer: Sequence[Run], footer_note: Sequence[Run]) -> None:
        """The header on every page (``header``); the footer: ``footer`` then "Page N of M", and under
        them ``footer_note`` (the trademark legend)."""
        section = self.doc.sections[0]
        for part, lines in ((section.header, [header]), (section.footer, [footer, footer_note])):
            part.is_linked_to_previous = False
            el = part._element
            for child in list(el):
                el.remove(child)
            for k, runs in enumerate(lines):
                items: list = list(runs)
                if part is section.footer and k == 0:
                    size = next((r.size for r in runs if r.size), 8.0)  # the footer's own size
                    items += [Run("   Page ", size=size), _field("PAGE", "1", size), Run(" of ", size=size),
                              _field("NUMPAGES", "1", size)]
                el.append(paragraph_el(items, self.style("Footer" if part is section.footer else "Header"),
                                       Look(space_after=2)))

    # -- the body ---------------------------------------------------------------------------------
    def add(self, el) -> None:
        self.sect.addprevious(el)
        if el.tag == _w("p"):
            self.paragraphs += 1

    def paragraph(self, runs: Iterable, style: str | None = None, look: Look = Look()) -> int:
        """Add a paragraph; returns its number among the body's paragraphs (from 1)."""
        self.add(paragraph_el(runs, self.style(style) if style else None, look))
        return self.paragraphs

    def footnote(self, lines: Sequence[str], size: float | None = None):
        """A footnote holding ``lines`` (each its own paragraph); returns the reference run (``size``: the
        figure's, in points) that goes right after the figure's run (a custom mark of one hair space: see the module's docstring)."""
        number = len(self.footnotes) + 1
        note = _el("footnote", id=str(number))
        for line in lines:
            note.append(paragraph_el([Run(line)], self.style("Footnote Text"), Look(space_after=0)))
        self.footnotes.append(note)
        ref = _el("r")
        pr = _sub(ref, "rPr")
        _sub(pr, "rStyle", val=self.style("Footnote Reference"))
        if size:  # the figure's size: a reference at the style's own size would lower the cell's line
            _sub(pr, "sz", val=str(round(size * 2)))
            _sub(pr, "szCs", val=str(round(size * 2)))
        _sub(ref, "footnoteReference", customMarkFollows="1", id=str(number))
        t = _sub(ref, "t")
        t.text = FOOTNOTE_MARK
        return ref

    def table(self, header: Sequence[str], rows: Iterable[Sequence[CellText]], widths_pt: Sequence[float],
              size: float, right: Sequence[bool], caption: str = "", together: bool = False) -> int:
        """A native table: the header row repeated on every page it spans, rows that do not split across
        pages, columns ``widths_pt`` wide (fixed, so Word and LibreOffice lay it out alike); with
        ``together``, on one page (each row kept with the next). Returns its number among the body's
        tables (from 1)."""
        tbl = _el("tbl")
        pr = _sub(tbl, "tblPr")
        _sub(pr, "tblW", w=str(round(sum(widths_pt) * TWIPS)), type="dxa")
        borders = _sub(pr, "tblBorders")
        for side in ("top", "bottom", "insideH"):
            _sub(borders, side, val="single", sz="4", space="0", color="BFC5CD")
        _sub(pr, "tblLayout", type="fixed")
        mar = _sub(pr, "tblCellMar")
        _sub(mar, "left", w="57", type="dxa")
        _sub(mar, "right", w="57", type="dxa")
        _sub(pr, "tblLook", val="0420", firstRow="1", lastRow="0", firstColumn="0", lastColumn="0",
             noHBand="1", noVBand="1")
        if caption:
            _sub(pr, "tblCaption", val=caption[:250])
        grid = _sub(tbl, "tblGrid")
        twips = [str(round(w * TWIPS)) for w in widths_pt]
        for w in twips:
            _sub(grid, "gridCol", w=w)
        tr = _sub(tbl, "tr")
        trpr = _sub(tr, "trPr")
        _sub(trpr, "cantSplit")
        _sub(trpr, "tblHeader")
        for c, text in enumerate(header):
            tc = _sub(tr, "tc")
            tcpr = _sub(tc, "tcPr")
            _sub(tcpr, "tcW", w=twips[c], type="dxa")
            _sub(tcpr, "shd", val="clear", color="auto", fill="E8ECF1")
            tc.append(paragraph_el([Run(text, bold=True, size=size)], None,
                                   Look(align="right" if right[c] else None, space_after=0, keep_next=True)))
        # A body cell is as lean as Word allows (a long table is tens of thousands of cells): its width
        # from the grid, its text size and spacing from a paragraph style (table_text_style).
        style = self.table_text_style(size)
        looks = {(right, keep): Look(align="right" if right else None, keep_next=keep)
                 for right in (False, True) for keep in (False, True)}
        rows = list(rows) if together else rows
        last = len(rows) - 1 if together else -1
        for k, cells in enumerate(rows):
            tr = _sub(tbl, "tr")
            _sub(_sub(tr, "trPr"), "cantSplit")
            for cell in cells:
                look = looks[cell.right, together and k < last]
                _sub(tr, "tc").append(paragraph_el(cell.runs, style, look))
        self.add(tbl)
        self.tables += 1
        return self.tables

    def picture(self, png: bytes, width_pt: float, title: str, description: str) -> int:
        """A picture in a paragraph of its own, ``width_pt`` wide, with its alt text (title and
        description: what a screen reader says). Returns its number among the body's pictures."""
        from docx.shared import Pt
        from docx.text.paragraph import Paragraph

        p = paragraph_el([], None, Look(space_after=2))
        self.add(p)
        shape = Paragraph(p, self.doc._body).add_run().add_picture(io.BytesIO(png), width=Pt(width_pt))
        doc_pr = shape._inline.docPr
        self.pictures += 1
        doc_pr.set("name", f"Chart {self.pictures}")
        doc_pr.set("descr", description)
        doc_pr.set("title", title[:250])
        return self.pictures

    # -- the package ------------------------------------------------------------------------------
    def _footnotes_part(self) -> None:
        from docx.opc.packuri import PackURI
        from docx.opc.part import Part
        from lxml import etree

        if not self.footnotes:
            return
        root = etree.Element(_w("footnotes"), nsmap={"w": W})
        for kind, number in (("separator", "-1"), ("continuationSeparator", "0")):
            note = etree.SubElement(root, _w("footnote"), {_w("type"): kind, _w("id"): number})
            etree.SubElement(etree.SubElement(etree.SubElement(note, _w("p")), _w("r")), _w(kind))
        for note in self.footnotes:
            root.append(note)
        blob = etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)
        for rel in list(self.doc.part.rels.values()):  # a template's own footnotes: none are referenced now
            if rel.reltype == RT_FOOTNOTES:
                self.doc.part.drop_rel(rel.rId)
        part = Part(PackURI("/word/footnotes.xml"), CT_FOOTNOTES, blob, self.doc.part.package)
        self.doc.part.relate_to(part, RT_FOOTNOTES)
        self._footnote_settings()

    def _footnote_settings(self) -> None:
        """settings.xml names the separator footnotes (Word expects them there), before w:compat as
        the schema orders the settings."""
        settings = self.doc.settings.element
        old = settings.find(_w("footnotePr"))
        if old is not None:
            settings.remove(old)
        pr = _el("footnotePr")
        _sub(pr, "footnote", id="-1")
        _sub(pr, "footnote", id="0")
        later = ("endnotePr", "compat", "docVars", "rsids", "mathPr", "attachedSchema", "themeFontLang",
                 "clrSchemeMapping", "doNotIncludeSubdocsInStats", "doNotAutoCompressPictures", "forceUpgrade",
                 "captions", "readModeInkLockDown", "smartTagType", "schemaLibrary", "shapeDefaults",
                 "doNotEmbedSmartTags", "decimalSymbol", "listSeparator")
        anchor = next((child for child in settings if child.tag.rpartition("}")[2] in later), None)
        if anchor is None:
            settings.append(pr)
        else:
            anchor.addprevious(pr)

    def _manifest(self, blob: bytes, namespace: str, properties: dict[str, str]) -> None:
        from docx.opc.packuri import PackURI
        from docx.opc.part import Part

        package = self.doc.part.package
        taken = {str(p.partname) for p in package.iter_parts()}
        n = 1
        while f"/customXml/item{n}.xml" in taken or f"/customXml/itemProps{n}.xml" in taken:
            n += 1
        item = Part(PackURI(f"/customXml/item{n}.xml"), "application/xml", blob, package)
        props = Part(PackURI(f"/customXml/itemProps{n}.xml"), CT_CUSTOM_XML_PROPS, datastore_item(blob, namespace),
                     package)
        item.relate_to(props, RT_CUSTOM_XML_PROPS)
        self.doc.part.relate_to(item, RT_CUSTOM_XML)
        existing = None
        for rel in list(package.rels.values()):
            if rel.reltype == RT_CUSTOM_PROPERTIES and not rel.is_external:
                existing = rel.target_part.blob
                package.rels.pop(rel.rId)
        custom = Part(PackURI("/docProps/custom.xml"), CT_CUSTOM_PROPERTIES, custom_properties(existing, properties),
                      package)
        package.relate_to(custom, RT_CUSTOM_PROPERTIES)

    def save(self, path: Path, clock, *, title: str, subject: str, keywords: str, manifest_blob: bytes,
             namespace: str, properties: dict[str, str]) -> None:
        """Footnotes, manifest and properties into the package; then written the same way every time
        (render/package.py: entries stamped with the export's clock, in one order)."""
        from .. import __version__
        from .package import save

        self._footnotes_part()
        self._manifest(manifest_blob, namespace, properties)
        core = self.doc.core_properties
        # a core property holds at most 255 characters (python-docx refuses more, as Word's dialog does)
        core.title, core.subject, core.keywords = (t if len(t) <= 255 else t[:254] + "\u2026"
                                                   for t in (title, subject, keywords))
        core.author, core.last_modified_by = "exportguard", f"exportguard {__version__}"
        core.comments, core.category, core.revision = "", "", 1
        core.created = core.modified = clock.at.replace(tzinfo=None)
        save(lambda f: self.doc.save(f), path, clock)


def _field(code: str, shown: str, size: float):
    field = _el("fldSimple", instr=f" {code} ")
    field.append(run_el(Run(shown, size=size)))
    return field


def _open_template(path: str | Path):
    """A Word document or template (.docx, .dotx) whose styles, page and headers the export takes;
    its body is replaced. A clear error naming the file for anything else."""
    import docx

    name = str(path)
    data = template_bytes(path, MAX_TEMPLATE_BYTES)
    try:
        return docx.Document(io.BytesIO(as_document(data, _DOTX, _DOCX)))
    except ExportguardError as e:
        raise ExportguardError(f"{name}: {e}") from None
    except Exception as e:  # BadZipFile, KeyError, XML errors, python-docx's ValueError
        raise ExportguardError(f"{name}: cannot open as a Word document or template (.docx, .dotx): "
                               f"{type(e).__name__}: {e}") from None


_DOTX = "application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml"
_DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
