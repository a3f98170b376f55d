"""Issue 35: hostile load-test result files, made from the real ones in ../shared/own-traffic. Each
test was written against the code before its fix and failed there: invalid Unicode, junk JSON Lines,
implausible figures, line splitting, misleading errors, self-contradicting and ambiguous files."""
from __future__ import annotations

import json
import math
import time
from pathlib import Path

import pytest

from exportguard.api import ingest_sources
from exportguard.errors import SourceError
from exportguard.ingest import detect_kind, ingest_path
from exportguard.store import open_store
from tests.conftest import SHARED

OWN = SHARED / "own-traffic"
VLLM = OWN / "vllm/concurrency8_isl550_osl250/own-traffic-infqps-concurrency8-mock-llm-20261201-094403.json"
VLLM_POISSON = OWN / "vllm/poisson4_isl550_osl250/openai-4.0qps-mock-llm-20261201-094331.json"
SGLANG = OWN / "sglang/concurrency8/sglang_concurrency8.jsonl"
GUIDELLM = OWN / "guidellm/poisson3_isl550_osl250/benchmarks.json"
AIPERF = OWN / "aiperf/concurrency8_isl550_osl250/profile_export_aiperf.json"
GENAI = (OWN / "genai-perf/0.0.16/concurrency8_isl550_osl250/mock-llm-openai-chat-concurrency8/"
         "profile_export_genai_perf.json")
LLMPERF = OWN / "llmperf/concurrency8_isl550_osl250/mock-llm_550_250_summary.json"
pytestmark = pytest.mark.real_data


@pytest.fixture
def db(sqlite_url):
    s = open_store(sqlite_url)
    yield s
    s.close()


def vllm_record() -> dict:
    return json.loads(VLLM.read_text())


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass"))
    return path


def only_reason(report) -> tuple[str, str]:
    assert report.reconciles and report.quarantined == 1 and report.stored == 0, report.summary_line()
    q = report.last_quarantined
    return q.reason, q.message


# --- 1. strict text -------------------------------------------------------------------------------

@pytest.mark.parametrize("key, value", [("model_id", "mock\udfff"), ("label", "a\ud800b"), ("date", "2026\udc80")])
def test_invalid_unicode_in_any_field_quarantines_its_run_naming_the_field(db, tmp_path, key, value):
    record = vllm_record()
    record[key] = value
    path = write(tmp_path, "run.json", json.dumps(record))  # json escapes the surrogate as \\udfff: valid JSON
    reason, message = only_reason(ingest_path(db, path))
    assert reason == "bad_text" and key in message and "surrogate" in message


def test_invalid_unicode_in_a_key_name_is_refused_too(db, tmp_path):
    record = vllm_record()
    record["extra\udfff"] = 1
    reason, message = only_reason(ingest_path(db, write(tmp_path, "run.json", json.dumps(record))))
    assert reason == "bad_text" and "extra" in message


def test_one_bad_source_never_stops_the_sources_after_it(db, tmp_path):
    record = vllm_record()
    record["model_id"] = "mock\udfff"
    bad = write(tmp_path, "bad.json", json.dumps(record))
    reports = ingest_sources(db, bad, VLLM_POISSON, SGLANG)
    assert [r.stored for r in reports] == [0, 1, 2]
    assert db.count() == 3


def test_a_nul_in_a_field_quarantines_its_run(db, tmp_path):
    record = vllm_record()
    record["model_id"] = "mock\x00llm"
    reason, message = only_reason(ingest_path(db, write(tmp_path, "run.json", json.dumps(record))))
    assert reason == "bad_text" and "model_id" in message


# --- 4. JSON Lines split on line feeds only ------------------------------------------------------

@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\u0085"])
def test_json_lines_are_split_on_line_feeds_only(db, tmp_path, separator):
    lines = SGLANG.read_text().splitlines()
    first = json.loads(lines[0])
    first["tag"] = f"own{separator}traffic"
    text = json.dumps(first, ensure_ascii=False) + "\n" + lines[1] + "\n"
    report = ingest_path(db, write(tmp_path, "runs.jsonl", text))
    assert (report.rows_read, report.added, report.quarantined) == (2, 2, 0), report.summary_line()


