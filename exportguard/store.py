"""The conditions-carrying store: SQLite by default, PostgreSQL by URL, one code path (SQLAlchemy Core).

The schema makes an unbound figure impossible to store: every condition is a NOT NULL column or an
explicit state checked against its value (a pending result ID is the state "pending" with an empty
ID, never a NULL). Writers are serialised (SQLite: BEGIN IMMEDIATE in WAL mode; PostgreSQL: a
transaction-scoped advisory lock), and wait for each other up to a bound, saying so, so that
concurrent ingests neither fail with "database is locked" nor insert duplicates. Everything one
command or one report reads comes from one snapshot (``Store.reading``). A fault of the database
(a full disk, a read-only file, a server that ended the connection) is a StoreError in one line.
"""
from __future__ import annotations

import os
import threading
import time
from contextlib import contextmanager
from urllib.parse import parse_qsl, urlsplit
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Mapping, NamedTuple, Sequence

import sqlalchemy as sa
from sqlalchemy import event

from .errors import StoreError
from .signals import held
from .store_vocabulary import broken_rule
from .model import (
    LOAD_RUN_LOG,
    NO_OWN_RUN,
    ORIGINS,
    RESULT_ID_OFFICIAL,
    TPS_ACCURACY_LOG,
    TPS_CSV,
    TPS_DERIVED,
    TPS_OWN,
    TPS_NOT_REPORTED,
    TPS_SUMMARY,
    Benchmark,
    Cohort,
    CohortKey,
    Conditions,
    Configuration,
    Identity,
    Load,
    OwnRun,
    Provenance,
    Result,
    Shape,
    Slack,
    cohort_slack,
    group_by_cohort,
    same_at_published_precision,
    fields_of,
)

# 2: user-supplied rows and MLCommons publications never share a natural key
# 3: own load-test runs (origin 'own'): one row per run, their load, measured shape and tool
# 4: vocabularies (source kinds, units, scenarios, bases, ...) checked on write (store_vocabulary.py),
#    not listed in CHECK constraints: a new importer or scenario is no schema change
# Each version has its migration from the one before in exportguard/migrations/versions/.
SCHEMA_VERSION = 4
_ADVISORY_LOCK_ID = 0x6578_706F  # "expo": serialises exportguard writers on one PostgreSQL database
DEFAULT_WAIT_S = 300.0  # how long a writer waits for another one (--wait): queued ingests of real sources fit


metadata = sa.MetaData()

meta_table = sa.Table(
    "exportguard_meta",
    metadata,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
)

