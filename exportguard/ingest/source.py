"""The source model every reader shares: what one input row becomes (a Result, Warned, Quarantined
or Skipped item), the reconciled count of a source (IngestReport), and the guarded ways to open and
decode a source file. The format readers import it from here, and the package's driver
(exportguard.ingest) dispatches to them, so no reader imports the package it belongs to."""
from __future__ import annotations

import datetime as dt
import hashlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Union

from ..errors import SourceError
from ..model import Result

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
    rows: int = 1  # input rows this entry stands for: alike refusals of one file are one entry (own_files.Junk)

    @classmethod
    def from_error(cls, err: SourceError, locator: str = "", raw: str = "") -> "Quarantined":
        # the error's own locator adds to the row's only what the row's does not already say
        inner = err.locator if err.locator and err.locator not in locator else ""
        where = inner if inner and locator and locator in inner else ", ".join(x for x in (locator, inner) if x)
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
    try:
        data = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that is no escaped byte (JSON's "\udfff"): shown escaped
        data = text.encode("utf-8", "backslashreplace")
    return data.decode("utf-8", "backslashreplace").replace("\x00", "\\x00")


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
