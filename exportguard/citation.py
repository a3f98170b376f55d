"""Footnotes: the MLCommons citation of a result and the conditions a table shares, as fields and
as text.

A table states once what all its rows share (its TableNote) and each mark resolves to a row's
Note; together they hold every field MLCommons' messaging rules require. The fields travel beside
the text, so the guard checks fields and never parses the English back.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Iterable

from .caveat import UNVERIFIED_SENTENCE
from .sanitize import shorten
from .model import RESULT_ID_OFFICIAL, RESULT_ID_PENDING, UNKNOWN, CohortKey, Result, Slack
from .wording import (OWN_FIELDS, OWN_NOTE_MARK, band_words, load_words, number, own_latency_words,
                      own_load_words, own_run_load_words, own_shape_words, own_tool_words, row_latency_words,
                      row_load_words, shape_words, slack_words, tps_note_words, tps_words)

SUITE_NAMES = {"datacenter": "MLPerf® Inference: Datacenter", "edge": "MLPerf® Inference: Edge"}

@dataclass(frozen=True, slots=True)  # one or more per figure: no instance dict
class Citation:
    """What a result's footnote must give (suite, version, division, benchmark, scenario, result ID,
    verified status, source and retrieval date), plus its shape and load."""

    mlperf: bool
    suite: str
    round: str
    division: str
    benchmark: str
    scenario: str
    result_id: str  # "5.1-0042" when official, "" otherwise
    result_id_state: str
    verified: bool
    tokens_per_sample: str
    load: str
    source: str
    retrieved_on: str

    @classmethod
    def of(cls, result: Result) -> "Citation":
        i, b, p = result.conditions.identity, result.conditions.benchmark, result.conditions.provenance
        return cls(i.mlperf, suite_name(result) if i.mlperf else "", i.round, i.division, b.benchmark, b.scenario,
                   i.result_id, i.result_id_state, i.verified == "verified", tps_words(result.conditions.shape),
                   row_load_words(result), p.source_url, p.retrieved_on)


@dataclass(frozen=True, slots=True)  # one or more per figure: no instance dict
class Note:
    """A footnote a mark resolves to: a result's citation, or the basis of a derived figure.

    ``text`` is what stands visibly beside the figures: only what differs from row to row, since its
    table note states what they share. ``detail`` is the row's whole footnote on its own (framework,
    results-folder URL, retrieval date, the full unverified sentence), for the places with room for
    it: speaker notes, cell comments, the manifest. ``full`` is the one to use there."""

    text: str
    citation: Citation | None = None  # set on a result's note
    basis_of: str = ""  # set on a derivation's note: "per accelerator", "cost per million tokens"
    shape_of: str = ""  # the benchmark whose shape a derivation's basis names
    detail: str = ""  # the whole per-row footnote; "" when ``text`` is already all of it

    @property
    def full(self) -> str:
        return self.detail or self.text

    def __hash__(self) -> int:
        # Equal notes have equal texts, so this agrees with ==; it leaves out the citation, whose
        # thirteen fields cost more to hash than the texts that already tell notes apart, and a note is
        # looked up by its marks' letterings several times per figure.
        return hash((self.text, self.detail, self.basis_of))


@dataclass(frozen=True)
class Shared:
    """What every row of one table shares beyond its cohort's conditions, worked out from its rows,
    so that the table note states it once and the row notes leave it out. Nothing shared (the
    default) leaves every row note whole."""

    repository: str = ""  # the results repository every row's source lies in ('' when they differ)
    retrieved_on: str = ""  # the one retrieval date of every row ('' when they differ or no repository)
    row_load: str | None = None  # every row's own load words, when they are one ('' for Offline)
    corrections: tuple[str, ...] = ()  # corrections made to every row alike
    unverified: bool = False  # some row is unverified: the table note gives the sentence once
    pending: bool = False  # some row's result ID is pending: the table note says what that means
    latency_definitions: str = ""  # own runs: the one tool definition of TTFT and TPOT of every row
    load_kind: str = ""  # own runs: the one load kind of every row ('closed loop, 8 requests in flight')
    shown: frozenset = frozenset()  # the table's columns: what every row shows in its own cells, its note need not
    availability: str = ""  # the sentence on the one availability category of every MLPerf row ('' when they differ)

    @classmethod
    def of(cls, results: Iterable[Result], shown: Iterable[str] = ()) -> "Shared":
        """``shown``: the table's column keys. What the row's cells show (submitter and system, which
        MLCommons asks the table to name; accelerators and nodes; tokens per sample) its note leaves
        to them; the result ID stays in the note, where the citation rules want it."""
        results, shown = list(results), frozenset(shown)
        if not results:
            return cls(shown=shown)
        repos = {repository_of(r) for r in results}
        dates = {r.conditions.provenance.retrieved_on for r in results}
        repository = repos.pop() if len(repos) == 1 else ""
        # a row's own load and corrections are the table's only when there are rows to share them
        loads = {row_load_words(r) for r in results if not r.own} if len(results) > 1 else set()
        common = [c for c in results[0].corrections if all(c in r.corrections for r in results[1:])] \
            if len(results) > 1 else []
        own = all(r.own for r in results)
        definitions = {r.conditions.run.latency_definitions for r in results} if own else set()
        kinds = {own_load_kind(r) for r in results} if own else set()
        availability = {r.conditions.identity.availability for r in results if not r.own}
        return cls(repository, dates.pop() if repository and len(dates) == 1 else "",
                   loads.pop() if len(loads) == 1 and all(not r.own for r in results) else None,
                   tuple(common),
                   any(r.conditions.identity.verified != "verified" for r in results if not r.own),
                   any(r.conditions.identity.result_id_state == RESULT_ID_PENDING for r in results if not r.own),
                   definitions.pop() if len(definitions) == 1 else "",
                   kinds.pop() if len(kinds) == 1 else "", shown,
                   availability_words(availability.pop(), len(results)) if len(availability) == 1 and not own else "")

    def covers_source(self, result: Result) -> bool:
        """The table note gives this row's source and retrieval date: the row need not."""
        p = result.conditions.provenance
        return bool(self.repository) and repository_of(result) == self.repository and p.retrieved_on == self.retrieved_on


