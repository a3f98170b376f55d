"""MLCommons submission trees: <division>/<Submitter>/results/<system>/<benchmark>/<Scenario>/.

One item per scenario folder. Layouts differ across rounds only in where measurements and
compliance live (v6.0+ keeps them inside the scenario folder), which this reader does not need:
throughput and run parameters come from performance/run_1/mlperf_log_summary.txt, tokens per
sample from accuracy/accuracy.txt, the system from systems/<system>.json. v5.0 filed Interactive
as its own benchmark folder (llama2-70b-interactive-99/Server); some trees spell llama3_1-8b or
use lowercase scenario folders.

A tree is a pile of files anyone may have assembled: a folder that cannot be listed becomes one
quarantine row naming it, a name that is not UTF-8 quarantines the results below it, and files are
read only through ``read_regular`` (a FIFO or device where a log should be is refused unopened).
"""
from __future__ import annotations

import datetime as dt
import hashlib
import os
import re
from pathlib import Path
from typing import Iterator

from ..errors import SourceError
from ..model import LOAD_RUN_LOG, TPS_ACCURACY_LOG, TPS_DERIVED, Load, Provenance, arrival_for
from ..reference import canonical_scenario, is_other_llm, model_references, parse_benchmark
from .source import KINDS_READ, Item, Quarantined, Skipped, Source, decode_utf8, display, file_kind, one_row, read_regular, warned
from .build import name_is_blank
from .mlperf_logs import derived_tokens_per_sample, parse_accuracy, parse_performance_summary, parse_system_description

DIVISIONS = ("closed", "open", "network")
LOG_LIMIT = 16 * 1024 * 1024
SYSTEM_LIMIT = 1024 * 1024
# Exactly a round folder, as MLCommons names them; "proj-1.2" or "results1.2" name no round.
_ROUND = re.compile(r"v([0-9]+\.[0-9]+)")
_KNOWN_SCENARIOS = ("offline", "server", "interactive", "singlestream", "multistream")
# What the run log's "Scenario :" line must say for each scenario folder. Interactive runs are
# loadgen Server runs with tighter latency bounds, so their logs say Server.
_LOG_SCENARIOS = {"Offline": ("Offline",), "Server": ("Server",), "Interactive": ("Server", "Interactive")}
_MAX_DEPTH = 4
PERF_LOG = "performance/run_1/mlperf_log_summary.txt"
ACCURACY_LOG = "accuracy/accuracy.txt"


class _Unlisted(Exception):
    """A folder of the tree that cannot be listed."""

    def __init__(self, folder: Path, err: OSError):
        super().__init__(folder, err)
        self.folder, self.err = folder, err


def _subfolders(folder: Path, follow_links: bool = True) -> list[Path]:
    try:
        with os.scandir(folder) as listing:
            entries = list(listing)
    except OSError as err:
        raise _Unlisted(folder, err) from None
    found = []
    for e in entries:
        try:
            if e.is_dir(follow_symlinks=follow_links):
                found.append(Path(folder, e.name))
        except OSError:
            continue  # a dangling entry is no folder
    return sorted(found)


def find_submitters(root: Path) -> tuple[list[Path], list[_Unlisted]]:
    """Submitter folders (those holding results/) at or below root, a few levels deep at most, and
    the folders on the way that could not be listed."""
    found, unlisted, frontier = [], [], [root]
    for _ in range(_MAX_DEPTH + 1):
        nxt = []
        for d in frontier:
            if (d / "results").is_dir():
                found.append(d)
                continue
            try:
                nxt.extend(_subfolders(d, follow_links=False))
            except _Unlisted as u:
                unlisted.append(u)
        frontier = nxt
    return sorted(found), unlisted


def _scenario_dirs(sub: Path) -> Iterator[Path | _Unlisted]:
    """Each results/<system>/<benchmark>/<scenario> folder of a submitter, and each folder on the
    way that could not be listed."""
    frontier = [sub / "results"]
    for _ in range(3):
        deeper = []
        for folder in frontier:
            try:
                deeper.extend(_subfolders(folder))
            except _Unlisted as u:
                yield u
        frontier = deeper
    yield from frontier


def _files_of_interest(root: Path) -> Iterator[Path]:
    for sub in find_submitters(root)[0]:
        try:
            yield from sorted(p for p in (sub / "systems").glob("*.json"))
        except OSError:
            pass
        for scenario_dir in _scenario_dirs(sub):
            if isinstance(scenario_dir, Path):
                yield from (scenario_dir / rel for rel in (PERF_LOG, ACCURACY_LOG))