results_table = sa.Table(
    "results",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("origin", sa.String(16), nullable=False),  # mlcommons / csv / own: see Result.origin
    # identity
    sa.Column("round", sa.String(16), nullable=False),
    sa.Column("division", sa.String(16), nullable=False),
    sa.Column("suite", sa.String(16), nullable=False),
    sa.Column("availability", sa.String(16), nullable=False),
    sa.Column("submitter", sa.Text, nullable=False),
    sa.Column("submitter_key", sa.Text, nullable=False),
    sa.Column("system_name", sa.Text, nullable=False),
    sa.Column("system_id", sa.Text, nullable=False),
    sa.Column("result_id", sa.String(32), nullable=False),
    sa.Column("result_id_state", sa.String(16), nullable=False),
    sa.Column("verified", sa.String(16), nullable=False),
    sa.Column("mlperf", sa.Boolean, nullable=False),
    # benchmark
    sa.Column("benchmark", sa.String(64), nullable=False),
    sa.Column("model", sa.String(64), nullable=False),
    sa.Column("accuracy_track", sa.String(8), nullable=False),
    sa.Column("scenario", sa.String(16), nullable=False),
    # figure
    sa.Column("value", sa.Float, nullable=False),
    sa.Column("unit", sa.String(16), nullable=False),
    sa.Column("samples_per_s", sa.Float, nullable=True),  # a second measurement, not a condition
    # shape
    sa.Column("tokens_per_sample", sa.Float, nullable=True),
    sa.Column("tokens_per_sample_basis", sa.String(40), nullable=False),
    sa.Column("reference_max_output_tokens", sa.Integer, nullable=True),  # NULL exactly for own runs
    sa.Column("dataset", sa.Text, nullable=False),
    sa.Column("dataset_samples", sa.Integer, nullable=True),  # NULL exactly for own runs
    # load
    sa.Column("arrival_process", sa.String(32), nullable=False),
    sa.Column("target_qps", sa.Float, nullable=True),
    sa.Column("ttft_bound_ms", sa.Float, nullable=True),
    sa.Column("tpot_bound_ms", sa.Float, nullable=True),
    sa.Column("p99_ttft_ms", sa.Float, nullable=True),
    sa.Column("p99_tpot_ms", sa.Float, nullable=True),
    sa.Column("min_duration_ms", sa.Integer, nullable=True),  # NULL exactly for own runs
    sa.Column("load_basis", sa.String(16), nullable=False),
    # configuration
    sa.Column("accelerator", sa.Text, nullable=False),
    sa.Column("accelerators_per_node", sa.Integer, nullable=True),  # NULL: unknown, only for own runs
    sa.Column("nodes", sa.Integer, nullable=True),
    sa.Column("accelerators_total", sa.Integer, nullable=True),
    sa.Column("framework", sa.Text, nullable=False),
    sa.Column("host_processor", sa.Text, nullable=False),
    sa.Column("raw_system", sa.Text, nullable=False),
    # provenance (first source; every source is in result_sources)
    sa.Column("source_kind", sa.String(16), nullable=False),
    sa.Column("source_path", sa.Text, nullable=False),
    sa.Column("source_sha256", sa.String(64), nullable=False),
    sa.Column("source_locator", sa.Text, nullable=False),
    sa.Column("source_url", sa.Text, nullable=False),
    sa.Column("retrieved_on", sa.String(10), nullable=False),
    sa.Column("ingested_at", sa.String(32), nullable=False),
    sa.Column("corrections", sa.Text, nullable=False),
    # own load-test runs (model.OwnRun); '' or NULL for MLPerf rows
    sa.Column("tool", sa.Text, nullable=False),
    sa.Column("tool_version", sa.Text, nullable=False),
    sa.Column("run_id", sa.String(64), nullable=False),
    sa.Column("run_date", sa.String(64), nullable=False),
    sa.Column("concurrency", sa.Integer, nullable=True),
    sa.Column("burstiness", sa.Float, nullable=True),
    sa.Column("load_detail", sa.Text, nullable=False),
    sa.Column("mean_input_tokens", sa.Float, nullable=True),
    sa.Column("input_tokens_std", sa.Float, nullable=True),
    sa.Column("output_tokens_std", sa.Float, nullable=True),
    sa.Column("requests", sa.Integer, nullable=True),
    sa.Column("failed_requests", sa.Integer, nullable=True),
    sa.Column("duration_s", sa.Float, nullable=True),
    sa.Column("duration_basis", sa.String(64), nullable=False),
    sa.Column("p50_ttft_ms", sa.Float, nullable=True),
    sa.Column("p50_tpot_ms", sa.Float, nullable=True),
    sa.Column("latency_definitions", sa.Text, nullable=False),
    sa.Column("total_tokens_per_s", sa.Float, nullable=True),  # a second figure, never the value
    sa.Column("server_settings", sa.Text, nullable=False),
    sa.Column("shape_class", sa.Text, nullable=False),
    sa.Column("cohort", sa.Text, nullable=False),
    # The natural key; its index leads with the system, so a batch's rows are found by system_id IN (...).
    # An own run's ID is part of it (repeated runs of one configuration are rows of their own), and
    # is unique among own runs whatever system a later ingest describes (own_run_once).
    sa.UniqueConstraint("system_id", "submitter_key", "benchmark", "scenario", "round", "division", "origin",
                        "run_id", name="results_natural_key"),
    sa.Index("own_run_once", "run_id", unique=True, sqlite_where=sa.text("origin = 'own'"),
             postgresql_where=sa.text("origin = 'own'")),
    # Vocabularies (origins, source kinds, units, scenarios, divisions, bases, ...) are checked on write
    # (store_vocabulary.py), not here: a new importer or scenario must not be a schema change. What
    # follows are the invariants that no new word changes.
    sa.CheckConstraint("(origin = 'own') = (NOT mlperf)", name="own_is_not_mlperf"),
    sa.CheckConstraint("origin = 'mlcommons' OR verified = 'unverified'", name="user_rows_unverified"),
    sa.CheckConstraint("value > 0", name="value_positive"),
    sa.CheckConstraint("(result_id_state = 'official') = (result_id <> '')", name="result_id_matches_state"),
    sa.CheckConstraint("result_id_state <> 'official' OR verified = 'verified'", name="official_is_verified"),
    sa.CheckConstraint("mlperf OR (division = 'n/a' AND result_id_state = 'none' AND verified = 'unverified')",
                       name="non_mlperf_has_no_mlperf_identity"),
    sa.CheckConstraint("NOT mlperf OR (round LIKE 'v%' AND division <> 'n/a' AND result_id_state <> 'none')",
                       name="mlperf_has_round_and_division"),
    sa.CheckConstraint(f"(tokens_per_sample_basis = '{TPS_NOT_REPORTED}') = (tokens_per_sample IS NULL)",
                       name="tps_matches_basis"),
    sa.CheckConstraint("tokens_per_sample IS NULL OR tokens_per_sample > 0", name="tps_positive"),
    sa.CheckConstraint("(mlperf AND reference_max_output_tokens > 0) OR (NOT mlperf AND reference_max_output_tokens "
                       "IS NULL)", name="max_tokens_positive"),
    sa.CheckConstraint("dataset <> '' AND ((mlperf AND dataset_samples > 0) OR (NOT mlperf AND dataset_samples IS NULL))",
                       name="dataset_named"),
    # An own run's arrival process is its load's kind (which arrival processes MLPerf has: on write).
    sa.CheckConstraint("mlperf OR arrival_process = scenario", name="own_arrival_is_its_load"),
    sa.CheckConstraint("NOT mlperf OR scenario = 'Offline' OR (ttft_bound_ms IS NOT NULL AND tpot_bound_ms IS NOT NULL"
                       " AND ttft_bound_ms > 0 AND tpot_bound_ms > 0)",
                       name="latency_bounds_outside_offline"),
    # No load tool records a latency bound: an own run never carries an invented one.
    sa.CheckConstraint("mlperf OR (ttft_bound_ms IS NULL AND tpot_bound_ms IS NULL)", name="own_run_has_no_bounds"),
    sa.CheckConstraint("target_qps IS NULL OR target_qps > 0", name="target_qps_positive"),
    sa.CheckConstraint("(mlperf AND min_duration_ms > 0) OR (NOT mlperf AND min_duration_ms IS NULL)",
                       name="min_duration_positive"),
    sa.CheckConstraint("accelerators_per_node >= 0 AND nodes >= 1 AND accelerators_total >= 0",
                       name="counts_sane"),
    sa.CheckConstraint("NOT mlperf OR (accelerators_per_node IS NOT NULL AND nodes IS NOT NULL AND "
                       "accelerators_total IS NOT NULL)", name="mlperf_counts_known"),
    # An own run: its tool, its ID, its measured shape (mean output tokens as tokens per sample, and
    # mean input tokens); an MLPerf row has none of these. (Their bases: on write, own_run_bases.)
    sa.CheckConstraint("(NOT mlperf AND tool <> '' AND tool_version <> '' AND run_id <> '' AND run_date <> '' AND "
                       "cohort <> '' AND shape_class <> '' AND duration_basis <> '' AND latency_definitions <> '' AND "
                       "server_settings <> '' AND mean_input_tokens IS NOT NULL AND mean_input_tokens > 0) OR "
                       "(mlperf AND tool = '' AND run_id = '' AND cohort = '' AND mean_input_tokens IS NULL)",
                       name="own_run_complete"),
    sa.CheckConstraint("(concurrency IS NULL OR concurrency > 0) AND (burstiness IS NULL OR burstiness > 0) AND "
                       "(requests IS NULL OR requests > 0) AND (failed_requests IS NULL OR failed_requests >= 0) AND "
                       "(duration_s IS NULL OR duration_s > 0) AND (total_tokens_per_s IS NULL OR total_tokens_per_s > 0)"
                       " AND (input_tokens_std IS NULL OR input_tokens_std >= 0) AND (output_tokens_std IS NULL OR "
                       "output_tokens_std >= 0) AND (p50_ttft_ms IS NULL OR p50_ttft_ms > 0) AND "
                       "(p50_tpot_ms IS NULL OR p50_tpot_ms > 0)", name="own_run_measures_sane"),
    # A closed loop names how many requests it keeps in flight; a rate names its rate; Gamma its k.
    sa.CheckConstraint("scenario <> 'closed loop' OR concurrency IS NOT NULL", name="closed_loop_has_concurrency"),
    sa.CheckConstraint("NOT (NOT mlperf AND scenario IN ('Poisson', 'Gamma', 'constant rate')) OR target_qps IS NOT NULL",
                       name="rate_load_has_rate"),
    sa.CheckConstraint("scenario <> 'Gamma' OR burstiness IS NOT NULL", name="gamma_has_burstiness"),
    sa.CheckConstraint("submitter <> '' AND submitter_key <> '' AND system_id <> '' AND system_name <> ''",
                       name="identity_named"),
    sa.CheckConstraint("accelerator <> '' AND framework <> ''", name="configuration_named"),
    sa.CheckConstraint("length(source_sha256) = 64 AND source_path <> '' AND source_url <> ''",
                       name="provenance_complete"),
    sa.CheckConstraint("retrieved_on <> '' AND ingested_at <> ''", name="dates_present"),
)

ingest_runs_table = sa.Table(
    "ingest_runs",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("source_kind", sa.String(16), nullable=False),
    sa.Column("source_path", sa.Text, nullable=False),
    sa.Column("source_sha256", sa.String(64), nullable=False),
    sa.Column("retrieved_on", sa.String(10), nullable=False),
    sa.Column("started_at", sa.String(32), nullable=False),
    sa.Column("rows_read", sa.Integer, nullable=False),
    sa.Column("added", sa.Integer, nullable=False),
    sa.Column("enriched", sa.Integer, nullable=False),
    sa.Column("unchanged", sa.Integer, nullable=False),
    sa.Column("changed", sa.Integer, nullable=False),
    sa.Column("quarantined", sa.Integer, nullable=False),
    sa.Column("skipped", sa.Integer, nullable=False),
    sa.CheckConstraint("rows_read = added + enriched + unchanged + changed + quarantined + skipped",
                       name="counts_reconcile"),
)

result_sources_table = sa.Table(
    "result_sources",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("result_pk", sa.Integer, sa.ForeignKey("results.id"), nullable=False),
    sa.Column("source_kind", sa.String(16), nullable=False),
    sa.Column("source_path", sa.Text, nullable=False),
    sa.Column("source_sha256", sa.String(64), nullable=False),
    sa.Column("source_locator", sa.Text, nullable=False),
    sa.Column("role", sa.String(16), nullable=False),  # added / enriched / unchanged
    sa.Column("ingested_at", sa.String(32), nullable=False),
    sa.UniqueConstraint("result_pk", "source_sha256", "source_locator", name="result_source_once"),
)

