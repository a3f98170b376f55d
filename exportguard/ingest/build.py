"""Build a stored Result from what a source gave, filling the rest from the reference conditions
(and marking what was filled), after the checks every source's rows share, the one place of the
plausibility rules: a throughput that is finite, positive and below the physical bound, a tokens
per sample the benchmark's generation cap allows, a name that does not read like a figure."""
from __future__ import annotations

import math
import re

from ..errors import SourceError
from ..model import (
    LOAD_REFERENCE,
    RESULT_ID_OFFICIAL,
    RESULT_ID_PENDING,
    TPS_NOT_REPORTED,
    Benchmark,
    Conditions,
    Configuration,
    Identity,
    Load,
    Provenance,
    Result,
    Shape,
    arrival_for,
)
from ..detect import reads_like_a_figure
from ..reference import BenchmarkName, max_throughput_per_system, model_references, tokens_per_sample_tolerance

CPU_ONLY = "none (CPU only)"
NOT_STATED = "not stated by the source"


def reference_load(model: str, scenario: str) -> Load:
    ref = model_references()[model]
    ttft, tpot = ref.bounds_ms.get(scenario, (None, None))
    return Load(arrival_for(scenario), None, ttft, tpot, None, None, ref.min_duration_ms, LOAD_REFERENCE)


def accelerator_text(name: str | None, per_node: int) -> str:
    name = (name or "").strip()
    if per_node == 0 or name.upper() in ("", "N/A", "NA", "NONE"):
        return CPU_ONLY if per_node == 0 else (name or NOT_STATED)
    return name


# "NVIDIA DGX B200 (8x B200-SXM-180GB, TensorRT)": the name, then the configuration in parentheses.
_CONFIGURATION_SUFFIX = re.compile(r"\([^()]*\)\s*$")


def name_is_blank(name: str | None) -> bool:
    """True for a system name with nothing before its configuration, as v5.1 publishes some NVIDIA
    GB200/GB300 systems: " (4x GB200-186GB_aarch64, TensorRT)"."""
    return not _CONFIGURATION_SUFFIX.sub("", (name or "").strip()).strip()


def check_throughput(value: float, where: str) -> None:
    """Refuse a throughput no system can have: zero or less, not finite, or beyond the physical
    bound recorded with the reference conditions."""
    if not (math.isfinite(value) and value > 0):
        raise SourceError("non_positive_value", f"the throughput {value!r} is not a finite, positive number", where)
    bound = max_throughput_per_system()
    if value > bound:
        raise SourceError("implausible_throughput",
                          f"the throughput {value:g} is not plausible: no system reaches {bound:g} per second "
                          "(a unit or decimal-point error?)", where)


def check_tokens_per_sample(tokens_per_sample: float | None, max_output_tokens: int, where: str) -> None:
    """Refuse a generation length no run of this shape can have: zero or less, or above the cap on
    output tokens by more than the documented tolerance (reference_conditions.toml)."""
    if tokens_per_sample is None:
        return
    limit = max_output_tokens * (1 + tokens_per_sample_tolerance())
    if not (0 < tokens_per_sample <= limit):  # also refuses NaN and inf
        raise SourceError(
            "implausible_tokens_per_sample",
            f"tokens per sample {tokens_per_sample:g} is not plausible: it must be above 0 and at most {limit:g} "
            f"({max_output_tokens} max output tokens + {tokens_per_sample_tolerance():.0%})", where)


def check_names(**names: str | None) -> None:
    """Refuse a name that reads like a throughput figure (a system called "999,999 tok/s ±0.1% [a]"):
    shown beside real figures, no reader could tell it from one."""
    for field, text in names.items():
        if text and reads_like_a_figure(text):
            raise SourceError("name_reads_like_a_figure", f"{field} {text[:200]!r} reads like a throughput figure; "
                              "a reader would take it for one: correct the name at its source", field)


def mlperf_result(*, provenance: Provenance, round: str, division: str, suite: str, availability: str,
                  submitter: str, submitter_key: str, system_name: str, system_id: str, result_id: str,
                  bench: BenchmarkName, scenario: str, value: float, unit: str, samples_per_s: float | None,
                  tokens_per_sample: float | None, tps_basis: str, load: Load | None,
                  accelerator: str | None, accelerators_per_node: int, nodes: int, framework: str | None,
                  host_processor: str | None, raw_system: str = "", corrections: tuple[str, ...] = (),
                  value_where: str = "", tps_where: str = "") -> Result:
    """``value_where`` and ``tps_where`` name where the source gave the throughput and the tokens per
    sample, for the refusal of an implausible one."""
    ref = model_references()[bench.model]
    check_throughput(value, value_where)
    check_tokens_per_sample(tokens_per_sample, ref.reference_max_output_tokens, tps_where)
    check_names(submitter=submitter, system_name=system_name, accelerator=accelerator, framework=framework,
                host_processor=host_processor)
    official = bool(result_id)
    identity = Identity(
        round=round, division=division, suite=suite, availability=availability,
        submitter=submitter, submitter_key=submitter_key, system_name=system_name or system_id,
        system_id=system_id, result_id=result_id,
        result_id_state=RESULT_ID_OFFICIAL if official else RESULT_ID_PENDING,
        verified="verified" if official else "unverified", mlperf=True)
    shape = Shape(
        tokens_per_sample=tokens_per_sample,
        tokens_per_sample_basis=tps_basis if tokens_per_sample is not None else TPS_NOT_REPORTED,
        reference_max_output_tokens=ref.reference_max_output_tokens,
        dataset=ref.dataset, dataset_samples=ref.dataset_samples)
    configuration = Configuration(
        accelerator=accelerator_text(accelerator, accelerators_per_node),
        accelerators_per_node=accelerators_per_node, nodes=nodes,
        accelerators_total=accelerators_per_node * nodes,
        framework=(framework or "").strip() or NOT_STATED,
        host_processor=(host_processor or "").strip() or NOT_STATED)
    conditions = Conditions(identity, Benchmark(bench.benchmark, bench.model, bench.accuracy_track, scenario),
                            shape, load or reference_load(bench.model, scenario), configuration, provenance)
    return Result(conditions, value, unit, samples_per_s, corrections, raw_system)
