"""Results that are not MLCommons publications (own load tests, vendor claims), in exportguard's CSV
format (templates/results.csv; columns documented in README.md).

Every CSV row is stored unverified. A row marked mlperf=no is stored as a non-MLPerf result, which
the guard never lets share a comparison with MLPerf figures. A row marked mlperf=yes must name a
benchmark exportguard knows; it gets its official result ID (and only then "verified") if the
round's summary table is ingested too.
"""
from __future__ import annotations

import csv
import io
import math
import re
from pathlib import Path
from typing import Iterator

from ..errors import SourceError
from ..model import (
    ARRIVAL_PROCESSES,
    LOAD_CSV,
    RESULT_ID_NONE,
    SCENARIOS,
    TPS_CSV,
    TPS_NOT_REPORTED,
    UNITS,
    Benchmark,
    Conditions,
    Configuration,
    Identity,
    Load,
    Provenance,
    Result,
    Shape,
    arrival_for,
)
from ..reference import canonical_scenario, parse_benchmark
from . import Item, Quarantined, Source, decode_utf8, read_bounded
from .build import accelerator_text, mlperf_result

CSV_LIMIT = 64 * 1024 * 1024
FIELD_LIMIT = 10_000  # characters in one cell; a longer one is refused, not truncated

REQUIRED = ("mlperf", "submitter", "system_name", "model", "scenario", "value", "unit", "accelerator",
            "accelerators_per_node", "nodes", "framework", "source_url")
REQUIRED_MLPERF = ("round", "division", "availability")
REQUIRED_OTHER = ("dataset", "dataset_samples", "reference_max_output_tokens", "arrival_process", "min_duration_ms")
OPTIONAL = ("system_id", "accuracy_track", "tokens_per_sample", "target_qps", "ttft_bound_ms", "tpot_bound_ms",
            "p99_ttft_ms", "p99_tpot_ms", "host_processor", "retrieved_on")
COLUMNS = REQUIRED + REQUIRED_MLPERF + REQUIRED_OTHER + OPTIONAL


def read_csv(path: Path, source: Source) -> Iterator[Item]:
    text = decode_utf8(read_bounded(path, CSV_LIMIT), str(path))
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = _bounded(lambda: reader.fieldnames) or []
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise SourceError("missing_column", f"the header lacks column(s) {', '.join(missing)}; see templates/results.csv",
                          f"{path} line 1")
    line = 1
    while True:
        locator = f"{path} line {line + 1}"
        try:
            row = _bounded(lambda: next(reader))
        except StopIteration:
            return
        except csv.Error as e:
            line = reader.reader.line_num  # DictReader.line_num is not updated when a row fails
            message = str(e)
            if "field limit" in message:
                message = f"a cell is longer than {FIELD_LIMIT:,} characters, more than any condition needs: shorten it"
            yield Quarantined(locator, "malformed_csv", message)
            continue
        line = reader.line_num
        try:
            yield _row_result(row, locator, source)
        except SourceError as err:
            yield Quarantined.from_error(err, locator, raw=",".join(f"{k}={v}" for k, v in row.items() if v)[:4000])


def _bounded(read):
    """Run one read of the csv module under our cell limit; the limit is process-wide, so restore it."""
    previous = csv.field_size_limit(FIELD_LIMIT)
    try:
        return read()
    finally:
        csv.field_size_limit(previous)


def _row_result(row: dict, locator: str, source: Source) -> Result:
    if None in row:
        raise SourceError("extra_cells", "the row has more cells than the header has columns")
    get = lambda k: (row.get(k) or "").strip()  # noqa: E731
    for key in REQUIRED:
        if not get(key):
            raise SourceError("missing_field", f"column {key} is empty", f"column {key}")
    mlperf = get("mlperf").lower()
    if mlperf not in ("yes", "no"):
        raise SourceError("bad_field", f"column mlperf must be yes or no, found {get('mlperf')!r}", "column mlperf")
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
    tps = _number(get, "tokens_per_sample", positive=True, required=False)
    provenance = Provenance(source.kind, source.path, source.sha256, locator, get("source_url"),
                            get("retrieved_on") or source.retrieved_on, source.ingested_at)
    system_id = get("system_id") or get("system_name")
    if mlperf == "yes":
        for key in REQUIRED_MLPERF:
            if not get(key):
                raise SourceError("missing_field", f"column {key} is required for an MLPerf row", f"column {key}")
        if not re.fullmatch(r"v?\d+\.\d+", get("round")):
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
            host_processor=get("host_processor"))
    for key in REQUIRED_OTHER:
        if not get(key):
            raise SourceError("missing_field", f"column {key} is required for a non-MLPerf row", f"column {key}")
    track = get("accuracy_track") or "n/a"
    identity = Identity("n/a", "n/a", "n/a", "n/a", get("submitter"), get("submitter"), get("system_name"),
                        system_id, "", RESULT_ID_NONE, "unverified", False)
    shape = Shape(tps, TPS_CSV if tps is not None else TPS_NOT_REPORTED,
                  _count(get, "reference_max_output_tokens", least=1), get("dataset"),
                  _count(get, "dataset_samples", least=1))
    configuration = Configuration(accelerator_text(get("accelerator"), per_node), per_node, nodes, per_node * nodes,
                                  get("framework"), get("host_processor") or "not stated by the source")
    benchmark = Benchmark(get("model") if track == "n/a" else f"{get('model')}-{track}", get("model"), track, scenario)
    return Result(Conditions(identity, benchmark, shape, _load(get, scenario, required=True), configuration,
                             provenance), value, unit)


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


def _number(get, key: str, positive: bool, required: bool = True) -> float | None:
    raw = get(key)
    if not raw:
        if required:
            raise SourceError("missing_field", f"column {key} is empty", f"column {key}")
        return None
    try:
        value = float(raw.replace(",", ""))
    except ValueError:
        raise SourceError("non_numeric_field", f"column {key} is not a number: {raw!r}", f"column {key}") from None
    if not math.isfinite(value) or (positive and value <= 0):
        raise SourceError("non_positive_value", f"column {key} must be a positive number, found {raw!r}", f"column {key}")
    return value


def _count(get, key: str, least: int = 0) -> int:
    value = _number(get, key, positive=False)
    if value < 0 or value != int(value):
        raise SourceError("non_numeric_field", f"column {key} must be a whole number, found {get(key)!r}", f"column {key}")
    if value < least:
        raise SourceError("non_positive_value", f"column {key} must be at least {least}, found {get(key)!r}",
                          f"column {key}")
    return int(value)
