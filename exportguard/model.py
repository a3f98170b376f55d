"""Immutable Result / Conditions / Cohort / Band objects: the vocabulary of DESIGN.md section 2.

A throughput value never travels alone in this package: it lives inside a Result, next to every
condition that gives it meaning. Absent conditions are explicit states (``RESULT_ID_PENDING``,
``TPS_NOT_REPORTED``), never blanks, so that a citation can say why something is missing.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Iterable

# The states (strings) live in states.py; re-exported here, where most readers look for them.
from .states import (  # noqa: F401
    SCENARIOS, UNITS, DIVISIONS, AVAILABILITIES, SUITES, VERIFIED, OWN_SOURCE_KINDS, SOURCE_KINDS, ORIGINS,
    RESULT_ID_OFFICIAL, RESULT_ID_PENDING, RESULT_ID_NONE, RESULT_ID_STATES, TPS_ACCURACY_LOG, TPS_SUMMARY,
    TPS_DERIVED, TPS_CSV, TPS_NOT_REPORTED, TPS_OWN, TPS_BASES, TPS_MEASURED, LOAD_RUN_LOG, LOAD_REFERENCE,
    LOAD_CSV, LOAD_TOOL, LOAD_BASES, ARRIVAL_CLOSED_LOOP, ARRIVAL_POISSON, ARRIVAL_PROCESSES, OWN_CLOSED_LOOP,
    OWN_POISSON, OWN_GAMMA, OWN_CONSTANT, OWN_BURST, OWN_TRACE, OWN_OTHER, OWN_LOAD_KINDS, UNKNOWN, NOT_RECORDED)


def arrival_for(scenario: str) -> str:
    return ARRIVAL_CLOSED_LOOP if scenario == "Offline" else ARRIVAL_POISSON


@dataclass(frozen=True, slots=True)  # one or more per result: no instance dict
class Identity:
    round: str  # "v5.1"; "n/a" for non-MLPerf
    division: str
    suite: str
    availability: str
    submitter: str
    submitter_key: str  # the folder spelling, part of the natural key ("Dell_Broadcom")
    system_name: str
    system_id: str  # the platform folder ("B200-SXM-180GBx8_TRT")
    result_id: str  # "5.1-0042" when official, "" otherwise
    result_id_state: str
    verified: str
    mlperf: bool


@dataclass(frozen=True, slots=True)  # one or more per result: no instance dict
class Benchmark:
    benchmark: str  # "llama2-70b-99"
    model: str  # "llama2-70b"
    accuracy_track: str  # "99" / "99.9"
    scenario: str


@dataclass(frozen=True, slots=True)  # one or more per result: no instance dict
class Shape:
    tokens_per_sample: float | None  # an own run: its measured mean output tokens per request
    tokens_per_sample_basis: str
    reference_max_output_tokens: int | None  # None for an own run: no reference applies
    dataset: str
    dataset_samples: int | None  # None for an own run (its requests are counted in OwnRun)


@dataclass(frozen=True, slots=True)  # one or more per result: no instance dict
class Load:
    arrival_process: str
    target_qps: float | None
    ttft_bound_ms: float | None  # None only in Offline, where no latency bound applies
    tpot_bound_ms: float | None
    p99_ttft_ms: float | None
    p99_tpot_ms: float | None
    min_duration_ms: int | None  # None for an own run: its measured duration is in OwnRun
    basis: str


@dataclass(frozen=True, slots=True)  # one or more per result: no instance dict
class Configuration:
    accelerator: str  # "none (CPU only)" when there is none
    accelerators_per_node: int | None  # None: unknown (an own run whose system was not described)
    nodes: int | None
    accelerators_total: int | None
    framework: str
    host_processor: str


@dataclass(frozen=True, slots=True)  # one or more per result: no instance dict
class Provenance:
    source_kind: str
    source_path: str
    source_sha256: str
    source_locator: str
    source_url: str
    retrieved_on: str  # ISO date
    ingested_at: str  # ISO timestamp


@dataclass(frozen=True, slots=True)  # one or more per result: no instance dict
class OwnRun:
    """What an own load test adds to the conditions: the tool, the load as it really ran, the
    measured shape's spread and duration, and the system settings the user stated. Empty for an
    MLPerf result (``NO_OWN_RUN``)."""

    tool: str = ""  # "vllm bench serve", "AIPerf", ...
    tool_version: str = ""  # as the file records it, or NOT_RECORDED
    run_id: str = ""  # one stored row per run: the tool's id, or a digest of the run's record
    run_date: str = ""  # as the file records it ("2026-12-01 09:43:31, local time"), or NOT_RECORDED
    concurrency: int | None = None  # closed loop: requests in flight; a rate: the cap, if any
    burstiness: float | None = None  # Gamma's k (1 = Poisson), where the tool records it
    load_detail: str = ""  # what else the load was: a sweep point, warmup, a ramp, the tool's own words
    mean_input_tokens: float | None = None
    input_tokens_std: float | None = None  # population standard deviation over requests, where the file has it
    output_tokens_std: float | None = None
    requests: int | None = None  # completed requests the figures are measured over
    failed_requests: int | None = None
    duration_s: float | None = None
    duration_basis: str = ""  # "measured", "derived: ...", or NOT_RECORDED
    p50_ttft_ms: float | None = None
    p50_tpot_ms: float | None = None
    latency_definitions: str = ""  # what the tool's TTFT and TPOT measure
    total_tokens_per_s: float | None = None  # (input + output) tokens/s: its own figure, never the value
    server_settings: str = ""
    # Its shape class ("~545 in / 250 out tokens per request") and own cohort ("<tool>; <load>; <shape
    # class>"), set at ingest (ingest/own_cohort.py): a run joins the shape class of the stored runs
    # of its model, tool and load whose founding run it is within OWN_SHAPE_TOLERANCE of.
    shape_class: str = ""
    cohort: str = ""


NO_OWN_RUN = OwnRun()


def fields_of(part) -> dict:
    """A condition part's fields by name, in their order (the parts have slots, so no ``vars``)."""
    return {name: getattr(part, name) for name in part.__dataclass_fields__}


