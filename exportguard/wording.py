"""The one place that writes a figure, a band, a unit, a shape or a load in words.

Every output (terminal, JSON, CSV, Markdown, XLSX, PPTX, PDF) calls these functions, so a figure
reads the same, digit for digit, wherever it appears: numbers round half away from zero (as a
spreadsheet's number format does), with 0 decimals from 100 up, 2 from 1 and 4 below.
"""
from __future__ import annotations

import math
import re
from decimal import ROUND_HALF_UP, Decimal, localcontext

from typing import TYPE_CHECKING, Sequence

from .reference import model_references
from .states import (NOT_RECORDED, OWN_BURST, OWN_CLOSED_LOOP, OWN_CONSTANT, OWN_GAMMA, OWN_OTHER, OWN_POISSON,
                     OWN_TRACE, TPS_ACCURACY_LOG, TPS_DERIVED, TPS_OWN, TPS_SUMMARY)

if TYPE_CHECKING:  # the classes only name types here: `exportguard check` reads this module's marks and note
    from .model import Result, Shape, Slack  # labels and does not build them

# An own measurement's note opens with this and gives its citation fields under these labels (who
# measured, when, with which tool and version, on which system, at which shape and load, from which
# source). citation.py writes them and the checker (check/evaluate.py) reads them, from here: so an own
# figure is told apart from an MLPerf one by its note, an own note never carries an MLPerf citation,
# and `exportguard check` does not load the citation machinery.
OWN_NOTE_MARK = "Own measurement (not an MLPerf® result)"
OWN_FIELDS = {"measured by": "Measured by:", "run date": "Run on:", "tool": "Tool:", "system": "System:",
              "shape": "Shape:", "load": "Load:", "source": "Source:"}

UNIT_SHORT = {"tokens/s": "tok/s", "samples/s": "samples/s", "queries/s": "queries/s"}


def unit_words(unit: str) -> str:
    """'tokens/s' -> 'tok/s': the unit as figures print it."""
    return UNIT_SHORT.get(unit, unit)


def decimals_for(magnitude: float) -> int:
    magnitude = abs(magnitude)
    return 0 if magnitude >= 100 else 2 if magnitude >= 1 else 4


_EXACT_HALF = 2.0 ** 51


def number(value: float, decimals: int | None = None) -> str:
    """'101,527' for 101527.4, '33,763' for 33762.5: half away from zero, thousands separated.

    Any float: a store written by another tool may hold 1e300 or inf, and printing it must not fail."""
    value = float(value)
    if not math.isfinite(value):
        return str(value)  # 'inf', '-inf', 'nan': shown as what it is, never a crash
    places = decimals_for(value) if decimals is None else decimals
    if value and abs(value) < 0.5 * 10.0 ** -places:
        return _small(value)  # it would round to zero: a positive figure never prints as 0.0000
    if places == 0 and 0 < value < _EXACT_HALF:
        # value + 0.5 is exact below 2**51, and repr(value) reaches a half exactly when value does
        # (a half is a float there), so this is the Decimal rounding below, at a tenth of its cost.
        return f"{int(value + 0.5):,}"
    exact = Decimal(repr(value))
    # Enough digits for the whole number at these places (the default context has 28: 1e300 needs 301).
    with localcontext(prec=max(28, exact.adjusted() + places + 2)):
        exact = exact.quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP)
    return f"{exact:,}"


def _small(value: float) -> str:
    """A value too small for the places asked, in two significant digits: '0.0000012', or '1.2e-320' below
    a billionth, where the zeros would be unreadable."""
    if abs(value) >= 1e-9:
        places = -math.floor(math.log10(abs(value))) + 1
        return f"{value:.{places}f}"
    return f"{value:.2g}"


def percent(fraction: float) -> str:
    """One decimal, or two significant digits below 0.1 % so that a small spread never reads 0.0 %."""
    value = fraction * 100
    return f"{value:.1f}%" if value >= 0.1 else f"{value:.2g}%"


