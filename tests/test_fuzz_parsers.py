"""Fuzz tests of every ingest parser: whatever text or bytes they get, they return a well-formed
value (every number finite, every count a non-negative int, every stored row plausible) or raise
SourceError; never another exception. The row readers (summary table, CSV) turn any unexpected
exception into an ``unexpected_error`` quarantine row, so for them that reason is the failure.

Inputs are real MLCommons v5.1 files mutated at random (hostile digits, separators, NaN,
quotes, braces, line breaks, bytes that are not UTF-8) plus generated text. The budget is fixed
and small for CI (200 examples each, no example database written, so nothing lands outside
tmp_path). EXPORTGUARD_FUZZ_EXAMPLES=N runs a longer campaign by hand: whatever one finds is to be
kept as an explicit test in the module of its reader. Campaigns of 20,000 examples per parser (8,000
for the summary and CSV row readers) found nothing beyond what those modules already pin.
"""
from __future__ import annotations

import json
import math
import os
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exportguard.errors import SourceError
from exportguard.ingest import Quarantined, Skipped, Source, Warned, csv_rows, mlperf_summary
from exportguard.ingest.mlperf_logs import parse_accuracy, parse_performance_summary, parse_system_description
from exportguard.ingest.numbers import COUNT, CSV, JSON, LOG, SUMMARY_TEXT, parse_count, parse_number
from exportguard.model import OWN_LOAD_KINDS, SCENARIOS, UNITS, Result
from tests.bad_sources import csv_slice, csv_text
from tests.conftest import MLPERF, SUMMARY_V51, TREE_V51
from tests.real_data import require_real_data

pytestmark = pytest.mark.real_data
require_real_data(MLPERF)

FUZZ = settings(max_examples=int(os.environ.get("EXPORTGUARD_FUZZ_EXAMPLES", "200")), deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
SOURCE = Source("mlperf_summary", "fuzz", "0" * 64, "2025-09-09", "2025-09-09T00:00:00+00:00")
CSV_SOURCE = Source("csv", "fuzz.csv", "0" * 64, "2025-09-09", "2025-09-09T00:00:00+00:00")
CAP = {"llama2-70b": 1024, "llama3.1-8b": 128, "llama3.1-405b": 2000}


@pytest.fixture(autouse=True, scope="module")
def _hypothesis_files_under_tmp(tmp_path_factory):
    """Hypothesis caches constants it reads from source files in ./.hypothesis even without an
    example database: point its folder into the test's temporary folder while this module runs."""
    from hypothesis.configuration import set_hypothesis_home_dir

    set_hypothesis_home_dir(tmp_path_factory.mktemp("hypothesis"))
    yield
    set_hypothesis_home_dir(None)


# --------------------------------------------------------------------------- real seeds


@cache
def _texts(pattern: str) -> tuple[str, ...]:
    return tuple(p.read_text() for p in sorted(TREE_V51.glob(pattern)))


def perf_logs():
    return _texts("closed/*/results/*/*/*/performance/run_1/mlperf_log_summary.txt")


def accuracy_files():
    return _texts("closed/*/results/*/*/*/accuracy/accuracy.txt")


def system_files():
    return _texts("closed/*/systems/*.json")


@cache
def summary_rows() -> tuple[str, ...]:
    """Real LLM rows of the v5.1 summary, one JSON text each (a few of every benchmark)."""
    rows = json.loads(SUMMARY_V51.read_text())
    picked = [r for r in rows if r["Model"].startswith("llama")][::12] + [rows[0]]
    return tuple(json.dumps(r) for r in picked)


@cache
def csv_lines() -> tuple[str, tuple[str, ...]]:
    """The header and the real rows of tests/bad_sources.py's CSV (two MLPerf rows, one own test)."""
    header, *rows = csv_text(csv_slice()).rstrip("\n").split("\n")
    return header, tuple(rows)


# --------------------------------------------------------------------------- mutation

HOSTILE = ["\u0663", "\uff13", "\u0967", ",", ".", "e", "E", "e+", "-", "+", "_", "'", " ", "\u00a0", "\u202f",
           "NaN", "nan", "Infinity", "-Infinity", "inf", "1e309", "-1e309", "0", "0.0", "-1", "9" * 30, "9" * 70,
           '"', "'", "{", "}", "[", "]", ":", ",,", "\n", "\r", "\r\n", "\t", "\x00", "\\", "\\u0000", "\ufeff",
           "\u2028", "Scenario : Server", "Result is : INVALID", "TOKENS_PER_SAMPLE: ", "tokens_per_sample",
           "__import__('os')", "Offline", "Interactive", "True", "null", '"Nodes": 1, "Nodes"']


def _edit(draw, text: str, extra) -> str:
    """``text`` with a few edits, biased to land on or next to a digit, where numbers are read."""
    digits = [i for i, ch in enumerate(text) if ch.isdigit()] or [0]
    for _ in range(draw(st.integers(1, 5))):
        if draw(st.booleans()):
            pos = min(draw(st.sampled_from(digits)), len(text))
        else:
            pos = draw(st.integers(0, len(text)))
        cut = draw(st.integers(0, 6))
        piece = draw(st.one_of(st.sampled_from(HOSTILE), extra))
        text = text[:pos] + piece + text[pos + cut:]
    return text


@st.composite
def mutated(draw, seeds, extra=st.text(max_size=6)):
    """A real text with a few edits."""
    return _edit(draw, draw(st.sampled_from(seeds)), extra)


# JSON text of a value: what the standard refuses, what json.loads reads loosely, and plain values.
_JSON_VALUE = st.one_of(
    st.sampled_from(["NaN", "Infinity", "-Infinity", "1e309", "-1e309", "9" * 70, "9" * 5000, "0", "-1", "1.5",
                     "2.9e2", "true", "false", "null", "[]", "{}", '""', '" "', '"\\ud800"']),
    st.sampled_from(HOSTILE).map(json.dumps),
    st.text(max_size=8).map(json.dumps),
)


@st.composite
def hostile_row(draw):
    """A real summary row, still JSON, with some values replaced, edited inside or given twice."""
    row = json.loads(draw(st.sampled_from(summary_rows())))
    items = [(k, json.dumps(v)) for k, v in row.items()]
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(items) - 1))
        key, value = items[i]
        how = draw(st.sampled_from(["replace", "edit", "repeat"]))
        if how == "replace":
            items[i] = (key, draw(_JSON_VALUE))
        elif how == "edit" and isinstance(row.get(key), str):
            items[i] = (key, json.dumps(_edit(draw, row[key], st.text(max_size=4))))
        elif how == "repeat":
            items.append((key, draw(_JSON_VALUE)))
    return "{" + ", ".join(f"{json.dumps(k)}: {v}" for k, v in items) + "}"


