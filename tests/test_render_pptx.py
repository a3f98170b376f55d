"""PPTX export (issue 9): executive decks whose every figure carries its binding, read back with
python-pptx and rendered by LibreOffice.

The LibreOffice cases convert decks to PDF with ``soffice --headless`` (a profile of their own) and
read the text per page with ``pdftotext`` (word positions with ``-bbox-layout``); they skip when
LibreOffice is not installed, except under CI (CI=true), where that is a failure. The slides of the
example deck are left as PNGs in $EXPORTGUARD_ARTIFACTS/pptx (else in a tmp folder) for a person to
look at.
"""
from __future__ import annotations

import dataclasses
import io
import re
import subprocess
import sys
import unicodedata
import zipfile
from pathlib import Path

import pytest

from exportguard.detect import find_figures
from click.testing import CliRunner
from hypothesis import example, given, settings
from hypothesis import strategies as st
from lxml import etree
from pptx import Presentation

from exportguard import manifest as manifest_mod
from exportguard.caveat import FULL, SHORT, TRADEMARK_LEGEND
from exportguard.check.manifests import ManifestNotFound, custom_xml_part_names, read_manifest
from exportguard.cli import main
from exportguard.errors import ExportguardError
from exportguard.guard import bind_table, kpi
from exportguard.render import export
from exportguard.render import pptx as pptx_mod
from exportguard.render import pptx_layout as lay
from exportguard.render import pptx_xml
from exportguard.render.pptx_template import DEFAULT_PATH, build_default, open_template, theme_fonts
from exportguard.report import ChartSection, Report, TableSection, TextSection
from exportguard.spec import build_report, load_spec, parse_spec, spec_from_filters
from tests.office import artifacts, convert, pdf_text, tool
from tests.conftest import notes_in

pytestmark = pytest.mark.real_data

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
MARKS = re.compile(r"\[([a-z]+)\]")
NOTE_LINE = re.compile(r"^\[([a-z]+)\] ")
THROUGHPUT = re.compile(r"\d[\d,.]*\s*(tok/s|tokens/s|samples/s|queries/s|[A-Z]{3} per 1M tokens)(?![A-Za-z])")
BAND = re.compile(r"±\d+(\.\d+)?%|slack not estimable")
TABLE_LOC = re.compile(r"^slide (\d+), table (\d+), row (\d+), column (\d+)$")
CHART_LOC = re.compile(r"^slide (\d+), chart (\d+), point (\d+)$")
HEADLINE_LOC = re.compile(r"^slide (\d+), headline$")
C = "{http://schemas.openxmlformats.org/drawingml/2006/chart}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"

VENDOR_SPEC = '''
title = "Vendor comparison: llama2-70b-99 and llama3.1-8b"
audience = "procurement"
[filters]
round = "v5.1"
division = "closed"
[[section]]
kind = "kpi"
title = "Highest llama3.1-8b Server throughput"
filters = { model = "llama3.1-8b", scenario = "Server" }
[[section]]
kind = "table"
title = "llama2-70b-99 Offline, per accelerator"
filters = { model = "llama2-70b", track = "99", scenario = "Offline" }
derived = ["per_accelerator"]
limit = 12
[[section]]
kind = "chart"
title = "llama2-70b-99 Interactive, per accelerator"
filters = { model = "llama2-70b", track = "99", scenario = "Interactive" }
columns = ["rank", "submitter", "system", "accelerators", "throughput", "per_accelerator"]
limit = 6
[[section]]
kind = "chart"
title = "llama3.1-8b Server"
filters = { model = "llama3.1-8b", scenario = "Server" }
columns = ["rank", "submitter", "system", "accelerators", "throughput"]
[[section]]
kind = "text"
title = "How to read this deck"
text = """Each figure carries its unit, band and note mark; the notes stand in the same table or on the same slide."""
'''


# -- fixtures ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def deck_report(v51_store):
    return build_report(v51_store, load_spec(EXAMPLES / "executive-deck.toml"))


@pytest.fixture(scope="module")
def deck(deck_report, tmp_path_factory):
    [path] = export(deck_report, [tmp_path_factory.mktemp("pptx_deck") / "executive-deck.pptx"])
    return path


@pytest.fixture(scope="module")
def vendor_report(v51_store):
    return build_report(v51_store, parse_spec(VENDOR_SPEC, name="vendor.toml"))


@pytest.fixture(scope="module")
def vendor_deck(vendor_report, tmp_path_factory):
    [path] = export(vendor_report, [tmp_path_factory.mktemp("pptx_vendor") / "vendor.pptx"])
    return path


@pytest.fixture(scope="module")
def v51_report(v51_store):
    return build_report(v51_store, spec_from_filters({"round": ("v5.1",), "division": ("closed",)}, split_by_cohort=True))


@pytest.fixture(scope="module")
def v51_deck(v51_report, tmp_path_factory):
    [path] = export(v51_report, [tmp_path_factory.mktemp("pptx_v51") / "v51-closed.pptx"])
    return path


