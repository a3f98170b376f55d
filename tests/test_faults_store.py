"""The store under faults, on both backends: a commit between two reads of one command or one
report, ingests running while reads go on, a missing or mistyped store, a store file deleted or
replaced under an ingest, a read-only store with a write-ahead log, a full disk, a PostgreSQL
backend terminated from a second connection, and writers waiting for each other."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import sqlalchemy as sa

import exportguard.store as store_module
from exportguard.errors import StoreError
from exportguard.ingest import ingest_path
from exportguard.model import cohort_slack
from exportguard.spec import build_report, parse_spec
from exportguard.store import open_store
from tests.conftest import SUMMARY_V41, SUMMARY_V51
from tests.faults import ROOT, assert_one_line_error, made_up_rows, read_only, run, small_filesystem

pytestmark = pytest.mark.real_data
OFFLINE = dict(round="v5.1", division="closed", benchmark="llama2-70b-99", scenario="Offline")


def _consistent(cohort) -> bool:
    """What one snapshot guarantees of an unfiltered cohort: its size and slack are those of its rows."""
    return cohort.total == len(cohort.results) and cohort.slack == cohort_slack(cohort.results)


# --------------------------------------------------------------------------- one snapshot per read


def test_rows_and_their_cohorts_size_and_slack_come_from_one_snapshot(store, store_url, tmp_path, monkeypatch):
    ingest_path(store, SUMMARY_V51)
    extra = made_up_rows(tmp_path / "one.csv", ["FAULT-1"])
    real_group = store_module.group_by_cohort

    def commit_in_between(results):  # the rows are read; another process commits before the cohort is
        with open_store(store_url) as other:
            ingest_path(other, extra)
        return real_group(results)

    monkeypatch.setattr(store_module, "group_by_cohort", commit_in_between)
    (cohort,) = store.cohorts(**OFFLINE)
    monkeypatch.setattr(store_module, "group_by_cohort", real_group)
    assert (cohort.total, len(cohort.results)) == (47, 47) and _consistent(cohort)
    (after,) = store.cohorts(**OFFLINE)
    assert (after.total, len(after.results)) == (48, 48)  # the commit did land, for the next read


def test_every_section_of_a_report_reads_the_same_snapshot(store, store_url, tmp_path, monkeypatch):
    ingest_path(store, SUMMARY_V51)
    extra = made_up_rows(tmp_path / "one.csv", ["FAULT-1"])
    spec = parse_spec('title = "Two views"\n[filters]\nround = "v5.1"\ndivision = "closed"\nmodel = "llama2-70b"\n'
                      'track = "99"\nscenario = "Offline"\n[[section]]\nkind = "table"\ntitle = "first"\n'
                      '[[section]]\nkind = "table"\ntitle = "second"\n')
    real_cohorts, calls = store.cohorts, []

    def cohorts_then_commit(**filters):
        found = real_cohorts(**filters)
        if not calls:
            with open_store(store_url) as other:
                ingest_path(other, extra)
        calls.append(len(found[0].results))
        return found

    monkeypatch.setattr(store, "cohorts", cohorts_then_commit)
    report = build_report(store, spec)
    assert calls == [47, 47]
    first, second = (len(s.table.rows) for s in report.sections)
    assert first == second == 47


WRITER = """
import sys
from exportguard.ingest import ingest_path
from exportguard.store import open_store
from tests.faults import made_up_rows
from pathlib import Path
import time
url, folder, n = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
reads = folder / "reads"

def reads_done():
    try:
        return int(reads.read_text() or 0)
    except (OSError, ValueError):
        return 0

with open_store(url) as s:
    for i in range(n):
        ingest_path(s, made_up_rows(folder / f"w{i}.csv", [f"STRESS-{i}-{k}" for k in range(1 + i % 3)]))
        # pace the commits by the reader (a loaded machine may read slowly): the next commit waits
        # until a read has started and ended after this one, so every store state is read at least once
        seen, deadline = reads_done(), time.monotonic() + 30
        while reads_done() < seen + 2 and time.monotonic() < deadline:
            time.sleep(0.01)