def test_crlf_json_lines_still_read(db, tmp_path):
    text = "\r\n".join(SGLANG.read_text().splitlines()) + "\r\n"
    report = ingest_path(db, write(tmp_path, "runs.jsonl", text))
    assert (report.rows_read, report.added) == (2, 2)


# --- 2. bounded cost of junk lines -----------------------------------------------------------------

def test_a_million_junk_lines_ingest_in_seconds_as_one_entry_per_reason(db, tmp_path):
    first = SGLANG.read_text().splitlines()[0]
    path = tmp_path / "junk.jsonl"
    with open(path, "w") as f:
        f.write(first + "\n")
        f.write("{}\n" * 1_000_000)
        f.write("not json\n" * 3)
    started = time.perf_counter()
    report = ingest_path(db, path)
    seconds = time.perf_counter() - started
    assert report.reconciles and report.rows_read == 1_000_004 and report.added == 1
    assert report.quarantined == 1_000_003
    assert seconds < 30, seconds
    rows = db.quarantined()
    assert len(rows) == 2, [r["reason"] for r in rows]  # one per reason, with its count and first lines
    by_reason = {r["reason"]: r for r in rows}
    assert "1,000,000 lines" in by_reason["not_a_result_record"]["message"]
    assert "lines 2, 3, 4" in by_reason["not_a_result_record"]["locator"]
    assert "3 lines" in by_reason["invalid_json"]["message"]
    # a second ingest of the same file adds no quarantine row
    again = ingest_path(db, path)
    assert again.new_quarantine_rows == 0 and len(db.quarantined()) == 2


def test_a_bad_json_line_is_not_said_to_end_the_file(db, tmp_path):
    lines = SGLANG.read_text().splitlines()
    report = ingest_path(db, write(tmp_path, "runs.jsonl", lines[0] + "\n" + '{"a": "unterminated\n' + lines[1] + "\n"))
    assert report.added == 2 and report.quarantined == 1
    assert "file ends" not in report.last_quarantined.message
    assert "line 2" in report.last_quarantined.locator


# --- 6. errors that say what is wrong --------------------------------------------------------------

@pytest.mark.parametrize("key", ["model_id", "request_rate", "num_prompts"])
def test_a_vllm_file_without_one_key_of_its_signature_names_the_tool_and_the_key(db, tmp_path, key):
    record = vllm_record()
    del record[key]
    report = ingest_path(db, write(tmp_path, "run.json", json.dumps(record)))
    reason, message = only_reason(report)
    assert f"vLLM bench serve result without {key}" in message


@pytest.mark.parametrize("text, words", [(b"", "empty"), (b"  \n\t\n", "white space"), (b"\xef\xbb\xbf", "empty")])
def test_empty_files_say_so(db, tmp_path, text, words):
    reason, message = only_reason(ingest_path(db, write(tmp_path, "run.json", text)))
    assert words in message and "summary table" not in message.split(";")[0]


def test_a_list_wrapped_vllm_record_says_so(db, tmp_path):
    path = write(tmp_path, "run.json", json.dumps([vllm_record()]))
    reason, message = only_reason(ingest_path(db, path))
    assert "vLLM bench serve" in message and "list" in message


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32"])
def test_a_utf16_file_says_so(db, tmp_path, encoding):
    path = write(tmp_path, "run.json", VLLM.read_text().encode(encoding))
    reason, message = only_reason(ingest_path(db, path))
    assert encoding.split("-")[0].upper().replace("UTF", "UTF-") in message and "UTF-8" in message


def test_a_ramp_up_without_its_rates_names_the_key(db, tmp_path):
    record = vllm_record()
    record["ramp_up_strategy"] = "linear"
    reason, message = only_reason(ingest_path(db, write(tmp_path, "run.json", json.dumps(record))))
    assert "ramp_up_start_rps" in message and "TypeError" not in message


def test_the_write_lock_is_not_held_while_the_source_is_read(db, sqlite_url, monkeypatch):
    """Another ingest may write while this one parses its file: the lock is taken for the writing only."""
    from exportguard.ingest import own_files

    real = own_files.read_own
    wrote = []

    def reading(*args):
        other = open_store(sqlite_url, wait_s=0.2)
        try:
            with other.writing() as conn:  # fails after 0.2 s when the first ingest holds the lock
                conn.exec_driver_sql("SELECT 1")
            wrote.append(True)
        finally:
            other.close()
        yield from real(*args)

    monkeypatch.setattr(own_files, "read_own", reading)
    assert ingest_path(db, VLLM).added == 1 and wrote == [True]