quarantine_table = sa.Table(
    "quarantine",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("source_kind", sa.String(16), nullable=False),
    sa.Column("source_path", sa.Text, nullable=False),
    sa.Column("source_sha256", sa.String(64), nullable=False),
    sa.Column("locator", sa.Text, nullable=False),
    sa.Column("raw", sa.Text, nullable=False),
    sa.Column("reason", sa.String(64), nullable=False),
    sa.Column("message", sa.Text, nullable=False),
    sa.Column("ingested_at", sa.String(32), nullable=False),
    sa.CheckConstraint("reason <> '' AND message <> ''", name="quarantine_explained"),
    sa.UniqueConstraint("source_sha256", "locator", "reason", name="quarantine_once"),
)

RAW_LIMIT = 4000  # characters of offending input kept in quarantine: enough to see, not a copy of a bomb


def default_url() -> str:
    """EXPORTGUARD_DB, else an SQLite file under $XDG_DATA_HOME/exportguard (~/.local/share)."""
    if os.environ.get("EXPORTGUARD_DB"):
        return os.environ["EXPORTGUARD_DB"]
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return f"sqlite:///{base / 'exportguard' / 'exportguard.db'}"


@dataclass(frozen=True)
class Outcome:
    kind: str  # added / enriched / unchanged / changed
    message: str = ""


# Faults of the database rather than of a statement: a full disk, a read-only file, a lock, a server
# that ended the connection. A statement's own errors (a constraint) go to the caller as they are.
_FAULTS = (sa.exc.OperationalError, sa.exc.InterfaceError, sa.exc.InternalError)


class _WritePolicy(NamedTuple):
    """How a writer takes the store's write lock: how long it may wait, and whom to tell."""
    wait_s: float
    tell: Callable[[str], None]
    shown: str


