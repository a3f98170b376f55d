"""Ingest defences that work by mechanism, each tried on real MLCommons v5.1 data made hostile in
tmp_path: row atomicity whatever a row raises, files that are not regular files or cannot be read,
names that are not UTF-8, CSV structure read per physical line, rounds only from a vX.Y folder,
run logs filed under the wrong scenario, and system names the publication left blank.

Each test fails when its defence is removed: a case that would hang without it (a FIFO, an endless
device) is built so that it returns and fails instead (the FIFO has a writer), or runs under a
watchdog thread.
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import threading
from functools import cache
from pathlib import Path

import pytest

from exportguard.errors import SourceError
from exportguard.ingest import csv_rows, ingest_path, mlperf_summary, mlperf_tree
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
    mlperf_row,
    only_quarantined,
    scenario_locators,
    stored_locators,
    summary_locator,
    summary_slice,
    write_csv,
    write_summary,
)
from tests.conftest import MLPERF, SUMMARY_V51, TREE_V51
from tests.real_data import require_real_data

pytestmark = pytest.mark.real_data
require_real_data(MLPERF)

AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


@pytest.fixture
def db(sqlite_url):
    s = open_store(sqlite_url)
    yield s
    s.close()


@cache
def _real_summary_rows() -> tuple:
    return tuple(json.loads(SUMMARY_V51.read_text()))


# --------------------------------------------------------------------------- row atomicity, any exception

# What a hostile row could provoke deep in a reader, and the reason it is quarantined with.
EXCEPTIONS = [
    (ValueError("invalid literal"), "unexpected_error"),
    (OverflowError("int too large to convert"), "unexpected_error"),
    (TypeError("'NoneType' object is not subscriptable"), "unexpected_error"),
    (KeyError("Platform"), "unexpected_error"),
    (ZeroDivisionError("float division by zero"), "unexpected_error"),
    (RecursionError("maximum recursion depth exceeded"), "unexpected_error"),
    (UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"), "not_utf8"),
    (PermissionError(13, "Permission denied"), "unreadable"),
]
EXCEPTION_IDS = [type(e).__name__ for e, _ in EXCEPTIONS]


def _raising_for(target, real, exc, matches):
    def fake(*args, **kwargs):
        if matches(*args, **kwargs):
            raise exc
        return real(*args, **kwargs)
    return fake


@pytest.mark.parametrize("exc, reason", EXCEPTIONS, ids=EXCEPTION_IDS)
def test_any_exception_in_one_summary_row_costs_that_row_only(db, tmp_path, monkeypatch, exc, reason):
    rows = summary_slice()
    bad_location = rows[BAD]["Location"]
    monkeypatch.setattr(mlperf_summary, "_suite", _raising_for(
        "_suite", mlperf_summary._suite, exc, lambda row, model: row.get("Location") == bad_location))
    path = write_summary(tmp_path, rows)

    report = ingest_path(db, path)

    assert_reconciles(report, len(rows))
    assert (report.added, report.quarantined, report.skipped) == (3, 1, 1)
    q = only_quarantined(db)
    assert (q["reason"], q["locator"]) == (reason, summary_locator(path, BAD))
    assert_actionable(q["message"], type(exc).__name__)
    assert q["raw"]
    assert stored_locators(db) == {summary_locator(path, i) for i in (0, 2, 3)}


@pytest.mark.parametrize("exc, reason", EXCEPTIONS, ids=EXCEPTION_IDS)
def test_any_exception_in_one_tree_scenario_costs_that_scenario_only(db, tmp_path, monkeypatch, exc, reason):
    sub = copy_submitter(tmp_path)
    scenarios = scenario_locators(sub)
    bad = sub / SCENARIO
    monkeypatch.setattr(mlperf_tree, "_scenario_item", _raising_for(
        "_scenario_item", mlperf_tree._scenario_item, exc, lambda _sub, scenario_dir, *rest: scenario_dir == bad))

    report = ingest_path(db, tmp_path / "v5.1")

    assert_reconciles(report, len(scenarios))
    q = only_quarantined(db)
    assert (q["reason"], q["locator"]) == (reason, f"closed/AMD/{SCENARIO}")
    assert_actionable(q["message"], type(exc).__name__)
    assert stored_locators(db) == scenarios - {f"closed/AMD/{SCENARIO}"}


@pytest.mark.parametrize("exc, reason", EXCEPTIONS, ids=EXCEPTION_IDS)
def test_any_exception_in_one_csv_row_costs_that_row_only(db, tmp_path, monkeypatch, exc, reason):
    rows = csv_slice()
    path = write_csv(tmp_path, rows)
    monkeypatch.setattr(csv_rows, "_row_result", _raising_for(
        "_row_result", csv_rows._row_result, exc, lambda row, locator, source, *_: locator == csv_locator(path, BAD)))

    report = ingest_path(db, path)

    assert_reconciles(report, len(rows))
    q = only_quarantined(db)
    assert (q["reason"], q["locator"]) == (reason, csv_locator(path, BAD))
    assert stored_locators(db) == {csv_locator(path, i) for i in (0, 2)}


@pytest.mark.parametrize("text", [b"NaN", b"1e309"], ids=["nan", "overflowing_1e309"])
def test_real_v51_summary_plus_one_row_with_bad_nodes_stores_every_real_row(db, tmp_path, text):
    """Before: the one row raised and rolled back the whole table (0 of 351 stored)."""
    rows = [dict(r) for r in _real_summary_rows()]
    extra = dict(next(r for r in rows if r["Location"].endswith("8xMI300X_2xEPYC_9575F/llama2-70b-99/Offline")))
    extra["Nodes"] = "@@nodes@@"
    rows.append(extra)
    path = write_summary(tmp_path, rows)
    data = path.read_bytes()
    path.write_bytes(data.replace(b'"@@nodes@@"', text))

    report = ingest_path(db, path)

    assert_reconciles(report, 1449)
    assert (report.added, report.quarantined, report.skipped) == (351, 1, 1097)
    q = only_quarantined(db)
    assert (q["reason"], q["locator"]) == ("bad_number", f"{summary_locator(path, 1448)}, field Nodes")
    assert_actionable(q["message"], "Nodes", text.decode())


# --------------------------------------------------------------------------- sources that are not files or folders


@contextlib.contextmanager
def fifo_with_a_writer(path: Path):
    """A FIFO whose writer is a thread: a reader that wrongly opens it gets two bytes and an end of
    file instead of blocking forever, so a missing defence fails the test rather than hanging it.
    Yields an Event that is set once anyone has opened the FIFO for reading."""
    os.mkfifo(path)
    opened = threading.Event()

    def write():
        fd = os.open(path, os.O_WRONLY)  # returns once someone opens the FIFO for reading
        opened.set()
        with contextlib.suppress(BrokenPipeError):
            os.write(fd, b"[]")
        os.close(fd)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    try:
        yield opened
    finally:
        release = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # let the writer finish if nobody read
        writer.join()
        os.close(release)


def ingest_with_watchdog(store, path, limit_s: float = 60.0):
    """ingest_path in a thread; a call still running after ``limit_s`` is reading something endless."""
    outcome: dict = {}

    def run():
        try:
            outcome["report"] = ingest_path(store, path)
        except BaseException as e:  # noqa: BLE001 - handed to the test thread
            outcome["error"] = e

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(limit_s)
    assert not worker.is_alive(), f"ingest of {path} never returned: it is reading an endless file"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["report"]


def assert_refused_as_not_a_source(db, path, reason: str, *words: str) -> None:
    with pytest.raises(SourceError) as info:
        ingest_with_watchdog(db, path)
    assert info.value.reason == reason
    assert str(path) in str(info.value)
    assert_actionable(info.value.message, *words)
    assert db.quarantined() == [] and db.ingest_runs() == []


def test_fifo_given_as_a_source_is_refused_unopened(db, tmp_path):
    fifo = tmp_path / "v5.1_summary_results.json"
    with fifo_with_a_writer(fifo) as opened:
        assert_refused_as_not_a_source(db, fifo, "not_a_regular_file", "FIFO", "not a file")
        assert not opened.is_set()


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null", "/dev/urandom"])
def test_character_device_given_as_a_source_is_refused_unread(db, device):
    if not os.path.exists(device):
        pytest.skip(f"{device} does not exist on this system")
    assert_refused_as_not_a_source(db, Path(device), "not_a_regular_file", "character device")


def test_socket_given_as_a_source_is_refused(db, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a relative name keeps the socket path under the 108-byte limit
    with socket.socket(socket.AF_UNIX) as s:
        s.bind("results.csv")
        assert_refused_as_not_a_source(db, Path("results.csv"), "not_a_regular_file", "socket")


def _deny(monkeypatch, target: Path, *names: str) -> None:
    """Make os.<name> fail with EACCES for ``target`` only: what chmod 000 does for a user who is not
    root (the tests may run as root, for whom chmod does not block reads)."""
    for name in names:
        real = getattr(os, name)

        def fake(path, *args, _real=real, **kwargs):
            if os.fspath(path) == os.fspath(target):
                raise PermissionError(13, "Permission denied", os.fspath(path))
            return _real(path, *args, **kwargs)

        monkeypatch.setattr(os, name, fake)


def test_unreadable_file_given_as_a_source_is_a_clear_error(db, tmp_path, monkeypatch):
    path = write_csv(tmp_path, csv_slice())
    _deny(monkeypatch, path, "open")
    assert_refused_as_not_a_source(db, path, "unreadable", "Permission denied")


def test_unreadable_folder_given_as_a_source_is_a_clear_error(db, tmp_path, monkeypatch):
    copy_submitter(tmp_path)
    _deny(monkeypatch, tmp_path / "v5.1", "listdir", "scandir")
    assert_refused_as_not_a_source(db, tmp_path / "v5.1", "unreadable", "Permission denied")


def test_source_named_with_bytes_that_are_not_utf8_is_stored_with_the_name_escaped(db, tmp_path):
    rows = csv_slice()
    written = write_csv(tmp_path, rows)
    odd = Path(os.fsdecode(os.fsencode(tmp_path) + b"/r\xe9sultats.csv"))
    written.rename(odd)

    report = ingest_path(db, odd)

    assert report.added == len(rows) and report.reconciles
    shown = str(tmp_path) + "/r\\xe9sultats.csv"
    assert {r.conditions.provenance.source_path for r in db.results()} == {shown}
    assert db.ingest_runs()[0]["source_path"] == shown


# --------------------------------------------------------------------------- files and folders inside a tree


def _perf_log_fifo(scenario: Path) -> None:
    (scenario / PERF).unlink()
    os.mkfifo(scenario / PERF)


def _perf_log_folder(scenario: Path) -> None:
    (scenario / PERF).unlink()
    (scenario / PERF).mkdir()


def _accuracy_folder(scenario: Path) -> None:
    (scenario / ACCURACY).unlink()
    (scenario / ACCURACY).mkdir()


def _accuracy_dangling_link(scenario: Path) -> None:
    (scenario / ACCURACY).unlink()
    (scenario / ACCURACY).symlink_to(scenario / "no-such-file")


@pytest.mark.parametrize("break_scenario, reason, where, words", [
    pytest.param(_perf_log_fifo, "not_a_regular_file", PERF, ["FIFO", "not a file"], id="performance_log_is_a_fifo"),
    pytest.param(_perf_log_folder, "not_a_regular_file", PERF, ["folder", "not a file"],
                 id="performance_log_is_a_folder"),
    pytest.param(_accuracy_folder, "not_a_regular_file", ACCURACY, ["folder", "not a file"],
                 id="accuracy_is_a_folder"),
    pytest.param(_accuracy_dangling_link, "not_found", ACCURACY, ["no such file"], id="accuracy_is_a_dangling_link"),
])
def test_tree_file_that_is_not_a_regular_file_quarantines_its_scenario_unopened(db, tmp_path, break_scenario, reason,
                                                                                where, words):
    sub = copy_submitter(tmp_path)
    scenarios = scenario_locators(sub)
    break_scenario(sub / SCENARIO)

    report = ingest_with_watchdog(db, tmp_path / "v5.1")

    assert_reconciles(report, len(scenarios))
    q = only_quarantined(db)
    assert (q["reason"], q["locator"]) == (reason, f"closed/AMD/{SCENARIO}, {where}")
    assert_actionable(q["message"], *words)
    assert stored_locators(db) == scenarios - {f"closed/AMD/{SCENARIO}"}


def test_unreadable_accuracy_file_quarantines_its_scenario(db, tmp_path, monkeypatch):
    sub = copy_submitter(tmp_path)
    scenarios = scenario_locators(sub)
    _deny(monkeypatch, sub / SCENARIO / ACCURACY, "open")

    report = ingest_path(db, tmp_path / "v5.1")

    assert_reconciles(report, len(scenarios))
    q = only_quarantined(db)
    assert (q["reason"], q["locator"]) == ("unreadable", f"closed/AMD/{SCENARIO}, {ACCURACY}")
    assert_actionable(q["message"], "Permission denied")
    assert stored_locators(db) == scenarios - {f"closed/AMD/{SCENARIO}"}


def test_unlistable_system_folder_is_one_quarantine_row_and_the_rest_is_stored(db, tmp_path, monkeypatch):
    amd = copy_submitter(tmp_path, "AMD")
    cisco = copy_submitter(tmp_path, "Cisco")
    _deny(monkeypatch, cisco / "results" / "C885_H200x8_TRT", "listdir", "scandir")

    report = ingest_path(db, tmp_path / "v5.1")

    assert_reconciles(report, len(scenario_locators(amd)) + 1)
    q = only_quarantined(db)
    assert (q["reason"], q["locator"]) == ("unreadable", "closed/Cisco/results/C885_H200x8_TRT")
    assert_actionable(q["message"], "cannot be listed", "Permission denied")
    assert stored_locators(db) == scenario_locators(amd)


def test_stray_fifo_among_the_system_descriptions_is_never_opened(db, tmp_path):
    """The tree's digest reads systems/*.json; a FIFO named like one must not be opened."""
    sub = copy_submitter(tmp_path)
    with fifo_with_a_writer(sub / "systems" / "stray.json") as opened:
        report = ingest_with_watchdog(db, tmp_path / "v5.1")
        assert not opened.is_set()
    assert report.added == len(scenario_locators(sub)) and report.quarantined == 0


