"""Plain-text and JSON views of stored figures for the terminal. Every view of a value carries its
unit and its band (or the words for why there is none): there is no view of a bare number."""
from __future__ import annotations

import dataclasses

from .citation import result_id_words, tps_words
from .model import Cohort, Result, Slack

UNIT_SHORT = {"tokens/s": "tok/s", "samples/s": "samples/s", "queries/s": "queries/s"}


def value_text(value: float, unit: str) -> str:
    digits = 0 if value >= 100 else 2
    return f"{value:,.{digits}f} {UNIT_SHORT.get(unit, unit)}"


def figure_text(result: Result, slack: Slack) -> str:
    """'101,527 tok/s ±5.4%' or '27,804 tok/s (slack not estimable: 1 result)'; unverified said inline."""
    band = slack.band_text()
    text = f"{value_text(result.value, result.unit)} {band}" if slack.estimable else \
        f"{value_text(result.value, result.unit)} ({band})"
    if result.conditions.identity.verified != "verified":
        text += " unverified"
    return text


def load_text(result: Result) -> str:
    load, scenario = result.conditions.load, result.conditions.benchmark.scenario
    if scenario == "Offline":
        text = "Offline: all queries at once (closed-loop drain), no latency bound"
    else:
        qps = f"target {load.target_qps:g} QPS" if load.target_qps else "target QPS not published by the source"
        text = (f"{scenario}: Poisson arrivals, {qps}, p99 TTFT <= {load.ttft_bound_ms:g} ms, "
                f"p99 TPOT <= {load.tpot_bound_ms:g} ms")
    return f"{text}; min duration {load.min_duration_ms / 1000:g} s ({load.basis})"


def cohort_header(cohort: Cohort) -> str:
    s = cohort.slack
    spread = (f"tokens/sample {s.tps_min:.1f} to {s.tps_max:.1f} over {s.with_tps} of {s.count}, "
              f"slack {s.slack_text()}, band {s.band_text()}" if s.estimable else s.band_text())
    return f"{cohort.key.label()}: {s.count} result{'s' if s.count != 1 else ''}; {spread}"


def cohort_row(cohort: Cohort) -> dict:
    s = cohort.slack
    return {"cohort": cohort.key.label(), **dataclasses.asdict(cohort.key), "count": s.count,
            "tokens_per_sample_min": s.tps_min, "tokens_per_sample_max": s.tps_max,
            "with_tokens_per_sample": s.with_tps, "slack": s.fraction, "band": s.band_fraction,
            "slack_text": s.slack_text(), "band_text": s.band_text(),
            "not_estimable_reason": s.reason or None}


def figure_record(result: Result, cohort: Cohort) -> dict:
    """A figure for machine consumers: the value never appears without unit, band and conditions."""
    return {"figure": figure_text(result, cohort.slack), "value": result.value, "unit": result.unit,
            "band": cohort.slack.band_fraction, "band_text": cohort.slack.band_text(),
            "cohort": cohort.key.label(), "result_id": result_id_words(result),
            "corrections": list(result.corrections),
            "conditions": dataclasses.asdict(result.conditions)}


def listing_lines(cohorts: list[Cohort]) -> list[str]:
    lines = []
    for cohort in cohorts:
        lines.append(cohort_header(cohort))
        for r in cohort.results:
            i, c = r.conditions.identity, r.conditions.configuration
            lines.append(f"  {figure_text(r, cohort.slack):<34} {i.submitter} | {i.system_name} | "
                         f"{c.accelerators_total} x {c.accelerator} | {i.availability} | {result_id_words(r)} | "
                         f"{tps_words(r)}")
            lines.append(f"  {'':<34} {load_text(r)}")
            if r.corrections:
                lines.append(f"  {'':<34} corrected: {'; '.join(r.corrections)}")
        lines.append("")
    return lines