"""


def test_reads_during_ingests_never_mix_snapshots(store, store_url, tmp_path):
    """A writer commits one small source after another while this process reads the cohorts again
    and again: every read is consistent in itself (the issue counted 24 of 86 that were not)."""
    ingest_path(store, SUMMARY_V51)
    writer = subprocess.Popen([sys.executable, "-c", WRITER, store_url, str(tmp_path), "40"], cwd=ROOT,
                              stderr=subprocess.PIPE, text=True)
    reads = mixed = 0
    totals = set()
    deadline = time.monotonic() + 120
    with open_store(store_url) as reader:
        while writer.poll() is None and time.monotonic() < deadline:
            found = reader.cohorts(round="v5.1", division="closed")
            reads += 1
            mixed += not all(_consistent(c) for c in found)
            totals.add(sum(c.total for c in found))
            (tmp_path / "reads.part").write_text(str(reads))
            os.replace(tmp_path / "reads.part", tmp_path / "reads")
    assert writer.wait(timeout=60) == 0, writer.stderr.read()
    print(f"\nreads during ingests: {reads}, mixed snapshots: {mixed}, store states seen: {len(totals)}")
    assert mixed == 0
    assert reads >= 40 and len(totals) >= 10  # the reads did overlap the commits (paced: each state was read)


# --------------------------------------------------------------------------- a store that is not there


@pytest.mark.parametrize("command", [["list"], ["cohorts"], ["quarantine"],
                                     ["export", "--round", "v5.1", "--to", "OUT/x.md"]])
def test_a_read_command_never_creates_a_store(tmp_path, command):
    missing = tmp_path / "typo" / "stroe.db"
    out = tmp_path / "out"
    done = run(["--db", f"sqlite:///{missing}", *[a.replace("OUT", str(out)) for a in command]])
    assert_one_line_error(done, f"no exportguard store at {missing}")
    assert not missing.parent.exists() and not out.exists()


def test_a_read_command_leaves_an_empty_file_or_database_as_it_was(tmp_path, pg_url):
    empty = tmp_path / "empty.db"
    empty.touch()
    assert_one_line_error(run(["--db", f"sqlite:///{empty}", "list"]), f"no exportguard store at {empty}")
    assert empty.read_bytes() == b"" and sorted(p.name for p in tmp_path.iterdir()) == ["empty.db"]
    assert_one_line_error(run(["--db", pg_url, "cohorts"]), "no exportguard store at")
    engine = sa.create_engine(pg_url.replace("postgresql://", "postgresql+psycopg://"))
    assert sa.inspect(engine).get_table_names() == []
    engine.dispose()


@pytest.mark.parametrize("what", ["deleted", "replaced"])
def test_an_ingest_whose_store_file_goes_away_fails_before_it_commits(tmp_path, what):
    path = tmp_path / "store.db"
    url = f"sqlite:///{path}"
    with open_store(f"sqlite:///{tmp_path / 'other.db'}") as other:
        ingest_path(other, SUMMARY_V41)
    replacement = (tmp_path / "other.db").read_bytes()
    store = open_store(url)
    rows = []

    def meanwhile(_n):
        if not rows:
            if what == "deleted":
                for p in tmp_path.glob("store.db*"):
                    p.unlink()
            else:
                os.replace(tmp_path / "other.db", path)
        rows.append(1)

    with pytest.raises(StoreError, match=f"the store file {path} was {what}.*nothing was stored"):
        ingest_path(store, SUMMARY_V51, progress=meanwhile)
    if what == "deleted":
        store.close()
        assert not path.exists()
        assert_one_line_error(run(["--db", url, "list"]), "no exportguard store at")
    else:
        assert path.read_bytes() == replacement  # the file that replaced it: not one byte written into it
        store.close()


# --------------------------------------------------------------------------- read-only stores and their write-ahead log


KILLED_WRITER = """
import os, sys
from exportguard.ingest import ingest_path
from exportguard.store import open_store
s = open_store(sys.argv[1])
ingest_path(s, sys.argv[2])
os.kill(os.getpid(), 9)  # committed, never checkpointed: the results wait in the write-ahead log
"""


def _store_with_a_write_ahead_log(folder: Path) -> tuple[str, int]:
    """A store whose v4.1 results are in the main file and whose v5.1 results are only in its WAL."""
    folder.mkdir()
    path = folder / "store.db"
    url = f"sqlite:///{path}"
    with open_store(url) as s:
        ingest_path(s, SUMMARY_V41)
    done = subprocess.run([sys.executable, "-c", KILLED_WRITER, url, str(SUMMARY_V51)], cwd=ROOT)
    assert done.returncode == -signal.SIGKILL
    assert Path(f"{path}-wal").stat().st_size > 0
    with open_store(f"sqlite:///{folder / 'copy.db'}") as copy:  # what a writable store would hold
        ingest_path(copy, SUMMARY_V41)
        ingest_path(copy, SUMMARY_V51)
        expected = copy.count()
    (folder / "copy.db").unlink()
    return url, expected


def test_a_read_only_store_reads_its_write_ahead_log(tmp_path):
    url, expected = _store_with_a_write_ahead_log(tmp_path / "ro")
    with read_only(tmp_path / "ro"):
        with open_store(url, create=False) as s:
            assert s.read_only and s.count() == expected
        listed = run(["--db", url, "list", "--json"])
        assert listed.returncode == 0, listed.stderr
        assert listed.stdout.count('"figure":') == expected


def test_a_read_only_store_whose_log_cannot_be_read_is_refused_with_the_way_out(tmp_path):
    url, _ = _store_with_a_write_ahead_log(tmp_path / "ro")
    Path(url.removeprefix("sqlite:///") + "-shm").unlink()  # the index SQLite would have to make anew
    with read_only(tmp_path / "ro"):
        done = run(["--db", url, "cohorts"])
    assert_one_line_error(done, "cannot be read without write access", "write-ahead log", "wal_checkpoint")


def _closed_store(folder: Path, source: Path) -> tuple[str, int]:
    """A store of ``source`` in a new ``folder``, closed cleanly (no write-ahead log left)."""
    folder.mkdir()
    url = f"sqlite:///{folder / 'store.db'}"
    with open_store(url) as s:
        ingest_path(s, source)
        return url, s.count()


def test_a_read_only_store_without_a_log_is_read_whole(tmp_path):
    folder = tmp_path / "ro"
    url, expected = _closed_store(folder, SUMMARY_V51)
    assert not (folder / "store.db-wal").exists()
    with read_only(folder), open_store(url, create=False) as s:
        assert s.read_only and s.count() == expected


def test_an_ingest_into_a_read_only_store_ends_in_one_line(tmp_path):
    folder = tmp_path / "ro"
    url, _ = _closed_store(folder, SUMMARY_V41)
    with read_only(folder):
        done = run(["--db", url, "ingest", SUMMARY_V51])
    assert_one_line_error(done, "v5.1_summary_results.json: not ingested", "read-only")


# --------------------------------------------------------------------------- faults while writing


def test_an_ingest_into_a_full_disk_ends_in_one_line_and_stores_nothing_of_it(tmp_path):
    with small_filesystem(tmp_path / "small", 320) as small:
        folder = small or tmp_path / "small"
        url = f"sqlite:///{folder / 'store.db'}"
        with open_store(url) as s:
            s.count()
        fault = {} if small else {"file_size_limit": 200 * 1024}
        done = run(["--db", url, "ingest", SUMMARY_V41, SUMMARY_V51], **fault)
        line = assert_one_line_error(done, "not ingested", "nothing of it was stored")
        assert "disk is full" in line or "disk I/O error" in line, line
        with open_store(url, create=False) as s:
            stored = s.count()
        first = run(["--db", f"sqlite:///{tmp_path / 'alone.db'}", "ingest", "--json", SUMMARY_V41])
        # All or nothing per source: what is stored is nothing, or exactly the first source.
        assert stored in (0, int(first.stdout.split('"added": ')[1].split(",")[0]))


# pg_locks covers the whole server: only this test's database is looked at (other databases' writers take the same key)
PG_WRITER_LOCK = ("SELECT l.pid FROM pg_locks l JOIN pg_database d ON d.oid = l.database WHERE d.datname = "
                  "current_database() AND l.locktype = 'advisory' AND l.objid = :k AND l.granted")


def test_a_postgresql_backend_terminated_mid_ingest_ends_in_one_line(pg_url, tmp_path):
    with open_store(pg_url) as s:
        ingest_path(s, SUMMARY_V41)
        before = s.count()
    child = subprocess.Popen([sys.executable, "-m", "exportguard", "--db", pg_url, "ingest", str(SUMMARY_V51)],
                             cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    engine = sa.create_engine(pg_url.replace("postgresql://", "postgresql+psycopg://"))
    terminated = False
    deadline = time.monotonic() + 60
    with engine.connect() as admin:
        while child.poll() is None and time.monotonic() < deadline and not terminated:
            pid = admin.execute(sa.text(PG_WRITER_LOCK), {"k": store_module._ADVISORY_LOCK_ID}).scalar()
            if pid:  # the ingest holds the writers' lock: it is inside its transaction
                terminated = admin.execute(sa.text("SELECT pg_terminate_backend(:p)"), {"p": pid}).scalar()
            admin.commit()
            time.sleep(0.005)
    engine.dispose()
    out, err = child.communicate(timeout=60)
    assert terminated, "the ingest ended before its backend could be terminated"
    done = subprocess.CompletedProcess(child.args, child.returncode, out, err)
    assert_one_line_error(done, "v5.1_summary_results.json: not ingested", "could not be written",
                          "nothing of it was stored")
    with open_store(pg_url) as s:
        assert s.count() == before
        ingest_path(s, SUMMARY_V51)  # and the store works on
        assert s.count() > before


# --------------------------------------------------------------------------- writers waiting for each other


def test_a_writer_waits_for_another_says_so_and_gives_up_at_its_bound(store, store_url, tmp_path):
    source = made_up_rows(tmp_path / "rows.csv", ["WAIT-1"])
    with store.writing():  # another ingest, in the middle of its transaction
        started = time.monotonic()
        done = run(["--db", store_url, "ingest", "--wait", "1.5", source])
        waited = time.monotonic() - started
    line = assert_one_line_error(done, "rows.csv: not ingested", "waited for 1.5 s", "nothing was stored")
    assert "waiting for another writer" in done.stderr and "--wait" in line
    assert waited >= 1.5
    assert not store.results(submitter="Fault Test Co")


def test_a_writer_that_waits_long_enough_goes_on_when_the_other_is_done(store, store_url, tmp_path):
    source = made_up_rows(tmp_path / "rows.csv", ["WAIT-2"])
    with store.writing():
        child = subprocess.Popen([sys.executable, "-m", "exportguard", "--db", store_url, "ingest", "--wait", "120",
                                  str(source)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        said = child.stderr.readline()  # the lock is held until the other writer says that it waits
        assert said.startswith("waiting for another writer") and child.poll() is None, said
    out, err = child.communicate(timeout=120)
    assert child.returncode == 0, err
    assert "1 read = 1 added" in out


def test_the_cli_default_wait_is_the_stores():
    from exportguard import commands

    assert commands.WAIT_DEFAULT_S == store_module.DEFAULT_WAIT_S


# --------------------------------------------------------------------------- stopped by SIGTERM, and many writers at once


STOPPED_MID_TRANSACTION = """
import os, signal, sys
import exportguard.store as store_module
real = store_module.Store.put_results
def put_results(self, conn, results):
    os.kill(os.getpid(), signal.SIGTERM)  # as `timeout` or CI cancellation would, in the middle of the write
    return real(self, conn, results)
