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
    model = m.model or system.model or UNKNOWN  # SGLang's file names none: stated with --model, else unknown
    measured_by, system_name = system.stated("measured_by"), system.stated("system_name")
    accelerator, framework = system.stated("accelerator"), system.stated("framework")
    check_names(submitter=measured_by, system_name=system_name, accelerator=accelerator, framework=framework,
                host_processor=system.host_processor, model=model)
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
    run = OwnRun(tool=m.tool, tool_version=tool_version, run_id=hashlib.sha256(f"{m.tool}\n{m.run_key}".encode(
                     "utf-8", "surrogateescape")).hexdigest(), run_date=m.run_date, concurrency=m.concurrency,
                 burstiness=m.burstiness, load_detail=m.load_detail, mean_input_tokens=m.mean_input,
                 input_tokens_std=m.input_std, output_tokens_std=m.output_std, requests=m.requests,
                 failed_requests=m.failed, duration_s=m.duration_s, duration_basis=m.duration_basis,
                 p50_ttft_ms=m.p50_ttft_ms, p50_tpot_ms=m.p50_tpot_ms, latency_definitions=m.latency_definitions,
                 total_tokens_per_s=m.total_tps, server_settings=system.stated("server_settings"))
    conditions = Conditions(identity, Benchmark(model, model, NA, m.load_kind), shape, load, configuration,
                            provenance, run)
    return Result(conditions, m.output_tps, "tokens/s")


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


def unknown_if_none(value: str | None) -> str:
    return UNKNOWN if value is None else value
