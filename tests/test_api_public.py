"""The public API, through `exportguard` only (no internal module is imported here): every name in
``exportguard.__all__``, on the real v5.1 data. Internal modules may change; these calls may not."""
from __future__ import annotations

import csv
import dataclasses
import importlib
import os
import pkgutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

import exportguard as eg
from tests.conftest import SUMMARY_V51, TREE_V51

pytestmark = pytest.mark.real_data

REPO = Path(__file__).resolve().parents[1]
OFFLINE_70B = dict(round="v5.1", division="closed", model="llama2-70b", track="99", scenario="Offline")


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("api")
    with eg.open_store(f"sqlite:///{folder / 'store.db'}") as s:
        reports = eg.ingest_sources(s, TREE_V51, SUMMARY_V51, retrieved="2025-09-09")
        assert [r.reconciles for r in reports] == [True, True]
        yield s


# -- the names ------------------------------------------------------------------------------

def test_every_name_in_all_resolves_and_no_submodule_shadows_one():
    for name in eg.__all__:
        assert getattr(eg, name) is not None, name
    before = {name: getattr(eg, name) for name in eg.__all__}
    # Importing every internal module (as any use of the package may) leaves the public names alone:
    # exportguard.ingest, .check and .report are modules, which is why the calls are named as they are.
    for info in pkgutil.walk_packages(eg.__path__, "exportguard."):
        if not info.name.endswith("__main__"):
            importlib.import_module(info.name)
    assert {name: getattr(eg, name) for name in eg.__all__} == before
    assert set(eg.__all__) <= set(dir(eg))
    with pytest.raises(AttributeError):
        eg.no_such_name  # noqa: B018


