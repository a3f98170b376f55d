"""Own load-test result files (../shared/own-traffic): every file ingests with the figures its README
names, recognised by content, one stored run per benchmark run, reconciled like every source."""
from __future__ import annotations

import json
import shutil

import pytest

from exportguard.errors import SourceError
from exportguard.ingest import ingest_path
from exportguard.store import open_store
from exportguard.ingest.own_system import load_system
from exportguard.model import NOT_RECORDED, UNKNOWN
from tests.own_runs import FIXTURES, OWN, README_TABLE

pytestmark = pytest.mark.real_data


@pytest.fixture
def db(sqlite_url):
    s = open_store(sqlite_url)
    yield s
    s.close()


def _one_decimal(value):
    return None if value is None else round(value + 1e-9, 1)


def _run(store, relative: str):
    path, _, line = relative.partition(" line ")
    report = ingest_path(store, OWN / path)
    assert report.reconciles and report.quarantined == 0, report.summary_line()
    runs = [r for r in store.results(mlperf=False) if r.conditions.provenance.source_path == str(OWN / path)]
    if line:
        runs = [r for r in runs if r.conditions.provenance.source_locator.endswith(f" line {line}")]
    assert len(runs) == 1
    return runs[0]


@pytest.mark.parametrize("relative, kind, out, total, mean_in, mean_out, ttft, tpot, duration, requests", README_TABLE,
                         ids=[row[0].split("/")[0] + ":" + row[0].split("/")[-2] + row[0].rpartition(" line")[2].replace(" ", "")
                              for row in README_TABLE])
def test_each_file_ingests_with_the_figures_its_readme_names(db, relative, kind, out, total, mean_in, mean_out, ttft,
                                                              tpot, duration, requests):
    r = _run(db, relative)
    c, run = r.conditions, r.conditions.run
    got = (c.benchmark.scenario, _one_decimal(r.value), _one_decimal(run.total_tokens_per_s),
           _one_decimal(run.mean_input_tokens), _one_decimal(c.shape.tokens_per_sample), _one_decimal(c.load.p99_ttft_ms),
           _one_decimal(c.load.p99_tpot_ms), _one_decimal(run.duration_s), run.requests)
    assert got == (kind, out, total, mean_in, mean_out, ttft, tpot, duration, requests)
    # value is output tokens/s, never total; no MLPerf scenario, bound or reference shape
    assert r.unit == "tokens/s" and r.origin == "own" and not c.identity.mlperf
    assert c.load.ttft_bound_ms is None and c.shape.reference_max_output_tokens is None
    assert c.identity.verified == "unverified" and c.identity.result_id_state == "none"
    assert run.tool and run.tool_version and run.latency_definitions and run.run_date
    assert (c.identity.submitter, c.identity.system_name, c.configuration.accelerator) == (UNKNOWN,) * 3


def test_every_result_file_in_the_folder_ingests_reconciled_and_again_adds_nothing(store):
    db = store
    files = sorted(p for p in OWN.rglob("*") if p.is_file() and p.parent.name != "tools" and p.suffix != ".md")
    first = [ingest_path(db, p) for p in files]
    assert all(r.reconciles and r.quarantined == 0 for r in first), [r.summary_line() for r in first if r.quarantined]
    stored = db.count()
    # one run per benchmark run: the table's 18, less nothing (AIPerf's phases/profiling export is the same run)
    assert stored == len(README_TABLE)
    again = [ingest_path(db, p) for p in files]
    assert sum(r.added for r in again) == 0 and db.count() == stored
    assert sum(r.unchanged for r in again) == sum(r.added + r.unchanged for r in first)
    skipped = {reason for r in first for reason in r.skip_reasons}
    assert any("per-request records" in s for s in skipped) and any("warmup phase" in s for s in skipped)
    assert any("CSV export" in s for s in skipped) and any("console table" in s for s in skipped)
    assert any("perf_analyzer" in s for s in skipped) and any("llmperf per-request" in s for s in skipped)


def test_files_are_recognised_by_content_not_by_name(db, tmp_path):
    for relative, name in (("vllm/concurrency8_isl550_osl250/own-traffic-infqps-concurrency8-mock-llm-20261201-094403.json",
                            "results.txt"),
                           ("sglang/concurrency8/sglang_concurrency8.jsonl", "v5.1_summary_results.json"),
                           ("llmperf/concurrency8_isl550_osl250/mock-llm_550_250_summary.json", "benchmarks.json")):
        target = tmp_path / relative.split("/")[0] / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(OWN / relative, target)
        report = ingest_path(db, target)
        assert report.source.kind in ("vllm_bench", "sglang_bench", "llmperf") and report.quarantined == 0
    assert {r.conditions.run.tool for r in db.results()} == {"vllm bench serve", "SGLang bench_serving", "llmperf"}


