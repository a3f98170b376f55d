"""A PostgreSQL connection lost during an ingest (issue 31, item 6): the backend of `exportguard
ingest` terminated from another connection ends the command in one line that says which source
was being ingested, that the connection was lost, that nothing of that source was stored and how
many sources before it were; never a traceback or a driver's log line, never half a source.

Deterministic: the test holds the writers' advisory lock (store._ADVISORY_LOCK_ID) and lets the
sources through one at a time, so that the ingest is inside the transaction of its next source,
waiting for that lock, when its backend is terminated; or a hook in the child terminates its own
backend just before a batch insert, inside psycopg's pipeline."""
from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
import sqlalchemy as sa

import exportguard.store as store_module
from exportguard.ingest import ingest_path
from exportguard.store import open_store
from tests.conftest import SUMMARY_V41, SUMMARY_V51, TREE_V51
from tests.faults import ROOT, assert_one_line_error

pytestmark = pytest.mark.real_data

SOURCES = (TREE_V51, SUMMARY_V41, SUMMARY_V51)  # the quick one first: the others leave time to stop them
RUN_COUNT = sa.text("SELECT count(*) FROM ingest_runs")
CHILD_BACKENDS = sa.text("SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                         "AND pid <> pg_backend_pid()")


def _engine(url: str) -> sa.Engine:
    return sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://"), isolation_level="AUTOCOMMIT")


def _stored_runs(admin: sa.Connection) -> int:
    try:
        return admin.execute(RUN_COUNT).scalar()
    except sa.exc.ProgrammingError:  # the child has not made its tables yet
        return 0


LOCK = {"k": store_module._ADVISORY_LOCK_ID}


def _terminate_after(admin: sa.Connection, child: subprocess.Popen, stored: int) -> None:
    """Let ``stored`` sources through the writers' lock, one at a time, then, with the ingest inside
    its next source's transaction waiting for that lock, terminate every backend of the child.
    PostgreSQL grants a lock in the order it was asked for: asked while the child holds it for a
    source, the test has it back as that source commits, before the child asks for its next."""
    admin.execute(sa.text("SET lock_timeout = '40s'"))
    admin.execute(sa.text("SELECT pg_advisory_lock(:k)"), LOCK)
    try:
        for _ in range(stored):
            _until(child, lambda: _lock_holders(admin, granted=False))  # at its next source
            admin.execute(sa.text("SELECT pg_advisory_unlock(:k)"), LOCK)
            _until(child, lambda: _lock_holders(admin, granted=True))  # it has the lock now: ask for it back
            admin.execute(sa.text("SELECT pg_advisory_lock(:k)"), LOCK)
        _until(child, lambda: _lock_holders(admin, granted=False))
        for pid in admin.execute(CHILD_BACKENDS).scalars():
            admin.execute(sa.text("SELECT pg_terminate_backend(:p)"), {"p": pid})
    finally:
        admin.execute(sa.text("SELECT pg_advisory_unlock_all()"))


def _until(child: subprocess.Popen, condition) -> None:
    deadline = time.monotonic() + 40
    while not condition():
        assert child.poll() is None, f"the ingest ended first: {child.communicate()}"
        assert time.monotonic() < deadline, "the ingest never came to the writers' lock"
        time.sleep(0.001)


def _lock_holders(admin: sa.Connection, granted: bool) -> int:
    """Other sessions that hold (``granted``) or wait for the writers' lock."""
    return admin.execute(sa.text(
        "SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database WHERE d.datname = "
        "current_database() AND l.locktype = 'advisory' AND l.objid = :k AND l.granted = :g "
        "AND l.pid <> pg_backend_pid()"), {**LOCK, "g": granted}).scalar()


def _rows_of(admin: sa.Connection, path: str) -> dict[str, int]:
    return {table: admin.execute(sa.text(f"SELECT count(*) FROM {table} WHERE source_path = :p"), {"p": path}).scalar()
            for table in ("results", "result_sources", "quarantine", "ingest_runs")}


@pytest.mark.parametrize("stored", [0, 1, 2], ids=["first-source", "second-source", "third-source"])
def test_a_backend_terminated_during_an_ingest_ends_in_one_line_and_stores_nothing_of_that_source(pg_url, stored):
    with open_store(pg_url):
        pass  # the tables, so that the test can count the stored sources from the start
    child = subprocess.Popen([sys.executable, "-m", "exportguard", "--db", pg_url, "ingest", *map(str, SOURCES)],
                             cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    engine = _engine(pg_url)
    try:
        with engine.connect() as admin:
            _terminate_after(admin, child, stored)
            out, err = child.communicate(timeout=60)
            done = subprocess.CompletedProcess(child.args, child.returncode, out, err)
            before = _stored_runs(admin)
            assert before == stored  # the lock held it at the start of the next source
            killed = str(SOURCES[before])
            line = assert_one_line_error(done, f"{killed}: not ingested: the PostgreSQL connection", "was lost",
                                         "could not be written: nothing of it was stored")
            assert (f"the {before} source(s) before it were stored" in line) == bool(before), line
            assert set(_rows_of(admin, killed).values()) == {0}, "half a source was stored"
    finally:
        if child.poll() is None:
            child.kill()
        engine.dispose()
    with open_store(pg_url) as s:  # and the store works on: the source lost is ingested whole
        report = ingest_path(s, killed)
        assert report.reconciles and report.recorded


# The command line with a hook that terminates its own backend just before its Nth batch insert of
# results: inside psycopg's pipeline, where the driver also logs "error ignored terminating <Pipeline>"
# (a second line on stderr before issue 31).
TERMINATE_BEFORE_BATCH = """
import os, sys, psycopg, sqlalchemy as sa
seen = [0]
@sa.event.listens_for(sa.Engine, "before_cursor_execute")
def terminate(conn, cursor, statement, params, context, executemany):
    if executemany and statement.lstrip().upper().startswith("INSERT INTO RESULTS "):
        seen[0] += 1
        if seen[0] == int(os.environ["EG_TERMINATE_AT"]):
            with psycopg.connect(os.environ["EG_ADMIN"], autocommit=True) as admin:
                admin.execute("SELECT pg_terminate_backend(%s)", (conn.connection.dbapi_connection.info.backend_pid,))
from exportguard.cli import main
main(prog_name="exportguard")
"""


@pytest.mark.parametrize("batch", [1, 2], ids=["first-source", "second-source"])
def test_a_backend_terminated_inside_a_batch_insert_ends_in_one_line(pg_url, batch):
    from tests.conftest import PG_URL

    with open_store(pg_url):
        pass
    done = subprocess.run([sys.executable, "-c", TERMINATE_BEFORE_BATCH, "--db", pg_url, "ingest",
                           *map(str, SOURCES)], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "EG_TERMINATE_AT": str(batch), "EG_ADMIN": PG_URL})
    engine = _engine(pg_url)
    try:
        with engine.connect() as admin:
            before = _stored_runs(admin)
            killed = str(SOURCES[before])
            assert before == batch - 1 and set(_rows_of(admin, killed).values()) == {0}
    finally:
        engine.dispose()
    line = assert_one_line_error(done, f"{killed}: not ingested: the PostgreSQL connection", "was lost",
                                 "nothing of it was stored")
    assert (f"the {before} source(s) before it were stored" in line) == bool(before), line


def test_a_lost_connection_is_told_apart_from_other_store_faults():
    """The words come from the driver's SQLSTATE too: the server's notice (57P01) may reach the driver
    before it sees the socket close, when SQLAlchemy does not yet call the connection invalidated."""
    from exportguard.errors import StoreError
    from exportguard.ingest import lost_connection

    class Terminated(Exception):
        sqlstate = "57P01"

    def raised(orig: Exception, invalidated: bool) -> StoreError:
        try:
            try:
                raise sa.exc.OperationalError("SELECT 1", {}, orig, connection_invalidated=invalidated)
            except sa.exc.OperationalError:
                raise StoreError("could not be written") from None
        except StoreError as e:
            return e

    assert lost_connection(raised(Terminated("terminating connection due to administrator command"), False)) == \
        "terminating connection due to administrator command"
    assert lost_connection(raised(OSError("server closed the connection unexpectedly\nThis probably..."), True)) == \
        "server closed the connection unexpectedly"
    assert lost_connection(raised(OSError("disk full"), False)) == ""
    assert lost_connection(StoreError("the store is read-only")) == ""


def _lost_after_commit(original):
    """Store.writing whose transaction commits and whose connection is then lost, as when the server
    ends a backend between its commit and the reply: the client cannot tell which came first."""
    from contextlib import contextmanager

    from exportguard.errors import StoreError

    @contextmanager
    def writing(self):
        with original(self) as conn:
            yield conn
        try:
            raise sa.exc.OperationalError("COMMIT", {}, Exception("server closed the connection unexpectedly"),
                                          connection_invalidated=True)
        except sa.exc.OperationalError:
            raise StoreError(f"{self.display_url}: could not be written") from None
    return writing


def test_a_connection_lost_after_the_commit_asks_the_store_what_landed(pg_url, monkeypatch):
    import exportguard as eg
    from exportguard.store import Store

    with eg.open_store(pg_url) as s:
        monkeypatch.setattr(Store, "writing", _lost_after_commit(Store.writing))
        [report] = eg.ingest_sources(s, SUMMARY_V41)  # it landed: the report stands, no error
        assert report.added > 0 and report.recorded
        monkeypatch.setattr(Store, "ingest_runs", lambda self: (_ for _ in ()).throw(eg.StoreError("unreachable")))
        with pytest.raises(eg.StoreError) as raised:
            eg.ingest_sources(s, TREE_V51)  # and when the store cannot be asked again, it says so
        message = str(raised.value)
        assert "may have been stored" in message and "ingest it again" in message
        assert "nothing of it was stored" not in message
        assert [r.added for r in raised.value.ingested] == []
