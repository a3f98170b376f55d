"""The number-format budget (issue 21 item 1): every workbook exportguard writes, at any size, holds at
most 200 custom number formats, and every figure still shows its unit, band and mark after LibreOffice
has read the workbook (checked on every figure, not a sample); the checker reports any workbook over
the budget (EG024).

Large exports are real v5.1 llama2-70b-99 Offline results replicated, each copy its own system (so each
row keeps a note of its own, as distinct results would), bound by the guard as any export is.
"""
from __future__ import annotations

import csv
import html
import dataclasses
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from openpyxl import Workbook, load_workbook

from exportguard.manifest import entries as entries_of
from exportguard.caveat import FULL, SHORT, TRADEMARK_LEGEND
from exportguard.check.engine import check
from exportguard.check.manifests import read_manifest
from exportguard.check.xlsx_reader import column_index
from exportguard.guard import bind_table
from exportguard.render import export, xlsx
from exportguard.render import xlsx_formats as fmts
from exportguard.report import Report, TableSection
from exportguard.spec import build_report, load_spec, spec_from_filters
from exportguard.wording import decimals_for
from tests.office import tool

pytestmark = pytest.mark.real_data

COHORT = dict(round="v5.1", division="closed", model="llama2-70b", accuracy_track="99", scenario="Offline")
# every sheet, each to its own CSV file, cells as shown (LibreOffice 7.2+: the 12th token -1)
CSV_FILTER = "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true,false,false,-1"
LOCATION = re.compile(r"^'((?:[^']|'')+)'!([A-Z]+)([0-9]+)$")
MARKS = re.compile(r"\[([a-z]+)\]")


def replicated_report(store, n: int) -> Report:
    real = store.results(**COHORT)
    slack = store.cohort_slack(real[0].cohort_key)
    copies = []
    for k in range(n):
        r = real[k % len(real)]
        i = r.conditions.identity
        identity = dataclasses.replace(i, system_id=f"{i.system_id}-copy{k}", system_name=f"{i.system_name} #{k}")
        copies.append(dataclasses.replace(r, conditions=dataclasses.replace(r.conditions, identity=identity)))
    table = bind_table(copies, title=f"{n:,} results, llama2-70b-99 Offline", slack=slack)
    return Report("Results", "benchmark", (TableSection(table.title, table),), SHORT, FULL, TRADEMARK_LEGEND)


def custom_formats(path: Path) -> list[str]:
    """The custom number formats a workbook defines, read from its styles part."""
    styles = zipfile.ZipFile(path).read("xl/styles.xml").decode("utf-8")
    return [html.unescape(code) for code in re.findall(r'<numFmt [^>]*formatCode="([^"]*)"', styles)]


@pytest.fixture(scope="module")
def exported(v51_store, tmp_path_factory):
    """n -> (workbook, its manifest), made once per size the tests ask for."""
    folder = tmp_path_factory.mktemp("xlsx_budget")
    made: dict[int, tuple[Path, dict]] = {}

    def get(n: int):
        if n not in made:
            [path] = export(replicated_report(v51_store, n), [folder / f"figures-{n}.xlsx"])
            made[n] = (path, read_manifest(path))
        return made[n]
    return get


def _within_budget(path: Path, manifest: dict, n: int) -> list[str]:
    codes = custom_formats(path)
    assert len(codes) <= 200, f"{path.name}: {len(codes)} custom number formats"
    assert len(manifest["figures"]) == n
    return codes


def test_50_figures_carry_their_rows_own_marks(exported):
    path, manifest = exported(50)
    codes = _within_budget(path, manifest, 50)
    wb = load_workbook(path)
    marks = set()
    for e in entries_of(manifest):
        m = LOCATION.match(e["location"])
        cell = wb[m.group(1)][m.group(2) + m.group(3)]
        assert cell.data_type == "n" and cell.number_format in codes
        assert MARKS.findall(cell.number_format) == e["marks"]
        marks.add(tuple(e["marks"]))
    assert len(marks) == 50  # each row its own note, so its own mark


@pytest.mark.slow
@pytest.mark.parametrize("n", [20_000, 100_000])
def test_large_exports_share_one_mark_per_table(exported, n):
    path, manifest = exported(n)
    codes = _within_budget(path, manifest, n)
    assert len([c for c in codes if "tok/s" in c]) <= 12  # figure and band edges, per decimals and labels
    assert any("(tie " in c for c in codes)  # the rest of the budget: ranks and counts, shared
    entries = list(entries_of(manifest))
    assert {tuple(e["marks"]) for e in entries} == {("a",)}
    assert all(e["notes"][0].startswith(entries[0]["notes"][0][:40]) for e in entries[:100])
    if n == 20_000:  # the row's own note stays in its cells and its cell comment
        wb = load_workbook(path)
        for e in entries[::997]:
            m = LOCATION.match(e["location"])
            ws = wb[m.group(1)]
            cell = ws[m.group(2) + m.group(3)]
            ident = e["conditions"]["identity"]
            row = [c.value for c in ws[int(m.group(3))]]
            assert ident["result_id"] in row and ident["verified"] in row and ident["system_name"] in row
            assert f"This row: {ident['submitter']}, {ident['system_name']}." in cell.comment.text
            assert "[a] " + e["notes"][0] in cell.comment.text