class Store:
    """An open store. Reads take no lock (SQLite: a deferred transaction in WAL mode, which never
    waits for a writer; PostgreSQL: a REPEATABLE READ, READ ONLY transaction), and what one
    ``reading()`` block reads comes from one snapshot; writes go through ``writing()``, one
    transaction each, serialised between processes, waiting up to ``wait_s`` for another writer."""

    def __init__(self, engine: sa.Engine, url: str, read_only: bool = False, *, path: Path | None = None,
                 wait_s: float = DEFAULT_WAIT_S, tell: Callable[[str], None] | None = None):
        self.engine = engine
        self.url = url
        self.read_only = read_only
        self.path = path  # the SQLite file; None for PostgreSQL and in-memory stores
        self.wait_s = wait_s
        self.tell = tell or (lambda _text: None)
        self.commits = 0  # write transactions committed through this object
        self._local = threading.local()

    @property
    def display_url(self) -> str:
        return mask_url(self.url)

    @property
    def is_sqlite(self) -> bool:
        return self.engine.dialect.name == "sqlite"

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @contextmanager
    def reading(self) -> Iterator[sa.Connection]:
        """One read transaction: every read inside the block (by any method of this store, nested
        blocks included) sees the same committed state, whatever other processes commit meanwhile."""
        held = getattr(self._local, "conn", None)
        if held is not None:
            yield held
            return
        try:
            with self.engine.connect() as conn:
                if not self.is_sqlite:
                    conn = conn.execution_options(isolation_level="REPEATABLE READ", postgresql_readonly=True)
                self._refuse_another_file(conn, "read")
                with conn.begin():
                    self._local.conn = conn
                    try:
                        yield conn
                    finally:
                        self._local.conn = None
        except _FAULTS as e:
            raise StoreError(f"{self.display_url}: could not be read: {_cause(e, self.url)}") from None

    def _write_policy(self, needs: str) -> "_WritePolicy":
        """How a writer waits for the write lock; a read-only store refused first, saying what ``needs`` it."""
        if self.read_only:
            raise StoreError(f"the store at {self.display_url} is read-only (the file or its folder cannot be "
                             f"written): {needs}")
        return _WritePolicy(self.wait_s, self.tell, self.display_url)

    @contextmanager
    def writing(self) -> Iterator[sa.Connection]:
        """One write transaction, under the store's write lock. Raises StoreError (in one line,
        with the transaction rolled back: nothing of it stored) for a lock not had within
        ``wait_s``, a store file deleted or replaced meanwhile, or a fault of the database."""
        policy = self._write_policy("reading works, ingesting needs write access")
        try:
            with self.engine.connect() as conn:
                self._refuse_another_file(conn, "write")
                conn = conn.execution_options(exportguard_write=policy)  # SQLite: BEGIN IMMEDIATE (_on_begin)
                with conn.begin() as transaction:
                    if not self.is_sqlite:
                        _pg_write_lock(conn, policy)
                    yield conn
                    self._refuse_another_file(conn, "write")  # before the commit: else it lands in a lost file
                    with held():  # a stop (SIGINT, SIGTERM) comes before the commit or after it is counted
                        transaction.commit()
                        self.commits += 1
        except _FAULTS as e:
            raise StoreError(f"{self.display_url}: could not be written: {_cause(e, self.url)}; the write was "
                             "rolled back, nothing of it was stored") from None

    @contextmanager
    def migrating(self) -> Iterator[sa.Connection]:
        """A connection for the schema migrations (exportguard/migrations), each step of which is one
        ``conn.begin()`` transaction under the store's write lock. On PostgreSQL the connection holds
        the writers' advisory lock for the whole migration (session-scoped), so that concurrent
        commands, upgrades included, wait for this one migrator. On SQLite each step takes the write
        lock (BEGIN IMMEDIATE), with foreign keys off for the connection: a step rebuilds a table
        that others reference (SQLite's documented way), which it checks before committing."""
        policy = self._write_policy("upgrading it needs write access")
        try:
            with self.engine.connect() as conn:
                self._refuse_another_file(conn, "write")
                if self.is_sqlite:
                    raw = conn.connection.driver_connection
                    raw.execute("PRAGMA foreign_keys = OFF")  # outside a transaction, or it does nothing
                    try:
                        yield conn.execution_options(exportguard_write=policy)
                    finally:
                        raw.execute("PRAGMA foreign_keys = ON")
                    return
                _pg_session_lock(conn, policy)
                try:
                    yield conn
                finally:
                    if conn.in_transaction():
                        conn.rollback()
                    conn.execute(sa.text("SELECT pg_advisory_unlock(:k)"), {"k": _ADVISORY_LOCK_ID})
                    conn.commit()
        except _FAULTS as e:
            raise StoreError(f"{self.display_url}: could not be upgraded: {_cause(e, self.url)}; the step under way "
                             "was rolled back") from None

    def _refuse_another_file(self, conn: sa.Connection, doing: str) -> None:
        """An SQLite file deleted or replaced at its path after this store opened it: writing on
        would land in a file nobody can find again, reading on would show what is no longer there."""
        opened = conn.info.get("file_id")
        if self.path is None or opened is None:
            return
        try:
            now = _file_id(self.path)
        except FileNotFoundError:
            what = "was deleted"
        else:
            if now == opened:
                return
            what = "was replaced by another file"
        outcome = ("nothing was stored (the transaction was rolled back)" if doing == "write"
                   else "nothing was read")
        raise StoreError(f"the store file {self.path} {what} after it was opened; {outcome}. Run the command "
                         "again to use what is at that path now")

    # -- writes ---------------------------------------------------------------------------------

    def put_result(self, conn: sa.Connection, result: Result) -> Outcome:
        """Store a result, or merge it into the stored one with the same natural key.

        A value that disagrees with the stored one beyond published rounding is reported as
        changed and NOT written. A second source may fill what the first could not give (an
        official result ID, measured load, tokens per sample, a more precise log value): that
        is "enriched", recorded in result_sources.
        """
        row = _result_to_row(result)
        _check_row(row)
        if result.origin == "own":
            elsewhere = _own_run_stored_apart(conn, result)
            if elsewhere:
                return Outcome("changed", elsewhere)
        key = {f"k_{n}": v for n, v in zip(_KEY_COLUMNS[1:], result.natural_key[1:])}
        existing = twin = None
        for found in conn.execute(_SELECT_BOTH_ORIGINS, key).mappings():  # this row's key, and its twin's
            if found["origin"] == row["origin"]:
                existing = found
            else:
                twin = found
        if existing is None:
            pk = conn.execute(_INSERT_RESULT, row).inserted_primary_key[0]
            conn.execute(_INSERT_SOURCE, _source_row(pk, result, "added"))  # a new row has no sources yet
            return Outcome("added", _twin_differences(twin, row))
        if existing["unit"] != row["unit"] or not same_at_published_precision(existing["value"], row["value"]):
            return Outcome(
                "changed",
                f"stored {existing['value']:g} {existing['unit']}, source says {row['value']:g} {row['unit']}; "
                "kept the stored value",
            )
        updates = _enrichment(existing, row)
        if updates:
            conn.execute(results_table.update().where(results_table.c.id == existing["id"]).values(**updates))
        if result.origin == "own":
            _cite_first_source(conn, existing, row)
        kind = "enriched" if updates else "unchanged"
        self._note_source(conn, existing["id"], result, kind)
        return Outcome(kind, ", ".join(sorted(updates)))

    def put_results(self, conn: sa.Connection, results: Sequence[Result]) -> list:
        """Store many results, as ``put_result`` would one by one: those whose key is new (in the
        store and in this batch) are inserted together, in one statement; the others, and all of them
        if the store refuses the batch, one at a time, each in a savepoint of its own. Returns, per
        result, its Outcome or the exception with which the store refused it."""
        outcomes: list = [None] * len(results)
        rows = []
        for i, r in enumerate(results):
            row = _result_to_row(r)
            try:
                _check_row(row)
            except REFUSALS as e:
                outcomes[i] = e
            rows.append(row)
        stored: dict[tuple, Mapping] = {}
        systems = list({r.conditions.identity.system_id for r, o in zip(results, outcomes) if o is None})
        if systems:
            for found in conn.execute(_SELECT_BY_SYSTEMS, {"systems": systems}).mappings():
                stored[tuple(found[n] for n in _KEY_COLUMNS)] = found
        new, seen = [], set()
        for i, r in enumerate(results):
            if outcomes[i] is None and r.natural_key not in stored and r.natural_key not in seen:
                seen.add(r.natural_key)
                new.append(i)
        if new:
            try:
                with conn.begin_nested():
                    # executemany, then the new ids by key: cheaper on both backends than INSERT ... RETURNING
                    # (which psycopg would parse as one statement of tens of thousands of parameters)
                    conn.execute(_INSERT_RESULT, [rows[i] for i in new])
                    ids = _ids_by_key(conn, [results[i].natural_key for i in new])
                    conn.execute(_INSERT_SOURCE, [_source_row(ids[results[i].natural_key], results[i], "added")
                                                  for i in new])
            except REFUSALS:
                new = []  # one of them breaks a constraint: find which, one at a time
            for i in new:
                twin = stored.get((_OTHER_ORIGIN[rows[i]["origin"]], *results[i].natural_key[1:]))
                outcomes[i] = Outcome("added", _twin_differences(twin, rows[i]))
        for i, r in enumerate(results):
            if outcomes[i] is None:
                try:
                    with conn.begin_nested():
                        outcomes[i] = self.put_result(conn, r)
                except REFUSALS as e:
                    outcomes[i] = e
        return outcomes

    def _note_source(self, conn, pk: int, result: Result, role: str) -> None:
        p = result.conditions.provenance
        exists = conn.execute(_SELECT_SOURCE, {"pk": pk, "sha": p.source_sha256, "locator": p.source_locator}).first()
        if exists is None:
            conn.execute(_INSERT_SOURCE, _source_row(pk, result, role))

    def put_quarantine(self, conn, *, source_kind, source_path, source_sha256, locator, raw, reason,
                       message, ingested_at) -> bool:
        """Record a quarantined row once per (source digest, locator, reason); True if this added it."""
        values = dict(source_kind=source_kind, source_path=source_path, source_sha256=source_sha256,
                      locator=locator, raw=_printable(raw)[:RAW_LIMIT], reason=reason, message=message,
                      ingested_at=ingested_at)
        exists = conn.execute(sa.select(quarantine_table.c.id).where(
            quarantine_table.c.source_sha256 == source_sha256, quarantine_table.c.locator == locator,
            quarantine_table.c.reason == reason)).first()
        if exists is None:
            conn.execute(quarantine_table.insert().values(**values))
        return exists is None

    def own_shape_classes(self, conn, model: str, tool: str, scenario: str) -> list[tuple[str, str]]:
        """(cohort, shape class) of the own runs stored for this model, tool and load kind: what a new
        run's shape class is chosen among (ingest/own_cohort.py)."""
        c = results_table.c
        query = sa.select(c.cohort, c.shape_class).distinct().where(
            c.origin == "own", c.benchmark == model, c.tool == tool, c.scenario == scenario).order_by(c.cohort)
        return [(row[0], row[1]) for row in conn.execute(query)]

    def put_ingest_run(self, conn, **counts) -> None:
        conn.execute(ingest_runs_table.insert().values(**counts))

    def has_ingest_run(self, conn, *, source_kind, source_path, source_sha256) -> bool:
        """Whether this source (its path and content digest) has been ingested before."""
        t = ingest_runs_table.c
        return conn.execute(sa.select(t.id).where(t.source_kind == source_kind, t.source_path == source_path,
                                                  t.source_sha256 == source_sha256).limit(1)).first() is not None

    # -- reads ----------------------------------------------------------------------------------

    def results(self, **filters) -> list[Result]:
        query = sa.select(results_table).where(*_filter_clauses(filters)).order_by(
            results_table.c.round, results_table.c.division, results_table.c.benchmark,
            results_table.c.scenario, results_table.c.value.desc(), results_table.c.id)
        shared: dict = {}  # one object per distinct condition part and string of this read
        with self.reading() as conn:
            return [_row_to_result(r, shared) for r in conn.execute(query).mappings()]

    def cohort_slack(self, key: CohortKey) -> Slack:
        """The slack of a cohort as stored, whatever a caller's filters selected: the one place a
        band comes from."""
        return self._cohort_stats(key)[0]

    def cohorts(self, **filters) -> list[Cohort]:
        """The selected results grouped by cohort, each with its whole stored cohort's slack and size,
        all read in one snapshot."""
        whole = _selects_whole_cohorts(filters)
        with self.reading():
            if whole:
                return [Cohort(key, rows, *_stats(rows)) for key, rows in group_by_cohort(self.results(**filters))]
            # a part of a cohort carries the whole of it: its rows are ranked among it (guard.cohort_ranks)
            return [Cohort(key, rows, *_stats(members), members=tuple(members))
                    for key, rows in group_by_cohort(self.results(**filters))
                    for members in (self._cohort_members(key),)]

    def _cohort_stats(self, key: CohortKey) -> tuple[Slack, int]:
        return _stats(self._cohort_members(key))

    def _cohort_members(self, key: CohortKey) -> list[Result]:
        return [r for r in self.results(round=key.round, division=key.division, model=key.model,
                                        accuracy_track=key.accuracy_track, scenario=key.scenario,
                                        unit=key.unit, mlperf=key.mlperf)
                if r.cohort_key == key]

    def stored_values(self, name: str, **filters) -> list:
        """The distinct values of filter ``name`` among the results that ``filters`` select: what a
        no-match message offers instead."""
        if name == "mlperf" or name not in FILTERABLE:
            raise ValueError(f"no stored values for filter {name!r}")
        column = results_table.c[_FILTER_COLUMN.get(name, name)]
        query = sa.select(column).where(*_filter_clauses(filters)).distinct().order_by(column)
        with self.engine.connect() as conn:
            return list(conn.execute(query).scalars())

    def count(self, table: sa.Table = results_table) -> int:
        with self.reading() as conn:
            return conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one()

    def quarantined(self) -> list[Mapping]:
        with self.reading() as conn:
            return [dict(r) for r in conn.execute(sa.select(quarantine_table).order_by(quarantine_table.c.id)).mappings()]

    def ingest_runs(self) -> list[Mapping]:
        with self.reading() as conn:
            return [dict(r) for r in conn.execute(sa.select(ingest_runs_table).order_by(ingest_runs_table.c.id)).mappings()]


