"""XLSX export (issue 4): every throughput cell carries its binding, read back with openpyxl and
rendered by LibreOffice.

The LibreOffice cases convert the workbook to PDF with ``soffice --headless`` and read the text with
``pdftotext``; they skip when LibreOffice is not installed, except under CI (CI=true), where that is
a failure. The first rendered page is left as artifacts/xlsx/*.png for a person to look at.
"""
from __future__ import annotations

import dataclasses
import os
import re
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openpyxl import load_workbook
from openpyxl.utils import column_index_from_string

from exportguard import manifest as manifest_mod
from exportguard.caveat import FULL, SHORT, TRADEMARK_LEGEND
from exportguard.guard import GuardError, bind_table
from exportguard.check.manifests import ManifestNotFound, read_manifest
from exportguard.render import export
from exportguard.wording import NO_SLACK
from exportguard.render import xlsx
from exportguard.render import xlsx_layout
from exportguard.report import Report, TableSection
from exportguard.ingest import ingest_path
from exportguard.spec import build_report, parse_spec, spec_from_filters
from exportguard.store import open_store
from tests.conftest import SUMMARY_V41, SUMMARY_V51
from tests.office import artifacts, convert, pdf_text, tool

pytestmark = pytest.mark.real_data

MARKS = re.compile(r"\[([a-z]+)\]")
NOTE_ROW = re.compile(r"^\[([a-z]+)\] ")
LOCATION = re.compile(r"^'((?:[^']|'')+)'!([A-Z]+[0-9]+)$")

VENDOR_SPEC = '''
title = "Vendor comparison: llama2-70b-99 Offline"
audience = "procurement"
[filters]
round = "v5.1"
division = "closed"
[[section]]
kind = "kpi"
title = "Highest llama2-70b-99 Offline throughput"
filters = { model = "llama2-70b", track = "99", scenario = "Offline" }
[[section]]
kind = "text"
title = "How to read this workbook"
text = """Each figure carries its unit, band and note mark.

=cmd|' /C calc'!A0 stays text: a paragraph that looks like a formula."""
[[section]]
kind = "table"
title = "llama2-70b-99 Offline, per accelerator"
filters = { model = "llama2-70b", track = "99", scenario = "Offline" }
derived = ["per_accelerator"]
[[section]]
kind = "chart"
title = "llama3.1-8b Server"
filters = { model = "llama3.1-8b", scenario = "Server" }
'''


# -- fixtures ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def v51_report(v51_store):
    return build_report(v51_store, spec_from_filters({"round": ("v5.1",), "division": ("closed",)},
                                                     split_by_cohort=True))


@pytest.fixture(scope="module")
def v51_workbook(v51_report, tmp_path_factory):
    target = tmp_path_factory.mktemp("xlsx_out") / "v51-closed.xlsx"
    [path] = export(v51_report, [target])
    return path


@pytest.fixture(scope="module")
def vendor_report(v51_store):
    return build_report(v51_store, parse_spec(VENDOR_SPEC, name="vendor.toml"))


@pytest.fixture(scope="module")
def vendor_workbooks(vendor_report, tmp_path_factory):
    folder = tmp_path_factory.mktemp("xlsx_vendor")
    [numeric] = export(vendor_report, [folder / "vendor.xlsx"])
    [text] = export(vendor_report, [folder / "vendor-text.xlsx"], text_cells=True)
    return numeric, text


def _cell(wb, location: str):
    m = LOCATION.match(location)
    assert m, location
    return wb[m.group(1).replace("''", "'")][m.group(2)]


def _all_cells(wb):
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if c.value is not None:
                    yield ws, c


def _header_row(ws) -> int:
    """A table sheet's header row: the last of the rows frozen above its data."""
    return int(ws.freeze_panes[1:]) - 1


def _notes_on(ws) -> dict[str, str]:
    """The sheet's notes, '[a] text', wherever they stand: under the table, or above its header (a sheet
    printed in strips repeats them beside the title, once in each strip that shows marks)."""
    notes = {}
    for row in ws.iter_rows(values_only=True):
        for value in row:
            if isinstance(value, str) and NOTE_ROW.match(value):
                notes[NOTE_ROW.match(value).group(1)] = value
    return notes