def test_system_description_that_is_a_fifo_quarantines_its_results_unopened(db, tmp_path):
    amd = copy_submitter(tmp_path, "AMD")
    cisco = copy_submitter(tmp_path, "Cisco")
    system = cisco / "systems" / "C885_H200x8_TRT.json"
    system.unlink()
    with fifo_with_a_writer(system) as opened:
        report = ingest_with_watchdog(db, tmp_path / "v5.1")
        assert not opened.is_set()

    assert_reconciles(report, len(scenario_locators(amd)) + len(scenario_locators(cisco)))
    assert {q["locator"] for q in db.quarantined()} == {
        f"{s}, closed/Cisco/systems/C885_H200x8_TRT.json" for s in scenario_locators(cisco)}
    for q in db.quarantined():
        assert q["reason"] == "not_a_regular_file"
        assert_actionable(q["message"], "FIFO", "not a file")
    assert stored_locators(db) == scenario_locators(amd)


def test_folder_name_that_is_not_utf8_quarantines_the_results_below_it(db, tmp_path):
    amd = copy_submitter(tmp_path, "AMD")
    cisco = copy_submitter(tmp_path, "Cisco")
    system = cisco / "results" / "C885_H200x8_TRT"
    os.rename(os.fsencode(system), os.fsencode(system.parent) + b"/C885_H200\xffx8_TRT")
    shown = {s.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
             for s in scenario_locators(cisco)}
    assert all("C885_H200\\xffx8_TRT" in s for s in shown)

    report = ingest_path(db, tmp_path / "v5.1")

    assert_reconciles(report, len(scenario_locators(amd)) + len(shown))
    assert {q["locator"] for q in db.quarantined()} == shown
    for q in db.quarantined():
        assert q["reason"] == "not_utf8"
        assert_actionable(q["message"], "\\xff", "not UTF-8")
    assert stored_locators(db) == scenario_locators(amd)