def tree_identity(root: Path) -> tuple[str, str]:
    """(sha256, date) of a tree in one walk: the digest covers the files this reader uses (path and
    content), so a re-ingest is recognisable; the date, the default retrieval date, is the newest
    modification date among them. A file that cannot be read enters the digest as such; the
    reader quarantines what depends on it."""
    h = hashlib.sha256()
    stamps = []
    for f in _files_of_interest(root):
        try:
            if file_kind(f) != "file":
                continue  # the reader refuses it, unopened
            data = read_regular(f, LOG_LIMIT)
            stamps.append(f.stat().st_mtime)
        except FileNotFoundError:
            continue
        except (OSError, SourceError) as err:
            data = f"unreadable: {getattr(err, 'reason', type(err).__name__)}".encode()
        h.update(os.fsencode(f.relative_to(root)) + b"\0")
        h.update(hashlib.sha256(data).digest())
    newest = max(stamps) if stamps else root.stat().st_mtime
    return h.hexdigest(), dt.date.fromtimestamp(newest).isoformat()


def round_of(path: Path) -> str | None:
    """The round named by the nearest folder called exactly vX.Y at or above ``path``."""
    for part in reversed(path.resolve().parts):
        m = _ROUND.fullmatch(part)
        if m:
            return "v" + m.group(1)
    return None


def read_tree(root: Path, source: Source, round: str | None = None) -> Iterator[Item]:
    submitters, unlisted = find_submitters(root)
    if not submitters and not unlisted:
        raise SourceError("empty_tree", "no <Submitter>/results/ folder found: not an MLCommons submission tree. "
                          + KINDS_READ, display(str(root)))
    for u in unlisted:
        yield _unlisted_item(u, root)
    for sub in submitters:
        division = sub.parent.name.lower()
        round_ = round or round_of(sub)
        systems: dict[str, object] = {}
        for scenario_dir in _scenario_dirs(sub):
            if isinstance(scenario_dir, _Unlisted):
                yield _unlisted_item(scenario_dir, sub.parent.parent)
                continue
            rel = str(scenario_dir.relative_to(sub.parent.parent))  # as the summary's Location
            yield one_row(display(rel), lambda: _scenario_row(sub, scenario_dir, rel, division, round_, source,
                                                              systems))


def _unlisted_item(u: _Unlisted, base: Path) -> Quarantined:
    where = display(str(u.folder.relative_to(base)) if u.folder != base else str(u.folder))
    return Quarantined(where, "unreadable", f"the folder {where} cannot be listed ({u.err.strerror or u.err}): "
                                            "the results below it were not read")


def _scenario_row(sub: Path, scenario_dir: Path, rel: str, division: str, round_: str | None, source: Source,
                  systems: dict) -> Item:
    if display(rel) != rel:
        raise SourceError("not_utf8", f"the folder names in {display(rel)} hold bytes that are not UTF-8: "
                                      "rename the folder to UTF-8 text")
    if division not in DIVISIONS:
        raise SourceError("unknown_division",
                          f"the folder above {sub.name} is {sub.parent.name!r}, not closed/open/network")
    if round_ is None:
        raise SourceError("unknown_round", "no folder named exactly vX.Y (e.g. v5.1) above the tree: give --round")
    return _scenario_item(sub, scenario_dir, rel, division, round_, source, systems)


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

    if not os.path.lexists(scenario_dir / PERF_LOG):
        raise SourceError("missing_performance_log", f"no {PERF_LOG}")
    perf_text, perf = _parse_file(scenario_dir, PERF_LOG, parse_performance_summary)
    expected = _LOG_SCENARIOS[scenario]
    if canonical_scenario(perf.scenario_in_log) not in expected:
        raise SourceError("scenario_mismatch",
                          f"the run log says 'Scenario : {perf.scenario_in_log}' but sits in the {scenario} folder "
                          f"{scenario_dir.name!r}, where it must say {' or '.join(expected)}",
                          f"{PERF_LOG} line {_line_of(perf_text, 'Scenario')}", raw=_excerpt(perf_text, "Scenario"))
    if not perf.valid:
        raise SourceError("invalid_result", "the run log says the result is INVALID: only VALID results are stored",
                          f"{PERF_LOG} line {_line_of(perf_text, 'Result is')}", raw=_excerpt(perf_text, "Result is"))

    tokens_per_sample, tps_basis, tps_where, warnings = None, TPS_ACCURACY_LOG, ACCURACY_LOG, []
    if os.path.lexists(scenario_dir / ACCURACY_LOG):
        _, accuracy = _parse_file(scenario_dir, ACCURACY_LOG, parse_accuracy)
        tokens_per_sample = accuracy.tokens_per_sample
        warnings += [f"{locator}/{ACCURACY_LOG}: {w}" for w in accuracy.warnings]
    if tokens_per_sample is None and model_references()[bench.model].derive_tokens_per_sample:
        # llama3.1-8b's accuracy log has no tokens per sample: derive it from the run's throughputs,
        # labelled derived (it never enters a slack). Another model's missing one stays missing: the
        # summary table states the measured one.
        tokens_per_sample, tps_basis = derived_tokens_per_sample(perf), TPS_DERIVED
        tps_where = f"{PERF_LOG} (tokens/s / samples/s)"

    if perf.tokens_per_s is not None:
        value, unit = perf.tokens_per_s, "tokens/s"
    else:
        value, unit = perf.samples_per_s, "samples/s"
    where = {"value": PERF_LOG, "tps": tps_where}

    system = _system(sub, system_id, systems)
    warnings += [f"{_system_rel(sub, system_id)}: {w}" for w in system.warnings]
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
    return warned(_build(provenance, round_, json_division if json_division in ("closed", "open") else division,
                         suite, availability, system, sub.name, system_id, bench, scenario, value, unit, perf,
                         tokens_per_sample, tps_basis, per_node, where), warnings)