def test_a_full_disk_during_an_own_ingest_says_disk_full(tmp_path):
    """SQLite rolls the whole transaction back on a full disk, so the savepoint the store then releases is
    gone: the error must be the disk's, not "no such savepoint"."""
    from tests.faults import assert_one_line_error, run, small_filesystem

    with small_filesystem(tmp_path / "small", 200) as small:
        folder = small or tmp_path / "small"
        url = f"sqlite:///{folder / 'store.db'}"
        with open_store(url) as s:
            s.count()
        big = tmp_path / "runs.jsonl"
        lines = SGLANG.read_text().splitlines()
        with open(big, "w") as f:  # 3,000 distinct runs (each its own tag): enough rows to fill the disk
            for n in range(3000):
                record = json.loads(lines[n % 2])
                record["tag"] = f"run-{n}-" + "x" * 200
                f.write(json.dumps(record) + "\n")
        size = (folder / "store.db").stat().st_size
        fault = {} if small else {"file_size_limit": size + 64 * 1024}
        done = run(["--db", url, "ingest", big], **fault)
        line = assert_one_line_error(done, "not ingested", "nothing of it was stored")
        assert "disk full" in line and "savepoint" not in line, line


# --- 3. plausibility; no NaN or Infinity in output; a positive figure never prints as zero ----------

def ingest_record(db, tmp_path, record: dict, name: str = "run.json"):
    return ingest_path(db, write(tmp_path, name, json.dumps(record)))


@pytest.mark.parametrize("value", [1e308, 1e-300, 1e-320])
def test_an_implausible_own_throughput_is_refused(db, tmp_path, value):
    record = vllm_record()
    record["output_throughput"] = value
    reason, message = only_reason(ingest_record(db, tmp_path, record))
    assert reason == "implausible_value" and "output tokens/s" in message


def test_an_implausible_throughput_is_refused_where_the_file_has_no_totals(db, tmp_path):
    from tests.own_runs import FIXTURES

    record = json.loads((FIXTURES / "genai-perf-0.0.8_concurrency8_isl550_osl250_profile_export_genai_perf.json")
                        .read_text())
    record["output_token_throughput"]["avg"] = 1e-9
    reason, message = only_reason(ingest_record(db, tmp_path, record))
    assert reason == "implausible_value"


def test_ten_million_output_tokens_per_request_is_refused(db, tmp_path):
    record = vllm_record()
    scale = 10_000_000 * 64 / record["total_output_tokens"]
    for key in ("total_output_tokens", "output_throughput", "total_token_throughput"):
        record[key] *= scale  # consistent with each other: refused by the bound alone
    record.pop("output_lens", None)
    reason, message = only_reason(ingest_record(db, tmp_path, record))
    assert reason == "implausible_value" and "mean output tokens per request" in message


@pytest.mark.parametrize("value, decimals", [(1e-9, None), (1e-9, 2), (1e-320, None), (0.00004, None), (3e-7, 4)])
def test_a_positive_number_never_prints_as_zero(value, decimals):
    from exportguard.wording import number

    text = number(value, decimals)
    assert text.strip("0.,") != "" and float(text.replace(",", "")) > 0, text


def test_json_output_stays_json_whatever_the_store_holds(capsys):
    from exportguard.commands import _echo_json

    _echo_json({"value": float("inf"), "band": [float("nan"), -float("inf"), 1.5]})
    out = capsys.readouterr().out
    data = json.loads(out, parse_constant=lambda name: pytest.fail(f"{name} is not JSON"))
    assert data["band"][2] == 1.5 and data["value"] is None


# --- 5. each importer cross-checks its tool's own fields ------------------------------------------

def test_a_value_a_thousand_times_its_own_totals_is_refused_naming_both(db, tmp_path):
    record = vllm_record()
    record["output_throughput"] *= 1000
    record["total_token_throughput"] *= 1000
    reason, message = only_reason(ingest_record(db, tmp_path, record))
    assert reason == "contradicts_itself" and "output_throughput" in message and "duration" in message


