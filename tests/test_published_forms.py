"""Real published files are never lost: the forms MLCommons publishes (tests/fixtures/README.md),
the whole shared v5.1 tree and summary, and slack from measured tokens per sample only."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from exportguard.errors import SourceError
from exportguard.ingest import Source, ingest_path
from exportguard.ingest.mlperf_logs import SYSTEM_FIELDS_READ, parse_accuracy, parse_system_description
from exportguard.ingest.mlperf_summary import FIELDS_READ, _row_item
from exportguard.model import TPS_ACCURACY_LOG, TPS_DERIVED, TPS_MEASURED, TPS_NOT_REPORTED, TPS_SUMMARY
from exportguard.wording import slack_words
from tests.conftest import MLPERF, SUMMARY_V41, SUMMARY_V51, TREE_V51
from tests.real_data import require_real_data

pytestmark = pytest.mark.real_data
require_real_data(MLPERF)

FIXTURES = Path(__file__).parent / "fixtures" / "mlperf"
FIXTURE_TREE = FIXTURES / "submissions" / "v5.1"
FIXTURE_SUMMARY = FIXTURES / "summaries" / "v5.1_summary_results.json"
OFFLINE_70B = "results/{system}/llama2-70b-99/Offline"
AMD = "closed/AMD/" + OFFLINE_70B.format(system="8xMI300X_2xEPYC_9575F")
CISCO = "closed/Cisco/" + OFFLINE_70B.format(system="C885_H200x8_TRT")
DELL = "closed/Dell/" + OFFLINE_70B.format(system="XE9680L_B200_SXM_180GBx8_TRT")
HPE = "closed/HPE/" + OFFLINE_70B.format(system="HPE_Cray_XD670_H200_SXM_141GBx8_TRT")


def _by_locator(store) -> dict:
    return {r.conditions.provenance.source_locator: r for r in store.results()}


# --------------------------------------------------------------------------- the published forms


def test_numpy_2_accuracy_line_reads_the_numbers_it_wraps():
    line = ("{'rouge1': 44.42, 'rouge2': np.float64(22.0), 'rougeL': numpy.float32(28.6), 'gen_len': "
            "np.int64(28662277), 'gen_num': 24576, 'gen_tok_len': np.uint64(7277000), 'tokens_per_sample': 296.1}")
    accuracy = parse_accuracy("Results\n\n" + line + "\n\nhash=00\n")
    assert (accuracy.tokens_per_sample, accuracy.gen_num, accuracy.gen_tok_len) == (296.1, 24576, 7277000)
    assert accuracy.metrics["gen_len"] == 28662277 and accuracy.metrics["rouge2"] == 22.0
    assert parse_accuracy("{'tokens_per_sample': np.float64(296.1)}").tokens_per_sample == 296.1


@pytest.mark.parametrize("value", [
    "np.int64(__import__('os'))", "np.float64(nan)", "np.float64(inf)", "np.int64(1, 2)", "np.object_(1)",
    "np.float64(1,5)", "os.system(1)", "np.float64", "np.float64(np.float64(1))", "float(3)",
])
def test_anything_but_a_numpy_scalar_of_a_number_is_still_refused(value):
    with pytest.raises(SourceError) as info:
        parse_accuracy("{'tokens_per_sample': " + value + "}")
    assert info.value.reason in ("accuracy_not_a_dict_literal", "bad_number")


def test_accuracy_key_repeated_is_judged_by_whether_it_is_read():
    same = parse_accuracy("{'gen_num': 24576, 'gen_num': np.int64(24576), 'tokens_per_sample': 296.1}")
    assert same.gen_num == 24576 and same.warnings == ()
    unread = parse_accuracy("{'rouge1': 44.4, 'rouge1': 44.5, 'tokens_per_sample': 296.1}")
    assert unread.tokens_per_sample == 296.1
    assert unread.warnings == ("the accuracy dict: key 'rouge1' is given twice with different values (44.4, 44.5), "
                               "in a field exportguard does not read: a warning, not a reason to refuse the row",)
    with pytest.raises(SourceError) as info:
        parse_accuracy("{'tokens_per_sample': 296.1, 'tokens_per_sample': 301.1}")
    assert info.value.reason == "accuracy_duplicate_key"
    assert "'tokens_per_sample' is given twice with different values (296.1, 301.1)" in info.value.message


def test_fixture_tree_in_the_published_forms_is_stored_or_quarantined_as_a_person_would(store):
    report = ingest_path(store, FIXTURE_TREE)

    assert report.reconciles and (report.rows_read, report.added, report.quarantined) == (4, 3, 1)
    stored = _by_locator(store)
    assert set(stored) == {AMD, CISCO, HPE}
    amd = stored[AMD].conditions.shape
    assert (amd.tokens_per_sample, amd.tokens_per_sample_basis) == (301.1, TPS_ACCURACY_LOG)  # numpy 2 line
    assert stored[AMD].conditions.configuration.accelerators_total == 8  # the identical repeat changed nothing
    # llama2-70b without an accuracy file: not derived (another run's average), but not reported.
    assert stored[HPE].conditions.shape.tokens_per_sample_basis == TPS_NOT_REPORTED
    assert list(report.warnings) == [
        "closed/Cisco/systems/C885_H200x8_TRT.json: the system description: key 'cooling' is given twice with "
        "different values (\"Air-cooled\", \"Liquid-cooled\"), in a field exportguard does not read: a warning, "
        "not a reason to refuse the row"]
    (q,) = store.quarantined()
    assert (q["reason"], q["locator"]) == ("duplicate_key", f"{DELL}, closed/Dell/systems/XE9680L_B200_SXM_180GBx8_TRT.json")
    assert q["message"] == ("the system description: key 'number_of_nodes' is given twice with different values "
                            "(1, 2); exportguard reads this field and cannot tell which value the source means")


def test_fixture_summary_rows_with_repeated_keys_are_judged_by_the_field(store):
    ingest_path(store, FIXTURE_TREE)
    report = ingest_path(store, FIXTURE_SUMMARY)

    assert report.reconciles and (report.enriched, report.added, report.quarantined) == (3, 0, 1)
    stored = _by_locator(store)
    assert {r.conditions.identity.result_id for r in stored.values()} == {"5.1-0001", "5.1-0014", "5.1-0049"}
    hpe = stored[HPE].conditions.shape  # the summary states the measured value the tree lacked
    assert (hpe.tokens_per_sample, hpe.tokens_per_sample_basis) == (291.7, TPS_SUMMARY)
    (warning,) = report.warnings
    assert warning.startswith(f"{FIXTURE_SUMMARY.resolve()} row 2: key 'Notes' is given twice")
    dell = [q for q in store.quarantined() if q["locator"].startswith(str(FIXTURE_SUMMARY.resolve()))]
    assert [(q["reason"], q["locator"].rsplit(", ", 1)[1]) for q in dell] == [("duplicate_key", "field Performance_Result")]
    assert "(101253.0, 110253.0)" in dell[0]["message"]


def test_summary_tokens_per_sample_in_a_numpy_repr_is_read_and_a_repeat_with_one_value_accepted(store, tmp_path):
    rows = json.loads(FIXTURE_SUMMARY.read_text())[3:]  # HPE's row, which has no repeated key
    rows[0]["Accuracy"] = rows[0]["Accuracy"].replace("TOKENS_PER_SAMPLE: 291.7",
                                                      "TOKENS_PER_SAMPLE: np.float64(291.7) TOKENS_PER_SAMPLE: 291.7")
    path = tmp_path / "v5.1_summary_results.json"
    path.write_text(json.dumps(rows))
    assert ingest_path(store, path).added == 1
    (r,) = store.results()
    assert r.conditions.shape.tokens_per_sample == 291.7


class _Recording(dict):
    """A row that notes which of its fields a reader looks at."""

    def __init__(self, *a):
        super().__init__(*a)
        self.seen = set()

    def get(self, key, default=None):
        self.seen.add(key)
        return super().get(key, default)

    def __getitem__(self, key):
        self.seen.add(key)
        return super().__getitem__(key)


def test_the_fields_said_to_be_read_are_all_the_summary_and_systems_readers_read():
    # A repeated key refuses only in a field that is read: the lists must be what the code reads.
    rows = json.loads(SUMMARY_V51.read_text())
    source = Source("mlperf_summary", "summary.json", "0" * 64, "2025-09-09", "2025-09-09T00:00:00+00:00")
    seen = set()
    for row in rows:
        rec = _Recording(row)
        try:
            _row_item(rec, "row", source, {})
        except SourceError:
            pass
        seen |= rec.seen
    assert seen == set(FIELDS_READ)

    import exportguard.ingest.mlperf_logs as logs
    seen_system: set = set()
    original = logs.strict_json.loads
    try:
        logs.strict_json.loads = lambda text: _recorded(original(text), seen_system)
        for path in TREE_V51.glob("closed/*/systems/*.json"):
            parse_system_description(path.read_text())
    finally:
        logs.strict_json.loads = original
    assert seen_system == set(SYSTEM_FIELDS_READ)


def _recorded(doc, seen):
    rec = _Recording(doc)
    rec.seen = seen
    return rec


# --------------------------------------------------------------------------- the whole shared v5.1 data

# Every v5.1 cohort as stored from the shared tree and summary. llama3.1-8b has no measured tokens
# per sample in v5.1 (accuracy logs and summary alike): its tree rows' derived values never set a band.
V51_COHORTS = [
    (("closed", "llama2-70b-99", "Interactive"), 22, "11.6%"),
    (("closed", "llama2-70b-99", "Offline"), 47, "10.8%"),
    (("closed", "llama2-70b-99", "Server"), 45, "10.1%"),
    (("closed", "llama2-70b-99.9", "Interactive"), 24, "11.6%"),
    (("closed", "llama2-70b-99.9", "Offline"), 47, "10.8%"),
    (("closed", "llama2-70b-99.9", "Server"), 45, "10.0%"),
    (("closed", "llama3.1-405b", "Interactive"), 12, "0.3%"),
    (("closed", "llama3.1-405b", "Offline"), 23, "5.0%"),
    (("closed", "llama3.1-405b", "Server"), 23, "5.2%"),
    (("closed", "llama3.1-8b", "Interactive"), 8, "slack not estimable: tokens/sample measured for 0 of 8 results"),
    (("closed", "llama3.1-8b", "Offline"), 24, "slack not estimable: tokens/sample measured for 0 of 24 results"),
    (("closed", "llama3.1-8b", "Server"), 24, "slack not estimable: tokens/sample measured for 0 of 24 results"),
    (("open", "llama2-70b-99", "Offline"), 3, "1.2%"),
    (("open", "llama2-70b-99.9", "Offline"), 3, "1.2%"),
    (("open", "llama3.1-405b", "Interactive"), 1, "slack not estimable: 1 result"),
]

# Each row of the shared summaries that is not stored, by the rule that skips it. Nothing is quarantined.
V51_SKIPPED = {"not an LLM benchmark": 1032, "no reference conditions recorded for mixtral-8x7b": 22,
               "no reference conditions recorded for deepseek-r1": 17,
               "no reference conditions recorded for llama3.1-8b-edge": 4,
               "folder names another model than the benchmark it is filed under": 22}
V41_SKIPPED = {"not an LLM benchmark": 600, "no reference conditions recorded for gptj-99": 88,
               "no reference conditions recorded for gptj-99.9": 52,
               "no reference conditions recorded for mixtral-8x7b": 32,
               "folder names another model than the benchmark it is filed under": 5}


def test_the_whole_shared_v51_tree_and_summary_lose_no_row_and_quarantine_none(store):
    tree = ingest_path(store, TREE_V51)
    summary = ingest_path(store, SUMMARY_V51)
    older = ingest_path(store, SUMMARY_V41)

    scenario_folders = list(TREE_V51.glob("closed/*/results/*/*/*"))
    assert (tree.rows_read, tree.added, tree.quarantined, tree.skipped) == (len(scenario_folders), 51, 0, 0)
    assert (summary.rows_read, summary.added + summary.enriched, summary.quarantined) == (1448, 351, 0)
    assert summary.skip_reasons == V51_SKIPPED
    assert (older.rows_read, older.added, older.quarantined, older.skip_reasons) == (937, 160, 0, V41_SKIPPED)
    assert all(r.reconciles and not r.warnings for r in (tree, summary, older))
    # The quarantine reasons that remain on the real data: none.
    assert [q["reason"] for q in store.quarantined()] == []

    found = [((c.key.division, c.key.benchmark, c.key.scenario), c.total, slack_words(c.slack))
             for c in store.cohorts(round="v5.1")]
    assert found == V51_COHORTS


def test_no_slack_rests_on_a_derived_tokens_per_sample(v51_store):
    derived = [r for r in v51_store.results() if r.conditions.shape.tokens_per_sample_basis == TPS_DERIVED]
    assert derived and {r.conditions.benchmark.model for r in derived} == {"llama3.1-8b"}
    for cohort in v51_store.cohorts():
        measured = [r for r in v51_store.results(round=cohort.key.round, division=cohort.key.division,
                                                 benchmark=cohort.key.benchmark, scenario=cohort.key.scenario)
                    if r.conditions.shape.tokens_per_sample_basis in TPS_MEASURED
                    and r.conditions.identity.verified == "verified"]
        assert cohort.slack.with_tps == len(measured)
        if cohort.slack.estimable:
            values = [r.conditions.shape.tokens_per_sample for r in measured]
            assert (cohort.slack.tps_min, cohort.slack.tps_max) == (min(values), max(values))


def test_a_missing_llama2_accuracy_file_leaves_the_tree_cohorts_slack_to_the_measured_rows(store, tmp_path):
    # The tree alone (a round whose summary is not out yet): one result lost its accuracy file.
    tree = tmp_path / "v5.1"
    shutil.copytree(TREE_V51, tree)
    victim = next(tree.glob("closed/*/results/*/llama2-70b-99/Offline/accuracy/accuracy.txt"))
    victim.unlink()
    ingest_path(store, tree)

    rows = store.results(benchmark="llama2-70b-99", scenario="Offline")
    lost = [r for r in rows if r.conditions.shape.tokens_per_sample_basis == TPS_NOT_REPORTED]
    assert len(lost) == 1 and str(victim.parents[1].relative_to(tree)) == lost[0].conditions.provenance.source_locator
    others = [r.conditions.shape.tokens_per_sample for r in rows if r not in lost]
    (cohort,) = store.cohorts(benchmark="llama2-70b-99", scenario="Offline")
    assert (cohort.slack.tps_min, cohort.slack.tps_max) == (min(others), max(others))
