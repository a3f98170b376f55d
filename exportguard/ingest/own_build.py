"""One own load-test run, as any tool's reader found it (``Measured``), made into a stored Result with
the system the user described, after the checks every own run shares.

The value is always the run's output (generated) tokens per second: a tool's total (input + output)
tokens/s is kept as its own figure (OwnRun.total_tokens_per_s), never under that unit. The shape is
what the tool measured (mean tokens per request over the completed requests), never the nominal
settings. No own run is named with an MLPerf scenario: its scenario is its load's kind.
"""
from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass

from ..errors import SourceError
from ..model import (
    LOAD_TOOL,
    NOT_RECORDED,
    OWN_CLOSED_LOOP,
    OWN_CONSTANT,
    OWN_GAMMA,
    OWN_LOAD_KINDS,
    OWN_POISSON,
    RESULT_ID_NONE,
    TPS_OWN,
    UNKNOWN,
    Benchmark,
    Conditions,
    Configuration,
    Identity,
    Load,
    OwnRun,
    Provenance,
    Result,
    Shape,
)
from .build import check_names
from .own_system import SystemDescription

NA = "n/a"


@dataclass(frozen=True)
class Measured:
    """What a tool's file says about one run, in the tool's own terms mapped onto exportguard's."""

    tool: str
    tool_version: str  # NOT_RECORDED when the file does not say
    run_key: str  # the tool's own ID of the run, or a digest of its record (run_digest)
    model: str | None  # None: the file names none
    output_tps: float
    total_tps: float | None
    mean_input: float
    mean_output: float
    input_std: float | None
    output_std: float | None
    requests: int | None
    failed: int | None
    duration_s: float | None
    duration_basis: str
    load_kind: str
    concurrency: int | None
    rate: float | None
    burstiness: float | None
    load_detail: str
    p50_ttft_ms: float | None
    p99_ttft_ms: float | None
    p50_tpot_ms: float | None
    p99_tpot_ms: float | None
    latency_definitions: str
    run_date: str  # NOT_RECORDED when the file does not say
    dataset: str  # NOT_RECORDED when the file does not say
    value_where: str = ""  # the key the throughput was read from, for a refusal
    warnings: tuple[str, ...] = ()  # load fields that contradict each other: stored, said in the report and note