def slack_words(slack: Slack) -> str:
    """'10.8%', or why the cohort's slack cannot be estimated (an own cohort: why it has no band)."""
    if slack.estimable:
        return percent(slack.fraction)
    return f"{slack.reason}: no band" if slack.basis == "repeats" else f"slack not estimable: {slack.reason}"


def band_words(slack: Slack) -> str:
    """'±5.4%', or why there is no band ('slack not estimable: 1 result', an own cohort's
    'single run: no band'); never '±0%'."""
    return f"±{percent(slack.band_fraction)}" if slack.estimable else slack_words(slack)


NO_SLACK = "(slack not estimable)"  # a figure of a cohort without an estimable shape slack: its table note says why


def figure_band_words(slack: Slack) -> str:
    """The band a figure's text carries: '±5.4%'; '(slack not estimable)' for a cohort whose shape slack
    cannot be estimated (the reason, a property of the cohort, is its table note's, stated once); an
    own cohort's '(single run: no band)'."""
    if slack.estimable:
        return band_words(slack)
    return f"({band_words(slack)})" if slack.basis == "repeats" else NO_SLACK


# The label an own measurement's figure carries after its marks, so that a copied figure says what it
# is and can never pass as an MLPerf one (detect.py reads it back).
OWN_LABEL = "own measurement,"


def _labels(derived: bool, verified: bool, own: bool) -> list[str]:
    return (["derived"] if derived else []) + ([OWN_LABEL] if own else []) + ([] if verified else ["unverified"])


def binding_words(unit_text: str, slack: Slack, marks: str = "", derived: bool = False, verified: bool = True,
                  own: bool = False) -> str:
    """Everything a figure's number carries after it: unit, band (or that it has none), marks, labels."""
    return " ".join([unit_text, figure_band_words(slack)] + ([marks] if marks else []) + _labels(derived, verified, own))


def figure_words(value: float, unit_text: str, slack: Slack, marks: str = "", *, decimals: int | None = None,
                 derived: bool = False, verified: bool = True, own: bool = False) -> str:
    """'101,527 tok/s ±5.4% [a]'; without marks, what the terminal prints for the same figure; an own
    run's: '779 tok/s (single run: no band) [a] own measurement, unverified'."""
    return with_marks(figure_parts(value, unit_text, slack, decimals=decimals, derived=derived, verified=verified,
                                   own=own), marks)


def figure_parts(value: float, unit_text: str, slack: Slack, *, decimals: int | None = None, derived: bool = False,
                 verified: bool = True, own: bool = False) -> tuple[str, str]:
    """figure_words around its marks: ('101,527 tok/s ±5.4%', ' unverified'), for a figure whose
    text is written with the marks of each place it stands in (with_marks)."""
    return (f"{number(value, decimals)} {unit_text} {figure_band_words(slack)}",
            "".join(" " + x for x in _labels(derived, verified, own)))


def with_marks(parts: tuple[str, str], marks: str) -> str:
    """A figure's words (figure_parts) with its marks between number and labels."""
    return f"{parts[0]} {marks}{parts[1]}" if marks else parts[0] + parts[1]


def edge_binding_words(unit_text: str, slack: Slack, low: bool, marks: str = "", derived: bool = False,
                       verified: bool = True, own: bool = False) -> str:
    """What a band edge's number carries after it: 'tok/s, low edge of ±5.4% [a]'."""
    tail = " ".join(([marks] if marks else []) + _labels(derived, verified, own))
    return f"{unit_text}, {'low' if low else 'high'} edge of {band_words(slack)}" + (f" {tail}" if tail else "")


def band_edge_words(edge: float, unit_text: str, slack: Slack, low: bool, marks: str = "", *,
                    decimals: int | None = None, derived: bool = False, verified: bool = True,
                    own: bool = False) -> str:
    """'96,045 tok/s, low edge of ±5.4% [a]': a band edge says what it is, so it never reads as a figure."""
    return f"{number(edge, decimals)} {edge_binding_words(unit_text, slack, low, marks, derived, verified, own)}"


