"""Results that are not MLCommons publications (own load tests, vendor claims), in exportguard's CSV
format (templates/results.csv; columns documented in README.md).

Every CSV row is stored unverified. A row marked mlperf=no is an own load-test run, with the load and
measured shape of an own run (own_csv.py), which the guard never lets share a comparison with MLPerf
figures. A row marked mlperf=yes must name a benchmark exportguard knows; it gets its official result
ID (and only then "verified") if the round's summary table is ingested too. A line whose first cell
starts with ``#`` is a comment: skipped, and counted.

The file is read one physical line at a time: exportguard's CSV has no legitimate multi-line
cells, so a quote left open at the end of a line is that line's error (quarantined, naming the
line), never a cell that swallows the lines after it. Every line after the header is one row read:
a blank line is skipped and counted, so the counts reconcile over the file's physical lines. A
header that names a column twice is refused whole, since no row could say which one it means.
Every number goes through the ingest's one number parser (numbers.py, CSV syntax: no exponent,
no digit-group separators, no decimal comma).
"""
from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Iterable, Iterator

from ..errors import SourceError
from ..model import (
    ARRIVAL_PROCESSES,
    LOAD_CSV,
    SCENARIOS,
    TPS_CSV,
    UNITS,
    Load,
    Provenance,
    Result,
    arrival_for,
)
from ..reference import canonical_scenario, parse_benchmark
from .source import KINDS_READ, Item, Skipped, Source, display, one_row, open_regular
from .build import mlperf_result
from .csv_cells import cell_count as _count, cell_date as _date, cell_number as _number
from .own_csv import OWN_COLUMNS, OWN_ONLY, own_row_result
from .own_system import NOT_DESCRIBED, SystemDescription

LINE_LIMIT = 1 << 20  # bytes in one line: far more than a row of conditions needs
FIELD_LIMIT = 10_000  # characters in one cell; a longer one is refused, not truncated

REQUIRED = ("mlperf", "model", "value", "unit", "source_url")  # every row; the header must name them
REQUIRED_MLPERF = ("submitter", "system_name", "scenario", "accelerator", "accelerators_per_node", "nodes",
                   "framework", "round", "division", "availability")
OPTIONAL_MLPERF = ("system_id", "accuracy_track", "tokens_per_sample", "target_qps", "ttft_bound_ms", "tpot_bound_ms",
                   "arrival_process", "min_duration_ms")
SHARED_OPTIONAL = ("p99_ttft_ms", "p99_tpot_ms", "host_processor", "retrieved_on")
COLUMNS = REQUIRED + REQUIRED_MLPERF + OPTIONAL_MLPERF + SHARED_OPTIONAL + OWN_COLUMNS


def read_csv(path: Path, source: Source, system: SystemDescription = NOT_DESCRIBED) -> Iterator[Item]:
    """The file is streamed a megabyte at a time: a CSV of a million rows costs the memory of one.
    ``system`` states, for own-run rows, what a row leaves empty."""
    label = display(str(path))
    with open_regular(path, label) as f:
        yield from parse_csv(_physical_lines(f), label, source, system)


def parse_csv(data: bytes | Iterable[bytes], label: str, source: Source,
              system: SystemDescription = NOT_DESCRIBED) -> Iterator[Item]:
    """The items of a CSV file (its bytes, or its physical lines), one per physical line after the
    header; ``label`` names the file in locators."""
    lines = iter(_physical_lines(io.BytesIO(data)) if isinstance(data, bytes) else data)
    first = next(lines, b"").removeprefix(b"\xef\xbb\xbf")
    header = _header(first, f"{label} line 1")
    for number, line in enumerate(lines, start=2):
        locator = f"{label} line {number}"
        yield one_row(locator, lambda: _line_item(line, header, locator, source, system),
                      raw=lambda: line[:4000].decode("utf-8", "backslashreplace"))


