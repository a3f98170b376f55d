"""`exportguard check` reads Word files (issue 39): what a person sees in the body, its tables,
headers and footers, text boxes, alt text, comments and notes, with each footnote reference read as
a bracketed mark in the text that holds it (check/docx_reader.py). The documents are made here the
way a person makes them, with python-docx; what python-docx cannot write (footnotes, text boxes,
content controls, fields) is put into its package as Word writes it."""
from __future__ import annotations

import re
import struct
import zipfile
import zlib
from pathlib import Path

import pytest

from exportguard.caveat import SHORT, TRADEMARK_LEGEND
from exportguard.check import engine
from exportguard.check.docx_reader import read as read_docx
from exportguard.check.engine import check
from exportguard.check.evaluate import Evaluator
from exportguard.check.manifests import DOCX_MAIN, ManifestNotFound, custom_xml_part_names, read_manifest
from exportguard.check.safety import SafeZip
from exportguard.check.tamper import ManifestCheck, syntax_of
from exportguard.embedding import DOCX_DIGEST_PROPERTY, DOCX_MANIFEST_NS
from exportguard.errors import ExportguardError
from exportguard.manifest import shown_digest
from tests.documents import NOTE

W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
RELS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
CITATION = ("MLPerf® Inference: Datacenter v5.1, Closed division, llama2-70b-99 Offline, result 5.1-0061, verified, "
            "source github.com/mlcommons/inference_results_v5.1, retrieved 2025-09-09; Shape: OpenOrca, 273.3 "
            "tokens/sample.")
NOTE_TEXT = NOTE[len("[a] "):]


# -- building Word files ---------------------------------------------------------------------------

def word(path: Path, build, *, footnotes: dict | None = None, endnotes: dict | None = None,
         raw: dict | None = None, parts: dict | None = None) -> Path:
    """A .docx made with python-docx (``build(document)``), then given what python-docx cannot write:
    ``{fn:ID}`` in a run's text becomes a footnote reference (``{fn*:ID}`` one with a custom mark that
    follows, ``{fn~:ID}`` one whose custom mark is a hair space, ``{en:ID}`` an endnote reference); a
    paragraph holding only ``{NAME}`` becomes the runs ``raw[NAME]`` (or, for a ``<w:`` block element,
    that element); ``footnotes``/``endnotes`` are id -> text (paragraphs apart by new lines); ``parts``
    are further parts, name -> bytes."""
    import docx

    doc = docx.Document()
    build(doc)
    doc.save(path)
    with zipfile.ZipFile(path) as z:
        files = {name: z.read(name) for name in z.namelist()}
    body = files["word/document.xml"].decode("utf-8")
    for name, xml in (raw or {}).items():
        if xml.startswith(("<w:sdt", "<w:tbl", "<w:p")):
            body = re.sub(r"<w:p><w:r><w:t>\{" + name + r"\}</w:t></w:r></w:p>", lambda m: xml, body)
        else:
            body = re.sub(r"<w:r><w:t>\{" + name + r"\}</w:t></w:r>", lambda m: xml, body)
    body = re.sub(r"\{(fn|fn\*|fn~|en):(-?\d+)\}", _reference, body)
    files["word/document.xml"] = body.encode("utf-8")
    for kind, notes in (("footnote", footnotes), ("endnote", endnotes)):
        if notes is not None:
            _add_part(files, f"word/{kind}s.xml", _notes_xml(kind, notes), f"{RELS}/{kind}s",
                      f"application/vnd.openxmlformats-officedocument.wordprocessingml.{kind}s+xml")
    files.update(parts or {})
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(name, data)
    return path


def _reference(m) -> str:
    """A reference in a run of its own: Word's numbered one, a custom mark whose text is the next run
    (``fn*``), or one whose own mark is a hair space (``fn~``, as exportguard writes it)."""
    kind = "endnote" if m.group(1) == "en" else "footnote"
    custom = ' w:customMarkFollows="1"' if m.group(1) in ("fn*", "fn~") else ""
    own = "<w:t>\u200a</w:t>" if m.group(1) == "fn~" else ""
    return (f'</w:t></w:r><w:r><w:rPr><w:vertAlign w:val="superscript"/></w:rPr><w:{kind}Reference{custom} '
            f'w:id="{m.group(2)}"/>{own}</w:r><w:r><w:t xml:space="preserve">')


