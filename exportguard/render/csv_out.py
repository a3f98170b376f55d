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
from pathlib import Path

from ..citation import cited_source
from ..escaping import csv_text
from ..report import BesideSection, BoundFigure, ChartSection, KpiSection, RankSpan, Report, TableSection, TextSection
from ..embedding import CSV_FIGURE_HEADER, CSV_VALUE_HEADER, csv_cell
from ..wording import band_words, both_shapes_title, load_text, note_line, own_shape_words, shape_words
from .panels import beside_parts
from .walk import Lettering, Walk, walk

ENCODING = "utf-8-sig"

HEADER = ("section", "table", CSV_FIGURE_HEADER, CSV_VALUE_HEADER, "unit", "band", "band_low", "band_high", "marks", "notes", "rank",
          "rank_from", "rank_to", "notices", "verified", "derived", "submitter", "system", "accelerator",
          "accelerators_total", "nodes", "round", "division", "availability", "benchmark", "scenario", "result_id",
          "result_id_state", "tokens_per_sample", "tokens_per_sample_basis", "shape", "load",
          "citation", "source_url", "retrieved_on", "caveat", "trademark_legend")
FIGURE_COLUMN = HEADER.index(CSV_FIGURE_HEADER) + 1
def number_cell(value: float | int | None) -> str:
    """A plain number for a numeric column: repr of the float (exact, '.' as decimal point), empty for none."""
    if value is None:
        return ""
    return str(value) if isinstance(value, int) else repr(float(value))


# Columns that hold plain numbers (number_cell); every other column holds text (csv_text).
NUMERIC_COLUMNS = frozenset({CSV_VALUE_HEADER, "band_low", "band_high", "rank_from", "rank_to", "accelerators_total",
                             "nodes", "tokens_per_sample"})
_NUMERIC = tuple(h in NUMERIC_COLUMNS for h in HEADER)  # per column of HEADER, looked up once


class CsvRenderer:
    """Walks a report into rows of HEADER's columns, one per figure (and one per line of a shape
    panel); ``emit`` writes each. The rows' content is defined here once: the CSV file writes it,
    and the API's records (``records``) keep it as Python values."""

    format = "csv"

    def __init__(self, f):
        self.writer = csv.writer(f)
        self.row_no = 1

    def emit(self, cells: dict, figure: BoundFigure | None) -> None:
        """One row (of a figure, or of a shape panel): texts made safe for a spreadsheet, numbers as
        plain numbers."""
        self.emit_values(tuple(cells.get(h, None if numeric else "") for h, numeric in zip(HEADER, _NUMERIC)), figure)

    def emit_values(self, values: tuple, figure: BoundFigure | None) -> None:
        """``emit`` of a row given as its values in HEADER's order."""
        self.writer.writerow([number_cell(v) if numeric else csv_text(v) for v, numeric in zip(values, _NUMERIC)])

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
            self.emit(dict(section=n, table=f"{both_shapes_title(section.title)}, {row.label}", shape=row.shape, load=row.load,
                           citation=section.shape.sentence, caveat=report.caveat_short,
                           trademark_legend=report.legend), None)

    def back(self, doc: Walk) -> dict:
        return doc.manifest()

    def _figure(self, doc: Walk, n: int, title: str, fig: BoundFigure, table_note: str, lettering: Lettering,
                span: RankSpan | None, notices: str):
        self.row_no += 1
        text = lettering.text(fig)
        r, report = fig.result, doc.report
        i, b, c, s = r.conditions.identity, r.conditions.benchmark, r.conditions.configuration, r.conditions.shape
        letters = lettering.letters(fig)
        notes = " ".join(note_line(m, note.text) for m, note in zip(letters, fig.notes))
        low, high = fig.band_edges() or (None, None)
        values = (n, title, text, fig.magnitude, fig.unit_text, band_words(fig.slack), low, high,
                  " ".join(letters), notes, span.words() if span else "",
                  span.tie_from if span else None, span.tie_to if span else None, notices,
                  i.verified, fig.derivation.label if fig.derivation else "", i.submitter, i.system_name, c.accelerator,
                  c.accelerators_total, c.nodes, i.round, i.division, i.availability,
                  b.benchmark, b.scenario, i.result_id, i.result_id_state, s.tokens_per_sample,
                  s.tokens_per_sample_basis, own_shape_words(r) if r.own else shape_words(s), load_text(r), table_note,
                  cited_source(r.conditions.provenance), r.conditions.provenance.retrieved_on, report.caveat_short,
                  report.legend)
        self.emit_values(values, fig)
        doc.place(csv_cell(self.row_no, FIGURE_COLUMN), fig, lettering, csv_text(text),
                  shown_value=float(fig.magnitude))


class _Records(CsvRenderer):
    """The same rows as Python values (numbers as numbers, None where there is none), figures only."""

    def __init__(self):
        self.rows: list[dict] = []
        self.row_no = 1

    def front(self, doc: Walk) -> None:
        pass

    def emit(self, cells: dict, figure: BoundFigure | None) -> None:
        if figure is not None:
            row = {**cells, "cohort": figure.cohort.label(), "mlperf": figure.cohort.mlperf}
            self.rows.append({k: row[k] for k in RECORD_COLUMNS})

    def emit_values(self, values: tuple, figure: BoundFigure | None) -> None:
        self.emit(dict(zip(HEADER, values)), figure)

    def back(self, doc: Walk) -> list[dict]:
        return self.rows


# The records' columns: the CSV's, and the cohort each figure compares in.
RECORD_COLUMNS = HEADER[:2] + ("cohort", "mlperf") + HEADER[2:]


def records(report: Report) -> list[dict]:
    """One dict per figure of ``report``, keyed by HEADER: what the CSV export's rows hold, with text
    as it is (not made safe for a spreadsheet) and numbers as numbers; for analysis, not publication."""
    return walk(report, _Records())


def render(report: Report, path: Path, clock=None, **_options) -> dict:
    with open(path, "w", newline="", encoding=ENCODING) as f:
        return walk(report, CsvRenderer(f), clock)
