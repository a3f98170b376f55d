"""The guard: turns stored results into bound tables, and refuses what breaks the rules (rules.py).

``bind_table`` builds one comparison (a table, a chart's data, a ranking) from results of one
cohort; ``validate`` re-checks a whole report before any renderer sees it, so a report assembled
by other code gets the same scrutiny.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from .caveat import UNVERIFIED_SENTENCE
from .citation import Citation, Note, TableNote, result_id_cell, row_note, table_note
from .detect import find_figures, reads_like_a_figure
from .errors import ExportguardError
from .model import Result, Slack, group_by_cohort
from .report import BoundFigure, BoundTable, ChartSection, Column, Derivation, KpiSection, Report, TableSection, TextSection
from .rules import ERROR, Finding, finding
from .sanitize import presentable
from .wording import shape_words, slack_words, tps_words, unit_words


class GuardError(ExportguardError):
    """An export refused: carries the findings (rule, location, message, way out)."""

    def __init__(self, findings: Sequence[Finding]):
        self.findings = tuple(findings)
        super().__init__("export refused:\n" + "\n".join(f"  {f}" for f in self.findings))


def _accelerators(r: Result) -> str:
    c = r.conditions.configuration
    return str(c.accelerators_total) if c.nodes == 1 else f"{c.accelerators_total} ({c.nodes} nodes x {c.accelerators_per_node})"


# Text columns: key -> (header, value). Figure columns are built by the guard itself.
TEXT_COLUMNS: dict[str, tuple[str, Callable[[Result], str]]] = {
    "submitter": ("Submitter", lambda r: r.conditions.identity.submitter),
    "system": ("System", lambda r: r.conditions.identity.system_name),
    "accelerator": ("Accelerator", lambda r: r.conditions.configuration.accelerator),
    "accelerators": ("Accelerators", _accelerators),
    "nodes": ("Nodes", lambda r: str(r.conditions.configuration.nodes)),
    "availability": ("Availability", lambda r: r.conditions.identity.availability),
    "verified": ("Verified", lambda r: r.conditions.identity.verified),
    "result_id": ("Result ID", result_id_cell),
    "tokens_per_sample": ("Tokens/sample", lambda r: tps_words(r.conditions.shape)),
    "software": ("Software", lambda r: r.conditions.configuration.framework),
    "round": ("Round", lambda r: r.conditions.identity.round),
    "division": ("Division", lambda r: r.conditions.identity.division),
    "benchmark": ("Benchmark", lambda r: r.conditions.benchmark.benchmark),
    "scenario": ("Scenario", lambda r: r.conditions.benchmark.scenario),
    "target_qps": ("Target QPS", lambda r: f"{r.conditions.load.target_qps:g}" if r.conditions.load.target_qps
                   else ("n/a (Offline)" if r.conditions.benchmark.scenario == "Offline" else "not published")),
}
FIGURE_COLUMNS = {"throughput": "Throughput", "per_accelerator": "Per accelerator (derived)",
                  "cost_per_million_tokens": "Cost per 1M tokens (derived)"}
DEFAULT_COLUMNS = ("rank", "submitter", "system", "accelerator", "accelerators", "availability", "result_id",
                   "tokens_per_sample", "throughput")
KNOWN_COLUMNS = ("rank",) + tuple(TEXT_COLUMNS) + tuple(FIGURE_COLUMNS)

# Differences a comparison must show (MLCommons messaging rules): attribute -> columns that show it.
# Round, division and scenario are fixed by the cohort and stated in the table note; verified status
# is stated by the figure text itself ("unverified").
_MUST_SHOW = {
    "availability": (lambda r: r.conditions.identity.availability, ("availability",)),
    "accelerator count": (lambda r: r.conditions.configuration.accelerators_total, ("accelerators",)),
}


@dataclass(frozen=True)
class PriceTable:
    currency: str
    source: str
    by_system: dict  # system_id -> per_hour
    by_accelerator: dict  # accelerator name -> per accelerator-hour

    def price_for(self, r: Result) -> float | None:
        c = r.conditions.configuration
        if r.conditions.identity.system_id in self.by_system:
            return self.by_system[r.conditions.identity.system_id]
        if c.accelerator in self.by_accelerator and c.accelerators_total > 0:
            return self.by_accelerator[c.accelerator] * c.accelerators_total
        return None


def check_one_cohort(results: Sequence[Result], where: str) -> list[Finding]:
    """EG009 / EG003 when the results would make a comparison across cohorts."""
    if len({r.conditions.identity.mlperf for r in results}) > 1:
        others = [_row_name(r) for r in results if not r.conditions.identity.mlperf][:5]
        return [finding("mlperf-vs-non-mlperf", where,
                        f"MLPerf and non-MLPerf results in one comparison (non-MLPerf: {'; '.join(others)}). "
                        "Way out: select one kind (--division closed or open for MLPerf, --division n/a for the others; "
                        "mlperf = true or false in a spec's filters), or export them in separate sections.")]
    cohorts = group_by_cohort(results)
    if len(cohorts) > 1:
        listing = "; ".join(f"{key.label()}: {', '.join(_row_name(r) for r in rows[:3])}"
                            f"{' ...' if len(rows) > 3 else ''}" for key, rows in cohorts[:6])
        return [finding("mixed-cohort", where,
                        f"{len(cohorts)} cohorts in one comparison ({listing}). Way out: split by cohort "
                        "(--split-by-cohort, or split_by_cohort = true in the spec) or narrow the filters.")]
    return []


def _row_name(r: Result) -> str:
    i = r.conditions.identity
    return f"{i.submitter} {i.system_id} ({r.conditions.benchmark.benchmark} {r.conditions.benchmark.scenario})"


def rank_groups(values: Sequence[float], slack: Slack) -> list[tuple[int, int]]:
    """For values sorted high to low: (first, last) position of each run of neighbours whose lead
    is inside 1 + slack. With no estimable slack every value stands alone."""
    groups: list[list[int]] = []
    for i, v in enumerate(values):
        if groups and slack.estimable and values[i - 1] <= v * (1 + slack.fraction):
            groups[-1].append(i)
        else:
            groups.append([i])
    return [(g[0], g[-1]) for g in groups]


def rank_cells(values: Sequence[float], slack: Slack) -> list[str]:
    """Rank words for values sorted high to low: '3', or '~3-5 tie within slack' for a run of ties."""
    cells = [""] * len(values)
    for first, last in rank_groups(values, slack):
        for i in range(first, last + 1):
            if first == last:
                cells[i] = f"{first + 1}" if slack.estimable else f"{first + 1} (slack not estimable)"
            else:
                cells[i] = f"~{first + 1}-{last + 1} tie within slack"
    return cells


def bind_table(results: Sequence[Result], *, title: str, slack: Slack, columns: Sequence[str] = DEFAULT_COLUMNS,
               prices: PriceTable | None = None, where: str = "table") -> BoundTable:
    """One comparison of one cohort, highest figure first, every figure bound. ``slack`` is the whole
    stored cohort's (Store.cohort_slack). Raises GuardError."""
    results = sorted((presentable(r) for r in results), key=lambda r: -r.value)
    unknown = [c for c in columns if c not in KNOWN_COLUMNS]
    if unknown:
        raise GuardError([finding("unknown-column", where, f"unknown column(s) {', '.join(unknown)}; known: "
                                  f"{', '.join(KNOWN_COLUMNS)}")])
    if not results:
        raise GuardError([finding("empty-selection", where, "no results match the filters: nothing to compare")])
    problems = check_one_cohort(results, where)
    problems += _hidden_differences(results, columns, where)
    if not any(c in FIGURE_COLUMNS for c in columns):
        problems.append(finding("ranking-without-figure", where,
                                f"columns {', '.join(columns)} show no figure: a table of results without its "
                                "throughput, band and citation is a ranking with nothing to check it by. "
                                "Way out: add column throughput."))
    if "cost_per_million_tokens" in columns and prices is None:
        problems.append(finding("missing-prices", where,
                                "cost_per_million_tokens needs a price table (--prices FILE / prices = in the spec)"))
    if problems:
        raise GuardError(problems)
    cohort = results[0].cohort_key
    ranks = rank_cells([r.value for r in results], slack) if "rank" in columns else None
    rows = []
    for i, r in enumerate(results):
        note = row_note(r)
        cells = []
        for key in columns:
            if key == "rank":
                cells.append(ranks[i])
            elif key == "throughput":
                cells.append(BoundFigure(r, cohort, slack, note, r.value))  # the note its derived figures share
            elif key == "per_accelerator":
                cells.append(_per_accelerator(r, slack, note))
            elif key == "cost_per_million_tokens":
                cells.append(_cost(r, slack, note, prices))
            else:
                cells.append(TEXT_COLUMNS[key][1](r))
        rows.append(tuple(cells))
    cols = tuple(Column(k, "Rank" if k == "rank" else FIGURE_COLUMNS.get(k) or TEXT_COLUMNS[k][0],
                        "rank" if k == "rank" else "figure" if k == "throughput" else
                        "derived" if k in FIGURE_COLUMNS else "text") for k in columns)
    return BoundTable(title, cohort, slack, cols, tuple(rows), table_note(results[0], slack),
                      ranked="rank" in columns)