def _notes_xml(kind: str, notes: dict) -> bytes:
    out = [f'<w:{kind}s xmlns:w="{W_NS}">',
           f'<w:{kind} w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:{kind}>',
           f'<w:{kind} w:type="continuationSeparator" w:id="0"><w:p><w:r><w:continuationSeparator/></w:r></w:p>'
           f'</w:{kind}>']
    for nid, text in notes.items():
        paras = "".join(f'<w:p><w:r><w:t xml:space="preserve">{line}</w:t></w:r></w:p>' for line in text.split("\n"))
        auto = f'<w:r><w:{kind}Ref/></w:r><w:r><w:t xml:space="preserve"> </w:t></w:r>'
        out.append(f'<w:{kind} w:id="{nid}">' + paras.replace("<w:p>", "<w:p>" + auto, 1) + f"</w:{kind}>")
    return ("".join(out) + f"</w:{kind}s>").encode("utf-8")


def _add_part(files: dict, name: str, data: bytes, rel_type: str, content_type: str,
              rels: str = "word/_rels/document.xml.rels", target: str | None = None) -> None:
    files[name] = data
    rid = f"rIdEg{len(files)}"
    files[rels] = files[rels].replace(b"</Relationships>", f'<Relationship Id="{rid}" Type="{rel_type}" Target="'
                                      f'{target or name.split("/", 1)[1]}"/></Relationships>'.encode())
    files["[Content_Types].xml"] = files["[Content_Types].xml"].replace(
        b"</Types>", f'<Override PartName="/{name}" ContentType="{content_type}"/></Types>'.encode())


def png() -> bytes:
    """A 1x1 white PNG (python-docx needs a real image to add a picture)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(b"\x00\xff\xff\xff")) + chunk(b"IEND", b""))


def text_box(text: str) -> str:
    """A text box as Word writes it: DrawingML in mc:Choice, the same text in VML in mc:Fallback."""
    content = f"<w:txbxContent><w:p><w:r><w:t>{text}</w:t></w:r></w:p></w:txbxContent>"
    return ('<w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><wp:anchor><wp:docPr id="9" '
            'name="Text Box 9"/><a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main">'
            '<a:graphicData uri="http://schemas.microsoft.com/office/word/2010/wordprocessingShape"><wps:wsp>'
            f'<wps:txbx>{content}</wps:txbx></wps:wsp></a:graphicData></a:graphic></wp:anchor></w:drawing></mc:Choice>'
            f'<mc:Fallback><w:pict><v:shape><v:textbox>{content}</v:textbox></v:shape></w:pict></mc:Fallback>'
            '</mc:AlternateContent></w:r>')


def run(text: str) -> str:
    return f'<w:r><w:t xml:space="preserve">{text}</w:t></w:r>'


# -- reading ----------------------------------------------------------------------------------------

class Recorder:
    """The evaluator's place: what the reader emits, as (key, text, block, kind)."""

    def __init__(self):
        self.items: list[tuple[str, str, str, str]] = []
        self.scopes: list[str] = []

    def scope(self, name: str) -> None:
        self.scopes.append(name)

    def item(self, key, where, text, value=None, *, block="", kind="text", **_kw) -> None:
        self.items.append((key, text, block, kind))


def items(path: Path) -> Recorder:
    rec = Recorder()
    with SafeZip(path) as z:
        read_docx(z, rec)
    return rec


def texts(path: Path) -> dict[str, str]:
    return {key: text for key, text, _block, _kind in items(path).items}


def hits(path: Path) -> list:
    (report,) = check([path], isolate=False)
    assert report.status != "not-inspected", report.reason
    return report.hits


def rules_at(path: Path) -> list[tuple[str, str]]:
    return [(h.rule_id, h.location) for h in hits(path)]


def table(doc, rows):
    t = doc.add_table(rows=len(rows), cols=len(rows[0]))
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            t.cell(r, c).text = text
    return t


# -- what is read ----------------------------------------------------------------------------------

@pytest.mark.quick
def test_a_bare_figure_in_a_paragraph_is_eg001_at_its_paragraph(tmp_path):
    doc = word(tmp_path / "bare.docx", lambda d: (d.add_heading("Results", 1),
                                                  d.add_paragraph("We reach 101,527 tok/s on Llama 2 70B")))
    found = hits(doc)
    assert [(h.rule_id, h.location) for h in found] == [("EG001", "paragraph 2")]
    assert "'101,527 tok/s' is a throughput figure with no band and no footnote mark" in found[0].message
    assert items(doc).scopes == ["document"]