@pytest.fixture(scope="module")
def templates(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pptx_templates")
    corp = folder / "corp-4x3.pptx"
    corp.write_bytes(build_default(width_in=10, font="DejaVu Serif"))
    blank = folder / "blank-only.pptx"
    blank.write_bytes(build_default(layouts=("Blank",)))
    return {"corp": corp, "blank": blank}


@pytest.fixture(scope="module")
def corp_deck(deck_report, templates, tmp_path_factory):
    [path] = export(deck_report, [tmp_path_factory.mktemp("pptx_corp") / "executive-deck-4x3.pptx"],
                    template=templates["corp"])
    return path


# -- reading a deck back -------------------------------------------------------------------------

def _tables(slide):
    return [s for s in slide.shapes if s.has_table]


def _charts(slide):
    return [s for s in slide.shapes if s.has_chart]


def _shape(slide, name):
    return next((s for s in slide.shapes if s.name == name), None)


def _notes_boxes(slide) -> list:
    """A chart slide's notes boxes, left to right ('Notes', 'Notes 2'): each holds whole notes."""
    return [s for s in slide.shapes if re.fullmatch(r"Notes( \d+)?", s.name)]


def _notes_paras(slide) -> list[str]:
    return [p.text for box in _notes_boxes(slide) for p in box.text_frame.paragraphs]


def _footer_rows(table) -> list[str]:
    """Texts of the rows merged across the whole table (the notes rows)."""
    n = len(table.columns)
    out = []
    for row in table.rows:
        tc = row.cells[0]._tc
        if n > 1 and tc.get("gridSpan") == str(n):
            out.append(row.cells[0].text)
    return out


def _notes_in(lines) -> dict[str, str]:
    return notes_in(lines)


def _labels(chart_shape) -> list[str]:
    ser = chart_shape.chart.plots[0].series[0]
    return [ser.points[i].data_label.text_frame.text for i in range(len(list(ser.values)))]


def _all_texts(prs):
    """Every text a person can see or copy in a deck: runs, cells, chart titles, labels and
    categories, speaker notes; with the slide number."""
    for n, slide in enumerate(prs.slides, 1):
        for shape in slide.shapes:
            if shape.has_text_frame:
                for p in shape.text_frame.paragraphs:
                    yield n, p.text
            if shape.has_table:
                for row in shape.table.rows:
                    for cell in row.cells:
                        yield n, cell.text
            if shape.has_chart:
                space = shape.chart._chartSpace
                for t in space.iter(f"{A}t"):
                    yield n, t.text or ""
                for v in space.iter(f"{C}v"):
                    yield n, v.text or ""
        if slide.has_notes_slide:
            yield n, slide.notes_slide.notes_text_frame.text


def _figure_like_outside(text: str, figures: set[str]) -> list[str]:
    for f in sorted(figures, key=len, reverse=True):
        text = text.replace(f, " ")
    return THROUGHPUT.findall(text)


# -- read back with python-pptx -------------------------------------------------------------------

def test_every_figure_cell_label_and_headline_holds_value_unit_band_and_a_mark_resolved_beside_it(deck, vendor_deck,
                                                                                                 v51_deck):
    for path in (deck, vendor_deck, v51_deck):
        prs = Presentation(path)
        checked = {"table": 0, "chart": 0, "headline": 0}
        for slide in prs.slides:
            for shape in _tables(slide):
                notes = _notes_in(_footer_rows(shape.table))
                for row in shape.table.rows:
                    for cell in row.cells:
                        text = cell.text
                        if NOTE_LINE.match(text) or not THROUGHPUT.match(text):
                            continue
                        checked["table"] += 1
                        assert BAND.search(text), text
                        marks = MARKS.findall(text)
                        assert marks and all(m in notes for m in marks), (text, sorted(notes))
            for shape in _charts(slide):
                notes = _notes_in(_notes_paras(slide))
                for text in _labels(shape):
                    checked["chart"] += 1
                    assert THROUGHPUT.match(text) and BAND.search(text), text
                    assert MARKS.findall(text) and all(m in notes for m in MARKS.findall(text)), text
            headline = _shape(slide, "Headline")
            if headline is not None:
                paras = [p.text for p in headline.text_frame.paragraphs]
                checked["headline"] += 1
                assert THROUGHPUT.match(paras[0]) and BAND.search(paras[0])
                notes = _notes_in(paras)
                assert all(m in notes for m in MARKS.findall(paras[0]))
                assert "Offline" in paras[1] or "Server" in paras[1] or "Interactive" in paras[1]
                assert "tokens/sample" in paras[1] or "tokens per sample" in paras[1]  # shape inline, same box
        assert sum(checked.values()) >= 15, checked
        if path == deck:
            assert all(checked.values()), checked


def test_the_manifest_lists_every_figure_where_the_deck_shows_it(deck_report, deck, vendor_report, vendor_deck,
                                                                  v51_report, v51_deck):
    for report, path in ((deck_report, deck), (vendor_report, vendor_deck), (v51_report, v51_deck)):
        manifest = read_manifest(path)
        assert manifest_mod.verify(manifest) == []
        assert manifest["format"] == "pptx"
        assert len(manifest["figures"]) == sum(1 for _ in report.figures())
        assert len({e["location"] for e in manifest["figures"]}) == len(manifest["figures"])
        prs = Presentation(path)
        slides = list(prs.slides)
        for entry in manifest["figures"]:
            loc = entry["location"]
            assert entry["shown"]["text"] == entry["text"]  # real names need no escaping
            if m := TABLE_LOC.match(loc):
                s, t, r, c = map(int, m.groups())
                table = _tables(slides[s - 1])[t - 1].table
                assert table.cell(r - 1, c - 1).text == entry["shown"]["text"], loc
                lines = _footer_rows(table)
            elif m := CHART_LOC.match(loc):
                s, k, p = map(int, m.groups())
                assert _labels(_charts(slides[s - 1])[k - 1])[p - 1] == entry["shown"]["text"], loc
                lines = _notes_paras(slides[s - 1])
            else:
                m = HEADLINE_LOC.match(loc)
                assert m, loc
                s = int(m.group(1))
                paras = [x.text for x in _shape(slides[s - 1], "Headline").text_frame.paragraphs]
                assert paras[0] == entry["shown"]["text"]
                lines = paras
            for mark, note in zip(entry["marks"], entry["notes"]):
                assert notes_in(lines).get(mark) == f"[{mark}] {note}", f"{loc}: [{mark}] not resolved on its slide"
                assert pptx_mod.slide_text(note, limit=pptx_mod.NOTE_LIMIT) == note  # real text needs no escaping
            assert manifest_mod.shown_digest(entry["shown"]["text"], None) == entry["shown_sha256"]


def test_the_manifest_is_a_custom_xml_part_and_reveals_edits(deck, tmp_path):
    assert custom_xml_part_names(deck) == ["customXml/item1.xml"]
    with zipfile.ZipFile(deck) as z:
        item = z.read("customXml/item1.xml")
        props = z.read("customXml/itemProps1.xml").decode()
        types = z.read("[Content_Types].xml").decode()
    root = etree.fromstring(item)
    assert root.tag == "{urn:exportguard:manifest}manifest" and root.get("schema") == manifest_mod.SCHEMA
    assert item.isascii()
    assert "urn:exportguard:manifest" in props and "customXmlProperties+xml" in types
    # an edit to the embedded manifest is revealed by its digest
    edited = tmp_path / "edited.pptx"
    with zipfile.ZipFile(deck) as src, zipfile.ZipFile(edited, "w") as dst:
        for info in src.infolist():
            blob = src.read(info)
            if info.filename == "customXml/item1.xml":
                blob = blob.replace(b'"format":"pptx"', b'"format":"pptX"').replace(b'"format": "pptx"',
                                                                                    b'"format": "pptX"')
            dst.writestr(info, blob)
    assert manifest_mod.verify(read_manifest(edited))
    # a deck without the part says so
    stripped = tmp_path / "stripped.pptx"
    with zipfile.ZipFile(deck) as src, zipfile.ZipFile(stripped, "w") as dst:
        for info in src.infolist():
            blob = src.read(info)
            if info.filename == "ppt/_rels/presentation.xml.rels":
                blob = re.sub(rb'<Relationship [^>]*relationships/customXml"[^>]*/>', b"", blob)
            dst.writestr(info, blob)
    # its custom property still states the manifest's digest (docProps/custom.xml, kept by LibreOffice)
    with pytest.raises(ExportguardError, match="exportguard-manifest-sha256 says it carried"):
        read_manifest(stripped)
    with zipfile.ZipFile(stripped) as src, zipfile.ZipFile(bare := tmp_path / "bare.pptx", "w") as dst:
        for info in src.infolist():
            blob = src.read(info)
            if info.filename == "_rels/.rels":
                blob = re.sub(rb'<Relationship [^>]*relationships/custom-properties"[^>]*/>', b"", blob)
            dst.writestr(info, blob)
    with pytest.raises(ManifestNotFound):  # without both, it is a deck that carries none
        read_manifest(bare)


def test_a_hostile_manifest_part_is_refused_not_parsed(deck, tmp_path):
    bomb = tmp_path / "entities.pptx"
    with zipfile.ZipFile(deck) as src, zipfile.ZipFile(bomb, "w") as dst:
        for info in src.infolist():
            blob = src.read(info)
            if info.filename == "customXml/item1.xml":
                blob = (b'<?xml version="1.0"?><!DOCTYPE m [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>'
                        b'<eg:manifest xmlns:eg="urn:exportguard:manifest">&b;</eg:manifest>')
            dst.writestr(info, blob)
    with pytest.raises(ExportguardError, match="document type declaration"):
        read_manifest(bomb)
    not_zip = tmp_path / "not.pptx"
    not_zip.write_bytes(b"PK\x03\x04 broken")
    with pytest.raises(ExportguardError):
        read_manifest(not_zip)


def test_charts_draw_the_bands_as_error_bars_and_carry_cohort_and_shape(deck, vendor_deck):
    checked = not_estimable = 0
    for path in (deck, vendor_deck):
        manifest = read_manifest(path)
        by_location = {e["location"]: e for e in manifest_mod.entries(manifest)}
        prs = Presentation(path)
        for s, slide in enumerate(prs.slides, 1):
            for k, shape in enumerate(_charts(slide), 1):
                space = shape.chart._chartSpace
                ser = space.find(f".//{C}ser")
                bars = ser.find(f"{C}errBars")
                entries = [by_location[f"slide {s}, chart {k}, point {p}"] for p in range(1, len(_labels(shape)) + 1)]
                title = shape.chart.chart_title.text_frame.text
                if entries[0]["band"] is None:  # slack not estimable: no error bars, and the title says why
                    assert bars is None and "no error bars (slack not estimable" in " ".join(title.split())
                    not_estimable += 1
                    continue
                assert bars is not None and bars.find(f"{C}errValType").get("val") == "cust"
                assert bars.find(f"{C}errBarType").get("val") == "both"
                plus = [float(v.text) for v in bars.find(f"{C}plus").iter(f"{C}v")]
                minus = [float(v.text) for v in bars.find(f"{C}minus").iter(f"{C}v")]
                values = [float(v.text) for v in ser.find(f"{C}val").iter(f"{C}v")]
                assert len(plus) == len(minus) == len(entries)
                for e, pv, mv, v in zip(entries, plus, minus, values):
                    assert v == pytest.approx(e["value"])
                    assert pv == pytest.approx(e["value"] * e["band"]) and mv == pytest.approx(pv)
                    checked += 1
                cohort = entries[0]["cohort"]
                assert cohort.split(" (")[0] in " ".join(title.split())
                assert entries[0]["conditions"]["shape"]["dataset"] in title
                assert "output tokens" in title and "error bars: band ±" in " ".join(title.split())
                for dlbl in ser.iter(f"{C}dLbl"):
                    assert dlbl.find(f"{C}tx/{C}rich/{A}bodyPr").get("wrap") == "none"
                descr = shape._element.find(".//{http://schemas.openxmlformats.org/presentationml/2006/main}cNvPr")
                for e in entries:
                    assert e["shown"]["text"] in descr.get("descr")
                # issue 32 item 3: a value axis from zero, light gridlines, the unit in its title; its numbers
                # are a scale under the lowest bar (each bar's label is its bound figure)
                val_ax = shape.chart.value_axis
                assert val_ax.visible and val_ax.minimum_scale == 0 and val_ax.has_major_gridlines
                assert str(val_ax.major_gridlines.format.line.color.rgb) == "D9D9D9"
                unit = entries[0]["unit"] if "unit" in entries[0] else ""
                axis_title = val_ax.axis_title.text_frame.text
                assert ("tok/s" in axis_title or "samples/s" in axis_title or "per 1M" in axis_title), axis_title
                assert unit == "" or unit.split("/")[0][:3] in axis_title, (unit, axis_title)
                assert val_ax._element.find(f"{C}crosses").get("val") == "max"
    assert checked >= 16 and not_estimable >= 1


def test_chart_categories_carry_the_reports_rank_words_in_one_bar_colour(deck, deck_report):
    """Ranks are the report's pairwise spans ("3 (tie 3-11)"); no colour groups bars (a colour shared
    along a chain of neighbours would state ties beyond the slack). tests/test_pptx_truthful.py checks
    every pair of every deck."""
    # the throughput chart; the per-accelerator chart after it shows no rank words (docs/pptx.md)
    chart, *_ = [s for s in deck_report.sections if isinstance(s, ChartSection)]
    want = [span.words() for span in chart.table.ranks]
    shown = []
    for slide in Presentation(deck).slides:
        for shape in _charts(slide):
            ser = shape.chart._chartSpace.find(f".//{C}ser")
            assert ser.findall(f"{C}dPt") == [] and ser.find(f"{C}spPr//{A}schemeClr").get("val") == "accent1"
            shown.append([v.text.split(" · ")[0] for v in ser.find(f"{C}cat").iter(f"{C}v")])
    assert shown[0] == want and any("(tie " in w for w in want)


def test_chart_workbooks_hold_bound_number_formats_and_the_notes(deck, vendor_deck):
    checked = 0
    for path in (deck, vendor_deck):
        prs = Presentation(path)
        for slide in prs.slides:
            for shape in _charts(slide):
                blob = shape.chart.part.chart_workbook.xlsx_part.blob
                cells = pptx_xml.read_chart_workbook(blob)
                texts = [v for _, v, _ in cells if isinstance(v, str)]
                numbers = [(ref, v, fmt) for ref, v, fmt in cells if isinstance(v, (int, float))]
                assert numbers
                for ref, v, fmt in numbers:
                    literal = fmt.split('"', 1)[1] if '"' in fmt else ""
                    assert re.search(r"tok/s|samples/s|per 1M tokens|per accelerator", literal), (ref, fmt)
                    assert BAND.search(literal) and MARKS.search(literal), (ref, fmt)
                    checked += 1
                assert TRADEMARK_LEGEND in texts and SHORT in texts
                notes = _notes_in(texts)
                labels = _labels(shape)
                for label in labels:
                    assert label in texts
                    assert all(m in notes for m in MARKS.findall(label))
                assert not any(re.fullmatch(r"[\d,.]+", t.strip()) for t in texts)  # no number stored as text
    assert checked >= 48


def test_tables_continue_with_their_header_and_their_own_notes_lettered_per_slide(v51_report, v51_deck):
    prs = Presentation(v51_deck)
    slides = list(prs.slides)
    by_section: dict[str, list] = {}
    for slide in slides:
        for shape in _tables(slide):
            if shape.name.startswith("Table "):
                by_section.setdefault(shape.name, []).append((slide, shape.table))
    assert len(by_section) == len(v51_report.sections)
    continued = 0
    for name, parts in by_section.items():
        header = [c.text for c in parts[0][1].rows[0].cells]
        for slide, table in parts:
            assert [c.text for c in table.rows[0].cells] == header
            footer = _footer_rows(table)
            assert footer[-1] == TRADEMARK_LEGEND and "MLPerf® Inference" in footer[0]
            letters = list(notes_in(footer))
            assert letters[:1] == ["a"] and letters == [lay_mark(i) for i in range(len(letters))]
            for row in table.rows:  # every footer row is merged across the table
                tc = row.cells[0]._tc
                if tc.get("gridSpan"):
                    assert all(c._tc.get("hMerge") == "1" for c in list(row.cells)[1:])
        if len(parts) > 1:
            continued += 1
            # each slide says which rows it shows; continuations are named by their cohort, not the headline
            spans = [re.search(r"(\d+)-(\d+) of (\d+) results$", slide.shapes.title.text) for slide, _ in parts]
            assert all(spans) and spans[0].group(1) == "1" and spans[-1].group(2) == spans[-1].group(3)
            assert all(int(b.group(1)) == int(a.group(2)) + 1 for a, b in zip(spans, spans[1:]))
            # every slide keeps the section's title (issue 32: a continuation shown alone is still that table)
            heads = {slide.shapes.title.text[:spans[k].start()] for k, (slide, _) in enumerate(parts)}
            assert len(heads) == 1, heads
    assert continued >= 2


def lay_mark(i: int) -> str:
    from exportguard.wording import mark_name

    return mark_name(i)


def test_layout_keeps_every_shape_on_the_slide_and_tables_above_the_caveat(v51_deck, deck, corp_deck):
    for path in (v51_deck, deck, corp_deck):
        prs = Presentation(path)
        width, height = prs.slide_width, prs.slide_height
        for n, slide in enumerate(prs.slides, 1):
            caveat = _shape(slide, "Caveat (one line)")
            for shape in slide.shapes:
                assert shape.left >= 0 and shape.top >= 0, (n, shape.name)
                assert shape.left + shape.width <= width and shape.top + shape.height <= height, (n, shape.name)
                if shape.has_table:
                    rows = sum(r.height for r in shape.table.rows)
                    cols = sum(c.width for c in shape.table.columns)
                    assert rows == pytest.approx(shape.height, abs=50) and cols <= width
                    if caveat is not None:
                        assert shape.top + rows <= caveat.top, f"slide {n}: table runs into the caveat"
            if caveat is not None:
                assert caveat.text_frame.text == SHORT


def test_the_caveat_takes_the_footer_band_and_a_layout_without_one_keeps_it_under_the_content(deck_report, deck,
                                                                                            tmp_path):
    """The one-line caveat stands where the template's footer placeholders are (they are removed from the
    slides), so that the content area is the figures'; a layout without footer placeholders keeps it at
    the bottom of its content area."""
    band = open_template(None).footer_band
    assert band is not None
    prs = Presentation(deck)
    strips = [_shape(slide, "Caveat (one line)") for slide in prs.slides]
    strips = [c for c in strips if c is not None]
    assert strips and all(abs(c.top / 12700 - band.top) < 0.5 and c.top + c.height <= prs.slide_height
                          for c in strips)
    bare = Presentation(io.BytesIO(build_default()))
    for layout in bare.slide_layouts:
        for ph in list(layout.placeholders):
            if ph.placeholder_format.type.name in ("DATE", "FOOTER", "SLIDE_NUMBER"):
                ph._element.getparent().remove(ph._element)
    bare.save(tmp_path / "no-footers.pptx")
    t = open_template(tmp_path / "no-footers.pptx")
    assert t.footer_band is None
    [path] = export(deck_report, [tmp_path / "deck.pptx"], template=tmp_path / "no-footers.pptx")
    out = Presentation(path)
    for slide in out.slides:
        caveat = _shape(slide, "Caveat (one line)")
        if caveat is not None:
            assert caveat.top + caveat.height <= (t.area.bottom + 0.5) * 12700
            assert all(s.top + s.height <= caveat.top for s in slide.shapes if s.has_table or s.has_chart)


def test_every_figure_slide_has_the_short_caveat_and_every_slide_speaker_notes_with_footnotes(deck, deck_report):
    prs = Presentation(deck)
    manifest = read_manifest(deck)
    by_slide: dict[int, list] = {}
    for e in manifest["figures"]:
        by_slide.setdefault(int(e["location"].split(",")[0].split()[1]), []).append(e)
    for n, slide in enumerate(prs.slides, 1):
        notes = slide.notes_slide.notes_text_frame.text
        assert SHORT in notes and FULL[1] in notes and TRADEMARK_LEGEND in notes, n
        if n in by_slide:
            assert _shape(slide, "Caveat (one line)") is not None
            for e in by_slide[n]:
                assert e["shown"]["text"] in notes
                for m, detail in zip(e["marks"], e["note_details"]):  # each mark's whole footnote
                    assert f"[{m}] {detail}" in notes
    assert set(by_slide) >= {2, 3}


def test_title_caveat_and_sources_slides(deck, deck_report):
    prs = Presentation(deck)
    slides = list(prs.slides)
    first = " ".join(s.text_frame.text for s in slides[0].shapes if s.has_text_frame)
    # the data's dates, not the spec's audience (issue 32)
    assert deck_report.title in first and "Audience:" not in first and "Data: MLPerf® Inference v5.1 results" in first
    assert f"Date: {deck_report.generated_on}" in first and SHORT in first
    caveat = [s for s in slides if s.shapes.title is not None and s.shapes.title.text.startswith("Caveat")]
    text = " ".join(sh.text_frame.text for s in caveat for sh in s.shapes if sh.has_text_frame)
    for paragraph in FULL:
        assert paragraph in text
    assert TRADEMARK_LEGEND in text
    sources = [s for s in slides if s.shapes.title is not None and s.shapes.title.text.startswith("Sources")]
    ids = {row.cells[0].text for s in sources for row in _tables(s)[0].table.rows}
    shown = {f.result.conditions.identity.result_id for _, f in deck_report.figures()}
    assert shown <= ids
    assert slides[-1] in sources


def test_derived_figures_are_labelled_and_get_a_chart_of_their_own(vendor_deck):
    prs = Presentation(vendor_deck)
    manifest = read_manifest(vendor_deck)
    derived = [e for e in manifest["figures"] if e["derived"]]
    assert derived and all("derived" in e["shown"]["text"] for e in derived)
    titles = [shape.chart.chart_title.text_frame.text for s in prs.slides for shape in _charts(s)]
    assert any("(derived), not an MLPerf metric" in " ".join(t.split()) for t in titles)
    for e in derived:
        assert any(note.startswith("Derived, not an MLPerf metric") for note in e["notes"])


def test_the_demo_spec_exports_a_deck(v51_store, tmp_path):
    demo = Path(pptx_mod.__file__).resolve().parents[1] / "data" / "demo.toml"
    report = build_report(v51_store, parse_spec(demo.read_text("utf-8"), name="demo.toml"))
    [path] = export(report, [tmp_path / "demo.pptx"])
    assert len(read_manifest(path)["figures"]) == sum(1 for _ in report.figures())


# -- templates --------------------------------------------------------------------------------------

def test_a_4x3_template_with_other_fonts_is_honoured(corp_deck, templates, deck):
    prs = Presentation(corp_deck)
    assert (prs.slide_width, prs.slide_height) == (9144000, 6858000)
    assert theme_fonts(prs) == ("DejaVu Serif", "DejaVu Serif")
    assert Presentation(deck).slide_width == 12192000
    layouts = {s.slide_layout.name for s in prs.slides}
    assert layouts <= {"Title Slide", "Title Only"}
    for slide in prs.slides:
        for shape in _tables(slide):
            assert shape.left + shape.width <= prs.slide_width
    assert manifest_mod.verify(read_manifest(corp_deck)) == []


def test_a_template_without_a_usable_layout_is_a_clear_error(deck_report, templates, tmp_path, v51_store):
    target = tmp_path / "out" / "out.pptx"
    with pytest.raises(ExportguardError, match=r"blank-only\.pptx: no usable slide layout.*title placeholder"):
        export(deck_report, [target], template=templates["blank"])
    assert list(target.parent.iterdir()) == []
    not_a_deck = tmp_path / "not-a-deck.pptx"
    not_a_deck.write_text("hello")
    with pytest.raises(ExportguardError, match=r"not-a-deck\.pptx: cannot open as a PowerPoint"):
        export(deck_report, [target], template=not_a_deck)
    runner = CliRunner()
    result = runner.invoke(main, ["--db", v51_store.url, "export", "--spec", str(EXAMPLES / "executive-deck.toml"),
                                  "--to", str(target), "--template", str(templates["blank"])])
    assert result.exit_code == 1 and "blank-only.pptx: no usable slide layout" in result.output
    assert list(target.parent.iterdir()) == []


def test_a_squeezed_table_breaks_its_longest_words_and_keeps_short_columns_whole():
    """Where words must break anywhere, one ceiling comes down on the widest columns: a result ID or
    a count keeps its width (a split "5.1-" / "0028" was drawn before), the long system names give."""
    assert lay._ceiling({0: 65, 1: 300, 2: 250}, {0: 54, 1: 60, 2: 60}, 465) == pytest.approx({0: 65, 1: 200, 2: 200})
    assert lay._ceiling({0: 65, 1: 300}, {0: 54, 1: 60}, 500) == {0: 65, 1: 300}  # room enough: as wanted
    assert lay._ceiling({0: 65, 1: 300}, {0: 54, 1: 60}, 50) == pytest.approx({0: 54, 1: 60})  # floors hold
    m = lay.Metrics("DejaVu Sans")
    headers = ["Submitter", "System", "Result ID", "Throughput"]
    row = ["Supermicro_MangoBoost", "GB200-NVL72_GB200-186GB_aarch64x4_TRT", "5.1-0028", "169,197 tok/s ±5.4% [a]"]
    plan = lay.plan_table(m, 400, 400, headers, [row] * 2, nowrap=[3], ladder=((11, 9),), squeeze=True)
    assert not plan.forced
    assert plan.widths[2] >= m.width("5.1-0028", 11) + 2 * lay.CELL_PAD_X
    assert m.lines("5.1-0028", 11, plan.widths[2] - 2 * lay.CELL_PAD_X) == 1
    assert plan.widths[1] < m.width("NVL72_GB200-186GB_aarch64x4_TRT", 11)  # the system name breaks


def test_asked_for_columns_whose_words_do_not_fit_whole_break_them_and_stay_columns(v51_store, tmp_path):
    """Five columns asked for, two of them figures, over the whole llama2-70b-99 Offline cohort: the
    system names (GB200-NVL72_GB200-186GB_aarch64x4_TRT) and submitters (Supermicro_MangoBoost) do
    not fit whole, nor broken after their hyphens, beside the two figure columns. Their words break
    anywhere, as a renderer breaks a word wider than its cell, and every slide keeps the columns
    asked for at 11 / 9 pt, within its bounds (they used to be merged into one "Result" cell)."""
    from exportguard.layout.bounds import Floors, problems
    from exportguard.render.pptx_plan import plan_deck
    from exportguard.render.pptx_template import open_template

    spec = parse_spec('''
title = "Per accelerator"
[[section]]
kind = "table"
title = "llama2-70b-99 Offline, per accelerator"
filters = { round = "v5.1", division = "closed", model = "llama2-70b", track = "99", scenario = "Offline" }
columns = ["submitter", "system", "accelerators", "throughput", "per_accelerator"]
''', name="per-accelerator.toml")
    report = build_report(v51_store, spec)
    document = plan_deck(report, open_template(None))
    tables = [b for u in document.units for b in u.blocks if getattr(b, "headers", None) and b.name != "Sources"]
    assert tables and all(list(t.headers) == ["Submitter", "System", "Accelerators", "Throughput",
                                               "Per accelerator (derived)"] for t in tables), {t.headers for t in tables}
    assert sum(len(t.rows) for t in tables) == 47 and min(t.body_pt for t in tables) >= 11
    assert problems(document, Floors(11, 9, 10)) == []
    [deck] = export(report, [tmp_path / "per-accelerator.pptx"])
    assert deck.exists()


def test_a_table_too_wide_for_the_slide_is_refused_with_the_way_out(v51_store, templates, tmp_path):
    """Twelve columns asked for, three of them figures, on a 4:3 slide: not one row with its notes
    fits at 11 / 9 pt, and columns asked for are never merged into one cell. The deck is refused in
    one line naming the table, its columns and the way out (it used to be drawn at 7 pt, running off
    the slide); the same report exports to a workbook. On a slide too narrow for the figures alone,
    the refusal says by how much."""
    from exportguard.spec import load_prices

    spec = parse_spec('''
title = "Every column"
[[section]]
kind = "table"
title = "llama2-70b-99 Offline, every column"
filters = { round = "v5.1", division = "closed", model = "llama2-70b", track = "99", scenario = "Offline" }
columns = ["rank", "submitter", "system", "accelerator", "accelerators", "availability", "result_id",
           "tokens_per_sample", "software", "throughput", "per_accelerator", "cost_per_million_tokens"]
limit = 6
''', name="wide.toml")
    report = build_report(v51_store, spec, load_prices(EXAMPLES / "prices.example.toml"))
    with pytest.raises(ExportguardError) as refused:
        export(report, [tmp_path / "wide-4x3.pptx"], template=templates["corp"])
    message = str(refused.value)
    assert "\n" not in message and "'llama2-70b-99 Offline, every column" in message, message
    assert "its 12 columns (rank, submitter, system," in message and "Way out: fewer columns" in message
    assert "columns asked for stay columns" in message
    assert not (tmp_path / "wide-4x3.pptx").exists()
    [book] = export(report, [tmp_path / "wide.xlsx"])
    assert book.exists()
    narrow = tmp_path / "narrow.pptx"
    narrow.write_bytes(build_default(width_in=5.5))
    with pytest.raises(ExportguardError, match="its 3 figure columns alone need [0-9.]+ in at"):
        export(report, [tmp_path / "narrow-out.pptx"], template=narrow)


def test_the_cli_writes_a_deck_on_a_corporate_template(v51_store, templates, tmp_path):
    runner = CliRunner()
    target = tmp_path / "deck.pptx"
    result = runner.invoke(main, ["--db", v51_store.url, "export", "--spec", str(EXAMPLES / "executive-deck.toml"),
                                  "--to", str(target), "--template", str(templates["corp"])])
    assert result.exit_code == 0, result.output
    assert Presentation(target).slide_width == 9144000


def test_a_templates_own_slides_and_custom_xml_are_handled(deck, deck_report, tmp_path):
    """Slides a template carries are not exported; its own custom XML items are kept; a stale
    exportguard manifest (a deck used as a template) is replaced, not read back."""
    prs = Presentation(io.BytesIO(build_default()))
    slide = prs.slides.add_slide(prs.slide_layouts[0])
    slide.shapes.title.text = "Sample slide of a corporate template"
    pptx_xml.add_custom_xml(prs, b'<props xmlns="urn:example:sharepoint"><owner>x</owner></props>',
                            "urn:example:sharepoint")
    pptx_xml.embed_manifest(prs, ['{"schema": "stale"}'], "stale")
    template = tmp_path / "corp-with-slide.pptx"
    prs.save(template)
    [path] = export(deck_report, [tmp_path / "out.pptx"], template=template)
    out = Presentation(path)
    assert len(out.slides) == len(Presentation(deck).slides)
    assert all("Sample slide" not in (s.shapes.title.text if s.shapes.title else "") for s in out.slides)
    assert len(custom_xml_part_names(path)) == 2  # the template's own item and ours
    manifest = read_manifest(path)
    assert manifest["schema"] == manifest_mod.SCHEMA and manifest_mod.verify(manifest) == []
    # a deck exported by exportguard is itself a usable template
    [again] = export(deck_report, [tmp_path / "again.pptx"], template=deck)
    assert len(custom_xml_part_names(again)) == 1 and manifest_mod.verify(read_manifest(again)) == []


def test_the_shipped_default_template_is_what_the_builder_makes():
    shipped = Presentation(DEFAULT_PATH)
    built = Presentation(io.BytesIO(build_default()))
    assert (shipped.slide_width, shipped.slide_height) == (built.slide_width, built.slide_height) == (12192000, 6858000)
    assert [lo.name for lo in shipped.slide_layouts] == [lo.name for lo in built.slide_layouts]
    assert theme_fonts(shipped) == theme_fonts(built) == ("Calibri", "Calibri")
    assert len(shipped.slides) == 0
    t = open_template()
    assert t.content_layout.name == "Title Only" and t.title_layout.name == "Title Slide"


# -- hostile names ------------------------------------------------------------------------------------

HOSTILE = [
    "999,999 tok/s ±0.1% [a]",
    "Evil\u202eCorp\u202c \u2067RTL\u2069",
    "شركة الذكاء الاصطناعي 42 والحوسبة",
    "bell\x07esc\x1b[31mnul\x00tab\tnewline\nend\ufffe",
    "zero\u200bwidth\u2060joiner\ufeffname",
    "L" + "ong name " * 60,
    '=HYPERLINK("http://x","y") & <b>bold</b>',
    "12.5 samples/s [b][c]",
]


@pytest.fixture(scope="module")
def hostile(v51_store, tmp_path_factory):
    rows = v51_store.results(round="v5.1", division="closed", model="llama2-70b", accuracy_track="99",
                             scenario="Offline")[: len(HOSTILE)]
    bad = [dataclasses.replace(r, conditions=dataclasses.replace(r.conditions, identity=dataclasses.replace(
        r.conditions.identity, submitter=name, system_name=name[::-1] + " system"))) for r, name in zip(rows, HOSTILE)]
    slack = v51_store.cohort_slack(rows[0].cohort_key)
    table = bind_table(bad, title="Hostile names", slack=slack,
                       columns=("rank", "submitter", "system", "accelerators", "availability", "throughput"))
    sections = (kpi(bad[0], slack, "Headline of 123,456 tok/s ±9% [z] \u202e"),
                TableSection("Hostile names \u202e 1,000 tok/s", table),
                ChartSection("Hostile chart (llama2-70b-99 Offline, OpenOrca, max 1,024 output tokens)", table),
                TextSection("Text 5 tok/s", ("Paragraph with 77 tok/s ±1% [q] and \x00 nul",)))
    report = Report("Hostile deck \u202e 42 tok/s", "test\x07", sections, SHORT, FULL, TRADEMARK_LEGEND,
                    generated_on="2025-09-09")
    # Straight to the renderer: the guard may refuse such names before any renderer sees them, and the
    # renderer's own escaping must hold whatever reaches it.
    path = tmp_path_factory.mktemp("pptx_hostile") / "hostile.pptx"
    pptx_mod.render(report, path)
    return report, path


def test_hostile_names_render_safely(hostile):
    report, path = hostile
    prs = Presentation(path)  # python-pptx (and lxml) read every part
    manifest = read_manifest(path)
    assert manifest_mod.verify(manifest) == []
    figures = {e["shown"]["text"] for e in manifest["figures"]}
    assert len(manifest["figures"]) == sum(1 for _ in report.figures())
    texts = list(_all_texts(prs))
    joined = "\n".join(t for _, t in texts)
    for n, text in texts:
        assert not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]", text), (n, text)
        assert not re.search("[\u202a-\u202e\u2066-\u2069\u200b\u2060\ufeff]", text), (n, text)
        assert not _figure_like_outside(text, figures), (n, text)  # no source text passes for a figure
    assert '999,999 "tok/s" ±0.1% (a)' in joined and '12.5 "samples/s" (b)(c)' in joined
    # bidi controls shown, not obeyed (by this renderer as ‹U+202E›, or as U+FFFD by a shared layer before it)
    assert re.search("Evil(‹U\\+202E›|\ufffd)Corp", joined)
    assert "شركة الذكاء الاصطناعي 42 والحوسبة\u200e" in joined  # kept, closed by a left-to-right mark
    assert re.search("bell\ufffdesc\ufffd\\[31mnul\ufffdtab newline end\ufffd", joined)
    assert re.search("zero\ufffd?width\ufffd?joiner\ufffd?name", joined)
    assert re.search(r"L(ong name ){5,}.*….{0,3}\[.*cut.*\]", joined)  # cut visibly
    assert '=HYPERLINK("http://x","y") & <b>bold</b>' in joined  # shown as text
    conditions = [e["conditions"]["identity"]["submitter"] for e in manifest_mod.entries(manifest)]
    assert HOSTILE[0] in conditions  # the manifest keeps the data as stored


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.text(st.characters(exclude_categories=("Cs",))), st.sampled_from(
    ["\u202e", "\u2066", "\u200b", "\x00", " tok/s", "tok/sx", "[a]", "[abcd]", "±", "1,234", "7", " samples/s",
     "\n", "\ufffe", "USD per 1M tokens", "\u00a0", " ", "\u05d0"]))).map("".join))