def run_digest(record: object) -> str:
    """A run's identity when its tool gives none: the sha256 of its record in canonical JSON, so
    the same run read again (from the same or another file) is the same run."""
    text = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=str)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def own_result(m: Measured, source, locator: str, system: SystemDescription, *, source_url: str | None = None,
               load_basis: str = LOAD_TOOL, retrieved_on: str | None = None) -> Result:
    """The stored form of one run; raises SourceError for a run no store may hold. ``source_url``,
    ``load_basis`` and ``retrieved_on`` for a run a CSV row states (own_csv.py)."""
    _check(m, locator)
    m, system = _sanitised(m), _sanitised(system)
    model = m.model or system.model or UNKNOWN  # SGLang's file names none: stated with --model, else unknown
    measured_by, system_name = system.stated("measured_by"), system.stated("system_name")
    accelerator, framework = system.stated("accelerator"), system.stated("framework")
    # every text field a report shows, the file's (a label, a tag, a version, a date) as the user's: one
    # that reads like a throughput figure would be taken for one beside the real figures
    check_names(submitter=measured_by, system_name=system_name, accelerator=accelerator, framework=framework,
                host_processor=system.host_processor, model=model, server_settings=system.server_settings,
                tool_version=m.tool_version, run_date=m.run_date, dataset=m.dataset, load_detail=m.load_detail,
                warnings="; ".join(m.warnings))
    per_node, nodes = system.accelerators_per_node, system.nodes
    total = per_node * nodes if per_node is not None and nodes is not None else None
    tool_version = m.tool_version if m.tool_version != NOT_RECORDED or not system.tool_version else \
        f"{system.tool_version} (stated by the user)"
    identity = Identity(NA, NA, NA, NA, measured_by, measured_by, system_name, system_name, "", RESULT_ID_NONE,
                        "unverified", False)
    shape = Shape(m.mean_output, TPS_OWN, None, m.dataset, None)
    load = Load(m.load_kind, m.rate, None, None, m.p99_ttft_ms, m.p99_tpot_ms, None, load_basis)
    configuration = Configuration(accelerator, per_node, nodes, total, framework, system.stated("host_processor"))
    provenance = Provenance(source.kind, source.path, source.sha256, locator, source_url or f"file:{source.path}",
                            retrieved_on or source.retrieved_on, source.ingested_at)
    detail = "; ".join([m.load_detail] * bool(m.load_detail) + [f"warning: {w}" for w in m.warnings])
    run = OwnRun(tool=m.tool, tool_version=tool_version, run_id=hashlib.sha256(f"{m.tool}\n{m.run_key}".encode(
                     "utf-8", "surrogateescape")).hexdigest(), run_date=m.run_date, concurrency=m.concurrency,
                 burstiness=m.burstiness, load_detail=detail, mean_input_tokens=m.mean_input,
                 input_tokens_std=m.input_std, output_tokens_std=m.output_std, requests=m.requests,
                 failed_requests=m.failed, duration_s=m.duration_s, duration_basis=m.duration_basis,
                 p50_ttft_ms=m.p50_ttft_ms, p50_tpot_ms=m.p50_tpot_ms, latency_definitions=m.latency_definitions,
                 total_tokens_per_s=m.total_tps, server_settings=system.stated("server_settings"))
    conditions = Conditions(identity, Benchmark(model, model, NA, m.load_kind), shape, load, configuration,
                            provenance, run)
    return Result(conditions, m.output_tps, "tokens/s")


def _sanitised(value):
    """``value`` (a Measured or a SystemDescription) with each text as sanitize.visible shows it: controls,
    bidi overrides and isolates, zero-width characters as U+FFFD, line breaks as spaces. Stored so, every
    format and the checker read the same text (the one sanitising path for own runs' text)."""
    from dataclasses import fields, replace

    from ..sanitize import visible

    changed = {}
    for f in fields(value):
        v = getattr(value, f.name)
        if isinstance(v, str) and f.name not in ("run_key", "source"):
            if visible(v) != v:
                changed[f.name] = visible(v)
        elif isinstance(v, tuple) and v and all(isinstance(x, str) for x in v):
            if tuple(map(visible, v)) != v:
                changed[f.name] = tuple(map(visible, v))
    return replace(value, **changed) if changed else value


def redescribed(stored: Result, system: SystemDescription) -> Result:
    """A stored own run with the system ``system`` describes, as own_result would have stored it (the
    ``exportguard redescribe`` correction); its figures, load, shape and source stay as measured."""
    from dataclasses import replace

    c = stored.conditions
    system = _sanitised(system)
    measured_by, system_name = system.stated("measured_by"), system.stated("system_name")
    accelerator, framework = system.stated("accelerator"), system.stated("framework")
    check_names(submitter=measured_by, system_name=system_name, accelerator=accelerator, framework=framework,
                host_processor=system.host_processor)
    per_node, nodes = system.accelerators_per_node, system.nodes
    total = per_node * nodes if per_node is not None and nodes is not None else None
    identity = replace(c.identity, submitter=measured_by, submitter_key=measured_by, system_name=system_name,
                       system_id=system_name)
    configuration = Configuration(accelerator, per_node, nodes, total, framework, system.stated("host_processor"))
    run = replace(c.run, server_settings=system.stated("server_settings"))
    return replace(stored, conditions=replace(c, identity=identity, configuration=configuration, run=run))


def _positive(value: float | None, what: str, where: str = "", required: bool = True) -> None:
    if value is None:
        if required:
            raise SourceError("missing_field", f"the file gives no {what}", where)
        return
    if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
        raise SourceError("non_positive_value", f"{what} {value!r} is not a finite, positive number", where)