@dataclass(frozen=True)
class TableNote:
    """The conditions every figure of a table shares, stated once."""

    text: str
    cohort: CohortKey
    suite: str
    shape: str
    load: str
    band: str
    shared: Shared = Shared()  # what the rows share beyond the cohort, said in ``text`` and left out of row notes


# A results tree's layout: <repository>/<division>/<submitter>/results/<system>/... (GitHub shows it
# under /tree/<branch>/, which the repository's display leaves out).
_GITHUB_TREE = re.compile(r"^(?P<repo>(?:https?://)?github\.com/[^/]+/[^/]+)/tree/[^/]+$")


def repository_of(result: Result) -> str:
    """The results repository a source lies in: the URL up to its division folder ('.../closed/'),
    or the whole URL when it names no folder."""
    url, division = result.conditions.provenance.source_url, result.conditions.identity.division
    cut = url.find(f"/{division}/") if division else -1
    return url[:cut] if cut > 0 else url


@functools.lru_cache(maxsize=256)  # one repository per table, asked for each of its figures
def repository_words(repository: str) -> str:
    """'github.com/mlcommons/inference_results_v5.1' for 'https://github.com/mlcommons/inference_results_v5.1/tree/main'."""
    m = _GITHUB_TREE.match(repository)
    text = m.group("repo") if m else repository
    return re.sub(r"^https?://", "", text)


def suite_name(result: Result) -> str:
    return SUITE_NAMES.get(result.conditions.identity.suite, "MLPerf® Inference")


def identity_words(result: Result) -> str:
    i = result.conditions.identity
    if not i.mlperf:
        return f"{OWN_NOTE_MARK}, measured by {i.submitter}"
    return f"{suite_name(result)} {i.round}, {i.division.capitalize()} division"


def result_id_words(result: Result) -> str:
    i = result.conditions.identity
    if i.result_id_state == RESULT_ID_OFFICIAL:
        return f"result {i.result_id}"
    if i.result_id_state == RESULT_ID_PENDING:
        return "result ID pending (not matched to a published MLCommons summary)"
    return "no MLPerf result ID"