# --------------------------------------------------------------------------- run log vs folder, round


def _copy_log(sub: Path, from_scenario: str, to_scenario: str) -> None:
    bench = sub / "results" / "8xMI300X_2xEPYC_9575F" / "llama2-70b-99"
    shutil.copyfile(bench / from_scenario / PERF, bench / to_scenario / PERF)


@pytest.mark.parametrize("log_of, filed_under, says", [
    ("Server", "Offline", "Server"),
    ("Offline", "Server", "Offline"),
    ("Offline", "Interactive", "Offline"),
], ids=["server_log_in_offline", "offline_log_in_server", "offline_log_in_interactive"])
def test_run_log_filed_under_another_scenario_is_quarantined(db, tmp_path, log_of, filed_under, says):
    sub = copy_submitter(tmp_path)
    scenarios = scenario_locators(sub)
    _copy_log(sub, log_of, filed_under)
    bad = f"closed/AMD/results/8xMI300X_2xEPYC_9575F/llama2-70b-99/{filed_under}"

    report = ingest_path(db, tmp_path / "v5.1")

    assert_reconciles(report, len(scenarios))
    q = only_quarantined(db)
    assert (q["reason"], q["locator"]) == ("scenario_mismatch", f"{bad}, {PERF} line 5")
    assert_actionable(q["message"], f"'Scenario : {says}'", filed_under)
    assert stored_locators(db) == scenarios - {bad}