def test_the_same_run_in_two_files_is_stored_once(db):
    main = OWN / "aiperf/concurrency8_isl550_osl250/profile_export_aiperf.json"
    phase = OWN / "aiperf/concurrency8_isl550_osl250/phases/profiling/profile_export_aiperf.json"
    assert (ingest_path(db, main).added, ingest_path(db, phase).unchanged) == (1, 1)
    assert db.count() == 1


def test_guidellm_stores_one_run_per_benchmark_of_a_sweep(db):
    report = ingest_path(db, FIXTURES / "guidellm-0.8.1_sweep_isl550_osl250_benchmarks.json")
    assert (report.rows_read, report.added) == (5, 5) and report.reconciles
    runs = sorted(db.results(), key=lambda r: r.conditions.provenance.source_locator)
    loads = [(r.conditions.benchmark.scenario, r.conditions.run.concurrency, r.conditions.load.target_qps) for r in runs]
    assert loads == [("closed loop", 1, None), ("closed loop", 32, None), ("Poisson", 32, 2.4), ("Poisson", 32, 4.4),
                     ("Poisson", 32, 6.4)]
    details = [r.conditions.run.load_detail for r in runs]
    assert details[0].startswith("sweep point 1 of 5 (synchronous)") and "sweep point 5 of 5 (poisson)" in details[4]
    assert "32 requests cut at the run's limit, not counted" in details[1]
    # the successful requests' output rate, not the one that counts tokens of cut requests (2,163)
    assert runs[1].value == 1600.0 and runs[1].conditions.run.requests == 64
    assert {r.conditions.run.tool_version for r in runs} == {"0.8.1"}


def test_genai_perf_0_0_8_flat_layout_and_its_unit_bug(db):
    report = ingest_path(db, FIXTURES / "genai-perf-0.0.8_concurrency8_isl550_osl250_profile_export_genai_perf.json")
    assert report.source.kind == "genai_perf" and report.added == 1
    (r,) = db.results()
    run = r.conditions.run
    assert (round(r.value, 1), r.unit) == (776.4, "tokens/s")  # the file says "requests/sec": a 0.0.8 bug
    assert "requests/sec" in run.load_detail and "known bug" in run.load_detail
    assert "measured over stable windows of 5 s" in run.load_detail
    assert (r.conditions.benchmark.scenario, run.concurrency) == ("closed loop", 8)
    assert round(run.mean_input_tokens, 1) == 545.7 and r.conditions.shape.tokens_per_sample == 250.0
    assert (round(r.conditions.load.p99_ttft_ms, 1), round(r.conditions.load.p99_tpot_ms, 1)) == (98.5, 10.1)
    assert run.requests is None and run.duration_s is None and run.duration_basis == NOT_RECORDED
    assert run.tool_version.startswith("not recorded (flat input_config: GenAI-Perf 0.0.12 or earlier)")
    assert run.run_date == NOT_RECORDED


def test_a_unit_that_is_wrong_outside_the_buggy_layout_is_refused(db, tmp_path):
    doc = json.loads((OWN / README_TABLE[4][0]).read_text())
    doc["output_token_throughput"]["unit"] = "requests/sec"
    path = tmp_path / "profile_export_genai_perf.json"
    path.write_text(json.dumps(doc))
    report = ingest_path(db, path)
    assert report.quarantined == 1 and db.count() == 0
    (q,) = db.quarantined()
    assert q["reason"] == "bad_field" and "'requests/sec'" in q["message"] and "output_token_throughput" in q["message"]


def test_sglang_infinity_is_read_only_as_its_request_rate(db, tmp_path):
    lines = (OWN / "sglang/concurrency8/sglang_concurrency8.jsonl").read_text().splitlines()
    assert '"request_rate": Infinity' in lines[0]
    hostile = lines[1].replace('"mean_ttft_ms": ', '"p99_ttft_ms": Infinity, "x": ', 1)
    hostile = hostile.replace('"p99_ttft_ms": 109.99091770008818', '"y": 1', 1)
    path = tmp_path / "sglang.jsonl"
    path.write_text(lines[0] + "\n" + hostile + "\n")
    report = ingest_path(db, path)
    assert (report.rows_read, report.added, report.quarantined) == (2, 1, 1)
    (q,) = db.quarantined()
    assert q["reason"] == "bad_number" and "p99_ttft_ms" in q["message"] and q["locator"].endswith("line 2")
    (r,) = db.results()
    assert (r.conditions.benchmark.scenario, r.conditions.run.concurrency, r.conditions.load.target_qps) == \
        ("closed loop", 8, None)


