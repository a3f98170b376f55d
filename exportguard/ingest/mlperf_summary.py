"""MLCommons summary_results.json (any round): the official table with result IDs.

One item per row. Rows of benchmarks that are not LLM throughput benchmarks are skipped by rule;
rows that claim to be one but cannot be read are quarantined, naming the row and the field.
"""
from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Iterator

from ..errors import SourceError
from ..model import SUITES, TPS_SUMMARY, Provenance
from ..reference import canonical_scenario, errata, is_other_llm, parse_benchmark
from . import MAX_SOURCE_BYTES, Item, Quarantined, Skipped, Source, decode_utf8, read_bounded
from .build import mlperf_result

_UNITS = {"tokens/s": "tokens/s", "samples/s": "samples/s", "queries/s": "queries/s"}
_TPS = re.compile(r"TOKENS_PER_SAMPLE:\s*([0-9]+(?:\.[0-9]+)?)")
_ROUND = re.compile(r"^v?(\d+\.\d+)$")
_NON_THROUGHPUT_SCENARIOS = ("singlestream", "multistream")
_REQUIRED = ("ID", "Submitter", "Availability", "Category", "Model", "Scenario", "Performance_Result",
             "Performance_Units")
RESULTS_REPO = "https://github.com/mlcommons/inference_results_{round}"


def read_summary(path: Path, source: Source) -> Iterator[Item]:
    data = read_bounded(path, MAX_SOURCE_BYTES)
    try:
        text = decode_utf8(data, str(path))
    except SourceError:
        # A stray byte inside one row's text costs that row, not the table: keep it as a surrogate
        # escape, and _row_item quarantines the row that holds it (a byte outside a string is invalid JSON).
        text = data.decode("utf-8-sig", errors="surrogateescape")
    try:
        rows = json.loads(text)
    except json.JSONDecodeError as e:
        ends_early = e.msg.startswith("Unterminated string") or not text[e.pos:].strip()
        truncated = "; the file ends before the JSON does (truncated?)" if ends_early else ""
        raise SourceError("invalid_json", f"not valid JSON at line {e.lineno} column {e.colno}: {e.msg}{truncated}",
                          str(path), raw=text[max(0, e.pos - 200): e.pos + 200]) from None
    except RecursionError:
        raise SourceError("invalid_json", "not usable JSON: nested deeper than the JSON parser goes", str(path)) from None
    except ValueError as e:  # a number of thousands of digits (Python's int limit)
        raise SourceError("invalid_json", f"not usable JSON: {str(e).partition(':')[0]}", str(path)) from None
    if not isinstance(rows, list):
        raise SourceError("not_a_summary_table", f"expected a JSON list of result rows, found {type(rows).__name__}",
                          str(path))
    for index, row in enumerate(rows):
        locator = f"{path} row {index + 1}"
        try:
            item = _row_item(row, locator, source)
        except SourceError as err:
            item = Quarantined.from_error(err, locator, raw=json.dumps(row, default=str)[:4000])
        yield item


def _row_item(row, locator: str, source: Source) -> Item:
    if not isinstance(row, dict):
        raise SourceError("not_a_result_row", f"expected an object, found {type(row).__name__}")
    _check_text(row)
    model = _text(row, "Model", required=False)
    bench = parse_benchmark(model)
    if bench is None:
        if is_other_llm(model):
            return Skipped(locator, f"no reference conditions recorded for {model}")
        return Skipped(locator, "not an LLM benchmark")
    scenario_text = _text(row, "Scenario")
    units_text = _text(row, "Performance_Units")
    if scenario_text.lower() in _NON_THROUGHPUT_SCENARIOS or units_text.lower().startswith("latency"):
        return Skipped(locator, "latency metric, not throughput")
    missing = [k for k in _REQUIRED if row.get(k) is None or str(row.get(k)).strip() == ""]
    if missing:
        raise SourceError("missing_field", f"field {missing[0]} is missing or empty", f"field {missing[0]}")
    scenario = canonical_scenario(scenario_text)
    if scenario is None:
        raise SourceError("unknown_scenario", f"scenario {scenario_text!r} is not Offline, Server or Interactive",
                          "field Scenario")
    round_ = _round(row)
    unit = _UNITS.get(units_text.lower())
    if unit is None:
        raise SourceError("unknown_unit", f"unit {units_text!r} is not tokens/s, samples/s or queries/s",
                          "field Performance_Units")
    value = _positive(row, "Performance_Result")
    corrections = []
    for e in errata():
        if (e.source_kind == "mlperf_summary" and e.round == round_ and e.model == bench.model
                and e.scenario == scenario and e.field == "unit" and unit == e.published):
            unit = e.corrected
            corrections.append(f"{e.id}: unit {e.published} -> {e.corrected}")
    division = _text(row, "Category").lower()
    if division not in ("closed", "open"):
        raise SourceError("unknown_division", f"division {division!r} is not closed or open", "field Category")
    availability = _text(row, "Availability").lower()
    if availability not in ("available", "preview", "rdi"):
        raise SourceError("unknown_availability", f"availability {availability!r} is not available, preview or rdi",
                          "field Availability")
    submitter_key, system_id, folder = _location_keys(row)
    if not system_id:
        raise SourceError("missing_field", "field Platform is missing or empty and Location names no system folder",
                          "field Platform")
    folder_bench = parse_benchmark(folder) if folder else bench
    if folder_bench is None or folder_bench.benchmark != bench.benchmark:
        # The open division files other models under LLM names (llama3_1-70b-fp8_pre as llama2-70b-99.9).
        return Skipped(locator, "folder names another model than the benchmark it is filed under")
    tps_match = _TPS.search(str(row.get("Accuracy") or ""))
    per_node = _count(row, "a#", default=0)
    nodes = _count(row, "Nodes", default=1)
    if nodes < 1:
        raise SourceError("non_positive_value", f"field Nodes must be at least 1, found {row.get('Nodes')!r}", "field Nodes")
    provenance = Provenance(
        source_kind=source.kind, source_path=source.path, source_sha256=source.sha256,
        source_locator=locator, source_url=_text(row, "Details", required=False) or RESULTS_REPO.format(round=round_),
        retrieved_on=source.retrieved_on, ingested_at=source.ingested_at)
    return mlperf_result(
        provenance=provenance, round=round_, division=division, suite=_suite(row, bench.model),
        availability=availability, submitter=_text(row, "Submitter"), submitter_key=submitter_key,
        system_name=_text(row, "System", required=False), system_id=system_id,
        result_id=_text(row, "ID"), bench=bench, scenario=scenario, value=value, unit=unit, samples_per_s=None,
        tokens_per_sample=float(tps_match.group(1)) if tps_match and float(tps_match.group(1)) > 0 else None,
        tps_basis=TPS_SUMMARY, load=None, accelerator=_text(row, "Accelerator", required=False),
        accelerators_per_node=per_node, nodes=nodes, framework=_text(row, "Software", required=False),
        host_processor=_text(row, "Processor", required=False), corrections=tuple(corrections))