def to_bytes(text: str, junk: bytes) -> bytes:
    data = text.encode("utf-8", "surrogatepass")
    return data if not junk else data[: len(data) // 2] + junk + data[len(data) // 2:]


NON_UTF8 = st.sampled_from([b"", b"", b"", b"\xff", b"\xe9", b"\xc3", b"\xed\xa0\x80", b"\x80\x80"])


# --------------------------------------------------------------------------- checks


def finite_or_none(x) -> bool:
    return x is None or (isinstance(x, float) and math.isfinite(x))


def count_or_none(x) -> bool:
    return x is None or (isinstance(x, int) and not isinstance(x, bool) and x >= 0)


def check_result(r: Result) -> None:
    c = r.conditions
    assert isinstance(r.value, float) and math.isfinite(r.value) and r.value > 0
    assert r.samples_per_s is None or (math.isfinite(r.samples_per_s) and r.samples_per_s > 0)
    tps = c.shape.tokens_per_sample
    for x in (c.load.target_qps, c.load.ttft_bound_ms, c.load.tpot_bound_ms, c.load.p99_ttft_ms, c.load.p99_tpot_ms):
        assert x is None or math.isfinite(x)
    for text in (c.identity.system_name, c.identity.submitter, c.configuration.framework):
        assert isinstance(text, str) and text.strip()
    if r.own:  # an own run: never an MLPerf scenario, a measured shape, counts that may be unknown
        assert r.unit == "tokens/s" and c.benchmark.scenario in OWN_LOAD_KINDS
        assert math.isfinite(tps) and tps > 0 and c.run.mean_input_tokens > 0
        assert c.load.ttft_bound_ms is None and c.load.tpot_bound_ms is None and c.load.min_duration_ms is None
        for n in (c.configuration.accelerators_per_node, c.configuration.nodes, c.configuration.accelerators_total,
                  c.run.concurrency, c.run.requests):
            assert n is None or (isinstance(n, int) and not isinstance(n, bool) and n >= 0)
        return
    assert r.unit in UNITS and c.benchmark.scenario in SCENARIOS
    assert tps is None or (math.isfinite(tps) and 0 < tps <= c.shape.reference_max_output_tokens * 1.02)
    for n in (c.configuration.accelerators_per_node, c.configuration.nodes, c.configuration.accelerators_total,
              c.load.min_duration_ms, c.shape.dataset_samples):
        assert isinstance(n, int) and not isinstance(n, bool) and n >= 0
    assert c.configuration.nodes >= 1


def check_items(items) -> None:
    for item in items:
        assert isinstance(item, (Result, Warned, Quarantined, Skipped)), item
        if isinstance(item, Warned):  # a result stored with a warning about a field that is not read
            assert item.warnings and all(isinstance(w, str) and w for w in item.warnings)
            item = item.result
        if isinstance(item, Quarantined):
            assert item.reason != "unexpected_error", item.message
            assert item.reason and item.message and item.locator
        elif isinstance(item, Result):
            check_result(item)


def items_or_source_error(read):
    try:
        return list(read())
    except SourceError as e:
        assert e.reason and e.reason == e.reason.lower()
        return []


# --------------------------------------------------------------------------- the parsers


@FUZZ
@given(st.one_of(mutated(perf_logs()), st.text(max_size=300)))
def test_performance_summary_parser_returns_finite_values_or_refuses(text):
    try:
        perf = parse_performance_summary(text)
    except SourceError:
        return
    assert isinstance(perf.valid, bool) and isinstance(perf.scenario_in_log, str)
    for name in ("tokens_per_s", "samples_per_s", "scheduled_samples_per_s", "target_qps", "p99_ttft_ns",
                 "p99_tpot_ns"):
        value = getattr(perf, name)
        assert finite_or_none(value) and (value is None or value >= 0), (name, value)
    assert (perf.tokens_per_s or perf.samples_per_s) > 0
    for name in ("ttft_bound_ns", "tpot_bound_ns", "min_duration_ms", "min_query_count", "samples_per_query",
                 "performance_sample_count"):
        assert count_or_none(getattr(perf, name)), name


@FUZZ
@given(st.one_of(mutated(accuracy_files()), st.text(max_size=300).map(lambda t: "{" + t + "}")))
def test_accuracy_parser_returns_finite_values_or_refuses(text):
    try:
        acc = parse_accuracy(text)
    except SourceError:
        return
    assert all(isinstance(v, float) and math.isfinite(v) for v in acc.metrics.values())
    assert finite_or_none(acc.tokens_per_sample)
    assert count_or_none(acc.gen_num) and count_or_none(acc.gen_tok_len)


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10)
    | st.sampled_from(["8", " 8 ", "N/A", "", "\u0668", "1,6", "8.0", "-1"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["number_of_nodes", "accelerators_per_node", "status", "system_name", "division", "x"]),
        inner, max_size=4),
    max_leaves=8)


