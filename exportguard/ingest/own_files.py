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
from typing import Iterable, Iterator

from ..errors import SourceError
from .source import LOAD_TEST_FILES, Item, Quarantined, Skipped, Source, one_row, read_regular, warned
from . import strict_json
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
TOOL_NAMES = {"aiperf": "AIPerf", "genai_perf": "GenAI-Perf", "guidellm": "guidellm", "vllm_bench": "vLLM bench serve",
              "sglang_bench": "SGLang bench_serving", "llmperf": "llmperf"}
KNOWN_TOOLS = LOAD_TEST_FILES


@dataclass(frozen=True)
class OwnFile:
    kind: str
    records: Iterable[Record]  # a list, or JsonLines (walked again, lazily, by read_own)
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
    """The one tool whose result ``value`` is, or None. A record with the keys of two tools (a vLLM result
    with guidellm's ``benchmarks``, or SGLang's keys) is refused as ambiguous, naming both: read as either,
    its figures could be the other tool's (954 tok/s where vLLM's own value is 779)."""
    kinds = [kind for kind, recognises, _ in READERS if recognises(value)]
    if len(kinds) > 1:
        raise SourceError("ambiguous_file", f"this record has the keys of both a {TOOL_NAMES[kinds[0]]} and a "
                          f"{TOOL_NAMES[kinds[1]]} result: exportguard cannot tell which tool's figures it holds; "
                          "ingest the file the tool wrote, unedited")
    return kinds[0] if kinds else None


def classify(path: Path, label: str) -> OwnFile | None:
    """The own file ``path`` is, or None when it is none of them (then it is judged as an MLPerf source)."""
    records = parse(decode(read_regular(path, MAX_OWN_BYTES, label), label), label)
    first = _first_value(records)
    if isinstance(first, SourceError):
        raise first
    if first is None:
        return None
    sibling = _sibling(first)
    if sibling:
        return OwnFile(sibling[0], records, sibling[1])
    kind = kind_of(first)
    if kind is None:
        near_miss(first, label)
    return OwnFile(kind, records) if kind else None


def _first_value(records: Iterable[Record]) -> object:
    """The first record that is JSON; the first error when none is (None for no record at all)."""
    error = None
    for record in records:
        if not isinstance(record.value, SourceError):
            return record.value
        error = error or record.value
    return error


def near_miss(value: object, label: str) -> None:
    """Refuse a record that has most of one tool's signature keys but not all, naming the tool and the
    keys it lacks: a vLLM file without model_id is not "an MLCommons summary table"."""
    if not isinstance(value, dict):
        return
    for tool, keys in SIGNATURES:
        present = [k for k in keys if k in value]
        missing = [k for k in keys if k not in value]
        if missing and len(present) >= max(3, len(keys) - 2):
            raise SourceError("missing_field", f"{tool} result without {', '.join(missing)}: the file has "
                              f"{', '.join(present)} of the keys every such file holds", label)


# The keys that make a record one tool's result (the recognisers' sets): a near miss is named by them.
SIGNATURES = (
    ("vLLM bench serve", ("date", "model_id", "num_prompts", "request_rate", "output_throughput")),
    ("SGLang bench_serving", ("output_throughput", "dataset_name", "random_input_len", "total_output_tokens")),
)


def listed_record(value: object) -> str | None:
    """The tool whose result object a JSON list wraps, or None: `[ {vLLM result} ]` is not a table."""
    return kind_of(value[0]) if isinstance(value, list) and len(value) == 1 else None


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
    junk = Junk(source.path)
    verdicts: dict[str, SourceError] = {}  # a refused line's locator -> its refusal, for its repeats
    for record in own.records:
        refused = verdicts.get(record.same_as) if record.same_as else None
        refused = refused or _refusal(record, own.kind)
        if refused is not None:
            if not record.same_as and len(verdicts) < 10_000:
                verdicts[record.locator] = refused
            yield from junk.add(record, refused)
            continue
        for locator, run in module.runs(record):
            yield one_row(locator, lambda run=run, locator=locator: _stored(_named(own.kind, run), source, locator,
                                                                            system), raw=record.text)
    yield from junk.rest()


def _refusal(record: Record, kind: str) -> SourceError | None:
    """Why a record holds no run of the file's tool: not JSON, not such a record, or text no store holds."""
    if isinstance(record.value, SourceError):
        return record.value
    try:
        kind_of_record = kind_of(record.value)
    except SourceError as err:
        return SourceError(err.reason, err.message, record.locator)
    if kind_of_record != kind:
        return SourceError("not_a_result_record", f"this record is not a {kind} result like the file's first one; "
                           f"known load-test files: {KNOWN_TOOLS}", record.locator)
    bad = strict_json.bad_text_in(record.value) if record.escapes else None
    if bad:
        path, why = bad
        return SourceError("bad_text", f"key {path} {why}: the run is not stored", record.locator)
    return None


class Junk:
    """Refused records of one file, aggregated per reason: the first of each reason is quarantined as it
    is; every later one only counted, and they become one more quarantine row per reason with the count
    and their first line numbers. A million junk lines thus cost one row, not a million under the lock."""

    SHOWN = 10  # line numbers named in an aggregated entry's locator

    def __init__(self, label: str):
        self.label = label
        self.seen: dict[str, list] = {}  # reason -> [count, first line numbers, first error, its raw text]

    def add(self, record: Record, err: SourceError) -> Iterator[Item]:
        entry = self.seen.get(err.reason)
        if entry is None:
            self.seen[err.reason] = [1, [_line(record.locator)], err, record.text]
            return
        entry[0] += 1
        if len(entry[1]) < self.SHOWN:
            entry[1].append(_line(record.locator))
        yield from ()

    def rest(self) -> Iterator[Item]:
        for reason, (count, lines, err, raw) in self.seen.items():
            if count == 1:
                yield Quarantined.from_error(err, raw=raw)
                continue
            numbers = ", ".join(str(n) for n in lines if n) + (", ..." if count > len(lines) else "")
            message = f"{count:,} lines refused alike; the first: {err.message}"
            yield Quarantined(f"{self.label} lines {numbers}", reason, message, err.raw or raw[:4000], rows=count)


def _line(locator: str) -> int:
    head, _, number = locator.rpartition(" line ")
    return int(number) if head and number.isdigit() else 0


def _named(kind: str, run):
    """The run's reading, a missing key said with its tool ("vLLM bench serve result without duration")."""
    try:
        return run()
    except SourceError as err:
        key = err.message.removeprefix("key ").removesuffix(" is missing")
        if err.reason != "missing_field" or key == err.message or " " in key:
            raise
        raise SourceError(err.reason, f"{TOOL_NAMES[kind]} result without {key}", err.locator, raw=err.raw) \
            from None


def _stored(got, source: Source, locator: str, system: SystemDescription) -> Item:
    if isinstance(got, Skipped):
        return got
    # what the file says about its load that contradicts itself: stored, with a warning in the ingest
    # report (and in the run's note, through its load detail)
    return warned(own_result(got, source, locator, system), (f"{locator}: {w}" for w in got.warnings))