@pytest.mark.quick
def test_a_numbered_footnote_reads_as_a_mark_and_binds_a_table_figure(tmp_path):
    def build(d):
        d.add_paragraph("Llama 2 70B, Offline")
        table(d, [["System", "Throughput (tok/s)"], ["Vendor X", "101,527 ±5.4%{fn:1}"]])
        d.add_paragraph(TRADEMARK_LEGEND)

    doc = word(tmp_path / "cited.docx", build, footnotes={1: "Vendor X, 8x B200. " + CITATION})
    got = items(doc).items
    cell = next(i for i in got if i[0] == "table 1, row 2, column 2")
    # the footnote's number is never pasted onto the figure: the reference reads as [fna]
    assert cell == ("table 1, row 2, column 2", "101,527 ±5.4% [fna]", "table 1", "cell")
    note = got[got.index(cell) + 1]  # right after the cell, in the table's block
    assert note == ("footnote 1", "[fna] Vendor X, 8x B200. " + CITATION, "table 1", "text")
    assert not [h for h in hits(doc) if h.rule_id == "EG001"], hits(doc)


@pytest.mark.quick
def test_a_footnote_that_names_no_scenario_leaves_the_figure_bare(tmp_path):
    doc = word(tmp_path / "vague.docx", lambda d: d.add_paragraph("Our cluster: 101,527 tok/s ±5.4%{fn:1}"),
               footnotes={1: "Measured on OpenOrca, 273 tokens/sample, see our blog."})
    found = [h for h in hits(doc) if h.rule_id == "EG001"]
    assert [h.location for h in found] == ["paragraph 1"]
    assert "its note [fna] names no scenario" in found[0].message


@pytest.mark.quick
def test_a_custom_mark_that_follows_is_the_mark_and_the_note_is_read_as_it_stands(tmp_path):
    doc = word(tmp_path / "custom.docx", lambda d: (d.add_paragraph("Vendor X: 101,527 tok/s ±5.4% {fn*:2}[a]"),
                                                    d.add_paragraph(TRADEMARK_LEGEND)),
               footnotes={2: NOTE})
    found = texts(doc)
    assert found["paragraph 1"] == "Vendor X: 101,527 tok/s ±5.4% [a]"  # nothing inserted
    assert found["footnote 2"] == NOTE  # it opens with its mark already: not prefixed again
    assert rules_at(doc) == []


@pytest.mark.quick
def test_a_custom_mark_that_shows_nothing_takes_the_mark_its_note_opens_with(tmp_path):
    """exportguard writes the marks, a label, then a reference whose own mark is a hair space."""
    basis = ("[b] Derived, not an MLPerf metric: the official throughput divided by its accelerator count; "
             "llama2-70b-99 Offline shape, OpenOrca.")
    doc = word(tmp_path / "after.docx", lambda d: (
        d.add_paragraph("Vendor X: 3,525 tok/s per accelerator ±5.4% [a][b] derived{fn~:3}"),
        d.add_paragraph("Vendor Y: 3,902 tok/s per accelerator ±5.4% [c][b] derived{fn~:4}"),
        d.add_paragraph(basis), d.add_paragraph(TRADEMARK_LEGEND)),
        footnotes={3: NOTE, 4: "[c] " + NOTE_TEXT.replace("5.1-0042", "5.1-0016")})
    found = texts(doc)
    assert found["paragraph 1"] == "Vendor X: 3,525 tok/s per accelerator ±5.4% [a][b] derived"  # nothing added
    assert (found["footnote 3"], found["footnote 4"][:4]) == (NOTE, "[c] ")
    assert rules_at(doc) == []


@pytest.mark.quick
def test_a_custom_mark_that_is_no_bracketed_letter_gets_a_mark_of_its_own(tmp_path):
    doc = word(tmp_path / "star.docx", lambda d: d.add_paragraph("Vendor X: 101,527 tok/s ±5.4%{fn*:1}*"),
               footnotes={1: "* " + CITATION})
    found = texts(doc)
    assert found["paragraph 1"] == "Vendor X: 101,527 tok/s ±5.4% [fna]*"
    assert found["footnote 1"] == "[fna] * " + CITATION


@pytest.mark.quick
def test_footnotes_and_endnotes_are_lettered_together_in_reading_order(tmp_path):
    def build(d):
        d.add_paragraph("A: 101,527 tok/s ±5.4%{en:1}")
        d.add_paragraph("B: 99,100 tok/s ±5.4%{fn:1} and C: 98,000 tok/s ±5.4%{fn:2}")
        d.add_paragraph("A again: 101,527 tok/s ±5.4%{en:1}")

    doc = word(tmp_path / "notes.docx", build, footnotes={1: "Server. " + CITATION, 2: "Offline", 3: "never referenced"},
               endnotes={1: "Offline. " + CITATION})
    rec = items(doc)
    found = {key: text for key, text, _b, _k in rec.items}
    assert found["paragraph 1"].endswith("±5.4% [fna]") and found["paragraph 3"].endswith("±5.4% [fna]")
    assert found["paragraph 2"] == "B: 99,100 tok/s ±5.4% [fnb] and C: 98,000 tok/s ±5.4% [fnc]"
    assert found["endnote 1"].startswith("[fna] Offline") and found["footnote 2"] == "[fnc] Offline"
    # a note stands in the block of each paragraph that references it; one nothing references is still read
    assert [(k, b) for k, _t, b, _kind in rec.items if k.startswith(("footnote", "endnote"))] == [
        ("endnote 1", "paragraph 1"), ("footnote 1", "paragraph 2"), ("footnote 2", "paragraph 2"),
        ("endnote 1", "paragraph 3"), ("footnote 3", "footnote 3")]
    assert found["footnote 3"] == "never referenced"
    assert "separator" not in str(rec.items)