def test_completed_against_prompts_is_checked(db, tmp_path):
    record = vllm_record()
    record["completed"] = 1  # with 64 prompts and 0 failed: a new shape class of 35,205 in / 16,000 out per request
    reason, message = only_reason(ingest_record(db, tmp_path, record))
    assert reason in ("contradicts_itself", "implausible_value") and "num_prompts" in message


def test_mean_output_tokens_against_throughput_and_duration(db, tmp_path):
    record = vllm_record()
    record["total_output_tokens"] *= 100
    record.pop("output_lens", None)
    reason, message = only_reason(ingest_record(db, tmp_path, record))
    assert reason == "contradicts_itself" and "mean output tokens" in message


def test_per_request_lengths_against_the_totals(db, tmp_path):
    record = json.loads((OWN / "sglang/poisson4/sglang-oai_poisson4_isl550_osl250.jsonl").read_text())
    assert isinstance(record.get("output_lens"), list) and record["output_lens"], "the real file has output_lens"
    record["output_lens"][0] += 5000
    reason, message = only_reason(ingest_record(db, tmp_path, record, "runs.jsonl"))
    assert reason == "contradicts_itself" and "output_lens" in message and "total_output_tokens" in message


def test_vllm_per_request_lengths_against_the_totals(db, tmp_path):
    record = json.loads(VLLM_POISSON.read_text())
    record["input_lens"][3] += 9000
    reason, message = only_reason(ingest_record(db, tmp_path, record))
    assert reason == "contradicts_itself" and "input_lens" in message and "total_input_tokens" in message


def test_total_below_output_throughput_is_refused(db, tmp_path):
    record = vllm_record()
    record["total_token_throughput"] = record["output_throughput"] / 2
    reason, message = only_reason(ingest_record(db, tmp_path, record))
    assert reason == "contradicts_itself" and "total tokens/s" in message


@pytest.mark.parametrize("extra, other", [
    ({"benchmarks": [{"type_": "generative_benchmark"}]}, "guidellm"),
    ({"dataset_name": "random", "random_input_len": 550}, "SGLang bench_serving")])
def test_a_record_with_two_tools_keys_is_refused_as_ambiguous_naming_both(db, tmp_path, extra, other):
    record = {**vllm_record(), **extra}
    reason, message = only_reason(ingest_record(db, tmp_path, record))
    assert reason == "ambiguous_file" and "vLLM bench serve" in message and other in message


def test_contradicting_load_fields_are_stored_with_a_warning_in_the_report_and_the_note(db, tmp_path):
    record = json.loads(GENAI.read_text())
    stimulus = record["input_config"]["perf_analyzer"]["stimulus"]
    stimulus["request_rate"] = 3.0  # beside its concurrency 8: perf_analyzer runs one or the other
    assert stimulus.get("concurrency") == 8
    report = ingest_record(db, tmp_path, record)
    assert report.added == 1 and any("concurrency 8 and request_rate 3" in w for w in report.warnings), report.warnings
    (run,) = db.results()
    assert "warning: input_config gives both concurrency 8 and request_rate 3" in run.conditions.run.load_detail


def test_sglang_cap_below_its_measured_mean_in_flight_is_warned(db, tmp_path):
    record = json.loads(SGLANG.read_text().splitlines()[0])
    record["max_concurrency"] = 2
    report = ingest_record(db, tmp_path, record, "runs.jsonl")
    assert report.added == 1 and any("max_concurrency 2" in w for w in report.warnings)


def test_vllm_infinite_rate_with_a_cap_of_zero_is_warned(db, tmp_path):
    record = vllm_record()
    record["max_concurrency"] = 0
    report = ingest_record(db, tmp_path, record)
    assert report.added == 1 and any("max_concurrency 0" in w for w in report.warnings)


# --- 10. the smaller items -------------------------------------------------------------------------

def test_a_number_written_as_json_text_costs_its_run(db, tmp_path):
    record = vllm_record()
    record["output_throughput"] = str(record["output_throughput"])
    reason, message = only_reason(ingest_record(db, tmp_path, record))
    assert reason == "bad_number" and "output_throughput" in message and "text" in message