def _text(row: dict, key: str, required: bool = True) -> str:
    value = row.get(key)
    if value is None:
        if required:
            raise SourceError("missing_field", f"field {key} is missing", f"field {key}")
        return ""
    if not isinstance(value, (str, int, float)):
        raise SourceError("bad_field", f"field {key} should be text, found {type(value).__name__}", f"field {key}")
    return str(value).strip()


def _positive(row: dict, key: str) -> float:
    raw = row.get(key)
    try:
        if isinstance(raw, bool):  # JSON true would otherwise read as 1.0
            raise TypeError
        value = float(raw)
    except (TypeError, ValueError):
        raise SourceError("non_numeric_field", f"field {key} is not a number: {raw!r}", f"field {key}") from None
    if not math.isfinite(value) or value <= 0:
        raise SourceError("non_positive_value", f"field {key} must be a positive number, found {raw!r}",
                          f"field {key}")
    return value


def _check_text(row: dict) -> None:
    """Refuse a row whose keys or texts hold a byte that is not UTF-8, or a lone \\ud800-style escape:
    neither is text, and neither can be stored."""
    for key, value in row.items():
        for text in (key, value):
            if not isinstance(text, str):
                continue
            try:
                text.encode("utf-8")
                continue
            except UnicodeEncodeError:
                pass
            field = f"field {key}" if key.isprintable() else f"field {key!r}"
            try:
                shown = text.encode("utf-8", "surrogateescape")[:80]
                message = f"{field} holds bytes that are not UTF-8 ({shown!r}): save the table as UTF-8"
            except UnicodeEncodeError:
                message = f"{field} holds an unpaired surrogate escape ({text[:80]!r}), which is not text"
            raise SourceError("not_utf8", message, field)


def _count(row: dict, key: str, default: int) -> int:
    raw = row.get(key)
    if raw in (None, ""):
        return default
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise SourceError("non_numeric_field", f"field {key} is not a count: {raw!r}", f"field {key}") from None
    if value < 0 or value != int(value):
        raise SourceError("non_numeric_field", f"field {key} is not a whole, non-negative count: {raw!r}",
                          f"field {key}")
    return int(value)


def _round(row: dict) -> str:
    version = _text(row, "version", required=False) or _text(row, "ID").split("-")[0]
    m = _ROUND.match(version)
    if not m:
        raise SourceError("unknown_round", f"cannot read the round from version {version!r}", "field version")
    return "v" + m.group(1)


def _location_keys(row: dict) -> tuple[str, str, str]:
    """(submitter, system, benchmark) folders: the keys a submission tree has for the same result."""
    location = _text(row, "Location", required=False).lstrip("./")
    parts = [p for p in location.split("/") if p]
    if len(parts) >= 5 and parts[2] == "results":
        return parts[1], parts[3], parts[4]
    return _text(row, "Submitter"), _text(row, "Platform"), ""


def _suite(row: dict, model: str) -> str:
    suite = _text(row, "Suite", required=False).lower()
    if suite in SUITES:
        return suite
    return "edge" if "edge" in model else "datacenter"