def test_importing_the_package_loads_no_database_or_office_library():
    code = ("import sys, exportguard; print([m for m in ('sqlalchemy', 'openpyxl', 'pptx', 'reportlab', "
            "'exportguard.api') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == "[]"


def test_the_version_is_written_once_and_read_without_a_metadata_look_up(tmp_path):
    from importlib.metadata import version

    assert eg.__version__ == version("exportguard")  # the installed metadata is built from _version.py
    assert 'version = {attr = "exportguard._version.VERSION"}' in (REPO / "pyproject.toml").read_text()
    # The source alone (no site-packages, no metadata) knows its version, and asking for it imports
    # no importlib.metadata (about 50 ms of every command that prints the version).
    alone = tmp_path / "exportguard"
    alone.mkdir()
    for name in ("__init__.py", "_version.py"):
        (alone / name).write_text((REPO / "exportguard" / name).read_text())
    code = "import sys, exportguard; print(exportguard.__version__, 'importlib.metadata' in sys.modules)"
    out = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, check=True,
                         cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert out.stdout.split() == [eg.__version__, "False"]


def test_the_exceptions_are_one_family():
    for name in ("ArgumentError", "SourceError", "StoreError", "SpecError", "GuardError", "ExportWriteError"):
        assert issubclass(getattr(eg, name), eg.ExportguardError), name
    assert issubclass(eg.ArgumentError, ValueError)  # a wrong argument is also what Python calls one


# -- open_store, ingest_sources -------------------------------------------------------------------

def test_open_store_defaults_to_the_command_lines_store(tmp_path, monkeypatch):
    monkeypatch.setenv("EXPORTGUARD_DB", f"sqlite:///{tmp_path / 'default.db'}")
    with eg.open_store() as s:
        assert isinstance(s, eg.Store) and s.path == tmp_path / "default.db"
    monkeypatch.delenv("EXPORTGUARD_DB")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    with eg.open_store() as s:
        assert s.path == tmp_path / "xdg" / "exportguard" / "exportguard.db"


def test_open_store_refuses_a_missing_store_to_read_and_a_bad_url(tmp_path):
    with pytest.raises(eg.StoreError, match="missing.db"):
        eg.open_store(f"sqlite:///{tmp_path / 'missing.db'}", create=False)
    assert not (tmp_path / "missing.db").exists()
    with pytest.raises(eg.StoreError, match="unsupported database"):
        eg.open_store("mysql://host/db")


def test_ingest_returns_each_sources_reconciliation_and_a_second_ingest_adds_nothing(tmp_path):
    with eg.open_store(f"sqlite:///{tmp_path / 's.db'}") as s:
        started, seen = [], []
        [report] = eg.ingest_sources(s, SUMMARY_V51, retrieved="2025-09-09",
                                     on_start=lambda path, done: started.append((path, done)), on_report=seen.append)
        assert isinstance(report, eg.IngestReport) and seen == [report] and started == [(str(SUMMARY_V51), 0)]
        assert (report.rows_read, report.added, report.skipped, report.quarantined) == (1448, 351, 1097, 0)
        assert report.reconciles and report.nothing_stored() == ""
        assert report.summary_line().endswith("1448 read = 351 added + 0 enriched + 0 unchanged + 0 changed "
                                              "+ 0 quarantined + 1097 skipped by rule")
        [again] = eg.ingest_sources(s, SUMMARY_V51, retrieved="2025-09-09")
        assert (again.added, again.unchanged, again.recorded) == (0, 351, False)


def test_ingest_refusals_say_what_and_keep_the_reports_of_the_sources_before(tmp_path):
    not_a_source = tmp_path / "missing.json"  # the command line's click.Path(exists=True) is not in front here
    with eg.open_store(f"sqlite:///{tmp_path / 's.db'}") as s:
        with pytest.raises(eg.SourceError, match="missing.json") as raised:
            eg.ingest_sources(s, SUMMARY_V51, not_a_source)
        assert [r.added for r in raised.value.ingested] == [351]
        with pytest.raises(eg.ArgumentError, match="not a date like 2025-09-09"):
            eg.ingest_sources(s, SUMMARY_V51, retrieved="9/9/2025")
        with pytest.raises(eg.ArgumentError, match="at least one path"):
            eg.ingest_sources(s)
        with pytest.raises(eg.ArgumentError, match="system=, key .gpus.: unknown key"):
            eg.ingest_sources(s, SUMMARY_V51, system={"gpus": 8})


# -- select ---------------------------------------------------------------------------------

def test_select_takes_the_command_lines_filters_in_any_case(store):
    canonical = eg.select(store, **OFFLINE_70B, unit="tokens/s", verified="verified", availability="available")
    typed = eg.select(store, round="v5.1", division="CLOSED", model="Llama2-70B", accuracy_track="99",
                      scenario="offline", unit="TOKENS/S", verified="Verified", availability="AVAILABLE")
    assert len(canonical) == len(typed) > 10
    assert [f.result.natural_key for f in canonical.figures()] == [f.result.natural_key for f in typed.figures()]
    assert typed.filters["scenario"] == ("Offline",) and typed.filters["unit"] == ("tokens/s",)


def test_select_filters_by_part_of_the_accelerator_name_and_by_scale(store):
    h200 = eg.select(store, **OFFLINE_70B, accelerator="h200")
    assert h200 and all("h200" in f.result.conditions.configuration.accelerator.lower() for f in h200.figures())
    eight = eg.select(store, **OFFLINE_70B, accelerator_count=[8])
    assert eight and {f.result.conditions.configuration.accelerators_total for f in eight.figures()} == {8}
    several = eg.select(store, round="v5.1", division="closed", model="llama2-70b", track="99",
                        scenario=["Offline", "Server"])
    assert {c.key.scenario for c in several.cohorts} == {"Offline", "Server"}


def test_a_band_is_the_whole_stored_cohorts_whatever_the_filters(store):
    whole = eg.select(store, **OFFLINE_70B)
    one = eg.select(store, **OFFLINE_70B, submitter="nvidia")
    assert 0 < len(one) < len(whole)
    assert one.cohorts[0].slack == whole.cohorts[0].slack and one.cohorts[0].total == len(whole)
    assert {r["band"] for r in one.to_records()} == {whole.to_records()[0]["band"]}
    assert f"showing {len(one)} of {len(whole)} results" in one._repr_html_()


def test_select_refuses_unknown_filters_and_values_and_says_why_nothing_matched(store):
    with pytest.raises(eg.ArgumentError, match="unknown filter 'modle'"):
        eg.select(store, modle="llama2-70b")
    with pytest.raises(eg.ArgumentError, match="scenario='Offlin' is not one of Offline, Server, Interactive"):
        eg.select(store, scenario="Offlin")
    with pytest.raises(eg.ArgumentError, match="accelerator_count"):
        eg.select(store, accelerator_count=-1)
    with pytest.raises(eg.ArgumentError, match="mlperf"):
        eg.select(store, mlperf="yes")
    empty = eg.select(store, model="llama9-1b")
    assert not empty and len(empty) == 0
    assert "stored model values" in empty.empty_reason and "llama2-70b" in empty.empty_reason
    assert "llama9-1b" in empty._repr_html_()
    assert not eg.select(store, mlperf=False)  # no own runs stored


# -- what a notebook shows ------------------------------------------------------------------

class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.attrs, self.text = set(), set(), []

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.attrs |= set(attrs)

    def handle_data(self, data):
        self.text.append(data)


def _parsed(markup: str) -> _Tags:
    parser = _Tags()
    parser.feed(markup)
    parser.close()
    return parser


def test_a_selection_shows_bound_tables_with_their_notes_and_the_caveat(store):
    sel = eg.select(store, **OFFLINE_70B, accelerator_count=8)
    page = sel._repr_html_()
    shown = " ".join(_parsed(page).text)
    first = sel.figures()[0]
    assert isinstance(first, eg.BoundFigure)
    assert "±" in first.text() and "tok/s" in first.text()
    assert first.text("[a]") in page  # the figure with its band and its mark
    assert "[a] " in shown and "Result 5.1-" in shown  # the notes the marks resolve to, below the table
    assert "Band ±" in shown and "Offline scenario" in shown  # the table note: the conditions shared
    assert "compare them inside one cohort" in shown  # the short caveat ...
    assert "Caveat" in shown and "does not predict production" in shown  # ... and the full one
    assert "MLPerf name and logo are registered" in shown


HOSTILE = ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "\" onmouseover=\"alert(1)", "a & b &amp;",
           "esc\x1b[2Jred\u202eevil", "</td></tr></table><h1>x</h1>", "<!-- hide"]


