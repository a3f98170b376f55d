"""Own load-test result files, recognised by what they hold (never by their name), and read into one
stored run per benchmark run: a file for vLLM, AIPerf, GenAI-Perf and llmperf, a line for JSON Lines
(vLLM append-result files, SGLang), an element of ``benchmarks`` for guidellm.

The files a tool writes beside its results (per-request records, phase manifests, CSV and console
exports of the same figures) are recognised too and skipped by rule, with a pointer to the file that
holds the run: one row read, skipped, so that ingesting a tool's whole output folder reconciles.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from ..errors import SourceError
from .source import LOAD_TEST_FILES, Item, Skipped, Source, one_row, read_regular
from . import own_aiperf, own_guidellm, own_llmperf, own_sglang, own_vllm
from .own_build import own_result
from .own_json import MAX_OWN_BYTES, Record, decode, parse
from .own_system import SystemDescription

# kind -> (recogniser, reader module); recognisers are tried in this order
READERS = (
    ("aiperf", own_aiperf.is_aiperf, own_aiperf),
    ("genai_perf", own_aiperf.is_genai_perf, own_aiperf),
    ("guidellm", own_guidellm.recognises, own_guidellm),
    ("vllm_bench", own_vllm.recognises, own_vllm),
    ("sglang_bench", own_sglang.recognises, own_sglang),
    ("llmperf", own_llmperf.recognises, own_llmperf),
)
MODULES = {kind: module for kind, _, module in READERS}
KNOWN_TOOLS = LOAD_TEST_FILES


@dataclass(frozen=True)
class OwnFile:
    kind: str
    records: tuple[Record, ...]
    skip: str = ""  # set for a file beside a tool's results: why it holds no run to store


def _sibling(value: object) -> tuple[str, str] | None:
    """(kind, reason) for a file a tool writes beside its results."""
    if isinstance(value, dict):
        meta, metrics = value.get("metadata"), value.get("metrics")
        if isinstance(meta, dict) and isinstance(metrics, dict) and ("benchmark_phase" in meta or "x_request_id" in meta):
            return "aiperf", ("AIPerf per-request records (profile_export.jsonl): the run is in "
                              "profile_export_aiperf.json beside it")
        phases = value.get("phases")
        if isinstance(phases, list) and phases and all(isinstance(p, dict) and "metrics_json" in p for p in phases):
            return "aiperf", "AIPerf phase manifest: each phase's figures are in the profile_export_aiperf.json it names"
        experiments = value.get("experiments")
        if isinstance(experiments, list) and experiments and isinstance(experiments[0], dict) and \
                "requests" in experiments[0]:
            return "genai_perf", ("perf_analyzer's raw per-request timestamps (profile_export.json): the run is in "
                                  "profile_export_genai_perf.json beside it")
    if isinstance(value, list) and value and all(isinstance(r, dict) for r in value[:3]) and \
            {"ttft_s", "number_output_tokens"} <= value[0].keys():
        return "llmperf", "llmperf per-request responses: the run is in the *_summary.json beside it"
    return None


def kind_of(value: object) -> str | None:
    for kind, recognises, _ in READERS:
        if recognises(value):
            return kind
    return None


def classify(path: Path, label: str) -> OwnFile | None:
    """The own file ``path`` is, or None when it is none of them (then it is judged as an MLPerf source)."""
    records = parse(decode(read_regular(path, MAX_OWN_BYTES, label), label), label)
    values = [r.value for r in records if not isinstance(r.value, SourceError)]
    if not values:
        if records and isinstance(records[0].value, SourceError):
            raise records[0].value
        return None
    sibling = _sibling(values[0])
    if sibling:
        return OwnFile(sibling[0], tuple(records), sibling[1])
    kind = kind_of(values[0])
    return OwnFile(kind, tuple(records)) if kind else None


def head_kind(head: bytes, suffix: str) -> tuple[str, str] | None:
    """(kind, reason) of a tool's CSV or console export, told from the first bytes of the file."""
    if head.startswith(b"Metric,"):
        tool = "aiperf" if b",sum," in head.split(b"\n", 1)[0] else "genai_perf"
        return tool, ("the tool's CSV export of the same figures (rounded, without the run's configuration): "
                      "ingest its profile_export_*.json")
    if b"NVIDIA AIPerf |" in head:
        return "aiperf", "AIPerf console table (profile_export_console.txt): ingest profile_export_aiperf.json"
    return None


def read_own(own: OwnFile, source: Source, system: SystemDescription) -> Iterator[Item]:
    if own.skip:
        yield Skipped(source.path, own.skip)
        return
    module = MODULES[own.kind]
    for record in own.records:
        if isinstance(record.value, SourceError):
            yield one_row(record.locator, _raise(record.value), raw=record.text)
            continue
        if kind_of(record.value) != own.kind:
            yield one_row(record.locator, _raise(SourceError(
                "not_a_result_record", f"this record is not a {own.kind} result like the file's first one; "
                f"known load-test files: {KNOWN_TOOLS}", record.locator)), raw=record.text)
            continue
        for locator, run in module.runs(record):
            yield one_row(locator, lambda run=run, locator=locator: _stored(run(), source, locator, system),
                          raw=record.text)


def _stored(got, source: Source, locator: str, system: SystemDescription) -> Item:
    if isinstance(got, Skipped):
        return got
    return own_result(got, source, locator, system)


def _raise(err: SourceError):
    def fail():
        raise err
    return fail