@dataclass(frozen=True, slots=True)  # one per result: no instance dict
class Conditions:
    identity: Identity
    benchmark: Benchmark
    shape: Shape
    load: Load
    configuration: Configuration
    provenance: Provenance
    run: OwnRun = NO_OWN_RUN


@dataclass(frozen=True, slots=True)  # one per result: no instance dict
class Result:
    conditions: Conditions
    value: float
    unit: str
    samples_per_s: float | None = None
    corrections: tuple[str, ...] = ()
    raw_system: str = ""
    # natural_key and cohort_key, computed once (frozen: nothing they read can change)
    _keys: tuple | None = field(default=None, init=False, repr=False, compare=False, hash=False)

    @property
    def origin(self) -> str:
        """'mlcommons' for MLCommons publications (trees and summaries, which describe one run and
        merge), 'csv' for MLPerf rows a user supplied (which never merge into a publication), 'own'
        for the user's own load tests (tool files and mlperf=no CSV rows: one stored row per run)."""
        if not self.conditions.identity.mlperf:
            return "own"
        return "csv" if self.conditions.provenance.source_kind == "csv" else "mlcommons"

    @property
    def own(self) -> bool:
        return not self.conditions.identity.mlperf

    @property
    def natural_key(self) -> tuple[str, ...]:
        return (self._keys or self._key_pair())[0]

    @property
    def cohort_key(self) -> "CohortKey":
        return (self._keys or self._key_pair())[1]

    def _key_pair(self) -> tuple:
        i, b = self.conditions.identity, self.conditions.benchmark
        natural = (self.origin, i.round, i.division, i.submitter_key, i.system_id, b.benchmark, b.scenario,
                   self.conditions.run.run_id)
        cohort = _cohort_key(i.mlperf, i.round, i.division, b.model, b.accuracy_track, b.scenario, self.unit,
                             b.benchmark, self.conditions.run.cohort)
        object.__setattr__(self, "_keys", (natural, cohort))
        return natural, cohort

    def with_conditions(self, **parts) -> "Result":
        return replace(self, conditions=replace(self.conditions, **parts))