def test_interactive_folder_holding_a_log_that_says_server_is_stored(db, tmp_path):
    sub = copy_submitter(tmp_path)
    interactive = sub / "results" / "8xMI300X_2xEPYC_9575F" / "llama2-70b-99" / "Interactive" / PERF
    assert "Scenario : Server" in interactive.read_text()  # as every real Interactive log says

    report = ingest_path(db, tmp_path / "v5.1")

    assert report.quarantined == 0
    (row,) = db.results(benchmark="llama2-70b-99", scenario="Interactive")
    assert row.conditions.load.ttft_bound_ms == 450


@pytest.mark.parametrize("folder", ["proj-1.2", "results1.2", "release_5.1", "inference_results_v5.1", "v5.1.2",
                                    "V5.1x"])
def test_folder_that_is_not_exactly_a_round_names_no_round(db, tmp_path, folder):
    sub = copy_submitter(tmp_path, top=folder)
    scenarios = scenario_locators(sub)

    report = ingest_path(db, tmp_path / folder)

    assert_reconciles(report, len(scenarios))
    assert report.quarantined == len(scenarios) and db.count() == 0
    assert {q["reason"] for q in db.quarantined()} == {"unknown_round"}


# --------------------------------------------------------------------------- CSV structure, per physical line


def real_csv_rows(n: int = 50) -> list[dict]:
    """``n`` real closed llama2-70b rows of the v5.1 summary, one per result, as CSV rows."""
    rows, seen = [], set()
    for r in _real_summary_rows():
        key = (r["Submitter"], r["Platform"], r["Model"], r["Scenario"])
        if (r["Category"] == "closed" and r["Model"].startswith("llama2-70b") and isinstance(r["a#"], int)
                and key not in seen):
            seen.add(key)
            rows.append(mlperf_row(r))
    assert len(rows) >= n
    return rows[:n]


