"""Own runs in reports: their cohorts and band, beside an MLPerf cohort (never in one comparison), and
exportguard's own notes for them checking clean in every format, distinct from MLPerf notes."""
from __future__ import annotations

import csv
import dataclasses
from pathlib import Path

import pytest
import sqlalchemy as sa

from exportguard.check.engine import check
from exportguard.guard import DEFAULT_COLUMNS, GuardError, bind_table, validate
from exportguard.ingest import ingest_path
from exportguard.render import export
from exportguard.report import BesideSection, ShapePanel
from exportguard.spec import SpecError, build_report, parse_spec
from exportguard.store import _result_to_row, _row_to_result, open_store, results_table
from exportguard.wording import BOTH_SHAPES
from tests.office import convert
from tests.own_runs import BASE, BESIDE, OWN, OWN_ONLY, own_csv

pytestmark = pytest.mark.real_data
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def db(sqlite_url):
    s = open_store(sqlite_url)
    yield s
    s.close()


# -- cohorts and the band ------------------------------------------------------------------------

def test_repeated_runs_of_one_configuration_give_the_band(db, tmp_path):
    rows = [BASE | dict(value=v, run_id=f"r{n}") for n, v in enumerate(("781.2", "774.0", "779.9"))]
    ingest_path(db, own_csv(tmp_path, rows))
    (cohort,) = db.cohorts()
    assert not cohort.key.mlperf and cohort.total == 3
    s = cohort.slack
    assert (s.basis, s.tps_min, s.tps_max, s.with_tps) == ("repeats", 774.0, 781.2, 3)
    assert s.fraction == pytest.approx((781.2 - 774.0) / 774.0)
    table = bind_table(cohort.results, title="t", slack=cohort.slack, columns=("measured_by", "throughput"))
    assert table.rows[0][1].text() == "781 tok/s ±0.5% own measurement, unverified"
    assert "half the run-to-run spread of 0.9%" in table.table_note.text and "3 repeated runs" in table.table_note.text


def test_a_single_run_says_so_in_words(db, tmp_path):
    ingest_path(db, own_csv(tmp_path, [BASE | dict(value="781.2")]))
    (cohort,) = db.cohorts()
    assert (cohort.slack.estimable, cohort.slack.reason) == (False, "single run")
    fig = bind_table(cohort.results, title="t", slack=cohort.slack, columns=("throughput",)).rows[0][0]
    assert fig.text("[a]") == "781 tok/s (single run: no band) [a] own measurement, unverified"


def test_runs_on_a_system_nobody_described_are_never_taken_for_repeats(db, tmp_path):
    anonymous = {k: v for k, v in BASE.items() if k not in ("submitter", "system_name", "accelerator",
                                                             "accelerators_per_node", "nodes", "framework",
                                                             "server_settings")}
    ingest_path(db, own_csv(tmp_path, [anonymous | dict(value="781.2", run_id="a"),
                                       anonymous | dict(value="700", run_id="b")]))
    (cohort,) = db.cohorts()
    assert cohort.total == 2 and cohort.slack.reason == "no repeated runs"
    assert {r.conditions.identity.system_name for r in cohort.results} == {"unknown"}


def test_shapes_and_loads_make_separate_own_cohorts_anchored_at_their_founder(db, tmp_path):
    rows = [BASE | dict(value="780", run_id="a", mean_output_tokens="250"),
            BASE | dict(value="770", run_id="b", mean_output_tokens="270"),   # 8% from 250: joins
            BASE | dict(value="760", run_id="c", mean_output_tokens="290"),   # 16% from the founder: its own
            BASE | dict(value="700", run_id="d", mean_output_tokens="4155.6"),
            BASE | dict(value="690", run_id="e", load="Poisson", concurrency="", request_rate="3")]
    ingest_path(db, own_csv(tmp_path, rows))
    cohorts = {c.key.own: sorted(r.conditions.run.run_id for r in c.results) for c in db.cohorts()}
    assert len(cohorts) == 4
    closed = {k: v for k, v in cohorts.items() if "closed loop" in k}
    assert sorted(map(len, closed.values())) == [1, 1, 2]
    assert any("~550 in / 250 out tokens per request" in k for k in closed)
    assert any("~550 in / 290 out" in k for k in closed) and any("4,160 out" in k for k in closed)
    assert any("Poisson arrivals, target rate 3 per second" in k for k in cohorts)