@pytest.mark.quick
def test_headers_footers_text_boxes_comments_and_alt_text_are_read(tmp_path):
    image = tmp_path / "chart.png"
    image.write_bytes(png())

    def build(d):
        section = d.sections[0]
        section.header.paragraphs[0].text = "Draft: 95,000 tok/s"
        section.footer.paragraphs[0].text = "Footer says 94,000 tok/s"
        p = d.add_paragraph("Results")
        d.add_comment(p.runs[0], text="Was it 93,000 tok/s?", author="Reviewer")
        d.add_paragraph("{box}")
        d.add_picture(str(image))

    doc = word(tmp_path / "around.docx", build, raw={"box": text_box("Box: 92,000 tok/s")})
    xml = zipfile.ZipFile(doc).read("word/document.xml").decode()  # the picture's alt text: a title and a description
    doc = _rewrite(doc, "word/document.xml", xml.replace('name="Picture 1"', 'name="Picture 1" title="Throughput" '
                                                          'descr="1. Vendor X: 91,000 tok/s"'))
    rec = items(doc)
    kinds = {key: (text, kind) for key, text, _b, kind in rec.items}
    assert kinds["header 1"] == ("Draft: 95,000 tok/s", "text")
    assert kinds["footer 1"] == ("Footer says 94,000 tok/s", "text")
    assert kinds["comment 1"] == ("Was it 93,000 tok/s?", "comment")
    assert kinds["text box 1"] == ("Box: 92,000 tok/s", "text")  # the Choice, not the Fallback too
    assert sum(1 for i in rec.items if "92,000" in i[1]) == 1
    assert kinds["picture 2 (alt text)"] == ("Throughput\n1. Vendor X: 91,000 tok/s", "alt-text")
    assert {loc for rule, loc in rules_at(doc) if rule == "EG001"} == {
        "header 1", "footer 1", "comment 1", "text box 1", "picture 2 (alt text)"}


def _rewrite(path: Path, part: str, text: str) -> Path:
    with zipfile.ZipFile(path) as z:
        files = {name: z.read(name) for name in z.namelist()}
    files[part] = text.encode("utf-8")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(name, data)
    return path


@pytest.mark.quick
def test_only_what_a_reader_sees_of_a_paragraph_is_its_text(tmp_path):
    """Insertions, hyperlinks and field results are shown; deletions and field codes are not."""
    shown = ('<w:ins w:id="1" w:author="a">' + run("Now 101,527 ") + '</w:ins>'
             '<w:del w:id="2" w:author="a"><w:r><w:delText>was 88,000 tok/s </w:delText></w:r></w:del>'
             '<w:hyperlink r:id="rIdX">' + run("tok/s") + '</w:hyperlink>'
             '<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> QUOTE "77,000 tok/s" </w:instrText></w:r>'
             '<w:r><w:fldChar w:fldCharType="separate"/></w:r>' + run(" (field: 66,000 tok/s)") +
             '<w:r><w:fldChar w:fldCharType="end"/></w:r>'
             '<w:fldSimple w:instr=" PAGE ">' + run(" page 4") + '</w:fldSimple>'
             '<w:r><w:tab/><w:t>x</w:t><w:br/><w:t>y</w:t></w:r>')
    doc = word(tmp_path / "runs.docx", lambda d: d.add_paragraph("{runs}"), raw={"runs": shown})
    assert texts(doc)["paragraph 1"] == "Now 101,527 tok/s (field: 66,000 tok/s) page 4\tx\ny"


