"""Correcting the store: removing stored results or own runs (by natural key, MLCommons result ID, own
run ID or source), and re-describing the system of own runs (what no load-test file records, stated
at ingest, or never), each in one transaction that also writes an audit record of what it changed.

The audit records live in the store's metadata table (``exportguard_meta``), one row per correction
under the key ``audit/<UTC time>/<id>``, as JSON: what was asked, and each row's values before and
after. Kept there rather than in a table of their own so that correcting needs no schema change (and
no migration of every user's store); ``exportguard audit`` prints them.
"""
from __future__ import annotations

import json
import os
import uuid
from dataclasses import dataclass, field
from typing import Sequence

import sqlalchemy as sa

from .errors import SourceError
from .ingest.source import display, now_iso
from .store import (Store, _check_row, _result_to_row, _row_to_result, meta_table, result_sources_table,
                    results_table)

AUDIT_PREFIX = "audit/"
# The columns a system description sets on an own run (own_build.own_result): what re-describing changes.
SYSTEM_COLUMNS = ("submitter", "submitter_key", "system_name", "system_id", "accelerator", "accelerators_per_node",
                  "nodes", "accelerators_total", "framework", "host_processor", "server_settings")
# A natural key as `--key` takes it, in the order Result.natural_key gives it
KEY_COLUMNS = ("origin", "round", "division", "submitter_key", "system_id", "benchmark", "scenario", "run_id")


class CorrectionError(Exception):
    """A correction that cannot be made as asked; nothing was changed."""


@dataclass
class Selection:
    keys: Sequence[str] = ()
    result_ids: Sequence[str] = ()
    run_ids: Sequence[str] = ()
    sources: Sequence[str] = ()

    def empty(self) -> bool:
        return not (self.keys or self.result_ids or self.run_ids or self.sources)

    def words(self) -> str:
        parts = [f"{name} {v}" for name, values in (("key", self.keys), ("result ID", self.result_ids),
                                                    ("run ID", self.run_ids), ("source", self.sources))
                 for v in values]
        return ", ".join(parts)


@dataclass
class Change:
    action: str  # "removed" / "re-described"
    asked: str
    rows: list = field(default_factory=list)  # one line per row changed, for the terminal and the audit

    def record(self) -> dict:
        return {"at": now_iso(), "action": self.action, "asked": self.asked, "rows": self.rows}


def _clauses(conn, sel: Selection) -> list:
    c = results_table.c
    clauses = []
    for key in sel.keys:
        parts = _key_parts(key)
        if len(parts) not in (len(KEY_COLUMNS) - 1, len(KEY_COLUMNS)):
            raise CorrectionError(f"the key {key!r} is not origin/round/division/submitter/system/benchmark/scenario"
                                  "[/run ID] (as `exportguard list --json` gives each figure's conditions)")
        parts += [""] * (len(KEY_COLUMNS) - len(parts))
        clauses.append(sa.and_(*(c[name] == value for name, value in zip(KEY_COLUMNS, parts))))
    for rid in sel.result_ids:
        clauses.append(c.result_id == rid)
    for run_id in sel.run_ids:
        clauses.append(_run_clause(conn, run_id))
    for source in sel.sources:
        clauses.append(c.source_path.in_(_source_spellings(source)))
    return clauses


def _key_parts(key: str) -> list[str]:
    """A key as a JSON list (["own", "n/a", ...]: values may hold "/") or joined with "/"."""
    if key.lstrip().startswith("["):
        try:
            parts = json.loads(key)
        except ValueError:
            parts = None
        if not (isinstance(parts, list) and all(isinstance(p, str) for p in parts)):
            raise CorrectionError(f"the key {key!r} is not a JSON list of texts")
        return parts
    return key.split("/")


def _run_clause(conn, run_id: str):
    """A run ID, or a unique prefix of at least 8 characters of one (IDs are 64 hex digits)."""
    c = results_table.c
    if len(run_id) < 8:
        raise CorrectionError(f"the run ID {run_id!r} is too short: give at least 8 of its characters")
    found = list(conn.execute(sa.select(c.run_id).distinct().where(c.origin == "own", c.run_id.startswith(
        run_id, autoescape=True))).scalars())
    if len(found) > 1:
        raise CorrectionError(f"the run ID {run_id!r} is the start of {len(found)} runs' IDs: give more of it")
    return c.run_id == (found[0] if found else run_id)


