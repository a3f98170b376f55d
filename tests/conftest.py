"""Shared fixtures: the real MLPerf data in shared/mlperf, and stores on SQLite and PostgreSQL.

PostgreSQL: EXPORTGUARD_TEST_PG_URL names a server (e.g. postgresql://postgres@127.0.0.1:5432/test);
each test gets a database of its own there. Without it the PostgreSQL cases skip with that reason,
except under CI (CI=true), where a missing server is a failure, not a skip.
"""
from __future__ import annotations

import os
import tempfile
import uuid
from pathlib import Path

import pytest
from hypothesis import configuration as _hypothesis_configuration

# The helper modules the tests share (no test module imports another: tests/test_suite_layout.py) assert
# with plain `assert`; registered before any of them is imported, their failures say what differs.
pytest.register_assert_rewrite("tests.bad_sources", "tests.faults", "tests.golden_files", "tests.office",
                               "tests.pdf_pages", "tests.ranks")

# Tests write only under temporary folders: Hypothesis keeps its examples there too, not in ./.hypothesis.
_hypothesis_configuration.set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "exportguard-hypothesis")

REPO = Path(__file__).resolve().parents[1]  # the repository: examples/, templates/, tests/golden/
# resolved: the store keeps the real path of each file it reads, and a newcomer may link ../shared
SHARED = Path(os.environ.get("EXPORTGUARD_SHARED", Path(__file__).resolve().parents[2] / "shared")).resolve()
MLPERF = SHARED / "mlperf"
TREE_V51 = MLPERF / "submissions" / "v5.1"
SUMMARY_V51 = MLPERF / "summaries" / "v5.1_summary_results.json"
SUMMARY_V41 = MLPERF / "summaries" / "v4.1_summary_results.json"
PG_URL = os.environ.get("EXPORTGUARD_TEST_PG_URL", "")
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def pytest_collection_modifyitems(config, items):
    if MLPERF.is_dir() or not any("real_data" in item.keywords for item in items):
        return
    if IN_CI:
        raise pytest.UsageError(f"CI=true but the real MLPerf data is not at {MLPERF}: set EXPORTGUARD_SHARED "
                                "(the tests run on real data and must not skip under CI)")
    skip = pytest.mark.skip(reason=f"real MLPerf data not found at {MLPERF} (set EXPORTGUARD_SHARED)")
    for item in items:
        if "real_data" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def sqlite_url(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'store.db'}"


@pytest.fixture
def pg_url():
    """A fresh, empty PostgreSQL database for one test, dropped afterwards."""
    if not PG_URL:
        if IN_CI:
            pytest.fail("CI=true but EXPORTGUARD_TEST_PG_URL is not set: the PostgreSQL store tests must run in CI")
        pytest.skip("no PostgreSQL server configured (set EXPORTGUARD_TEST_PG_URL)")
    import psycopg

    admin = PG_URL.replace("postgresql+psycopg://", "postgresql://")
    name = f"eg_test_{uuid.uuid4().hex[:12]}"
    try:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
    except psycopg.OperationalError as e:
        if IN_CI:
            pytest.fail(f"PostgreSQL at {PG_URL} is not reachable under CI: {e}")
        pytest.skip(f"PostgreSQL at {PG_URL} is not reachable: {e}")
    base, _, _ = admin.rpartition("/")
    yield f"{base}/{name}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request, tmp_path):
    """Each store test runs on both backends."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.db'}"
    return request.getfixturevalue("pg_url")


@pytest.fixture
def store(store_url):
    from exportguard.store import open_store

    s = open_store(store_url)
    yield s
    s.close()


@pytest.fixture(scope="session")
def v51_store(tmp_path_factory):
    """One SQLite store holding the real v5.1 summary and tree, shared by the tests that only read."""
    from exportguard.ingest import ingest_path
    from exportguard.store import open_store

    s = open_store(f"sqlite:///{tmp_path_factory.mktemp('v51') / 'store.db'}")
    ingest_path(s, SUMMARY_V51)
    ingest_path(s, TREE_V51)
    yield s
    s.close()


@pytest.fixture(scope="module")
def fixed_store(tmp_path_factory):
    """A store of its own, ingested with a fixed retrieval date (the default is the files'
    modification date, which a fresh copy of the data changes): the golden tests' (tests/golden_files.py)."""
    from exportguard.ingest import ingest_path
    from exportguard.store import open_store

    store = open_store(f"sqlite:///{tmp_path_factory.mktemp('golden_store') / 'store.db'}")
    ingest_path(store, SUMMARY_V51, retrieved_on="2025-01-15")
    ingest_path(store, TREE_V51, retrieved_on="2025-01-15")
    yield store
    store.close()


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """The real v5.1 summary, every own-traffic result file, and three repeated runs of one configuration
    (tests/own_runs.py)."""
    from exportguard.ingest import ingest_path
    from exportguard.store import open_store
    from tests.own_runs import BASE, OWN, own_csv

    folder = tmp_path_factory.mktemp("mixed")
    s = open_store(f"sqlite:///{folder / 'store.db'}")
    ingest_path(s, SUMMARY_V51)
    for path in sorted(OWN.rglob("*.json*")):
        ingest_path(s, path)
    rows = [BASE | dict(value=v, run_id=f"run-{n}", mean_input_tokens=i)
            for n, (v, i) in enumerate((("781.2", "550.1"), ("774.0", "548.7"), ("779.9", "551.0")))]
    ingest_path(s, own_csv(folder, rows))
    yield s
    s.close()


def pytest_addoption(parser):
    parser.addoption("--regen-golden", action="store_true", default=False,
                     help="rewrite the golden files under tests/golden/ (tests/test_deterministic.py)")


def notes_in(texts) -> dict[str, str]:
    """mark -> note, for the notes in ``texts`` as the checker finds them (check/evaluate.NOTE_START):
    '[a] ...' opening a line, or run on after the sentence before it ('... (summary table). [b] ...')."""
    from exportguard.check.evaluate import NOTE_START

    out: dict[str, str] = {}
    for text in texts:
        starts = list(NOTE_START.finditer(text))
        for m, after in zip(starts, starts[1:] + [None]):
            out[m.group(1)] = text[m.start():after.start() if after else len(text)].strip()
    return out