def _physical_lines(f, chunk: int = 1 << 20) -> Iterator[bytes]:
    """A binary file's lines, ended by CR, LF or CRLF, read a chunk at a time. A line longer than
    LINE_LIMIT is cut there and the rest of it dropped: the row it holds is refused, and the lines
    after it keep their numbers."""
    pending, skipping = b"", False
    while data := f.read(chunk):
        pending += data
        held = pending.endswith(b"\r")  # maybe the first half of a CRLF that the next chunk ends
        lines = _LINE_BREAK.split(pending[:-1] if held else pending)
        rest = lines.pop()
        for line in lines:
            if skipping:  # the tail of a line already cut
                skipping = False
                continue
            yield line
        pending = rest + (b"\r" if held else b"")
        if len(rest) > LINE_LIMIT:
            if not skipping:
                yield rest[:LINE_LIMIT]
            pending, skipping = (b"\r" if held else b""), True
    pending = pending.removesuffix(b"\r")
    if pending and not skipping:
        yield pending


# Only CR, LF and CRLF end a line (str.splitlines would also split at \x0b, \x1c, \u2028, ...).
_LINE_BREAK = re.compile(rb"\r\n|\r|\n")


def _cells(line: bytes, locator: str = "") -> list[str]:
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as e:
        raise SourceError("not_utf8", f"byte {e.start + 1} of the line is not UTF-8 ({line[e.start:e.start + 4]!r}): "
                          "save the file as UTF-8", locator) from None
    previous = csv.field_size_limit(FIELD_LIMIT)  # process-wide: restored at once
    try:
        return next(csv.reader([text], strict=True), [])
    except csv.Error as e:
        if "field larger than field limit" in str(e):
            message = f"a cell is longer than {FIELD_LIMIT:,} characters, more than any condition needs: shorten it"
        elif "unexpected end of data" in str(e):
            message = ("a quoted cell is still open at the end of the line: close its quote (cells cannot span "
                       "lines in exportguard's CSV)")
        elif "expected after" in str(e):
            message = ("a quoted cell goes on after its closing quote: a quote inside a cell is written twice (\"\"), "
                       "and a quoted cell ends at a comma")
        else:
            message = f"the line is not well-formed CSV: {e}"
        raise SourceError("malformed_csv", message, locator) from None
    finally:
        csv.field_size_limit(previous)


def _header(line: bytes, locator: str) -> tuple[str, ...]:
    header = tuple(c.strip() for c in _cells(line, locator))
    seen: dict[str, int] = {}
    for position, column in enumerate(header, start=1):
        if column and column in seen:
            raise SourceError("duplicate_column", f"the header names column {column!r} twice (columns {seen[column]} "
                              f"and {position}): no row could say which one it means", locator)
        seen[column] = position
    missing = [c for c in REQUIRED if c not in seen]
    if len(missing) == len(REQUIRED):  # another tool's CSV, not one of ours missing a column
        raise SourceError("missing_column", f"the header has none of exportguard's columns: {KINDS_READ}", locator)
    if missing:
        raise SourceError("missing_column", f"the header lacks column(s) {', '.join(missing)}; see templates/results.csv",
                          locator)
    return header


def _line_item(line: bytes, header: tuple[str, ...], locator: str, source: Source,
               system: SystemDescription = NOT_DESCRIBED) -> Item:
    if not line.strip():
        return Skipped(locator, "blank line")
    if line.lstrip().startswith(b"#"):
        return Skipped(locator, "comment line")
    cells = _cells(line)
    if len(cells) > len(header):
        raise SourceError("extra_cells", f"the row has more cells ({len(cells)}) than the header has columns "
                          f"({len(header)})")
    if len(cells) < len(header):
        raise SourceError("missing_cells", f"the row has fewer cells ({len(cells)}) than the header has columns "
                          f"({len(header)}): a cell or a comma is missing")
    row = dict(zip(header, cells))
    try:
        return _row_result(row, locator, source, system)
    except SourceError as err:
        raw = ",".join(f"{k}={v}" for k, v in row.items() if v)[:4000]
        raise SourceError(err.reason, err.message, err.locator, err.raw or raw) from None


def _row_result(row: dict, locator: str, source: Source, system: SystemDescription = NOT_DESCRIBED) -> Result:
    """One row's result: an own run (mlperf=no, own_csv.py) or an MLPerf row."""
    if (row.get("mlperf") or "").strip().lower() == "no":
        return own_row_result(row, locator, source, system)
    return _mlperf_row_result(row, locator, source)