def _above_header(ws) -> list[str]:
    """The texts above a table's header row (the rows its printed pages repeat), row by row, each
    row left to right, each text once."""
    out = []
    for row in ws.iter_rows(values_only=True):
        if row and row[0] == "Rank":
            return out
        out += [v for v in row if isinstance(v, str) and v not in out]
    return out


def _assert_no_formulas(wb):
    for ws, c in _all_cells(wb):
        assert c.data_type != "f", f"{ws.title}!{c.coordinate} is a formula: {c.value!r}"
        if isinstance(c.value, str) and c.value.startswith("="):
            assert c.data_type == "s", f"{ws.title}!{c.coordinate}"


def _displayed(cell) -> str:
    """What a cell shows: a string as it is; a number as its format's digits (half away from zero,
    as spreadsheets round) followed by the format's literal text."""
    if cell.data_type == "s":
        return cell.value
    fmt = cell.number_format
    digits, _, literal = fmt.partition('"')
    places = len(digits.split(".")[1]) if "." in digits else 0
    from exportguard.wording import number

    return number(cell.value, places) + literal.rstrip('"')


THROUGHPUT = re.compile(r"\d[\d,.]* (tok/s|samples/s|queries/s|USD per 1M tokens)")


# -- read back with openpyxl -------------------------------------------------------------------

def test_every_cell_that_shows_a_throughput_unit_carries_band_and_a_mark_resolved_on_its_sheet(v51_workbook,
                                                                                               vendor_workbooks):
    for path in (v51_workbook, *vendor_workbooks):
        wb = load_workbook(path)
        checked = 0
        for ws in wb.worksheets:
            if ws.sheet_state != "visible":
                continue
            notes = _notes_on(ws)
            for row in ws.iter_rows():
                for cell in row:
                    if cell.value is None:
                        continue
                    shown = _displayed(cell)
                    if not THROUGHPUT.match(shown) or NOTE_ROW.match(shown):
                        continue
                    checked += 1
                    assert re.search(r"±\d+(\.\d+)?%|slack not estimable", shown), f"{ws.title}!{cell.coordinate}: {shown}"
                    marks = MARKS.findall(shown)
                    assert marks, f"{ws.title}!{cell.coordinate}: {shown!r} has no mark"
                    assert all(m in notes for m in marks), f"{ws.title}!{cell.coordinate}: {shown!r}"
        assert checked > 50



def test_every_throughput_cell_is_bound(v51_report, v51_workbook):
    manifest = read_manifest(v51_workbook)
    assert manifest_mod.verify(manifest) == []
    figures = [f for _, f in v51_report.figures()]
    assert len(manifest["figures"]) == len(figures) > 300
    assert len({e["location"] for e in manifest["figures"]}) == len(figures)
    wb = load_workbook(v51_workbook)
    for entry in manifest["figures"]:
        cell = _cell(wb, entry["location"])
        fmt = cell.number_format
        assert cell.data_type == "n" and cell.value == pytest.approx(entry["value"])
        assert "tok/s" in fmt, fmt
        assert re.search(r"±\d+(\.\d+)?%", fmt) or "slack not estimable" in fmt, fmt
        assert entry["band_text"] in fmt or entry["band"] is None and NO_SLACK in fmt  # the reason: its table note
        marks = MARKS.findall(fmt)
        assert marks == entry["marks"]
        assert _displayed(cell) == entry["shown"]["text"] == entry["text"]
        notes = _notes_on(cell.parent)
        for m, note in zip(marks, entry["notes"]):
            assert notes.get(m) == f"[{m}] {note}", f"{entry['location']}: mark [{m}] has no note on its sheet"
        assert cell.comment is not None and cell.comment.text.startswith(entry["text"])
        for detail in entry["note_details"]:  # the comment holds the row's whole footnote (marked, or "This row:"
            assert detail in cell.comment.text  # where one mark per table points at the table note)
        assert "Closed division" in cell.comment.text and "Shape:" in cell.comment.text
    _assert_no_formulas(wb)


