"""MLCommons summary_results.json (any round): the official table with result IDs.

One item per row. Rows of benchmarks that are not LLM throughput benchmarks are skipped by rule;
rows that claim to be one but cannot be read are quarantined, naming the row and the field. The
JSON is read strictly (strict_json): a NaN, an Infinity, a number that overflows or a repeated key
costs the row that holds it, not the table. Every number goes through the ingest's one number
parser (numbers.py), including TOKENS_PER_SAMPLE inside the Accuracy text.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Iterator, Mapping

from ..errors import SourceError
from ..model import SUITES, TPS_SUMMARY, Provenance
from ..reference import canonical_scenario, errata, is_other_llm, parse_benchmark
from .source import MAX_SOURCE_BYTES, Item, Skipped, Source, decode_utf8, display, one_row, read_regular, warned
from . import strict_json
from .build import mlperf_result, name_is_blank
from .numbers import SUMMARY_TEXT, json_count, json_number, parse_number, unwrap_numpy_scalar
from .repeats import judge

_UNITS = {"tokens/s": "tokens/s", "samples/s": "samples/s", "queries/s": "queries/s"}
# The whole token after the key, so that "2.9e2" or "301,1" is judged whole, never by its prefix.
_TPS = re.compile(r"TOKENS_PER_SAMPLE:\s*(\S*)")
_ROUND = re.compile(r"v?([0-9]+\.[0-9]+)")
_NON_THROUGHPUT_SCENARIOS = ("singlestream", "multistream")
_REQUIRED = ("ID", "Submitter", "Availability", "Category", "Model", "Scenario", "Performance_Result",
             "Performance_Units")
RESULTS_REPO = "https://github.com/mlcommons/inference_results_{round}"
# The fields of a row that exportguard reads (a test holds _row_item to this list). A key given twice
# with different values refuses its row only if it is one of these (repeats.py).
FIELDS_READ = ("ID", "Submitter", "Availability", "Category", "Suite", "System", "Platform", "Model", "Scenario",
               "Accuracy", "Nodes", "Accelerator", "a#", "Processor", "Location", "Software", "Performance_Result",
               "Performance_Units", "version", "Details")

TreeNames = Mapping[tuple[str, str, str, str], str]


def read_summary(path: Path, source: Source, tree_names: TreeNames | None = None) -> Iterator[Item]:
    """``tree_names``: system names that submission trees' systems JSON gave, by (round, division,
    submitter folder, system folder), for rows the summary publishes with a blank name."""
    yield from parse_summary(read_regular(path, MAX_SOURCE_BYTES), display(str(path)), source, tree_names or {})


def parse_summary(data: bytes, label: str, source: Source, tree_names: TreeNames) -> Iterator[Item]:
    """The items of a summary table's bytes; ``label`` names the file in locators."""
    try:
        text = decode_utf8(data, label)
    except SourceError:
        # A stray byte inside one row's text costs that row, not the table: keep it as a surrogate
        # escape, and _row_item quarantines the row that holds it (a byte outside a string is invalid JSON).
        text = data.decode("utf-8-sig", errors="surrogateescape")
    try:
        rows = strict_json.loads(text)
    except json.JSONDecodeError as e:
        ends_early = e.msg.startswith("Unterminated string") or not text[e.pos:].strip()
        truncated = "; the file ends before the JSON does (truncated?)" if ends_early else ""
        raise SourceError("invalid_json", f"not valid JSON at line {e.lineno} column {e.colno}: {e.msg}{truncated}",
                          label, raw=text[max(0, e.pos - 200): e.pos + 200]) from None
    except RecursionError:
        raise SourceError("invalid_json", "not usable JSON: nested deeper than the JSON parser goes", label) from None
    except ValueError as e:
        raise SourceError("invalid_json", f"not usable JSON: {str(e).partition(':')[0]}", label) from None
    if not isinstance(rows, list):
        raise SourceError("not_a_summary_table", f"expected a JSON list of result rows, found {type(rows).__name__}",
                          label)
    for index, row in enumerate(rows):
        locator = f"{label} row {index + 1}"
        yield one_row(locator, lambda: _row_item(row, locator, source, tree_names),
                      raw=lambda: json.dumps(row, default=repr)[:4000])