def test_own_runs_never_join_or_widen_an_mlperf_cohort(mixed):
    (offline,) = mixed.cohorts(round="v5.1", division="closed", model="llama2-70b", accuracy_track="99",
                               scenario="Offline")
    assert offline.total == 47 and offline.slack.fraction == pytest.approx(0.10785, abs=1e-4)
    assert all(r.conditions.identity.mlperf for r in offline.results)
    own = mixed.cohorts(mlperf=False)
    assert own and all(not c.key.mlperf and c.key.label().startswith("Own runs: ") for c in own)
    assert not any("MLPerf" in c.key.label() for c in own)


# -- the store keeps own runs honest -------------------------------------------------------------

@pytest.mark.parametrize("change, constraint", [
    (dict(scenario="Server", arrival_process="Server"), "scenario_known"),
    (dict(ttft_bound_ms=2000.0, tpot_bound_ms=200.0), "own_run_has_no_bounds"),
    (dict(reference_max_output_tokens=1024), "max_tokens_positive"),
    (dict(tool=""), "own_run_complete"),
    (dict(mean_input_tokens=None), "own_run_complete"),
    (dict(concurrency=None), "closed_loop_has_concurrency"),
    (dict(mlperf=True), "own_is_not_mlperf"),
])
def test_the_store_refuses_an_own_run_dressed_as_mlperf_or_missing_its_conditions(store, tmp_path, change, constraint):
    ingest_path(store, own_csv(tmp_path, [BASE | dict(value="781.2")]))
    (r,) = store.results()
    row = _result_to_row(r) | change | dict(run_id="another")
    with pytest.raises(sa.exc.IntegrityError) as e, store.writing() as conn:
        if constraint == "scenario_known":  # a vocabulary: the store checks it on write (store_vocabulary.py)
            store.put_result(conn, _row_to_result(row))
        else:
            conn.execute(results_table.insert().values(**row))
    assert constraint in str(e.value) or store.is_sqlite is False


def test_a_run_ingested_again_with_another_system_is_kept_once_and_said(db, tmp_path):
    path = OWN / "vllm/concurrency8_isl550_osl250/own-traffic-infqps-concurrency8-mock-llm-20261201-094403.json"
    from exportguard.ingest.own_system import SystemDescription

    assert ingest_path(db, path).added == 1
    again = ingest_path(db, path, system=SystemDescription(system_name="lab-b200"))
    assert (again.changed, db.count()) == (1, 1)
    assert "stored already" in again.changes[0] and "lab-b200" in again.changes[0]


# -- beside MLPerf, never in one comparison ------------------------------------------------------

def test_a_beside_section_shows_both_cohorts_apart_with_both_shapes(mixed):
    report = build_report(mixed, parse_spec(BESIDE))
    (section,) = report.sections
    assert isinstance(section, BesideSection) and section.axis == "separate"
    assert section.mlperf.cohort.mlperf and len(section.mlperf.rows) == 4
    assert [t.cohort.mlperf for t in section.own] == [False, False]  # 250 and 4,000 output tokens: two tables
    shape = section.shape
    assert shape.mlperf.shape.startswith("272.6 to 302.0 generated tokens per sample over 47 verified results "
                                         "(reference max 1,024 output tokens)")
    assert sorted(r.shape.split(" generated")[0] for r in shape.own) == ["mean 250.0", "mean 4,011.6"]
    assert all(r.load == "closed loop, 8 requests in flight" for r in shape.own)
    assert "does not carry over from one shape to another" in shape.sentence and shape.sentence.count(". ") == 0
    assert [f for f in validate(report) if f.severity == "error"] == []  # EG020 warns of the MLPerf panel's scales
    # a panel's figure keeps its own band rule: MLPerf's shape slack, the runs' "single run: no band"
    assert section.mlperf.rows[0][-1].text().endswith("±5.4%")
    assert "(single run: no band)" in section.own[0].rows[0][-1].text()