def test_one_sheet_per_cohort_with_conditions_caveat_and_legend(v51_report, v51_workbook):
    wb = load_workbook(v51_workbook)
    tables = [s.table for s in v51_report.sections]
    assert len(tables) == 12
    visible = [ws for ws in wb.worksheets if ws.sheet_state == "visible"]
    assert [ws.title for ws in visible][-2:] == ["Caveat", "Sources"]
    sheets = visible[:-2]
    assert len(sheets) == len(tables)
    assert "llama2-70b-99 Offline" in wb.sheetnames
    plan = xlsx.plan_formats(v51_report)
    for n, (ws, table) in enumerate(zip(sheets, tables), 1):
        assert len(ws.title) <= 31 and not re.search(r"[\[\]:*?/\\]", ws.title)
        above = _above_header(ws)
        # the table note; with one mark for the table, it is that mark's note
        table_mark = plan.mode(n) == xlsx.fmts.TABLE
        note = f"[a] {plan.lettering(n).table_note.text}" if table_mark else table.table_note.text
        assert note in above and note.removeprefix("[a] ").startswith(table.table_note.text) and SHORT in above
        texts = [v for row in ws.iter_rows(values_only=True) for v in row if isinstance(v, str)]
        assert TRADEMARK_LEGEND in texts
        # the scales of a comparison across them (EG020), under the caveat, before the header row
        shown = [a for a in above if a in [notice.text for notice in table.notices]]
        assert shown == [notice.text for notice in table.notices]
        assert all(above.index(a) > above.index(SHORT) for a in shown)
        header_row = next(c.row for c in ws["A"] if c.value == "Rank")
        headers = [c.value for c in ws[header_row]]
        assert "Throughput, tok/s" in headers and "Band low edge, tok/s" in headers
        assert "Band high edge, tok/s" in headers
        assert "Verified" in headers
        assert ws.freeze_panes == f"A{header_row + 1}"
        assert ws.auto_filter.ref.startswith(f"A{header_row}:")
        assert ws.print_title_rows.replace("$", "") == f"1:{header_row}"
        assert ws.page_setup.orientation == "landscape" and ws.page_setup.paperSize == 9  # A4 unless asked
        # a planned scale, never fit-to-width (that shrank a wide sheet's text to 3-4 pt on paper)
        assert ws.page_setup.scale >= 73 and not (ws.sheet_properties.pageSetUpPr and ws.sheet_properties.pageSetUpPr.fitToPage)
        assert ws.oddFooter.center.text == SHORT
        for letter, dim in ws.column_dimensions.items():
            assert 5 <= dim.width <= 250
        # the band edges are for the screen: the printed columns end before them
        printed = ws.print_area[0] if isinstance(ws.print_area, list) else ws.print_area
        if printed:
            last_printed = printed.split(":")[-1].lstrip("$").split("$")[0]
            assert headers[column_index_from_string(last_printed)].startswith("Band low edge")
        # every note: one cell, merged within one printed strip (never across a page edge), tall enough
        edges = sorted({0, *(b.id for b in ws.col_breaks.brk), len(headers)})
        note_cells = [c for row in ws.iter_rows(max_row=ws.max_row) for c in row
                      if isinstance(c.value, str) and NOTE_ROW.match(c.value)]
        assert {NOTE_ROW.match(c.value).group(1) for c in note_cells} == {m for m, _ in plan.lettering(n).notes()}
        for c in note_cells:
            span = next((r for r in ws.merged_cells.ranges if r.min_row == c.row and r.min_col == c.column), None)
            first, last = (span.min_col, span.max_col) if span else (c.column, c.column)
            assert not any(first - 1 < e < last for e in edges[1:-1]), f"{ws.title}!{c.coordinate} crosses a page edge"
            assert sum(ws.row_dimensions[r].height or 15 for r in range(c.row, (span.max_row if span else c.row) + 1)) >= 15
        # band columns: numeric and within the figure's band
        fig_col = headers.index("Throughput, tok/s") + 1
        for r in range(header_row + 1, header_row + 1 + len(table.rows)):
            value = ws.cell(r, fig_col).value
            low, high = (ws.cell(r, headers.index(f"Band {edge} edge, tok/s") + 1) for edge in ("low", "high"))
            if table.slack.estimable:
                b = table.slack.band_fraction
                assert low.value == pytest.approx(value * (1 - b)) and high.value == pytest.approx(value * (1 + b))
                assert "tok/s, low edge of ±" in low.number_format and "tok/s, high edge of ±" in high.number_format
                assert MARKS.findall(low.number_format) == MARKS.findall(ws.cell(r, fig_col).number_format)
            else:
                assert low.data_type == "s" and low.value.startswith("slack not estimable")
    assert wb["exportguard_manifest"].sheet_state == "veryHidden"