@dataclass(frozen=True, order=True)
class CohortKey:
    """Figures that may be compared: same round, division, model, track, scenario and unit."""

    mlperf: bool
    round: str
    division: str
    model: str
    accuracy_track: str
    scenario: str
    unit: str

    benchmark: str = field(default="", compare=False)  # display name: model and track as published
    # An own cohort also shares its tool, its load's parameters and its shape class (OwnRun.cohort):
    # "vllm bench serve; Poisson arrivals, target rate 4 per second; ~550 in / 250 out tokens per request".
    own: str = ""

    def label(self) -> str:
        if self.mlperf:
            return f"MLPerf® {self.round} {self.division} {self.benchmark} {self.scenario} ({self.unit})"
        return f"Own runs: {self.benchmark}; {self.own} ({self.unit})"


_COHORT_KEYS: dict[tuple, CohortKey] = {}


def _cohort_key(*parts) -> CohortKey:
    """One CohortKey object per distinct key (a cohort's results share it instead of one each)."""
    found = _COHORT_KEYS.get(parts)
    if found is None:
        if len(_COHORT_KEYS) > 4096:  # a bound, for long-lived processes reading many stores
            _COHORT_KEYS.clear()
        found = _COHORT_KEYS[parts] = CohortKey(*parts)
    return found


@dataclass(frozen=True)
class Slack:
    """A cohort's generation-length spread, or the reason it cannot be estimated. wording.py writes
    it in words (band_words, slack_words)."""

    fraction: float | None  # (max - min) / min of measured tokens per sample
    tps_min: float | None  # of the measured ones
    tps_max: float | None
    with_tps: int  # results with a measured tokens per sample
    count: int
    reason: str = ""  # set exactly when fraction is None
    unverified_only: bool = False  # the cohort has no verified result: its band comes from unverified rows
    # "shape": an MLPerf cohort's spread of tokens per sample; "repeats": an own cohort's run-to-run
    # spread of its figures (own_slack), where tps_min/tps_max hold the figures of those runs.
    basis: str = "shape"

    @property
    def estimable(self) -> bool:
        return self.fraction is not None

    @property
    def band_fraction(self) -> float | None:
        return None if self.fraction is None else self.fraction / 2


def measured_tokens_per_sample(shape: Shape) -> float | None:
    """A shape's tokens per sample if it was measured (and is a usable number), else None."""
    t = shape.tokens_per_sample
    if shape.tokens_per_sample_basis in TPS_MEASURED and t is not None and math.isfinite(t) and t > 0:
        return t
    return None


def estimate_slack(results: Iterable[Result]) -> Slack:
    """The spread of measured tokens per sample over exactly these results. Callers pass a whole
    cohort as stored (Store.cohort_slack), never the rows a filter happens to select."""
    results = list(results)
    known = [t for r in results if (t := measured_tokens_per_sample(r.conditions.shape)) is not None]
    if not results:
        return Slack(None, None, None, 0, 0, "no results")
    if len(results) == 1:
        only = known[0] if known else None
        return Slack(None, only, only, len(known), 1, "1 result")
    if len(known) < 2 or 2 * len(known) < len(results):
        # A spread seen in a minority of the cohort does not bound the rest of it.
        why = f"tokens/sample measured for {len(known)} of {len(results)} results"
        return Slack(None, min(known, default=None), max(known, default=None), len(known), len(results), why)
    lo, hi = min(known), max(known)
    if hi == lo:
        # Identical lengths (often one run reported on two tracks) do not show the spread.
        return Slack(None, lo, hi, len(known), len(results), "equal tokens/sample")
    return Slack((hi - lo) / lo, lo, hi, len(known), len(results))


# -- own runs: a band only from repeated runs of one configuration -----------------------------------
#
# Runs of an own cohort (same model, tool, load and shape class) are *repeated runs of one
# configuration* when they also share the system they ran on (system ID, accelerator, accelerator
# count, nodes, serving framework, server settings) and the tool's version. A run whose system was
# not described (system ID "unknown") is never taken for a repeat of another: nothing says they ran
# on the same machine. The cohort's run-to-run spread is the largest (max - min) / min of the output
# tokens/s over the repeated runs of any one configuration, and a figure's band is +/- half of it, as
# the MLPerf band is half the shape slack. With no repeated runs there is no band, in words.

