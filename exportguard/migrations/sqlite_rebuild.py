"""SQLite's way to change a table's constraints: make the new table, copy the rows, drop the old one,
rename the new one (https://www.sqlite.org/lang_altertable.html#otheralter). ALTER TABLE cannot add or
drop a CHECK or UNIQUE constraint there, nor make a column nullable.

The caller runs it inside its step's transaction on a connection with foreign keys off (SQLite
ignores that pragma inside a transaction; Store.migrating sets it): dropping ``results`` must not
touch the result_sources rows that reference it. The references are checked before the step
commits.
"""
from __future__ import annotations

from typing import Mapping, Sequence

NEW = "_exportguard_new_results"


def rebuild_results(bind, create_sql: str, expressions: Mapping[str, str] | None = None,
                    indexes: Sequence[str] = ()) -> None:
    """Replace ``results`` by a table made with ``create_sql`` (its CREATE TABLE results statement),
    holding every row: each column of the new table gets ``expressions[column]`` (SQL over the old
    row), or the old column of its name."""
    head = "CREATE TABLE results ("
    if not create_sql.startswith(head):
        raise ValueError("create_sql must begin with " + head)
    bind.exec_driver_sql(f"CREATE TABLE {NEW} (" + create_sql[len(head):])
    columns = [row[1] for row in bind.exec_driver_sql(f"PRAGMA table_info({NEW})")]
    names = ", ".join(columns)
    values = ", ".join((expressions or {}).get(c, c) for c in columns)
    bind.exec_driver_sql(f"INSERT INTO {NEW} ({names}) SELECT {values} FROM results")
    bind.exec_driver_sql("DROP TABLE results")  # its indexes go with it
    bind.exec_driver_sql(f"ALTER TABLE {NEW} RENAME TO results")
    for sql in indexes:
        bind.exec_driver_sql(sql)
    broken = bind.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
    if broken:
        raise RuntimeError(f"the rebuilt results table leaves {len(broken)} reference(s) dangling: {broken[:3]}")