def test_caveat_and_sources_sheets(v51_report, v51_workbook):
    wb = load_workbook(v51_workbook)
    caveat = [v for (v,) in wb["Caveat"].iter_rows(min_col=1, max_col=1, values_only=True) if v]
    for paragraph in FULL:
        assert paragraph in caveat
    sources = wb["Sources"]
    rows = list(sources.iter_rows(values_only=True))
    # what every result shares is stated once above the header; what tells them apart stays a column
    said, header = rows[2][0], rows[3]
    assert said.startswith("Every result in this table: Suite: MLPerf® Inference: Datacenter; Round: v5.1; Division: closed;")
    assert "every source in it starts with https://github.com/mlcommons/inference_results_v5.1/tree/main/" in said
    assert header[:3] == ("Result ID", "Submitter", "System")
    assert {"Benchmark, scenario", "Source", "Shown on"} <= set(header)
    assert not {"Source kind", "Source locator"} & set(header)  # no ingest jargon, no local path (issue 32)
    assert not {"Suite", "Round", "Division"} & set(header)
    shown = {f.result.conditions.identity.result_id for _, f in v51_report.figures()}
    by_id = {r[0]: dict(zip(header, r)) for r in rows[4:] if r[0] in shown}
    assert set(by_id) == shown
    prefix = said.split("every source in it starts with ")[1].split(";")[0].rstrip(".")
    for _, fig in v51_report.figures():  # the URL stated once and the row's rest give the source back whole
        row = by_id[fig.result.conditions.identity.result_id]
        assert prefix + row["Source"] == fig.result.conditions.provenance.source_url
    assert rows[-1][0] == TRADEMARK_LEGEND


def test_manifest_survives_a_resave_and_reveals_edits(v51_workbook, tmp_path):
    # Excel (here openpyxl) re-saving turns inline strings into shared strings: still readable
    wb = load_workbook(v51_workbook)
    resaved = tmp_path / "resaved.xlsx"
    wb.save(resaved)
    manifest = read_manifest(resaved)
    assert manifest_mod.verify(manifest) == []
    ws = wb["exportguard_manifest"]
    (cell,) = [c for (c,) in ws.iter_rows(max_col=1) if '"format":"xlsx"' in c.value]
    cell.value = cell.value.replace('"format":"xlsx"', '"format":"xlsX"')
    wb.save(resaved)
    assert manifest_mod.verify(read_manifest(resaved))
    with pytest.raises(ManifestNotFound):
        del wb["exportguard_manifest"]
        wb.save(resaved)
        read_manifest(resaved)


def test_manifest_chunks(v51_report, tmp_path, monkeypatch):
    monkeypatch.setattr(xlsx, "MANIFEST_CHUNK", 1000)
    returned = xlsx.render(v51_report, tmp_path / "chunks.xlsx")
    wb = load_workbook(tmp_path / "chunks.xlsx")
    chunks = [v for (v,) in wb["exportguard_manifest"].iter_rows(values_only=True)]
    assert len(chunks) > 100 and all(len(c) <= 1000 for c in chunks)
    assert read_manifest(tmp_path / "chunks.xlsx") == returned


# -- the guard at export -----------------------------------------------------------------------

