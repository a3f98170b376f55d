"""Upgrade a store to this exportguard's schema: one Alembic revision per version, each in one
transaction under the store's write lock, driven without alembic.ini.

PostgreSQL: the migrator holds the writers' advisory lock from its first read to its last commit
(Store.migrating), so a concurrent upgrade, ingest or export --upgrade waits, then finds the store
current and migrates nothing. SQLite: before the first step changes anything, a copy of the store
file as it was is made beside it (with SQLite's backup API, under the write lock: a consistent copy,
WAL included) and named; it is removed once the last step has committed, and kept if anything fails.
"""
from __future__ import annotations

import os
import signal
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import sqlalchemy as sa

from ..errors import StoreError
from ..signals import held
from ..store import SCHEMA_VERSION, DEFAULT_WAIT_S, Store, meta_table, open_store, schema_version, tool_version
from ..store_info import Counts, counts

HERE = Path(__file__).resolve().parent
# A test's hook (tests/test_store_upgrade.py): "VERSION:WHERE:ACTION", WHERE before-commit or
# after-commit of the step to VERSION, ACTION kill (SIGKILL, as a power cut would) or sleep=SECONDS.
FAULT_HOOK = "EXPORTGUARD_TEST_MIGRATION_HOOK"


@dataclass
class Upgrade:
    url: str
    before: int
    after: int
    counts_before: Counts
    counts_after: Counts
    steps: list[tuple[int, float]] = field(default_factory=list)  # (version reached, seconds)
    copy: Path | None = None  # the SQLite copy made (and removed once the upgrade committed)


def upgrade(url: str | None = None, *, wait_s: float = DEFAULT_WAIT_S,
            tell: Callable[[str], None] | None = None) -> Upgrade:
    """Migrate the store at ``url`` to SCHEMA_VERSION, step by step; telling ``tell`` of each step
    and of the copy kept. A store that is current already is left alone."""
    tell = tell or (lambda _text: None)
    with open_store(url, create=False, wait_s=wait_s, tell=tell, outdated_ok=True) as store:
        with store.migrating() as conn:
            with conn.begin():
                before, counts_before = schema_version(conn), counts(conn)
            result = Upgrade(store.display_url, before, before, counts_before, counts_before)
            try:
                for target in range(before + 1, SCHEMA_VERSION + 1):
                    _step(store, conn, target, result, tell)
            except StoreError:
                raise
            except Exception as e:
                kept = f"; the copy {result.copy} is kept" if result.copy else ""
                raise StoreError(f"{store.display_url}: the upgrade to schema {target} failed and was rolled back, "
                                 f"the store is at schema {result.after}{kept}: {type(e).__name__}: "
                                 f"{str(e).splitlines()[0] if str(e) else ''}") from e
            with conn.begin():
                result.counts_after = counts(conn)
    if result.copy is not None:
        result.copy.unlink(missing_ok=True)
        tell(f"the upgrade committed: removed the copy {result.copy}")
    return result


def _step(store: Store, conn: sa.Connection, target: int, result: Upgrade, tell) -> None:
    started = time.perf_counter()
    with conn.begin() as transaction:
        found = schema_version(conn)  # again, under the lock: another migrator may have taken this step
        if found >= target:
            result.after = found
            return
        if store.path is not None and result.copy is None:
            result.copy = _keep_copy(store.path, found)
            tell(f"kept a copy of the store as it was (schema {found}): {result.copy}; it is removed when the "
                 "upgrade commits")
        _run_revision(conn, target)
        conn.execute(meta_table.update().where(meta_table.c.key == "schema_version").values(value=str(target)))
        _record_tool(conn)
        _hook(target, "before-commit")
        with held():  # a stop (SIGINT, SIGTERM) comes before the commit or after it
            transaction.commit()
    _hook(target, "after-commit")
    seconds = time.perf_counter() - started
    result.after = target
    result.steps.append((target, seconds))
    tell(f"schema {target - 1} -> {target}: {seconds:.2f} s")


def _run_revision(conn: sa.Connection, target: int) -> None:
    """Alembic's revision ``target`` on ``conn``, inside the caller's transaction."""
    from alembic.operations import Operations
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    script = ScriptDirectory(str(HERE)).get_revision(str(target))
    with Operations.context(MigrationContext.configure(connection=conn)):
        script.module.upgrade()


def _record_tool(conn: sa.Connection) -> None:
    """Which exportguard last migrated the store: what an older one names when it refuses it."""
    c = meta_table.c
    if conn.execute(sa.select(c.key).where(c.key == "exportguard_version")).first():
        conn.execute(meta_table.update().where(c.key == "exportguard_version").values(value=tool_version()))
    else:
        conn.execute(meta_table.insert().values(key="exportguard_version", value=tool_version()))


def _keep_copy(path: Path, version: int) -> Path:
    copy = path.with_name(f"{path.name}.schema-{version}.bak")
    source = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        target = sqlite3.connect(copy)
        try:
            source.backup(target)
        finally:
            target.close()
    finally:
        source.close()
    return copy


def _hook(version: int, where: str) -> None:
    wanted = os.environ.get(FAULT_HOOK, "")
    if not wanted:
        return
    at, _, rest = wanted.partition(":")
    place, _, action = rest.partition(":")
    if at != str(version) or place != where:
        return
    if action == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif action.startswith("sleep="):
        time.sleep(float(action.split("=", 1)[1]))