def _per_accelerator(r: Result, slack: Slack, note: Note) -> BoundFigure | str:
    total = r.conditions.configuration.accelerators_total
    if total == 0:
        return "not derivable: CPU-only system"
    b = r.conditions.benchmark
    basis = Note(f"Derived, not an MLPerf metric: the row's official throughput divided by its total accelerator "
                 f"count; measured on the {b.benchmark} {b.scenario} shape ({shape_words(r.conditions.shape)}) and "
                 "load of the table note.", basis_of="per accelerator", shape_of=b.benchmark)
    unit = f"{unit_words(r.unit)} per accelerator"
    return BoundFigure(r, r.cohort_key, slack, note, r.value / total, Derivation("per accelerator", unit, basis))


def _cost(r: Result, slack: Slack, note: Note, prices: PriceTable) -> BoundFigure | str:
    hourly = prices.price_for(r)
    if hourly is None or r.unit != "tokens/s":
        return "no price for this system" if hourly is None else "not derivable: not a tokens/s figure"
    b = r.conditions.benchmark
    basis = Note(f"Derived, not an MLPerf metric: {prices.currency} per hour from the price table ({prices.source}) "
                 f"divided by the tokens generated per hour at the official throughput; valid only for the "
                 f"{b.benchmark} {b.scenario} shape ({shape_words(r.conditions.shape)}) and its load, not for "
                 "your traffic.", basis_of="cost per million tokens", shape_of=b.benchmark)
    per_million = hourly / (r.value * 3600) * 1e6
    return BoundFigure(r, r.cohort_key, slack, note, per_million,
                       Derivation("cost per million tokens", f"{prices.currency} per 1M tokens", basis))