def test_mixed_cohorts_are_refused_with_the_way_out(v51_store):
    with pytest.raises(GuardError) as e:
        build_report(v51_store, spec_from_filters({"round": ("v5.1",), "division": ("closed",)}, split_by_cohort=False))
    assert any(f.rule_id == "EG003" and "split" in f.message for f in e.value.findings)
    spec = parse_spec('''
title = "llama2-70b against llama3.1-8b"
[[section]]
kind = "table"
title = "Offline"
filters = { round = "v5.1", division = "closed", model = ["llama2-70b", "llama3.1-8b"], scenario = "Offline" }
''')
    with pytest.raises(GuardError) as e:
        build_report(v51_store, spec)
    found = [f for f in e.value.findings if f.rule_id == "EG003"]
    assert found and "split" in found[0].message and "llama3.1-8b" in found[0].message


# -- text cells, derived columns, KPI and text sections ----------------------------------------

def test_vendor_spec_numeric(vendor_report, vendor_workbooks):
    path, _ = vendor_workbooks
    wb = load_workbook(path)
    assert wb.sheetnames[:2] == ["Headline", "Notes"]
    manifest = read_manifest(path)
    assert manifest_mod.verify(manifest) == []
    assert len(manifest["figures"]) == sum(1 for _ in vendor_report.figures())
    headline = _cell(wb, manifest["figures"][0]["location"])
    assert headline.parent.title == "Headline" and headline.data_type == "n" and headline.comment
    derived = [e for e in manifest["figures"] if e["derived"]]
    assert derived
    for entry in derived:
        cell = _cell(wb, entry["location"])
        assert "derived" in cell.number_format and "per accelerator" in cell.number_format
        header = cell.parent.cell(_header_row(cell.parent), cell.column).value
        assert "derived" in header and "basis in note [" in header
        basis = MARKS.search(header.split("basis in note", 1)[1]).group(1)
        assert "Derived, not an MLPerf metric" in _notes_on(cell.parent)[basis]
        assert cell.font.i  # never styled as the official figures
    notes = [c for _, c in _all_cells(wb) if c.parent.title == "Notes"]
    looks_like_formula = [c for c in notes if str(c.value).startswith("=cmd")]
    assert looks_like_formula and looks_like_formula[0].data_type == "s"
    _assert_no_formulas(wb)


def test_text_cells_mode(vendor_report, vendor_workbooks):
    _, path = vendor_workbooks
    wb = load_workbook(path)
    manifest = read_manifest(path)
    assert manifest_mod.verify(manifest) == []
    table_entries = [e for e in manifest["figures"] if not e["location"].startswith("'Headline'")]
    assert table_entries
    for entry in table_entries:
        cell = _cell(wb, entry["location"])
        assert cell.data_type == "s" and cell.value == entry["shown"]["text"] == entry["text"]
        sort = cell.offset(0, 1)
        assert sort.data_type == "n" and sort.value == pytest.approx(entry["value"])
        assert "sort value" in cell.parent.cell(_header_row(cell.parent), sort.column).value.lower()
        assert cell.comment is not None
    assert any(re.fullmatch(r"101,527 tok/s ±5\.4% \[[a-z]+\]", e["shown"]["text"]) for e in table_entries)
    _assert_no_formulas(wb)


# -- hostile text ------------------------------------------------------------------------------

HOSTILE = ['=HYPERLINK("http://x","y")', "+1+1", "-2+3", "@SUM(A1:A2)", "\tTAB=1", "\rCR=1", "#N/A",
           "bell\x07and\x00nul\ufffe"]