def _row_item(row, locator: str, source: Source, tree_names: TreeNames) -> Item:
    if not isinstance(row, dict):
        raise SourceError("not_a_result_row", f"expected an object, found {type(row).__name__}")
    warnings = [f"{locator}: {w}" for w in _check_json(row)]
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
    value = json_number(row["Performance_Result"], "field Performance_Result", "field Performance_Result")
    if value <= 0:
        raise SourceError("non_positive_value", f"field Performance_Result must be a positive number, found "
                          f"{row['Performance_Result']!r}", "field Performance_Result")
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
    tokens_per_sample = _tokens_per_sample(_text(row, "Accuracy", required=False))
    per_node = _count(row, "a#", default=0)
    nodes = _count(row, "Nodes", default=1)
    if nodes < 1:
        raise SourceError("non_positive_value", f"field Nodes must be at least 1, found {row.get('Nodes')!r}", "field Nodes")
    system_name = _text(row, "System", required=False)
    if name_is_blank(system_name):
        platform = _text(row, "Platform", required=False) or system_id
        tree_name = tree_names.get((round_, division, submitter_key, system_id))
        system_name = tree_name or platform
        # No "; " in the text: the store joins a row's corrections with it.
        corrections.append("system name blank in the summary, taken from "
                           + (f"the submission tree's systems/{system_id}.json" if tree_name else f"Platform {platform}"))
    provenance = Provenance(
        source_kind=source.kind, source_path=source.path, source_sha256=source.sha256,
        source_locator=locator, source_url=_text(row, "Details", required=False) or RESULTS_REPO.format(round=round_),
        retrieved_on=source.retrieved_on, ingested_at=source.ingested_at)
    return warned(mlperf_result(
        provenance=provenance, round=round_, division=division, suite=_suite(row, bench.model),
        availability=availability, submitter=_text(row, "Submitter"), submitter_key=submitter_key,
        system_name=system_name, system_id=system_id,
        result_id=_text(row, "ID"), bench=bench, scenario=scenario, value=value, unit=unit, samples_per_s=None,
        tokens_per_sample=tokens_per_sample, tps_basis=TPS_SUMMARY, load=None,
        accelerator=_text(row, "Accelerator", required=False), accelerators_per_node=per_node, nodes=nodes,
        framework=_text(row, "Software", required=False), host_processor=_text(row, "Processor", required=False),
        corrections=tuple(corrections), value_where="field Performance_Result", tps_where="field Accuracy"),
        warnings)


def _text(row: dict, key: str, required: bool = True) -> str:
    value = row.get(key)
    if value is None:
        if required:
            raise SourceError("missing_field", f"field {key} is missing", f"field {key}")
        return ""
    if not isinstance(value, (str, int, float)):
        raise SourceError("bad_field", f"field {key} should be text, found {type(value).__name__}", f"field {key}")
    return str(value).strip()


def _check_json(row: dict) -> tuple[str, ...]:
    """Refuse a row holding what JSON does not allow (NaN, Infinity, an overflowing number) or a field
    we read given twice with different values: the table's other rows are unaffected. Returns the
    warnings for fields we do not read that the row gives twice with different values."""
    found = strict_json.refusal_in(row)
    if found:
        path, refused = found
        key = path.split(".")[0].split("[")[0]
        raise SourceError(refused.reason, f"field {path}: {refused.message}", f"field {key}")
    return judge(strict_json.repeats_in(row), FIELDS_READ, "", "duplicate_key", lambda r: f"field {r.field}")


def _tokens_per_sample(accuracy: str) -> float | None:
    """TOKENS_PER_SAMPLE in the Accuracy text: a number, or the numpy scalar repr that wraps one."""
    found = [unwrap_numpy_scalar(text) or text for text in _TPS.findall(accuracy)]
    if not found:
        return None
    if len(set(found)) > 1:
        raise SourceError("duplicate_key", f"field Accuracy gives TOKENS_PER_SAMPLE {len(found)} times with different "
                          f"values ({', '.join(found[:4])}): which one the run measured cannot be told", "field Accuracy")
    return parse_number(found[0], SUMMARY_TEXT, "field Accuracy, TOKENS_PER_SAMPLE", "field Accuracy")


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
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return default
    return json_count(raw, f"field {key}", f"field {key}")


def _round(row: dict) -> str:
    version = _text(row, "version", required=False) or _text(row, "ID").split("-")[0]
    m = _ROUND.fullmatch(version)
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