def _check(m: Measured, locator: str) -> None:
    # Where a refusal points: the tool's key for the value, exportguard's name (the CSV column) otherwise;
    # the run itself is named by the caller (one_row).
    _positive(m.output_tps, "output tokens/s", m.value_where)
    _positive(m.total_tps, "total tokens/s", "total_tokens_per_s", required=False)
    _positive(m.mean_input, "mean input tokens per request", "mean_input_tokens")
    _positive(m.mean_output, "mean output tokens per request", "mean_output_tokens")
    for what, v in (("duration_s", m.duration_s), ("p50_ttft_ms", m.p50_ttft_ms), ("p99_ttft_ms", m.p99_ttft_ms),
                    ("p50_tpot_ms", m.p50_tpot_ms), ("p99_tpot_ms", m.p99_tpot_ms), ("request_rate", m.rate),
                    ("burstiness", m.burstiness)):
        _positive(v, what.replace("_", " "), what, required=False)
    if m.load_kind not in OWN_LOAD_KINDS:
        raise SourceError("bad_field", f"load {m.load_kind!r} is not one of {', '.join(OWN_LOAD_KINDS)}", "load")
    if m.load_kind == OWN_CLOSED_LOOP and not m.concurrency:
        raise SourceError("missing_field", "a closed loop needs its number of requests in flight", "concurrency")
    if m.load_kind in (OWN_POISSON, OWN_GAMMA, OWN_CONSTANT) and m.rate is None:
        raise SourceError("missing_field", f"a {m.load_kind} load needs its target rate", "request_rate")
    if m.load_kind == OWN_GAMMA and m.burstiness is None:
        raise SourceError("missing_field", "a Gamma load needs its burstiness", "burstiness")
    if m.concurrency is not None and m.concurrency < 1:
        raise SourceError("non_positive_value", f"concurrency {m.concurrency} is not 1 or more", "concurrency")
    _plausible(m)
    _consistent(m)
    _check_date(m.run_date)


# Plausibility for own runs, as build.check_throughput is for MLPerf rows: absolute bounds that no real
# run crosses (a unit or decimal-point error, or a hostile file), so that no figure prints as 309 digits
# or as 0.0000. The throughput's upper bound is the one every source shares (reference_conditions.toml).
OWN_MIN_TOKENS_PER_S = 0.001  # below one token in 1,000 s: nothing was measured
OWN_MAX_TOKENS_PER_REQUEST = 2_000_000  # above any model's context: a unit error (bytes? a total?)
OWN_MAX_LATENCY_MS = 86_400_000.0  # a day per token or first token
OWN_MAX_DURATION_S = 30 * 86_400.0  # a month-long run
OWN_MAX_RATE = 1_000_000.0  # requests per second
OWN_MAX_BURSTINESS = 1_000.0
# How far a run's figures may disagree with each other (value against requests x mean output tokens /
# duration, total against output x (1 + input/output)): real files of every tool agree within 2.5 %
# (tools time the run from the first send or the first reply); 25 % leaves room for that and nothing more.
OWN_CROSS_CHECK_TOLERANCE = 0.25


