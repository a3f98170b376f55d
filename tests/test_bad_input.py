"""Hostile and broken input to the ingest: every row ends stored, quarantined with its reason, or
skipped by rule and counted; nothing crashes, nothing is lost, and the counts reconcile.

Each bad input is made from the real MLCommons v5.1 publications (shared/mlperf): a copy of a real
submitter tree (its results/ and systems/ folders), a slice of the real summary table, or CSV rows
written from real summary rows, with exactly one thing broken. The matrix runs on SQLite; the cases
that use the ``store`` fixture run on PostgreSQL too.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from exportguard.errors import SourceError
from exportguard.ingest import ingest_path
from exportguard.store import open_store
from tests.bad_sources import (
    ACCURACY,
    BAD,
    PERF,
    SCENARIO,
    assert_actionable,
    assert_reconciles,
    copy_submitter,
    csv_locator,
    csv_slice,
    csv_with_bad_row,
    log_says,
    only_quarantined,
    png_named_csv,
    replace_once,
    scenario_locators,
    stored_locators,
    summary_locator,
    summary_slice,
    summary_with_bad_row,
    tiny_png,
    tree_with_invalid_result,
    write_csv,
    write_summary,
)
from tests.conftest import MLPERF, SUMMARY_V51
from tests.real_data import require_real_data

pytestmark = pytest.mark.real_data
require_real_data(MLPERF)


@pytest.fixture
def db(sqlite_url):
    s = open_store(sqlite_url)
    yield s
    s.close()


# --------------------------------------------------------------------------- summary table: one bad row


def _without(key):
    return lambda r: {k: v for k, v in r.items() if k != key}


def _with(**changes):
    return lambda r: r | changes


SUMMARY_ROW_CASES = [
    # id, break the row, reason, field in the locator (None: the row as a whole), words the message must hold
    ("missing_throughput", _without("Performance_Result"), "missing_field", "Performance_Result",
     ["Performance_Result", "missing"]),
    ("text_throughput", _with(Performance_Result="fast"), "bad_number", "Performance_Result", ["'fast'"]),
    ("negative_throughput", _with(Performance_Result=-5), "non_positive_value", "Performance_Result", ["-5"]),
    ("zero_throughput", _with(Performance_Result=0), "non_positive_value", "Performance_Result", ["positive"]),
    ("boolean_throughput", _with(Performance_Result=True), "bad_number", "Performance_Result", ["true"]),
    ("unknown_scenario", _with(Scenario="Batch"), "unknown_scenario", "Scenario", ["'Batch'", "Offline"]),
    ("unknown_unit", _with(Performance_Units="Furlongs/s"), "unknown_unit", "Performance_Units",
     ["'Furlongs/s'", "tokens/s"]),
    ("blank_submitter", _with(Submitter="   "), "missing_field", "Submitter", ["Submitter"]),
    ("no_system", _with(Platform="", Location=""), "missing_field", "Platform", ["Platform", "Location"]),
    ("unknown_division", _with(Category="closedd"), "unknown_division", "Category", ["'closedd'"]),
    ("zero_nodes", _with(Nodes=0), "non_positive_value", "Nodes", ["Nodes", "at least 1"]),
    ("lone_surrogate_escape", _with(System="Supermicro \ud800"), "not_utf8", "System", ["System", "surrogate"]),
    ("list_instead_of_object", lambda r: list(r.values()), "not_a_result_row", None, ["object", "list"]),
    # Numbers: one strict parser for every source (float() would take most of these).
    ("throughput_thousands_separator", _with(Performance_Result="27,803.9"), "bad_number", "Performance_Result",
     ["Performance_Result", "'27,803.9'", "separator"]),
    ("throughput_decimal_comma", _with(Performance_Result="1.234,5"), "bad_number", "Performance_Result",
     ["'1.234,5'", "decimal comma"]),
    ("throughput_space_grouped", _with(Performance_Result="27 803.9"), "bad_number", "Performance_Result",
     ["'27 803.9'", "separator"]),
    ("throughput_arabic_indic_digits", _with(Performance_Result="\u0662\u0667\u0668\u0660\u0663"), "bad_number",
     "Performance_Result", ["ASCII 0-9"]),
    ("throughput_full_width_digits", _with(Performance_Result="\uff12\uff17\uff18\uff10\uff13"), "bad_number",
     "Performance_Result", ["ASCII 0-9"]),
    ("throughput_nan_text", _with(Performance_Result="nan"), "bad_number", "Performance_Result", ["finite"]),
    ("throughput_infinity_text", _with(Performance_Result="Infinity"), "bad_number", "Performance_Result", ["finite"]),
    ("nodes_as_text_with_separator", _with(Nodes="1,0"), "bad_number", "Nodes", ["Nodes", "'1,0'"]),
    ("nodes_fraction", _with(Nodes=1.5), "bad_number", "Nodes", ["Nodes", "whole number"]),
    ("accelerators_arabic_indic", _with(**{"a#": "\u0668"}), "bad_number", "a#", ["a#", "ASCII 0-9"]),
    ("accelerators_negative", _with(**{"a#": -8}), "bad_number", "a#", ["a#", "0 or more"]),
    ("tokens_per_sample_decimal_comma", lambda r: r | {"Accuracy": r["Accuracy"].replace("301.1", "301,1")},
     "bad_number", "Accuracy", ["TOKENS_PER_SAMPLE", "'301,1'"]),
    ("tokens_per_sample_full_width", lambda r: r | {"Accuracy": r["Accuracy"].replace("301.1", "\uff13\uff10\uff11")},
     "bad_number", "Accuracy", ["TOKENS_PER_SAMPLE", "ASCII 0-9"]),
    ("tokens_per_sample_overflow", lambda r: r | {"Accuracy": r["Accuracy"].replace("301.1", "1e309")},
     "bad_number", "Accuracy", ["TOKENS_PER_SAMPLE", "finite"]),
    ("tokens_per_sample_twice", lambda r: r | {"Accuracy": r["Accuracy"] + "  TOKENS_PER_SAMPLE: 290.0"},
     "duplicate_key", "Accuracy", ["TOKENS_PER_SAMPLE", "2 times"]),
    # Plausibility against the benchmark's reference conditions.
    ("tokens_per_sample_zero", lambda r: r | {"Accuracy": r["Accuracy"].replace("301.1", "0.0")},
     "implausible_tokens_per_sample", "Accuracy", ["tokens per sample 0", "above 0"]),
    ("tokens_per_sample_over_the_cap", lambda r: r | {"Accuracy": r["Accuracy"].replace("301.1", "3011.0")},
     "implausible_tokens_per_sample", "Accuracy", ["3011", "1024 max output tokens"]),
]


@pytest.mark.parametrize("break_row, reason, field, words",
                         [pytest.param(*c[1:], id=c[0]) for c in SUMMARY_ROW_CASES])
def test_summary_row_that_breaks_a_rule_is_quarantined_and_its_neighbours_stored(db, tmp_path, break_row, reason,
                                                                                field, words):
    rows = summary_slice()
    rows[BAD] = break_row(rows[BAD])
    path = write_summary(tmp_path, rows)

    report = ingest_path(db, path)

    assert_reconciles(report, len(rows))
    assert (report.added, report.quarantined, report.skipped) == (3, 1, 1)
    q = only_quarantined(db)
    assert q["reason"] == reason
    assert q["locator"] == summary_locator(path, BAD) + (f", field {field}" if field else "")
    assert_actionable(q["message"], *words)
    assert q["raw"]  # the offending row is kept to look at
    assert stored_locators(db) == {summary_locator(path, i) for i in (0, 2, 3)}


def test_summary_row_with_non_utf8_bytes_costs_that_row_not_the_table(db, tmp_path):
    rows = summary_slice()
    system = rows[BAD]["System"]
    rows[BAD]["System"] = "@@here@@"
    path = write_summary(tmp_path, rows)
    replace_once(path, b"@@here@@", system.encode() + b" \xff\xfe")  # Latin-1-ish garbage inside one string

    report = ingest_path(db, path)

    assert_reconciles(report, len(rows))
    q = only_quarantined(db)
    assert q["reason"] == "not_utf8"
    assert q["locator"] == summary_locator(path, BAD) + ", field System"
    assert_actionable(q["message"], "System", "UTF-8", r"\xff")
    assert stored_locators(db) == {summary_locator(path, i) for i in (0, 2, 3)}
    assert all("\ufffd" not in r.conditions.identity.system_name for r in db.results())


JSON_TEXT_CASES = [
    # id, field, JSON text put in as its value (not expressible through json.dumps), words of the message
    ("nodes_nan", "Nodes", b"NaN", ["Nodes", "NaN"]),
    ("nodes_infinity", "Nodes", b"Infinity", ["Nodes", "Infinity"]),
    ("throughput_minus_infinity", "Performance_Result", b"-Infinity", ["Performance_Result", "-Infinity"]),
    ("nodes_overflowing_to_inf", "Nodes", b"1e309", ["Nodes", "'1e309'", "finite"]),
    ("throughput_overflowing_to_inf", "Performance_Result", b"1e309", ["Performance_Result", "finite"]),
    ("throughput_of_5000_digits", "Performance_Result", b"9" * 5000, ["Performance_Result", "5,000 characters"]),
    ("nan_in_a_field_not_read", "has_power", b"NaN", ["has_power", "NaN"]),
]


@pytest.mark.parametrize("field, text, words", [pytest.param(*c[1:], id=c[0]) for c in JSON_TEXT_CASES])
def test_summary_row_holding_json_the_standard_refuses_is_quarantined_and_its_neighbours_stored(db, tmp_path, field,
                                                                                               text, words):
    rows = summary_slice()
    rows[BAD][field] = "@@value@@"
    path = write_summary(tmp_path, rows)
    replace_once(path, b'"@@value@@"', text)

    report = ingest_path(db, path)

    assert_reconciles(report, len(rows))
    assert (report.added, report.quarantined, report.skipped) == (3, 1, 1)
    q = only_quarantined(db)
    assert (q["reason"], q["locator"]) == ("bad_number", summary_locator(path, BAD) + f", field {field}")
    assert_actionable(q["message"], *words)
    assert stored_locators(db) == {summary_locator(path, i) for i in (0, 2, 3)}


def test_summary_row_naming_a_key_twice_is_quarantined_and_its_neighbours_stored(db, tmp_path):
    rows = summary_slice()
    rows[BAD]["@@twice@@"] = 0
    path = write_summary(tmp_path, rows)
    replace_once(path, b'"@@twice@@": 0', b'"Performance_Result": 1.0')  # json.loads would keep this one silently

    report = ingest_path(db, path)

    assert_reconciles(report, len(rows))
    assert (report.added, report.quarantined) == (3, 1)
    q = only_quarantined(db)
    assert (q["reason"], q["locator"]) == ("duplicate_key", summary_locator(path, BAD) + ", field Performance_Result")
    assert_actionable(q["message"], "'Performance_Result'", "different values", "reads this field")


def test_summary_tokens_per_sample_with_an_exponent_is_read_whole_never_as_its_prefix(db, tmp_path):
    rows = summary_slice()
    rows[BAD]["Accuracy"] = rows[BAD]["Accuracy"].replace("TOKENS_PER_SAMPLE: 301.1", "TOKENS_PER_SAMPLE: 2.9e2")
    report = ingest_path(db, write_summary(tmp_path, rows))
    assert (report.added, report.quarantined) == (4, 0) and report.reconciles
    (offline,) = db.results(scenario="Offline")
    assert offline.conditions.shape.tokens_per_sample == 290.0


# --------------------------------------------------------------------------- summary table: the file itself


def _truncated(tmp_path):
    path = tmp_path / "v5.1_summary_results.json"
    path.write_text(json.dumps(summary_slice(), indent=1)[:-300])
    return path


def _object_not_list(tmp_path):
    path = tmp_path / "v5.1_summary_results.json"
    path.write_text(json.dumps({"results": summary_slice()}))
    return path


def _csv_named_json(tmp_path):
    text = write_csv(tmp_path, csv_slice()).read_text()
    path = tmp_path / "v5.1_summary_results.json"
    path.write_text(text)
    return path


def _nested_too_deep(tmp_path):
    path = tmp_path / "v5.1_summary_results.json"
    path.write_text("[" * 200_000 + "]" * 200_000)
    return path


@pytest.mark.parametrize("make, reason, words", [
    pytest.param(_truncated, "invalid_json", ["line", "column", "truncated"], id="truncated_json"),
    pytest.param(_object_not_list, "not_a_summary_table", ["JSON list", "{"], id="object_not_list"),
    pytest.param(_csv_named_json, "not_a_summary_table", ["JSON list", "mlperf,model"], id="csv_text_named_json"),
    pytest.param(_nested_too_deep, "invalid_json", ["nested"], id="nested_200000_deep"),
])
def test_summary_file_that_is_not_a_table_is_quarantined_whole_as_one_row(db, tmp_path, make, reason, words):
    path = make(tmp_path)

    report = ingest_path(db, path)

    # The file cannot be split into rows, so the file is the one input row.
    assert_reconciles(report, 1)
    assert report.quarantined == 1 and db.count() == 0
    q = only_quarantined(db)
    assert (q["reason"], q["locator"], q["source_path"]) == (reason, str(path), str(path))
    assert_actionable(q["message"], *words)


def test_truncated_summary_message_names_the_line_and_column_where_the_json_stops(db, tmp_path):
    path = _truncated(tmp_path)
    text = path.read_text()
    last_line = text.count("\n") + 1

    ingest_path(db, path)

    message = only_quarantined(db)["message"]
    assert f"at line {last_line} column " in message


def test_png_renamed_csv_is_quarantined_as_not_a_csv(db, tmp_path):
    path = tmp_path / "results.csv"
    path.write_bytes(tiny_png())

    report = ingest_path(db, path)

    assert_reconciles(report, 1)
    q = only_quarantined(db)
    assert (q["reason"], q["locator"], q["source_kind"]) == ("not_a_csv", str(path), "csv")
    assert_actionable(q["message"], ".csv")


def test_path_that_does_not_exist_is_a_clear_error_naming_it(db, tmp_path):
    missing = tmp_path / "v5.1_summary_results.json"
    with pytest.raises(SourceError) as info:
        ingest_path(db, missing)
    assert info.value.reason == "not_found"
    assert str(missing) in str(info.value) and "no such file" in str(info.value)
    assert db.quarantined() == [] and db.ingest_runs() == []


# --------------------------------------------------------------------------- submission tree: one bad scenario


def _accuracy_line(line: str):
    """Put ``line`` where the real accuracy dict was (line 4, between the tool's noise and hash=...)."""
    def write(scenario: Path):
        lines = (scenario / ACCURACY).read_text().splitlines()
        (at,) = [i for i, x in enumerate(lines) if x.startswith("{")]
        (scenario / ACCURACY).write_text("\n".join(lines[:at] + [line] + lines[at + 1:]) + "\n")
    return write


ONE_MB_DICT = "{'tokens_per_sample': 301.1, " + ", ".join(f"'k{i}': {i}" for i in range(90_000)) + "}"

TREE_CASES = [
    # id, break the Offline scenario folder, reason, where in the folder (file and line), words of the message
    ("invalid_result", log_says(b"Result is : VALID", b"Result is : INVALID"), "invalid_result",
     f"{PERF} line 9", ["INVALID", "VALID"]),
    ("text_tokens_per_second", log_says(b"Tokens per second: 27803.9", b"Tokens per second: abc"),
     "bad_number", f"{PERF} line 8", ["Tokens per second", "'abc'", "not a number"]),
    ("negative_tokens_per_second", log_says(b"Tokens per second: 27803.9", b"Tokens per second: -27803.9"),
     "negative_value", f"{PERF} line 8", ["Tokens per second", "-27803.9"]),
    ("non_utf8_log", log_says(b"SUT name : PySUT", b"SUT name : PySUT \xff\xfe"), "not_utf8", PERF,
     ["line 4", "UTF-8"]),
    ("accuracy_holds_code", _accuracy_line("{'tokens_per_sample': __import__('os').getpid()}"),
     "accuracy_not_a_dict_literal", f"{ACCURACY} line 4", ["tokens_per_sample", "__import__"]),
    ("accuracy_one_megabyte_line", _accuracy_line(ONE_MB_DICT), "accuracy_line_too_long", f"{ACCURACY} line 4",
     ["characters"]),
    # Numbers in the run log: the one strict parser.
    ("tokens_per_second_thousands_separator", log_says(b"Tokens per second: 27803.9", b"Tokens per second: 27,803.9"),
     "bad_number", f"{PERF} line 8", ["Tokens per second", "separator"]),
    ("tokens_per_second_decimal_comma", log_says(b"Tokens per second: 27803.9", b"Tokens per second: 27803,9"),
     "bad_number", f"{PERF} line 8", ["Tokens per second", "decimal comma"]),
    ("tokens_per_second_arabic_indic", log_says(b"Tokens per second: 27803.9",
                                                 "Tokens per second: \u0662\u0667\u0668\u0660\u0663".encode()),
     "bad_number", f"{PERF} line 8", ["Tokens per second", "ASCII 0-9"]),
    ("tokens_per_second_full_width", log_says(b"Tokens per second: 27803.9",
                                               "Tokens per second: \uff12\uff17\uff18\uff10\uff13".encode()),
     "bad_number", f"{PERF} line 8", ["Tokens per second", "ASCII 0-9"]),
    ("tokens_per_second_nan", log_says(b"Tokens per second: 27803.9", b"Tokens per second: nan"),
     "bad_number", f"{PERF} line 8", ["Tokens per second", "finite"]),
    ("tokens_per_second_overflowing", log_says(b"Tokens per second: 27803.9", b"Tokens per second: 1e309"),
     "bad_number", f"{PERF} line 8", ["Tokens per second", "finite"]),
    ("samples_per_query_fraction", log_says(b"samples_per_query : 245520", b"samples_per_query : 245520.5"),
     "bad_number", f"{PERF} line ", ["samples_per_query", "decimal point"]),
    # The log must be the scenario its folder says.
    ("server_log_in_offline_folder", log_says(b"Scenario : Offline", b"Scenario : Server"), "scenario_mismatch",
     f"{PERF} line 5", ["'Scenario : Server'", "Offline"]),
    # Tokens per sample against llama2-70b's 1024-token cap.
    ("tokens_per_sample_zero", _accuracy_line("{'rouge1': 44.4465, 'tokens_per_sample': 0}"),
     "implausible_tokens_per_sample", ACCURACY, ["tokens per sample 0", "above 0"]),
    ("tokens_per_sample_negative", _accuracy_line("{'rouge1': 44.4465, 'tokens_per_sample': -301.1}"),
     "implausible_tokens_per_sample", ACCURACY, ["-301.1"]),
    ("tokens_per_sample_over_the_cap", _accuracy_line("{'rouge1': 44.4465, 'tokens_per_sample': 3011.0}"),
     "implausible_tokens_per_sample", ACCURACY, ["3011", "1024 max output tokens"]),
    ("tokens_per_sample_overflowing", _accuracy_line("{'rouge1': 44.4465, 'tokens_per_sample': 1e309}"),
     "bad_number", f"{ACCURACY} line 4", ["tokens_per_sample", "finite"]),
]


@pytest.mark.parametrize("break_scenario, reason, where, words", [pytest.param(*c[1:], id=c[0]) for c in TREE_CASES])
def test_tree_scenario_that_breaks_a_rule_is_quarantined_and_its_neighbours_stored(db, tmp_path, break_scenario,
                                                                                 reason, where, words):
    sub = copy_submitter(tmp_path)
    scenarios = scenario_locators(sub)
    bad = f"closed/AMD/{SCENARIO}"
    break_scenario(sub / SCENARIO)

    report = ingest_path(db, tmp_path / "v5.1")

    assert_reconciles(report, len(scenarios))
    assert (report.added, report.quarantined) == (len(scenarios) - 1, 1)
    q = only_quarantined(db)
    assert q["reason"] == reason
    assert q["locator"].startswith(f"{bad}, {where}") if where.endswith(" ") else q["locator"] == f"{bad}, {where}"
    assert_actionable(q["message"], *words)
    assert stored_locators(db) == scenarios - {bad}


def test_accuracy_holding_code_is_never_run(db, tmp_path):
    pwned = tmp_path / "pwned"
    sub = copy_submitter(tmp_path)
    _accuracy_line(f"{{'tokens_per_sample': __import__('os').system('touch {pwned}')}}")(sub / SCENARIO)

    ingest_path(db, tmp_path / "v5.1")

    assert not pwned.exists()
    assert only_quarantined(db)["reason"] == "accuracy_not_a_dict_literal"


def test_accuracy_of_one_20_mb_line_is_refused_unread(db, tmp_path):
    sub = copy_submitter(tmp_path)
    line = "{'tokens_per_sample': 301.1, " + "'k': 1, " * (20 * 1024 * 1024 // 8) + "}"
    (sub / SCENARIO / ACCURACY).write_text(line)

    report = ingest_path(db, tmp_path / "v5.1")

    assert_reconciles(report, len(scenario_locators(sub)))
    q = only_quarantined(db)
    assert q["reason"] == "file_too_large"
    assert q["locator"] == f"closed/AMD/{SCENARIO}, {ACCURACY}"
    assert_actionable(q["message"], "bytes")
    assert len(q["raw"]) <= 4000


def test_tree_scenario_folder_named_batch_is_quarantined_as_unknown_scenario(db, tmp_path):
    sub = copy_submitter(tmp_path)
    (sub / SCENARIO).rename(sub / SCENARIO.replace("Offline", "Batch"))
    scenarios = scenario_locators(sub)

    report = ingest_path(db, tmp_path / "v5.1")

    assert_reconciles(report, len(scenarios))
    q = only_quarantined(db)
    assert (q["reason"], q["locator"]) == ("unknown_scenario", f"closed/AMD/{SCENARIO.replace('Offline', 'Batch')}")
    assert_actionable(q["message"], "'Batch'", "Offline, Server or Interactive")
    assert len(stored_locators(db)) == len(scenarios) - 1


def test_lowercase_offline_folder_is_stored_as_offline(db, tmp_path):
    sub = copy_submitter(tmp_path)
    lower = SCENARIO.replace("Offline", "offline")
    (sub / SCENARIO).rename(sub / lower)
    scenarios = scenario_locators(sub)

    report = ingest_path(db, tmp_path / "v5.1")

    assert_reconciles(report, len(scenarios))
    assert report.added == len(scenarios) and db.quarantined() == []
    (offline,) = [r for r in db.results() if r.conditions.provenance.source_locator == f"closed/AMD/{lower}"]
    assert offline.conditions.benchmark.scenario == "Offline"
    assert offline.value == 27803.9
    assert offline.conditions.load.arrival_process == "closed-loop drain"


def _delete(path: Path) -> None:
    path.unlink()


def _truncate(path: Path) -> None:
    path.write_text(path.read_text()[:200])


def _system_json_says(old: bytes, new: bytes):
    return lambda path: replace_once(path, old, new)


def _folder(path: Path) -> None:
    path.unlink()
    path.mkdir()


@pytest.mark.parametrize("break_system, reason, where, words", [
    pytest.param(_delete, "missing_system_description", "", ["systems/", "C885_H200x8_TRT.json"], id="missing"),
    pytest.param(_truncate, "invalid_json", " line 6", ["line 6", "column"], id="truncated"),
    pytest.param(_system_json_says(b'"number_of_nodes": 1', b'"number_of_nodes": NaN'), "bad_number", "",
                 ["number_of_nodes", "NaN"], id="nodes_nan"),
    pytest.param(_system_json_says(b'"accelerators_per_node": 8', b'"accelerators_per_node": 1e309'), "bad_number", "",
                 ["accelerators_per_node", "finite"], id="accelerators_overflowing"),
    pytest.param(_system_json_says(b'"accelerators_per_node": 8', b'"accelerators_per_node": "\\u0668"'),
                 "bad_number", "", ["accelerators_per_node", "ASCII 0-9"], id="accelerators_arabic_indic_text"),
    pytest.param(_system_json_says(b'"accelerators_per_node": 8', b'"accelerators_per_node": "1,6"'),
                 "bad_number", "", ["accelerators_per_node", "'1,6'"], id="accelerators_with_separator"),
    pytest.param(_system_json_says(b'"number_of_nodes": 1', b'"number_of_nodes": 1, "number_of_nodes": 2'),
                 "duplicate_key", "", ["'number_of_nodes'", "different values (1, 2)", "reads this field"],
                 id="nodes_twice"),
    pytest.param(_system_json_says(b'"cooling": "Air-cooled"', b'"cooling": -Infinity'), "bad_number", "",
                 ["cooling", "-Infinity"], id="infinity_in_a_field_not_read"),
    pytest.param(_folder, "not_a_regular_file", "", ["folder", "not a file"], id="folder"),
    # A FIFO in its place: test_ingest_hardening (it needs a writer, or a missing defence hangs the run).
])
def test_tree_with_a_broken_system_description_quarantines_that_systems_rows_only(db, tmp_path, break_system,
                                                                                  reason, where, words):
    amd = copy_submitter(tmp_path, "AMD")
    cisco = copy_submitter(tmp_path, "Cisco")
    break_system(cisco / "systems" / "C885_H200x8_TRT.json")

    report = ingest_path(db, tmp_path / "v5.1")

    assert_reconciles(report, len(scenario_locators(amd)) + len(scenario_locators(cisco)))
    quarantined = db.quarantined()
    assert {q["locator"] for q in quarantined} == {
        f"{s}, closed/Cisco/systems/C885_H200x8_TRT.json{where}" for s in scenario_locators(cisco)}
    for q in quarantined:
        assert q["reason"] == reason
        assert_actionable(q["message"], *words)
    assert stored_locators(db) == scenario_locators(amd)


def test_empty_folder_is_quarantined_as_one_empty_tree_row(db, tmp_path):
    empty = tmp_path / "v5.1"
    empty.mkdir()

    report = ingest_path(db, empty)

    # Pinned: an empty folder is one quarantine row (the folder), so a batch of paths keeps going.
    assert_reconciles(report, 1)
    assert report.quarantined == 1 and db.count() == 0
    q = only_quarantined(db)
    assert (q["reason"], q["locator"], q["source_kind"]) == ("empty_tree", str(empty), "mlperf_tree")
    assert_actionable(q["message"], "results/")


def test_tree_without_a_round_folder_is_quarantined_until_the_round_is_given(db, tmp_path):
    sub = copy_submitter(tmp_path, top=None)
    scenarios = scenario_locators(sub)

    unknown = ingest_path(db, tmp_path)

    assert_reconciles(unknown, len(scenarios))
    assert unknown.quarantined == len(scenarios) and db.count() == 0
    assert {q["locator"] for q in db.quarantined()} == scenarios
    for q in db.quarantined():
        assert q["reason"] == "unknown_round"
        assert_actionable(q["message"], "vX.Y", "--round")

    given = ingest_path(db, tmp_path, round="v5.1")

    assert_reconciles(given, len(scenarios))
    assert given.added == len(scenarios)
    assert {r.conditions.identity.round for r in db.results()} == {"v5.1"}
    assert stored_locators(db) == scenarios


def test_round_given_without_its_v_is_stored_as_the_same_round(db, tmp_path):
    sub = copy_submitter(tmp_path, top=None)

    report = ingest_path(db, tmp_path, round="5.1")

    assert report.added == len(scenario_locators(sub)) and report.reconciles
    assert {r.conditions.identity.round for r in db.results()} == {"v5.1"}


def test_round_that_is_not_a_round_is_a_clear_error_before_anything_is_written(db, tmp_path):
    copy_submitter(tmp_path, top=None)
    with pytest.raises(SourceError) as info:
        ingest_path(db, tmp_path, round="latest")
    assert info.value.reason == "bad_round"
    assert "'latest'" in str(info.value) and "v5.1" in str(info.value)
    assert db.count() == 0 and db.ingest_runs() == []


def test_row_the_store_refuses_is_quarantined_in_the_constraints_words(store, tmp_path):
    """The readers let through a system name holding an unpaired surrogate escape (valid JSON, not text);
    the store cannot hold it on either backend. Its rows are quarantined; the rest of the run is kept."""
    amd = copy_submitter(tmp_path, "AMD")
    cisco = copy_submitter(tmp_path, "Cisco")
    replace_once(cisco / "systems" / "C885_H200x8_TRT.json", b'"system_name": "', b'"system_name": "\\ud800')

    report = ingest_path(store, tmp_path / "v5.1")

    assert_reconciles(report, len(scenario_locators(amd)) + len(scenario_locators(cisco)))
    assert {q["locator"] for q in store.quarantined()} == scenario_locators(cisco)
    for q in store.quarantined():
        assert q["reason"] == "store_refused"
        assert_actionable(q["message"], "refused", "surrogate")
    assert stored_locators(store) == scenario_locators(amd)


@pytest.mark.parametrize("poison, words", [(b"\\u0000", "NUL"), (b"x" * 40, "more than its 32")],
                         ids=["nul_character", "overlong_result_id"])
def test_sqlite_and_postgresql_refuse_the_same_rows(store, tmp_path, poison, words):
    """What one backend would store and the other refuse is refused by both, with the same reason."""
    cisco = copy_submitter(tmp_path, "Cisco")
    if words == "NUL":
        replace_once(cisco / "systems" / "C885_H200x8_TRT.json", b'"system_name": "', b'"system_name": "' + poison)
        report = ingest_path(store, tmp_path / "v5.1")
        assert report.quarantined == len(scenario_locators(cisco))
    else:
        rows = [r for r in json.loads(SUMMARY_V51.read_text()) if r["Model"] == "llama2-70b-99"][:2]
        rows[0]["ID"] = poison.decode()
        path = tmp_path / "summary.json"
        path.write_text(json.dumps(rows))
        report = ingest_path(store, path)
        assert (report.added, report.quarantined) == (1, 1)
    assert all(q["reason"] == "store_refused" and words in q["message"] for q in store.quarantined())


# --------------------------------------------------------------------------- CSV: one bad row


CSV_CASES = [
    # id, row to break, its new cells, reason, column in the locator (None: the line), words of the message
    ("missing_value", BAD, {"value": ""}, "missing_field", "value", ["value", "empty"]),
    ("negative_value", BAD, {"value": "-24593.8"}, "non_positive_value", "value", ["'-24593.8'", "positive"]),
    ("text_value", BAD, {"value": "fast"}, "bad_number", "value", ["'fast'", "not a number"]),
    ("bad_unit", BAD, {"unit": "tok/sec"}, "unknown_unit", "unit", ["'tok/sec'", "tokens/s"]),
    ("mlperf_maybe", BAD, {"mlperf": "maybe"}, "bad_field", "mlperf", ["yes or no", "'maybe'"]),
    ("interactive_row_with_a_rate_but_no_latency_bounds", 2, {"target_qps": "80"}, "missing_field",
     "ttft_bound_ms", ["ttft_bound_ms", "tpot_bound_ms"]),
    ("own_row_without_its_load", BAD, {"load": ""}, "missing_field", "load", ["load", "own run"]),
    ("own_row_named_with_an_mlperf_scenario", BAD, {"scenario": "Server"}, "bad_field", "scenario",
     ["scenario", "MLPerf rows", "closed loop"]),
    ("own_load_named_as_an_mlperf_scenario", BAD, {"load": "Server"}, "bad_field", "load",
     ["'Server'", "MLPerf scenario", "closed loop"]),
    ("own_row_with_latency_bounds", BAD, {"ttft_bound_ms": "2000"}, "bad_field", "ttft_bound_ms", ["MLPerf rows"]),
    ("own_row_with_zero_mean_output", BAD, {"mean_output_tokens": "0"}, "non_positive_value", "mean_output_tokens",
     ["mean_output_tokens", "positive"]),
    ("own_closed_loop_without_concurrency", BAD, {"load": "closed loop", "request_rate": ""}, "missing_field",
     "concurrency", ["closed loop", "in flight"]),
    ("own_value_in_samples_per_second", BAD, {"unit": "samples/s"}, "unknown_unit", "unit",
     ["output tokens/s", "total_tokens_per_s"]),
    ("mlperf_row_with_an_own_column", 0, {"tool": "vllm bench serve"}, "bad_field", "tool", ["own runs"]),
    ("unknown_scenario", 0, {"scenario": "Batch"}, "unknown_scenario", "scenario", ["'Batch'"]),
    ("unknown_division", 0, {"division": "closedd"}, "bad_field", "division", ["'closedd'", "closed, open"]),
    ("unknown_availability", 0, {"availability": "released"}, "bad_field", "availability",
     ["'released'", "available"]),
    ("round_that_is_not_a_round", 0, {"round": "five"}, "bad_field", "round", ["'five'", "v5.1"]),
    ("one_megabyte_cell", BAD, {"framework": "vLLM " * 210_000}, "malformed_csv", None, ["10,000 characters"]),
    # Numbers: the one strict parser. Before it, "1,5" was stored as 15 and "1.234,5" as 1.2345.
    ("value_thousands_separator", BAD, {"value": "1,5"}, "bad_number", "value", ["'1,5'", "separator"]),
    ("value_decimal_comma", BAD, {"value": "1.234,5"}, "bad_number", "value", ["'1.234,5'", "decimal comma"]),
    ("value_space_grouped", BAD, {"value": "24 593.8"}, "bad_number", "value", ["'24 593.8'", "separator"]),
    ("value_apostrophe_grouped", BAD, {"value": "24'593.8"}, "bad_number", "value", ["separator"]),
    ("value_arabic_indic_digits", BAD, {"value": "\u0662\u0664\u0665\u0669\u0663"}, "bad_number", "value",
     ["ASCII 0-9"]),
    ("value_full_width_digits", BAD, {"value": "\uff12\uff14\uff15\uff19\uff13"}, "bad_number", "value",
     ["ASCII 0-9"]),
    ("value_nan", BAD, {"value": "NaN"}, "bad_number", "value", ["finite"]),
    ("value_infinity", BAD, {"value": "Infinity"}, "bad_number", "value", ["finite"]),
    ("value_exponent", BAD, {"value": "2.4e4"}, "bad_number", "value", ["exponent"]),
    ("value_overflowing", BAD, {"value": "1e309"}, "bad_number", "value", ["exponent"]),
    ("value_two_points", BAD, {"value": "24.593.8"}, "bad_number", "value", ["second decimal point"]),
    ("nodes_fraction", BAD, {"nodes": "1.0"}, "bad_number", "nodes", ["nodes", "decimal point"]),
    ("accelerators_arabic_indic", BAD, {"accelerators_per_node": "\u0668"}, "bad_number", "accelerators_per_node",
     ["ASCII 0-9"]),
    ("target_qps_full_width", 0, {"target_qps": "\uff18\uff10"}, "bad_number", "target_qps", ["ASCII 0-9"]),
    ("request_rate_full_width", BAD, {"request_rate": "\uff18\uff10"}, "bad_number", "request_rate", ["ASCII 0-9"]),
    ("mean_output_decimal_comma", BAD, {"mean_output_tokens": "301,1"}, "bad_number", "mean_output_tokens",
     ["'301,1'"]),
    # Plausibility: tokens per sample against the cap of the MLPerf row's benchmark.
    ("tokens_per_sample_zero", 0, {"tokens_per_sample": "0"}, "implausible_tokens_per_sample", "tokens_per_sample",
     ["above 0"]),
    ("mlperf_row_tokens_per_sample_over_the_cap", 0, {"tokens_per_sample": "1100"}, "implausible_tokens_per_sample",
     "tokens_per_sample", ["1100", "1024 max output tokens"]),
    ("retrieved_on_not_a_date", BAD, {"retrieved_on": "yesterday"}, "bad_field", "retrieved_on", ["YYYY-MM-DD"]),
]


@pytest.mark.parametrize("index, cells, reason, column, words", [pytest.param(*c[1:], id=c[0]) for c in CSV_CASES])
def test_csv_row_that_breaks_a_rule_is_quarantined_and_its_neighbours_stored(db, tmp_path, index, cells, reason,
                                                                             column, words):
    rows = csv_slice()
    rows[index] = rows[index] | cells
    path = write_csv(tmp_path, rows)

    report = ingest_path(db, path)

    assert_reconciles(report, len(rows))
    assert (report.added, report.quarantined) == (len(rows) - 1, 1)
    q = only_quarantined(db)
    assert q["reason"] == reason
    assert q["locator"] == csv_locator(path, index) + (f", column {column}" if column else "")
    assert_actionable(q["message"], *words)
    assert len(q["raw"]) <= 4000
    assert stored_locators(db) == {csv_locator(path, i) for i in range(len(rows)) if i != index}


def test_csv_row_with_more_cells_than_the_header_is_quarantined_and_its_neighbours_stored(db, tmp_path):
    rows = csv_slice()
    path = write_csv(tmp_path, rows, extra_cells={BAD: ["surplus", "cells"]})

    report = ingest_path(db, path)

    assert_reconciles(report, len(rows))
    q = only_quarantined(db)
    assert (q["reason"], q["locator"]) == ("extra_cells", csv_locator(path, BAD))
    assert_actionable(q["message"], "more cells", "header")
    assert stored_locators(db) == {csv_locator(path, i) for i in (0, 2)}


@pytest.mark.quick
def test_csv_rows_as_written_are_all_stored(db, tmp_path):
    """The control for the CSV matrix: the unbroken rows are valid, so each case's quarantine is its break."""
    rows = csv_slice()
    report = ingest_path(db, write_csv(tmp_path, rows))
    assert report.added == len(rows) and report.reconciles and db.quarantined() == []
    own = next(r for r in db.results() if not r.conditions.identity.mlperf)
    assert own.origin == "own" and own.conditions.benchmark.scenario == "Poisson"
    assert (own.conditions.load.target_qps, own.conditions.load.ttft_bound_ms) == (80, None)
    assert (own.conditions.shape.tokens_per_sample, own.conditions.run.mean_input_tokens) == (294.1, 620.4)
    assert own.conditions.shape.dataset == "OpenOrca" and own.conditions.run.tool == "vllm bench serve"


# --------------------------------------------------------------------------- the same bad file twice


@pytest.mark.parametrize("make", [summary_with_bad_row, tree_with_invalid_result, csv_with_bad_row,
                                  png_named_csv], ids=["summary", "tree", "csv", "png_named_csv"])
def test_ingesting_the_same_bad_source_twice_adds_no_duplicate_quarantine_rows(store, tmp_path, make):
    path, rows_in_input = make(tmp_path)

    first = ingest_path(store, path)
    quarantined = store.quarantined()
    stored = store.count()
    again = ingest_path(store, path)

    assert_reconciles(first, rows_in_input)
    assert_reconciles(again, rows_in_input)
    assert again.quarantined == first.quarantined == len(quarantined) == 1
    assert again.added == 0 and again.unchanged == first.added
    assert store.quarantined() == quarantined
    assert store.count() == stored
    # The second ingest changed nothing, so it leaves no trace either.
    assert [r["rows_read"] for r in store.ingest_runs()] == [rows_in_input] and not again.recorded
