"""The one place that writes a figure, a band, a unit, a shape or a load in words.

Every output (terminal, JSON, CSV, Markdown, XLSX, PPTX, PDF) calls these functions, so a figure
reads the same, digit for digit, wherever it appears: numbers round half away from zero (as a
spreadsheet's number format does), with 0 decimals from 100 up, 2 from 1 and 4 below.
"""
from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal, localcontext

from .model import Result, Shape, Slack
from .reference import model_references

UNIT_SHORT = {"tokens/s": "tok/s", "samples/s": "samples/s", "queries/s": "queries/s"}


def unit_words(unit: str) -> str:
    """'tokens/s' -> 'tok/s': the unit as figures print it."""
    return UNIT_SHORT.get(unit, unit)


def decimals_for(magnitude: float) -> int:
    magnitude = abs(magnitude)
    return 0 if magnitude >= 100 else 2 if magnitude >= 1 else 4


def number(value: float, decimals: int | None = None) -> str:
    """'101,527' for 101527.4, '33,763' for 33762.5: half away from zero, thousands separated.

    Any float: a store written by another tool may hold 1e300 or inf, and printing it must not fail."""
    value = float(value)
    if not math.isfinite(value):
        return str(value)  # 'inf', '-inf', 'nan': shown as what it is, never a crash
    places = decimals_for(value) if decimals is None else decimals
    exact = Decimal(repr(value))
    # Enough digits for the whole number at these places (the default context has 28: 1e300 needs 301).
    with localcontext(prec=max(28, exact.adjusted() + places + 2)):
        exact = exact.quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP)
    return f"{exact:,}"


def percent(fraction: float) -> str:
    """One decimal, or two significant digits below 0.1 % so that a small spread never reads 0.0 %."""
    value = fraction * 100
    return f"{value:.1f}%" if value >= 0.1 else f"{value:.2g}%"


def slack_words(slack: Slack) -> str:
    """'10.8%', or why the cohort's slack cannot be estimated."""
    return percent(slack.fraction) if slack.estimable else f"slack not estimable: {slack.reason}"


def band_words(slack: Slack) -> str:
    """'±5.4%', or why there is no band; never '±0%'."""
    return f"±{percent(slack.band_fraction)}" if slack.estimable else f"slack not estimable: {slack.reason}"


def binding_words(unit_text: str, slack: Slack, marks: str = "", derived: bool = False, verified: bool = True) -> str:
    """Everything a figure's number carries after it: unit, band (or why none), marks, labels."""
    band = band_words(slack) if slack.estimable else f"({band_words(slack)})"
    parts = [unit_text, band]
    if marks:
        parts.append(marks)
    if derived:
        parts.append("derived")
    if not verified:
        parts.append("unverified")
    return " ".join(parts)


def figure_words(value: float, unit_text: str, slack: Slack, marks: str = "", *, decimals: int | None = None,
                 derived: bool = False, verified: bool = True) -> str:
    """'101,527 tok/s ±5.4% [a]'; without marks, what the terminal prints for the same figure."""
    return f"{number(value, decimals)} {binding_words(unit_text, slack, marks, derived, verified)}"


def edge_binding_words(unit_text: str, slack: Slack, low: bool, marks: str = "", derived: bool = False,
                       verified: bool = True) -> str:
    """What a band edge's number carries after it: 'tok/s, low edge of ±5.4% [a]'."""
    tail = " ".join(x for x in (marks, "derived" if derived else "", "" if verified else "unverified") if x)
    return f"{unit_text}, {'low' if low else 'high'} edge of {band_words(slack)}" + (f" {tail}" if tail else "")


def band_edge_words(edge: float, unit_text: str, slack: Slack, low: bool, marks: str = "", *,
                    decimals: int | None = None, derived: bool = False, verified: bool = True) -> str:
    """'96,045 tok/s, low edge of ±5.4% [a]': a band edge says what it is, so it never reads as a figure."""
    return f"{number(edge, decimals)} {edge_binding_words(unit_text, slack, low, marks, derived, verified)}"


def marks_words(letters) -> str:
    """'[a][d]': marks are letters in brackets, never digits that paste into the number."""
    return "".join(f"[{m}]" for m in letters)


def mark_name(i: int) -> str:
    """a, b, ..., z, aa, ab, ...: the i-th mark (from 0)."""
    name = ""
    i += 1
    while i:
        i, rem = divmod(i - 1, 26)
        name = chr(ord("a") + rem) + name
    return name


# -- shape ------------------------------------------------------------------------------------

def shape_words(shape: Shape) -> str:
    """'OpenOrca (24,576 samples), reference max output 1,024 tokens'."""
    return (f"{shape.dataset} ({shape.dataset_samples:,} samples), reference max output "
            f"{shape.reference_max_output_tokens:,} tokens")


def tps_words(shape: Shape) -> str:
    """'300.9 tokens/sample (accuracy log)', or 'tokens per sample not reported'."""
    if shape.tokens_per_sample is None:
        return "tokens per sample not reported"
    return f"{shape.tokens_per_sample:.1f} tokens/sample ({shape.tokens_per_sample_basis})"


def shape_title(result: Result) -> str:
    """A chart or KPI title's shape: 'llama2-70b-99 Offline, OpenOrca, max 1,024 output tokens'."""
    b, s = result.conditions.benchmark, result.conditions.shape
    return f"{b.benchmark} {b.scenario}, {s.dataset}, max {s.reference_max_output_tokens:,} output tokens"


# -- load -------------------------------------------------------------------------------------

def load_words(result: Result) -> str:
    """The load a whole cohort shares: arrival process, latency bounds and minimum run length."""
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


def row_load_words(result: Result) -> str:
    """The load of one result: its target rate and measured p99 latencies ('' for Offline)."""
    load = result.conditions.load
    if result.conditions.benchmark.scenario == "Offline":
        return ""
    qps = f"target {load.target_qps:g} QPS" if load.target_qps else "target QPS not published by the source"
    if load.p99_ttft_ms and load.p99_tpot_ms:
        qps += f", measured p99 TTFT {number(load.p99_ttft_ms, 0)} ms and TPOT {number(load.p99_tpot_ms, 1)} ms"
    return qps


def load_text(result: Result) -> str:
    """The whole load of one result: the cohort's load, then its own target rate and p99s."""
    row = row_load_words(result)
    return load_words(result) + (f"; {row}" if row else "")