def test_hostile_names_show_as_text_never_as_markup(tmp_path):
    header = (REPO / "templates" / "results.csv").read_text().splitlines()[0].split(",")
    path = tmp_path / "own.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(header)
        for n, name in enumerate(HOSTILE):
            row = dict(mlperf="no", submitter=name, system_name=f"{name} box {n}", model="llama2-70b",
                       value=str(20000 + 10 * n), unit="tokens/s", accelerator=name, accelerators_per_node="8",
                       nodes="1", framework=name, source_url="file:///lab", dataset="chat", tool="vllm bench serve",
                       load="closed loop", concurrency="8", mean_input_tokens="550", mean_output_tokens="250",
                       run_date="2026-12-01")
            w.writerow([row.get(c, "") for c in header])
    with eg.open_store(f"sqlite:///{tmp_path / 's.db'}") as s:
        [report] = eg.ingest_sources(s, path)
        assert report.added > 0, report.nothing_stored()
        sel = eg.select(s, mlperf=False)
        assert len(sel) == report.added
        page = sel._repr_html_()
    parsed = _parsed(page)
    assert parsed.tags <= {"div", "h3", "h4", "p", "em", "strong", "small", "table", "thead", "tbody", "tr", "th",
                           "td", "ul", "li"}
    assert parsed.attrs <= {("class", "exportguard"), ("style", "text-align:right")}
    assert "<script" not in page and "<img" not in page and "<!--" not in page and "\x1b" not in page
    shown = "".join(parsed.text)
    assert "<script>alert(1)</script>" in shown and "a & b &amp;" in shown  # shown exactly, as text
    assert "\u202e" not in shown


def test_records_keep_every_value_beside_its_unit_band_cohort_and_conditions(store):
    sel = eg.select(store, **OFFLINE_70B, accelerator_count=8)
    records = sel.to_records()
    assert len(records) == len(sel)
    for rec in records:
        assert isinstance(rec["value"], float)
        assert rec["unit"] == "tok/s" and rec["band"].startswith("±")
        assert rec["band_low"] < rec["value"] < rec["band_high"]
        assert rec["cohort"] == "MLPerf® v5.1 closed llama2-70b-99 Offline (tokens/s)" and rec["mlperf"] is True
        assert rec["result_id"].startswith("5.1-") and rec["verified"] == "verified"
        assert rec["accelerators_total"] == 8 and rec["scenario"] == "Offline" and rec["round"] == "v5.1"
        assert rec["submitter"] and rec["system"] and rec["citation"] and rec["caveat"]
        number, unit = rec["figure"].split(" ")[:2]
        assert float(number.replace(",", "")) == pytest.approx(rec["value"], abs=0.5) and unit == "tok/s"
    # Floats travel only inside such a record: no column other than the numeric ones holds one.
    floats = {k for rec in records for k, v in rec.items() if isinstance(v, float)}
    assert floats <= {"value", "band_low", "band_high", "tokens_per_sample"}


