"""Ingest: read sources (MLCommons trees, summary tables, CSV, own load-test files) into the store.

Each reader turns one source into a stream of items, one per input row: a Result to store, a
Quarantined row (with the reason), or a Skipped row (outside the rules, e.g. not an LLM
benchmark). The driver writes the stream in one transaction and counts, so that for every source
rows read = added + enriched + unchanged + changed + quarantined + skipped.

Rows are atomic: whatever goes wrong while reading one row (a SourceError, or any other exception
a hostile row provokes) costs that row, through ``one_row``, never the rest of its source. Files
are read only through ``read_regular``, which refuses FIFOs, devices and sockets before opening
them (reading one blocks forever or never ends).
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator, Union


from ..errors import SourceError
from ..model import OWN_SOURCE_KINDS, Result
from ..store import Store

MAX_SOURCE_BYTES = 256 * 1024 * 1024  # a summary table is ~2 MB; anything this large is not one


@dataclass(frozen=True)
class Source:
    kind: str  # mlperf_tree / mlperf_summary / csv / a load-test tool's kind (model.OWN_SOURCE_KINDS)
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


@dataclass(frozen=True)
class Warned:
    """A result to store, with what its source said that exportguard noticed but does not read (a
    key repeated with different values in a field it ignores): reported with the row, never a refusal."""
    result: Result
    warnings: tuple[str, ...]


Item = Union[Result, Warned, Quarantined, Skipped]


def warned(result: Result, warnings: Iterable[str]) -> Result | Warned:
    warnings = tuple(dict.fromkeys(warnings))
    return Warned(result, warnings) if warnings else result


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
    warnings: dict = field(default_factory=dict)  # warning -> rows it concerns: what rows said that is not read
    last_quarantined: Quarantined | None = None
    new_quarantine_rows: int = 0  # quarantine rows this ingest added (a re-ingest adds none)
    recorded: bool = True  # whether this ingest was recorded in ingest_runs (a no-op re-ingest is not)

    @property
    def reconciles(self) -> bool:
        return self.rows_read == (self.added + self.enriched + self.unchanged + self.changed
                                  + self.quarantined + self.skipped)

    @property
    def stored(self) -> int:
        """Rows of this source that the store holds after the ingest (new, enriched or already there)."""
        return self.added + self.enriched + self.unchanged

    @property
    def changed_the_store(self) -> bool:
        return bool(self.added or self.enriched or self.new_quarantine_rows)

    def nothing_stored(self) -> str:
        """Why the store holds no row of this source, in one line; '' when it holds some."""
        if self.stored:
            return ""
        if self.rows_read == 0:
            return "nothing stored: the source holds no result rows"
        if self.quarantined == self.rows_read == 1 and self.last_quarantined is not None:
            q = self.last_quarantined
            return f"nothing stored: [{q.reason}] {q.message}"
        parts = [f"{n} {what}" + (f" ({_top(reasons)})" if reasons else "") for n, what, reasons in (
            (self.quarantined, "quarantined", self.quarantine_reasons),
            (self.skipped, "skipped by rule", self.skip_reasons),
            (self.changed, "disagree with the stored figure (see exportguard quarantine)", {})) if n]
        return f"nothing stored: of {self.rows_read} rows, " + ", ".join(parts)

    def summary_line(self) -> str:
        return (f"{self.source.path} ({self.source.kind}): {self.rows_read} read = {self.added} added"
                f" + {self.enriched} enriched + {self.unchanged} unchanged + {self.changed} changed"
                f" + {self.quarantined} quarantined + {self.skipped} skipped by rule")


def _top(reasons: dict, most: int = 3) -> str:
    ranked = sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))
    shown = ", ".join(f"{n} {reason}" for reason, n in ranked[:most])
    return shown + (", ..." if len(ranked) > most else "")


# Said wherever a source is refused for being of a kind exportguard does not read.
LOAD_TEST_FILES = ("vLLM bench serve (JSON, JSON Lines), SGLang bench_serving (JSON Lines), GenAI-Perf and AIPerf "
                   "(profile_export_*.json), guidellm (benchmarks.json), llmperf (*_summary.json)")
KINDS_READ = ("exportguard reads an MLCommons submission tree (a folder holding <Submitter>/results/), an MLCommons "
              "*_summary_results.json table, a CSV with the header of exportguard's templates/results.csv, or the "
              f"result file of a load-test tool: {LOAD_TEST_FILES} (docs/own-traffic.md)")


def file_kind(path: Path) -> str:
    """What ``path`` is ("file", "folder", "FIFO", ...), following symlinks; raises OSError if it
    cannot be looked at. The one check made before anything is opened."""
    mode = os.stat(path).st_mode
    for test, kind in ((stat.S_ISREG, "file"), (stat.S_ISDIR, "folder"), (stat.S_ISFIFO, "FIFO (named pipe)"),
                       (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"),
                       (stat.S_ISSOCK, "socket")):
        if test(mode):
            return kind
    return "special file"


def open_regular(path: Path, locator: str):
    """An open binary file object for a regular file; anything else is refused unopened."""
    try:
        kind = file_kind(path)
    except FileNotFoundError:
        raise SourceError("not_found", "no such file or folder", locator) from None
    except OSError as e:
        raise SourceError("unreadable", f"cannot look at it: {e.strerror or e}", locator) from None
    if kind != "file":
        raise SourceError("not_a_regular_file", f"this is a {kind}, not a file: only regular files are read",
                          locator)
    try:
        # O_NONBLOCK: if a FIFO was swapped in after the look above, opening it still returns at once.
        f = os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)), "rb")
    except OSError as e:
        raise SourceError("unreadable", f"cannot open it: {e.strerror or e}", locator) from None
    if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
        f.close()
        raise SourceError("not_a_regular_file", "this is no longer a regular file", locator)
    return f


def read_regular(path: Path, limit: int, locator: str = "") -> bytes:
    """The bytes of a regular file, refusing one larger than ``limit`` (a hostile file is not read
    into memory) and anything that is not a regular file."""
    locator = locator or display(str(path))
    with open_regular(path, locator) as f:
        size = os.fstat(f.fileno()).st_size
        if size > limit:
            raise SourceError("file_too_large",
                              f"{size:,} bytes is more than the {limit:,} this kind of file may have", locator)
        try:
            data = f.read(limit + 1)
        except OSError as e:
            raise SourceError("unreadable", f"cannot read it: {e.strerror or e}", locator) from None
    if len(data) > limit:  # it grew while we read it
        raise SourceError("file_too_large", f"more than the {limit:,} bytes this kind of file may have", locator)
    return data


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open_regular(path, display(str(path))) as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def display(text: str) -> str:
    """Text that any store can hold: a file name's non-UTF-8 bytes (surrogate escapes) shown as \\xNN."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace").replace("\x00", "\\x00")