def test_text_cells_stay_text(v51_store, tmp_path):
    rows = [r for r in v51_store.results(round="v5.1", division="closed", model="llama2-70b",
                                         accuracy_track="99", scenario="Offline")][: len(HOSTILE)]
    hostile = [dataclasses.replace(r, conditions=dataclasses.replace(
        r.conditions, identity=dataclasses.replace(r.conditions.identity, submitter=name, system_name="=1+" + name)))
        for r, name in zip(rows, HOSTILE)]
    table = bind_table(hostile, title="Hostile names", slack=v51_store.cohort_slack(rows[0].cohort_key))
    report = Report("Hostile", "test", (TableSection("Hostile names", table),), SHORT, FULL, TRADEMARK_LEGEND)
    [path] = export(report, [tmp_path / "hostile.xlsx"])
    wb = load_workbook(path)
    _assert_no_formulas(wb)
    values = {c.value: c for _, c in _all_cells(wb) if c.data_type == "s"}
    assert values['=HYPERLINK("http://x","y")'].data_type == "s"
    assert values['=HYPERLINK("http://x","y")'].quotePrefix  # stays text when edited, too
    assert "#N/A" in values and "+1+1" in values and "@SUM(A1:A2)" in values
    assert " CR=1" in values and " TAB=1" in values  # a name is one line: breaks and tabs become spaces
    assert "bell\ufffdand\ufffdnul\ufffd" in values  # controls shown, never passed on or silently dropped
    assert next(manifest_mod.entries(read_manifest(path)))["conditions"]["identity"]["submitter"] in HOSTILE
    assert manifest_mod.verify(read_manifest(path)) == []


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_worksheet_text_always_fits_a_cell(text):
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE, Cell

    from exportguard.escaping import worksheet_text
    from openpyxl import Workbook

    cleaned = worksheet_text(text)
    assert not ILLEGAL_CHARACTERS_RE.search(cleaned) and "\r" not in cleaned
    assert len(cleaned) <= 32_767
    cleaned.encode("utf-8")  # no lone surrogates
    Cell(Workbook().active, value=cleaned)


def test_sheet_names():
    taken = {"caveat", "sources", "exportguard_manifest", "history"}
    names = [xlsx_layout.unique_sheet_name(n, taken) for n in
             ["a/b:c*d?e[f]g\\h", "Caveat", "x" * 40, "x" * 40, "'quoted'", "", "Sources"]]
    assert len({n.lower() for n in names}) == len(names)
    for n in names:
        assert 0 < len(n) <= 31 and not re.search(r"[\[\]:*?/\\]", n) and not n.startswith("'")
    assert xlsx.sheet_location("it's", "B2") == "'it''s'!B2"


# -- interrupted export ------------------------------------------------------------------------

def test_interrupted_export_leaves_no_file(v51_report, tmp_path, monkeypatch):
    from openpyxl.worksheet import _writer

    calls = {"n": 0}
    real = xlsx._Cell.with_comment

    def failing(self, *args):
        calls["n"] += 1
        if calls["n"] == 60:
            raise RuntimeError("disk full (simulated)")
        return real(self, *args)

    monkeypatch.setattr(xlsx._Cell, "with_comment", failing)
    before = set(_writer.ALL_TEMP_FILES)
    target = tmp_path / "out" / "comparison.xlsx"
    with pytest.raises(RuntimeError, match="simulated"):
        export(v51_report, [target])
    assert not target.exists()
    assert list(target.parent.iterdir()) == []  # no .part file either
    assert not [p for p in set(_writer.ALL_TEMP_FILES) - before if os.path.exists(p)]


# -- LibreOffice -------------------------------------------------------------------------------

def _to_pdf(paths: list[Path], outdir: Path) -> list[Path]:
    tool("pdftotext")
    tool("pdftoppm")
    return convert(paths, outdir, timeout=180)


def _shown_on_one_line(entry, lines: list[str]) -> bool:
    return any(entry["shown"]["text"] in line for line in lines)


def _pdf_text(pdf: Path) -> str:
    return pdf_text(pdf)


def _first_page_png(pdf: Path, name: str) -> Path:
    prefix = artifacts("xlsx", pdf.parent) / name
    subprocess.run(["pdftoppm", "-png", "-r", "60", "-f", "1", "-l", "1", "-singlefile", str(pdf), str(prefix)],
                   check=True, timeout=60)
    return prefix.with_suffix(".png")


@pytest.fixture(scope="module")
def rendered(v51_workbook, vendor_workbooks, tmp_path_factory):
    outdir = tmp_path_factory.mktemp("xlsx_pdf")
    paths = [v51_workbook, *vendor_workbooks]
    pdfs = _to_pdf(paths, outdir)
    return {p.name: pdf for p, pdf in zip(paths, pdfs)}