def result_id_cell(result: Result) -> str:
    """The short form for a table column: '5.1-0042' or '(pending)'."""
    i = result.conditions.identity
    return i.result_id or f"({i.result_id_state})"


def verified_words(result: Result) -> str:
    i = result.conditions.identity
    return "verified" if i.verified == "verified" else f"unverified. {UNVERIFIED_SENTENCE}"


def band_basis_words(slack: Slack) -> str:
    """The sentence a table note gives its band: where it comes from, or why there is none."""
    if slack.basis == "repeats":
        if not slack.estimable:
            return (f"No band ({slack.reason}): a band needs two or more runs of one configuration on a described "
                    "system")
        return (f"Band {band_words(slack)}: half the run-to-run spread of {slack_words(slack)} (output tokens/s of "
                f"{slack.with_tps} repeated runs of one configuration, from {number(slack.tps_min, 1)} to "
                f"{number(slack.tps_max, 1)})")
    none_verified = " (the cohort has no verified result)" if slack.unverified_only else ""
    if not slack.estimable:
        return f"No band: {band_words(slack)}{none_verified}"
    over = "unverified results" if slack.unverified_only else "verified results"
    return (f"Band {band_words(slack)}: half the cohort's shape slack of {slack_words(slack)} "
            f"(tokens per sample {number(slack.tps_min, 1)} to {number(slack.tps_max, 1)} over "
            f"{slack.with_tps} {over}{none_verified})")


def table_note(sample: Result, slack: Slack, shared: Shared = Shared()) -> TableNote:
    """What every figure of a table shares: its cohort's conditions and band, and what ``shared``
    found its rows to have in common (their results repository and retrieval date, their load, the
    corrections made to all of them, and what 'unverified' and 'pending' mean, once)."""
    if sample.own:
        return own_table_note(sample, slack, shared)
    b = sample.conditions.benchmark
    shape, load, band = shape_words(sample.conditions.shape), load_words(sample), band_basis_words(slack)
    row_load = f"; {shared.row_load}" if shared.row_load else ""
    text = (f"{identity_words(sample)}; benchmark {b.benchmark}, {b.scenario} scenario. "
            f"Shape: {shape}. Load: {load}{row_load}. {band}.")
    first, extra = [], []
    # one repository and one date: said first, so that a page that wraps the note (PDF) keeps 'retrieved'
    # and its date on the note's first line, where a reader of the page text finds them together
    if shared.retrieved_on:
        # (each row's results folder is in its note's detail: the speaker notes, the cell comment, the manifest)
        first.append(f"Sources retrieved {shared.retrieved_on} from {repository_words(shared.repository)}.")
    # a difference in availability shows in its column (guard._MUST_SHOW); one category, where no column
    # shows it, is said once
    if shared.availability and "availability" not in shared.shown:
        extra.append(shared.availability)
    if shared.corrections:
        extra.append(_sentence(f"corrected in every row: {'; '.join(shared.corrections)}"))
    if shared.pending:
        extra.append("Result ID pending: not matched to a published MLCommons summary.")
    if shared.unverified:
        extra.append(f"Results marked unverified: {UNVERIFIED_SENTENCE}")
    text = " ".join([*first, text, *extra])
    return TableNote(text, sample.cohort_key, suite_name(sample) if sample.conditions.identity.mlperf else "",
                     shape, load, band, shared)


# MLPerf's availability categories, as a sentence about the systems of a table
_AVAILABILITY = {"available": "is available", "preview": "is in preview (not yet available)",
                 "rdi": "is research, development or internal (RDI)", "n/a": "has no stated availability category"}


def availability_words(category: str, systems: int) -> str:
    """'Every system is available.' ('The system is ...' for one): a category that no column shows."""
    return f"{'Every' if systems > 1 else 'The'} system {_AVAILABILITY.get(category, f'is {category}')}."


def _sentence(part: str) -> str:
    return part[:1].upper() + part[1:] + ("" if part.endswith(".") else ".")


