"""A beside section in a workbook (issue 20 item 5): the MLPerf cohort and the own runs on one sheet,
side by side, each panel with its own header, band rule and notes (marks lettered across both, none
twice), and under both the shape panel with both shapes in numbers; it checks clean, also after
LibreOffice has opened and saved it. The own runs are the real load-test files in shared/own-traffic."""
from __future__ import annotations

import re

import pytest
from openpyxl import load_workbook
from openpyxl.utils import column_index_from_string

from exportguard.manifest import entries as entries_of
from exportguard.check.engine import check
from exportguard.check.manifests import read_manifest
from exportguard.render import export
from exportguard.spec import build_report, parse_spec
from tests.office import convert
from tests.own_runs import BESIDE

pytestmark = pytest.mark.real_data
LOCATION = re.compile(r"^'((?:[^']|'')+)'!([A-Z]+)([0-9]+)$")


@pytest.fixture(scope="module")
def beside(mixed, tmp_path_factory):
    report = build_report(mixed, parse_spec(BESIDE))
    [path] = export(report, [tmp_path_factory.mktemp("xlsx_beside") / "beside.xlsx"])
    return report, path


def _where(entry) -> tuple[str, int, int]:
    m = LOCATION.match(entry["location"])
    return m.group(1).replace("''", "'"), column_index_from_string(m.group(2)), int(m.group(3))


def test_both_panels_stand_side_by_side_on_one_sheet_with_their_own_notes(beside):
    report, path = beside
    (section,) = report.sections
    manifest = read_manifest(path)
    entries = list(entries_of(manifest))
    assert len(entries) == sum(len(t.rows) for t in section.tables())
    sheets = {_where(e)[0] for e in entries}
    assert len(sheets) == 1
    (name,) = sheets
    assert name == "llama2-70b-99 Offline, own runs"
    mlperf = [e for e in entries if e["conditions"]["identity"]["mlperf"]]
    own = [e for e in entries if not e["conditions"]["identity"]["mlperf"]]
    assert len(mlperf) == 4 and len(own) == sum(len(t.rows) for t in section.own)
    # side by side: every own figure right of every MLPerf column, on rows the MLPerf panel spans too
    assert max(_where(e)[1] for e in mlperf) < min(_where(e)[1] for e in own)
    assert min(_where(e)[2] for e in own) <= max(_where(e)[2] for e in mlperf)
    # marks lettered across both panels: no mark resolves to two notes on the sheet
    notes: dict[str, str] = {}
    for e in entries:
        for m, note in zip(e["marks"], e["notes"]):
            assert notes.setdefault(m, note) == note, m
    assert not set(m for e in mlperf for m in e["marks"]) & set(m for e in own for m in e["marks"])
    wb = load_workbook(path)
    ws = wb[name]
    texts = [(c.column, c.value) for row in ws.iter_rows() for c in row if isinstance(c.value, str)]
    mlperf_last = max(_where(e)[1] for e in mlperf) + 2  # the band edges after the figure
    for m, note in notes.items():  # each panel's notes stand in its own columns
        cols = [col for col, v in texts if v.startswith(f"[{m}] ") and note in v]
        assert cols, m
        is_own = note.startswith("Own measurement")
        assert all((col > mlperf_last) == is_own for col in cols), (m, cols)
    joined = "\n".join(v for _, v in texts)
    for t in section.tables():
        assert t.table_note.text in joined
    assert section.shape.mlperf.shape in joined and section.shape.sentence in joined
    for r in section.shape.own:
        assert r.shape in joined and r.load in joined
    assert report.caveat_short in joined
    for e in entries:  # numbers that sort, each with its binding in its format
        sheet, col, row = _where(e)
        cell = ws.cell(row, col)
        assert cell.data_type == "n" and cell.value == pytest.approx(e["value"])


def test_the_beside_workbook_checks_clean_also_after_a_libreoffice_round_trip(beside, tmp_path):
    _, path = beside
    [r] = check([path])
    assert r.status == "clean", [str(h) for h in r.hits[:5]]
    (saved,) = convert([path], tmp_path, "xlsx")
    [r] = check([saved])
    assert r.status == "clean", [str(h) for h in r.hits[:5]]
    assert r.manifest["figures"] == len(read_manifest(path)["figures"])


def test_past_the_budget_the_mlperf_panel_takes_one_mark_and_the_own_runs_keep_theirs(mixed, tmp_path,
                                                                                       monkeypatch):
    from exportguard.render import xlsx_formats as fmts

    monkeypatch.setattr(fmts, "BUDGET", 20)
    report = build_report(mixed, parse_spec(BESIDE.replace("limit = 4\n", "")))
    [path] = export(report, [tmp_path / "table-mark.xlsx"])
    entries = list(entries_of(read_manifest(path)))
    mlperf = [e for e in entries if e["conditions"]["identity"]["mlperf"]]
    own = [e for e in entries if not e["conditions"]["identity"]["mlperf"]]
    assert len(mlperf) > 20 and {tuple(e["marks"]) for e in mlperf} == {("a",)}
    assert len({tuple(e["marks"]) for e in own}) == len(own) and all("a" not in e["marks"] for e in own)
    [r] = check([path])
    assert r.status == "clean", [str(h) for h in r.hits[:5]]
