"""CSV: one row per figure, every row carrying its conditions, band and citation columns.

A CSV cannot hold a manifest, so export writes it beside the file (<name>.csv.manifest.json).
Marks are lettered per table, as in every format, and each row's notes column resolves them.
Cells that a spreadsheet would run as a formula are neutralised with a leading apostrophe.
"""
from __future__ import annotations

import csv
import functools
from pathlib import Path

from ..citation import result_id_words
from ..sanitize import visible
from ..report import BesideSection, BoundFigure, ChartSection, KpiSection, Report, TableSection, TextSection
from ..wording import band_words, load_text, own_shape_words, shape_words, tps_words
from .panels import beside_parts
from .walk import Lettering, Walk, walk

EMBEDS_MANIFEST = False
SECTION_KINDS = ("table", "chart", "kpi", "text", "beside")

HEADER = ("section", "table", "figure", "unit", "band", "marks", "notes", "verified", "derived", "submitter",
          "system", "accelerator", "accelerators_total", "round", "division", "availability", "benchmark",
          "scenario", "result_id", "tokens_per_sample", "shape", "load", "citation", "source_url", "retrieved_on",
          "caveat", "trademark_legend")
FIGURE_COLUMN = HEADER.index("figure") + 1
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "|", "%")


@functools.lru_cache(maxsize=65536)
def safe_text(value) -> str:
    """Text that no spreadsheet will evaluate and that steers nothing: controls shown (sanitize.visible),
    a leading formula character escaped with '."""
    value = visible(str(value))
    return "'" + value if value.startswith(_FORMULA_START) else value


class CsvRenderer:
    format = "csv"

    def __init__(self, f):
        self.writer = csv.writer(f)
        self.row_no = 1

    def front(self, doc: Walk) -> None:
        self.writer.writerow(HEADER)

    def table(self, doc: Walk, n: int, section: TableSection | ChartSection) -> None:
        part = doc.part(n, section.title, section.table)
        for _, _, fig in part.figures():
            self._figure(doc, n, section.title, fig, section.table.table_note.text, part.lettering)

    chart = table

    def kpi(self, doc: Walk, n: int, section: KpiSection) -> None:
        self._figure(doc, n, section.title, section.figure, section.table_note.text, doc.kpi_part(section))

    def text(self, doc: Walk, n: int, section: TextSection) -> None:
        pass  # a CSV holds figures, one per row; free text has no row to go in

    def beside(self, doc: Walk, n: int, section: BesideSection) -> None:
        """The MLPerf panel's rows, then the own panel's (marks lettered across both), then one row per
        line of the shape panel: its shape and load columns hold the numbers, its citation column the
        sentence on why throughput does not transfer across shapes."""
        mlperf, own, _ = beside_parts(n, section)
        for part in (mlperf, *own):
            for _, _, fig in part.figures():
                self._figure(doc, n, part.title, fig, part.table.table_note.text, part.lettering)
        report = doc.report
        for row in (section.shape.mlperf, *section.shape.own):
            self.row_no += 1
            cells = dict(section=n, table=f"{section.title}: shape panel, {row.label}", shape=row.shape, load=row.load,
                         citation=section.shape.sentence, caveat=report.caveat_short, trademark_legend=report.legend)
            self.writer.writerow([safe_text(cells.get(h, "")) for h in HEADER])

    def back(self, doc: Walk) -> dict:
        return doc.manifest()

    def _figure(self, doc: Walk, n: int, title: str, fig: BoundFigure, table_note: str, lettering: Lettering):
        self.row_no += 1
        text = lettering.text(fig)
        r, report = fig.result, doc.report
        i, b, c = r.conditions.identity, r.conditions.benchmark, r.conditions.configuration
        shape = own_shape_words(r) if r.own else shape_words(r.conditions.shape)
        notes = " ".join(f"[{m}] {note.text}" for m, note in zip(lettering.letters(fig), fig.notes))
        row = (n, title, text, fig.unit_text, band_words(fig.slack), " ".join(lettering.letters(fig)), notes,
               i.verified, fig.derivation.label if fig.derivation else "", i.submitter, i.system_name, c.accelerator,
               "unknown" if c.accelerators_total is None else c.accelerators_total, i.round, i.division,
               i.availability, b.benchmark, b.scenario, result_id_words(r), tps_words(r.conditions.shape), shape,
               load_text(r),
               table_note, r.conditions.provenance.source_url, r.conditions.provenance.retrieved_on,
               report.caveat_short, report.legend)
        self.writer.writerow([safe_text(v) for v in row])
        doc.place(f"row {self.row_no}, column {FIGURE_COLUMN}", fig, lettering, safe_text(text))


def render(report: Report, path: Path, **_options) -> dict:
    with open(path, "w", newline="", encoding="utf-8") as f:
        return walk(report, CsvRenderer(f))