@pytest.mark.quick
def test_table_cells_count_grid_columns_skip_merged_continuations_and_name_nested_tables(tmp_path):
    def build(d):
        t = table(d, [["System", "Accelerator", "Throughput (tok/s)"], ["Vendor X", "B200", "101527"],
                      ["Vendor Y", "H200", "52070"]])
        t.cell(1, 0).merge(t.cell(1, 1))  # gridSpan: the figure stays in column 3
        t.cell(1, 2).merge(t.cell(2, 2)).text = "101527"  # vMerge: row 3's column 3 continues row 2's
        inner = t.cell(2, 0).add_table(rows=2, cols=1)
        inner.cell(0, 0).text, inner.cell(1, 0).text = "Throughput (tok/s)", "48,000"

    rec = items(word(tmp_path / "merged.docx", build))
    keys = [k for k, _t, _b, _kind in rec.items]
    assert "table 1, row 2, column 3" in keys and "table 1, row 2, column 2" not in keys
    assert "table 1, row 3, column 3" not in keys
    assert ("table 1, row 3, column 1, table 1, row 2, column 1", "48,000", "table 1", "cell") in rec.items
    found = rules_at(tmp_path / "merged.docx")
    assert ("EG001", "table 1, row 2, column 3") in found
    assert ("EG001", "table 1, row 3, column 1, table 1, row 2, column 1") in found


@pytest.mark.quick
def test_a_block_content_control_is_transparent_to_the_body_count(tmp_path):
    sdt = ('<w:sdt><w:sdtPr><w:alias w:val="Results"/></w:sdtPr><w:sdtContent>'
           '<w:p>' + run("Inside: 101,527 tok/s") + '</w:p><w:p>' + run("Second") + '</w:p>'
           '</w:sdtContent></w:sdt>')
    doc = word(tmp_path / "sdt.docx", lambda d: (d.add_paragraph("First"), d.add_paragraph("{sdt}"),
                                                 d.add_paragraph("After: 99,000 tok/s")), raw={"sdt": sdt})
    found = texts(doc)
    assert (found["paragraph 2"], found["paragraph 3"], found["paragraph 4"]) == (
        "Inside: 101,527 tok/s", "Second", "After: 99,000 tok/s")


@pytest.mark.quick
def test_a_native_chart_is_read_as_a_decks_chart(tmp_path):
    """A chart inserted in Word (its part and embedded workbook as PowerPoint writes them too)."""
    from pptx import Presentation
    from pptx.chart.data import CategoryChartData
    from pptx.enum.chart import XL_CHART_TYPE
    from pptx.util import Inches

    prs = Presentation()
    data = CategoryChartData()
    data.categories = ["Vendor X", "Vendor Y"]
    data.add_series("Throughput (tok/s)", (101527, 52070))
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    slide.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, 0, 0, Inches(6), Inches(4), data)
    prs.save(tmp_path / "c.pptx")
    with zipfile.ZipFile(tmp_path / "c.pptx") as z:
        chart = next(n for n in z.namelist() if re.fullmatch(r"ppt/charts/chart\d+\.xml", n))
        book = next(n for n in z.namelist() if n.startswith("ppt/embeddings/"))
        chart_xml, book_bytes = z.read(chart), z.read(book)
    drawing = ('<w:r><w:drawing><wp:inline><wp:docPr id="3" name="Chart 3"/><a:graphic xmlns:a="http://schemas.'
               'openxmlformats.org/drawingml/2006/main"><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/'
               '2006/chart"><c:chart xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" r:id="rIdChart"/>'
               '</a:graphicData></a:graphic></wp:inline></w:drawing></w:r>')
    doc = word(tmp_path / "chart.docx", lambda d: d.add_paragraph("{chart}"), raw={"chart": drawing}, parts={
        "word/charts/chart1.xml": chart_xml, "word/embeddings/book.xlsx": book_bytes,
        "word/charts/_rels/chart1.xml.rels": (
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship '
            f'Id="rId1" Type="{RELS}/package" Target="../embeddings/book.xlsx"/></Relationships>').encode()})
    _rewrite(doc, "word/_rels/document.xml.rels", zipfile.ZipFile(doc).read("word/_rels/document.xml.rels").decode()
             .replace("</Relationships>", f'<Relationship Id="rIdChart" Type="{RELS}/chart" Target="charts/chart1.xml"/>'
                                          "</Relationships>"))
    keys = [k for k, _t, _b, _kind in items(doc).items]
    assert "chart 1, series 1 name" in keys
    assert any(k.startswith("body, chart 1 data") for k in keys), keys
    assert any(rule == "EG001" and "chart 1" in loc for rule, loc in rules_at(doc))


# -- hostile and foreign files ---------------------------------------------------------------------