# Filters on what every result of a cohort shares (CohortKey's fields, with the same column names):
# a selection by these alone holds each cohort it touches whole, so its rows are the cohort as stored
# and a 100,000-row cohort is read once, not again for its slack.
_COHORT_FILTERS = frozenset({"round", "division", "model", "accuracy_track", "scenario", "unit", "mlperf"})


def _selects_whole_cohorts(filters: Mapping) -> bool:
    return all(name in _COHORT_FILTERS for name, v in filters.items() if not (v is None or v == () or v == []))


def _stats(members: Sequence[Result]) -> tuple[Slack, int]:
    return cohort_slack(members), len(members)


FILTERABLE = ("round", "division", "model", "accuracy_track", "scenario", "submitter", "availability",
              "verified", "benchmark", "unit", "system_id", "suite", "accelerator", "accelerator_count", "tool")
MAX_ACCELERATOR_COUNT = 1_000_000  # a count beyond it matches nothing (and fits every backend's integer)
# Matched without regard to case: what people type ("offline", "NVIDIA", "Llama2-70B").
_ANY_CASE = {"submitter", "model", "scenario", "division", "benchmark"}
# Filters that are not a column of their own name.
_FILTER_COLUMN = {"accelerator_count": "accelerators_total"}


def _filter_clauses(filters: Mapping) -> list:
    """``accelerator`` matches a part of the accelerator's name (any case); ``accelerator_count`` the
    total accelerator count; the others match whole values. Values of one filter are alternatives."""
    clauses = []
    for name, wanted in filters.items():
        if wanted is None or wanted == () or wanted == []:
            continue
        if name == "mlperf":
            clauses.append(results_table.c.mlperf == bool(wanted))
            continue
        if name not in FILTERABLE:
            raise ValueError(f"unknown filter {name!r}; known: {', '.join(FILTERABLE + ('mlperf',))}")
        values = [wanted] if isinstance(wanted, (str, int)) else list(wanted)
        # No stored value holds a NUL (PostgreSQL cannot): such a value matches nothing, never an error.
        values = [v for v in values if not (isinstance(v, str) and "\x00" in v)]
        if not values:
            clauses.append(sa.false())
            continue
        column = results_table.c[_FILTER_COLUMN.get(name, name)]
        # Both sides through the database's lower(), so that "any case" means the same on each backend.
        if name == "accelerator":
            clauses.append(sa.or_(*(sa.func.lower(column).like(sa.func.lower(sa.literal(f"%{_like_literal(v)}%")),
                                                               escape="\\") for v in values)))
        elif name == "accelerator_count":
            counts = [int(v) for v in values if 0 <= int(v) <= MAX_ACCELERATOR_COUNT]
            clauses.append(column.in_(counts) if counts else sa.false())
        elif name in _ANY_CASE:
            clauses.append(sa.func.lower(column).in_([sa.func.lower(sa.literal(v)) for v in values]))
        else:
            clauses.append(column.in_(values))
    return clauses


