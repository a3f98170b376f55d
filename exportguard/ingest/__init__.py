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

import json
import os
import re
from pathlib import Path
from typing import Callable, Iterable, Iterator


from ..errors import SourceError, StoreError
from ..model import OWN_SOURCE_KINDS, Result
from ..store import Store
from .held import Held

# The source model lives in .source (the readers import it from there); named here too, for callers.
from .source import (KINDS_READ, LOAD_TEST_FILES, MAX_SOURCE_BYTES, IngestReport, Item, Quarantined,  # noqa: F401
                     Skipped, Source, Warned, as_quarantined, decode_utf8, display, file_kind, mtime_date,
                     now_iso, one_row, open_regular, read_regular, sha256_file, warned)


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
            raw_head = f.read(4096)
        head = raw_head.lstrip(b"\xef\xbb\xbf \t\r\n")
    except SourceError as err:
        if err.reason == "not_a_regular_file":
            raise SourceError(err.reason, f"{err.message}; {KINDS_READ}", shown) from None
        raise
    except OSError as e:
        raise SourceError("unreadable", f"cannot read it: {e.strerror or e}", shown) from None
    from . import own_files

    _refuse_unreadable_text(raw_head.removeprefix(b"\xef\xbb\xbf"), shown)
    suffix = path.suffix.lower()
    if own_files.head_kind(head, suffix):
        return own_files.head_kind(head, suffix)[0]
    if head[:1] == b"{" or (head[:1] == b"[" and b'"ttft_s"' in head):
        own = own_files.classify(path, shown)
        if own is not None:
            return own.kind
    if head[:1] == b"[":
        _refuse_listed_record(path, shown)
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


# Byte-order marks and the NUL pattern of ASCII text in wider encodings, longest first (UTF-32's LE mark
# starts with UTF-16's): such a file is text exportguard could read, once converted, so it says so.
_WIDE_TEXT = ((b"\xff\xfe\x00\x00", "UTF-32 (little-endian)"), (b"\x00\x00\xfe\xff", "UTF-32 (big-endian)"),
              (b"\xff\xfe", "UTF-16 (little-endian)"), (b"\xfe\xff", "UTF-16 (big-endian)"))


def _refuse_unreadable_text(head: bytes, shown: str) -> None:
    """An empty file, or UTF-16/UTF-32 text, refused in those words (not "expected a summary table")."""
    if not head.strip():
        raise SourceError("empty_file", "the file is empty" if not head else "the file holds only white space",
                          shown)
    encoding = next((name for mark, name in _WIDE_TEXT if head.startswith(mark)), None)
    if encoding is None and len(head) >= 4 and head[1:4:2] == b"\x00\x00" and head[0:4:2].isascii() \
            and b"\x00" not in head[0:4:2]:
        encoding = "UTF-16 (little-endian, no byte-order mark)"
    if encoding is None and len(head) >= 4 and head[0:4:2] == b"\x00\x00" and b"\x00" not in head[1:4:2]:
        encoding = "UTF-16 (big-endian, no byte-order mark)"
    if encoding:
        raise SourceError("not_utf8", f"the file is {encoding} text; exportguard reads UTF-8: convert it "
                          "first (e.g. iconv -f UTF-16 -t UTF-8)", shown)


def _refuse_listed_record(path: Path, shown: str) -> None:
    """A JSON list around one load-test tool's result object: refused naming the tool (the tools write
    the object itself), not read as an MLCommons table whose one row is no benchmark."""
    from . import own_files
    from .own_json import MAX_OWN_BYTES, decode, parse

    try:
        records = parse(decode(read_regular(path, MAX_OWN_BYTES, shown), shown), shown)
    except SourceError:
        return  # judged as a table, in the table reader's words
    first = records[0].value if isinstance(records, list) and records else None
    kind = own_files.listed_record(first)
    if kind:
        raise SourceError("list_wrapped", f"a JSON list around one {own_files.TOOL_NAMES[kind]} result object: "
                          "the tool writes the object itself; ingest the object (remove the [ ] around it)", shown)


