"""Ingest: read sources (MLCommons trees, summary tables, CSV) into the store.

Each reader turns one source into a stream of items, one per input row: a Result to store, a
Quarantined row (with the reason), or a Skipped row (outside the rules, e.g. not an LLM
benchmark). The driver writes the stream in one transaction and counts, so that for every source
rows read = added + enriched + unchanged + changed + quarantined + skipped.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator, Union

import sqlalchemy as sa

from ..errors import SourceError
from ..model import Result
from ..store import Store

MAX_SOURCE_BYTES = 256 * 1024 * 1024  # a summary table is ~2 MB; anything this large is not one


@dataclass(frozen=True)
class Source:
    kind: str  # mlperf_tree / mlperf_summary / csv
    path: str
    sha256: str
    retrieved_on: str
    ingested_at: str


@dataclass(frozen=True)
class Quarantined:
    locator: str
    reason: str
    message: str
    raw: str = ""

    @classmethod
    def from_error(cls, err: SourceError, locator: str = "", raw: str = "") -> "Quarantined":
        where = ", ".join(x for x in (locator, err.locator) if x)
        return cls(where, err.reason, err.message, err.raw or raw)


@dataclass(frozen=True)
class Skipped:
    locator: str
    reason: str


Item = Union[Result, Quarantined, Skipped]


@dataclass
class IngestReport:
    source: Source
    rows_read: int = 0
    added: int = 0
    enriched: int = 0
    unchanged: int = 0
    changed: int = 0
    quarantined: int = 0
    skipped: int = 0
    skip_reasons: dict = field(default_factory=dict)
    quarantine_reasons: dict = field(default_factory=dict)
    changes: list = field(default_factory=list)
    apart: list = field(default_factory=list)  # stored beside a row of the other origin that disagrees

    @property
    def reconciles(self) -> bool:
        return self.rows_read == (self.added + self.enriched + self.unchanged + self.changed
                                  + self.quarantined + self.skipped)

    def summary_line(self) -> str:
        return (f"{self.source.path} ({self.source.kind}): {self.rows_read} read = {self.added} added"
                f" + {self.enriched} enriched + {self.unchanged} unchanged + {self.changed} changed"
                f" + {self.quarantined} quarantined + {self.skipped} skipped by rule")


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def read_bounded(path: Path, limit: int, locator: str = "") -> bytes:
    """Read a file, refusing one larger than ``limit`` (a hostile file is not read into memory)."""
    size = path.stat().st_size
    if size > limit:
        raise SourceError("file_too_large", f"{size:,} bytes is more than the {limit:,} this kind of file may have",
                          locator or str(path))
    return path.read_bytes()


def decode_utf8(data: bytes, locator: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise SourceError("not_utf8", f"byte {e.start} (line {line}) is not UTF-8: {data[e.start:e.start + 4]!r}",
                          locator) from None


def mtime_date(path: Path) -> str:
    return dt.date.fromtimestamp(path.stat().st_mtime).isoformat()


def now_iso() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def detect_kind(path: Path) -> str:
    """mlperf_tree for a folder, mlperf_summary for a JSON table, csv for a CSV; judged by content
    where the name could lie."""
    if path.is_dir():
        return "mlperf_tree"
    if not path.is_file():
        raise SourceError("not_found", "no such file or folder", str(path))
    with open(path, "rb") as f:
        head = f.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    suffix = path.suffix.lower()
    if suffix == ".json" or head[:1] in (b"[", b"{"):
        if head[:1] != b"[":
            raise SourceError("not_a_summary_table",
                              "expected an MLCommons summary table (a JSON list of result rows); "
                              f"the file starts with {head[:40]!r}", str(path))
        return "mlperf_summary"
    if suffix == ".csv":
        if b"\x00" in head:
            raise SourceError("not_a_csv", "binary data in a file named .csv", str(path))
        return "csv"
    raise SourceError("unknown_source_kind",
                      "cannot tell what this is: give a submission tree folder, a *_summary_results.json or a .csv",
                      str(path))


def ingest_path(store: Store, path: str | Path, *, retrieved_on: str | None = None, round: str | None = None,
                progress: Callable[[int], None] | None = None) -> IngestReport:
    """Ingest one source into the store; returns its reconciled report."""
    from . import csv_rows, mlperf_summary, mlperf_tree

    path = Path(path)
    round = _round_argument(round)
    try:
        kind = detect_kind(path)
    except SourceError as err:
        if not path.exists():
            raise
        # A file that is not what its name says is itself quarantined: nothing is silently dropped.
        source = Source("csv" if path.suffix.lower() == ".csv" else "mlperf_summary", str(path),
                        sha256_file(path), retrieved_on or mtime_date(path), now_iso())
        return _write(store, source, [Quarantined.from_error(err)], progress)
    if kind == "mlperf_tree":
        sha, tree_date = mlperf_tree.tree_identity(path)
        retrieved = retrieved_on or tree_date
    else:
        sha, retrieved = sha256_file(path), retrieved_on or mtime_date(path)
    source = Source(kind, str(path), sha, retrieved, now_iso())
    reader = {"mlperf_tree": lambda: mlperf_tree.read_tree(path, source, round=round),
              "mlperf_summary": lambda: mlperf_summary.read_summary(path, source),
              "csv": lambda: csv_rows.read_csv(path, source)}[kind]
    return _write(store, source, _guarded(reader, path), progress)


def _round_argument(round: str | None) -> str | None:
    """The round a caller names for a tree, as the store spells it ("5.1" and "v5.1" both give "v5.1")."""
    if round is None:
        return None
    m = re.fullmatch(r"v?(\d+\.\d+)", str(round).strip(), re.IGNORECASE)
    if not m:
        raise SourceError("bad_round", f"the round {round!r} is not a round like v5.1")
    return "v" + m.group(1)


def _guarded(reader: Callable[[], Iterable[Item]], path: Path) -> Iterator[Item]:
    """A reader that fails as a whole (truncated JSON, unreadable file) yields one quarantine row."""
    try:
        yield from reader()
    except SourceError as err:
        yield Quarantined.from_error(err, raw="")
    except OSError as err:
        yield Quarantined(str(path), "unreadable", f"{type(err).__name__}: {err}")


def _write(store: Store, source: Source, items: Iterable[Item], progress) -> IngestReport:
    report = IngestReport(source)
    with store.writing() as conn:
        for item in items:
            report.rows_read += 1
            outcome = None
            if isinstance(item, Result):
                try:
                    with conn.begin_nested():
                        outcome = store.put_result(conn, item)
                except (sa.exc.IntegrityError, sa.exc.DataError, UnicodeEncodeError) as err:
                    # The store's constraints are the last guard: a row that a reader let through and that
                    # breaks one is quarantined in the constraint's words, not a crash that loses the run.
                    item = _store_refusal(item, err)
            if isinstance(item, Skipped):
                report.skipped += 1
                report.skip_reasons[item.reason] = report.skip_reasons.get(item.reason, 0) + 1
            elif isinstance(item, Quarantined):
                _quarantine(store, conn, source, item)
                report.quarantined += 1
                report.quarantine_reasons[item.reason] = report.quarantine_reasons.get(item.reason, 0) + 1
            else:
                setattr(report, outcome.kind, getattr(report, outcome.kind) + 1)
                if outcome.kind == "added" and outcome.message:
                    report.apart.append(f"{item.conditions.provenance.source_locator}: {outcome.message}")
                if outcome.kind == "changed":
                    locator = item.conditions.provenance.source_locator
                    report.changes.append(f"{locator}: {outcome.message}")
                    _quarantine(store, conn, source, Quarantined(locator, "value_changed", outcome.message,
                                                                 json.dumps({"value": item.value, "unit": item.unit})))
            if progress:
                progress(1)
        store.put_ingest_run(
            conn, source_kind=source.kind, source_path=source.path, source_sha256=source.sha256,
            retrieved_on=source.retrieved_on, started_at=source.ingested_at, rows_read=report.rows_read,
            added=report.added, enriched=report.enriched, unchanged=report.unchanged, changed=report.changed,
            quarantined=report.quarantined, skipped=report.skipped)
    return report


def _store_refusal(item: Result, err: Exception) -> Quarantined:
    detail = str(getattr(err, "orig", None) or err).strip().splitlines()[0]
    return Quarantined(item.conditions.provenance.source_locator, "store_refused",
                       f"the store refused this row ({detail}): a condition is missing, empty or out of range; "
                       "correct the source row and ingest it again",
                       json.dumps({"key": item.natural_key, "value": item.value, "unit": item.unit}))


def _quarantine(store: Store, conn, source: Source, q: Quarantined) -> None:
    store.put_quarantine(conn, source_kind=source.kind, source_path=source.path, source_sha256=source.sha256,
                         locator=q.locator or source.path, raw=q.raw, reason=q.reason, message=q.message,
                         ingested_at=source.ingested_at)
