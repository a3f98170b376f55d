"""SGLang ``python -m sglang.bench_serving`` JSON Lines: one object appended per run.

Its request rate "inf" is written as a bare ``Infinity``, which JSON does not allow: it is read here,
and only here, as the rate (an Infinity or NaN anywhere else is refused). Finite rates are Poisson
arrivals (SGLang has no other arrival process); "inf" with ``max_concurrency`` N keeps N in flight
(a closed loop), "inf" without a cap sends everything at once (a burst); ``"trace"`` replays a trace.
The file records no date, and the model and version only inside ``server_info`` (null when the server
has no /get_server_info). ``random_input_len``/``random_output_len`` are nominal: the shape is read
from the totals.
"""
from __future__ import annotations

import math
import statistics

from ..errors import SourceError
from ..model import NOT_RECORDED, OWN_BURST, OWN_CLOSED_LOOP, OWN_POISSON, OWN_TRACE
from . import strict_json
from .own_build import Measured, run_digest
from .own_json import Keys, Record, completed_requests, lengths_agree, positive_or_none

TOOL = "SGLang bench_serving"
TPOT_DEFINITION = ("TTFT: time to first token; TPOT: per request (latency - TTFT) / (output tokens - 1), percentiles "
                   "over requests (SGLang's *_tpot_ms; its ITL pools every gap and is not used)")


def recognises(obj: object) -> bool:
    return isinstance(obj, dict) and "output_throughput" in obj and (
        "total_output_tokens_retokenized" in obj or {"dataset_name", "random_input_len"} <= obj.keys())


def _rate(k: Keys) -> float | str | None:
    """The request rate: a number, "inf" (a bare Infinity or the text), "trace", or None."""
    value = k.obj.get("request_rate")
    if isinstance(value, strict_json.Refused) and value.constant == "Infinity":
        return "inf"
    if isinstance(value, str) and value.strip().lower() in ("inf", "trace"):
        return value.strip().lower()
    return k.num("request_rate")


def measured(record: Record) -> Measured:
    k = Keys(record.value, record.locator)
    completed = completed_requests(k)
    rate, cap = _rate(k), k.count("max_concurrency")
    details = [f"tag {k.text('tag')!r}"] if k.text("tag") else []
    if rate == "inf":
        kind, concurrency, target = (OWN_CLOSED_LOOP, cap, None) if cap else (OWN_BURST, None, None)
    elif rate == "trace":
        kind, concurrency, target = OWN_TRACE, cap, None
    elif rate is None:
        raise SourceError("missing_field", "key request_rate is missing", record.locator)
    else:
        kind, concurrency, target = OWN_POISSON, cap, rate
    warnings = []
    if k.num("concurrency"):
        details.append(f"a measured mean of {k.num('concurrency'):.2f} requests in flight")
        if cap and k.num("concurrency") > cap * 1.25:  # a mean above the cap it ran under: one of them is wrong
            warnings.append(f"max_concurrency {cap} but a measured mean of {k.num('concurrency'):.2f} requests in "
                            "flight (key concurrency): the load is stored as the cap says")
    output_tps = k.num("output_throughput", required=True)
    total = k.num("total_throughput")
    if total is None and k.has("input_throughput"):
        total = k.num("input_throughput") + output_tps
    info = k.sub("server_info")
    version = info.text("version") if info else None
    model = (info.text("model_path") if info else None) or k.text("model_id")
    dataset = k.text("dataset_name")
    return Measured(
        tool=TOOL, tool_version=version or NOT_RECORDED, run_key=run_digest(_plain(record.value)), model=model,
        output_tps=output_tps, total_tps=total,
        mean_input=k.num("total_input_tokens", required=True) / completed,
        mean_output=k.num("total_output_tokens", required=True) / completed,
        input_std=_pstdev(k, "input_lens", "total_input_tokens", completed),
        output_std=_pstdev(k, "output_lens", "total_output_tokens", completed),
        requests=completed, failed=None, duration_s=k.num("duration"),
        duration_basis="measured" if k.num("duration") else NOT_RECORDED,
        load_kind=kind, concurrency=concurrency, rate=target, burstiness=None, load_detail="; ".join(details),
        p50_ttft_ms=positive_or_none(k.num("median_ttft_ms"), "median_ttft_ms"),
        p99_ttft_ms=positive_or_none(k.num("p99_ttft_ms"), "p99_ttft_ms"),
        p50_tpot_ms=positive_or_none(k.num("median_tpot_ms"), "median_tpot_ms"),
        p99_tpot_ms=positive_or_none(k.num("p99_tpot_ms"), "p99_tpot_ms"),
        latency_definitions=TPOT_DEFINITION, run_date=NOT_RECORDED,
        dataset=f"{dataset} (as SGLang names it)" if dataset else NOT_RECORDED, value_where="key output_throughput",
        warnings=tuple(warnings))


def _plain(value: object) -> object:
    """The record with its Infinity written as the text "inf", so that it has a digest."""
    if isinstance(value, dict):
        return {k: ("inf" if isinstance(v, strict_json.Refused) and v.constant == "Infinity" else v)
                for k, v in value.items()}
    return value


def _pstdev(k: Keys, key: str, total_key: str, completed: int) -> float | None:
    """The population standard deviation of per-request lengths (files saved with output-details), when the
    array holds exactly the completed requests, and they sum to the file's total."""
    values = k.raw(key)
    if not isinstance(values, list) or len(values) != completed or not values:
        return None
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in values):
        return None
    lengths_agree(k, values, key, total_key)
    return statistics.pstdev(values)


def runs(record: Record):
    """One run per line."""
    yield record.locator, lambda: measured(record)