def own_table_note(sample: Result, slack: Slack, shared: Shared = Shared()) -> TableNote:
    """What every run of an own cohort shares: model, tool, load and shape class, and the band; and
    the tool's definition of its latencies, when every row has the one."""
    b, run = sample.conditions.benchmark, sample.conditions.run
    shape = f"shape class {run.shape_class}"
    load_text = own_load_kind(sample)
    band = band_basis_words(slack)
    text = (f"{OWN_NOTE_MARK}, unverified: {b.benchmark} measured with {run.tool}. {OWN_FIELDS['shape']} {shape}. "
            f"{OWN_FIELDS['load']} {load_text}. {band}.")
    if shared.latency_definitions:
        text += f" Latencies as measured ({shared.latency_definitions})."
    return TableNote(text, sample.cohort_key, "", shape, load_text, band, shared)


def own_load_kind(result: Result) -> str:
    """An own run's load as its cohort shares it: 'closed loop, 8 requests in flight'."""
    run, load = result.conditions.run, result.conditions.load
    return own_load_words(result.conditions.benchmark.scenario, run.concurrency, load.target_qps, run.burstiness)


def system_words(result: Result, short: bool = False) -> str:
    """'lab-h100: 8 x NVIDIA H100 on 1 node; serving framework vLLM 0.6.3; server settings tp=8', with
    'unknown' for what the user did not state; ``short``: 'not described' alone for a run with no
    system description (the whole list of what is unknown goes to the note's detail)."""
    i, c, run = result.conditions.identity, result.conditions.configuration, result.conditions.run
    stated = (i.system_name, c.accelerator, c.framework, run.server_settings)
    if all(x == UNKNOWN for x in stated) and c.accelerators_total is None and c.nodes is None:
        return "not described" if short else \
            "not described (accelerator, count, nodes, serving framework and server settings unknown)"
    count = "unknown number of" if c.accelerators_total is None else f"{c.accelerators_total} x"
    nodes = "unknown number of nodes" if c.nodes is None else f"{c.nodes} node{'s' if c.nodes != 1 else ''}"
    return (f"{i.system_name}: {count} {c.accelerator} on {nodes}; serving framework {c.framework}; "
            f"server settings {run.server_settings}")


def source_name(source: str) -> str:
    """A local result file as a note shows it: its folder and name ('poisson0.3/profile_export_aiperf.json',
    since tools give every run's file the same name); a URL or a name as given. The whole path stays
    in the note's detail, the speaker notes and the manifest."""
    if source.startswith(("file:", "/")):
        path = PurePosixPath(source.removeprefix("file:"))
        return "/".join(path.parts[-2:]) if len(path.parts) > 2 else source
    return source


def _public_url(provenance) -> str | None:
    """The source's URL where it is public (an MLCommons publication), else None (a local file)."""
    url = provenance.source_url
    return url if url and not url.startswith("file:") else None


def cited_source(provenance) -> str:
    """A source as a data column states it: an MLCommons publication's public URL, a local file by its
    folder and name (source_name). Never the local path: where the data sits is the exporter's
    machine, not the reader's; the whole path is in the manifest."""
    return _public_url(provenance) or source_name(provenance.source_url or provenance.source_locator or
                                                  provenance.source_path)


def source_words(result: Result) -> str:
    """Where a result comes from, as a Sources table cites it for a reader: the public URL of an
    MLCommons publication; an own run's tool, result file and run date; else the file's name. No
    local path: the whole path is in the manifest."""
    p = result.conditions.provenance
    name = cited_source(p)
    if _public_url(p):
        return name
    if result.own:
        run = result.conditions.run
        return f"{run.tool} result file {name}, run on {run.run_date}"
    return f"file {name}"


# The day MLCommons published each MLPerf Inference round's results (exportguard/data/examples/SOURCES.md
# for v5.1): what a deliverable's first page cites as its data's publication date.
PUBLISHED = {"v4.0": "2024-03-27", "v4.1": "2024-08-28", "v5.0": "2025-04-02", "v5.1": "2025-09-09"}