@pytest.mark.parametrize("n", [50, pytest.param(20_000, marks=pytest.mark.slow),
                               pytest.param(100_000, marks=pytest.mark.slow)])
def test_the_streamed_workbook_defines_only_the_formats_its_cells_use_and_checks_clean(exported, n):
    """The writer registers a number format when a cell first takes it: the budget planned is the budget
    written, whatever the size; and the checker reads the streamed workbook clean, every figure found."""
    path, manifest = exported(n)
    codes = custom_formats(path)
    assert len(codes) == len(set(codes)) <= 200
    styles = zipfile.ZipFile(path).read("xl/styles.xml").decode("utf-8")
    defined = set(re.findall(r'<numFmt numFmtId="(\d+)"', styles))
    cell_formats = styles[styles.index("<cellXfs"):styles.index("</cellXfs>")]
    assert defined <= set(re.findall(r'<xf numFmtId="(\d+)"', cell_formats))
    [r] = check([path], isolate=False)
    assert r.status == "clean", [str(h) for h in r.hits[:5]]
    assert r.manifest["digest_ok"] and r.manifest["figures"] == n and r.manifest["edited"] == 0


def test_the_example_workbooks_stay_within_the_budget(v51_store, tmp_path):
    reports = [build_report(v51_store, spec_from_filters({"round": ("v5.1",), "division": ("closed",)},
                                                         split_by_cohort=True))]
    examples = Path(__file__).resolve().parents[1] / "examples"
    for name in ("vendor-comparison.toml", "executive-deck.toml", "briefing.toml"):
        reports.append(build_report(v51_store, load_spec(examples / name)))
    for k, report in enumerate(reports):
        for text_cells in (False, True):
            [path] = export(report, [tmp_path / f"r{k}-{text_cells}.xlsx"], text_cells=text_cells)
            assert len(custom_formats(path)) <= 200, (k, text_cells)
            [r] = check([path], isolate=False)
            assert r.hits == [], [str(h) for h in r.hits[:5]]


def test_past_the_budget_tables_become_text_beside_a_sort_column(v51_store, tmp_path, monkeypatch):
    monkeypatch.setattr(fmts, "BUDGET", 12)
    report = build_report(v51_store, spec_from_filters({"round": ("v5.1",), "division": ("closed",)},
                                                       split_by_cohort=True))
    plan = xlsx.plan_formats(report)
    assert fmts.TEXT in plan.modes.values() and fmts.TABLE in plan.modes.values()
    manifest = xlsx.render(report, tmp_path / "budget.xlsx")
    assert len(custom_formats(tmp_path / "budget.xlsx")) <= 12
    wb = load_workbook(tmp_path / "budget.xlsx")
    as_text = 0
    for e in entries_of(manifest):
        m = LOCATION.match(e["location"])
        cell = wb[m.group(1)][m.group(2) + m.group(3)]
        if cell.data_type == "s":
            as_text += 1
            assert cell.value == e["shown"]["text"] and cell.offset(0, 1).data_type == "n"
            assert cell.offset(0, 1).number_format == fmts.sort_format(decimals_for(e["value"]))
            above = [v for row in cell.parent.iter_rows(max_row=cell.row - 1, values_only=True) for v in row]
            assert xlsx.BUDGET_SENTENCE in above
            # one meaning of a mark in the workbook: beside tables with one mark, [a] is the table note here too
            assert e["marks"][0] == "a"
            assert any(isinstance(v, str) and v.startswith("[a] ") and "Each row's result ID" in v for v in above)
    assert as_text
    [r] = check([tmp_path / "budget.xlsx"], isolate=False)
    assert r.hits == [], [str(h) for h in r.hits[:5]]


# -- the checker: any workbook over the budget ------------------------------------------------------

def _formats_workbook(path: Path, n: int) -> Path:
    wb = Workbook()
    ws = wb.active
    for k in range(n):
        ws.cell(k + 1, 1, k).number_format = f'0" widgets, lot {k}"'
    wb.save(path)
    return path


def test_the_checker_reports_anyones_workbook_over_the_budget(tmp_path):
    [over] = check([_formats_workbook(tmp_path / "over.xlsx", 201)], isolate=False)
    assert [(h.rule_id, h.location) for h in over.hits] == [("EG024", "workbook styles")]
    assert "201 custom number formats" in over.hits[0].message
    [at] = check([_formats_workbook(tmp_path / "at.xlsx", 200)], isolate=False)
    assert at.hits == []