@pytest.mark.quick
def test_hostile_and_foreign_files_are_not_inspected_with_a_reason(tmp_path):
    base = word(tmp_path / "base.docx", lambda d: d.add_paragraph("Results: 101,527 tok/s"))
    with zipfile.ZipFile(base) as z:
        document = z.read("word/document.xml")
    bomb = _copy(base, tmp_path / "bomb.docx", {"word/document.xml": document.replace(
        b"<w:body>", b"<w:body>" + b" " * (50 << 20), 1)})
    laughs = (b'<!DOCTYPE w:document [<!ENTITY lol "lol">' +
              b"".join(b'<!ENTITY lol%d "%s">' % (k, (b"&lol%d;" % (k - 1) if k > 1 else b"&lol;") * 10)
                       for k in range(1, 10)) + b"]>")
    entity = _copy(base, tmp_path / "entity.docx", {"word/document.xml": document.replace(
        b"?>", b"?>" + laughs, 1).replace(b"Results", b"&lol9;")})
    external = _copy(base, tmp_path / "xxe.docx", {"word/footnotes.xml": b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY '
                                                                          b'e SYSTEM "file:///etc/passwd">]><x>&e;</x>'})
    not_zip = tmp_path / "text.docx"
    not_zip.write_text("We reach 101,527 tok/s\n")
    deck = tmp_path / "deck.docx"
    from pptx import Presentation
    Presentation().save(deck)
    broken = _copy(base, tmp_path / "broken.docx", {"word/document.xml": document[:-40]})
    expect = {bomb: "inflates", entity: "document type declaration (DTD)", external: "document type declaration (DTD)",
              not_zip: "not a readable zip archive", deck: "not a Word document: its main part 'ppt/presentation.xml' "
                                                           "is a 'presentation'", broken: "word/document.xml"}
    reports = {Path(r.path): r for r in check(list(expect), isolate=False)}
    for path, words in expect.items():
        report = reports[path]
        assert report.status == "not-inspected" and words in report.reason, (path.name, report.reason)


def _copy(src: Path, dst: Path, replace: dict) -> Path:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            zout.writestr(info.filename, replace.pop(info.filename, None) or zin.read(info.filename))
        for name, data in replace.items():
            zout.writestr(name, data)
    return dst


@pytest.mark.quick
def test_a_docm_is_read_as_a_word_file(tmp_path):
    doc = word(tmp_path / "macro.docx", lambda d: d.add_paragraph("We reach 101,527 tok/s"))
    docm = doc.rename(tmp_path / "macro.docm")
    (report,) = check([docm], isolate=False)
    assert report.format == "docx" and [(h.rule_id, h.location) for h in report.hits] == [("EG001", "paragraph 1")]


def test_the_checker_runs_a_word_file_in_its_worker(tmp_path):
    doc = word(tmp_path / "w.docx", lambda d: d.add_paragraph("We reach 101,527 tok/s"))
    (report,) = check([doc])
    assert report.status == "findings" and [h.location for h in report.hits] == ["paragraph 1"]


# -- exportguard's Word files: the manifest and the comparison --------------------------------------

def with_manifest(path: Path, manifest_text: str, *, stated: str | None = None, from_root: bool = False) -> Path:
    """The package with a manifest custom XML part (related from the document part, or from the root as
    LibreOffice relates it) and the digest stated as a custom property."""
    with zipfile.ZipFile(path) as z:
        files = {name: z.read(name) for name in z.namelist()}
    item = f'<eg:manifest xmlns:eg="{DOCX_MANIFEST_NS}">{manifest_text}</eg:manifest>'.encode()
    if from_root:
        _add_part(files, "customXml/item7.xml", item, f"{RELS}/customXml", "application/xml", rels="_rels/.rels",
                  target="../customXml/item7.xml")
    else:
        _add_part(files, "customXml/item7.xml", item, f"{RELS}/customXml", "application/xml",
                  target="../customXml/item7.xml")
    if stated is not None:
        props = ('<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/custom-properties" xmlns:vt='
                 '"http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes"><property fmtid="{D5CDD505-2E9C-'
                 f'101B-9397-08002B2CF9AE}}" pid="2" name="{DOCX_DIGEST_PROPERTY}"><vt:lpwstr>{stated}</vt:lpwstr>'
                 '</property></Properties>').encode()
        _add_part(files, "docProps/custom.xml", props, f"{RELS}/custom-properties",
                  "application/vnd.openxmlformats-officedocument.custom-properties+xml", rels="_rels/.rels",
                  target="docProps/custom.xml")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(name, data)
    return path