def _build(provenance, round_, division, suite, availability, system, submitter_key, system_id, bench, scenario,
           value, unit, perf, tokens_per_sample, tps_basis, per_node, where):
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
    system_name, corrections = system.system_name, ()
    if name_is_blank(system_name):
        system_name = system_id
        # No "; " in the text: the store joins a row's corrections with it.
        corrections = (f"system name blank in systems/{system_id}.json, taken from the system folder {system_id}",)
    return mlperf_result(
        provenance=provenance, round=round_, division=division, suite=suite, availability=availability,
        submitter=system.submitter or submitter_key, submitter_key=submitter_key,
        system_name=system_name, system_id=system_id, result_id="", bench=bench,
        scenario=scenario, value=value, unit=unit, samples_per_s=perf.samples_per_s,
        tokens_per_sample=tokens_per_sample, tps_basis=tps_basis, load=load,
        accelerator=system.accelerator_model_name, accelerators_per_node=per_node, nodes=system.number_of_nodes,
        framework=system.framework, host_processor=system.host_processor_model_name, raw_system=system.raw_text,
        corrections=corrections, value_where=where["value"], tps_where=where["tps"])


def _parse_file(scenario_dir: Path, rel: str, parse):
    """(text, parsed) of one file of a scenario folder; an error's locator names the file and the line."""
    try:
        text = decode_utf8(read_regular(scenario_dir / rel, LOG_LIMIT, rel), rel)
        return text, parse(text)
    except SourceError as err:
        raise _in_file(err, rel) from None


def _in_file(err: SourceError, rel: str) -> SourceError:
    where = err.locator if err.locator.startswith(rel) else " ".join(x for x in (rel, err.locator) if x)
    return SourceError(err.reason, err.message, where, err.raw)


def _system(sub: Path, system_id: str, cache: dict):
    if system_id not in cache:
        path = sub / "systems" / f"{system_id}.json"
        rel = _system_rel(sub, system_id)
        try:
            if not os.path.lexists(path):
                raise SourceError("missing_system_description",
                                  f"the submitter's systems/ folder has no {system_id}.json describing this system")
            cache[system_id] = parse_system_description(decode_utf8(read_regular(path, SYSTEM_LIMIT, rel), rel))
        except SourceError as err:
            cache[system_id] = _in_file(err, rel)
    found = cache[system_id]
    if isinstance(found, SourceError):
        raise SourceError(found.reason, found.message, found.locator, found.raw)
    return found


def _system_rel(sub: Path, system_id: str) -> str:
    """closed/<Sub>/systems/<id>.json, as the row locators name places."""
    return str((sub / "systems" / f"{system_id}.json").relative_to(sub.parent.parent))


def _line_of(text: str, key: str) -> int:
    """The line number of the first ``key :`` line (spacing around the colon varies)."""
    m = re.search(rf"^[ \t]*{re.escape(key)}[ \t]*:", text, re.MULTILINE)
    return text.count("\n", 0, m.start()) + 1 if m else 1


def _excerpt(text: str, key: str) -> str:
    at = text.find(key)
    return text[max(0, at - 100): at + 200] if at >= 0 else text[:300]
