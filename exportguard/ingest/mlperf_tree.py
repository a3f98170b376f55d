"""MLCommons submission trees: <division>/<Submitter>/results/<system>/<benchmark>/<Scenario>/.

One item per scenario folder. Layouts differ across rounds only in where measurements and
compliance live (v6.0+ keeps them inside the scenario folder), which this reader does not need:
throughput and run parameters come from performance/run_1/mlperf_log_summary.txt, tokens per
sample from accuracy/accuracy.txt, the system from systems/<system>.json. v5.0 filed Interactive
as its own benchmark folder (llama2-70b-interactive-99/Server); some trees spell llama3_1-8b or
use lowercase scenario folders.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import re
from pathlib import Path
from typing import Iterator

from ..errors import SourceError
from ..model import LOAD_RUN_LOG, TPS_ACCURACY_LOG, TPS_DERIVED, Load, Provenance, arrival_for
from ..reference import canonical_scenario, is_other_llm, model_references, parse_benchmark
from . import Item, Quarantined, Skipped, Source, decode_utf8, read_bounded
from .mlperf_logs import derived_tokens_per_sample, parse_accuracy, parse_performance_summary, parse_system_description

DIVISIONS = ("closed", "open", "network")
LOG_LIMIT = 16 * 1024 * 1024
SYSTEM_LIMIT = 1024 * 1024
_ROUND = re.compile(r"(?:^|[_-])v?(\d+\.\d+)$")
_KNOWN_SCENARIOS = ("offline", "server", "interactive", "singlestream", "multistream")
_MAX_DEPTH = 4
PERF_LOG = "performance/run_1/mlperf_log_summary.txt"
ACCURACY_LOG = "accuracy/accuracy.txt"


def find_submitters(root: Path) -> list[Path]:
    """Submitter folders (those holding results/) at or below root, a few levels deep at most."""
    found, frontier = [], [root]
    for _ in range(_MAX_DEPTH + 1):
        nxt = []
        for d in frontier:
            if (d / "results").is_dir():
                found.append(d)
            else:
                nxt.extend(sorted(p for p in d.iterdir() if p.is_dir() and not p.is_symlink()))
        frontier = nxt
    return sorted(found)


def _files_of_interest(root: Path) -> Iterator[Path]:
    for sub in find_submitters(root):
        yield from sorted((sub / "systems").glob("*.json"))
        for scenario_dir in _scenario_dirs(sub):
            for rel in (PERF_LOG, ACCURACY_LOG):
                if (scenario_dir / rel).is_file():
                    yield scenario_dir / rel


def tree_identity(root: Path) -> tuple[str, str]:
    """(sha256, date) of a tree in one walk: the digest covers the files this reader uses (path and
    content), so a re-ingest is recognisable; the date, the default retrieval date, is the newest
    modification date among them."""
    h = hashlib.sha256()
    stamps = []
    for f in _files_of_interest(root):
        h.update(str(f.relative_to(root)).encode() + b"\0")
        with open(f, "rb") as fh:
            h.update(hashlib.sha256(fh.read(LOG_LIMIT + 1)).digest())
        stamps.append(f.stat().st_mtime)
    newest = max(stamps) if stamps else root.stat().st_mtime
    return h.hexdigest(), dt.date.fromtimestamp(newest).isoformat()


def _scenario_dirs(sub: Path) -> Iterator[Path]:
    for system_dir in sorted(p for p in (sub / "results").iterdir() if p.is_dir()):
        for bench_dir in sorted(p for p in system_dir.iterdir() if p.is_dir()):
            yield from sorted(p for p in bench_dir.iterdir() if p.is_dir())


def round_of(path: Path) -> str | None:
    for part in reversed(path.resolve().parts):
        m = _ROUND.search(part)
        if m:
            return "v" + m.group(1)
    return None


def read_tree(root: Path, source: Source, round: str | None = None) -> Iterator[Item]:
    submitters = find_submitters(root)
    if not submitters:
        raise SourceError("empty_tree", "no <Submitter>/results/ folder found: not an MLCommons submission tree",
                          str(root))
    for sub in submitters:
        division = sub.parent.name.lower()
        round_ = round or round_of(sub)
        systems: dict[str, object] = {}
        for scenario_dir in _scenario_dirs(sub):
            locator = str(scenario_dir.relative_to(sub.parent.parent))  # as the summary's Location
            try:
                if division not in DIVISIONS:
                    raise SourceError("unknown_division",
                                      f"the folder above {sub.name} is {sub.parent.name!r}, not closed/open/network")
                if round_ is None:
                    raise SourceError("unknown_round", "no vX.Y folder above the tree: give --round")
                yield _scenario_item(sub, scenario_dir, locator, division, round_, source, systems)
            except SourceError as err:
                yield Quarantined.from_error(err, locator)


def _scenario_item(sub: Path, scenario_dir: Path, locator: str, division: str, round_: str, source: Source,
                   systems: dict) -> Item:
    bench_name, system_id = scenario_dir.parent.name, scenario_dir.parent.parent.name
    bench = parse_benchmark(bench_name)
    if bench is None:
        return Skipped(locator, f"no reference conditions recorded for {bench_name}" if is_other_llm(bench_name)
                       else "not an LLM benchmark")
    scenario = canonical_scenario(scenario_dir.name)
    if scenario is None:
        if scenario_dir.name.lower() in _KNOWN_SCENARIOS:
            return Skipped(locator, "latency metric, not throughput")
        raise SourceError("unknown_scenario", f"scenario folder {scenario_dir.name!r} is not Offline, Server or Interactive")
    if bench.interactive_folder:
        if scenario != "Server":
            raise SourceError("unknown_scenario", f"{bench_name} holds only Server runs (v5.0 Interactive), found {scenario}")
        scenario = "Interactive"

    if not (scenario_dir / PERF_LOG).is_file():
        raise SourceError("missing_performance_log", f"no {PERF_LOG}")
    perf_text, perf = _parse_file(scenario_dir, PERF_LOG, parse_performance_summary)
    if not perf.valid:
        raise SourceError("invalid_result", "the run log says the result is INVALID: only VALID results are stored",
                          f"{PERF_LOG} line {_line_of(perf_text, 'Result is')}", raw=_excerpt(perf_text, "Result is"))

    tokens_per_sample, tps_basis = None, TPS_ACCURACY_LOG
    if (scenario_dir / ACCURACY_LOG).is_file():
        _, accuracy = _parse_file(scenario_dir, ACCURACY_LOG, parse_accuracy)
        tokens_per_sample = accuracy.tokens_per_sample
    if tokens_per_sample is None:
        # llama3.1-8b's accuracy log has no tokens per sample: derive it from the run's throughputs.
        tokens_per_sample, tps_basis = derived_tokens_per_sample(perf), TPS_DERIVED

    if perf.tokens_per_s is not None:
        value, unit = perf.tokens_per_s, "tokens/s"
    else:
        value, unit = perf.samples_per_s, "samples/s"

    system = _system(sub, system_id, systems)
    per_node = system.accelerators_per_node if system.accelerators_per_node is not None else 0
    if system.number_of_nodes is None:
        raise SourceError("missing_field", f"systems/{system_id}.json has no number_of_nodes")
    availability = (system.status or "").lower()
    if availability not in ("available", "preview", "rdi"):
        raise SourceError("unknown_availability",
                          f"systems/{system_id}.json status {system.status!r} is not available, preview or rdi")
    json_division = (system.division or division).lower()
    suite = "edge" if "edge" in bench_name or (system.system_type or "").strip().lower() == "edge" else "datacenter"

    provenance = Provenance(
        source_kind=source.kind, source_path=source.path, source_sha256=source.sha256, source_locator=locator,
        source_url=scenario_dir.resolve().as_uri(), retrieved_on=source.retrieved_on,
        ingested_at=source.ingested_at)
    return _build(provenance, round_, json_division if json_division in ("closed", "open") else division, suite,
                  availability, system, sub.name, system_id, bench, scenario, value, unit, perf,
                  tokens_per_sample, tps_basis, per_node)


def _build(provenance, round_, division, suite, availability, system, submitter_key, system_id, bench, scenario,
           value, unit, perf, tokens_per_sample, tps_basis, per_node):
    from .build import mlperf_result

    ms = lambda ns: None if ns is None else ns / 1e6  # noqa: E731
    offline = scenario == "Offline"
    ref_min = model_references()[bench.model].min_duration_ms
    load = Load(
        arrival_process=arrival_for(scenario),
        target_qps=None if offline else perf.target_qps,
        # Offline logs print latency bounds too, but they do not apply to a closed-loop drain.
        ttft_bound_ms=None if offline else ms(perf.ttft_bound_ns),
        tpot_bound_ms=None if offline else ms(perf.tpot_bound_ns),
        p99_ttft_ms=None if offline else ms(perf.p99_ttft_ns),
        p99_tpot_ms=None if offline else ms(perf.p99_tpot_ns),
        min_duration_ms=perf.min_duration_ms or ref_min,
        basis=LOAD_RUN_LOG)
    if not offline and (load.ttft_bound_ms is None or load.tpot_bound_ms is None):
        raise SourceError("missing_field", "the run log has no ttft_latency / tpot_latency bound for a latency-bound scenario")
    return mlperf_result(
        provenance=provenance, round=round_, division=division, suite=suite, availability=availability,
        submitter=system.submitter or submitter_key, submitter_key=submitter_key,
        system_name=system.system_name or system_id, system_id=system_id, result_id="", bench=bench,
        scenario=scenario, value=value, unit=unit, samples_per_s=perf.samples_per_s,
        tokens_per_sample=tokens_per_sample, tps_basis=tps_basis, load=load,
        accelerator=system.accelerator_model_name, accelerators_per_node=per_node, nodes=system.number_of_nodes,
        framework=system.framework, host_processor=system.host_processor_model_name, raw_system=system.raw_text)


def _parse_file(scenario_dir: Path, rel: str, parse):
    """(text, parsed) of one file of a scenario folder; an error's locator names the file and the line."""
    try:
        text = decode_utf8(read_bounded(scenario_dir / rel, LOG_LIMIT, rel), rel)
        return text, parse(text)
    except SourceError as err:
        raise _in_file(err, rel) from None


