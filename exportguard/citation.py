"""Footnotes: the MLCommons citation of a result and the conditions a table shares, as fields and
as text.

A table states once what all its rows share (its TableNote) and each mark resolves to a row's
Note; together they hold every field MLCommons' messaging rules require. The fields travel beside
the text, so the guard checks fields and never parses the English back.
"""
from __future__ import annotations

from dataclasses import dataclass

from .caveat import UNVERIFIED_SENTENCE
from .model import RESULT_ID_OFFICIAL, RESULT_ID_PENDING, UNKNOWN, CohortKey, Result, Slack
from .wording import (band_words, load_words, number, own_latency_words, own_load_words, own_run_load_words,
                      own_shape_words, own_tool_words, row_load_words, shape_words, slack_words, tps_words)

SUITE_NAMES = {"datacenter": "MLPerf® Inference: Datacenter", "edge": "MLPerf® Inference: Edge"}

# An own measurement's note opens with this and gives its citation fields under these labels (who
# measured, when, with which tool and version, on which system, at which shape and load, from which
# source). The checker reads the same words (check/evaluate.py), so an own figure is told apart from an
# MLPerf one by its note, and an own note never carries an MLPerf citation.
OWN_NOTE_MARK = "Own measurement (not an MLPerf® result)"
OWN_FIELDS = {"measured by": "Measured by:", "run date": "Run on:", "tool": "Tool:", "system": "System:",
              "shape": "Shape:", "load": "Load:", "source": "Source:"}


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class Note:
    """A footnote a mark resolves to: a result's citation, or the basis of a derived figure."""

    text: str
    citation: Citation | None = None  # set on a result's note
    basis_of: str = ""  # set on a derivation's note: "per accelerator", "cost per million tokens"
    shape_of: str = ""  # the benchmark whose shape a derivation's basis names


@dataclass(frozen=True)
class TableNote:
    """The conditions every figure of a table shares, stated once."""

    text: str
    cohort: CohortKey
    suite: str
    shape: str
    load: str
    band: str


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


def table_note(sample: Result, slack: Slack) -> TableNote:
    if sample.own:
        return own_table_note(sample, slack)
    b = sample.conditions.benchmark
    shape, load, band = shape_words(sample.conditions.shape), load_words(sample), band_basis_words(slack)
    text = (f"{identity_words(sample)}; benchmark {b.benchmark}, {b.scenario} scenario. "
            f"Shape: {shape}. Load: {load}. {band}.")
    return TableNote(text, sample.cohort_key, suite_name(sample) if sample.conditions.identity.mlperf else "",
                     shape, load, band)


def own_table_note(sample: Result, slack: Slack) -> TableNote:
    """What every run of an own cohort shares: model, tool, load and shape class, and the band."""
    b, run, load = sample.conditions.benchmark, sample.conditions.run, sample.conditions.load
    shape = f"shape class {run.shape_class}"
    load_text = own_load_words(b.scenario, run.concurrency, load.target_qps, run.burstiness)
    band = band_basis_words(slack)
    text = (f"{OWN_NOTE_MARK}, unverified: {b.benchmark} measured with {run.tool}. {OWN_FIELDS['shape']} {shape}. "
            f"{OWN_FIELDS['load']} {load_text}. {band}.")
    return TableNote(text, sample.cohort_key, "", shape, load_text, band)


def system_words(result: Result) -> str:
    """'lab-h100: 8 x NVIDIA H100 on 1 node; serving framework vLLM 0.6.3; server settings tp=8', with
    'unknown' for what the user did not state."""
    i, c, run = result.conditions.identity, result.conditions.configuration, result.conditions.run
    stated = (i.system_name, c.accelerator, c.framework, run.server_settings)
    if all(x == UNKNOWN for x in stated) and c.accelerators_total is None and c.nodes is None:
        return "not described (accelerator, count, nodes, serving framework and server settings unknown)"
    count = "unknown number of" if c.accelerators_total is None else f"{c.accelerators_total} x"
    nodes = "unknown number of nodes" if c.nodes is None else f"{c.nodes} node{'s' if c.nodes != 1 else ''}"
    return (f"{i.system_name}: {count} {c.accelerator} on {nodes}; serving framework {c.framework}; "
            f"server settings {run.server_settings}")


def own_row_note(result: Result) -> Note:
    """An own run's footnote: who measured, when, with which tool and version, on which system, at
    which shape and load, and its source."""
    i, run, p = result.conditions.identity, result.conditions.run, result.conditions.provenance
    f = OWN_FIELDS
    parts = [f"{OWN_NOTE_MARK}, unverified",
             f"{f['measured by']} {i.submitter}",
             f"{f['run date']} {run.run_date}",
             f"{f['tool']} {own_tool_words(result)}",
             f"{f['system']} {system_words(result)}",
             f"{f['shape']} {own_shape_words(result)}",
             f"{f['load']} {own_run_load_words(result)}; {own_latency_words(result)}",
             f"{f['source']} {p.source_url}, ingested {p.retrieved_on}"]
    return Note(". ".join(parts) + ".", citation=Citation.of(result))


def row_note(result: Result) -> Note:
    if result.own:
        return own_row_note(result)
    i, c = result.conditions.identity, result.conditions.configuration
    citation = Citation.of(result)
    # The suite, round, division, benchmark and scenario are the table's, stated once in its TableNote.
    parts = [
        f"{i.submitter}, {i.system_name}",
        f"{result_id_words(result)}, {verified_words(result)}",
        f"{c.accelerators_total} x {c.accelerator} on {c.nodes} node{'s' if c.nodes != 1 else ''}; {c.framework}",
        citation.tokens_per_sample,
    ]
    if citation.load:
        parts.append(citation.load)
    if result.corrections:
        parts.append("corrected: " + "; ".join(result.corrections))
    parts.append(f"source {citation.source}, retrieved {citation.retrieved_on}")
    # Each part is a sentence: our words start with a capital (a name, the first part, stays as written).
    return Note(". ".join([parts[0], *(p[:1].upper() + p[1:] for p in parts[1:])]) + ".", citation=citation)
