"""Stores made by the real earlier exportguard (tests/fixtures/stores, rebuilt by its rebuild.py) upgrade
to this one's schema on SQLite and PostgreSQL with nothing lost; a stop at any step leaves a whole
version; concurrent upgrades migrate once; the vocabularies are out of the DDL.

    CI=true EXPORTGUARD_TEST_PG_URL=postgresql://postgres@127.0.0.1:5432/test \\
        .venv/bin/python -m pytest -q tests/test_store_upgrade.py
"""
from __future__ import annotations

import csv
import gzip
import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
import sqlalchemy as sa

from exportguard import model
from exportguard.store import SCHEMA_VERSION, meta_table, open_store
from tests.conftest import PG_URL, SHARED

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "stores"
REPO = Path(__file__).resolve().parents[1]
VERSIONS = (1, 2, 3)
TABLES = ("results", "result_sources", "quarantine", "ingest_runs")

sys.path.insert(0, str(FIXTURES))
import rebuild  # noqa: E402  (the fixtures' own recipe: which files each version's store was made from)

sys.path.remove(str(FIXTURES))

pytestmark = pytest.mark.real_data


# -- fixtures: an earlier store on each engine -------------------------------------------------------

def _engine_url(engine: str, version: int, tmp_path: Path, request) -> str:
    """The fixture store of ``version`` (the test's PostgreSQL database, or a file under tmp_path)."""
    if engine == "sqlite":
        path = tmp_path / f"v{version}.db"
        with gzip.open(FIXTURES / f"v{version}.db.gz", "rb") as f:
            path.write_bytes(f.read())
        return f"sqlite:///{path}"
    url = request.getfixturevalue("pg_url")
    _load_sql(url, FIXTURES / f"v{version}.pg.sql.gz")
    return url


@pytest.fixture
def another_database(request):
    """A second empty store location beside the test's: ``make(engine, tmp_path)`` -> URL."""
    made = []

    def make(engine: str, where: Path) -> str:
        if engine == "sqlite":
            where.mkdir(parents=True, exist_ok=True)
            return f"sqlite:///{where / 'other.db'}"
        import psycopg

        base = request.getfixturevalue("pg_url")
        name = f"{base.rsplit('/', 1)[1]}_{len(made)}"
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        made.append((base, name))
        return f"{base.rsplit('/', 1)[0]}/{name}"

    yield make
    import psycopg

    for _base, name in made:  # through the server's admin database: the test's own may be dropped already
        with psycopg.connect(PG_URL.replace("postgresql+psycopg://", "postgresql://"), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _load_sql(url: str, dump: Path) -> None:
    """A pg_dump script into the (empty) database at ``url``; its psql meta-commands (\\restrict) left out."""
    import psycopg

    text = gzip.open(dump, "rt", encoding="utf-8").read()
    script = "\n".join(line for line in text.splitlines() if not line.startswith("\\"))
    with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True) as conn:
        conn.execute(script)


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request):
    return request.param


def _cli(url: str, *args: str, env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k != "EXPORTGUARD_AUTO_UPGRADE"}
    environment.update(EXPORTGUARD_DB=url, **(env or {}))
    return subprocess.run([sys.executable, "-m", "exportguard", *args], cwd=REPO, env=environment,
                          capture_output=True, text=True, timeout=timeout)


def _dbapi_url(url: str) -> str:
    return "postgresql+psycopg://" + url.split("://", 1)[1] if url.startswith("postgresql://") else url


def _rows(url: str) -> dict[str, dict[int, dict]]:
    """Every row of every table, by id, as the database holds it (whatever the schema version)."""
    engine = sa.create_engine(_dbapi_url(url))
    try:
        with engine.connect() as conn:
            return {t: {r["id"]: dict(r) for r in conn.exec_driver_sql(f"SELECT * FROM {t}").mappings()}
                    for t in TABLES}
    finally:
        engine.dispose()