def _like_literal(text: str) -> str:
    """A LIKE pattern that matches ``text`` itself: its wildcards and the escape character escaped."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


# Statements built once, with bound parameters: SQLAlchemy compiles each once and caches it, where a
# statement built per row (insert().values(**row)) costs more to build than the database takes to run.
_KEY_COLUMNS = ("origin", "round", "division", "submitter_key", "system_id", "benchmark", "scenario", "run_id")
# Both origins at once (origin IN both: the natural-key index serves it): the row with this key, and
# the twin of the other origin that it must be kept apart from.
_SELECT_BOTH_ORIGINS = sa.select(results_table).where(
    results_table.c.origin.in_(ORIGINS), *[results_table.c[n] == sa.bindparam(f"k_{n}")
                                                        for n in _KEY_COLUMNS[1:]])
_SELECT_BY_SYSTEMS = sa.select(results_table).where(results_table.c.system_id.in_(sa.bindparam("systems", expanding=True)))
_INSERT_RESULT = results_table.insert()
_OTHER_ORIGIN = {"csv": "mlcommons", "mlcommons": "csv", "own": "own"}  # an own run has no twin of another origin
# What the store refuses a row with (a constraint, a value a backend cannot hold): the row is
# quarantined in the constraint's words, the rest of its source is stored.
REFUSALS = (sa.exc.IntegrityError, sa.exc.DataError, UnicodeEncodeError, OverflowError)
_INSERT_SOURCE = result_sources_table.insert()
_SELECT_SOURCE = sa.select(result_sources_table.c.id).where(
    result_sources_table.c.result_pk == sa.bindparam("pk"), result_sources_table.c.source_sha256 == sa.bindparam("sha"),
    result_sources_table.c.source_locator == sa.bindparam("locator"))


def _ids_by_key(conn, keys: Sequence[tuple]) -> dict[tuple, int]:
    wanted = set(keys)
    query = sa.select(results_table.c.id, *[results_table.c[n] for n in _KEY_COLUMNS]).where(
        results_table.c.system_id.in_(sa.bindparam("systems", expanding=True)))
    found = conn.execute(query, {"systems": list({k[_KEY_COLUMNS.index("system_id")] for k in keys})})
    return {key: row[0] for row in found if (key := tuple(row[1:])) in wanted}


_SELECT_OWN_RUN = sa.select(results_table).where(results_table.c.origin == "own",
                                                 results_table.c.run_id == sa.bindparam("run_id"))


def _own_run_stored_apart(conn, result: Result) -> str:
    """An own run is stored once: if an earlier ingest stored it with other conditions (another
    system description, another measurer), say so; the stored row is kept."""
    found = conn.execute(_SELECT_OWN_RUN, {"run_id": result.conditions.run.run_id}).mappings().first()
    if found is None or tuple(found[n] for n in _KEY_COLUMNS) == result.natural_key:
        return ""
    i = result.conditions.identity
    return (f"this run is stored already, measured by {found['submitter']!r} on system {found['system_name']!r}; "
            f"this ingest says {i.submitter!r} on {i.system_name!r}. A run is stored once: kept the stored row")


def _source_row(pk: int, result: Result, role: str) -> dict:
    p = result.conditions.provenance
    return dict(result_pk=pk, source_kind=p.source_kind, source_path=p.source_path, source_sha256=p.source_sha256,
                source_locator=p.source_locator, role=role, ingested_at=p.ingested_at)


_TEXT_LIMITS = tuple((c.name, c.type.length) for c in results_table.columns if getattr(c.type, "length", None))


_PROVENANCE_COLUMNS = ("source_kind", "source_path", "source_sha256", "source_locator", "source_url", "retrieved_on",
                       "ingested_at")


def _cited_order(row: Mapping) -> tuple:
    # the file nearest the top of its folder, then by name: AIPerf's profile_export_aiperf.json before its
    # phases/profiling/ copy
    return (row["source_path"].count("/"), row["source_path"], row["source_locator"])


def _cite_first_source(conn, existing: Mapping, row: Mapping) -> None:
    """An own run read from two files cites the same one whatever order they were ingested in (so that
    exports of the same store contents are the same): the first by _cited_order. Both stay its sources."""
    if _cited_order(row) < _cited_order(existing):
        conn.execute(results_table.update().where(results_table.c.id == existing["id"]).values(
            **{k: row[k] for k in _PROVENANCE_COLUMNS}))


def _check_row(row: Mapping) -> None:
    """What the store checks on write besides the database's constraints: text that both backends
    hold alike, and the vocabularies (store_vocabulary.py), refused as a constraint would be."""
    _check_text(row)
    broken = broken_rule(row)
    if broken:
        raise sa.exc.IntegrityError(f"results {broken}", None, ValueError(f"CHECK constraint failed: {broken}"))


def _check_text(row: Mapping) -> None:
    """Refuse what one backend would store and the other would not (NUL bytes, over-long values), so
    that SQLite and PostgreSQL stores hold the same rows."""
    if "\x00" in "".join(v for v in row.values() if isinstance(v, str)):
        name = next(k for k, v in row.items() if isinstance(v, str) and "\x00" in v)
        raise sa.exc.DataError(f"column {name}", None, ValueError(f"{name} holds a NUL character"))
    for name, limit in _TEXT_LIMITS:
        value = row.get(name)
        if isinstance(value, str) and len(value) > limit:
            raise sa.exc.DataError(f"column {name}", None,
                                   ValueError(f"{name} is {len(value)} characters, more than its {limit}"))


def _enrichment(existing: Mapping, new: Mapping) -> dict:
    """Fields a second source may fill or refine without contradicting the first."""
    updates = {}
    if existing["result_id_state"] != RESULT_ID_OFFICIAL and new["result_id_state"] == RESULT_ID_OFFICIAL:
        updates.update(result_id=new["result_id"], result_id_state=RESULT_ID_OFFICIAL, verified=new["verified"])
        if existing["source_url"].startswith("file:"):
            updates["source_url"] = new["source_url"]
    if _tps_rank(new) > _tps_rank(existing):
        updates.update(tokens_per_sample=new["tokens_per_sample"],
                       tokens_per_sample_basis=new["tokens_per_sample_basis"])
    if not existing["raw_system"] and new["raw_system"]:
        updates["raw_system"] = new["raw_system"]
    if existing["load_basis"] != LOAD_RUN_LOG and new["load_basis"] == LOAD_RUN_LOG:
        for name in ("target_qps", "ttft_bound_ms", "tpot_bound_ms", "p99_ttft_ms", "p99_tpot_ms",
                     "min_duration_ms", "load_basis"):
            updates[name] = new[name]
        # The run log carries more digits than the summary's rounded figure: keep the measurement.
        if new["value"] != existing["value"]:
            updates["value"] = new["value"]
        if existing["samples_per_s"] is None and new["samples_per_s"] is not None:
            updates["samples_per_s"] = new["samples_per_s"]
    corrections = _corrections_text(_corrections(existing["corrections"]) + _corrections(new["corrections"]))
    if corrections != existing["corrections"]:
        updates["corrections"] = corrections
    return updates


def _corrections(text: str) -> tuple[str, ...]:
    return tuple(x for x in text.split("; ") if x)


def _corrections_text(corrections) -> str:
    """Corrections as stored: each once, in one order whatever order the sources came in."""
    return "; ".join(sorted(set(corrections)))


_TWIN_FIELDS = ("value", "unit", "system_name", "accelerator", "accelerators_total", "tokens_per_sample")


def _twin_differences(twin: Mapping | None, row: Mapping) -> str:
    """A user-supplied row and a publication with the same key are kept apart (an unverified row
    never takes a published result's ID, nor lends it its conditions); where they disagree, say so."""
    if twin is None:
        return ""
    differ = [f for f in _TWIN_FIELDS if twin[f] != row[f] and not (
        f == "value" and same_at_published_precision(twin[f], row[f]))]
    if not differ:
        return ""
    kinds = {"csv": "the user-supplied (unverified) row", "mlcommons": "the MLCommons publication"}
    return (f"differs from {kinds[twin['origin']]} with the same key in {', '.join(differ)} "
            f"({'; '.join(f'{f}: {twin[f]!r} there, {row[f]!r} here' for f in differ)}); both are kept, apart")


# How directly a tokens-per-sample was measured, least first: the run's own accuracy log beats the
# summary table that publishes it, which beats a quotient of two throughputs. A source of higher rank
# replaces the stored basis whatever order the sources are ingested in; an equal rank keeps the first.
# An own run's basis stands alone (own runs never merge with a publication): ranked with the CSV's.
_TPS_PRECISION = (TPS_NOT_REPORTED, TPS_DERIVED, TPS_CSV, TPS_OWN, TPS_SUMMARY, TPS_ACCURACY_LOG)


def _tps_rank(row: Mapping) -> int:
    return _TPS_PRECISION.index(row["tokens_per_sample_basis"])


def _result_to_row(r: Result) -> dict:
    c = r.conditions
    row = {}
    for part in (c.identity, c.benchmark, c.shape, c.configuration):
        row.update(fields_of(part))
    load = fields_of(c.load)
    load["load_basis"] = load.pop("basis")
    row.update(load)
    row.update(fields_of(c.provenance))
    row.update(fields_of(c.run))
    row.update(origin=r.origin, value=r.value, unit=r.unit, samples_per_s=r.samples_per_s,
               corrections=_corrections_text(r.corrections), raw_system=r.raw_system)
    return row


def _row_to_result(row: Mapping, shared: dict | None = None) -> Result:
    """A stored row as a Result. With ``shared`` (one dict per read), equal condition parts (a cohort's
    benchmark, load, configuration, provenance) and equal strings are one object across the rows read,
    instead of one per row: a 100,000-row cohort then holds each distinct value once."""
    if shared is None:
        shared = {}

    def pick(cls, **renames):
        values = {}
        for f in cls.__dataclass_fields__:
            v = row[renames.get(f, f)]
            if type(v) is str:
                v = shared.setdefault(v, v)
            values[f] = v
        part = cls(**values)
        try:
            return shared.setdefault(part, part)
        except TypeError:  # a part holding an unhashable value stays the row's own
            return part
    conditions = Conditions(
        identity=pick(Identity),
        benchmark=pick(Benchmark),
        shape=pick(Shape),
        load=pick(Load, basis="load_basis"),
        configuration=pick(Configuration),
        provenance=pick(Provenance),
        run=pick(OwnRun) if not row["mlperf"] else NO_OWN_RUN,
    )
    corrections = _corrections(row["corrections"])
    unit, raw = row["unit"], row["raw_system"]
    return Result(conditions, row["value"], shared.setdefault(unit, unit), row["samples_per_s"], corrections,
                  shared.setdefault(raw, raw) if type(raw) is str else raw)


def _printable(text: str) -> str:
    return "".join(ch if ch.isprintable() or ch in "\n\t" else "\ufffd" for ch in text[: RAW_LIMIT * 2])


def mask_url(url: str) -> str:
    """A store URL fit for a message: the password and every query parameter's value masked."""
    url = str(url)
    scheme, sep, rest = url.partition("://")
    if not sep:
        return "<unparseable store URL>" if "@" in url or "?" in url else url
    rest, qmark, query = rest.partition("?")
    authority, slash, path = rest.partition("/")
    if "@" in authority:
        user, _, host = authority.rpartition("@")
        if ":" in user:
            user = user.split(":", 1)[0] + ":***"
        authority = f"{user}@{host}"
    if qmark:
        query = "&".join(part.split("=", 1)[0] + "=***" for part in query.split("&") if part)
    return f"{scheme}://{authority}{slash}{path}" + (f"?{query}" if qmark else "")


def _scrub(message: str, url: str) -> str:
    """A driver's message with any secret of the URL taken out (some drivers echo connection strings)."""
    try:
        parts = urlsplit(url)
        secrets = [parts.password or ""] + [v for _, v in parse_qsl(parts.query)]
    except ValueError:
        secrets = []
    for secret in sorted(filter(None, secrets), key=len, reverse=True):
        message = message.replace(secret, "***")
    return message.replace(url, mask_url(url))


_SQLITE_MAGIC = b"SQLite format 3\x00"


def open_store(url: str | None = None, *, create: bool = True, wait_s: float = DEFAULT_WAIT_S,
               tell: Callable[[str], None] | None = None, outdated_ok: bool = False) -> Store:
    """Open the store at ``url`` (default: see ``default_url``), creating it on first use when
    ``create``; without it (the read commands) a missing store is an error and nothing is made.

    A store of an older schema version is StoreOutdated (saying how to upgrade it), unless
    ``outdated_ok`` (for the migrations and ``store info``, which read it as it is); one of a newer
    version is refused.

    A file or database that is not an exportguard store is refused, never extended. An SQLite file
    that cannot be written is opened read-only, with its write-ahead log. A writer waits up to
    ``wait_s`` seconds for another, telling ``tell`` that it waits. No message shows a password or
    query parameter."""
    url = url or default_url()
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        url = "postgresql+psycopg://" + url.split("://", 1)[1]
    shown = mask_url(url)
    try:
        sa_url = sa.engine.make_url(url)
        backend = sa_url.get_backend_name()
        _ = sa_url.port  # a port that is not a number fails here, not deep in a driver
    except (sa.exc.ArgumentError, ValueError) as e:
        raise StoreError(f"not a database URL: {shown} ({_scrub(str(e), url)})") from None
    read_only, path = False, None
    if backend == "sqlite":
        engine, read_only, path = _sqlite_engine(sa_url, shown, create, wait_s)
    elif backend == "postgresql":
        engine = sa.create_engine(sa_url, pool_pre_ping=True)
    else:
        raise StoreError(f"unsupported database {backend!r} in {shown}: use sqlite:/// or postgresql://")
    store = Store(engine, url, read_only, path=path, wait_s=wait_s, tell=tell)
    try:
        _ensure_schema(store, create, outdated_ok)
    except StoreError:
        engine.dispose()
        raise
    except sa.exc.DBAPIError as e:
        engine.dispose()
        raise StoreError(f"cannot open the store at {shown}: {_cause(e, url)}") from None  # one line
    return store


def _cause(err: sa.exc.DBAPIError, url: str) -> str:
    """A driver's error in one line, without the URL's secrets. A full disk is said first, in those words:
    SQLite rolls the whole transaction back when the disk fills, so what surfaces is often a later error
    ("no such savepoint") whose context holds the full disk."""
    full = _disk_full(err)
    if full:
        return _scrub(f"disk full ({full})", url)
    text = str(getattr(err, "orig", None) or err).strip().splitlines()
    return _scrub(text[0] if text else type(err).__name__, url)


_DISK_FULL_WORDS = ("database or disk is full", "No space left on device", "File too large")


def _disk_full(err: BaseException) -> str:
    """The words of a full disk (SQLITE_FULL, ENOSPC, EFBIG, PostgreSQL's 53100) in ``err`` or its context."""
    seen, hops = err, 0
    while seen is not None and hops < 8:
        orig = getattr(seen, "orig", None) or seen
        text = (str(orig).strip().splitlines() or [""])[0]
        if getattr(orig, "sqlstate", None) == "53100" or any(w in text for w in _DISK_FULL_WORDS):
            return text
        seen, hops = seen.__context__, hops + 1
    return ""


def _file_id(path: Path) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_dev, st.st_ino


def _sqlite_engine(sa_url, shown: str, create: bool, wait_s: float) -> tuple[sa.Engine, bool, Path | None]:
    database = sa_url.database
    read_only = False
    path = None
    if database and database != ":memory:" and not database.startswith("file:"):
        path = Path(database).expanduser()
        if path.exists():
            if not path.is_file():
                raise StoreError(f"the store at {shown} is not a file")
            with open(path, "rb") as f:
                head = f.read(16)
            if head and head != _SQLITE_MAGIC:
                raise StoreError(f"the store at {shown} is not an SQLite database (it starts with {head[:8]!r}); "
                                 "point --db at an exportguard store or a new file")
            if not head and not create:
                raise StoreError(f"no exportguard store at {path}: the file is empty. Ingest into it first "
                                 "(exportguard ingest PATH), or point --db / EXPORTGUARD_DB at your store")
            read_only = not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK | os.X_OK))
        elif not create:
            raise StoreError(f"no exportguard store at {path}: nothing is there. Ingest into it first "
                             "(exportguard ingest PATH, or exportguard demo), or point --db / EXPORTGUARD_DB at "
                             "your store")
        else:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise StoreError(f"cannot create the store at {shown}: {e.strerror}") from None
        if read_only:
            sa_url = sa_url.set(database=_read_only_uri(path, shown), query={"uri": "true"})
    busy_ms = int(max(wait_s, 0.0) * 1000)
    engine = sa.create_engine(sa_url, connect_args={"timeout": max(wait_s, 0.0)})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn, record):
        # We issue BEGIN ourselves (see _on_begin): pysqlite's implicit BEGIN cannot tell a reader
        # from a writer.
        dbapi_conn.isolation_level = None
        if path is not None:
            try:  # the file this connection has open, to notice when the path comes to name another one
                record.info["file_id"] = _file_id(path)
            except OSError:
                pass
        cur = dbapi_conn.cursor()
        cur.execute(f"PRAGMA busy_timeout = {busy_ms}")
        if not read_only and create:
            _wal(cur, wait_s)
        cur.execute("PRAGMA foreign_keys = ON")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn):
        # A writer takes the write lock up front (a deferred reader that later writes is what fails
        # with "database is locked" under concurrency); a reader takes no lock at all in WAL mode.
        policy = conn.get_execution_options().get("exportguard_write")
        if policy:
            _sqlite_write_lock(conn, policy, busy_ms)
        else:
            conn.exec_driver_sql("BEGIN")

    return engine, read_only, path