# -- ranks and ties ----------------------------------------------------------------------------

# The one statement of what a tie is and how a rank reads. The caveat, the "How to read" texts of
# the shipped specs, the README and docs/ quote it word for word (a test holds them to it).
TIE_RULE = ("Two figures of one cohort are tied when the higher lies at most the cohort's shape slack above the "
            "lower; \"3 (tie 2-5)\" is tied with each of ranks 2 to 5, which need not be tied with each other.")
NOT_RANKED = "not ranked"


def rank_words(position: int, tie_from: int | None, tie_to: int | None, of: int | None = None) -> str:
    """'3', '3 (tie 2-5)', or 'not ranked' where no slack tells a lead from a tie; '7 (tie 3-12) of 47'
    where the rows shown are not the cohort's first ones (``of``: the whole cohort's size)."""
    if tie_from is None or tie_to is None:
        return NOT_RANKED
    rank = f"{position}" if tie_from == tie_to else f"{position} (tie {tie_from}-{tie_to})"
    return f"{rank} of {of:,}" if of else rank


def columns_left_out_words(asked: Sequence[str], shown: Sequence[str]) -> str:
    """What a slide says where the columns asked for do not fit it and it shows fewer: which ones, and
    where they are."""
    left = [h for h in asked if h not in shown]
    return (f"Columns not shown on this slide for room: {', '.join(left)}; a workbook (.xlsx) or PDF export of this "
            "report shows every column.")


_TOP_N = re.compile(r"\b([Tt])op (\d+)\b")


def unranked_title(title: str, slack) -> str:
    """A section title over rows that are not ranked: its "top N" read as "N highest" (a top N is a
    ranking, and these rows are only in order of value) and why they are not ranked, in its own words."""
    if not _TOP_N.search(title):
        return title
    return f"{_TOP_N.sub(lambda m: f'{m.group(2)} highest', title)} ({NOT_RANKED}: {slack_words(slack)})"


# Filters on what every result of a cohort shares: they choose cohorts, never rows within one.
COHORT_KEY_FILTERS = frozenset({"round", "division", "model", "accuracy_track", "track", "scenario", "unit", "mlperf",
                                "benchmark"})
_FILTER_NAMES = {"accelerator_count": "accelerator count", "system_id": "system", "verified": "status",
                 "availability": "availability"}


def selection_words(filters) -> str:
    """The filters that chose rows within a cohort, in a reader's words: 'submitter NVIDIA',
    'accelerator h200, accelerator count 8' ('' where the filters only chose cohorts)."""
    def one(v):
        return " or ".join(map(str, v)) if isinstance(v, (tuple, list, set, frozenset)) else str(v)
    return ", ".join(f"{_FILTER_NAMES.get(k, k.replace('_', ' '))} {one(v)}" for k, v in filters.items()
                     if k not in COHORT_KEY_FILTERS and v not in (None, (), [], ""))


def shown_rows_words(shown: int, total: int, chosen_by: str, cut: bool) -> str:
    """What a table note says about a table that shows part of its cohort (``chosen_by``: the filters
    that chose its rows, in words; ``cut``: a limit kept the highest of them): '' where it shows the
    whole cohort."""
    if shown >= total:
        return ""
    which = f"the {shown:,} highest" if cut and not chosen_by else f"{shown:,}"
    by = (f" (the {shown:,} highest of those of {chosen_by})" if cut else f" (those of {chosen_by})") if chosen_by else ""
    return (f"Shows {which} of the cohort's {total:,} results{by}; each rank is the row's rank in the whole "
            "cohort.")


# What a table whose slack is not estimable says, once, about its order (after the words for why).
NOT_RANKED_SENTENCE = "Not ranked: without a band no lead can be told from a tie, so the rows are only in order of value."


# -- scale ------------------------------------------------------------------------------------

def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def count_words(n: int, noun: str) -> str:
    """'1 section', '4 sections': a count with its noun in the number it takes."""
    return _plural(n, noun)