def test_a_negative_p99_ttft_costs_its_run(db, tmp_path):
    record = vllm_record()
    record["p99_ttft_ms"] = -5.0
    reason, message = only_reason(ingest_record(db, tmp_path, record))
    assert reason == "non_positive_value" and "p99_ttft_ms" in message


@pytest.mark.parametrize("date", ["20261399-256199", "2026-13-99 25:61:99", "yesterday"])
def test_dates_are_validated(db, tmp_path, date):
    record = vllm_record()
    record["date"] = date
    reason, message = only_reason(ingest_record(db, tmp_path, record))
    assert reason == "bad_field" and "date" in message


def test_a_quarantine_locator_names_the_file_once(db, tmp_path):
    record = vllm_record()
    record["output_throughput"] = "778.9"
    path = write(tmp_path, "run.json", json.dumps(record))
    ingest_path(db, path)
    (row,) = db.quarantined()
    assert row["locator"].count("run.json") == 1, row["locator"]


def test_a_symlink_loop_is_said_to_be_one(sqlite_url, tmp_path):
    from click.testing import CliRunner
    from exportguard.cli import main

    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    result = CliRunner().invoke(main, ["--db", sqlite_url, "ingest", str(tmp_path / "a")])
    assert result.exit_code == 2 and "symbolic link loop" in result.output and "Traceback" not in result.output


# --- 8. ingest FOLDER ------------------------------------------------------------------------------

def _cli_ingest(url, *paths):
    from click.testing import CliRunner
    from exportguard.cli import main

    return CliRunner().invoke(main, ["--db", url, "ingest", *map(str, paths)])


def test_ingest_of_the_tools_folder_reads_every_result_file_by_content_and_counts_the_rest(sqlite_url):
    from tests.own_runs import README_TABLE

    result = _cli_ingest(sqlite_url, OWN)
    assert result.exit_code == 0, result.output
    assert "Error" not in result.output and "empty_tree" not in result.output
    with open_store(sqlite_url) as s:
        assert s.count() == len(README_TABLE)
        assert s.quarantined() == []
    # the companion files and the files that hold no results are counted, skipped by rule
    assert "phase manifest" in result.output and "llmperf per-request" in result.output
    assert "not a result file exportguard reads" in result.output  # README.md, tools/*.py


def test_globbing_every_file_of_a_tool_folder_exits_zero(sqlite_url):
    files = sorted(p for tool in ("aiperf", "llmperf", "genai-perf") for p in (OWN / tool).rglob("*") if p.is_file())
    assert any(p.name == "phase_manifest.json" for p in files) and any(p.name == "profile_export.jsonl" for p in files)
    result = _cli_ingest(sqlite_url, *files)
    assert result.exit_code == 0, result.output
    assert "Error" not in result.output


def test_a_folder_with_an_mlcommons_tree_and_tool_files_reads_both(sqlite_url, tmp_path):
    import shutil

    from tests.bad_sources import copy_submitter, scenario_locators

    sub = copy_submitter(tmp_path / "mixed", "AMD")
    shutil.copy(VLLM, tmp_path / "mixed" / "vllm-run.json")
    result = _cli_ingest(sqlite_url, tmp_path / "mixed")
    assert result.exit_code == 0, result.output
    with open_store(sqlite_url) as s:
        assert len(s.results(mlperf=True)) == len(scenario_locators(sub))
        assert len(s.results(mlperf=False)) == 1


# --- 9. correcting the store ----------------------------------------------------------------------

SYSTEM_TOML = Path(__file__).resolve().parent / "fixtures" / "stores" / "system.toml"


def _cli(url, *args):
    from click.testing import CliRunner
    from exportguard.cli import main

    return CliRunner().invoke(main, ["--db", url, *map(str, args)])


def _run_id(url) -> str:
    with open_store(url) as s:
        (run,) = [r for r in s.results() if r.own]
        return run.conditions.run.run_id