def _hidden_differences(results: Sequence[Result], columns: Sequence[str], where: str) -> list[Finding]:
    found = []
    for what, (get, showing) in _MUST_SHOW.items():
        values = {get(r) for r in results}
        if len(values) > 1 and not any(c in columns for c in showing):
            found.append(finding("hidden-difference", where,
                                 f"the compared rows differ in {what} ({', '.join(sorted(map(str, values)))}) and no "
                                 f"column shows it. Way out: add column {showing[0]}."))
    return found


def kpi_conditions(result: Result) -> str:
    """What a headline number states inline: round, division, benchmark, scenario and shape."""
    b, i, s = result.conditions.benchmark, result.conditions.identity, result.conditions.shape
    if not i.mlperf:
        return f"non-MLPerf, {b.benchmark} {b.scenario}, {tps_words(s)}, {s.dataset}"
    return (f"MLPerf® {i.round} {i.division}, {b.benchmark} {b.scenario}, {tps_words(s)}, {s.dataset}, "
            f"{result.conditions.load.arrival_process}")


def bound_figure(result: Result, slack: Slack) -> BoundFigure:
    """A result's official figure, bound to its cohort's slack and its citation."""
    result = presentable(result)
    return BoundFigure(result, result.cohort_key, slack, row_note(result), result.value)


def kpi(result: Result, slack: Slack, title: str) -> KpiSection:
    figure = bound_figure(result, slack)
    return KpiSection(title, figure, kpi_conditions(figure.result), table_note(figure.result, slack))


# -- validation of a whole report --------------------------------------------------------------

def validate(report: Report) -> list[Finding]:
    """Every rule that can be checked on the render-neutral report, on its fields."""
    found: list[Finding] = []
    if not report.caveat_short.strip() or not "".join(report.caveat_full).strip():
        found.append(finding("caveat-missing", "report", "the report has no caveat"))
    found += _figures_in_free_text(report.title, "report title")
    found += _figures_in_free_text(report.audience, "report audience")
    if "MLCommons" not in report.legend:
        found.append(finding("missing-citation-field", "report", "the trademark legend is missing"))
    for n, section in enumerate(report.sections, 1):
        where = f"section {n} ({section.title})"
        found += _figures_in_free_text(section.title, f"{where}, title")
        if isinstance(section, (TableSection, ChartSection)):
            found += _figures_in_free_text(section.table.title, f"{where}, table title")
            found += _validate_table(section.table, where)
        elif isinstance(section, KpiSection):
            found += _validate_figure(section.figure, section.table_note, where)
            if section.inline_conditions != kpi_conditions(section.figure.result):
                found.append(finding("bare-figure", where, "a headline figure must state its scenario and shape inline"))
        elif isinstance(section, TextSection):
            for k, p in enumerate(section.paragraphs, 1):
                found += _figures_in_free_text(p, f"{where}, paragraph {k}")
            for p in section.paragraphs:
                if re.search(r"MLPerf(?!®)", p) and "MLPerf®" not in " ".join(section.paragraphs):
                    found.append(finding("mlperf-without-mark", where, "\"MLPerf\" without ® in the text"))
                    break
    return found