def test_a_beside_section_asking_for_the_defaults_gets_lean_panels_that_still_show_what_differs(mixed):
    from exportguard.guard import BESIDE_COLUMNS, OWN_BESIDE_COLUMNS, lean_columns

    (section,) = build_report(mixed, parse_spec(BESIDE)).sections
    assert tuple(c.key for c in section.mlperf.columns) == BESIDE_COLUMNS  # four rows, one availability, one count
    for t in section.own:  # a column empty in every row is left out, and its table note says so (issue 32)
        empty = [k for k in OWN_BESIDE_COLUMNS if k not in {c.key for c in t.columns}]
        assert tuple(c.key for c in t.columns) == tuple(k for k in OWN_BESIDE_COLUMNS if k not in empty)
        from exportguard.guard import TEXT_COLUMNS
        for k in empty:
            assert f"{TEXT_COLUMNS[k][0]}: " in t.table_note.text and "for every row shown." in t.table_note.text
    first, *rest = next(c for c in mixed.cohorts() if c.key.mlperf).results
    c = first.conditions
    preview = dataclasses.replace(first, conditions=dataclasses.replace(
        c, identity=dataclasses.replace(c.identity, availability="preview")))
    assert first.conditions.identity.availability != "preview"
    assert lean_columns(DEFAULT_COLUMNS, False, [preview, *rest]) == BESIDE_COLUMNS[:-1] + ("availability", "throughput")
    assert lean_columns(("system", "throughput"), False, rest) == ("system", "throughput")  # asked for


def test_one_axis_for_both_is_refused_with_the_way_out(mixed):
    with pytest.raises(GuardError) as e:
        build_report(mixed, parse_spec(BESIDE + 'axis = "shared"\n'))
    (f,) = e.value.findings
    assert f.rule_id == "EG021" and "axis = \"separate\"" in f.message and "shape panel" in f.message


def test_a_chart_of_mlperf_and_own_figures_is_refused_pointing_to_beside(mixed):
    spec = parse_spec('title = "t"\n[[section]]\nkind = "chart"\ntitle = "all"\n'
                      'filters = { model = ["llama2-70b", "mock-llm"], track = ["99", "n/a"] }\n')
    with pytest.raises(GuardError) as e:
        build_report(mixed, spec)
    assert {f.rule_id for f in e.value.findings} == {"EG021"} and "beside" in e.value.findings[0].message


def test_a_hand_built_beside_section_is_checked_whole(mixed):
    report = build_report(mixed, parse_spec(BESIDE))
    section = report.sections[0]
    def errors(changed):
        return [f.rule_id for f in validate(dataclasses.replace(report, sections=(changed,))) if f.severity == "error"]

    lying = dataclasses.replace(section, shape=dataclasses.replace(section.shape, own=section.shape.own[:1]))
    assert errors(lying) == ["EG001"]
    swapped = dataclasses.replace(section, mlperf=section.own[0], own=(section.mlperf,))
    assert set(errors(swapped)) == {"EG009"}
    assert errors(dataclasses.replace(section, axis="shared")) == ["EG021"]
    assert section.shape == ShapePanel.of(section.mlperf, section.own)


@pytest.mark.parametrize("text, words", [
    ('kind = "beside"\ntitle = "b"\nmlperf = { round = "v5.1" }\n', ["own = {"]),
    ('kind = "beside"\ntitle = "b"\nown = { tool = "x" }\naxis = "one"\n', ["axis", "separate"]),
    ('kind = "table"\ntitle = "b"\nown = { tool = "x" }\n', ["only a section of kind", "beside"]),
    ('kind = "beside"\ntitle = "b"\nown = { tool = "x" }\nsplit_by_cohort = true\n', ["split_by_cohort"]),
])
def test_a_bad_beside_section_is_a_spec_error_naming_the_key(text, words):
    with pytest.raises(SpecError) as e:
        parse_spec('title = "t"\n[[section]]\n' + text)
    assert all(w in str(e.value) for w in words)


def test_csv_and_markdown_draw_the_beside_section_and_check_clean(mixed, tmp_path):
    report = build_report(mixed, parse_spec(BESIDE))
    paths = export(report, [tmp_path / "b.md", tmp_path / "b.csv"])
    reports = check([p for p in paths if not p.name.endswith(".json")])
    assert [r.status for r in reports] == ["clean", "clean"], [str(h) for r in reports for h in r.hits[:5]]
    md = (tmp_path / "b.md").read_text()
    assert "272.6 to 302.0 generated tokens per sample" in md and "does not carry over" in md
    assert md.count("\n## ") >= 4  # the MLPerf panel, one table per own cohort, the shapes
    rows = list(csv.DictReader((tmp_path / "b.csv").open()))
    shapes = [r for r in rows if r["table"].endswith(")") and BOTH_SHAPES.lower() in r["table"]]
    assert len(shapes) == 3 and all(r["figure"] == "" for r in shapes)
    marks = [r["marks"] for r in rows if r["figure"]]
    assert len(marks) == len(set(marks))  # lettered across both panels: no mark twice