def _version(url: str) -> int:
    engine = sa.create_engine(_dbapi_url(url))
    try:
        with engine.connect() as conn:
            return int(conn.execute(sa.select(meta_table.c.value).where(meta_table.c.key == "schema_version")).scalar())
    finally:
        engine.dispose()


def _schema(url: str) -> dict:
    """The tables as the database describes them: columns (by name: a column added by ALTER comes last),
    their types and nullability, CHECK constraints, unique constraints and indexes."""
    engine = sa.create_engine(_dbapi_url(url))
    try:
        with engine.connect() as conn:
            inspector = sa.inspect(conn)
            out = {}
            for t in sorted(inspector.get_table_names()):
                out[t] = dict(
                    columns={c["name"]: (str(c["type"]), c["nullable"]) for c in inspector.get_columns(t)},
                    checks={c["name"]: _same_sql(c["sqltext"]) for c in inspector.get_check_constraints(t)},
                    unique={u["name"]: tuple(u["column_names"]) for u in inspector.get_unique_constraints(t)},
                    indexes={i["name"]: (tuple(i["column_names"]), bool(i["unique"]))
                             for i in inspector.get_indexes(t)})
            return out
    finally:
        engine.dispose()


def _same_sql(text: str) -> str:
    """A CHECK's text as PostgreSQL gives it back, without what a dump and restore changes in it (the
    casts and parentheses it deparses, then parses and deparses again): the condition, not its spelling."""
    return re.sub(r"::[a-z ]+(\[\])?|[()\s]", "", text)


def _fresh_store(engine: str, tmp_path: Path, request, version: int, leave_out: tuple[str, ...] = ()) -> str:
    """A store made by this exportguard from the files the version's fixture was made from (but those
    named in ``leave_out``)."""
    url = f"sqlite:///{tmp_path / 'fresh.db'}" if engine == "sqlite" else request.getfixturevalue("pg_url")
    for args in rebuild.ingests(version):
        if Path(args[0]).name in leave_out:
            continue
        done = _cli(url, "ingest", *args)
        assert done.returncode in (0, 1), done.stderr  # 1: the CSV's refused row, the fixtures' quarantine row
    return url


PROVENANCE = ("source_kind", "source_path", "source_sha256", "source_locator", "ingested_at")
MLCOMMONS_KINDS = ("mlperf_tree", "mlperf_summary")


def _moved(before: dict) -> tuple[set, set]:
    """The rows the upgrade to schema 3 moves to the quarantine: the non-MLPerf results of a store of
    schema 1 or 2 (their pks; own runs came with schema 3) and their sources (their result_sources pks)."""
    results = {pk for pk, r in before["results"].items() if not r["mlperf"] and r.get("origin") != "own"}
    return results, {pk for pk, s in before["result_sources"].items() if s["result_pk"] in results}


def _merged(before: dict) -> dict[int, dict]:
    """Schema 1's merged rows whose stored provenance is a CSV row, each with its first MLCommons source
    (what schema 2 makes its provenance)."""
    first = {}
    for pk, source in sorted(before["result_sources"].items()):
        if source["source_kind"] in MLCOMMONS_KINDS:
            first.setdefault(source["result_pk"], source)
    return {pk: first[pk] for pk, r in before["results"].items() if r["source_kind"] == "csv" and pk in first}


def _expected_sizes(before: dict, version: int) -> dict[str, int]:
    """The tables' sizes once a store of ``before`` is at schema ``version``: from 3 on, each non-MLPerf
    row is a quarantine row per source."""
    sizes = {t: len(v) for t, v in before.items()}
    if version >= 3:
        results, sources = _moved(before)
        sizes["results"] -= len(results)
        sizes["result_sources"] -= len(sources)
        sizes["quarantine"] += len(sources)
    return sizes


def _sources_of(rows: dict, pk: int) -> list[dict]:
    return [s for _id, s in sorted(rows["result_sources"].items()) if s["result_pk"] == pk]