def test_vllm_loads_poisson_gamma_burst_and_closed_loop(db, tmp_path):
    base = json.loads((OWN / README_TABLE[10][0]).read_text())
    variants = {"gamma": dict(burstiness=0.5), "burst": dict(request_rate="inf", max_concurrency=None),
                "capped": dict(max_concurrency=16), "legacy": dict(request_inthroughput=3.4, total_token_throughput=None,
                                                                   input_throughput=1885.0)}
    lines = []
    for name, change in variants.items():
        doc = {**base, **change, "date": base["date"][:-1] + str(len(lines))}
        if name == "legacy":
            doc = {k: v for k, v in doc.items() if k not in ("request_throughput", "total_token_throughput")}
        lines.append(json.dumps(doc))
    path = tmp_path / "appended.jsonl"  # --append-result: one run per line
    path.write_text("\n".join(lines) + "\n")
    report = ingest_path(db, path)
    assert (report.rows_read, report.added) == (4, 4), db.quarantined()
    by_line = {r.conditions.provenance.source_locator.rsplit(" ", 1)[1]: r for r in db.results()}
    gamma, burst, capped, legacy = (by_line[str(n)] for n in range(1, 5))
    assert (gamma.conditions.benchmark.scenario, gamma.conditions.run.burstiness, gamma.conditions.load.target_qps) == \
        ("Gamma", 0.5, 4.0)
    assert (burst.conditions.benchmark.scenario, burst.conditions.run.concurrency) == ("burst", None)
    assert (capped.conditions.benchmark.scenario, capped.conditions.run.concurrency) == ("Poisson", 16)
    assert round(legacy.conditions.run.total_tokens_per_s, 1) == round(1885.0 + legacy.value, 1)


def test_vllm_spread_comes_from_its_per_request_lengths(db):
    r = _run(db, README_TABLE[10][0])
    lens = json.loads((OWN / README_TABLE[10][0]).read_text())["input_lens"]
    import statistics

    assert r.conditions.run.input_tokens_std == pytest.approx(statistics.pstdev(lens))
    assert r.conditions.run.output_tokens_std == 0.0


def test_a_system_description_states_what_no_file_records(db, tmp_path):
    system = tmp_path / "lab.toml"
    system.write_text('measured_by = "perf team"\nsystem_name = "lab-h100-01"\naccelerator = "NVIDIA H100-SXM-80GB"\n'
                      'accelerators_per_node = 8\nnodes = 1\nframework = "vLLM 0.6.3"\n'
                      'server_settings = "--tensor-parallel-size 8"\nmodel = "llama-3.1-70b"\ntool_version = "0.5.23"\n')
    ingest_path(db, OWN / "sglang/poisson4/sglang-oai_poisson4_isl550_osl250.jsonl", system=load_system(system))
    (r,) = db.results()
    i, c, run = r.conditions.identity, r.conditions.configuration, r.conditions.run
    assert (i.submitter, i.system_name, c.accelerator, c.accelerators_total, c.nodes, c.framework) == \
        ("perf team", "lab-h100-01", "NVIDIA H100-SXM-80GB", 8, 1, "vLLM 0.6.3")
    assert (run.server_settings, r.conditions.benchmark.model) == ("--tensor-parallel-size 8", "llama-3.1-70b")
    assert run.tool_version == "0.5.23 (stated by the user)"


@pytest.mark.parametrize("text, words", [
    ("accelerators_per_node = -1\n", ["accelerators_per_node", "line 1", "0 or more"]),
    ("nodes = 0\n", ["nodes", "1 or more"]),
    ("colour = \"red\"\n", ["unknown key", "measured_by"]),
    ("framework = \"\"\n", ["framework", "non-empty"]),
    ("framework = [\n", ["not TOML"]),
])
def test_a_bad_system_description_is_a_clear_error(tmp_path, text, words):
    path = tmp_path / "lab.toml"
    path.write_text(text)
    with pytest.raises(SourceError) as e:
        load_system(path)
    assert str(path) in str(e.value) and all(w in str(e.value) for w in words)


def test_a_json_object_of_no_known_tool_points_to_the_supported_ones(db, tmp_path):
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"throughput": 1000, "model": "x"}))
    report = ingest_path(db, path)
    (q,) = db.quarantined()
    assert report.quarantined == 1 and q["reason"] == "not_a_summary_table"
    assert "vLLM bench serve" in q["message"] and "docs/own-traffic.md" in q["message"]