@FUZZ
@given(st.one_of(mutated(system_files()), _json_values.map(json.dumps)))
def test_system_description_parser_returns_counts_or_refuses(text):
    try:
        desc = parse_system_description(text)
    except SourceError:
        return
    assert count_or_none(desc.number_of_nodes) and count_or_none(desc.accelerators_per_node)
    for name in ("division", "submitter", "status", "system_type", "system_name", "accelerator_model_name",
                 "host_processor_model_name", "framework", "operating_system"):
        assert getattr(desc, name) is None or isinstance(getattr(desc, name), str)
    assert desc.raw_text == text


@FUZZ
@given(st.lists(st.one_of(hostile_row(), hostile_row(), mutated(summary_rows())), min_size=1, max_size=4),
       NON_UTF8)
def test_summary_rows_are_stored_well_formed_quarantined_or_skipped(rows, junk):
    data = to_bytes("[" + ",\n".join(rows) + "]", junk)
    check_items(items_or_source_error(lambda: mlperf_summary.parse_summary(data, "fuzz.json", SOURCE, {})))


@FUZZ
@given(st.lists(mutated(csv_lines()[1]), min_size=1, max_size=4), NON_UTF8, st.sampled_from(["\n", "\r\n", "\r"]))
def test_csv_rows_are_stored_well_formed_quarantined_or_skipped_one_per_line(lines, junk, newline):
    header, _ = csv_lines()
    data = to_bytes(newline.join([header, *lines]) + newline, junk)
    items = items_or_source_error(lambda: csv_rows.parse_csv(data, "fuzz.csv", CSV_SOURCE))
    check_items(items)