def test_unterminated_quote_costs_its_line_not_the_lines_after_it(db, tmp_path):
    """Before: the open quote swallowed the lines after it into one cell, and the report counted
    a handful of rows read for a file of 50."""
    rows = real_csv_rows()
    path = write_csv(tmp_path, rows)
    lines = path.read_text().split("\n")
    bad = 5  # the 5th data row, line 6
    url = rows[bad - 1]["source_url"]
    assert lines[bad].count(f",{url},") == 1
    lines[bad] += ',"never closed'  # a quote opened in the line's last cell: it stays open
    path.write_text("\n".join(lines))

    report = ingest_path(db, path)

    assert_reconciles(report, len(rows))
    assert (report.added, report.quarantined) == (len(rows) - 1, 1)
    q = only_quarantined(db)
    assert (q["reason"], q["locator"]) == ("malformed_csv", f"{path} line {bad + 1}")
    assert_actionable(q["message"], "quote", "cannot span lines")
    assert url in q["raw"]


def test_quote_closed_before_the_cell_ends_costs_its_line(db, tmp_path):
    rows = csv_slice()
    path = write_csv(tmp_path, rows)
    lines = path.read_text().split("\n")
    lines[1 + BAD] = lines[1 + BAD].replace(",Poisson,", ',"Poiss"on,', 1)
    path.write_text("\n".join(lines))

    report = ingest_path(db, path)

    assert_reconciles(report, len(rows))
    q = only_quarantined(db)
    assert (q["reason"], q["locator"]) == ("malformed_csv", csv_locator(path, BAD))
    assert_actionable(q["message"], "closing quote")