def test_the_command_line_states_the_system_over_the_description_file(sqlite_url, tmp_path):
    from click.testing import CliRunner

    from exportguard.cli import main

    system = tmp_path / "lab.toml"
    system.write_text('measured_by = "perf team"\nsystem_name = "lab-a"\naccelerators_per_node = 4\n')
    path = OWN / "llmperf/concurrency8_isl550_osl250/mock-llm_550_250_summary.json"
    done = CliRunner().invoke(main, ["--db", sqlite_url, "ingest", str(path), "--system", str(system),
                                     "--system-name", "lab-b", "--nodes", "2", "--framework", "vLLM 0.6"])
    assert done.exit_code == 0 and "(llmperf): 1 read = 1 added" in done.output, done.output
    with open_store(sqlite_url) as s:
        (r,) = s.results()
    i, c = r.conditions.identity, r.conditions.configuration
    assert (i.submitter, i.system_name, c.accelerators_per_node, c.nodes, c.accelerators_total, c.framework) == \
        ("perf team", "lab-b", 4, 2, 8, "vLLM 0.6")
    bad = tmp_path / "bad.toml"
    bad.write_text("nodes = 0\n")
    refused = CliRunner().invoke(main, ["--db", sqlite_url, "ingest", str(path), "--system", str(bad)])
    assert refused.exit_code == 1 and "nodes must be a whole number 1 or more" in refused.output
    assert "Traceback" not in refused.output


@pytest.mark.parametrize("make, reason", [
    (lambda text: text[: len(text) // 2], "invalid_json"),
    (lambda text: "{" * 100_000 + "}" * 100_000, None),  # not a load-test file: judged as a summary table
    (lambda text: text.replace('"output_throughput": 778.8888959392938', '"output_throughput": NaN'), "bad_number"),
    (lambda text: text.replace('"output_throughput": 778.8888959392938',
                               '"output_throughput": 778.8888959392938, "output_throughput": 1e6'), "duplicate_key"),
    (lambda text: text.replace('"completed": 64', '"completed": "64 requests"'), "bad_number"),
    (lambda text: text.replace('"output_throughput": 778.8888959392938', '"output_throughput": -5'),
     "non_positive_value"),
])
def test_a_hostile_vllm_file_costs_its_run_with_a_reason(db, tmp_path, make, reason):
    text = (OWN / README_TABLE[11][0]).read_text()
    path = tmp_path / "run.json"
    path.write_text(make(text))
    report = ingest_path(db, path)
    assert report.reconciles and report.rows_read == 1 and report.quarantined == 1 and db.count() == 0
    (q,) = db.quarantined()
    assert q["reason"] == (reason or q["reason"]) and q["reason"] != "unexpected_error", q
    if reason in ("bad_number", "duplicate_key", "non_positive_value"):
        assert "output_throughput" in q["message"] + q["locator"] or "completed" in q["message"]


def test_one_broken_benchmark_of_a_guidellm_report_costs_that_benchmark_only(db, tmp_path):
    doc = json.loads((FIXTURES / "guidellm-0.8.1_sweep_isl550_osl250_benchmarks.json").read_text())
    del doc["benchmarks"][2]["config"]["strategy"]
    doc["benchmarks"][3]["metrics"]["output_tokens_per_second"]["successful"]["mean"] = "fast"
    path = tmp_path / "benchmarks.json"
    path.write_text(json.dumps(doc))
    report = ingest_path(db, path)
    assert (report.rows_read, report.added, report.quarantined) == (5, 3, 2)
    reasons = sorted((q["locator"].split(" ", 1)[1], q["reason"]) for q in db.quarantined())
    assert reasons[0][0].startswith("benchmarks[2]") and reasons[0][1] == "missing_field"
    assert reasons[1][0].startswith("benchmarks[3]") and reasons[1][1] == "bad_number"


def test_an_oversized_load_test_file_is_refused_unread(db, tmp_path, monkeypatch):
    from exportguard.ingest import own_files

    monkeypatch.setattr(own_files, "MAX_OWN_BYTES", 1000)
    path = tmp_path / "run.json"
    shutil.copy(OWN / README_TABLE[11][0], path)
    report = ingest_path(db, path)
    (q,) = db.quarantined()
    assert report.quarantined == 1 and q["reason"] == "file_too_large"


def test_a_vllm_file_that_is_not_utf8_is_quarantined_naming_the_byte(db, tmp_path):
    path = tmp_path / "run.json"
    path.write_bytes((OWN / README_TABLE[11][0]).read_bytes().replace(b"own-traffic", b"own-traffic\xff", 1))
    report = ingest_path(db, path)
    (q,) = db.quarantined()
    assert report.quarantined == 1 and q["reason"] == "not_utf8" and "not UTF-8" in q["message"]
