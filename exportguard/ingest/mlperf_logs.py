"""Parse the three text files of an MLCommons submission tree that carry our numbers.

A submission tree is untrusted, hand-assembled text: ``mlperf_log_summary.txt`` (throughput,
validity, run parameters), ``accuracy/accuracy.txt`` (a Python-dict literal among tool noise,
the only place tokens/sample lives) and ``systems/<id>.json`` (what hardware ran it). These
functions turn decoded text into frozen values or raise ``SourceError`` with a stable reason,
so the caller can quarantine a file without ever guessing. They do no I/O and never evaluate
file text; every regex is anchored and free of nested quantifiers, and line lengths are capped,
so hostile input costs linear time.
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from exportguard.errors import SourceError

from . import strict_json
from .numbers import LOG, PYTHON, json_count, parse_count, parse_number, unwrap_numpy_scalar
from .repeats import Repeat, judge

MAX_LOG_LINE = 64 * 1024
MAX_ACCURACY_LINE = 64 * 1024
MAX_SYSTEM_JSON = 1024 * 1024


def _snippet(text: str, limit: int = 80) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")


# --------------------------------------------------------------------------- performance log

@dataclass(frozen=True)
class PerformanceSummary:
    scenario_in_log: str
    valid: bool
    tokens_per_s: float | None
    samples_per_s: float | None
    scheduled_samples_per_s: float | None
    target_qps: float | None
    ttft_bound_ns: int | None
    tpot_bound_ns: int | None
    p99_ttft_ns: float | None
    p99_tpot_ns: float | None
    min_duration_ms: int | None
    min_query_count: int | None
    samples_per_query: int | None
    performance_sample_count: int | None


# Whole keys as loadgen prints them. Offline and Server spell throughput differently; both map to
# one attribute, and the first occurrence wins (Server prints "Completed tokens per second" twice).
_FLOAT_KEYS = {
    "Tokens per second": "tokens_per_s",
    "Completed tokens per second": "tokens_per_s",
    "Samples per second": "samples_per_s",
    "Completed samples per second": "samples_per_s",
    "Scheduled samples per second": "scheduled_samples_per_s",
    "target_qps": "target_qps",
    "99.00 percentile first token latency (ns)": "p99_ttft_ns",
    "99.00 percentile time to output token (ns)": "p99_tpot_ns",
}
_INT_KEYS = {
    "ttft_latency (ns)": "ttft_bound_ns",
    "tpot_latency (ns)": "tpot_bound_ns",
    "min_duration (ms)": "min_duration_ms",
    "min_query_count": "min_query_count",
    "samples_per_query": "samples_per_query",
    "performance_sample_count": "performance_sample_count",
}

_RATES = ("tokens_per_s", "samples_per_s", "scheduled_samples_per_s")


def parse_performance_summary(text: str) -> PerformanceSummary:
    """Read ``mlperf_log_summary.txt``. An INVALID run is returned with ``valid=False``."""
    has_header = False
    result: str | None = None
    scenario: str | None = None
    raw: dict[str, tuple[str, str, int]] = {}  # attribute -> (key as printed, value, line number)
    for lineno, line in enumerate(text.splitlines(), start=1):
        if len(line) > MAX_LOG_LINE:  # no real line is this long; do not spend time on it
            continue
        line = line.strip()
        if line == "MLPerf Results Summary":
            has_header = True
            continue
        key, colon, value = line.partition(":")
        if not colon:
            continue
        key, value = key.strip(), value.strip()
        if key == "Result is":
            result = value if result is None else result
        elif key == "Scenario":
            scenario = value if scenario is None else scenario
        else:
            attr = _FLOAT_KEYS.get(key) or _INT_KEYS.get(key)
            if attr is not None and attr not in raw:
                raw[attr] = (key, value, lineno)

    if not has_header and result is None:
        raise SourceError("not_a_performance_summary",
                          "no 'MLPerf Results Summary' header and no 'Result is' line")
    if result is None:
        raise SourceError("missing_result_status", "no 'Result is : VALID/INVALID' line")
    if not scenario:
        raise SourceError("missing_scenario", "no 'Scenario :' line")
    fields: dict[str, float | int] = {}
    for attr, (key, value, lineno) in raw.items():
        fields[attr] = (parse_count(value, key, f"line {lineno}") if key in _INT_KEYS
                        else parse_number(value, LOG, key, f"line {lineno}"))
    if "tokens_per_s" not in fields and "samples_per_s" not in fields:
        raise SourceError("missing_throughput",
                          "neither 'Tokens per second' nor 'Samples per second' "
                          "(or their 'Completed ...' forms) is present")
    for attr, value in fields.items():
        key, text_value, lineno = raw[attr]
        # A rate of zero is as meaningless as a negative one; target_qps may be 0 in Offline.
        if value < 0 or (value == 0 and attr in _RATES):
            bound = "> 0" if attr in _RATES else ">= 0"
            raise SourceError("negative_value", f"{key}: {_snippet(text_value)} must be {bound}",
                              f"line {lineno}", text_value)

    return PerformanceSummary(
        scenario_in_log=scenario,
        # Anything but an exact VALID (INVALID, blank, garbage) is treated as not valid.
        valid=result == "VALID",
        **{attr: fields.get(attr) for attr in (*_FLOAT_KEYS.values(), *_INT_KEYS.values())},
    )


def derived_tokens_per_sample(perf: PerformanceSummary) -> float | None:
    """tokens/s over samples/s: the only tokens/sample llama3.1-8b submissions give us."""
    tokens, samples = perf.tokens_per_s, perf.samples_per_s
    if tokens is None or samples is None or tokens <= 0 or samples <= 0:
        return None
    return tokens / samples


# --------------------------------------------------------------------------- accuracy.txt

@dataclass(frozen=True)
class AccuracyResult:
    metrics: Mapping[str, float]
    tokens_per_sample: float | None
    gen_num: int | None
    gen_tok_len: int | None
    warnings: tuple[str, ...] = ()  # keys the dict repeats with different values, in fields not read


# The keys of the accuracy dict that exportguard reads; a key repeated with different values is
# refused only among these (repeats.py).
ACCURACY_KEYS_READ = ("tokens_per_sample", "gen_num", "gen_tok_len")


# One token per match, each alternative bounded or linear; \S at the end means the scan can only
# stop at end of text, and names whatever does not belong (a brace, a bracket, a name). A call
# such as np.int64(28662277) is one token, taken as a value only if it is a numpy scalar's repr
# (numbers.unwrap_numpy_scalar); it is never evaluated. The number alternative is the number
# parser's own grammar for Python literals.
_NUMBER_RE = PYTHON.pattern
_TOKEN_RE = re.compile(
    rf"""\s*(?:(?P<num>{_NUMBER_RE.pattern})|'(?P<sq>[^'\\]{{0,128}})'|"(?P<dq>[^"\\]{{0,128}})"|"""
    r"""(?P<punct>[:,])|(?P<call>[A-Za-z_]\w{0,39}(?:\.\w{1,40})?\([^()]{0,80}\))|(?P<other>\w{1,40}|\S))"""
)
_KEY_RE = re.compile(r"[A-Za-z0-9_.\-]{1,128}")