def test_header_naming_a_column_twice_refuses_the_file(db, tmp_path):
    path = write_csv(tmp_path, csv_slice())
    text = path.read_text()
    path.write_text(text.replace("mlperf,model,", "mlperf,value,model,", 1)
                    .replace("\nyes,", "\nyes,1,", ).replace("\nno,", "\nno,1,"))

    report = ingest_path(db, path)

    assert_reconciles(report, 1)
    q = only_quarantined(db)
    assert (q["reason"], q["locator"]) == ("duplicate_column", f"{path} line 1")
    assert_actionable(q["message"], "'value'", "twice", "columns 2 and 4")
    assert db.count() == 0


def test_row_with_fewer_cells_than_the_header_is_quarantined(db, tmp_path):
    rows = csv_slice()
    path = write_csv(tmp_path, rows)
    lines = path.read_text().split("\n")
    lines[1 + BAD] = lines[1 + BAD].rsplit(",", 3)[0]
    path.write_text("\n".join(lines))

    report = ingest_path(db, path)

    assert_reconciles(report, len(rows))
    q = only_quarantined(db)
    assert (q["reason"], q["locator"]) == ("missing_cells", csv_locator(path, BAD))
    assert_actionable(q["message"], "fewer cells", "header")
    assert stored_locators(db) == {csv_locator(path, i) for i in (0, 2)}


def test_line_with_bytes_that_are_not_utf8_costs_that_line(db, tmp_path):
    rows = csv_slice()
    rows[BAD]["framework"] = "@@here@@"
    path = write_csv(tmp_path, rows)
    data = path.read_bytes()
    path.write_bytes(data.replace(b"@@here@@", b"vLLM \xe9dition"))

    report = ingest_path(db, path)

    assert_reconciles(report, len(rows))
    q = only_quarantined(db)
    assert (q["reason"], q["locator"]) == ("not_utf8", csv_locator(path, BAD))
    assert_actionable(q["message"], "not UTF-8", "\\xe9")
    assert stored_locators(db) == {csv_locator(path, i) for i in (0, 2)}


def test_blank_lines_are_counted_as_skipped_so_the_counts_reconcile_over_physical_lines(db, tmp_path):
    rows = csv_slice()
    path = write_csv(tmp_path, rows)
    lines = path.read_text().split("\n")  # header, 3 rows, "" after the final newline
    path.write_text("\r\n".join(lines[:2] + ["", "   "] + lines[2:]))

    report = ingest_path(db, path)

    assert_reconciles(report, len(rows) + 2)
    assert (report.added, report.skipped, report.skip_reasons) == (3, 2, {"blank line": 2})
    assert stored_locators(db) == {f"{path} line {n}" for n in (2, 5, 6)}


def test_csv_with_carriage_return_line_ends_is_read_line_by_line(db, tmp_path):
    rows = csv_slice()
    path = write_csv(tmp_path, rows)
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r"))

    report = ingest_path(db, path)

    assert report.added == len(rows) and report.reconciles and report.rows_read == len(rows)


# --------------------------------------------------------------------------- plausibility on the real trees


def test_every_real_llama31_8b_result_is_stored_though_derived_values_pass_the_128_token_cap(db):
    report = ingest_path(db, TREE_V51)
    assert (report.rows_read, report.added, report.quarantined) == (51, 51, 0)
    derived = [r.conditions.shape.tokens_per_sample for r in db.results(model="llama3.1-8b")]
    assert max(derived) > 128.9  # so the tolerance is needed, and small: 2 % of 128
    assert all(127.9 < t <= 128 * 1.02 for t in derived)


