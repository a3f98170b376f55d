"""The words a stored row may use (source kinds, units, scenarios, load kinds, bases, ...), checked
when the store writes a row rather than by CHECK constraints in the database.

Why not in the DDL: a constraint that lists a vocabulary makes every new importer, scenario or unit a
schema change, and every schema change a migration of every user's store. The database keeps the
invariants that never grow (NOT NULL, value > 0, an official result ID exactly when the state says
so, ...); the lists live here and in model.py, and grow with the code. The vocabularies are read from
model.py at each call, so a new word there is known at once.

A broken rule is named as the constraint it replaced was ("unit_known"), so a refused row is
quarantined in the same words as before.
"""
from __future__ import annotations

from typing import Mapping

from . import model

# The source kinds of MLCommons publications: the rows of origin 'mlcommons' come from these alone.
MLCOMMONS_SOURCE_KINDS = ("mlperf_tree", "mlperf_summary")


def _rules(row: Mapping):
    """(name, holds) for each vocabulary rule; lazily, so that the first broken one stops the check."""
    mlperf = bool(row["mlperf"])
    own = row["origin"] == "own"
    yield "origin_known", lambda: row["origin"] in model.ORIGINS
    yield "source_kind_known", lambda: row["source_kind"] in model.SOURCE_KINDS
    yield "origin_matches_source", lambda: (row["origin"] == "mlcommons") == (row["source_kind"] in MLCOMMONS_SOURCE_KINDS)
    yield "tool_files_are_own", lambda: own or row["source_kind"] not in model.OWN_SOURCE_KINDS
    yield "unit_known", lambda: row["unit"] in model.UNITS
    # An own run is never named with an MLPerf scenario: its scenario holds its load's kind.
    yield "scenario_known", lambda: row["scenario"] in (model.SCENARIOS if mlperf else model.OWN_LOAD_KINDS)
    yield "division_known", lambda: row["division"] in model.DIVISIONS
    yield "availability_known", lambda: row["availability"] in model.AVAILABILITIES
    yield "suite_known", lambda: row["suite"] in model.SUITES
    yield "verified_known", lambda: row["verified"] in model.VERIFIED
    yield "result_id_state_known", lambda: row["result_id_state"] in model.RESULT_ID_STATES
    yield "tps_basis_known", lambda: row["tokens_per_sample_basis"] in model.TPS_BASES
    yield "load_basis_known", lambda: row["load_basis"] in model.LOAD_BASES
    yield "arrival_known", lambda: not mlperf or row["arrival_process"] in model.ARRIVAL_PROCESSES
    # An own run's shape is measured by its tool and its load is the tool's (or the CSV's); an MLPerf
    # row never claims either.
    yield "own_run_bases", lambda: (
        (row["tokens_per_sample_basis"] == model.TPS_OWN and row["load_basis"] in (model.LOAD_TOOL, model.LOAD_CSV))
        if not mlperf else
        (row["tokens_per_sample_basis"] != model.TPS_OWN and row["load_basis"] != model.LOAD_TOOL))


def broken_rule(row: Mapping) -> str | None:
    """The name of the first vocabulary rule that ``row`` (a results row, as the store writes it)
    breaks, or None."""
    for name, holds in _rules(row):
        if not holds():
            return name
    return None