def _accuracy_error(token: re.Match[str] | None, expected: str, locator: str) -> SourceError:
    got = "end of dict" if token is None else _snippet(token.group().strip(), 40)
    return SourceError("accuracy_not_a_dict_literal", f"expected {expected}, found {got}",
                       locator, "" if token is None else token.group().strip()[:200])


def _literal_number(token: re.Match[str]) -> str | None:
    """The number text of a value token: a number, a quoted number, or a numpy scalar's repr."""
    if token["num"] is not None:
        return token["num"]
    text = token["sq"] if token["sq"] is not None else token["dq"]
    if text is None and token["call"] is not None:
        text = unwrap_numpy_scalar(token["call"])
    return text if text is not None and _NUMBER_RE.fullmatch(text) else None


def _dict_literal(inner: str, locator: str) -> tuple[dict[str, str], list[Repeat]]:
    """Map key -> number text for ``'key': 1.5, 'k2': '38.4', 'n': np.int64(7)`` (the text between the
    braces), and the keys it gives more than once with different values (the last value is kept)."""
    def tokens():
        pos = 0
        while (m := _TOKEN_RE.match(inner, pos)) is not None:
            pos = m.end()
            yield m

    pairs: dict[str, str] = {}
    given: dict[str, list[str]] = {}
    stream = tokens()
    for key_tok in stream:  # a trailing comma ends the loop here, as Python allows
        key = key_tok["sq"] if key_tok["sq"] is not None else key_tok["dq"]
        if key is None or not _KEY_RE.fullmatch(key):
            raise _accuracy_error(key_tok, "a quoted key", locator)
        colon = next(stream, None)
        if colon is None or colon["punct"] != ":":
            raise _accuracy_error(colon, f"':' after key {key!r}", locator)
        value_tok = next(stream, None)
        value = None if value_tok is None else _literal_number(value_tok)
        if value is None:
            raise _accuracy_error(value_tok, f"a number for key {key!r}", locator)
        if key in pairs:
            given.setdefault(key, [pairs[key]]).append(value)
        pairs[key] = value
        separator = next(stream, None)
        if separator is None:
            break
        if separator["punct"] != ",":
            raise _accuracy_error(separator, "',' or end of dict", locator)
    repeats = [Repeat(key, tuple(values)) for key, values in given.items() if len(set(values)) > 1]
    return pairs, repeats