def test_a_stored_run_is_redescribed_printing_what_changed_with_an_audit_record(sqlite_url):
    assert _cli(sqlite_url, "ingest", VLLM).exit_code == 0
    before = _cli(sqlite_url, "ingest", VLLM, "--system", SYSTEM_TOML)
    assert before.exit_code == 1 and "changed (not overwritten)" in before.output  # the dead end
    run_id = _run_id(sqlite_url)
    done = _cli(sqlite_url, "redescribe", "--run-id", run_id[:12], "--system", SYSTEM_TOML)
    assert done.exit_code == 0, done.output
    assert "system_name 'unknown' -> 'lab-h100-01'" in done.output and "1 row(s) re-described" in done.output
    with open_store(sqlite_url) as s:
        (run,) = s.results()
        assert (run.conditions.identity.system_name, run.conditions.configuration.accelerators_total) == (
            "lab-h100-01", 8)
        assert run.value == pytest.approx(778.9, abs=0.1)  # the figure stays as measured
    again = _cli(sqlite_url, "ingest", VLLM, "--system", SYSTEM_TOML)
    assert again.exit_code == 0 and "1 unchanged" in again.output, again.output
    audit = _cli(sqlite_url, "audit", "--json")
    (record,) = json.loads(audit.output)
    assert record["action"] == "re-described" and "lab-h100-01" in record["rows"][0]


@pytest.mark.parametrize("how", ["run-id", "source", "key"])
def test_stored_runs_are_removed_by_run_id_source_or_key_with_an_audit_record(sqlite_url, how):
    assert _cli(sqlite_url, "ingest", VLLM, SGLANG).exit_code == 0
    with open_store(sqlite_url) as s:
        sglang = [r for r in s.results() if r.conditions.run.tool == "SGLang bench_serving"]
    if how == "run-id":
        args = [a for r in sglang for a in ("--run-id", r.conditions.run.run_id)]
    elif how == "source":
        args = ["--source", SGLANG]
    else:
        args = [a for r in sglang for a in ("--key", json.dumps(list(r.natural_key)))]
    dry = _cli(sqlite_url, "remove", "--dry-run", *args)
    assert dry.exit_code == 0 and "2 row(s) would remove" in dry.output
    done = _cli(sqlite_url, "remove", *args)
    assert done.exit_code == 0, done.output
    assert done.output.count("removed: own run") == 2 and "sglang_concurrency8.jsonl line 1" in done.output
    with open_store(sqlite_url) as s:
        assert [r.conditions.run.tool for r in s.results()] == ["vllm bench serve"]
    (record,) = json.loads(_cli(sqlite_url, "audit", "--json").output)
    assert record["action"] == "removed" and len(record["rows"]) == 2
    nothing = _cli(sqlite_url, "remove", *args)
    assert nothing.exit_code == 1 and "nothing matched" in nothing.output
    assert _cli(sqlite_url, "ingest", SGLANG).output.count("2 added") == 1  # removed runs can be ingested again


def test_the_demo_keeps_its_data_in_a_store_of_its_own(tmp_path, monkeypatch):
    from click.testing import CliRunner
    from exportguard.cli import main

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("EXPORTGUARD_DB", raising=False)
    result = CliRunner().invoke(main, ["demo", "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out" / "demo-store.db").is_file()
    assert not list((tmp_path / "xdg").rglob("*.db"))  # the user's default store is untouched


def test_the_cited_source_of_a_run_in_two_files_does_not_depend_on_ingest_order(tmp_path):
    main = AIPERF
    phase = OWN / "aiperf/concurrency8_isl550_osl250/phases/profiling/profile_export_aiperf.json"
    cited = []
    for n, order in enumerate(((main, phase), (phase, main))):
        with open_store(f"sqlite:///{tmp_path / f'{n}.db'}") as s:
            for path in order:
                ingest_path(s, path)
            (run,) = s.results()
            cited.append(run.conditions.provenance.source_path)
    assert cited[0] == cited[1] == str(main)


@pytest.mark.parametrize("key", ["total_output_tokens", "output_throughput"])
def test_a_missing_key_a_run_needs_names_the_tool(db, tmp_path, key):
    record = vllm_record()
    del record[key]  # output_throughput is a key of vLLM's signature: the file is refused whole, naming it
    reason, message = only_reason(ingest_record(db, tmp_path, record))
    assert reason == "missing_field" and f"vLLM bench serve result without {key}" in message