@pytest.mark.quick
def test_the_manifest_is_read_from_its_custom_xml_part_and_its_stated_digest(tmp_path):
    def plain(name):
        return word(tmp_path / name, lambda d: d.add_paragraph("Results"))

    with pytest.raises(ManifestNotFound, match="the Word document carries no exportguard manifest"):
        read_manifest(plain("none.docx"))  # python-docx's own custom XML item (bibliography) is not one
    text = '{"schema": "exportguard-manifest/3", "digest": {"algorithm": "sha256", "value": "abc"}}'
    ours = with_manifest(plain("ours.docx"), text, stated="abc")
    assert read_manifest(ours)["digest"]["value"] == "abc"
    assert "customXml/item7.xml" in custom_xml_part_names(ours, DOCX_MAIN)
    assert read_manifest(with_manifest(plain("root.docx"), text, from_root=True))["schema"] == "exportguard-manifest/3"
    with pytest.raises(ExportguardError, match="the document's custom property .* states .*: the manifest was replaced"):
        read_manifest(with_manifest(plain("replaced.docx"), text, stated="def"))
    (report,) = check([with_manifest(plain("edited.docx"), text)], isolate=False)
    assert report.manifest["present"] and not report.manifest["digest_ok"]
    assert report.hits[0].rule_id == "EG016"


def entry(location: str, text: str) -> dict:
    return {"location": location, "shown": {"text": text, "value": None}, "shown_sha256": shown_digest(text, None),
            "text": text, "marks": ["a"], "notes": [NOTE_TEXT]}


def exported(path: Path, cell: str = "101,527 tok/s ±5.4% {fn*:1}[a]", note: str = NOTE, extra: str = "",
             alt: str = "Offline throughput\n1. Vendor X: 101,527 tok/s ±5.4% [a]") -> Path:
    """A Word file as exportguard's exporter lays one out: a headline, a table whose figure's custom
    footnote mark follows it, a chart picture whose alt text lists its bars, the caveat and the legend."""
    image = path.with_suffix(".png")
    image.write_bytes(png())

    def build(d):
        d.add_paragraph("llama2-70b-99 Offline")
        d.add_paragraph("Highest: Vendor X, 8x B200, 101,527 tok/s ±5.4% {fn*:1}[a]")
        table(d, [["System", "Throughput"], ["Vendor X", cell]])
        d.add_picture(str(image))
        d.add_paragraph(SHORT)
        d.add_paragraph(TRADEMARK_LEGEND)
        if extra:
            d.add_paragraph(extra)

    doc = word(path, build, footnotes={1: note})
    xml = zipfile.ZipFile(doc).read("word/document.xml").decode()
    return _rewrite(doc, "word/document.xml", xml.replace('name="Picture 1"', f'name="Picture 1" descr="{alt}"'))


def compare(path: Path, figures: list[dict]) -> list:
    ev = Evaluator(ManifestCheck({"caveat_short": SHORT, "figures": figures}, "docx"))
    engine.read(path, "docx", ev)
    return [(h.rule_id, h.location) for h in ev.finish()]


MANIFEST = [entry("paragraph 2", "Highest: Vendor X, 8x B200, 101,527 tok/s ±5.4% [a]"),
            entry("table 1, row 2, column 2", "101,527 tok/s ±5.4% [a]"),
            entry("chart 1, bar 1", "1. Vendor X: 101,527 tok/s ±5.4% [a]")]  # a line of the chart's alt text


@pytest.mark.quick
def test_word_locations_name_one_scope_and_paragraphs_and_cells_are_exact():
    s = syntax_of("docx")
    assert s.scope_of("table 2, row 4, column 3") == s.scope_of("chart 1, bar 3") == "document"
    assert s.exact("table 2, row 4, column 3") and s.exact("paragraph 12") and not s.exact("chart 1, bar 3")
    assert s.by_text


@pytest.mark.quick
def test_an_intact_word_file_compares_clean(tmp_path):
    assert compare(exported(tmp_path / "ok.docx"), MANIFEST) == []


@pytest.mark.quick
def test_an_edited_or_stripped_figure_in_a_word_table_is_found_at_its_cell(tmp_path):
    assert compare(exported(tmp_path / "edited.docx", cell="111,527 tok/s ±5.4% {fn*:1}[a]"), MANIFEST) == [
        ("EG017", "table 1, row 2, column 2")]
    stripped = compare(exported(tmp_path / "stripped.docx", cell="101,527 tok/s"), MANIFEST)
    assert ("EG018", "table 1, row 2, column 2") in stripped and ("EG001", "table 1, row 2, column 2") in stripped


@pytest.mark.quick
def test_a_removed_note_a_chart_bar_edited_in_its_alt_text_and_an_added_figure_are_found(tmp_path):
    no_note = compare(exported(tmp_path / "no-note.docx", note="[a] see the appendix"), MANIFEST)
    assert ("EG018", "document") in no_note
    bar = compare(exported(tmp_path / "bar.docx", alt="Offline throughput\n1. Vendor X: 121,527 tok/s ±5.4% [a]"),
                  MANIFEST)
    # a bar is looked for by its text in the document (the picture's alt text): gone, and its new figure added
    assert bar == [("EG017", "chart 1, bar 1"), ("EG019", "picture 1 (alt text)")]
    added = compare(exported(tmp_path / "added.docx", extra="Vendor Z: 130,000 tok/s ±5.4% {fn*:1}[a]"), MANIFEST)
    assert added == [("EG019", "paragraph 6")]


