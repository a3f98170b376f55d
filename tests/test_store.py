"""The store refuses unbound rows, knows its schema version, and serialises concurrent writers."""
from __future__ import annotations

import dataclasses
import os
import subprocess
import sys

import pytest
import sqlalchemy as sa

from exportguard.errors import StoreError
from exportguard.ingest import ingest_path
from exportguard.store import SCHEMA_VERSION, _result_to_row, _row_to_result, meta_table, open_store, results_table
from exportguard.store_vocabulary import broken_rule
from tests.conftest import SUMMARY_V51, TREE_V51

pytestmark = pytest.mark.real_data


@pytest.fixture
def one_row(store):
    ingest_path(store, TREE_V51)
    (r,) = store.results(submitter="AMD", benchmark="llama2-70b-99", scenario="Offline")
    row = _result_to_row(r)
    row["system_id"] = "another-system"  # a fresh natural key, so only the constraint under test can fail
    return row


UNBOUND = {
    "value zero": {"value": 0},
    "negative value": {"value": -1.0},
    "unknown unit": {"unit": "tok/hour"},
    "unknown scenario": {"scenario": "Batch"},
    "missing scenario": {"scenario": None},
    "missing round": {"round": None},
    "official state without an ID": {"result_id": "", "result_id_state": "official"},
    "ID without official state": {"result_id": "5.1-9999", "result_id_state": "pending"},
    "official but unverified": {"result_id": "5.1-9999", "result_id_state": "official", "verified": "unverified"},
    "tokens per sample without its basis": {"tokens_per_sample_basis": "not reported"},
    "Server without latency bounds": {"scenario": "Server", "ttft_bound_ms": None, "tpot_bound_ms": None},
    "no dataset": {"dataset": ""},
    "no accelerator text": {"accelerator": ""},
    "zero nodes": {"nodes": 0},
    "short sha256": {"source_sha256": "abc"},
    "MLPerf row without division": {"division": "n/a"},
}


@pytest.mark.parametrize("change", UNBOUND.values(), ids=UNBOUND.keys())
def test_the_schema_refuses_a_row_without_its_conditions(store, one_row, change):
    row = {**one_row, **change}
    with pytest.raises(sa.exc.IntegrityError):
        with store.writing() as conn:
            if broken_rule(row) and None not in change.values():  # a word outside a vocabulary: the store
                store.put_result(conn, _row_to_result(row))  # refuses it on write (not the DDL: no schema change)
            conn.execute(results_table.insert().values(**row))


def test_the_same_row_with_all_conditions_is_accepted(store, one_row):
    with store.writing() as conn:
        conn.execute(results_table.insert().values(**one_row))
    assert store.count() == 52


def test_a_store_of_another_schema_version_is_a_clear_error(store_url):
    s = open_store(store_url)
    with s.writing() as conn:
        conn.execute(meta_table.update().values(value="99"))
    s.close()
    with pytest.raises(StoreError, match=f"schema version 99.*uses version {SCHEMA_VERSION}"):
        open_store(store_url)


def test_a_database_that_is_not_a_store_is_refused(sqlite_url):
    engine = sa.create_engine(sqlite_url)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE results (x INTEGER)")
    engine.dispose()
    with pytest.raises(StoreError, match="not an exportguard store"):
        open_store(sqlite_url)


def test_an_unsupported_url_is_a_clear_error():
    with pytest.raises(StoreError, match="unsupported database"):
        open_store("mysql://localhost/x")


def test_sqlite_store_runs_in_wal_mode(sqlite_url):
    s = open_store(sqlite_url)
    with s.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    s.close()


def test_default_store_is_an_sqlite_file_under_xdg_data_home(monkeypatch, tmp_path):
    from exportguard.store import default_url

    monkeypatch.delenv("EXPORTGUARD_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_url() == f"sqlite:///{tmp_path}/exportguard/exportguard.db"
    monkeypatch.setenv("EXPORTGUARD_DB", "postgresql://db/x")
    assert default_url() == "postgresql://db/x"


def test_every_stored_row_records_where_it_came_from(store):
    ingest_path(store, SUMMARY_V51)
    for r in store.results():
        p = r.conditions.provenance
        assert p.source_kind == "mlperf_summary" and len(p.source_sha256) == 64
        assert p.source_locator.startswith(str(SUMMARY_V51)) and p.retrieved_on and p.ingested_at
        assert p.source_url.startswith("https://github.com/mlcommons/inference_results_v5.1")
    runs = store.ingest_runs()
    assert runs[-1]["rows_read"] == 1448


_INGEST_SCRIPT = """
import sys
from exportguard.store import open_store
from exportguard.ingest import ingest_path
store = open_store(sys.argv[1])
for path in sys.argv[2:]:
    r = ingest_path(store, path)
    assert r.reconciles, r
print("ok")
"""


@pytest.mark.slow
def test_two_processes_ingesting_at_once_neither_fail_nor_duplicate(store_url):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    procs = [subprocess.Popen([sys.executable, "-c", _INGEST_SCRIPT, store_url, str(TREE_V51), str(SUMMARY_V51)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) for _ in range(2)]
    outcomes = [p.communicate(timeout=300) for p in procs]
    for p, (out, err) in zip(procs, outcomes):
        assert p.returncode == 0, err
        assert "database is locked" not in err
    s = open_store(store_url)
    assert s.count() == 351
    with s.engine.connect() as conn:
        dupes = conn.execute(sa.select(sa.func.count()).select_from(
            sa.select(results_table.c.round, results_table.c.division, results_table.c.submitter_key,
                      results_table.c.system_id, results_table.c.benchmark, results_table.c.scenario)
            .group_by(results_table.c.round, results_table.c.division, results_table.c.submitter_key,
                      results_table.c.system_id, results_table.c.benchmark, results_table.c.scenario)
            .having(sa.func.count() > 1).subquery())).scalar_one()
    assert dupes == 0
    s.close()


def test_results_are_immutable_values(store):
    ingest_path(store, TREE_V51)
    r = store.results()[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.value = 1.0