def _mlperf_row_result(row: dict, locator: str, source: Source) -> Result:
    get = lambda k: (row.get(k) or "").strip()  # noqa: E731
    for key in REQUIRED:
        if not get(key):
            raise SourceError("missing_field", f"column {key} is empty", f"column {key}")
    mlperf = get("mlperf").lower()
    if mlperf != "yes":  # "no" rows are own runs (own_csv.py)
        raise SourceError("bad_field", f"column mlperf must be yes or no, found {get('mlperf')!r}", "column mlperf")
    for key in REQUIRED_MLPERF:
        if not get(key):
            raise SourceError("missing_field", f"column {key} is required for an MLPerf row", f"column {key}")
    for key in OWN_ONLY + ("dataset",):
        if get(key):
            raise SourceError("bad_field", f"column {key} is for own runs (mlperf=no); an MLPerf row takes its shape "
                              "and load from the benchmark's reference", f"column {key}")
    scenario = canonical_scenario(get("scenario"))
    if scenario is None:
        raise SourceError("unknown_scenario", f"scenario {get('scenario')!r} is not one of {', '.join(SCENARIOS)}",
                          "column scenario")
    unit = get("unit").lower()
    if unit not in UNITS:
        raise SourceError("unknown_unit", f"unit {get('unit')!r} is not one of {', '.join(UNITS)}", "column unit")
    value = _number(get, "value", positive=True)
    per_node = _count(get, "accelerators_per_node")
    nodes = _count(get, "nodes")
    if nodes < 1:
        raise SourceError("non_positive_value", "column nodes must be at least 1", "column nodes")
    tps = _number(get, "tokens_per_sample", positive=False, required=False)  # judged by check_tokens_per_sample
    provenance = Provenance(source.kind, source.path, source.sha256, locator, get("source_url"),
                            _date(get, "retrieved_on") or source.retrieved_on, source.ingested_at)
    system_id = get("system_id") or get("system_name")
    if not re.fullmatch(r"v?[0-9]+\.[0-9]+", get("round")):
        raise SourceError("bad_field", f"column round must be a round like v5.1, found {get('round')!r}",
                          "column round")
    for key, allowed in (("division", ("closed", "open")), ("availability", ("available", "preview", "rdi"))):
        if get(key).lower() not in allowed:
            raise SourceError("bad_field", f"column {key} must be one of {', '.join(allowed)}, found {get(key)!r}",
                              f"column {key}")
    bench = parse_benchmark(get("model") + (f"-{get('accuracy_track')}" if get("accuracy_track") else ""))
    if bench is None:
        raise SourceError("unknown_benchmark", f"{get('model')!r} is not an MLPerf LLM benchmark exportguard knows",
                          "column model")
    return mlperf_result(
        provenance=provenance, round="v" + get("round").lstrip("v"), division=get("division").lower(),
        suite="datacenter", availability=get("availability").lower(), submitter=get("submitter"),
        submitter_key=get("submitter"), system_name=get("system_name"), system_id=system_id, result_id="",
        bench=bench, scenario=scenario, value=value, unit=unit, samples_per_s=None, tokens_per_sample=tps,
        tps_basis=TPS_CSV, load=_load(get, scenario, required=False), accelerator=get("accelerator"),
        accelerators_per_node=per_node, nodes=nodes, framework=get("framework"),
        host_processor=get("host_processor"), value_where="column value", tps_where="column tokens_per_sample")


def _load(get, scenario: str, required: bool) -> Load | None:
    arrival = get("arrival_process") or arrival_for(scenario)
    if arrival not in ARRIVAL_PROCESSES:
        raise SourceError("bad_field", f"arrival_process must be one of {', '.join(ARRIVAL_PROCESSES)}",
                          "column arrival_process")
    bounds = [_number(get, k, positive=True, required=False) for k in ("ttft_bound_ms", "tpot_bound_ms")]
    if not required and not any(get(k) for k in ("target_qps", "ttft_bound_ms", "tpot_bound_ms", "min_duration_ms")):
        return None  # an MLPerf row without load columns takes the reference load
    if scenario != "Offline" and None in bounds:
        raise SourceError("missing_field", f"{scenario} rows need ttft_bound_ms and tpot_bound_ms", "column ttft_bound_ms")
    return Load(arrival, _number(get, "target_qps", positive=True, required=False),
                None if scenario == "Offline" else bounds[0], None if scenario == "Offline" else bounds[1],
                _number(get, "p99_ttft_ms", positive=True, required=False),
                _number(get, "p99_tpot_ms", positive=True, required=False),
                _count(get, "min_duration_ms", least=1) if get("min_duration_ms") else 600000, LOAD_CSV)