def _figures_in_free_text(text: str, where: str) -> list[Finding]:
    """Free text (titles, paragraphs) holds no figure: a figure is quoted through a bound section."""
    return [finding("bare-figure", where, f"{d.text!r} is a throughput figure in free text, where no band, "
                    "mark or note can travel with it. Way out: quote it through a KPI or table section.")
            for d in find_figures(text)]


def _validate_table(table: BoundTable, where: str) -> list[Finding]:
    found = check_one_cohort([f.result for _, _, f in table.figures()], where)
    for r, row in enumerate(table.rows):
        for c, cell in enumerate(row):
            if isinstance(cell, str) and reads_like_a_figure(cell):
                found.append(finding("bare-figure", f"{where}, row {r + 1}, column {c + 1}",
                                     f"the source text {cell!r} reads like a throughput figure; a reader would take "
                                     "it for one. Correct the name at its source."))
    checked: set[int] = set()
    for r, c, fig in table.figures():
        found += _validate_figure(fig, table.table_note, f"{where}, row {r + 1}, column {c + 1}", checked)
        if fig.cohort != table.cohort or fig.slack != table.slack:
            found.append(finding("mixed-cohort", f"{where}, row {r + 1}", "figure of another cohort (or band) than the table's"))
    if table.ranked:
        found += _validate_ranking(table, where)
    results = [f.result for _, _, f in table.figures() if f.derivation is None]
    found += _hidden_differences(results, [c.key for c in table.columns], where)
    return found


def _validate_figure(fig: BoundFigure, shared: TableNote, where: str, checked: set | None = None) -> list[Finding]:
    found = []
    slack = fig.slack
    if slack.estimable:
        if not (math.isfinite(slack.band_fraction) and slack.band_fraction > 0):
            found.append(finding("missing-band", where, f"{fig.text()!r} has a band of {slack.band_fraction!r}"))
    elif not slack.reason:
        found.append(finding("missing-band", where, f"{fig.text()!r} has no band and no words for why"))
    citation = fig.note.citation
    if citation is None:
        found.append(finding("bare-figure", where, f"{fig.text()!r} has no citation note"))
        return found
    if fig.result.conditions.identity.mlperf:
        if id(shared) not in (checked or ()):
            if shared.cohort != fig.cohort or not (shared.suite and shared.shape and shared.load):
                found.append(finding("missing-citation-field", where, "the table note lacks the suite, shape or load "
                                     "of its figures' cohort"))
            if checked is not None:
                checked.add(id(shared))
        expected = Citation.of(fig.result)
        absent = [name for name in ("suite", "round", "division", "benchmark", "scenario", "source", "retrieved_on")
                  if not getattr(citation, name)]
        if citation.result_id_state == "official" and not citation.result_id:
            absent.append("result ID")
        wrong = [name for name in Citation.__dataclass_fields__ if getattr(citation, name) != getattr(expected, name)]
        if absent or wrong:
            found.append(finding("missing-citation-field", where, f"the footnote lacks: {', '.join(absent)}" if absent
                                 else f"the footnote's {', '.join(wrong)} do not match the figure's result"))
    if citation.verified != fig.verified or (not fig.verified and UNVERIFIED_SENTENCE not in fig.note.text):
        found.append(finding("unverified-not-labelled", where, f"{fig.text()!r} is unverified but its note does not say so"))
    if fig.derivation is not None:
        basis = fig.derivation.note
        if basis.basis_of != fig.derivation.label or basis.shape_of != fig.result.conditions.benchmark.benchmark:
            found.append(finding("derived-not-labelled", where, f"{fig.text()!r} is derived but its note does not "
                                 "state its basis and the MLPerf shape it comes from"))
    return found


def _validate_ranking(table: BoundTable, where: str) -> list[Finding]:
    rank_col = next((i for i, c in enumerate(table.columns) if c.key == "rank"), None)
    fig_col = next((i for i, c in enumerate(table.columns) if c.kind == "figure"), None)
    if rank_col is None or fig_col is None:
        return []
    figures = [row[fig_col] for row in table.rows]
    expected = rank_cells([f.magnitude for f in figures], table.slack)
    found = []
    for i, (row, want) in enumerate(zip(table.rows, expected)):
        if row[rank_col] != want:
            found.append(finding("lead-within-slack", f"{where}, row {i + 1}",
                                 f"rank {row[rank_col]!r} for {figures[i].text()} must read {want!r}: a lead "
                                 f"inside the cohort's slack of {slack_words(table.slack)} is a tie"))
    return found


def refuse_on_errors(findings: Iterable[Finding]) -> tuple[Finding, ...]:
    """Raise on errors; return the warnings (they go into the manifest)."""
    findings = tuple(findings)
    errors = [f for f in findings if f.severity == ERROR]
    if errors:
        raise GuardError(errors)
    return findings