def data_dates_words(results) -> str:
    """What the first slide or page says of its data: 'Data: MLPerf® Inference v5.1 results published by
    MLCommons on 2025-09-09, retrieved 2025-09-09; own runs of 2026-12-01 ...' ('' without results)."""
    retrieved: dict[str, set] = {}
    runs: set = set()
    for r in results:
        if r.own:
            runs.add(r.conditions.run.run_date)
        else:
            retrieved.setdefault(r.conditions.identity.round, set()).add(r.conditions.provenance.retrieved_on)
    parts = []
    for rnd in sorted(retrieved):
        published = f"published by MLCommons on {PUBLISHED[rnd]}" if rnd in PUBLISHED else "publication date not recorded"
        parts.append(f"MLPerf® Inference {rnd} results {published}, retrieved {_date_span(retrieved[rnd])}")
    if runs:
        parts.append(f"own runs of {_date_span(runs)}")
    return f"Data: {'; '.join(parts)}." if parts else ""


def _date_span(dates: set) -> str:
    ordered = sorted(dates)
    return ordered[0] if len(ordered) == 1 else f"{ordered[0]} to {ordered[-1]}"


NOTE_NAME_LIMIT = 80  # characters of one name in an own run's visible note (sanitize.shorten marks the cut)


def own_row_note(result: Result, shared: Shared = Shared()) -> Note:
    """An own run's footnote: who measured, when, with which tool and version, on which system, at
    which shape and load, and its source. Every field stays in the visible text under its label, in
    its short form: what the own table note states for every run (the load's kind and the tool's
    latency definitions) is left out, the tool's own load words, the list of what an undescribed
    system leaves unknown and the source file's folder go to ``detail``, which has all of it."""
    i, run, p = result.conditions.identity, result.conditions.run, result.conditions.provenance
    f = OWN_FIELDS
    latency = own_latency_words(result)
    head = [f"{OWN_NOTE_MARK}, unverified", f"{f['measured by']} {shorten(i.submitter, NOTE_NAME_LIMIT)}",
            f"{f['run date']} {run.run_date}", f"{f['tool']} {own_tool_words(result)}"]
    # A long name is shortened, with a marker, in the note and its detail, so that the citation (run date,
    # tool, system, source) always fits where a format bounds a note (a deck's speaker notes); the
    # manifest's conditions keep every name as stored.
    part = 3 * NOTE_NAME_LIMIT
    detail = ". ".join(head + [f"{f['system']} {shorten(system_words(result), part)}",
                               f"{f['shape']} {shorten(own_shape_words(result), part)}",
                               f"{f['load']} {shorten(own_run_load_words(result), part)}; {latency}",
                               f"{f['source']} {source_name(p.source_url)}, ingested {p.retrieved_on}"]) + "."
    if shared.latency_definitions and latency.endswith(f" ({shared.latency_definitions})"):
        latency = latency[:-len(shared.latency_definitions) - 3]
    load = own_run_load_words(result, detail=False)
    if shared.load_kind and load.startswith(shared.load_kind):  # the table note gives the kind; the row the rest
        load = load[len(shared.load_kind):].lstrip(" ;") or load
    text = ". ".join(head + [f"{f['system']} {shorten(system_words(result, short=True), part)}",
                             f"{f['shape']} {shorten(own_shape_words(result, short=True), part)}",
                             f"{f['load']} {shorten(load, part)}; {latency}",
                             f"{f['source']} {source_name(p.source_url)}, ingested {p.retrieved_on}"]) + "."
    return Note(text, citation=Citation.of(result), detail=detail if detail != text else "")


def _unshown_scale(c, cells: frozenset, scale: str, system: str = "") -> list[str]:
    """Of a row's scale, what its cells leave out: the accelerator's name beside an Accelerators
    column (unless the system's name, shown beside it, gives it), the count and nodes beside an
    Accelerator column, all of it beside neither."""
    if {"accelerator", "accelerators"} <= cells:
        return []
    if "accelerators" in cells:
        if "system" in cells and names_accelerator(system, c.accelerator):
            return []  # "Dell PowerEdge XE9680L (8x B200-SXM-180GB, TensorRT)" already names it
        return [f"{'accelerators' if '(x' in c.accelerator else 'accelerator'}: {c.accelerator}"]
    if "accelerator" in cells or ("system" in cells and names_accelerator(system, c.accelerator)):
        # beside an Accelerator column, or a shown system name that gives the model: the count and nodes
        return [f"{c.accelerators_total} accelerators on {c.nodes} node{'s' if c.nodes != 1 else ''}"]
    return [scale]