def test_derived_tokens_per_sample_beyond_the_cap_is_quarantined(db, tmp_path):
    sub = copy_submitter(tmp_path, "NVIDIA")
    scenarios = scenario_locators(sub)
    offline = "results/B200-SXM-180GBx8_TRT/llama3.1-8b/Offline"
    log = sub / offline / PERF
    text = log.read_text()
    samples = next(line for line in text.splitlines() if line.startswith("Samples per second"))
    tokens = float(next(line for line in text.splitlines() if line.startswith("Tokens per second")).split(":")[1])
    log.write_text(text.replace(samples, f"Samples per second: {tokens / 200:.4f}"))

    report = ingest_path(db, tmp_path / "v5.1")

    assert_reconciles(report, len(scenarios))
    q = only_quarantined(db)
    assert (q["reason"], q["locator"]) == ("implausible_tokens_per_sample",
                                           f"closed/NVIDIA/{offline}, {PERF} (tokens/s / samples/s)")
    assert_actionable(q["message"], "128 max output tokens")


# --------------------------------------------------------------------------- system names the publication left blank


BLANK_NAMED = {"GB200-NVL72_GB200-186GB_aarch64x4_TRT", "GB200-NVL72_GB200-186GB_aarch64x72_TRT",
               "GB300-NVL72_GB300-288GB_aarch64x72_TRT", "GB200-NVL72_GB200-186GB_aarch64x72_Dynamo"}


def test_real_summary_rows_with_a_blank_system_name_take_the_platform_and_say_so(db):
    ingest_path(db, SUMMARY_V51)

    repaired = [r for r in db.results(submitter="NVIDIA") if r.conditions.identity.system_id in BLANK_NAMED]
    assert len(repaired) == 12
    for r in repaired:
        platform = r.conditions.identity.system_id
        assert r.conditions.identity.system_name == platform
        assert f"system name blank in the summary, taken from Platform {platform}" in r.corrections
    for r in db.results():
        name = r.conditions.identity.system_name
        assert not name.startswith("("), name
        if r not in repaired:  # e.g. Nebius names its GB200 system on the same Platform
            assert not any(c.startswith("system name") for c in r.corrections)


def test_real_tree_system_with_a_blank_name_takes_its_folder_and_says_so(db):
    ingest_path(db, TREE_V51)
    rows = db.results(system_id="GB200-NVL72_GB200-186GB_aarch64x4_TRT")
    assert len(rows) == 3
    for r in rows:
        assert r.conditions.identity.system_name == "GB200-NVL72_GB200-186GB_aarch64x4_TRT"
        assert r.corrections == ("system name blank in systems/GB200-NVL72_GB200-186GB_aarch64x4_TRT.json, "
                                 "taken from the system folder GB200-NVL72_GB200-186GB_aarch64x4_TRT",)


def test_summary_row_with_a_blank_name_takes_the_name_the_trees_systems_json_gives(db, tmp_path):
    system = "GB200-NVL72_GB200-186GB_aarch64x4_TRT"
    sub = copy_submitter(tmp_path, "NVIDIA")
    name = "NVIDIA GB200 NVL72 (4x GB200-186GB_aarch64, TensorRT)"
    (sub / "systems" / f"{system}.json").write_text(
        (sub / "systems" / f"{system}.json").read_text().replace('" (4x GB200-186GB_aarch64, TensorRT)"',
                                                                 json.dumps(name)))
    assert ingest_path(db, tmp_path / "v5.1").quarantined == 0
    rows = [r for r in _real_summary_rows() if r["Platform"] == system and r["Submitter"] == "NVIDIA"]
    assert len(rows) == 6 and all(r["System"].startswith(" (") for r in rows)

    report = ingest_path(db, write_summary(tmp_path, rows, "gb200.json"))

    assert (report.added, report.enriched) == (3, 3)
    for r in db.results(system_id=system):
        assert r.conditions.identity.system_name == name
        assert f"system name blank in the summary, taken from the submission tree's systems/{system}.json" \
            in r.corrections
