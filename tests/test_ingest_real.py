"""Ingest of the real MLPerf v5.1 publications: the tree, the summary table, and both together."""
from __future__ import annotations

import json

import pytest

from exportguard.ingest import ingest_path
from exportguard.model import same_at_published_precision
from exportguard.wording import band_words, slack_words
from tests.conftest import MLPERF, SUMMARY_V41, SUMMARY_V51, TREE_V51
from tests.real_data import require_real_data

pytestmark = pytest.mark.real_data
require_real_data(MLPERF)


def _valid_tree_locations() -> set[str]:
    found = set()
    for log in TREE_V51.glob("closed/*/results/*/*/*/performance/run_1/mlperf_log_summary.txt"):
        if "Result is : VALID" in log.read_text():
            found.add(str(log.parents[2].relative_to(TREE_V51)))
    return found


def _summary_by_location() -> dict[str, dict]:
    return {r["Location"]: r for r in json.loads(SUMMARY_V51.read_text())}


def test_tree_stores_every_valid_llm_result_and_each_equals_the_published_figure(store):
    report = ingest_path(store, TREE_V51)
    expected = _valid_tree_locations()
    assert report.reconciles and report.quarantined == 0
    assert report.added == len(expected) == 51
    published = _summary_by_location()
    stored = {r.conditions.provenance.source_locator: r for r in store.results()}
    assert set(stored) == expected
    for location, result in stored.items():
        row = published[location]
        assert same_at_published_precision(result.value, row["Performance_Result"]), location
        assert result.unit == "tokens/s"
        assert result.conditions.load.basis == "run log"


def test_tree_rows_carry_the_run_parameters_from_the_log(store):
    ingest_path(store, TREE_V51)
    (server,) = store.results(submitter="NVIDIA", system_id="B200-SXM-180GBx8_TRT", benchmark="llama2-70b-99",
                              scenario="Server")
    load = server.conditions.load
    assert (load.target_qps, load.ttft_bound_ms, load.tpot_bound_ms) == (364, 2000, 200)
    assert load.p99_ttft_ms == pytest.approx(436.315697)
    assert load.arrival_process == "Poisson"
    (offline,) = store.results(submitter="AMD", benchmark="llama2-70b-99", scenario="Offline")
    assert offline.value == 27803.9 and offline.samples_per_s == 92.1544
    assert offline.conditions.shape.tokens_per_sample == 301.1
    assert offline.conditions.load.ttft_bound_ms is None  # no latency bound applies to Offline


def test_llama31_8b_tokens_per_sample_is_derived_and_marked_derived(store):
    ingest_path(store, TREE_V51)
    rows = store.results(model="llama3.1-8b")
    assert rows
    for r in rows:
        assert r.conditions.shape.tokens_per_sample_basis.startswith("derived")
        assert 120 < r.conditions.shape.tokens_per_sample < 135


def test_summary_gives_the_v51_llama2_70b_99_offline_cohort(store):
    report = ingest_path(store, SUMMARY_V51)
    assert report.reconciles and report.rows_read == 1448 and report.quarantined == 0
    (cohort,) = store.cohorts(round="v5.1", division="closed", benchmark="llama2-70b-99", scenario="Offline")
    s = cohort.slack
    assert s.count == 47
    assert (s.tps_min, s.tps_max) == (272.6, 302.0)
    assert slack_words(s) == "10.8%" and band_words(s) == "±5.4%"


def test_v41_summary_gives_its_observed_spread(store):
    ingest_path(store, SUMMARY_V41)
    (cohort,) = store.cohorts(round="v4.1", division="closed", benchmark="llama2-70b-99", scenario="Offline")
    assert cohort.slack.count == 37
    assert (cohort.slack.tps_min, cohort.slack.tps_max) == (274.0, 300.5)
    assert slack_words(cohort.slack) == "9.7%"


def test_summary_skips_other_benchmarks_by_rule_and_counts_them(store):
    report = ingest_path(store, SUMMARY_V51)
    assert report.skip_reasons["not an LLM benchmark"] > 1000
    assert report.skip_reasons["no reference conditions recorded for mixtral-8x7b"] == 22
    assert report.added + report.skipped == 1448


def test_v51_llama31_8b_interactive_unit_erratum_is_corrected_visibly(store):
    ingest_path(store, SUMMARY_V51)
    rows = store.results(round="v5.1", model="llama3.1-8b", scenario="Interactive")
    assert len(rows) == 8
    for r in rows:
        assert r.unit == "tokens/s"
        assert any(c.startswith("E-v5.1-8b-interactive-unit") for c in r.corrections)
    untouched = store.results(round="v5.1", model="llama3.1-8b", scenario="Offline")
    assert all(not r.corrections for r in untouched)


@pytest.mark.parametrize("order", ["tree_first", "summary_first"])
def test_tree_rows_get_official_ids_whichever_is_ingested_first(store, order):
    sources = [TREE_V51, SUMMARY_V51] if order == "tree_first" else [SUMMARY_V51, TREE_V51]
    for s in sources:
        assert ingest_path(store, s).changed == 0
    published = _summary_by_location()
    tree_rows = [r for r in store.results() if r.conditions.load.basis == "run log"]
    assert len(tree_rows) == 51
    for r in tree_rows:
        identity = r.conditions.identity
        row = published[r.conditions.provenance.source_locator] if order == "tree_first" else None
        assert identity.result_id_state == "official" and identity.verified == "verified"
        if row:
            assert identity.result_id == row["ID"]
        assert r.conditions.load.p99_ttft_ms is not None or r.conditions.benchmark.scenario == "Offline"
    # Each result is stored once, whichever source told of it first.
    assert store.count() == 351


def test_reingest_adds_nothing(store):
    first = [ingest_path(store, s) for s in (TREE_V51, SUMMARY_V51)]
    again = [ingest_path(store, s) for s in (TREE_V51, SUMMARY_V51)]
    assert sum(r.added for r in first) == store.count()
    assert [r.added + r.enriched + r.changed for r in again] == [0, 0]
    assert [r.unchanged for r in again] == [51, 351]


def test_a_changed_value_is_reported_and_not_overwritten(store, tmp_path):
    rows = json.loads(SUMMARY_V51.read_text())
    ingest_path(store, SUMMARY_V51)
    target = next(i for i, r in enumerate(rows) if r["Location"] == "closed/NVIDIA/results/B200-SXM-180GBx8_TRT/llama2-70b-99/Offline")
    original = rows[target]["Performance_Result"]
    rows[target]["Performance_Result"] = original * 1.2
    edited = tmp_path / "v5.1_summary_results.json"
    edited.write_text(json.dumps(rows))
    report = ingest_path(store, edited)
    assert report.changed == 1 and report.added == 0 and report.reconciles
    assert f"row {target + 1}" in report.changes[0]
    (kept,) = store.results(submitter="NVIDIA", system_id="B200-SXM-180GBx8_TRT", benchmark="llama2-70b-99",
                            scenario="Offline")
    assert kept.value == original
    assert any(q["reason"] == "value_changed" for q in store.quarantined())