def series_words(items) -> str:
    """'1', '1 and 2', '1, 2 and 3'."""
    items = [str(i) for i in items]
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def scale_words(configuration) -> str:
    """'48 accelerators in 6 nodes', '8 accelerators in 1 node', 'CPUs only (no accelerator) in 1 node';
    an own run whose system nobody described: 'an unknown number of accelerators in unknown nodes'."""
    c = configuration
    what = ("an unknown number of accelerators" if c.accelerators_total is None else
            "CPUs only (no accelerator)" if c.accelerators_total == 0 else _plural(c.accelerators_total, "accelerator"))
    return f"{what} in {'unknown nodes' if c.nodes is None else _plural(c.nodes, 'node')}"


def headline_words(result: Result) -> str:
    """Who and at what scale, as a headline names them: 'MangoBoost on 48 accelerators in 6 nodes
    (MangoBoost Heterogeneous Cluster ...)'. The scale comes before the system's name, which can be long."""
    i = result.conditions.identity
    return f"{i.submitter} on {scale_words(result.conditions.configuration)} ({i.system_name})"


def _span(values, unit: str) -> str:
    lo, hi = min(values), max(values)
    return _plural(lo, unit) if lo == hi else f"{lo:,} to {hi:,} {unit}s"


def scale_range_words(results) -> str:
    """The scales a comparison spans: 'systems of 4 to 48 accelerators in 1 to 6 nodes', or
    'every system on 8 accelerators in 1 node'."""
    configs = [r.conditions.configuration for r in results]
    unknown = [c for c in configs if c.accelerators_total is None or c.nodes is None]
    if unknown:  # own runs on systems nobody described
        known = [r for r in results if r.conditions.configuration not in unknown]
        return (f"{scale_range_words(known)}, and " if known else "") + "systems of unknown size"
    accelerators = {c.accelerators_total for c in configs}
    nodes = {c.nodes for c in configs}
    if len(accelerators) == 1 and len(nodes) == 1:
        return f"every system on {scale_words(configs[0])}"
    if len(nodes) == 1:
        return f"systems of {_span(accelerators, 'accelerator')}, each in {_span(nodes, 'node')}"
    return f"systems of {_span(accelerators, 'accelerator')} in {_span(nodes, 'node')}"


def mixed_scale_words(results, per_accelerator_shown: bool = False) -> str:
    """What a comparison across scales says on its slide, page or sheet (rule EG020)."""
    per = "by the per accelerator column (derived)" if per_accelerator_shown else "per accelerator (derived)"
    return (f"Different scales: {scale_range_words(results)}; a total throughput reflects a system's size as well "
            f"as its hardware, so compare one scale, or {per}.")


def marks_words(letters) -> str:
    """'[a][d]': marks are letters in brackets, never digits that paste into the number."""
    return f"[{']['.join(letters)}]" if letters else ""


def note_line(mark: str, text: str) -> str:
    """'[a] Result 5.1-0061, verified.': a note as every format writes it after the figures it binds,
    its mark in brackets (marks_words) and its text."""
    return f"[{mark}] {text}"


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
    """'OpenOrca (24,576 samples), reference max output 1,024 tokens'; an own run's measured shape
    in short (own_shape_words has all of it)."""
    if shape.tokens_per_sample_basis == TPS_OWN:
        return f"{tps_words(shape)}; dataset {shape.dataset}"
    return (f"{shape.dataset} ({shape.dataset_samples:,} samples), reference max output "
            f"{shape.reference_max_output_tokens:,} tokens")


def tps_words(shape: Shape) -> str:
    """'300.9 tokens/sample (accuracy log)', 'mean 250.0 output tokens per request (measured)' for an
    own run, or 'tokens per sample not reported'."""
    if shape.tokens_per_sample is None:
        return "tokens per sample not reported"
    if shape.tokens_per_sample_basis == TPS_OWN:
        return f"mean {number(shape.tokens_per_sample, 1)} output tokens per request (measured)"
    return tps_cell(shape, " tokens/sample")