# -- own notes check clean in all five formats, distinct from MLPerf notes ----------------------

@pytest.fixture(scope="module")
def own_artifacts(mixed, tmp_path_factory):
    out = tmp_path_factory.mktemp("own")
    report = build_report(mixed, parse_spec(OWN_ONLY))
    export(report, [out / f"own.{ext}" for ext in ("md", "csv", "pptx", "pdf", "xlsx")])
    return out


@pytest.mark.quick
def test_own_run_notes_check_clean_in_all_five_formats_beside_mlperf_sections(own_artifacts):
    reports = check([own_artifacts])
    assert {r.format for r in reports} == {"xlsx", "csv", "markdown", "pptx", "pdf"}
    for r in reports:
        assert r.status == "clean", (r.path, [str(h) for h in r.hits[:5]])
        assert r.manifest["digest_ok"] and r.manifest["edited"] == 0
    md = (own_artifacts / "own.md").read_text()
    assert "Own measurement (not an MLPerf® result), unverified. Measured by: perf team. Run on: 2026-12-01." in md


@pytest.mark.slow
def test_own_run_workbook_and_deck_check_clean_after_a_libreoffice_round_trip(own_artifacts, tmp_path):
    (xlsx,) = convert([own_artifacts / "own.xlsx"], tmp_path, "xlsx")
    (pptx,) = convert([own_artifacts / "own.pptx"], tmp_path, "pptx")
    for r in check([xlsx, pptx]):
        assert r.status == "clean", (r.path, [str(h) for h in r.hits[:5]])


OWN_NOTE = ("Own measurement (not an MLPerf® result), unverified. Measured by: us. Run on: 2026-12-01. Tool: "
            "vllm bench serve 0.33.0. System: lab: 8 x H100 on 1 node. Shape: mean 550 input and 250 output tokens per "
            "request. Load: closed loop, 8 requests in flight. Source: https://wiki.example.com/run.")
LEGEND = "The MLPerf name and logo are trademarks of MLCommons Association in the United States and other countries."


def _check_md(tmp_path: Path, body: str):
    path = tmp_path / "doc.md"
    path.write_text(f"# Doc\n\nMLPerf® figures are compared only inside a cohort.\n\n## Runs\n\n{body}\n\n{LEGEND}\n")
    (r,) = check([path])
    return sorted((h.rule_id, h.message) for h in r.hits)


def test_the_checker_holds_an_own_figure_to_own_citation_fields(tmp_path):
    good = f"Ours: 781 tok/s (single run: no band) [a] own measurement, unverified\n\n- [a] {OWN_NOTE}"
    assert _check_md(tmp_path, good) == []
    thin = good.replace(" Tool: vllm bench serve 0.33.0.", "").replace(" Run on: 2026-12-01.", "")
    ((rule, message),) = _check_md(tmp_path, thin)
    assert rule == "EG005" and "own measurement" in message and "run date, tool" in message


@pytest.mark.parametrize("body, words", [
    # an own note under a figure that does not say it is one: copied alone it would pass as MLPerf
    (f"Ours: 781 tok/s (single run: no band) [a] unverified\n\n- [a] {OWN_NOTE}", "does not say \"own measurement\""),
    # a figure labelled own measurement whose note is an MLPerf citation
    ("Ours: 781 tok/s ±5.4% [a] own measurement, unverified\n\n- [a] MLPerf® Inference: Datacenter v5.1, Closed "
     "division, llama2-70b-99 Offline, result 5.1-0042, unverified, OpenOrca, source https://mlcommons.org, "
     "retrieved 2025-09-09.", "is no own measurement's"),
    # an own note that cites an MLPerf result
    (f"Ours: 781 tok/s (single run: no band) [a] own measurement, unverified\n\n- [a] {OWN_NOTE} Compare result "
     "5.1-0042.", "cites an MLPerf result"),
])
def test_an_own_figure_can_never_pass_as_an_mlperf_one(tmp_path, body, words):
    hits = _check_md(tmp_path, body)
    assert any(rule == "EG022" and words in message for rule, message in hits), hits