def parse_accuracy(text: str) -> AccuracyResult:
    """Read ``accuracy.txt``: the last ``{...}`` line, parsed without eval."""
    found: tuple[int, str] | None = None
    for lineno, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("{") and stripped.endswith("}"):
            found = (lineno, stripped)
    if found is None:
        raise SourceError("accuracy_dict_missing", "no line of the form {...} in accuracy.txt")
    lineno, line = found
    locator = f"line {lineno}"
    if len(line) > MAX_ACCURACY_LINE:
        raise SourceError("accuracy_line_too_long",
                          f"accuracy dict line is {len(line)} characters, over {MAX_ACCURACY_LINE}",
                          locator)

    pairs, repeats = _dict_literal(line[1:-1], locator)
    warnings = judge(repeats, ACCURACY_KEYS_READ, "the accuracy dict", "accuracy_duplicate_key", lambda r: locator)
    metrics = {key: parse_number(value, PYTHON, key, locator) for key, value in pairs.items()}
    return AccuracyResult(
        metrics=MappingProxyType(metrics),
        # Whether it is plausible is the ingest's one check against the benchmark (build.py).
        tokens_per_sample=metrics.get("tokens_per_sample"),
        gen_num=parse_count(pairs["gen_num"], "gen_num", locator) if "gen_num" in pairs else None,
        gen_tok_len=(parse_count(pairs["gen_tok_len"], "gen_tok_len", locator)
                     if "gen_tok_len" in pairs else None),
        warnings=warnings,
    )


# --------------------------------------------------------------------------- systems/<id>.json

@dataclass(frozen=True)
class SystemDescription:
    division: str | None
    submitter: str | None
    status: str | None
    system_type: str | None
    system_name: str | None
    number_of_nodes: int | None
    accelerators_per_node: int | None
    accelerator_model_name: str | None
    host_processor_model_name: str | None
    framework: str | None
    operating_system: str | None
    raw_text: str
    warnings: tuple[str, ...] = ()  # keys the file repeats with different values, in fields not read


_STRING_FIELDS = ("division", "submitter", "status", "system_type", "system_name",
                  "accelerator_model_name", "host_processor_model_name", "framework",
                  "operating_system")
_COUNT_FIELDS = ("number_of_nodes", "accelerators_per_node")
SYSTEM_FIELDS_READ = _STRING_FIELDS + _COUNT_FIELDS  # a key repeated with different values is refused only here


def _system_string(doc: dict, field: str) -> str | None:
    value = doc.get(field)
    if value is None:
        return None
    if isinstance(value, str):
        return value.strip()
    raise SourceError("non_string_field", f"{field}: {_snippet(repr(value))} is not a string")


def _system_count(doc: dict, field: str) -> int | None:
    """Submitters write counts as 8, "8" or " 8 "; CPU-only systems may write "N/A" or ""."""
    value = doc.get(field)
    if value is None or (isinstance(value, str) and value.strip() in ("", "N/A")):
        return None
    if isinstance(value, float):  # 8.0 is not how a systems JSON writes a count
        raise SourceError("bad_number", f"{field}: {value!r} is not a count (a whole number, 0 or more)")
    return json_count(value, field)


def parse_system_description(text: str) -> SystemDescription:
    """Read ``systems/<system_id>.json``; the raw text is kept because the JSON is the record.

    The file is one record: a NaN or an Infinity anywhere in it, or a key that a field we read gives
    twice with different values, refuses the whole file, and with it every result that names this
    system. A key repeated with the same value is accepted; one repeated with different values in a
    field we do not read is a warning (repeats.py)."""
    if len(text) > MAX_SYSTEM_JSON:
        raise SourceError("file_too_large",
                          f"system description is {len(text)} characters, over {MAX_SYSTEM_JSON}")
    try:
        doc = strict_json.loads(text)
    except json.JSONDecodeError as exc:
        raise SourceError("invalid_json",
                          f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
                          f"line {exc.lineno}") from None
    except (ValueError, RecursionError) as exc:  # e.g. [[[[... nesting
        raise SourceError("invalid_json", f"not usable JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise SourceError("not_a_system_description",
                          f"expected a JSON object, found a JSON {type(doc).__name__}")
    warnings = strict_json.check(doc, "the system description", read=SYSTEM_FIELDS_READ)

    strings = {field: _system_string(doc, field) for field in _STRING_FIELDS}
    if strings["status"] is not None:
        strings["status"] = strings["status"].lower()
    return SystemDescription(
        **strings,
        **{field: _system_count(doc, field) for field in _COUNT_FIELDS},
        raw_text=text,
        warnings=warnings,
    )