def test_the_checker_reports_an_exportguard_workbook_over_the_budget(v51_store, tmp_path, monkeypatch):
    monkeypatch.setattr(fmts, "BUDGET", 100_000)  # as exportguard wrote workbooks before the budget
    [path] = export(replicated_report(v51_store, 100), [tmp_path / "old.xlsx"])
    assert len(custom_formats(path)) > 300  # a format per figure and band edge, and the ranks and counts
    [r] = check([path], isolate=False)
    assert [h.rule_id for h in r.hits] == ["EG024"]


# -- LibreOffice: every figure keeps its unit, band and mark ------------------------------------------

def _libreoffice_csv(path: Path, outdir: Path) -> None:
    """LibreOffice headless, with a profile of its own: each sheet to '<stem>-<sheet>.csv'."""
    exe = tool("soffice", "libreoffice")
    profile = outdir / "lo-profile"
    done = subprocess.run([exe, f"-env:UserInstallation=file://{profile}", "--headless", "--convert-to", CSV_FILTER,
                           "--outdir", str(outdir), str(path)], capture_output=True, text=True, timeout=3600)
    shutil.rmtree(profile, ignore_errors=True)
    assert done.returncode == 0, done.stdout + done.stderr


def _csv_cells(csv_dir: Path, stem: str, sheet: str) -> list[list[str]]:
    with (csv_dir / f"{stem}-{sheet}.csv").open(encoding="utf-8", newline="") as f:
        return list(csv.reader(f))


def assert_libreoffice_shows_every_binding(path: Path, manifest: dict, outdir: Path) -> int:
    """Convert with LibreOffice (every sheet to CSV, cells as shown) and compare each figure's cell and
    its band edges with what the manifest says the workbook shows there. Returns the figures checked."""
    outdir.mkdir(exist_ok=True)
    _libreoffice_csv(path, outdir)
    sheets: dict[str, list[list[str]]] = {}
    headers: dict[tuple[str, str], list[str]] = {}
    checked = 0
    for e in entries_of(manifest):
        m = LOCATION.match(e["location"])
        sheet, col, row = m.group(1).replace("''", "'"), column_index(m.group(2)), int(m.group(3))
        if sheet not in sheets:
            sheets[sheet] = _csv_cells(outdir, path.stem, sheet)
        cells = sheets[sheet][row - 1]
        assert cells[col - 1] == e["shown"]["text"], f"{e['location']}: LibreOffice shows {cells[col - 1]!r}"
        marks = "".join(f"[{x}]" for x in e["marks"])
        if e["band"] is not None and not e["derived"]:
            key = (sheet, e["unit"])  # the band edges are the table's last columns: found by their header
            if key not in headers:
                headers[key] = next(h for h in sheets[sheet] if f"Band low edge, {e['unit']}" in h)
            header = headers[key]
            for word in ("low", "high"):
                edge = cells[header.index(f"Band {word} edge, {e['unit']}")]
                assert re.fullmatch(rf"[\d,.]+ {re.escape(e['unit'])}, {word} edge of {re.escape(e['band_text'])} "
                                    rf"{re.escape(marks)}.*", edge), f"{e['location']}: {word} edge {edge!r}"
        checked += 1
    return checked


@pytest.mark.parametrize("n", [50, pytest.param(20_000, marks=pytest.mark.slow)])
def test_libreoffice_shows_every_figure_bound(exported, tmp_path, n):
    """50 figures with their cell comments; 20,000 without them (as at 100,000 below: LibreOffice loads
    20,000 comments in about 90 s, and the formats under test do not depend on them)."""
    path, manifest = exported(n)
    if n > 50:
        stripped = without_comments(path, tmp_path / path.name)
        assert custom_formats(stripped) == custom_formats(path)
        path, tmp_path = stripped, tmp_path / "lo"
    assert assert_libreoffice_shows_every_binding(path, manifest, tmp_path) == n


def without_comments(path: Path, target: Path) -> Path:
    """The workbook without its cell comments (and their VML drawing): every cell, style and number
    format as written. LibreOffice 7.4 makes a drawing object of each comment, and 100,000 of them take it
    more than 10 GB and half an hour to load; the formats under test do not depend on them."""
    comment_part = re.compile(r"xl/(comments/comment\d+\.xml|drawings/commentsDrawing\d+\.vml)$")
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            if comment_part.match(item.filename):
                continue
            data = src.read(item)
            if item.filename.endswith(".rels"):
                data = re.sub(rb'<Relationship [^>]*/(comments|vmlDrawing)"[^>]*/>', b"", data)
            elif item.filename.startswith("xl/worksheets/sheet"):
                data = re.sub(rb"<legacyDrawing [^>]*/>", b"", data)
            elif item.filename == "[Content_Types].xml":
                data = re.sub(rb"<Override [^>]*comment[^>]*/>", b"", data)
            dst.writestr(item, data)
    return target


@pytest.mark.slow
def test_libreoffice_shows_every_figure_bound_at_100000(exported, tmp_path):
    path, manifest = exported(100_000)
    stripped = without_comments(path, tmp_path / path.name)
    assert custom_formats(stripped) == custom_formats(path)
    assert assert_libreoffice_shows_every_binding(stripped, manifest, tmp_path / "lo") == 100_000