def tps_note_words(shape: Shape) -> str:
    """A row note's tokens per sample: '300.9 tokens/sample' where MLCommons published it as measured
    (its accuracy log or summary table, which the note's detail names), else with its basis as
    tps_words gives it, so that a derived or user-stated value is never read as a published one."""
    if shape.tokens_per_sample is not None and shape.tokens_per_sample_basis in (TPS_ACCURACY_LOG, TPS_SUMMARY):
        return f"{shape.tokens_per_sample:.1f} tokens/sample"
    return tps_words(shape)


def tps_cell(shape: Shape, unit: str = "") -> str:
    """A Tokens/sample column's cell: '300.9 (accuracy log)'; its header states the unit (tps_words
    gives it with ``unit``)."""
    if shape.tokens_per_sample is None or shape.tokens_per_sample_basis == TPS_OWN:
        return tps_words(shape)
    return f"{shape.tokens_per_sample:.1f}{unit} ({tps_basis_words(shape.tokens_per_sample_basis)}{_above_max(shape)})"


def _above_max(shape: Shape) -> str:
    """', above the 128-token reference maximum' where a derived value exceeds what a sample may
    generate: it averages another run (the performance run's rates), so it can, and a reader beside the
    caption's maximum must be told that it does."""
    most = shape.reference_max_output_tokens
    if shape.tokens_per_sample_basis != TPS_DERIVED or not most or shape.tokens_per_sample <= most:
        return ""
    return f", above the {most:,}-token reference maximum"


def tps_basis_words(basis: str) -> str:
    """A tokens-per-sample basis as shown: the derived one without its formula's units, since a wrapped
    cell line reading 'tokens/s /' would stand as a throughput heading over the numbers below it."""
    return "derived from the token and sample rates" if basis == TPS_DERIVED else basis


def shape_title(result: Result) -> str:
    """A chart or KPI title's shape: 'llama2-70b-99 Offline, OpenOrca, max 1,024 output tokens'; an
    own run's: 'mock-llm closed loop, ~550 in / 250 out tokens per request'."""
    b, s = result.conditions.benchmark, result.conditions.shape
    if result.own:
        return f"{b.benchmark} {b.scenario}, {own_shape_class_words(result.conditions.run.mean_input_tokens, s.tokens_per_sample)}"
    return f"{b.benchmark} {b.scenario}, {s.dataset}, max {s.reference_max_output_tokens:,} output tokens"


def own_shape_class_words(mean_input: float, mean_output: float) -> str:
    """An own shape class, named after the run that founded it: '~545 in / 250 out tokens per request'."""
    return f"~{_sig3(mean_input)} in / {_sig3(mean_output)} out tokens per request"


def _sig3(value: float) -> str:
    """Three significant digits, written out in full: 545, 4,160, 12.3."""
    from math import floor, log10

    if not value:
        return "0"
    exponent = floor(log10(abs(value)))
    rounded = Decimal(repr(float(value))).quantize(Decimal(1).scaleb(exponent - 2), ROUND_HALF_UP)
    return number(float(rounded), max(0, 2 - exponent))


# -- the shape panel beside an MLPerf cohort and own runs ---------------------------------------

# What every format says between or under the two panels of a beside section.
BESIDE_RULE = ("Beside, never one comparison: each panel has its own band rule and notes; compare figures only "
               "within a panel.")
BOTH_SHAPES = "Both shapes, in numbers"


def both_shapes_title(section_title: str) -> str:
    """The shape panel's heading where it stands under its section's own: 'Ours beside MLPerf: both
    shapes, in numbers'."""
    return f"{section_title}: {BOTH_SHAPES[0].lower()}{BOTH_SHAPES[1:]}"


def shape_line(label: str, shape: str, load: str) -> str:
    """One row of the shape panel in a line: 'vLLM, 8x H100: 512 output tokens ...; load: Poisson at 4 QPS'."""
    return f"{label}: {shape}; load: {load}"

SHAPES_DO_NOT_TRANSFER = (
    "Throughput does not carry over from one shape to another: a tokens/s figure holds only for the generation "
    "length, input length and load it was measured at, because longer outputs keep each request's cache resident "
    "longer and shift the balance between prefill and decode, so read each panel on its own axis and compare "
    "figures only within a panel.")