def _source_spellings(source: str) -> list[str]:
    """A source as the store names it (its real path, shown as ingest shows it) and as typed."""
    return sorted({source, display(os.path.realpath(source)), display(os.path.abspath(source))})


def _describe(row) -> str:
    if row["origin"] == "own":
        return (f"own run {row['run_id'][:12]} ({row['tool']}, {row['benchmark']}, {row['scenario']}, "
                f"{row['value']:.6g} {row['unit']}) from {row['source_path']} {row['source_locator']}")
    return (f"{row['round']} {row['division']} {row['submitter']} {row['system_name']} {row['benchmark']} "
            f"{row['scenario']} ({row['value']:.6g} {row['unit']}) from {row['source_path']}")


def remove(store: Store, sel: Selection, *, dry_run: bool = False) -> Change:
    """Remove the selected results with their source records; returns what was (or would be) removed."""
    if sel.empty():
        raise CorrectionError("name what to remove: --key, --result-id, --run-id or --source")
    change = Change("removed" if not dry_run else "would remove", sel.words())
    with store.writing() as conn:
        clauses = _clauses(conn, sel)
        rows = list(conn.execute(sa.select(results_table).where(sa.or_(*clauses)).order_by(
            results_table.c.id)).mappings())
        change.rows = [_describe(r) for r in rows]
        if not rows or dry_run:
            return change
        ids = [r["id"] for r in rows]
        conn.execute(result_sources_table.delete().where(result_sources_table.c.result_pk.in_(ids)))
        conn.execute(results_table.delete().where(results_table.c.id.in_(ids)))
        if sel.sources:  # the source's own records of results that stay (it enriched or confirmed them)
            conn.execute(result_sources_table.delete().where(result_sources_table.c.source_path.in_(
                [s for source in sel.sources for s in _source_spellings(source)])))
        _audit(conn, change)
    return change


def redescribe(store: Store, run_ids: Sequence[str], system) -> Change:
    """Give the selected own runs the system ``system`` (an own_system.SystemDescription) describes, as an
    ingest with that description would have stored them."""
    from .ingest.own_build import redescribed

    if not run_ids:
        raise CorrectionError("name the own runs to re-describe: --run-id (see `exportguard list --json`)")
    change = Change("re-described", f"{', '.join(run_ids)} as {system.source or 'the options given'}")
    with store.writing() as conn:
        clause = sa.or_(*(_run_clause(conn, r) for r in run_ids))
        rows = list(conn.execute(sa.select(results_table).where(clause, results_table.c.origin == "own")).mappings())
        missing = [r for r in run_ids if not any(row["run_id"].startswith(r) for row in rows)]
        if missing:
            raise CorrectionError(f"no own run with the ID {missing[0]!r} is stored")
        for row in rows:
            try:
                new_row = _result_to_row(redescribed(_row_to_result(row), system))
            except SourceError as e:
                raise CorrectionError(f"{e}: nothing was changed") from None
            _check_row(new_row)
            diff = {k: (row[k], new_row[k]) for k in SYSTEM_COLUMNS if row[k] != new_row[k]}
            if not diff:
                change.rows.append(f"{_describe(row)}: already so described, unchanged")
                continue
            try:
                with conn.begin_nested():
                    conn.execute(results_table.update().where(results_table.c.id == row["id"]).values(
                        **{k: new for k, (_, new) in diff.items()}))
            except sa.exc.IntegrityError:
                raise CorrectionError(f"{_describe(row)}: a run with the same key is already stored under that "
                                      "system: nothing was changed") from None
            change.rows.append(f"{_describe(row)}: " + "; ".join(
                f"{k} {old!r} -> {new!r}" for k, (old, new) in diff.items()))
        if any("->" in line for line in change.rows):
            _audit(conn, change)
    return change


def _audit(conn, change: Change) -> None:
    key = f"{AUDIT_PREFIX}{now_iso()}/{uuid.uuid4().hex[:12]}"
    conn.execute(meta_table.insert().values(key=key, value=json.dumps(change.record(), ensure_ascii=False)))


def audit_records(store: Store) -> list[dict]:
    with store.reading() as conn:
        rows = conn.execute(sa.select(meta_table.c.value).where(meta_table.c.key.startswith(AUDIT_PREFIX)).order_by(
            meta_table.c.key)).scalars()
        return [json.loads(v) for v in rows]

