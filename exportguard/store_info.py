"""What a store holds, counted: for ``exportguard store info`` and for the before/after of an upgrade.

Reads a store of any schema version (an older one has no own runs: schema 3 brought them).
"""
from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa

from .store import Store, schema_version


@dataclass(frozen=True)
class Counts:
    results: int
    own_runs: int
    sources: int
    quarantines: int
    ingest_runs: int

    def line(self) -> str:
        from .wording import count_words

        return (f"{count_words(self.results, 'result')} ({count_words(self.own_runs, 'own run')}), "
                f"{count_words(self.sources, 'source')}, {count_words(self.quarantines, 'quarantined row')}, "
                f"{count_words(self.ingest_runs, 'ingest run')}")


def counts(conn: sa.Connection) -> Counts:
    """The rows of each table, in the transaction ``conn`` is in."""
    def count(sql: str) -> int:
        return conn.exec_driver_sql(sql).scalar_one()

    columns = {c["name"] for c in sa.inspect(conn).get_columns("results")}
    own = count("SELECT count(*) FROM results WHERE origin = 'own'") if "origin" in columns else 0
    return Counts(count("SELECT count(*) FROM results"), own, count("SELECT count(*) FROM result_sources"),
                  count("SELECT count(*) FROM quarantine"), count("SELECT count(*) FROM ingest_runs"))


@dataclass(frozen=True)
class Info:
    url: str  # masked: no password, no query
    engine: str
    version: int | None
    counts: Counts


def info(store: Store) -> Info:
    """The store's URL (without its password and query), engine, schema version and counts, read in
    one snapshot."""
    with store.reading() as conn:
        return Info(store.display_url.partition("?")[0], store.engine.dialect.name, schema_version(conn),
                    counts(conn))
