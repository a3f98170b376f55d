"""Footnote text: the MLCommons citation and the shape and load of a figure, in words.

A table states once what all its rows share (the table note) and each mark carries the per-row
part; together they hold every field MLCommons' messaging rules require.
"""
from __future__ import annotations

from .caveat import UNVERIFIED_SENTENCE
from .model import Result, Slack
from .reference import model_references

SUITE_NAMES = {"datacenter": "MLPerf® Inference: Datacenter", "edge": "MLPerf® Inference: Edge"}


def suite_name(result: Result) -> str:
    return SUITE_NAMES.get(result.conditions.identity.suite, "MLPerf® Inference")


def shape_words(result: Result) -> str:
    s = result.conditions.shape
    return (f"{s.dataset} ({s.dataset_samples:,} samples), reference max output "
            f"{s.reference_max_output_tokens:,} tokens")


def load_words(result: Result) -> str:
    """Scenario-wide load: arrival process and bounds (per-row target QPS goes in the row note)."""
    load, scenario = result.conditions.load, result.conditions.benchmark.scenario
    if scenario == "Offline":
        text = "Offline: every query issued at once and drained (closed-loop), no latency bound"
    else:
        text = (f"{scenario}: Poisson arrivals at a target rate, p99 time to first token <= {load.ttft_bound_ms:g} ms, "
                f"p99 time per output token <= {load.tpot_bound_ms:g} ms")
    if result.conditions.identity.mlperf:
        minimum = model_references()[result.conditions.benchmark.model].min_duration_ms
        return f"{text}; runs of at least {minimum / 1000:g} s"
    return f"{text}; run of {load.min_duration_ms / 1000:g} s"


def tps_words(result: Result) -> str:
    s = result.conditions.shape
    if s.tokens_per_sample is None:
        return "tokens per sample not reported"
    return f"{s.tokens_per_sample:.1f} tokens/sample ({s.tokens_per_sample_basis})"


def identity_words(result: Result) -> str:
    i = result.conditions.identity
    if not i.mlperf:
        return f"not an MLPerf result ({i.submitter} own measurement)"
    return f"{suite_name(result)} {i.round}, {i.division.capitalize()} division"


def result_id_words(result: Result) -> str:
    i = result.conditions.identity
    if i.result_id_state == "official":
        return f"result {i.result_id}"
    if i.result_id_state == "pending":
        return "result ID pending (not matched to a published MLCommons summary)"
    return "no MLPerf result ID"


def verified_words(result: Result) -> str:
    i = result.conditions.identity
    return "verified" if i.verified == "verified" else f"unverified. {UNVERIFIED_SENTENCE}"


def table_note(sample: Result, slack: Slack) -> str:
    b = sample.conditions.benchmark
    band = (f"Band {slack.band_text()}: half the cohort's shape slack of {slack.slack_text()} "
            f"(tokens per sample {slack.tps_min:.1f} to {slack.tps_max:.1f} over {slack.with_tps} results)"
            if slack.estimable else f"No band: {slack.band_text()}")
    return (f"{identity_words(sample)}; benchmark {b.benchmark}, {b.scenario} scenario. "
            f"Shape: {shape_words(sample)}. Load: {load_words(sample)}. {band}.")


def row_note(result: Result) -> str:
    i, c, b = result.conditions.identity, result.conditions.configuration, result.conditions.benchmark
    load, p = result.conditions.load, result.conditions.provenance
    parts = [
        f"{i.submitter}, {i.system_name}",
        f"{identity_words(result)}, {b.benchmark} {b.scenario}, {result_id_words(result)}, {verified_words(result)}",
        f"{c.accelerators_total} x {c.accelerator} on {c.nodes} node{'s' if c.nodes != 1 else ''}; {c.framework}",
        tps_words(result),
    ]
    if b.scenario != "Offline":
        qps = f"target {load.target_qps:g} QPS" if load.target_qps else "target QPS not published by the source"
        measured = (f", measured p99 TTFT {load.p99_ttft_ms:,.0f} ms and TPOT {load.p99_tpot_ms:,.1f} ms"
                    if load.p99_ttft_ms and load.p99_tpot_ms else "")
        parts.append(qps + measured)
    if result.corrections:
        parts.append("corrected: " + "; ".join(result.corrections))
    parts.append(f"source {p.source_url}, retrieved {p.retrieved_on}")
    return ". ".join(parts) + "."
