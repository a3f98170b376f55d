"""CSV: one row per figure, every row carrying its conditions, band and citation columns, and the
numbers beside the words (docs/csv.md lists the columns).

Text columns hold what every format shows (``figure`` is '101,527 tok/s ±5.4% [a]', ``rank`` is
'3 (tie 2-5)'); numeric columns hold plain numbers a spreadsheet sorts and computes with (``value``,
``band_low``, ``band_high``, ``rank_from``, ``rank_to``, ``tokens_per_sample``,
``accelerators_total``, ``nodes``), written with a '.' decimal point and no thousands separator,
empty where there is none. The file is UTF-8 with a byte-order mark, so that Excel reads '±' as
'±'. A CSV cannot hold a manifest, so export writes it beside the file (<name>.csv.manifest.json);
the manifest records each figure's text and its ``value``, and the checker reads both back.
Marks are lettered per table, as in every format, and each row's notes column resolves them.
Cells that a spreadsheet would run as a formula are neutralised with a leading apostrophe.
"""
from __future__ import annotations

import csv
import functools
from pathlib import Path

from ..sanitize import visible
from ..report import BesideSection, BoundFigure, ChartSection, KpiSection, RankSpan, Report, TableSection, TextSection
from ..embedding import CSV_FIGURE_HEADER, CSV_VALUE_HEADER, csv_cell
from ..wording import band_words, load_text, own_shape_words, shape_words
from .panels import beside_parts
from .walk import Lettering, Walk, walk

EMBEDS_MANIFEST = False
ENCODING = "utf-8-sig"
SECTION_KINDS = ("table", "chart", "kpi", "text", "beside")

HEADER = ("section", "table", CSV_FIGURE_HEADER, CSV_VALUE_HEADER, "unit", "band", "band_low", "band_high", "marks", "notes", "rank",
          "rank_from", "rank_to", "notices", "verified", "derived", "submitter", "system", "accelerator",
          "accelerators_total", "nodes", "round", "division", "availability", "benchmark", "scenario", "result_id",
          "result_id_state", "tokens_per_sample", "tokens_per_sample_basis", "shape", "load",
          "citation", "source_url", "retrieved_on", "caveat", "trademark_legend")
FIGURE_COLUMN = HEADER.index(CSV_FIGURE_HEADER) + 1
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "|", "%")


@functools.lru_cache(maxsize=65536)
def safe_text(value) -> str:
    """Text that no spreadsheet will evaluate and that steers nothing: controls shown (sanitize.visible),
    a leading formula character escaped with '."""
    value = visible(str(value))
    return "'" + value if value.startswith(_FORMULA_START) else value


def number_cell(value: float | int | None) -> str:
    """A plain number for a numeric column: repr of the float (exact, '.' as decimal point), empty for none."""
    if value is None:
        return ""
    return str(value) if isinstance(value, int) else repr(float(value))


class CsvRenderer:
    format = "csv"

    def __init__(self, f):
        self.writer = csv.writer(f)
        self.row_no = 1

    def front(self, doc: Walk) -> None:
        self.writer.writerow(HEADER)

    def table(self, doc: Walk, n: int, section: TableSection | ChartSection) -> None:
        self._part(doc, n, section.title, doc.part(n, section.title, section.table))

    def _part(self, doc: Walk, n: int, title: str, part) -> None:
        table = part.table
        notices = " ".join(x.text for x in table.notices)
        for r, _, fig in part.figures():
            span = table.ranks[r] if table.ranks else None
            self._figure(doc, n, title, fig, table.table_note.text, part.lettering, span, notices)

    chart = table

    def kpi(self, doc: Walk, n: int, section: KpiSection) -> None:
        self._figure(doc, n, section.title, section.figure, section.table_note.text, doc.kpi_part(section),
                     section.rank, " ".join(x.text for x in section.notices))

    def text(self, doc: Walk, n: int, section: TextSection) -> None:
        pass  # a CSV holds figures, one per row; free text has no row to go in

    def beside(self, doc: Walk, n: int, section: BesideSection) -> None:
        """The MLPerf panel's rows, then the own panel's (marks lettered across both), then one row per
        line of the shape panel: its shape and load columns hold the numbers, its citation column the
        sentence on why throughput does not transfer across shapes."""
        mlperf, own, _ = beside_parts(n, section)
        for part in (mlperf, *own):
            self._part(doc, n, part.title, part)
        report = doc.report
        for row in (section.shape.mlperf, *section.shape.own):
            self.row_no += 1
            cells = dict(section=n, table=f"{section.title}: shape panel, {row.label}", shape=row.shape, load=row.load,
                         citation=section.shape.sentence, caveat=report.caveat_short, trademark_legend=report.legend)
            self.writer.writerow([safe_text(cells.get(h, "")) for h in HEADER])

    def back(self, doc: Walk) -> dict:
        return doc.manifest()

    def _figure(self, doc: Walk, n: int, title: str, fig: BoundFigure, table_note: str, lettering: Lettering,
                span: RankSpan | None, notices: str):
        self.row_no += 1
        text = lettering.text(fig)
        r, report = fig.result, doc.report
        i, b, c, s = r.conditions.identity, r.conditions.benchmark, r.conditions.configuration, r.conditions.shape
        notes = " ".join(f"[{m}] {note.text}" for m, note in zip(lettering.letters(fig), fig.notes))
        low, high = fig.band_edges() or (None, None)
        text_cells = (n, title, text)
        numbers = (fig.magnitude,)
        rest = (fig.unit_text, band_words(fig.slack), number_cell(low), number_cell(high),
                " ".join(lettering.letters(fig)), notes, span.words() if span else "",
                number_cell(span.tie_from if span else None), number_cell(span.tie_to if span else None), notices,
                i.verified, fig.derivation.label if fig.derivation else "", i.submitter, i.system_name, c.accelerator,
                number_cell(c.accelerators_total), number_cell(c.nodes), i.round, i.division, i.availability,
                b.benchmark, b.scenario, i.result_id, i.result_id_state, number_cell(s.tokens_per_sample),
                s.tokens_per_sample_basis, own_shape_words(r) if r.own else shape_words(s), load_text(r), table_note,
                r.conditions.provenance.source_url, r.conditions.provenance.retrieved_on, report.caveat_short,
                report.legend)
        self.writer.writerow([safe_text(v) for v in text_cells] + [number_cell(v) for v in numbers]
                             + [safe_text(v) for v in rest])
        doc.place(csv_cell(self.row_no, FIGURE_COLUMN), fig, lettering, safe_text(text),
                  shown_value=float(fig.magnitude))


def render(report: Report, path: Path, clock=None, **_options) -> dict:
    with open(path, "w", newline="", encoding=ENCODING) as f:
        return walk(report, CsvRenderer(f), clock)
