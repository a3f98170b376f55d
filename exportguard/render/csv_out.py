"""CSV: one row per figure, every row carrying its conditions, band and citation columns.

A CSV cannot hold a manifest, so export writes it beside the file (<name>.csv.manifest.json).
Cells that a spreadsheet would run as a formula are neutralised with a leading apostrophe.
"""
from __future__ import annotations

import csv
from pathlib import Path

from .. import manifest as manifest_mod
from ..citation import identity_words, result_id_words, shape_words, tps_words
from ..report import ChartSection, KpiSection, Report, TableSection

EMBEDS_MANIFEST = False

HEADER = ("section", "table", "figure", "unit", "band", "marks", "notes", "verified", "derived", "submitter",
          "system", "accelerator", "accelerators_total", "round", "division", "availability", "benchmark",
          "scenario", "result_id", "tokens_per_sample", "shape", "load", "citation", "source_url", "retrieved_on",
          "caveat", "trademark_legend")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "|", "%")


def safe_text(value: str) -> str:
    """Text that no spreadsheet will evaluate: a leading formula character is escaped with '."""
    value = "".join(ch if ch.isprintable() or ch in "\n" else " " for ch in str(value))
    return "'" + value if value.startswith(_FORMULA_START) else value


def render(report: Report, path: Path, **_options) -> dict:
    placements = []
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(HEADER)
        row_no = 1
        for n, section in enumerate(report.sections, 1):
            if isinstance(section, (TableSection, ChartSection)):
                table = section.table
                notes = {x.mark: x.text for x in table.notes}
                entries = [(fig, table.table_note, notes) for _, _, fig in table.figures()]
            elif isinstance(section, KpiSection):
                entries = [(section.figure, section.table_note, {x.mark: x.text for x in section.notes})]
            else:
                continue
            for fig, table_note, notes in entries:
                row_no += 1
                writer.writerow(safe_text(v) for v in _row(report, n, section.title, fig, table_note, notes))
                placements.append((f"row {row_no}", fig))
    return manifest_mod.build(report, placements, "csv")


def _row(report, n, title, fig, table_note, notes):
    r = fig.result
    i, b, c = r.conditions.identity, r.conditions.benchmark, r.conditions.configuration
    marked = " ".join(f"[{m}] {notes[m]}" for m in fig.marks)
    return (n, title, fig.text(), fig.unit_text, fig.band_text(), " ".join(fig.marks), marked,
            i.verified, fig.derivation.label if fig.derivation else "", i.submitter, i.system_name, c.accelerator,
            c.accelerators_total, i.round, i.division, i.availability, b.benchmark, b.scenario,
            result_id_words(r), tps_words(r), shape_words(r), table_note, identity_words(r),
            r.conditions.provenance.source_url, r.conditions.provenance.retrieved_on, report.caveat_short,
            report.legend)