def _read_only_uri(path: Path, shown: str) -> str:
    """How to open a store we may not write: read-only but with its write-ahead log (whose -shm
    index SQLite must be able to find or make). Where it cannot, and the log is empty or absent
    (the last writer closed cleanly: everything is in the main file), as an immutable file; where
    committed results wait in a log we cannot read, refuse, saying why and what to do."""
    import sqlite3
    from urllib.parse import quote

    uri = f"file:{quote(str(path))}?mode=ro"
    try:
        probe = sqlite3.connect(uri, uri=True)
        try:
            probe.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return uri
        finally:
            probe.close()
    except sqlite3.Error as e:
        problem = str(e)
    wal = Path(f"{path}-wal")
    try:
        logged = wal.stat().st_size
    except FileNotFoundError:
        logged = 0
    if not logged:
        return uri + "&immutable=1"
    raise StoreError(
        f"the store at {shown} cannot be read without write access: its write-ahead log {wal} holds "
        f"{logged:,} bytes of committed changes, which SQLite reads only where it may make {path}-shm in "
        f"{path.parent} ({problem}). Open the store once with write access (any exportguard ingest, or "
        f"`sqlite3 {path} 'PRAGMA wal_checkpoint(TRUNCATE)'`), or copy {path.name} with {wal.name} to a "
        "folder you can write and read it there")