_numberish = st.one_of(
    st.text(max_size=12),
    st.from_regex(r"[-+]?[0-9٠-٩０-９,._' eE]{0,12}", fullmatch=True),
    st.floats().map(repr),
    st.integers().map(str),
    st.sampled_from(["nan", "NaN", "inf", "-Infinity", "1e309", "1,5", "1.234,5", "١٢", "１２"]),
)


@FUZZ
@given(_numberish, st.sampled_from([LOG, JSON, SUMMARY_TEXT, CSV, COUNT]))
def test_number_parser_returns_a_finite_number_of_ascii_text_or_refuses(text, syntax):
    try:
        value = parse_count(text, "f") if syntax is COUNT else parse_number(text, syntax, "f")
    except SourceError as e:
        assert e.reason == "bad_number" and e.message.startswith("f: ")
        return
    assert text.isascii() and text == text.strip() and "," not in text
    assert math.isfinite(value) and value == (int(text) if syntax is COUNT else float(text))


# --------------------------------------------------------------------------- own load-test files

OWN_SOURCE = Source("vllm_bench", "fuzz-own.json", "0" * 64, "2026-12-01", "2026-12-01T00:00:00+00:00")


@cache
def own_records() -> tuple[str, ...]:
    """One run record of each load-test tool as written (JSON text; SGLang's with its bare Infinity)."""
    own = MLPERF.parent / "own-traffic"
    picks = ["vllm/concurrency8_isl550_osl250/own-traffic-infqps-concurrency8-mock-llm-20261201-094403.json",
             "aiperf/concurrency8_isl550_osl4000/profile_export_aiperf.json",
             "genai-perf/0.0.16/rate3_isl550_osl250/mock-llm-openai-chat-request_rate3.0/profile_export_genai_perf.json",
             "llmperf/concurrency8_isl550_osl250/mock-llm_550_250_summary.json"]
    texts = [(own / p).read_text() for p in picks]
    texts += (own / "sglang/concurrency8/sglang_concurrency8.jsonl").read_text().splitlines()
    fixture = Path(__file__).resolve().parent / "fixtures" / "own-traffic"
    texts.append((fixture / "genai-perf-0.0.8_concurrency8_isl550_osl250_profile_export_genai_perf.json").read_text())
    guidellm = json.loads((fixture / "guidellm-0.8.1_sweep_isl550_osl250_benchmarks.json").read_text())
    guidellm["benchmarks"] = guidellm["benchmarks"][:2]
    texts.append(json.dumps(guidellm))
    return tuple(texts)


@st.composite
def hostile_own(draw):
    """A real run record with some top-level values replaced, edited inside or given twice."""
    text = draw(st.sampled_from(own_records()))
    row = json.loads(text.replace("Infinity", '"__inf__"'))
    items = [(k, json.dumps(v).replace('"__inf__"', "Infinity")) for k, v in row.items()]
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(items) - 1))
        key, value = items[i]
        how = draw(st.sampled_from(["replace", "repeat", "drop"]))
        if how == "replace":
            items[i] = (key, draw(_JSON_VALUE))
        elif how == "repeat":
            items.append((key, draw(_JSON_VALUE)))
        elif len(items) > 1:
            items.pop(i)
    return "{" + ", ".join(f"{json.dumps(k)}: {v}" for k, v in items) + "}"


@FUZZ
@given(st.one_of(hostile_own(), mutated(own_records())), NON_UTF8)
def test_own_result_files_are_stored_well_formed_quarantined_or_refused(text, junk):
    """Whatever a load-test file holds, each of its runs is stored with every own-run condition, or
    quarantined with a reason a reader meant (never unexpected_error), or the file is refused."""
    from exportguard.ingest import own_files, own_json
    from exportguard.ingest.own_system import NOT_DESCRIBED

    data = to_bytes(text, junk)
    try:
        records = own_json.parse(own_json.decode(data, "fuzz-own.json"), "fuzz-own.json")
    except SourceError:
        return
    values = [r.value for r in records if not isinstance(r.value, SourceError)]
    kind = own_files.kind_of(values[0]) if values else None
    if kind is None:
        return
    check_items(items_or_source_error(
        lambda: own_files.read_own(own_files.OwnFile(kind, tuple(records)), OWN_SOURCE, NOT_DESCRIBED)))