def names_accelerator(system: str, accelerator: str) -> bool:
    """Whether a system's name gives its accelerator's model whole: the accelerator's words from the
    first that holds a digit on (the vendor and brand words before it left out), compared without
    case, spaces or punctuation. 'NVIDIA B200-SXM-180GB' is named by 'NVIDIA DGX B200 (8x
    B200-SXM-180GB, TensorRT)'; 'AMD Instinct MI300X 192GB HBM3' is not by '(8x MI300X-192GB)'."""
    words = accelerator.split()
    while words and not any(ch.isdigit() for ch in words[0]):
        words = words[1:]
    model = _squeezed(" ".join(words))
    return len(model) >= 4 and model in _squeezed(system)


def _squeezed(text: str) -> str:
    return re.sub(r"[^0-9a-z]", "", text.lower())


def row_note(result: Result, shared: Shared = Shared()) -> Note:
    """A result's footnote: what differs from row to row (submitter and system where the row's cells
    do not show them, result ID and
    verified status, accelerators and nodes, tokens per sample, its own load, its corrections, and
    its source where the table note does not give it) as ``text``; the whole of it, framework,
    results folder and the full unverified sentence included, as ``detail``. With nothing
    ``shared`` the text gives every citation field the table note does not."""
    if result.own:
        return own_row_note(result, shared)
    i, c = result.conditions.identity, result.conditions.configuration
    citation = Citation.of(result)
    # The suite, round, division, benchmark and scenario are the table's, stated once in its TableNote.
    scale = f"{c.accelerators_total} x {c.accelerator} on {c.nodes} node{'s' if c.nodes != 1 else ''}"
    result_id, verified = result_id_words(result), verified_words(result)
    full_id = f"{result_id}, {verified}"
    # 'pending' and 'unverified' are explained once by the table note when it says what they mean
    pending = shared.pending and i.result_id_state == RESULT_ID_PENDING
    unverified = shared.unverified and i.verified != "verified"
    shown_id = (f"{'result ID pending' if pending else result_id}, {'unverified' if unverified else verified}"
                if pending or unverified else full_id)
    source = f"source {citation.source}, retrieved {citation.retrieved_on}"
    corrections = [x for x in result.corrections if x not in shared.corrections] if result.corrections else ()
    who = f"{i.submitter}, {i.system_name}"
    detail = [who, full_id, f"{scale}; {c.framework}", citation.tokens_per_sample]
    # a name opens a note as written; our own words, where the row's cells give the name, with a capital
    cells = shared.shown
    shown = [who, shown_id] if not {"submitter", "system"} <= cells else [shown_id[:1].upper() + shown_id[1:]]
    shown += _unshown_scale(c, cells, scale, i.system_name)
    shown += [] if "tokens_per_sample" in cells else [tps_note_words(result.conditions.shape)]
    if citation.load:
        detail.append(citation.load)
        # a target rate the row's own column shows is left to it; its measured latencies stay
        load = row_latency_words(result) if "target_qps" in cells else citation.load
        if load and citation.load != shared.row_load:
            shown.append(load)
    if result.corrections:
        detail.append("corrected: " + "; ".join(result.corrections))
    if corrections:
        shown.append("corrected: " + "; ".join(corrections))
    detail.append(source)
    if not shared.covers_source(result):
        shown.append(source)
    return Note(_sentences(shown), citation=citation, detail=_sentences(detail))


def _sentences(parts: list[str]) -> str:
    """Each part a sentence: our words start with a capital (a name, the first part, stays as written);
    a part that ends a sentence itself ("... by MLCommons Association.", "Acme Inc.") gets no second
    period."""
    parts = [p[:-1] if p.endswith(".") else p for p in parts]
    return ". ".join([parts[0]] + [p[:1].upper() + p[1:] for p in parts[1:]]) + "."