def _sqlite_write_lock(conn, policy: _WritePolicy, busy_ms: int) -> None:
    """BEGIN IMMEDIATE: at once if no other writer holds the store; else say so and wait up to the
    bound, then refuse in one line."""
    import sqlite3

    def busy(e: sa.exc.OperationalError) -> bool:
        return getattr(e.orig, "sqlite_errorcode", None) == sqlite3.SQLITE_BUSY or "locked" in str(e.orig)

    conn.exec_driver_sql("PRAGMA busy_timeout = 0")  # the first try answers at once: free, or held
    try:
        for patience_ms in (0, int(policy.wait_s * 1000)):
            if patience_ms:  # held by another writer: say so, then wait up to the bound
                policy.tell(_waiting(policy))
                conn.exec_driver_sql(f"PRAGMA busy_timeout = {patience_ms}")
            try:
                conn.exec_driver_sql("BEGIN IMMEDIATE")
                return
            except sa.exc.OperationalError as e:
                if not busy(e):
                    raise
            if not patience_ms and policy.wait_s <= 0:
                break
        raise StoreError(_still_busy(policy))
    finally:
        conn.exec_driver_sql(f"PRAGMA busy_timeout = {busy_ms}")


def _pg_write_lock(conn, policy: _WritePolicy) -> None:
    """The same on PostgreSQL, with a transaction-scoped advisory lock and lock_timeout."""
    key = {"k": _ADVISORY_LOCK_ID}
    if conn.execute(sa.text("SELECT pg_try_advisory_xact_lock(:k)"), key).scalar():
        return
    if policy.wait_s > 0:
        policy.tell(_waiting(policy))
        conn.execute(sa.text(f"SET LOCAL lock_timeout = {max(1, int(policy.wait_s * 1000))}"))
        try:
            conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), key)
            conn.execute(sa.text("SET LOCAL lock_timeout = DEFAULT"))
            return
        except sa.exc.OperationalError as e:
            if getattr(e.orig, "sqlstate", None) != "55P03":  # lock_not_available
                raise
    raise StoreError(_still_busy(policy))


def _pg_session_lock(conn, policy: _WritePolicy) -> None:
    """The writers' advisory lock held by a session (a migrator's, across its transactions); waits
    as a writer does, then refuses in one line."""
    key = {"k": _ADVISORY_LOCK_ID}
    try:
        if conn.execute(sa.text("SELECT pg_try_advisory_lock(:k)"), key).scalar():
            return
        if policy.wait_s > 0:
            policy.tell(_waiting(policy))
            conn.execute(sa.text(f"SET lock_timeout = {max(1, int(policy.wait_s * 1000))}"))
            try:
                conn.execute(sa.text("SELECT pg_advisory_lock(:k)"), key)
                return
            except sa.exc.OperationalError as e:
                conn.rollback()
                if getattr(e.orig, "sqlstate", None) != "55P03":  # lock_not_available
                    raise
        raise StoreError(_still_busy(policy))
    finally:
        if conn.in_transaction():
            conn.commit()  # a session lock outlives the transaction that took it
        conn.execute(sa.text("SET lock_timeout = DEFAULT"))
        conn.commit()


def _waiting(policy: _WritePolicy) -> str:
    return (f"waiting for another writer of {policy.shown} (another exportguard ingest?) to finish: up to "
            f"{policy.wait_s:g} s (--wait SECONDS to change)")


def _still_busy(policy: _WritePolicy) -> str:
    waited = f"for {policy.wait_s:g} s" if policy.wait_s > 0 else "and --wait 0 says not to wait"
    return (f"{policy.shown}: another writer (another exportguard ingest?) holds the store, waited {waited}; "
            "nothing was stored. Run again when it is done, or give a longer --wait SECONDS")


def _wal(cur, patience_s: float = DEFAULT_WAIT_S) -> None:
    """WAL mode (it persists in the file): switching needs a moment alone with the database, and
    SQLite answers "locked" at once rather than waiting when another process has it open, as when
    two ingests open a new store together; so ask again until it is done or the patience is gone."""
    import sqlite3

    if cur.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal":
        return
    deadline = time.monotonic() + patience_s
    while True:
        try:
            cur.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def _ensure_schema(store: Store, create: bool, outdated_ok: bool = False) -> None:
    """Check the schema without taking the write lock; create it (under the lock) only when the
    database holds no table at all."""
    with store.engine.connect() as conn:
        state = _schema_state(store, conn, outdated_ok)
    if state in ("ours", "outdated"):
        return
    if not create:
        raise StoreError(f"no exportguard store at {store.display_url}: the database holds no exportguard tables. "
                         "Ingest into it first (exportguard ingest PATH), or point --db / EXPORTGUARD_DB at your store")
    with store.writing() as conn:
        if _schema_state(store, conn) == "ours":  # another process created it meanwhile
            return
        metadata.create_all(conn)
        conn.execute(meta_table.insert(), [{"key": "schema_version", "value": str(SCHEMA_VERSION)},
                                           {"key": "exportguard_version", "value": tool_version()}])


class StoreOutdated(StoreError):
    """A store of an older schema version: ``exportguard store upgrade`` migrates it."""

    def __init__(self, message: str, found: int):
        super().__init__(message)
        self.found = found


def tool_version() -> str:
    """This exportguard's release, X.Y (what a store records, to name it to an older exportguard)."""
    from ._version import VERSION

    return ".".join(VERSION.split(".")[:2])


def schema_version(conn) -> int | None:
    """The schema version a store records (None: none recorded, or not a number)."""
    found = conn.execute(sa.select(meta_table.c.value).where(meta_table.c.key == "schema_version")).scalar()
    try:
        return int(found)
    except (TypeError, ValueError):
        return None


def _schema_state(store: Store, conn, outdated_ok: bool = False) -> str:
    """'ours' (a store of this schema version), 'outdated' (an older one, where ``outdated_ok``) or
    'empty'; anything else is refused."""
    tables = set(sa.inspect(conn).get_table_names())
    if meta_table.name in tables:
        found = schema_version(conn)
        if found == SCHEMA_VERSION:
            return "ours"
        if found is not None and found < SCHEMA_VERSION:
            if outdated_ok:
                return "outdated"
            raise StoreOutdated(
                f"the store at {store.display_url} has schema version {found}, older than this exportguard's "
                f"{SCHEMA_VERSION}: upgrade it, keeping every row, with `exportguard store upgrade` (same --db), or "
                "give ingest/export --upgrade (or set EXPORTGUARD_AUTO_UPGRADE=1)", found)
        made = conn.execute(sa.select(meta_table.c.value).where(meta_table.c.key == "exportguard_version")).scalar()
        by = f"made by a newer exportguard {made}" if made else "made by a newer exportguard"
        if found is None:
            raise StoreError(f"the store at {store.display_url} records no readable schema version; this exportguard "
                             f"uses version {SCHEMA_VERSION}. Point --db / EXPORTGUARD_DB at an exportguard store")
        raise StoreError(
            f"the store at {store.display_url} has schema version {found}, {by}; this exportguard "
            f"({tool_version()}) uses version {SCHEMA_VERSION}: use that exportguard or a newer one with it")
    if tables:
        listed = ", ".join(sorted(tables)[:5]) + (" ..." if len(tables) > 5 else "")
        raise StoreError(f"{store.display_url} is not an exportguard store (it holds other tables: {listed}); "
                         "refusing to add exportguard's tables to it. Point --db / EXPORTGUARD_DB at a new file "
                         "or an empty database.")
    return "empty"