def sources_in(path: str | Path) -> list[Path] | None:
    """The sources a folder holds, for ``ingest FOLDER``: the folder itself when it holds an MLCommons
    submission tree, and every file under it outside the tree's submitter folders (a tool's results, the
    files it writes beside them, anything else), in path order; None for a path that is no folder (it is
    its own source). Hidden files and folders (.git, .DS_Store) are no one's results and are left out."""
    from .mlperf_tree import find_submitters

    folder = Path(os.path.realpath(path))
    try:
        if file_kind(folder) != "folder":
            return None
    except OSError:
        return None
    submitters, unlisted = find_submitters(folder)
    found: list[Path] = [folder] if submitters or unlisted else []
    inside = [str(s) + os.sep for s in submitters]
    for here, dirs, files in os.walk(folder):  # symlinked folders are not followed: no loops
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not
                         any((os.path.join(here, d) + os.sep).startswith(i) for i in inside))
        found.extend(Path(here, f) for f in sorted(files) if not f.startswith("."))
    return found


# What detect_kind says of a file that is none of the sources exportguard reads (in a folder: skipped)
_OTHER_FILE = ("not_a_summary_table", "unknown_source_kind", "not_a_csv", "empty_file", "not_utf8",
               "not_a_regular_file", "file_too_large")


def not_a_result_file(path: Path) -> IngestReport | None:
    """For a file found in a folder that holds no results exportguard reads (a README, a script, a
    tokenizer): its report, one row read and skipped by rule, nothing written to the store. None for a
    result file, or one that looks like one (a truncated vLLM JSON is quarantined, as when named)."""
    try:
        detect_kind(path)
        return None
    except SourceError as err:
        if err.reason not in _OTHER_FILE:
            return None
        why = err
    source = Source("folder_file", display(str(path)), "", "", now_iso())
    report = IngestReport(source, rows_read=1, skipped=1, recorded=False)
    report.skip_reasons[f"not a result file exportguard reads ({why.message.split('. ')[0]})"] = 1
    return report


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


ROUND_ARGUMENT = re.compile(r"v?([0-9]+\.[0-9]+)", re.IGNORECASE)  # what a caller may name a tree's round


def _round_argument(round: str | None) -> str | None:
    """The round a caller names for a tree, as the store spells it ("5.1" and "v5.1" both give "v5.1")."""
    if round is None:
        return None
    m = ROUND_ARGUMENT.fullmatch(str(round).strip())
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
    committing = []  # set once every row is written: a fault from here on may have come after the commit
    try:
        return _write_rows(store, source, items, progress, report, committing)
    except StoreError as err:
        if not (committing and lost_connection(err)):
            raise  # a fault before the commit: the transaction was rolled back, as the error says
        landed = _landed(store, source) if report.recorded else False
        if landed:
            return report  # the server committed before the connection went: the report is the truth
        if landed is None:
            err.in_doubt = True  # asked again, the server did not answer: the caller must not say "nothing"
        raise


def _landed(store: Store, source: Source) -> bool | None:
    """Whether this very run (its source and start time) is in the store; None if that cannot be read."""
    try:
        return any((r["source_path"], r["source_sha256"], r["started_at"]) ==
                   (source.path, source.sha256, source.ingested_at) for r in store.ingest_runs())
    except StoreError:
        return None


# SQLSTATE classes of a connection that is gone: 08 connection exception, 57P operator intervention
# (57P01 admin_shutdown: pg_terminate_backend; 57P02 crash_shutdown; 57P03 cannot_connect_now)
_CONNECTION_GONE = ("08", "57P")


