"""vLLM ``vllm bench serve`` save-result JSON (and the legacy ``benchmarks/benchmark_serving.py``),
one object per run; its append-result mode writes one object per line (JSON Lines).

Read version-tolerantly: ``request_throughput`` or the old typo ``request_inthroughput``;
``total_token_throughput`` or, before it, ``input_throughput`` + ``output_throughput``;
``request_goodput`` or ``"request_goodput:"``; ``endpoint_type`` or ``backend``. The load:
``request_rate`` ("inf" or a number), ``burstiness`` (1.0 = Poisson, otherwise Gamma with that k) and
``max_concurrency`` (null = no cap): "inf" with no cap sends everything at once (a burst); "inf" with
a cap of N keeps N in flight (a closed loop). The file records no tool version and no dataset.
"""
from __future__ import annotations

import math
import statistics
from ..model import NOT_RECORDED, OWN_BURST, OWN_CLOSED_LOOP, OWN_GAMMA, OWN_OTHER, OWN_POISSON
from .own_build import Measured, run_digest
from ..errors import SourceError
from .own_json import Keys, Record, completed_requests, lengths_agree, positive_or_none

TOOL = "vllm bench serve"
TPOT_DEFINITION = ("TTFT: time to first token; TPOT: per request (latency - TTFT) / (output tokens - 1), percentiles "
                   "over requests (vLLM's *_tpot_ms; its ITL pools every gap and is not used)")


def recognises(obj: object) -> bool:
    return isinstance(obj, dict) and {"date", "model_id", "num_prompts", "request_rate",
                                      "output_throughput"} <= obj.keys()


def measured(record: Record) -> Measured:
    k = Keys(record.value, record.locator)
    completed = completed_requests(k)
    output_tps = k.num("output_throughput", required=True)
    total = k.num("total_token_throughput")
    if total is None and k.has("input_throughput"):  # before vllm#8164 the file had input tok/s instead
        total = k.num("input_throughput") + output_tps
    kind, concurrency, rate, burstiness, detail = _load(k)
    _check_prompts(k, completed)
    input_std, output_std = _spread(k, completed)
    duration = k.num("duration")
    return Measured(
        tool=TOOL, tool_version=k.text("version") or NOT_RECORDED, run_key=run_digest(record.value),
        model=k.text("model_id"), output_tps=output_tps, total_tps=total,
        mean_input=k.num("total_input_tokens", required=True) / completed,
        mean_output=k.num("total_output_tokens", required=True) / completed,
        input_std=input_std, output_std=output_std, requests=completed, failed=k.count("failed"),
        duration_s=duration, duration_basis="measured" if duration else NOT_RECORDED,
        load_kind=kind, concurrency=concurrency, rate=rate, burstiness=burstiness, load_detail=detail,
        p50_ttft_ms=positive_or_none(k.num("p50_ttft_ms") or k.num("median_ttft_ms"), "p50_ttft_ms"),
        p99_ttft_ms=positive_or_none(k.num("p99_ttft_ms"), "p99_ttft_ms"),
        p50_tpot_ms=positive_or_none(k.num("p50_tpot_ms") or k.num("median_tpot_ms"), "p50_tpot_ms"),
        p99_tpot_ms=positive_or_none(k.num("p99_tpot_ms"), "p99_tpot_ms"), latency_definitions=TPOT_DEFINITION,
        run_date=_date(k.text("date")), dataset=NOT_RECORDED, value_where="key output_throughput",
        warnings=_load_warnings(k))


def _load_warnings(k: Keys) -> tuple[str, ...]:
    """Load fields that contradict each other, read one way and said (stored with the run)."""
    raw_rate = k.raw("request_rate")
    if isinstance(raw_rate, str) and raw_rate.strip().lower() == "inf" and k.count("max_concurrency") == 0:
        return ("request_rate inf with max_concurrency 0 (no request could be in flight): read as no cap, "
                "a burst",)
    return ()


def _check_prompts(k: Keys, completed: int) -> None:
    """completed + failed is the prompts sent (vLLM sends every prompt and counts each outcome once)."""
    prompts, failed = k.count("num_prompts"), k.count("failed")
    if prompts is not None and failed is not None and completed + failed != prompts:
        raise SourceError("contradicts_itself", f"completed {completed} + failed {failed} is not num_prompts "
                          f"{prompts}: the file's counts contradict each other", k.where)


def _load(k: Keys) -> tuple[str, int | None, float | None, float | None, str]:
    raw_rate = k.raw("request_rate")
    cap = k.count("max_concurrency")
    details = []
    if k.text("label"):
        details.append(f"label {k.text('label')!r}")
    if k.has("ramp_up_strategy"):
        details.insert(0, f"ramp-up ({k.text('ramp_up_strategy')}) from {k.num('ramp_up_start_rps', required=True):g}"
                          f" to {k.num('ramp_up_end_rps', required=True):g} per second")
        return OWN_OTHER, cap, None, None, "; ".join(details)
    if isinstance(raw_rate, str) and raw_rate.strip().lower() == "inf":
        if cap:
            return OWN_CLOSED_LOOP, cap, None, None, "; ".join(["request rate inf with max_concurrency"] + details)
        return OWN_BURST, None, None, None, "; ".join(details)
    rate = k.num("request_rate", required=True)
    burstiness = k.num("burstiness")
    if burstiness is None or burstiness == 1.0:
        return OWN_POISSON, cap, rate, 1.0 if burstiness else None, "; ".join(details)
    return OWN_GAMMA, cap, rate, burstiness, "; ".join(details)


def _spread(k: Keys, completed: int) -> tuple[float | None, float | None]:
    """Population standard deviations of the completed requests' lengths (files saved with save-detailed)."""
    ins, outs, errors = k.raw("input_lens"), k.raw("output_lens"), k.raw("errors")
    if not (isinstance(ins, list) and isinstance(outs, list) and len(ins) == len(outs) and ins):
        return None, None
    ok = [i for i in range(len(ins)) if not (isinstance(errors, list) and i < len(errors) and errors[i])]
    pairs = [(ins[i], outs[i]) for i in ok]
    if len(pairs) != completed or not all(_is_count(a) and _is_count(b) for a, b in pairs):
        return None, None  # the arrays do not match the totals: not a spread of these requests
    lengths_agree(k, [a for a, _ in pairs], "input_lens", "total_input_tokens")
    lengths_agree(k, [b for _, b in pairs], "output_lens", "total_output_tokens")
    return statistics.pstdev([a for a, _ in pairs]), statistics.pstdev([b for _, b in pairs])


def _is_count(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0


def _date(text: str | None) -> str:
    """'20261201-094331' (local time, no zone) -> '2026-12-01 09:43:31, local time (no time zone)'; any
    other text is refused (own_build checks that the date and time are real)."""
    if not text:
        return NOT_RECORDED
    if len(text) == 15 and text[8] == "-" and text[:8].isdigit() and text[9:].isdigit() and text.isascii():
        return f"{text[:4]}-{text[4:6]}-{text[6:8]} {text[9:11]}:{text[11:13]}:{text[13:]}, local time (no time zone)"
    raise SourceError("bad_field", f"key date {text[:40]!r} is not a date like vLLM's 20261201-094331")


def runs(record: Record):
    """One run per record (a file, or a line of an append-result file)."""
    yield record.locator, lambda: measured(record)