def _in_file(err: SourceError, rel: str) -> SourceError:
    where = err.locator if err.locator.startswith(rel) else " ".join(x for x in (rel, err.locator) if x)
    return SourceError(err.reason, err.message, where, err.raw)


def _system(sub: Path, system_id: str, cache: dict):
    if system_id not in cache:
        path = sub / "systems" / f"{system_id}.json"
        rel = str(path.relative_to(sub.parent.parent))  # closed/<Sub>/systems/<id>.json, as the row locators
        try:
            if not path.is_file():
                raise SourceError("missing_system_description",
                                  f"the submitter's systems/ folder has no {system_id}.json describing this system")
            cache[system_id] = parse_system_description(decode_utf8(read_bounded(path, SYSTEM_LIMIT, rel), rel))
        except SourceError as err:
            cache[system_id] = _in_file(err, rel)
    found = cache[system_id]
    if isinstance(found, SourceError):
        raise SourceError(found.reason, found.message, found.locator, found.raw)
    return found


def _line_of(text: str, needle: str) -> int:
    at = text.find(needle)
    return text.count("\n", 0, at) + 1 if at >= 0 else 1


def _excerpt(text: str, needle: str) -> str:
    at = text.find(needle)
    return text[max(0, at - 100): at + 200] if at >= 0 else text[:300]