def _plausible(m: Measured) -> None:
    from ..reference import max_throughput_per_system

    top = max_throughput_per_system()
    for what, where, value, low, high in (
            ("output tokens/s", m.value_where or "value", m.output_tps, OWN_MIN_TOKENS_PER_S, top),
            ("total tokens/s", "total_tokens_per_s", m.total_tps, OWN_MIN_TOKENS_PER_S, top),
            ("mean input tokens per request", "mean_input_tokens", m.mean_input, 0, OWN_MAX_TOKENS_PER_REQUEST),
            ("mean output tokens per request", "mean_output_tokens", m.mean_output, 0, OWN_MAX_TOKENS_PER_REQUEST),
            ("duration", "duration_s", m.duration_s, 0, OWN_MAX_DURATION_S),
            ("p50 TTFT (ms)", "p50_ttft_ms", m.p50_ttft_ms, 0, OWN_MAX_LATENCY_MS),
            ("p99 TTFT (ms)", "p99_ttft_ms", m.p99_ttft_ms, 0, OWN_MAX_LATENCY_MS),
            ("p50 TPOT (ms)", "p50_tpot_ms", m.p50_tpot_ms, 0, OWN_MAX_LATENCY_MS),
            ("p99 TPOT (ms)", "p99_tpot_ms", m.p99_tpot_ms, 0, OWN_MAX_LATENCY_MS),
            ("request rate (per second)", "request_rate", m.rate, 0, OWN_MAX_RATE),
            ("burstiness", "burstiness", m.burstiness, 0, OWN_MAX_BURSTINESS)):
        if value is not None and not (low <= value <= high):
            raise SourceError("implausible_value", f"{what} {value:.3g} is not plausible: a real run's is between "
                              f"{low:g} and {high:g} (a unit or decimal-point error?)", where)
    if m.input_std is not None and m.input_std > OWN_MAX_TOKENS_PER_REQUEST or \
            m.output_std is not None and m.output_std > OWN_MAX_TOKENS_PER_REQUEST:
        raise SourceError("implausible_value", "a spread of tokens per request above "
                          f"{OWN_MAX_TOKENS_PER_REQUEST:,} is not plausible", "mean_output_tokens_std")


def _consistent(m: Measured) -> None:
    """The run's figures against each other: a contradiction beyond OWN_CROSS_CHECK_TOLERANCE costs the run,
    naming both sides (a value 1,000 x its own totals / duration is a unit error or an edited file)."""
    value_key = (m.value_where or "value").removeprefix("key ").removeprefix("column ")
    if m.duration_s and m.requests:
        implied = m.requests * m.mean_output / m.duration_s
        _agree(m.output_tps, implied, value_key, f"completed requests ({m.requests:,}) x mean output tokens "
               f"({m.mean_output:.6g}) / duration ({m.duration_s:.6g} s, {m.duration_basis})")
    if m.total_tps is not None:
        if m.total_tps < m.output_tps:
            raise SourceError("contradicts_itself", f"total tokens/s {m.total_tps:.6g} is below output tokens/s "
                              f"{m.output_tps:.6g} ({value_key}): a total includes the output", "total_tokens_per_s")
        _agree(m.total_tps, m.output_tps * (1 + m.mean_input / m.mean_output), "total tokens/s",
               f"{value_key} x (1 + mean input / mean output tokens per request)")


def _agree(value: float, implied: float, what: str, basis: str) -> None:
    if abs(value - implied) > OWN_CROSS_CHECK_TOLERANCE * implied:
        raise SourceError("contradicts_itself", f"{what} {value:.6g} contradicts the run's own {basis} = "
                          f"{implied:.6g} (by a factor {max(value, implied) / min(value, implied):.3g}; the tolerance "
                          f"is {OWN_CROSS_CHECK_TOLERANCE:.0%})", what)


_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})(?:[ T]([0-9]{2}):([0-9]{2})(?::([0-9]{2}))?)?")


def _check_date(text: str) -> None:
    """A run date is a real date and time (not 2026-13-99 25:61:99), or says it was not recorded."""
    m = _DATE.match(text or "")
    if m is None:
        if text and text[:1].isdigit():
            raise SourceError("bad_field", f"run date {text[:40]!r} is not a date like 2026-12-01 09:43:31", "run_date")
        return
    import datetime as dt

    y, mo, d, h, mi, sec = (int(g) if g else 0 for g in m.groups())
    try:
        dt.datetime(y, mo, d, h, mi, sec)
    except ValueError as e:
        raise SourceError("bad_field", f"run date {m.group(0)!r} is not a real date and time ({e})", "run_date") \
            from None


def unknown_if_none(value: str | None) -> str:
    return UNKNOWN if value is None else value
