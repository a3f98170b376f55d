"""Reference conditions and errata that ship with the package (exportguard/data/*.toml).

Sources leave conditions out (the summary tables publish no latency bounds, no dataset); these
files fill them, and everything filled from here is marked as such on the stored row.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from .states import SCENARIOS


@dataclass(frozen=True)
class ModelReference:
    model: str
    dataset: str
    dataset_samples: int
    reference_max_output_tokens: int
    accuracy_tracks: tuple[str, ...]
    bounds_ms: dict  # scenario -> (ttft_ms, tpot_ms); Offline has none
    source: str
    min_duration_ms: int
    # True where the accuracy log gives no tokens per sample, so a tree result's is derived as
    # tokens/s / samples/s (labelled derived, never in a slack); elsewhere a missing one stays missing.
    derive_tokens_per_sample: bool = False


@dataclass(frozen=True)
class Erratum:
    id: str
    round: str
    source_kind: str
    model: str
    scenario: str
    field: str
    published: str
    corrected: str
    reason: str
    source: str


def _load(name: str) -> dict:
    import tomllib  # here, with the resource reader: `exportguard check` imports this module, rarely loads data
    from importlib import resources

    return tomllib.loads(resources.files("exportguard").joinpath("data", name).read_text("utf-8"))


@cache
def model_references() -> dict[str, ModelReference]:
    data = _load("reference_conditions.toml")
    refs = {}
    for model, m in data["models"].items():
        bounds = {s: (m[s.lower()]["ttft_ms"], m[s.lower()]["tpot_ms"]) for s in SCENARIOS if s.lower() in m}
        refs[model] = ModelReference(
            model=model,
            dataset=m["dataset"],
            dataset_samples=m["dataset_samples"],
            reference_max_output_tokens=m["reference_max_output_tokens"],
            accuracy_tracks=tuple(m["accuracy_tracks"]),
            bounds_ms=bounds,
            source=data["source"],
            min_duration_ms=data["min_duration_ms"],
            derive_tokens_per_sample=bool(m.get("derive_tokens_per_sample", False)),
        )
    return refs


@cache
def tokens_per_sample_tolerance() -> float:
    """How far above its max output tokens a result's tokens per sample may be (reference_conditions.toml)."""
    return float(_load("reference_conditions.toml")["tokens_per_sample_tolerance"])


@cache
def max_throughput_per_system() -> float:
    """The highest throughput a system can plausibly report, in any unit (reference_conditions.toml)."""
    return float(_load("reference_conditions.toml")["max_throughput_per_system"])


@cache
def errata() -> tuple[Erratum, ...]:
    return tuple(Erratum(**e) for e in _load("errata.toml")["errata"])


# Benchmark names as they appear in folders and tables, mapped to (model, accuracy track).
# llama3_1-8b is an older folder spelling; v5.0 filed Interactive as its own benchmark folder.
_BENCHMARK = re.compile(
    r"^(?P<model>llama2-70b|llama3[._]1-8b|llama3[._]1-405b)"
    r"(?P<interactive>-interactive)?(?:-(?P<track>99(?:\.9)?))?$"
)

# LLM benchmarks that exportguard recognises but has no reference conditions for yet: their rows
# are skipped by rule (counted, with the reason), not quarantined.
_OTHER_LLMS = re.compile(r"^(llama|mixtral|deepseek|gptj|gpt-j|gpt-oss|qwen)", re.IGNORECASE)


@dataclass(frozen=True)
class BenchmarkName:
    benchmark: str  # canonical: "llama2-70b-99", "llama3.1-8b"
    model: str
    accuracy_track: str
    interactive_folder: bool  # v5.0's llama2-70b-interactive-99 folder


def parse_benchmark(name: str) -> BenchmarkName | None:
    """Canonical benchmark for a folder or table name, or None if it is no benchmark we store."""
    m = _BENCHMARK.match(name.strip().lower())
    if not m:
        return None
    model = m["model"].replace("_", ".")
    ref = model_references().get(model)
    if ref is None:
        return None
    track = m["track"] or ref.accuracy_tracks[0]
    if track not in ref.accuracy_tracks:
        return None
    canonical = model if len(ref.accuracy_tracks) == 1 else f"{model}-{track}"
    return BenchmarkName(canonical, model, track, bool(m["interactive"]))


def is_other_llm(name: str) -> bool:
    return bool(_OTHER_LLMS.match(name.strip()))


def canonical_scenario(name: str) -> str | None:
    for s in SCENARIOS:
        if name.strip().lower() == s.lower():
            return s
    return None
