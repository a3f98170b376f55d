"""Immutable Result / Conditions / Cohort / Band objects: the vocabulary of DESIGN.md section 2.

A throughput value never travels alone in this package: it lives inside a Result, next to every
condition that gives it meaning. Absent conditions are explicit states (``RESULT_ID_PENDING``,
``TPS_NOT_REPORTED``), never blanks, so that a citation can say why something is missing.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, replace
from typing import Iterable

SCENARIOS = ("Offline", "Server", "Interactive")
UNITS = ("tokens/s", "samples/s", "queries/s")
DIVISIONS = ("closed", "open", "n/a")  # n/a: not an MLPerf result
AVAILABILITIES = ("available", "preview", "rdi", "n/a")
SUITES = ("datacenter", "edge", "n/a")
VERIFIED = ("verified", "unverified")
SOURCE_KINDS = ("mlperf_tree", "mlperf_summary", "csv")

# Result ID states: MLCommons assigns IDs when a round is published.
RESULT_ID_OFFICIAL = "official"
RESULT_ID_PENDING = "pending"  # an MLPerf tree not (yet) matched to its round's published summary
RESULT_ID_NONE = "none"  # not an MLPerf result: there is no ID to give
RESULT_ID_STATES = (RESULT_ID_OFFICIAL, RESULT_ID_PENDING, RESULT_ID_NONE)

# Where tokens per sample came from.
TPS_ACCURACY_LOG = "accuracy log"
TPS_SUMMARY = "summary table"
TPS_DERIVED = "derived: tokens/s / samples/s"
TPS_CSV = "stated in CSV"
TPS_NOT_REPORTED = "not reported"
TPS_BASES = (TPS_ACCURACY_LOG, TPS_SUMMARY, TPS_DERIVED, TPS_CSV, TPS_NOT_REPORTED)
# Measured tokens per sample: the only kind a slack is computed from. A derived one (tokens/s over
# samples/s of the performance run, another run over another sample mix) is shown, labelled derived,
# and never widens or narrows a band: on the v5.1 llama2-70b logs it reads -0.2 % to +1.2 % off the
# measured value, on one real system of another round 256.2 against 271.0 measured.
TPS_MEASURED = (TPS_ACCURACY_LOG, TPS_SUMMARY, TPS_CSV)

# Where the load parameters came from.
LOAD_RUN_LOG = "run log"
LOAD_REFERENCE = "reference"
LOAD_CSV = "csv"
LOAD_BASES = (LOAD_RUN_LOG, LOAD_REFERENCE, LOAD_CSV)

ARRIVAL_CLOSED_LOOP = "closed-loop drain"
ARRIVAL_POISSON = "Poisson"
ARRIVAL_PROCESSES = (ARRIVAL_CLOSED_LOOP, ARRIVAL_POISSON, "other")


def arrival_for(scenario: str) -> str:
    return ARRIVAL_CLOSED_LOOP if scenario == "Offline" else ARRIVAL_POISSON


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class Benchmark:
    benchmark: str  # "llama2-70b-99"
    model: str  # "llama2-70b"
    accuracy_track: str  # "99" / "99.9"
    scenario: str


@dataclass(frozen=True)
class Shape:
    tokens_per_sample: float | None
    tokens_per_sample_basis: str
    reference_max_output_tokens: int
    dataset: str
    dataset_samples: int


@dataclass(frozen=True)
class Load:
    arrival_process: str
    target_qps: float | None
    ttft_bound_ms: float | None  # None only in Offline, where no latency bound applies
    tpot_bound_ms: float | None
    p99_ttft_ms: float | None
    p99_tpot_ms: float | None
    min_duration_ms: int
    basis: str


@dataclass(frozen=True)
class Configuration:
    accelerator: str  # "none (CPU only)" when there is none
    accelerators_per_node: int
    nodes: int
    accelerators_total: int
    framework: str
    host_processor: str


@dataclass(frozen=True)
class Provenance:
    source_kind: str
    source_path: str
    source_sha256: str
    source_locator: str
    source_url: str
    retrieved_on: str  # ISO date
    ingested_at: str  # ISO timestamp


@dataclass(frozen=True)
class Conditions:
    identity: Identity
    benchmark: Benchmark
    shape: Shape
    load: Load
    configuration: Configuration
    provenance: Provenance


@dataclass(frozen=True)
class Result:
    conditions: Conditions
    value: float
    unit: str
    samples_per_s: float | None = None
    corrections: tuple[str, ...] = ()
    raw_system: str = ""

    @property
    def origin(self) -> str:
        """'mlcommons' for MLCommons publications (trees and summaries, which describe one run and
        merge), 'csv' for rows a user supplied (which never merge into a publication)."""
        return "csv" if self.conditions.provenance.source_kind == "csv" else "mlcommons"

    @functools.cached_property  # computed once per result (frozen: nothing it reads can change)
    def natural_key(self) -> tuple[str, ...]:
        i, b = self.conditions.identity, self.conditions.benchmark
        return (self.origin, i.round, i.division, i.submitter_key, i.system_id, b.benchmark, b.scenario)

    @functools.cached_property
    def cohort_key(self) -> "CohortKey":
        i, b = self.conditions.identity, self.conditions.benchmark
        return CohortKey(i.mlperf, i.round, i.division, b.model, b.accuracy_track, b.scenario, self.unit,
                         b.benchmark)

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

    def label(self) -> str:
        if self.mlperf:
            return f"MLPerf® {self.round} {self.division} {self.benchmark} {self.scenario} ({self.unit})"
        return f"non-MLPerf {self.benchmark} {self.scenario} ({self.unit})"


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


def cohort_slack(results: Iterable[Result]) -> Slack:
    """A whole stored cohort's slack: from its verified results wherever it has any, so that an
    unverified row is shown against the verified band and never widens it."""
    results = list(results)
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

    @property
    def filtered(self) -> bool:
        return len(self.results) < self.total


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
