"""ray-project/llmperf ``token_benchmark_ray.py`` summary (``<model>_<in>_<out>_summary.json``): one
flattened object per run, results under ``results_*``, latencies in **seconds**.

The load is always a closed loop of ``num_concurrent_requests`` clients. There is no TPOT: llmperf's
``inter_token_latency_s`` divides the sum of all gaps, the first token's included, by the output tokens,
so it is not stored as TPOT. No duration key: it is derived as completed requests / (completed per
minute) x 60. ``version`` ("2023-08-31") is the results format, not the tool's version. Token counts
come from llmperf's hard-coded Llama-2 tokenizer (``hf-internal-testing/llama-tokenizer``), not the
model's. ``*_min``/``*_max`` of token counts are written as strings and are not read.
"""
from __future__ import annotations

import datetime as dt

from ..errors import SourceError
from ..model import NOT_RECORDED, OWN_CLOSED_LOOP
from .own_build import Measured, run_digest
from .own_json import Keys, Record, completed_requests, positive_or_none

TOOL = "llmperf"
FORMAT_VERSION = "2023-08-31"
TPOT_DEFINITION = ("TTFT: ttft_s (seconds, converted); TPOT not reported: llmperf's inter_token_latency includes "
                   "the first token (sum of gaps / output tokens)")


def recognises(obj: object) -> bool:
    return isinstance(obj, dict) and obj.get("version") == FORMAT_VERSION and any(
        isinstance(key, str) and key.startswith("results_") for key in obj)


def measured(record: Record) -> Measured:
    k = Keys(record.value, record.locator)
    completed = completed_requests(k, "results_num_completed_requests")
    per_minute = k.num("results_num_completed_requests_per_min")
    duration = completed / per_minute * 60 if per_minute else None
    clients = k.count("num_concurrent_requests")
    if not clients:
        raise SourceError("missing_field", "key num_concurrent_requests is missing: the load is not recorded",
                          record.locator)
    seconds = lambda key: None if k.num(key) is None else positive_or_none(k.num(key) * 1000)  # noqa: E731
    stamp = k.num("timestamp")
    date = (dt.datetime.fromtimestamp(stamp, dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
            if stamp and 0 < stamp < 1e11 else NOT_RECORDED)
    return Measured(
        tool=TOOL, tool_version=f"not recorded (results format {FORMAT_VERSION})", run_key=run_digest(record.value),
        model=k.text("model"), output_tps=k.num("results_mean_output_throughput_token_per_s", required=True),
        total_tps=None, mean_input=k.num("results_number_input_tokens_mean", required=True),
        mean_output=k.num("results_number_output_tokens_mean", required=True),
        input_std=k.num("results_number_input_tokens_stddev"), output_std=k.num("results_number_output_tokens_stddev"),
        requests=completed, failed=k.count("results_number_errors"), duration_s=duration,
        duration_basis="derived: completed requests / completed per minute x 60" if duration else NOT_RECORDED,
        load_kind=OWN_CLOSED_LOOP, concurrency=clients, rate=None, burstiness=None,
        load_detail=f"{clients} concurrent clients",
        p50_ttft_ms=seconds("results_ttft_s_quantiles_p50"), p99_ttft_ms=seconds("results_ttft_s_quantiles_p99"),
        p50_tpot_ms=None, p99_tpot_ms=None, latency_definitions=TPOT_DEFINITION, run_date=date,
        dataset="llmperf sonnet prompts; token counts by llmperf's Llama-2 tokenizer",
        value_where="key results_mean_output_throughput_token_per_s")


def runs(record: Record):
    yield record.locator, lambda: measured(record)
