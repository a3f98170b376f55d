"""Who may open a store and how: readers never wait for a writer, files that are not stores are
refused (never extended), read-only stores still read, and no message shows a secret of the URL."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
import sqlalchemy as sa

from exportguard.errors import StoreError
from exportguard.ingest import ingest_path
from exportguard.store import mask_url, open_store
from tests.conftest import TREE_V51

pytestmark = pytest.mark.real_data
HANG_GUARD_S = 45  # a reader that waited for the writer's lock would block until the writer ends (never, here)


def _list_in_another_process(url: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "exportguard", "--db", url, "list", "--submitter", "AMD"],
                          capture_output=True, text=True, timeout=HANG_GUARD_S)


def test_readers_run_while_a_writer_holds_the_store(store, store_url):
    ingest_path(store, TREE_V51)
    with store.writing() as conn:  # an ingest in progress: the write lock is held until the block ends
        conn.execute(sa.text("SELECT 1"))
        done = _list_in_another_process(store_url)
    assert done.returncode == 0, done.stderr
    assert "llama2-70b-99 Offline" in done.stdout and "tok/s" in done.stdout


def test_a_file_that_is_not_sqlite_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "notes.db"
    path.write_bytes(b"my notes, not a database\n" * 10)
    with pytest.raises(StoreError, match="not an SQLite database"):
        open_store(f"sqlite:///{path}")
    assert path.read_bytes() == b"my notes, not a database\n" * 10


def test_a_corrupt_sqlite_file_is_a_clear_error(tmp_path):
    path = tmp_path / "corrupt.db"
    path.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)
    with pytest.raises(StoreError, match="cannot open the store"):
        open_store(f"sqlite:///{path}")


def test_another_applications_database_is_never_extended(store_url):
    engine = sa.create_engine(store_url.replace("postgresql://", "postgresql+psycopg://"))
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE invoices (id INTEGER)")
    engine.dispose()
    with pytest.raises(StoreError, match="not an exportguard store .*invoices"):
        open_store(store_url)
    engine = sa.create_engine(store_url.replace("postgresql://", "postgresql+psycopg://"))
    assert sa.inspect(engine).get_table_names() == ["invoices"]
    engine.dispose()


def test_a_read_only_store_still_reads_and_says_why_it_cannot_ingest(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'store.db'}"
    with open_store(url) as s:
        ingest_path(s, TREE_V51)
    # Tests run as root, for whom file modes do not bind: simulate the permissions a user would see.
    import exportguard.store as store_module

    real_access = os.access
    monkeypatch.setattr(store_module.os, "access",
                        lambda p, mode: False if mode & os.W_OK and "store.db" in str(p) or str(p) == str(tmp_path)
                        else real_access(p, mode))
    with open_store(url) as s:
        assert s.read_only and len(s.results(submitter="AMD")) == 6
        with pytest.raises(StoreError, match="read-only"):
            ingest_path(s, TREE_V51)


SECRET_URLS = [
    "postgresql://analyst:s3cretpw@127.0.0.1:1/results?sslpassword=topsecret",
    "postgresql://analyst:s3cretpw@127.0.0.1:notaport/results",
    "postgresql://analyst:s3cretpw@127.0.0.1:5432/no_such_db?application_name=topsecret",
    "mysql://analyst:s3cretpw@host/db?token=topsecret",
]


@pytest.mark.parametrize("url", SECRET_URLS)
def test_no_message_shows_a_password_or_query_value(url):
    with pytest.raises(StoreError) as e:
        open_store(url)
    assert "s3cretpw" not in str(e.value) and "topsecret" not in str(e.value)
    assert "analyst" in str(e.value) or "not a database URL" in str(e.value)


def test_mask_url_keeps_what_locates_the_store():
    assert mask_url("sqlite:////var/lib/eg/store.db") == "sqlite:////var/lib/eg/store.db"
    assert mask_url("postgresql://u:p@h:5432/db?sslmode=require&password=x") == \
        "postgresql://u:***@h:5432/db?sslmode=***&password=***"