# Two runs of one model, tool and load have the same shape when the later one's mean input and mean
# output tokens per request are each within this fraction of the run that founded the shape class
# (ingest/own_cohort.py): measured means of repeated runs differ by a few tokens, and a class is
# anchored at its founder so that no chain of near neighbours stretches it.
OWN_SHAPE_TOLERANCE = 0.10


def own_configuration(r: Result) -> tuple:
    c, i, run = r.conditions.configuration, r.conditions.identity, r.conditions.run
    return (i.system_id, c.accelerator, c.accelerators_total, c.nodes, c.framework, run.server_settings,
            run.tool_version)


def own_slack(results: Iterable[Result]) -> Slack:
    """An own cohort's run-to-run spread (see above), or why it has none."""
    results = list(results)
    if not results:
        return Slack(None, None, None, 0, 0, "no results", basis="repeats")
    if len(results) == 1:
        return Slack(None, None, None, 0, 1, "single run", basis="repeats")
    configurations: dict[tuple, list[float]] = {}
    for r in results:
        if r.conditions.identity.system_id != UNKNOWN:
            configurations.setdefault(own_configuration(r), []).append(r.value)
    repeated = [sorted(v) for v in configurations.values() if len(v) > 1]
    if not repeated:
        return Slack(None, None, None, 0, len(results), "no repeated runs", basis="repeats")
    widest = max(repeated, key=lambda v: ((v[-1] - v[0]) / v[0], len(v)))
    lo, hi = widest[0], widest[-1]
    runs = sum(len(v) for v in repeated)
    if hi == lo:
        return Slack(None, lo, hi, runs, len(results), "repeated runs agree exactly", basis="repeats")
    return Slack((hi - lo) / lo, lo, hi, len(widest), len(results), basis="repeats")


def cohort_slack(results: Iterable[Result]) -> Slack:
    """A whole stored cohort's slack: from its verified results wherever it has any, so that an
    unverified row is shown against the verified band and never widens it. An own cohort's band
    comes from its repeated runs (own_slack), never from MLPerf figures."""
    results = list(results)
    if results and results[0].own:
        return own_slack(results)
    verified = [r for r in results if r.conditions.identity.verified == "verified"]
    if verified:
        return estimate_slack(verified)
    return replace(estimate_slack(results), unverified_only=bool(results))


@dataclass(frozen=True)
class Cohort:
    """A cohort as shown: the selected results, and the slack and size of the whole stored cohort."""

    key: CohortKey
    results: tuple[Result, ...]  # the results a filter selected, highest first
    slack: Slack  # of the whole cohort in the store (Store.cohorts), whatever the filter
    total: int  # results of the cohort in the store
    # the whole stored cohort, where a filter selected part of it: what each shown row is ranked among
    # (guard.cohort_ranks); empty where ``results`` are the whole cohort
    members: tuple[Result, ...] = ()

    @property
    def filtered(self) -> bool:
        return len(self.results) < self.total

    def top(self, n: int) -> "Cohort":
        """The first ``n`` of the shown results, still ranked in the whole cohort (a limit chooses rows,
        never their ranks)."""
        shown = tuple(sorted(self.results, key=lambda r: -r.value)[:n])
        return replace(self, results=shown, members=self.whole) if len(shown) < len(self.results) else self

    @property
    def whole(self) -> tuple[Result, ...]:
        """The whole stored cohort: what a rank is counted in, whatever the filter showed."""
        return self.members or self.results


def group_by_cohort(results: Iterable[Result]) -> list[tuple[CohortKey, tuple[Result, ...]]]:
    """Results grouped by cohort key, in key order. No slack here: a band comes only from the store."""
    groups: dict[CohortKey, list[Result]] = {}
    for r in results:
        groups.setdefault(r.cohort_key, []).append(r)
    return [(k, tuple(v)) for k, v in sorted(groups.items())]


def same_at_published_precision(a: float, b: float) -> bool:
    """True when two throughputs agree at the precision sources print them: summary tables round to
    about six significant digits (the log's 128786.8 is 128787.0 there) and Server logs to two
    decimals (450.84 in the log is 450.836 in the table)."""
    if not (math.isfinite(a) and math.isfinite(b)):
        return False
    return abs(a - b) <= max(1e-5 * max(abs(a), abs(b)), 0.006)