def test_libreoffice_shows_each_figure_with_its_binding(v51_workbook, rendered):
    pdf = rendered["v51-closed.xlsx"]
    text = _pdf_text(pdf)
    lines = text.splitlines()
    assert re.search(r"101,527 tok/s ±5\.4% \[[a-z]+\]", text)
    manifest = read_manifest(v51_workbook)
    for entry in manifest["figures"]:
        assert _shown_on_one_line(entry, lines), f"{entry['shown']['text']!r} not on one line of the rendered PDF"
    assert "###" not in text  # no figure cut off by a narrow column
    flat = " ".join(text.split())
    for entry in manifest["figures"]:
        for m, note in zip(entry["marks"], entry["notes"]):
            assert " ".join(f"[{m}] {note}".split())[:60] in flat
    assert TRADEMARK_LEGEND[:60] in flat and SHORT[:60] in flat
    png = _first_page_png(pdf, "v51-closed-first-page")
    assert png.exists() and png.stat().st_size > 1000


def test_libreoffice_renders_the_vendor_spec(vendor_workbooks, rendered):
    for path in vendor_workbooks:
        text = _pdf_text(rendered[path.name])
        lines = text.splitlines()
        for entry in read_manifest(path)["figures"]:
            assert _shown_on_one_line(entry, lines), f"{path.name}: {entry['shown']['text']!r}"
        assert "###" not in text
        assert "=cmd|' /C calc'!A0 stays text" in text
    _first_page_png(rendered["vendor.xlsx"], "vendor-first-page")


def test_sources_keep_a_column_where_results_differ_in_it(tmp_path):
    """Results of two rounds: the round stays a column (with each row's own), and the shared
    folder is stated only where every row is in it."""
    from exportguard.layout.compose import _shared_folder

    url = f"sqlite:///{tmp_path / 'two-rounds.db'}"
    with open_store(url) as store:
        ingest_path(store, SUMMARY_V51)
        ingest_path(store, SUMMARY_V41)
        report = build_report(store, parse_spec(
            'title = "Two rounds"\n[[section]]\nkind = "table"\ntitle = "llama2-70b-99 Offline, two rounds"\n'
            'filters = { division = "closed", model = "llama2-70b", track = "99", scenario = "Offline" }\n'
            'split_by_cohort = true\nlimit = 3\n'))
    [path] = export(report, [tmp_path / "two-rounds.xlsx"])
    rows = list(load_workbook(path)["Sources"].iter_rows(values_only=True))
    said, header = rows[2][0], rows[3]
    assert "Round" in header and "Round:" not in said
    rounds = {dict(zip(header, r))["Round"] for r in rows[4:] if r[1]}  # the legend row has one cell
    assert rounds == {"v4.1", "v5.1"}
    assert "source locator" not in said and "/" + "work" not in said  # no local folder (issue 32): paths are in the manifest
    assert _shared_folder(["/a/very/long/folder/x.json row 1", "/a/very/long/folder/y.json row 2"]) == "/a/very/long/folder/"
    assert _shared_folder(["/a/x.json", "/a/y.json"]) == ""  # too short to be worth stating once
    assert _shared_folder(["/a/very/long/folder/x.json", ""]) == ""


def test_a_mark_means_one_thing_in_the_whole_workbook(v51_store, tmp_path):
    """The demo's workbook: its tables carry one mark each (the table note), and so does its headline:
    [a] is the note of the conditions, source and retrieval on every sheet, the headline's too, never
    a row's own note on one sheet and the table's on the next (issue 34 item 4)."""
    from exportguard.spec import load_spec

    spec = Path(xlsx.__file__).resolve().parents[1] / "data" / "demo.toml"
    report = build_report(v51_store, load_spec(spec))
    [path] = export(report, [tmp_path / "demo.xlsx"])
    wb = load_workbook(path)
    firsts = {ws.title: _notes_on(ws).get("a") for ws in wb.worksheets if ws.sheet_state == "visible"}
    firsts = {title: note for title, note in firsts.items() if note}
    assert "Headline" in firsts and len(firsts) >= 4
    for title, note in firsts.items():
        assert "Each row's result ID and verified status stand in its row" in note, (title, note)