def lost_connection(err: BaseException) -> str:
    """The driver's words when ``err`` (a StoreError of the store's) came from a connection that the
    server ended or lost; "" for any other fault. SQLAlchemy marks such a connection invalidated,
    but only once the driver has seen the socket close: the server's own notice (57P01) may come
    first, so its SQLSTATE counts too. The store raises its StoreError while handling the driver's
    error, which stays its context."""
    seen, hops = err.__context__, 0
    while seen is not None and hops < 8:
        orig = getattr(seen, "orig", None)
        if getattr(seen, "connection_invalidated", False) or (
                getattr(orig, "sqlstate", None) or "").startswith(_CONNECTION_GONE):
            words = str(orig or seen).strip().splitlines()
            return words[0] if words else type(seen).__name__
        seen, hops = seen.__context__, hops + 1
    return ""


def _write_rows(store: Store, source: Source, items: Iterable[Item], progress, report: IngestReport,
                committing: list) -> IngestReport:
    # The source is read whole before the write lock is taken: parsing a large or junk-filled file must
    # not keep every other ingest waiting; under the lock only the rows are written and committed.
    items = Held((_storable_text(_note_warnings(report, item)) for item in items), source.path)
    with store.writing() as conn:
        for chunk in _chunks(items, BATCH):
            if any(isinstance(item, Result) and item.own for item in chunk):
                from .own_cohort import assign  # an own run's cohort depends on the own runs already stored

                chunk = assign(chunk, lambda *group: store.own_shape_classes(conn, *group))
            results = [item for item in chunk if isinstance(item, Result)]
            outcomes = iter(store.put_results(conn, results) if results else ())
            for item in chunk:
                rows = item.rows if isinstance(item, Quarantined) else 1
                report.rows_read += rows
                outcome = next(outcomes) if isinstance(item, Result) else None
                if isinstance(outcome, BaseException):
                    # The store's constraints are the last guard: a row that a reader let through and that
                    # breaks one is quarantined in the constraint's words, not a crash that loses the run.
                    item = _store_refusal(item, outcome)
                _count(store, conn, source, report, item, outcome)
                if progress:
                    progress(rows)
        # A re-ingest that changes nothing leaves no trace either: the store is as it was.
        report.recorded = report.changed_the_store or not store.has_ingest_run(
            conn, source_kind=source.kind, source_path=source.path, source_sha256=source.sha256)
        if report.recorded:
            store.put_ingest_run(
                conn, source_kind=source.kind, source_path=source.path, source_sha256=source.sha256,
                retrieved_on=source.retrieved_on, started_at=source.ingested_at, rows_read=report.rows_read,
                added=report.added, enriched=report.enriched, unchanged=report.unchanged, changed=report.changed,
                quarantined=report.quarantined, skipped=report.skipped)
        committing.append(True)
    return report


def _storable_text(item: Item) -> Item:
    """The last guard before the store: a result with a text field no store can hold (a lone surrogate,
    a NUL) is quarantined naming the field, never a driver's exception that stops the whole command.
    Own runs only: their shape class is looked up by model name before the store's own per-row guard
    (store_refused) can see the row; an MLPerf row reaches that guard directly."""
    if not (isinstance(item, Result) and item.own):
        return item
    from .strict_json import text_fault

    for where, text in _texts(item.conditions, "result"):
        why = text_fault(text)
        if why:
            return Quarantined(item.conditions.provenance.source_locator, "bad_text",
                               f"field {where} {why}: the row is not stored", "")
    return item


def _texts(value, where: str):
    """(field path, text) of every text field of a dataclass value, nested ones included."""
    import dataclasses

    for f in dataclasses.fields(value):
        v = getattr(value, f.name)
        if isinstance(v, str):
            yield f"{where}.{f.name}", v
        elif dataclasses.is_dataclass(v):
            yield from _texts(v, f.name)


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
        report.quarantined += item.rows
        report.quarantine_reasons[item.reason] = report.quarantine_reasons.get(item.reason, 0) + item.rows
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