# -- a Word file exportguard exported, then edited -------------------------------------------------

@pytest.fixture(scope="module")
def briefing_docx(v51_store, tmp_path_factory) -> Path:
    from exportguard.render import export
    from exportguard.spec import build_report, load_spec

    report = build_report(v51_store, load_spec(Path(__file__).resolve().parents[1] / "examples" / "briefing.toml"))
    [path] = export(report, [tmp_path_factory.mktemp("docx_briefing") / "briefing.docx"])
    return path


def edited(src: Path, dst: Path, part: str, old: str, new: str) -> Path:
    with zipfile.ZipFile(src) as z:
        text = z.read(part).decode("utf-8")
    assert old in text, (part, old)
    return _copy(src, dst, {part: text.replace(old, new, 1).encode("utf-8")})


@pytest.mark.real_data
def test_an_exported_word_file_checks_clean_and_its_edits_are_found(briefing_docx, tmp_path):
    (report,) = check([briefing_docx], isolate=False)
    assert report.status == "clean", [(h.rule_id, h.location, h.message) for h in report.hits]
    assert report.manifest["readable"] and report.manifest["digest_ok"] and report.manifest["figures"] > 0
    first = read_manifest(briefing_docx)["figures"][0]
    where, shown, note = first["location"], first["shown"]["text"], first["notes"][0]
    number = shown.split(" ")[0]
    bigger = str(int(number[0]) % 9 + 1) + number[1:]  # the first digit changed: the same shape, another value

    found = rules_at(edited(briefing_docx, tmp_path / "edited.docx", "word/document.xml", shown,
                            shown.replace(number, bigger, 1)))
    assert ("EG017", where) in found
    found = rules_at(edited(briefing_docx, tmp_path / "stripped.docx", "word/document.xml", shown,
                            shown.split(" ±")[0]))
    # the footnote reference Word keeps reads as a mark of its own ([fna]): a mark without a band
    assert ("EG018", where) in found and ("EG002", where) in found
    found = rules_at(edited(briefing_docx, tmp_path / "no-note.docx", "word/footnotes.xml", note, "See the appendix."))
    assert ("EG018", "document") in found


@pytest.mark.real_data
@pytest.mark.slow
def test_an_exported_word_file_checks_clean_after_a_libreoffice_round_trip(briefing_docx, tmp_path):
    """LibreOffice rewrites every part (its own styles, footnote ids and run properties) and keeps the
    manifest's custom XML part and the digest property: the figures still read bound and compare intact."""
    from tests.office import convert

    copy = tmp_path / "in" / "briefing.docx"
    copy.parent.mkdir()
    copy.write_bytes(briefing_docx.read_bytes())
    [again] = convert([copy], tmp_path / "out", to="docx")
    (report,) = check([again], isolate=False)
    assert report.status == "clean", [(h.rule_id, h.location, h.message) for h in report.hits]
    assert report.manifest["digest_ok"] and report.manifest["figures"] == len(read_manifest(briefing_docx)["figures"])


@pytest.mark.real_data
def test_a_chart_pictures_bar_edited_in_its_alt_text_is_found(v51_store, tmp_path):
    """exportguard draws a chart as a picture whose alt text lists each bar's figure; its manifest
    locations (``chart 1, bar 3``) are found by their text, and an edited bar's new number is added."""
    from exportguard.render import export
    from exportguard.spec import build_report, load_spec

    report = build_report(v51_store, load_spec(Path(__file__).resolve().parents[1] / "examples" / "executive-deck.toml"))
    [deck] = export(report, [tmp_path / "deck.docx"])
    (checked,) = check([deck], isolate=False)
    assert checked.status == "clean", [(h.rule_id, h.location, h.message) for h in checked.hits]
    bar = next(f for f in read_manifest(deck)["figures"] if f["location"] == "chart 1, bar 1")
    number = bar["shown"]["text"].split(" ")[0]
    with zipfile.ZipFile(deck) as z:
        xml = z.read("word/document.xml").decode("utf-8")
    start = xml.index('descr="')
    end = xml.index('"', start + len('descr="'))
    alt = xml[start:end]
    assert number in alt
    edited_alt = alt.replace(number, "9" + number[1:], 1)
    changed = _copy(deck, tmp_path / "bar.docx", {"word/document.xml": (xml[:start] + edited_alt + xml[end:]).encode()})
    assert ("EG019", "picture 1 (alt text)") in rules_at(changed)