def mlperf_cohort_shape_words(sample: Result, slack: Slack) -> str:
    """An MLPerf cohort's shape in numbers: '272.6 to 302.0 generated tokens per sample over 14 verified
    results (reference max 1,024 output tokens); dataset OpenOrca (24,576 samples)'."""
    s = sample.conditions.shape
    over = "unverified" if slack.unverified_only else "verified"
    if slack.tps_min is not None and slack.tps_max is not None and slack.tps_min != slack.tps_max:
        spread = (f"{number(slack.tps_min, 1)} to {number(slack.tps_max, 1)} generated tokens per sample over "
                  f"{slack.with_tps} {over} results")
    elif slack.tps_min is not None:
        spread = f"{number(slack.tps_min, 1)} generated tokens per sample ({slack.reason or 'one value'})"
    else:
        spread = "generated tokens per sample not reported"
    return (f"{spread} (reference max {s.reference_max_output_tokens:,} output tokens); dataset {s.dataset} "
            f"({s.dataset_samples:,} samples)")


def own_shape_row_words(result: Result) -> str:
    """An own run's shape in numbers: 'mean 250.0 generated and 544.7 input tokens per request
    (standard deviation 0.0 and 52.4)'."""
    run, s = result.conditions.run, result.conditions.shape
    text = (f"mean {number(s.tokens_per_sample, 1)} generated and {number(run.mean_input_tokens, 1)} input tokens "
            "per request")
    if run.output_tokens_std is not None and run.input_tokens_std is not None:
        text += f" (standard deviation {number(run.output_tokens_std, 1)} and {number(run.input_tokens_std, 1)})"
    return text


def own_tool_words(result: Result) -> str:
    """'AIPerf 0.13.0', 'vllm bench serve (version not recorded by the tool)'."""
    run = result.conditions.run
    version = run.tool_version
    return f"{run.tool} {version}" if version[:1].isdigit() else f"{run.tool} (version {version})"


def own_run_label(result: Result) -> str:
    """'lab-h100-01, vllm bench serve, run on 2026-12-01 09:43:31, local time (no time zone)'."""
    i, run = result.conditions.identity, result.conditions.run
    return f"{i.system_name}, {run.tool}, run on {run.run_date}"


def own_shape_words(result: Result, short: bool = False) -> str:
    """An own run's measured shape: 'mean 544.7 input and 250.0 output tokens per request (standard
    deviation 52.4 and 0.0), over 64 requests; dataset synthetic (random token ids)'. ``short`` leaves
    out what was not recorded (no spread, no dataset), for a note whose detail says it."""
    run, s = result.conditions.run, result.conditions.shape
    text = (f"mean {number(run.mean_input_tokens, 1)} input and {number(s.tokens_per_sample, 1)} output tokens "
            "per request")
    if run.input_tokens_std is not None or run.output_tokens_std is not None:
        sd = lambda v: "not recorded" if v is None else number(v, 1)  # noqa: E731
        text += f" (standard deviation {sd(run.input_tokens_std)} and {sd(run.output_tokens_std)})"
    elif not short:
        text += " (spread not recorded: no per-request data)"
    text += f", over {run.requests:,} requests" if run.requests else ", request count not recorded"
    return text if short and s.dataset == NOT_RECORDED else f"{text}; dataset {s.dataset}"


# -- load -------------------------------------------------------------------------------------