@example("TOK/S0A;00[a]")  # found by Hypothesis: '00(a)' read as a figure once its mark was defused
def test_slide_text_is_always_safe(text):
    out = pptx_mod.slide_text(text)
    assert not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff\n\r\t]", out)
    assert not re.search("[\u202a-\u202e\u2066-\u2069\u200b\u2060\ufeff]", out)
    assert not find_figures(out)  # nothing that reads like a figure survives
    assert len(out) <= pptx_mod.CELL_LIMIT + 1
    etree.fromstring(f"<t>{out.replace('&', '&amp;').replace('<', '&lt;')}</t>".encode())  # XML 1.0 can carry it
    # a bound figure's own text is only cleaned, never neutralised
    assert pptx_mod.slide_text("101,527 tok/s ±5.4% [a]", figure=True) == "101,527 tok/s ±5.4% [a]"


# -- atomic writes, imports --------------------------------------------------------------------------

def test_interrupted_export_leaves_no_file(deck_report, tmp_path, monkeypatch):
    calls = {"n": 0}
    real = pptx_xml.table_xml

    def failing(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 2:
            raise RuntimeError("disk full (simulated)")
        return real(*args, **kwargs)

    monkeypatch.setattr(pptx_xml, "table_xml", failing)
    target = tmp_path / "out" / "deck.pptx"
    with pytest.raises(RuntimeError, match="simulated"):
        export(deck_report, [target])
    assert calls["n"] == 2
    assert not target.exists() and list(target.parent.iterdir()) == []


def test_help_does_not_import_pptx_or_pil():
    code = ("import sys; from click.testing import CliRunner; from exportguard.cli import main; "
            "r = CliRunner().invoke(main, ['export', '--help']); assert '--template' in r.output, r.output; "
            "print([m for m in ('pptx', 'PIL', 'lxml', 'xlsxwriter') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_metrics_fall_back_to_a_wider_font_when_the_theme_font_is_missing():
    missing = lay.Metrics("No Such Font 123")
    assert not missing.installed
    dejavu = lay.Metrics("DejaVu Sans")
    text = "101,527 tok/s ±5.4% [a]"
    assert missing.width(text, 12) == pytest.approx(dejavu.width(text, 12))
    assert missing.lines("word " * 50, 10, 100) > 5
    assert lay.Metrics("DejaVu Sans Mono").width("iiii", 10) > dejavu.width("iiii", 10)  # metrics, not a guess


@pytest.mark.parametrize("word, pieces", [
    ("SYS-422GS-NBRT-LCC", ["SYS-422GS-", "NBRT-", "LCC"]),
    ("GB300-NVL72_GB300-288GB", ["GB300-", "NVL72_GB300-288GB"]),  # never before a digit: "-288GB" stays whole
    ("H100-80GB", ["H100-80GB"]), ("-5", ["-5"]), ("a--b", ["a--", "b"]), ("end-", ["end-"]), ("", [""]),
])
def test_a_word_breaks_after_its_hyphens_but_never_before_a_digit(word, pieces):
    assert lay._breakable(word) == pieces


def test_columns_that_do_not_fit_whole_words_break_them_after_hyphens_and_only_then():
    """Six columns whose whole words are wider than the slide fit once words break after their
    hyphens (as LibreOffice and PowerPoint break them); a table whose whole words fit keeps them whole."""
    m = lay.Metrics("DejaVu Sans")
    headers = ["Rank", "Submitter", "System", "Accelerators", "Availability", "Throughput"]
    row = ["3 (tie 3-11)", "Supermicro", "SYS-422GS-NBRT-LCC (8x B200-SXM-180GB, TensorRT)", "48 (6 nodes x 8)",
           "available", "169,197 tok/s ±5.4% [a]"]
    pad = 2 * lay.CELL_PAD_X
    whole = sum(max(m.em(c)[1], m.em(h, bold=True)[1]) * 11 + pad for c, h in zip(row[:5], headers)) + \
        max(m.em(row[5])[0], m.em(headers[5], bold=True)[1]) * 11 + pad  # the narrowest table of whole words
    width = whole - 20
    plan = lay.plan_table(m, width, 400, headers, [row] * 3, nowrap=[5], ladder=((11, 9),))
    assert not plan.forced and plan.widths[2] < m.longest_word(row[2], 11) + 2 * lay.CELL_PAD_X
    assert m.wrap(row[2], 11, plan.widths[2] - 2 * lay.CELL_PAD_X)[0].endswith("-")  # broken where it was measured
    roomy = lay.plan_table(m, 900, 400, headers, [row] * 3, nowrap=[5], ladder=((11, 9),))
    assert roomy.widths[2] >= m.longest_word(row[2], 11) + 2 * lay.CELL_PAD_X


# -- LibreOffice -------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def rendered(deck, corp_deck, hostile, tmp_path_factory):
    tool("pdftotext")
    tool("pdftoppm")
    paths = [deck, corp_deck, hostile[1]]
    return {p.name: pdf for p, pdf in zip(paths, convert(paths, tmp_path_factory.mktemp("pptx_pdf")))}


def _pages(pdf: Path, layout: bool = True) -> list[str]:
    text = pdf_text(pdf, layout=layout)
    return text.split("\f")[:-1] if text.endswith("\f") else text.split("\f")


def _squash(text: str) -> str:
    return "".join(text.split())


def _unbroken(text: str) -> str:
    """Squashed, and without hyphens: pdftotext joins a line that ends on a hyphen to the next one
    and drops the hyphen ("Result 5.1-" / "0028" reads "5.10028"), where the slide shows both."""
    return _squash(text).replace("-", "")


def _box_text(pdf: Path, page: int, shape) -> str:
    """The text pdftotext reads inside one shape's box on one page (points: the slide's EMU / 12,700)."""
    if shape is None:
        return ""
    x, y, w, h = (round(v / 12700) for v in (shape.left, shape.top, shape.width, shape.height))
    args = ["pdftotext", "-f", str(page), "-l", str(page), "-x", str(x), "-y", str(y), "-W", str(w), "-H", str(h),
            str(pdf), "-"]
    return subprocess.run(args, capture_output=True, text=True, check=True, timeout=60).stdout


def _words(pdf: Path) -> list[tuple[int, float, float, list]]:
    """Per page: (page, width, height, [(xmin, ymin, xmax, ymax, word), ...])."""
    html = subprocess.run(["pdftotext", "-bbox-layout", str(pdf), "-"], capture_output=True, check=True,
                          timeout=60).stdout
    root = etree.fromstring(html, etree.HTMLParser(encoding="utf-8"))
    out = []
    for n, page in enumerate(root.iter("page"), 1):
        words = [(float(w.get("xmin")), float(w.get("ymin")), float(w.get("xmax")), float(w.get("ymax")), w.text or "")
                 for w in page.iter("word")]
        out.append((n, float(page.get("width")), float(page.get("height")), words))
    return out


def _check_rendered(path: Path, pdf: Path) -> None:
    prs = Presentation(path)
    manifest = read_manifest(path)
    pages = _pages(pdf)
    # the notes in reading order: a chart's notes stand in two boxes side by side, which pdftotext's
    # -layout mode interleaves line by line
    read = _pages(pdf, layout=False)
    assert len(pages) == len(prs.slides) == len(read)
    # and each notes box alone, read in its order: uncropped, a chart's bar labels can fall between them
    boxed = ["\n".join(_box_text(pdf, n, box) for box in _notes_boxes(slide)) for n, slide in enumerate(prs.slides, 1)]
    for entry in manifest["figures"]:
        slide = int(entry["location"].split(",")[0].split()[1])
        page = pages[slide - 1]
        assert any(entry["shown"]["text"] in line for line in page.splitlines()), \
            f"{path.name} slide {slide}: {entry['shown']['text']!r} not on one line"
        for m, note in zip(entry["marks"], entry["notes"]):
            shown = pptx_mod.slide_text(note, limit=pptx_mod.NOTE_LIMIT)  # as the slide shows it (escaped)
            if any(unicodedata.bidirectional(ch) in ("R", "AL") for ch in shown):
                continue  # pdftotext writes right-to-left runs in its own order
            assert any(_unbroken(f"[{m}] {shown}") in _unbroken(text) for text in (page, read[slide - 1], boxed[slide - 1])), \
                f"{path.name} slide {slide}: note [{m}] not on the page"
    emu = 12700
    for (n, width, height, words), slide in zip(_words(pdf), prs.slides):
        assert width == pytest.approx(prs.slide_width / emu, abs=0.5)
        for x0, y0, x1, y1, w in words:
            assert -0.5 <= x0 and x1 <= width + 0.5 and -0.5 <= y0 and y1 <= height + 0.5, f"slide {n}: {w!r} off the slide"
        caveat = _shape(slide, "Caveat (one line)")
        if caveat is None:
            continue
        strip_top = caveat.top / emu
        below = [w for w in words if w[1] >= strip_top - 1]
        assert _squash(" ".join(w[4] for w in below)) == _squash(SHORT), f"slide {n}: something runs into the caveat"
        assert not [w for w in words if w[1] < strip_top - 1 < w[3]], f"slide {n}: text straddles the caveat"
        for shape in _tables(slide):
            left, right, top = shape.left / emu, (shape.left + shape.width) / emu, shape.top / emu
            inside = [w for w in words if top - 1 <= w[1] < strip_top - 1]
            assert inside and all(left - 1 <= w[0] and w[2] <= right + 1 for w in inside), \
                f"slide {n}: text outside its table"
        def within(w, shape):
            return shape.left / emu - 1 <= w[0] and w[2] <= (shape.left + shape.width) / emu + 1

        boxes = _notes_boxes(slide)
        for shape in _charts(slide) + boxes:
            top, bottom = shape.top / emu, (shape.top + shape.height) / emu
            inside = [w for w in words if top <= (w[1] + w[3]) / 2 <= bottom]
            # a notes box's neighbour stands beside it, at the same height: a word must lie in one of them
            peers = boxes if shape in boxes else [shape]
            assert all(any(within(w, p) for p in peers) for w in inside), f"slide {n}: text outside {shape.name}"


def test_a_chart_slides_note_stands_whole_in_one_notes_box_as_libreoffice_draws_it(deck, rendered):
    """Two notes boxes side by side on a wide slide, each holding whole notes: no note begins at the
    foot of one and ends at the top of the other, as one box flowing into two columns would break it."""
    pdf = rendered[deck.name]
    split = 0
    for n, slide in enumerate(Presentation(deck).slides, 1):
        boxes = _notes_boxes(slide)
        if len(boxes) < 2:
            continue
        split += 1
        for box in boxes:
            drawn = _unbroken(_box_text(pdf, n, box))
            for para in box.text_frame.paragraphs:
                for note in re.split(r" (?=\[[a-z]+\] )", para.text):
                    assert _unbroken(note) in drawn, f"slide {n}: {note[:60]!r} not whole in {box.name}"
    assert split, "no chart slide with two notes boxes in the deck"


def test_libreoffice_shows_each_figure_with_its_binding_and_its_notes_on_the_same_slide(deck, rendered):
    pdf = rendered[deck.name]
    _check_rendered(deck, pdf)
    text = "\n".join(_pages(pdf))
    assert re.search(r"169,197 tok/s ±5\.4% \[a\]", text)
    folder = artifacts("pptx", pdf.parent / "png")
    for old in folder.glob("executive-deck-*.png"):
        old.unlink()
    subprocess.run(["pdftoppm", "-png", "-r", "80", str(pdf), str(folder / "executive-deck")], check=True, timeout=120)
    pngs = sorted(folder.glob("executive-deck-*.png"))
    assert len(pngs) == len(Presentation(deck).slides) and all(p.stat().st_size > 5000 for p in pngs)


def test_libreoffice_renders_the_4x3_deck_in_the_templates_fonts(corp_deck, rendered):
    pdf = rendered[corp_deck.name]
    _check_rendered(corp_deck, pdf)
    fonts = subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True, check=True).stdout
    assert "DejaVuSerif" in fonts
    folder = artifacts("pptx", pdf.parent / "png")
    subprocess.run(["pdftoppm", "-png", "-r", "60", "-f", "1", "-l", "4", str(pdf), str(folder / "deck-4x3")],
                   check=True, timeout=120)
    assert sorted(folder.glob("deck-4x3-*.png"))


def test_libreoffice_renders_hostile_names_without_figure_like_text(hostile, rendered):
    report, path = hostile
    pdf = rendered[path.name]
    _check_rendered(path, pdf)
    figures = {e["shown"]["text"] for e in read_manifest(path)["figures"]}
    for n, page in enumerate(_pages(pdf), 1):
        for line in page.splitlines():
            assert not _figure_like_outside(line, figures), (n, line)


@pytest.mark.parametrize("width_in", [None, 10])
def test_hostile_names_keep_every_slide_within_its_bounds(hostile, tmp_path, width_in):
    """Long names wrap in full in tables and chart labels (never cut with an ellipsis): the plan still
    puts every block on its slide, none over another, at the floors, on 16:9 and on a 4:3 template."""
    from exportguard.layout.bounds import Floors, problems
    from exportguard.render.pptx_plan import plan_deck
    from exportguard.render.pptx_template import build_default, open_template

    report, _ = hostile
    source = None
    if width_in:
        source = tmp_path / "corp-4x3.pptx"
        source.write_bytes(build_default(width_in=width_in, font="DejaVu Serif"))
    deck = plan_deck(report, open_template(source))
    assert problems(deck, Floors()) == []
    bars = [b for u in deck.units for blk in u.blocks if hasattr(blk, "bars") for b in blk.bars]
    labels = [" ".join(b.category) for b in bars]
    assert bars and any("more characters cut]" in t for t in labels)  # the long name: cut only by its limit
    assert not any("…" in re.sub(r"… \[[\d,]+ more characters cut\]", "", t) for t in labels), labels