store_module.Store.put_results = put_results
from exportguard.cli import main
main(sys.argv[1:], prog_name="exportguard")
"""


def test_sigterm_in_the_middle_of_an_ingest_rolls_it_back_and_says_so(store, store_url):
    ingest_path(store, SUMMARY_V41)
    before = store.count()
    done = subprocess.run([sys.executable, "-c", STOPPED_MID_TRANSACTION, "--db", store_url, "ingest",
                           str(SUMMARY_V41), str(SUMMARY_V51)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 143
    assert_one_line_error(done, "stopped by SIGTERM", "nothing from", "v4.1_summary_results.json was stored")
    assert store.count() == before


def test_sigterm_during_the_commit_of_an_ingest_says_it_was_stored(sqlite_url):
    """SIGTERM as the commit syncs the log (strace injects it there): the commit completes, and the
    line says that it did, not that nothing was stored."""
    with open_store(sqlite_url) as s:
        ingest_path(s, SUMMARY_V41)
        before = s.count()
    done = run(["--db", sqlite_url, "ingest", SUMMARY_V51], inject="fdatasync:signal=TERM:when=1")
    assert done.returncode == 143, done.stderr
    assert_one_line_error(done, "stopped by SIGTERM", "all of", "v5.1_summary_results.json was stored")
    with open_store(sqlite_url) as s:
        assert s.count() > before


def test_four_ingests_at_once_all_land_once_each(store, store_url, tmp_path):
    sources = [made_up_rows(tmp_path / f"batch{i}.csv", [f"MANY-{i}-{k}" for k in range(5)]) for i in range(3)]
    children = [subprocess.Popen([sys.executable, "-m", "exportguard", "--db", store_url, "ingest", str(p)], cwd=ROOT,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for p in [SUMMARY_V51, *sources]]
    results = [(c.wait(timeout=300), *c.communicate()) for c in children]
    assert all(code == 0 for code, _, _ in results), [err for _, _, err in results]
    assert all("Traceback" not in err for _, _, err in results)
    (cohort,) = store.cohorts(**OFFLINE)
    assert cohort.total == 47 + 15 and len({r.conditions.identity.system_id for r in cohort.results
                                            if r.origin == "csv"}) == 15