def decode_utf8(data: bytes, locator: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise SourceError("not_utf8", f"byte {e.start} (line {line}) is not UTF-8: {data[e.start:e.start + 4]!r}",
                          locator) from None


def one_row(locator: str, read: Callable[[], Item], raw: Callable[[], str] | str = "") -> Item:
    """The item of one input row; any failure while reading it quarantines that row alone."""
    try:
        return read()
    except Exception as err:  # noqa: BLE001 - row atomicity is the point
        return as_quarantined(err, locator, raw)


def as_quarantined(err: Exception, locator: str = "", raw: Callable[[], str] | str = "") -> Quarantined:
    """A SourceError is a refusal a reader meant. Any other exception is one that hostile input
    provoked in code that did not expect it: it is quarantined as ``unexpected_error`` naming its
    type (an unreadable file as ``unreadable``), so the rest of the source is still stored and the
    case can be reported and fixed."""
    if isinstance(err, SourceError):
        return Quarantined.from_error(err, locator, raw=_raw_text(raw))
    reason = ("unreadable" if isinstance(err, OSError) else "not_utf8" if isinstance(err, UnicodeError)
              else "unexpected_error")
    detail = (str(err).splitlines() or [""])[0][:300]
    return Quarantined(locator, reason, f"this could not be read ({type(err).__name__}: {detail}); "
                                        "the rest of the source was read", _raw_text(raw))


def _raw_text(raw: Callable[[], str] | str) -> str:
    try:
        return raw() if callable(raw) else raw
    except Exception:  # noqa: BLE001 - the excerpt is a courtesy; the quarantine row must still be written
        return ""


def mtime_date(path: Path) -> str:
    return dt.date.fromtimestamp(path.stat().st_mtime).isoformat()


def now_iso() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


# A source that cannot be opened as what it is: the caller gets an error naming the path.
_NOT_A_SOURCE = ("not_found", "not_a_regular_file", "unreadable")


def detect_kind(path: Path) -> str:
    """mlperf_tree for a folder, mlperf_summary for a JSON table, csv for a CSV; judged by content
    where the name could lie."""
    shown = display(str(path))
    try:
        if file_kind(path) == "folder":
            os.listdir(path)  # an unreadable folder is an error now, not a quarantine row per file later
            return "mlperf_tree"
    except FileNotFoundError:
        raise SourceError("not_found", "no such file or folder", shown) from None
    except OSError as e:
        raise SourceError("unreadable", f"cannot read it: {e.strerror or e}", shown) from None
    try:
        with open_regular(path, shown) as f:
            head = f.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    except SourceError as err:
        if err.reason == "not_a_regular_file":
            raise SourceError(err.reason, f"{err.message}; {KINDS_READ}", shown) from None
        raise
    except OSError as e:
        raise SourceError("unreadable", f"cannot read it: {e.strerror or e}", shown) from None
    from . import own_files

    suffix = path.suffix.lower()
    if own_files.head_kind(head, suffix):
        return own_files.head_kind(head, suffix)[0]
    if head[:1] == b"{" or (head[:1] == b"[" and b'"ttft_s"' in head):
        own = own_files.classify(path, shown)
        if own is not None:
            return own.kind
    if suffix == ".json" or head[:1] in (b"[", b"{"):
        if head[:1] != b"[":
            raise SourceError("not_a_summary_table",
                              "expected an MLCommons summary table (a JSON list of result rows); "
                              f"the file starts with {head[:40]!r}. {KINDS_READ}", shown)
        return "mlperf_summary"
    if suffix == ".csv":
        if b"\x00" in head:
            raise SourceError("not_a_csv", f"binary data in a file named .csv. {KINDS_READ}", shown)
        return "csv"
    raise SourceError("unknown_source_kind", f"cannot tell what this is: {KINDS_READ}", shown)


def ingest_path(store: Store, path: str | Path, *, retrieved_on: str | None = None, round: str | None = None,
                progress: Callable[[int], None] | None = None, system=None) -> IngestReport:
    """Ingest one source into the store; returns its reconciled report. ``system`` (an
    own_system.SystemDescription) states what own load-test files do not record.

    A source is known by its resolved real path and its content digest (a tree's covers the files
    read, by their paths inside the tree): whatever spelling names it (relative, ../, absolute, a
    symlink), rows, locators and quarantine rows say that path, so ingesting it again adds nothing."""
    from . import csv_rows, mlperf_summary, mlperf_tree
    from .own_system import NOT_DESCRIBED

    typed = Path(path)
    round = _round_argument(round)
    path = Path(os.path.realpath(typed))  # the source itself, and so its kind, whatever names it
    shown = display(str(path))
    try:
        kind = detect_kind(path)
    except SourceError as err:
        if err.reason in _NOT_A_SOURCE:
            raise SourceError(err.reason, err.message, display(str(typed))) from None
        # A file that is not what its name says is itself quarantined: nothing is silently dropped.
        source = Source("csv" if path.suffix.lower() == ".csv" else "mlperf_summary", shown,
                        sha256_file(path), retrieved_on or mtime_date(path), now_iso())
        return _write(store, source, [Quarantined.from_error(err)], progress)
    if kind == "mlperf_tree":
        sha, tree_date = mlperf_tree.tree_identity(path)
        retrieved = retrieved_on or tree_date
    else:
        sha, retrieved = sha256_file(path), retrieved_on or mtime_date(path)
    source = Source(kind, shown, sha, retrieved, now_iso())
    if kind == "mlperf_summary":
        names = tree_system_names(store)  # read before _write takes the store's write lock
        reader = lambda: mlperf_summary.read_summary(path, source, tree_names=names)  # noqa: E731
    elif kind == "mlperf_tree":
        reader = lambda: mlperf_tree.read_tree(path, source, round=round)  # noqa: E731
    elif kind in OWN_SOURCE_KINDS:
        reader = lambda: _read_own(path, source, system or NOT_DESCRIBED)  # noqa: E731
    else:
        reader = lambda: csv_rows.read_csv(path, source, system or NOT_DESCRIBED)  # noqa: E731
    return _write(store, source, _guarded(reader), progress)


def _read_own(path: Path, source: Source, system) -> Iterator[Item]:
    from . import own_files

    head = _head(path, source.path)
    known = own_files.head_kind(head.lstrip(b"\xef\xbb\xbf \t\r\n"), path.suffix.lower())
    if known:
        yield Skipped(source.path, known[1])
        return
    own = own_files.classify(path, source.path)
    yield from own_files.read_own(own, source, system)


def _head(path: Path, locator: str) -> bytes:
    with open_regular(path, locator) as f:
        return f.read(4096)


def tree_system_names(store: Store) -> dict[tuple[str, str, str, str], str]:
    """System names that submission trees' systems JSON gave results already stored, by
    (round, division, submitter folder, system folder): what a summary row with a blank name takes."""
    from .build import name_is_blank
    from .mlperf_logs import parse_system_description

    names = {}
    for r in store.results(mlperf=True):
        if not r.raw_system:
            continue
        try:
            name = parse_system_description(r.raw_system).system_name
        except SourceError:
            continue
        if not name_is_blank(name):
            i = r.conditions.identity
            names[(i.round, i.division, i.submitter_key, i.system_id)] = name
    return names


def _round_argument(round: str | None) -> str | None:
    """The round a caller names for a tree, as the store spells it ("5.1" and "v5.1" both give "v5.1")."""
    if round is None:
        return None
    m = re.fullmatch(r"v?([0-9]+\.[0-9]+)", str(round).strip(), re.IGNORECASE)
    if not m:
        raise SourceError("bad_round", f"the round {round!r} is not a round like v5.1")
    return "v" + m.group(1)


def _guarded(reader: Callable[[], Iterable[Item]]) -> Iterator[Item]:
    """A reader that fails as a whole (truncated JSON, a header it cannot use) yields one quarantine
    row for the source; the rows it yielded before stay counted."""
    try:
        yield from reader()
    except Exception as err:  # noqa: BLE001 - a failure of the whole is reported, never a traceback
        yield as_quarantined(err)


BATCH = 500  # results stored together (Store.put_results)


def _write(store: Store, source: Source, items: Iterable[Item], progress) -> IngestReport:
    report = IngestReport(source)
    with store.writing() as conn:
        for chunk in _chunks(items, BATCH):
            chunk = [_note_warnings(report, item) for item in chunk]
            if any(isinstance(item, Result) and item.own for item in chunk):
                from .own_cohort import assign  # an own run's cohort depends on the own runs already stored

                chunk = assign(chunk, lambda *group: store.own_shape_classes(conn, *group))
            results = [item for item in chunk if isinstance(item, Result)]
            outcomes = iter(store.put_results(conn, results) if results else ())
            for item in chunk:
                report.rows_read += 1
                outcome = next(outcomes) if isinstance(item, Result) else None
                if isinstance(outcome, BaseException):
                    # The store's constraints are the last guard: a row that a reader let through and that
                    # breaks one is quarantined in the constraint's words, not a crash that loses the run.
                    item = _store_refusal(item, outcome)
                _count(store, conn, source, report, item, outcome)
                if progress:
                    progress(1)
        # A re-ingest that changes nothing leaves no trace either: the store is as it was.
        report.recorded = report.changed_the_store or not store.has_ingest_run(
            conn, source_kind=source.kind, source_path=source.path, source_sha256=source.sha256)
        if report.recorded:
            store.put_ingest_run(
                conn, source_kind=source.kind, source_path=source.path, source_sha256=source.sha256,
                retrieved_on=source.retrieved_on, started_at=source.ingested_at, rows_read=report.rows_read,
                added=report.added, enriched=report.enriched, unchanged=report.unchanged, changed=report.changed,
                quarantined=report.quarantined, skipped=report.skipped)
    return report


def _note_warnings(report: IngestReport, item: Item) -> Item:
    if not isinstance(item, Warned):
        return item
    for w in item.warnings:
        report.warnings[w] = report.warnings.get(w, 0) + 1
    return item.result


def _chunks(items: Iterable[Item], size: int) -> Iterator[list[Item]]:
    chunk: list[Item] = []
    for item in items:
        chunk.append(item)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _count(store: Store, conn, source: Source, report: IngestReport, item: Item, outcome) -> None:
    if isinstance(item, Skipped):
        report.skipped += 1
        report.skip_reasons[item.reason] = report.skip_reasons.get(item.reason, 0) + 1
    elif isinstance(item, Quarantined):
        report.new_quarantine_rows += _quarantine(store, conn, source, item)
        report.last_quarantined = item
        report.quarantined += 1
        report.quarantine_reasons[item.reason] = report.quarantine_reasons.get(item.reason, 0) + 1
    else:
        setattr(report, outcome.kind, getattr(report, outcome.kind) + 1)
        if outcome.kind == "added" and outcome.message:
            report.apart.append(f"{item.conditions.provenance.source_locator}: {outcome.message}")
        if outcome.kind == "changed":
            locator = item.conditions.provenance.source_locator
            report.changes.append(f"{locator}: {outcome.message}")
            report.new_quarantine_rows += _quarantine(
                store, conn, source, Quarantined(locator, "value_changed", outcome.message,
                                                 json.dumps({"value": item.value, "unit": item.unit})))


def _store_refusal(item: Result, err: Exception) -> Quarantined:
    detail = str(getattr(err, "orig", None) or err).strip().splitlines()[0]
    return Quarantined(item.conditions.provenance.source_locator, "store_refused",
                       f"the store refused this row ({detail}): a condition is missing, empty or out of range; "
                       "correct the source row and ingest it again",
                       json.dumps({"key": item.natural_key, "value": item.value, "unit": item.unit}))


def _quarantine(store: Store, conn, source: Source, q: Quarantined) -> bool:
    """Record a quarantined row once per source and place; True if this added the record."""
    return store.put_quarantine(conn, source_kind=source.kind, source_path=source.path, source_sha256=source.sha256,
                         locator=display(q.locator or source.path), raw=display(q.raw), reason=q.reason,
                         message=display(q.message), ingested_at=source.ingested_at)