# -- every earlier store upgrades, keeping every row ------------------------------------------------

@pytest.mark.parametrize("version", VERSIONS)
def test_every_earlier_store_upgrades_keeping_every_row(engine, version, tmp_path, request):
    url = _engine_url(engine, version, tmp_path, request)
    before = _rows(url)
    assert all(before[t] for t in TABLES)  # the fixture holds a row of every kind (a quarantined one too)
    done = _cli(url, "store", "upgrade")
    assert done.returncode == 0, done.stderr
    assert f"upgraded from schema version {version} to {SCHEMA_VERSION}" in done.stdout
    for n in range(version + 1, SCHEMA_VERSION + 1):
        assert f"schema {n - 1} -> {n}:" in done.stderr
    assert _version(url) == SCHEMA_VERSION
    after = _rows(url)
    moved, moved_sources = _moved(before)
    merged = _merged(before)
    if version < 3:  # the fixture holds what the upgrade must carry over: rows schema 3 cannot hold
        assert len(moved) == 2 and len(moved_sources) == 3
    assert bool(merged) == (version == 1)  # and a CSV row schema 1 merged with a publication
    assert after["results"].keys() == before["results"].keys() - moved
    assert after["result_sources"].keys() == before["result_sources"].keys() - moved_sources
    assert after["quarantine"].keys() > before["quarantine"].keys() or not moved
    assert after["ingest_runs"].keys() == before["ingest_runs"].keys()
    for table in TABLES:
        for pk, old in before[table].items():
            if pk not in after[table]:
                continue
            new = after[table][pk]
            if table == "results" and pk in merged:  # a publication now: its first MLCommons source cites it
                old = {**old, **{k: merged[pk][k] for k in PROVENANCE}}
            # every column the earlier store had keeps its value (the added ones are '' or NULL, or origin)
            assert {k: new[k] for k in old} == old, (table, pk)
    added = [q for pk, q in after["quarantine"].items() if pk not in before["quarantine"]]
    assert len(added) == len(moved_sources) and {q["reason"] for q in added} <= {"schema_upgrade"}
    for pk, row in after["results"].items():
        if version < 2:  # origin, which schema 2 added: the CSV row is the user's, the rest publications
            assert row["origin"] == ("csv" if row["source_kind"] == "csv" else "mlcommons")
        if version < 3:
            assert (row["tool"], row["run_id"], row["cohort"], row["mean_input_tokens"]) == ("", "", "", None)
    if version >= 3:  # the own run keeps what only the store knows: its --system description
        (own,) = [r for r in after["results"].values() if r["origin"] == "own"]
        assert (own["submitter"], own["system_name"], own["accelerator"], own["framework"]) == (
            "ACME performance team", "lab-h100-01", "NVIDIA H100-SXM-80GB", "vLLM 0.6.3")
        assert own["server_settings"] == "--tensor-parallel-size 8 --max-num-seqs 256"
    if engine == "sqlite":
        assert not list(tmp_path.glob("*.bak")), "the copy is removed once the upgrade committed"
        assert f"{url.removeprefix('sqlite:///')}.schema-{version}.bak" in done.stderr  # named while it was kept
    counts = [line for line in done.stdout.splitlines() if "before:" in line or "after:" in line]
    assert len(counts) == 2
    # results (own runs), sources, quarantined rows, ingest runs, as the store held them before and after
    said = [[int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*", line.split(":", 1)[1])] for line in counts]
    sizes = _expected_sizes(before, SCHEMA_VERSION)
    assert said[0][:1] + said[0][2:] == [len(before[t]) for t in TABLES]
    assert said[1][:1] + said[1][2:] == [sizes[t] for t in TABLES]


@pytest.mark.parametrize("version", VERSIONS)
def test_an_upgraded_store_has_the_schema_of_a_new_one(engine, version, tmp_path, request, another_database):
    url = _engine_url(engine, version, tmp_path, request)
    assert _cli(url, "store", "upgrade").returncode == 0
    fresh = another_database(engine, tmp_path / "new")
    open_store(fresh).close()
    assert _schema(url) == _schema(fresh)


@pytest.mark.parametrize("version", VERSIONS)
def test_an_export_from_an_upgraded_store_equals_one_from_a_fresh_ingest(version, tmp_path, request):
    upgraded = _engine_url("sqlite", version, tmp_path, request)
    # Schema 1 merged a user's CSV row into the publication of its key: the upgraded store holds one row
    # for both, a fresh one two (a CSV row and a publication). The fresh store is made without those CSV
    # files; the merged row whose CSV came first is compared on its own below. The non-MLPerf CSV rows
    # of schemas 1 and 2 are quarantined by the upgrade, and refused by this exportguard's CSV reader.
    fresh = _fresh_store("sqlite", tmp_path, request, version, leave_out=MERGED_CSVS)
    outputs = []
    for url, name in ((upgraded, "upgraded"), (fresh, "fresh")):
        out = tmp_path / f"{name}.csv"
        done = _cli(url, "export", "--upgrade", "--split-by-cohort", "--to", str(out))
        assert done.returncode == 0, done.stderr
        outputs.append(out.read_bytes())
    # Every figure with its conditions, band, citation and retrieval date: the same. (What the export
    # does not show, the ingest times, differs: the fixture's store was made earlier.)
    if version > 1:
        assert outputs[0] == outputs[1]
        return
    # One difference, of the earlier importer's reading, not of the upgrade: where the v5.1 summary
    # leaves a system's name blank, schema 1's code named it from its accelerator and framework
    # ("(4x GB200-186GB_aarch64, TensorRT)"), later code from its Platform, with a correction note. The
    # store keeps what its importer stored; an upgrade does not read the sources again.
    upgraded, new = (list(csv.DictReader(io.StringIO(o.decode("utf-8-sig")))) for o in outputs)
    assert len(upgraded) == len(new)
    renamed = 0
    (typed,) = _csv_rows(FIXTURES / "user-rows-v1.csv")  # read before the summary: the stored row is the CSV's
    kept_typed = 0
    for old_row, new_row in zip(upgraded, new):
        differ = {k for k in new_row if old_row[k] != new_row[k]}
        if differ and old_row["source_url"] == typed["source_url"]:
            # the publication (its result ID, verified, the summary's tokens per sample) as the user typed
            # it: the system's name, the source URL and its retrieval date are the CSV row's
            assert differ == {"system", "notes", "source_url", "retrieved_on"}, differ
            assert (old_row["system"], old_row["retrieved_on"]) == (typed["system_name"], typed["retrieved_on"])
            assert (old_row["result_id"], old_row["verified"]) == (new_row["result_id"], "verified")
            assert old_row["value"] == new_row["value"] and old_row["rank"] == new_row["rank"]
            kept_typed += 1
        elif differ:
            assert differ == {"system", "notes"}, differ
            assert "system name blank in the summary, taken from Platform" in new_row["notes"]
            assert old_row["notes"] == new_row["notes"].replace(
                f" Corrected: system name blank in the summary, taken from Platform {new_row['system']}.", "")
            renamed += 1
    assert renamed == sum("system name blank in the summary" in r["notes"] for r in new) > 0
    assert kept_typed == 1


MERGED_CSVS = ("user-rows-v1.csv", "user-rows-v1-after.csv")


def _csv_rows(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


# -- rows a later schema holds otherwise ------------------------------------------------------------

def test_a_csv_row_schema_1_merged_with_a_publication_stays_one_publication_with_both_sources(engine, tmp_path,
                                                                                             request):
    url = _engine_url(engine, 1, tmp_path, request)
    before = _rows(url)
    by_file = {}
    for source in before["result_sources"].values():
        if Path(source["source_path"]).name in MERGED_CSVS:
            by_file[Path(source["source_path"]).name] = source["result_pk"]
    first, later = by_file["user-rows-v1.csv"], by_file["user-rows-v1-after.csv"]
    # as schema 1 stored them: one row each, its sources the CSV row and the summary's row
    assert before["results"][first]["source_kind"] == "csv"  # read first: the CSV row is the stored one
    assert before["results"][later]["source_kind"] == "mlperf_summary"
    assert _cli(url, "store", "upgrade").returncode == 0
    after = _rows(url)
    for pk, typed in ((first, _csv_rows(FIXTURES / "user-rows-v1.csv")[0]),
                      (later, _csv_rows(FIXTURES / "user-rows-v1-after.csv")[0])):
        row = after["results"][pk]
        assert (row["origin"], bool(row["mlperf"]), row["result_id_state"], row["verified"]) == (
            "mlcommons", True, "official", "verified")
        assert row["result_id"] == before["results"][pk]["result_id"] != ""
        # one result for the key, no user row beside it: nothing was split off or doubled
        key = ("system_id", "submitter_key", "benchmark", "scenario", "round", "division")
        assert [r["id"] for r in after["results"].values() if all(r[k] == row[k] for k in key)] == [pk]
        # both its sources, as they were
        sources = _sources_of(after, pk)
        assert sources == _sources_of(before, pk)
        assert sorted(s["source_kind"] for s in sources) == ["csv", "mlperf_summary"]
        (summary,) = [s for s in sources if s["source_kind"] == "mlperf_summary"]
        # its provenance is the publication's: the summary's file, hash, row and ingest time
        assert {k: row[k] for k in PROVENANCE} == {k: summary[k] for k in PROVENANCE}
        assert float(row["value"]) == float(typed["value"])
    # the row read first keeps what the user typed that the summary did not give (schema 1 stored it so):
    # the system's name, the source URL and its retrieval date
    row, typed = after["results"][first], _csv_rows(FIXTURES / "user-rows-v1.csv")[0]
    assert (row["system_name"], row["source_url"], row["retrieved_on"]) == (
        typed["system_name"], typed["source_url"], typed["retrieved_on"])
    # the row read after the summary is the publication as it was
    old = before["results"][later]
    assert {k: after["results"][later][k] for k in old} == old
    assert not [q for q in after["quarantine"].values() if Path(q["source_path"]).name in MERGED_CSVS]


@pytest.mark.parametrize("version", (1, 2))
def test_non_mlperf_csv_rows_go_to_the_quarantine_whole(engine, version, tmp_path, request):
    url = _engine_url(engine, version, tmp_path, request)
    before = _rows(url)
    moved, _ = _moved(before)
    typed = {(r["scenario"], float(r["value"])): r for r in _csv_rows(FIXTURES / "user-rows-v2.csv")}
    assert len(moved) == len(typed) == 2
    done = _cli(url, "store", "upgrade")
    assert done.returncode == 0, done.stderr
    after = _rows(url)
    assert not any(not r["mlperf"] for r in after["results"].values())
    quarantined = [q for pk, q in sorted(after["quarantine"].items()) if q["reason"] == "schema_upgrade"]
    for pk in moved:
        old = before["results"][pk]
        sources = _sources_of(before, pk)
        mine = [q for q in quarantined if json.loads(q["raw"])["id"] == pk]
        # once for each file and line it was read from (the resent row: twice), each naming that source
        assert [(q["source_kind"], q["source_path"], q["source_sha256"], q["locator"], q["ingested_at"])
                for q in mine] == [(s["source_kind"], s["source_path"], s["source_sha256"], s["source_locator"],
                                    s["ingested_at"]) for s in sources]
        for q in mine:
            raw = json.loads(q["raw"])
            assert {k: raw[k] for k in old} == old  # every value the store held, as it held it
            assert raw.keys() - old.keys() == ({"origin"} if version < 2 else set()) and raw["origin"] == "csv"
            assert "own run" in q["message"] and "ingest its source again" in q["message"]
        # and what the user's CSV said, recoverable from that text
        raw = json.loads(mine[0]["raw"])
        row = typed[(raw["scenario"], raw["value"])]
        for column in ("submitter", "system_name", "system_id", "model", "unit", "accelerator", "framework",
                       "source_url", "dataset", "arrival_process", "retrieved_on"):
            assert raw[column] == row[column], column
        for column in ("accelerators_per_node", "nodes", "dataset_samples", "reference_max_output_tokens",
                       "min_duration_ms"):
            assert raw[column] == int(row[column]), column
        for column in ("tokens_per_sample", "target_qps", "ttft_bound_ms", "tpot_bound_ms", "p99_ttft_ms",
                       "p99_tpot_ms"):
            assert raw[column] == (float(row[column]) if row[column] else None), column
        assert raw["host_processor"] == (row["host_processor"] or "not stated by the source")
    assert len(quarantined) == 3 == sum(len(_sources_of(before, pk)) for pk in moved)
    # the quarantine command lists each of them, by file and line
    listed = _cli(url, "quarantine")
    assert listed.returncode == 0, listed.stderr
    for q in quarantined:
        assert f"{q['locator']}: [schema_upgrade]" in listed.stdout


def test_a_non_mlperf_row_longer_than_the_quarantines_input_limit_is_kept_whole(engine, tmp_path, request):
    from exportguard.store import RAW_LIMIT

    url = _engine_url(engine, 2, tmp_path, request)
    long_text = "Intel Xeon Platinum 8480+ " * (RAW_LIMIT // 20)  # a long cell, well within the CSV's own limit
    engine_ = sa.create_engine(_dbapi_url(url))
    with engine_.begin() as conn:
        conn.execute(sa.text("UPDATE results SET host_processor = :h WHERE NOT mlperf"), {"h": long_text})
    engine_.dispose()
    before = _rows(url)
    assert _cli(url, "store", "upgrade").returncode == 0
    quarantined = [q for q in _rows(url)["quarantine"].values() if q["reason"] == "schema_upgrade"]
    assert quarantined and all(len(q["raw"]) > RAW_LIMIT for q in quarantined)
    for q in quarantined:
        raw = json.loads(q["raw"])
        assert raw == before["results"][raw["id"]] and raw["host_processor"] == long_text


# -- when a store is migrated --------------------------------------------------------------------

def test_read_commands_on_an_older_store_say_in_one_line_how_to_upgrade(engine, tmp_path, request):
    url = _engine_url(engine, 2, tmp_path, request)
    for args in (("list",), ("cohorts",), ("quarantine",), ("export", "--split-by-cohort", "--to", str(tmp_path / "x.csv"))):
        done = _cli(url, *args)
        assert done.returncode == 1
        (line,) = done.stderr.strip().splitlines()
        assert "schema version 2" in line and "exportguard store upgrade" in line and "--upgrade" in line
    assert _version(url) == 2 and not (tmp_path / "x.csv").exists()


def test_ingest_and_export_upgrade_only_where_the_user_opted_in(tmp_path, request):
    url = _engine_url("sqlite", 1, tmp_path, request)
    csv = str(FIXTURES / "user-rows.csv")
    refused = _cli(url, "ingest", csv)
    assert refused.returncode == 1 and "store upgrade" in refused.stderr and _version(url) == 1
    done = _cli(url, "ingest", csv, env={"EXPORTGUARD_AUTO_UPGRADE": "1"})
    assert done.returncode in (0, 1) and "upgraded from schema version 1 to" in done.stderr
    assert _version(url) == SCHEMA_VERSION
    url = _engine_url("sqlite", 2, tmp_path, request)
    done = _cli(url, "ingest", "--upgrade", csv)
    assert "upgraded from schema version 2" in done.stderr and _version(url) == SCHEMA_VERSION


def test_a_store_newer_than_the_tool_is_refused_in_one_line(engine, tmp_path, request):
    url = _engine_url(engine, 3, tmp_path, request)
    assert _cli(url, "store", "upgrade").returncode == 0
    engine_ = sa.create_engine(_dbapi_url(url))
    with engine_.begin() as conn:
        conn.execute(meta_table.update().where(meta_table.c.key == "schema_version").values(value=str(SCHEMA_VERSION + 1)))
        conn.execute(meta_table.update().where(meta_table.c.key == "exportguard_version").values(value="9.7"))
    engine_.dispose()
    for args in (("list",), ("store", "upgrade"), ("ingest", "--upgrade", str(FIXTURES / "user-rows.csv"))):
        done = _cli(url, *args)
        assert done.returncode == 1
        (line,) = done.stderr.strip().splitlines()
        assert "made by a newer exportguard 9.7" in line, line
    assert _version(url) == SCHEMA_VERSION + 1


def test_store_info_names_the_store_without_its_secrets(engine, tmp_path, request):
    url = _engine_url(engine, 3, tmp_path, request)
    if engine == "postgresql":  # trust authentication ignores the password; the query is libpq's
        url = url.replace("postgres@", "postgres:s3cret@", 1) + "?application_name=s3cretapp"
    done = _cli(url, "store", "info")
    assert done.returncode == 0, done.stderr
    assert "s3cret" not in done.stdout and "?" not in done.stdout
    assert "schema version: 3 (this exportguard uses 4: run `exportguard store upgrade`)" in done.stdout
    lines = dict(line.split(":", 1) for line in done.stdout.splitlines())
    before = _rows(url.split("?")[0].replace(":s3cret", ""))
    assert int(lines["results"].replace(",", "")) == len(before["results"])
    assert int(lines["own runs"]) == 1 and int(lines["quarantined"]) == len(before["quarantine"])
    assert int(lines["sources"].replace(",", "")) == len(before["result_sources"])


# -- a stop at any step ----------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("step", range(2, SCHEMA_VERSION + 1))
@pytest.mark.parametrize("where", ["before-commit", "after-commit"])
def test_a_migration_killed_at_any_step_leaves_a_whole_version(engine, step, where, tmp_path, request,
                                                               another_database):
    url = _engine_url(engine, 1, tmp_path, request)
    before = _rows(url)
    killed = _cli(url, "store", "upgrade", env={"EXPORTGUARD_TEST_MIGRATION_HOOK": f"{step}:{where}:kill"})
    assert killed.returncode == -signal.SIGKILL
    left = step - 1 if where == "before-commit" else step
    assert _version(url) == left
    # the schema of that version, whole: as the real earlier code made it, or as this code makes it
    reference = another_database(engine, tmp_path / "ref")
    if left < SCHEMA_VERSION:
        if engine == "sqlite":
            with gzip.open(FIXTURES / f"v{left}.db.gz", "rb") as f:
                Path(reference.removeprefix("sqlite:///")).write_bytes(f.read())
        else:
            _load_sql(reference, FIXTURES / f"v{left}.pg.sql.gz")
    else:
        open_store(reference).close()
    ours, theirs = _schema(url)["results"], _schema(reference)["results"]
    assert ours["columns"] == theirs["columns"] and ours["checks"].keys() == theirs["checks"].keys()
    assert ours["unique"] == theirs["unique"]
    assert {t: len(v) for t, v in _rows(url).items()} == _expected_sizes(before, left)
    if engine == "sqlite":  # the copy of the store as it was is kept, and is the schema-1 store
        (copy,) = tmp_path.glob("v1.db.schema-1.bak")
        assert _version(f"sqlite:///{copy}") == 1 and _rows(f"sqlite:///{copy}") == before
    again = _cli(url, "store", "upgrade")
    assert again.returncode == 0, again.stderr
    assert _version(url) == SCHEMA_VERSION
    assert {t: len(v) for t, v in _rows(url).items()} == _expected_sizes(before, SCHEMA_VERSION)


def test_two_concurrent_upgrades_on_postgresql_end_with_one_migration(tmp_path, request):
    url = _engine_url("postgresql", 1, tmp_path, request)
    env = {**os.environ, "EXPORTGUARD_DB": url, "EXPORTGUARD_TEST_MIGRATION_HOOK": "2:before-commit:sleep=2"}
    first = subprocess.Popen([sys.executable, "-m", "exportguard", "store", "upgrade"], cwd=REPO, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not _advisory_lock_held(url):  # the first migrator holds the writers' lock: start the second now
        assert first.poll() is None and time.monotonic() < deadline, first.communicate()
        time.sleep(0.05)
    second = _cli(url, "store", "upgrade")
    out, err = first.communicate(timeout=60)
    assert first.returncode == 0 and second.returncode == 0, (err, second.stderr)
    migrated = [p for p in (out, second.stdout) if "upgraded from schema version 1" in p]
    assert len(migrated) == 1, (out, second.stdout)
    assert "nothing to upgrade" in second.stdout and "waiting for another writer" in second.stderr
    assert _version(url) == SCHEMA_VERSION


def _advisory_lock_held(url: str) -> bool:
    from exportguard.store import _ADVISORY_LOCK_ID

    engine_ = sa.create_engine(_dbapi_url(url))
    try:
        with engine_.connect() as conn:
            return bool(conn.exec_driver_sql(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND objid = %(k)s",
                {"k": _ADVISORY_LOCK_ID}).scalar())
    finally:
        engine_.dispose()


# -- vocabularies are the code's, not the schema's --------------------------------------------------

def test_a_new_source_kind_needs_no_schema_change(store, monkeypatch):
    from exportguard.ingest import ingest_path

    ingest_path(store, SHARED / "own-traffic" / "vllm" / "concurrency8_isl550_osl250" /
                "own-traffic-infqps-concurrency8-mock-llm-20261201-094403.json")
    (run,) = store.results()
    p = run.conditions.provenance
    new = replace(run, conditions=replace(run.conditions, provenance=replace(p, source_kind="newtool_bench"),
                                          run=replace(run.conditions.run, run_id="another-run")))
    with store.writing() as conn:  # a kind this exportguard does not know is refused, on write
        with pytest.raises(sa.exc.IntegrityError, match="source_kind_known"):
            store.put_result(conn, new)
    # A new importer adds its kind to the model's vocabulary: the same store, unchanged, takes it.
    monkeypatch.setattr(model, "OWN_SOURCE_KINDS", model.OWN_SOURCE_KINDS + ("newtool_bench",))
    monkeypatch.setattr(model, "SOURCE_KINDS", model.SOURCE_KINDS + ("newtool_bench",))
    with store.writing() as conn:
        assert store.put_result(conn, new).kind == "added"
    assert {r.conditions.provenance.source_kind for r in store.results()} == {"vllm_bench", "newtool_bench"}
    with store.reading() as conn:
        assert int(conn.execute(sa.select(meta_table.c.value).where(meta_table.c.key == "schema_version")).scalar()) \
            == SCHEMA_VERSION


def test_the_ddl_lists_no_vocabulary(store):
    from sqlalchemy.schema import CreateTable

    from exportguard.store import metadata

    ddl = " ".join(str(CreateTable(t).compile(store.engine)) for t in metadata.sorted_tables)
    for word in model.SOURCE_KINDS + model.UNITS + model.SCENARIOS[1:] + model.DIVISIONS[:2] + \
            model.AVAILABILITIES[1:3] + (model.TPS_SUMMARY, model.TPS_OWN, model.LOAD_TOOL):
        assert f"'{word}'" not in ddl, word
    for kept in ("value > 0", "own_run_complete", "result_id_matches_state", "latency_bounds_outside_offline"):
        assert kept in ddl