def own_load_words(kind: str, concurrency: int | None, rate: float | None, burstiness: float | None) -> str:
    """An own run's load as its tool ran it: 'closed loop, 8 requests in flight', 'Poisson arrivals,
    target rate 4 per second, at most 32 requests in flight', 'Gamma arrivals, target rate 4 per
    second, burstiness 0.5 of Poisson's 1'. A rate of requests is written "N per second", never "N req/s": it is a load
    setting, and must never read as a throughput figure (detect.py), wherever a line breaks."""
    # Every number here is followed by its noun ("requests in flight", "per second", "of Poisson's 1"):
    # a bare "at most 32 in flight" or "burstiness 0.5" in a title that ends "(tokens/s)" reads as a
    # throughput to the detector (detect.py), and so to a reader.
    cap = f", at most {concurrency:,} request{'s' if concurrency != 1 else ''} in flight" if concurrency else ""
    target = f"target rate {rate:g} per second" if rate else "target rate not recorded"
    if kind == OWN_CLOSED_LOOP:
        return f"closed loop, {concurrency:,} request{'s' if concurrency != 1 else ''} in flight"
    if kind == OWN_POISSON:
        return f"Poisson arrivals, {target}{cap}"
    if kind == OWN_GAMMA:
        return f"Gamma arrivals, {target}, burstiness {burstiness:g} of Poisson's 1{cap}"
    if kind == OWN_CONSTANT:
        return f"constant spacing, {target}{cap}"
    if kind == OWN_BURST:
        return "burst: every request sent at once, no cap"
    if kind == OWN_TRACE:
        return f"trace replay{cap}"
    assert kind == OWN_OTHER, kind
    return f"other load{cap}"


def own_load_of(result: Result) -> str:
    """The load an own cohort shares (own_load_words of the run's kind and parameters)."""
    run = result.conditions.run
    return own_load_words(result.conditions.benchmark.scenario, run.concurrency, result.conditions.load.target_qps,
                          run.burstiness)


def own_run_load_words(result: Result, detail: bool = True) -> str:
    """An own run's whole load: kind and parameters, the tool's detail (its own words for the load
    settings, left out with ``detail=False``), and how long it ran."""
    load, run = result.conditions.load, result.conditions.run
    text = own_load_words(result.conditions.benchmark.scenario, run.concurrency, load.target_qps, run.burstiness)
    if run.load_detail and detail:
        text += f" ({run.load_detail})"
    if run.duration_s:
        text += f"; ran {number(run.duration_s, 1)} s ({run.duration_basis})"
    else:
        text += f"; duration {run.duration_basis}"
    return text


def own_latency_words(result: Result) -> str:
    """Measured TTFT and TPOT percentiles, with the tool's own definition of each."""
    load, run = result.conditions.load, result.conditions.run
    measured = []
    for name, p50, p99, places in (("TTFT", run.p50_ttft_ms, load.p99_ttft_ms, 0),
                                   ("TPOT", run.p50_tpot_ms, load.p99_tpot_ms, 1)):
        got = [f"p{p} {number(v, places)} ms" for p, v in (("50", p50), ("99", p99)) if v is not None]
        measured.append(f"{name} {' and '.join(got)}" if got else f"{name} not reported")
    return f"measured {'; '.join(measured)} ({run.latency_definitions})"


def load_words(result: Result) -> str:
    """The load a whole cohort shares: arrival process, latency bounds and minimum run length."""
    if result.own:
        return own_run_load_words(result)
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
    if result.own:
        return own_latency_words(result)
    if result.conditions.benchmark.scenario == "Offline":
        return ""
    qps = f"target {load.target_qps:g} QPS" if load.target_qps else "target QPS not published by the source"
    measured = row_latency_words(result)
    return f"{qps}, {measured}" if measured else qps


def row_latency_words(result: Result) -> str:
    """An MLPerf result's measured p99 latencies, where its source publishes them ('' otherwise):
    what its load words add to a target rate that the row's own column shows."""
    load = result.conditions.load
    if result.own or result.conditions.benchmark.scenario == "Offline" or not (load.p99_ttft_ms and load.p99_tpot_ms):
        return ""
    return f"measured p99 TTFT {number(load.p99_ttft_ms, 0)} ms and TPOT {number(load.p99_tpot_ms, 1)} ms"


def load_text(result: Result) -> str:
    """The whole load of one result: the cohort's load, then its own target rate and p99s."""
    row = row_load_words(result)
    return load_words(result) + (f"; {row}" if row else "")