def test_to_pandas_is_the_records_and_says_it_is_not_for_publication(store, monkeypatch):
    sel = eg.select(store, **OFFLINE_70B, accelerator_count=8)
    frame = sel.to_pandas()
    assert len(frame) == len(sel)
    for column in ("value", "unit", "band_low", "band_high", "cohort", "result_id", "verified", "submitter",
                   "system", "accelerators_total", "scenario", "citation"):
        assert column in frame.columns
    assert frame["value"].tolist() == [r["value"] for r in sel.to_records()]
    assert "not for publication" in frame.attrs["exportguard"] and "one cohort" in frame.attrs["caveat"]
    assert "not for publication" in type(sel).to_pandas.__doc__
    assert "not for publication" in type(sel).to_records.__doc__
    monkeypatch.setitem(sys.modules, "pandas", None)  # as if pandas were not installed
    with pytest.raises(ImportError, match="to_pandas\\(\\) needs pandas.*to_records\\(\\)"):
        sel.to_pandas()


# -- build_report, export, check_documents -------------------------------------------------------

def test_build_report_from_filters_shows_and_exports_the_same_figures(store, tmp_path):
    report = eg.build_report(store, **OFFLINE_70B, accelerator_count=8)
    assert isinstance(report, eg.BoundReport)
    assert len(report.figures()) == len(eg.select(store, **OFFLINE_70B, accelerator_count=8))
    assert report.figures()[0].text("[a]") in report._repr_html_()
    written = eg.export(report, tmp_path / "deck.pptx", tmp_path / "figures.xlsx", tmp_path / "figures.csv")
    assert [p.name for p in written] == ["deck.pptx", "figures.xlsx", "figures.csv", "figures.csv.manifest.json"]
    with open(tmp_path / "figures.csv", encoding="utf-8-sig", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [float(r["value"]) for r in rows] == [r["value"] for r in report.to_records()]
    result = eg.check_documents(tmp_path)
    assert isinstance(result, eg.CheckResult) and result.clean and result.exit_code == 0
    assert sorted(f.format for f in result.files) == ["csv", "pptx", "xlsx"] and result.findings == ()
    assert result.to_json()["summary"]["clean"] == 3


def test_a_mixed_selection_is_refused_with_the_guards_findings(store):
    with pytest.raises(eg.GuardError) as raised:
        eg.build_report(store, round="v5.1", division="closed", model="llama2-70b")
    [found] = raised.value.findings
    assert isinstance(found, eg.Finding) and found.rule_id == "EG003" and found.severity == "error"
    assert found.location == "section 1 (Results)" and "Way out" in found.message and "--track" in found.message
    with pytest.raises(eg.GuardError) as raised:
        eg.build_report(store, model="llama9-1b")
    assert [f.rule_id for f in raised.value.findings] == ["EG013"]
    split = eg.build_report(store, round="v5.1", division="closed", model="llama2-70b", split_by_cohort=True)
    assert len(split.report.sections) == len(eg.select(store, round="v5.1", division="closed",
                                                       model="llama2-70b").cohorts) > 1


def test_build_report_from_a_spec_dict_and_a_spec_file(store, tmp_path):
    spec = {"title": "Offline at 8 accelerators", "filters": {**OFFLINE_70B, "accelerator_count": 8},
            "section": [{"kind": "kpi", "title": "Highest"},
                        {"kind": "table", "title": "All", "columns": ("rank", "submitter", "system", "accelerators",
                                                                      "availability", "throughput")}],
            "outputs": {"targets": ["out.md"]}}
    report = eg.build_report(store, spec)
    assert [s.kind for s in report.report.sections] == ["kpi", "table"] and report.targets == (Path("out.md"),)
    with pytest.raises(eg.SpecError, match="key 'colour'"):
        eg.build_report(store, {**spec, "section": [{"kind": "table", "title": "x", "colour": "red"}]})
    with pytest.raises(eg.SpecError, match="<spec dict>, key 'outputs': outputs must be a table"):
        eg.build_report(store, {**spec, "outputs": 3})
    with pytest.raises(eg.ArgumentError, match="not both"):
        eg.build_report(store, spec, model="llama2-70b")
    file = tmp_path / "spec.md"  # a spec under a target's name: an export must not overwrite it
    file.write_text('title = "From a file"\n[filters]\nround = "v5.1"\ndivision = "closed"\nmodel = "llama2-70b"\n'
                    'track = "99"\nscenario = "Server"\n[[section]]\nkind = "table"\ntitle = "Server"\n'
                    '[outputs]\ntargets = ["server.md"]\n')
    from_file = eg.build_report(store, file)
    assert from_file.title == "From a file" and from_file.targets == (tmp_path / "server.md",)
    assert eg.export(from_file) == [tmp_path / "server.md", tmp_path / "server.md.manifest.json"]
    with pytest.raises(eg.ExportguardError, match="spec this export reads"):
        eg.export(from_file, file)  # the spec is an input: never overwritten


def test_export_needs_a_target_and_replaces_nothing_when_one_fails(store, tmp_path):
    report = eg.build_report(store, **OFFLINE_70B, accelerator_count=8)
    with pytest.raises(eg.ArgumentError, match="no output"):
        eg.export(report)
    kept = tmp_path / "kept.md"
    kept.write_text("before\n")
    (tmp_path / "folder.xlsx").mkdir()
    with pytest.raises(eg.ExportguardError, match="is a folder"):
        eg.export(report, kept, tmp_path / "folder.xlsx")
    assert kept.read_text() == "before\n" and sorted(p.name for p in tmp_path.iterdir()) == ["folder.xlsx", "kept.md"]


def test_an_export_that_cannot_be_written_raises_export_write_error_and_leaves_the_target(store, tmp_path):
    target = tmp_path / "report.xlsx"
    target.write_bytes(b"previous")
    code = (
        "import resource, signal, sys, exportguard as eg\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        f"store = eg.open_store({'sqlite:///' + str(store.path)!r}, create=False)\n"
        f"report = eg.build_report(store, **{OFFLINE_70B!r}, accelerator_count=8)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (4096, resource.RLIM_INFINITY))\n"
        "try:\n"
        f"    eg.export(report, {str(target)!r})\n"
        "except eg.ExportWriteError as e:\n"
        "    print('refused:', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert out.stdout.startswith("refused:") and "Nothing was replaced" in out.stdout, out.stdout + out.stderr
    assert target.read_bytes() == b"previous" and [p.name for p in tmp_path.iterdir()] == ["report.xlsx"]


@pytest.mark.quick
def test_check_returns_findings_as_data(store, tmp_path):
    report = eg.build_report(store, **OFFLINE_70B, accelerator_count=8)
    [md, _] = eg.export(report, tmp_path / "figures.md")
    text = md.read_text(encoding="utf-8")
    first = report.figures()[0].text().split(" ")[0]  # '169,197'-like: the first figure's number
    md.write_text(text.replace(first, "999,999", 1), encoding="utf-8")
    result = eg.check_documents(md)
    assert result.exit_code == 1 and not result.clean
    edited = [f for f in result.findings if f.rule_id == "EG017"]
    assert edited and edited[0].severity == "error" and "999,999" in (edited[0].now or edited[0].message)
    assert result.to_json()["files"][0]["status"] == "findings"
    assert "EG017" in result.render("text") and '"ruleId": "EG017"' in result.render("sarif")
    ignored = eg.check_documents(md, ignore=["edited-figure,EG018"])
    assert not [f for f in ignored.findings if f.rule_id in ("EG017", "EG018")]
    with pytest.raises(eg.ArgumentError, match="unknown rule 'EG999'"):
        eg.check_documents(md, ignore=["EG999"])
    with pytest.raises(eg.ArgumentError, match="at least one file"):
        eg.check_documents()


def test_no_public_call_returns_a_bare_float(store, tmp_path):
    """What the calls return holds figures only as BoundFigure objects and records: no float at the top."""
    report = eg.build_report(store, **OFFLINE_70B, accelerator_count=8)
    outcomes = [eg.select(store, **OFFLINE_70B), report, eg.export(report, tmp_path / "x.md"),
                eg.check_documents(tmp_path / "x.md"), eg.ingest_sources(store, SUMMARY_V51)]
    for outcome in outcomes:
        assert not isinstance(outcome, (float, int))
        items = outcome if isinstance(outcome, list) else [outcome]
        assert not any(isinstance(i, float) for i in items)
    assert all(isinstance(f, eg.BoundFigure) for f in report.figures())
    assert dataclasses.is_dataclass(report) and dataclasses.is_dataclass(eg.select(store, **OFFLINE_70B))
