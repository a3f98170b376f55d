"""The guard: turns stored results into bound tables, and refuses what breaks the rules (rules.py).

``bind_table`` builds one comparison (a table, a chart's data, a ranking) from results of one
cohort; ``validate`` re-checks a whole report before any renderer sees it, so a report assembled
by other code gets the same scrutiny.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from .caveat import UNVERIFIED_SENTENCE
from .citation import row_note, shape_words, table_note, tps_words
from .errors import ExportguardError
from .model import Result, Slack, group_into_cohorts
from .report import (
    BoundFigure,
    BoundTable,
    ChartSection,
    Column,
    Derivation,
    KpiSection,
    Note,
    Report,
    TableSection,
    TextSection,
)
from .rules import ERROR, Finding, finding
from .textviews import UNIT_SHORT


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
    "result_id": ("Result ID", lambda r: r.conditions.identity.result_id or f"({r.conditions.identity.result_id_state})"),
    "tokens_per_sample": ("Tokens/sample", lambda r: tps_words(r)),
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


def mark_name(i: int) -> str:
    """a, b, ..., z, aa, ab, ...: letters in brackets, never digits that paste into the number."""
    name = ""
    i += 1
    while i:
        i, rem = divmod(i - 1, 26)
        name = chr(ord("a") + rem) + name
    return name


class _Marks:
    """Deduplicates notes and hands out marks in order of appearance."""

    def __init__(self):
        self.by_text: dict[str, str] = {}

    def mark(self, text: str) -> str:
        if text not in self.by_text:
            self.by_text[text] = mark_name(len(self.by_text))
        return self.by_text[text]

    def notes(self) -> tuple[Note, ...]:
        return tuple(Note(m, t) for t, m in self.by_text.items())


def check_one_cohort(results: Sequence[Result], where: str) -> list[Finding]:
    """EG009 / EG003 when the results would make a comparison across cohorts."""
    if len({r.conditions.identity.mlperf for r in results}) > 1:
        others = [_row_name(r) for r in results if not r.conditions.identity.mlperf][:5]
        return [finding("mlperf-vs-non-mlperf", where,
                        f"MLPerf and non-MLPerf results in one comparison (non-MLPerf: {'; '.join(others)}). "
                        "Way out: filter on one kind (--mlperf / a spec filter), or export them in separate sections.")]
    cohorts = group_into_cohorts(results)
    if len(cohorts) > 1:
        listing = "; ".join(f"{c.key.label()}: {', '.join(_row_name(r) for r in c.results[:3])}"
                            f"{' ...' if len(c.results) > 3 else ''}" for c in cohorts[:6])
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


def _rank_cells(values: Sequence[float], slack: Slack) -> list[str]:
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
    """One comparison of one cohort, highest figure first, every figure bound. Raises GuardError."""
    results = sorted(results, key=lambda r: -r.value)
    problems = check_one_cohort(results, where)
    unknown = [c for c in columns if c not in KNOWN_COLUMNS]
    if unknown:
        raise GuardError([finding("bare-figure", where, f"unknown column(s) {', '.join(unknown)}; known: "
                                  f"{', '.join(KNOWN_COLUMNS)}")])
    problems += _hidden_differences(results, columns, where)
    if "cost_per_million_tokens" in columns and prices is None:
        problems.append(finding("derived-not-labelled", where,
                                "cost_per_million_tokens needs a price table (--prices FILE / prices = in the spec)"))
    if problems:
        raise GuardError(problems)
    if not results:
        raise GuardError([finding("bare-figure", where, "no results match the filters: nothing to compare")])
    cohort = results[0].cohort_key
    marks = _Marks()
    ranks = _rank_cells([r.value for r in results], slack) if "rank" in columns else None
    rows = []
    for i, r in enumerate(results):
        mark = marks.mark(row_note(r))
        cells = []
        for key in columns:
            if key == "rank":
                cells.append(ranks[i])
            elif key == "throughput":
                cells.append(BoundFigure(r, cohort, slack, mark, r.value))
            elif key == "per_accelerator":
                cells.append(_per_accelerator(r, cohort, slack, mark, marks))
            elif key == "cost_per_million_tokens":
                cells.append(_cost(r, cohort, slack, mark, marks, prices))
            else:
                cells.append(TEXT_COLUMNS[key][1](r))
        rows.append(tuple(cells))
    cols = tuple(Column(k, "Rank" if k == "rank" else FIGURE_COLUMNS.get(k) or TEXT_COLUMNS[k][0],
                        "rank" if k == "rank" else "figure" if k == "throughput" else
                        "derived" if k in FIGURE_COLUMNS else "text") for k in columns)
    return BoundTable(title, cohort, slack, cols, tuple(rows), table_note(results[0], slack), marks.notes(),
                      ranked="rank" in columns)


def _per_accelerator(r, cohort, slack, mark, marks) -> BoundFigure | str:
    total = r.conditions.configuration.accelerators_total
    if total == 0:
        return "not derivable: CPU-only system"
    b = r.conditions.benchmark
    note = (f"Derived, not an MLPerf metric: the row's official throughput divided by its total accelerator count; "
            f"measured on the {b.benchmark} {b.scenario} shape ({shape_words(r)}) and load of the table note.")
    unit = f"{UNIT_SHORT.get(r.unit, r.unit)} per accelerator"
    return BoundFigure(r, cohort, slack, mark, r.value / total,
                       Derivation("per accelerator", unit, note, marks.mark(note)))


def _cost(r, cohort, slack, mark, marks, prices: PriceTable) -> BoundFigure | str:
    hourly = prices.price_for(r)
    if hourly is None or r.unit != "tokens/s":
        return "no price for this system" if hourly is None else "not derivable: not a tokens/s figure"
    b = r.conditions.benchmark
    note = (f"Derived, not an MLPerf metric: {prices.currency} per hour from the price table ({prices.source}) "
            f"divided by the tokens generated per hour at the official throughput; valid only for the "
            f"{b.benchmark} {b.scenario} shape ({shape_words(r)}) and its load, not for your traffic.")
    per_million = hourly / (r.value * 3600) * 1e6
    return BoundFigure(r, cohort, slack, mark, per_million,
                       Derivation("cost per million tokens", f"{prices.currency} per 1M tokens", note, marks.mark(note)))


def _hidden_differences(results: Sequence[Result], columns: Sequence[str], where: str) -> list[Finding]:
    found = []
    for what, (get, showing) in _MUST_SHOW.items():
        values = {get(r) for r in results}
        if len(values) > 1 and not any(c in columns for c in showing):
            found.append(finding("hidden-difference", where,
                                 f"the compared rows differ in {what} ({', '.join(sorted(map(str, values)))}) and no "
                                 f"column shows it. Way out: add column {showing[0]}."))
    return found


def kpi(result: Result, slack: Slack, title: str) -> KpiSection:
    marks = _Marks()
    mark = marks.mark(row_note(result))
    figure = BoundFigure(result, result.cohort_key, slack, mark, result.value)
    b, i = result.conditions.benchmark, result.conditions.identity
    inline = (f"MLPerf® {i.round} {i.division}, {b.benchmark} {b.scenario}, {tps_words(result)}, "
              f"{result.conditions.shape.dataset}, {result.conditions.load.arrival_process}"
              if i.mlperf else f"non-MLPerf, {b.benchmark} {b.scenario}, {tps_words(result)}")
    return KpiSection(title, figure, inline, table_note(result, slack), marks.notes())


# -- validation of a whole report --------------------------------------------------------------

_CITATION_FIELDS = {
    "suite": re.compile(r"MLPerf® Inference"),
    "version": re.compile(r"\bv\d+\.\d+\b"),
    "division": re.compile(r"\b(Closed|Open) division\b"),
    "result ID": re.compile(r"\bresult (v?\d+\.\d+-\d+|ID pending)"),
    "retrieval date": re.compile(r"retrieved \d{4}-\d{2}-\d{2}"),
    "source": re.compile(r"source \S+"),
}


def validate(report: Report) -> list[Finding]:
    """Every rule that can be checked on the render-neutral report."""
    found: list[Finding] = []
    if not report.caveat_short.strip() or not "".join(report.caveat_full).strip():
        found.append(finding("caveat-missing", "report", "the report has no caveat"))
    if "MLCommons" not in report.legend:
        found.append(finding("missing-citation-field", "report", "the trademark legend is missing"))
    for n, section in enumerate(report.sections, 1):
        where = f"section {n} ({section.title})"
        if isinstance(section, (TableSection, ChartSection)):
            found += _validate_table(section.table, where)
        elif isinstance(section, KpiSection):
            notes = {x.mark: x.text for x in section.notes}
            found += _validate_figure(section.figure, notes, section.table_note, where)
            if section.figure.result.conditions.benchmark.scenario not in section.inline_conditions:
                found.append(finding("bare-figure", where, "a headline figure must state its scenario and shape inline"))
        elif isinstance(section, TextSection):
            for p in section.paragraphs:
                if re.search(r"MLPerf(?!®)", p) and "MLPerf®" not in " ".join(section.paragraphs):
                    found.append(finding("mlperf-without-mark", where, "\"MLPerf\" without ® in the text"))
                    break
    return found


def _validate_table(table: BoundTable, where: str) -> list[Finding]:
    found = check_one_cohort([f.result for _, _, f in table.figures()], where)
    notes = {x.mark: x.text for x in table.notes}
    for r, c, fig in table.figures():
        found += _validate_figure(fig, notes, table.table_note, f"{where}, row {r + 1}, column {c + 1}")
        if fig.cohort != table.cohort:
            found.append(finding("mixed-cohort", f"{where}, row {r + 1}", "figure of another cohort than the table's"))
    if table.ranked:
        found += _validate_ranking(table, where)
    results = [f.result for _, _, f in table.figures() if f.derivation is None]
    found += _hidden_differences(results, [c.key for c in table.columns], where)
    return found


def _validate_figure(fig: BoundFigure, notes: dict, shared_note: str, where: str) -> list[Finding]:
    found = []
    text = fig.text()
    if not fig.slack.band_text() or re.search(r"±0(\.0+)?%", text):
        found.append(finding("missing-band", where, f"{text!r} has no band or a ±0% band"))
    missing_marks = [m for m in fig.marks if m not in notes]
    if missing_marks:
        found.append(finding("bare-figure", where, f"mark(s) {', '.join(missing_marks)} resolve to no note"))
        return found
    note = shared_note + " " + notes[fig.mark]
    if fig.result.conditions.identity.mlperf:
        absent = [name for name, pattern in _CITATION_FIELDS.items() if not pattern.search(note)]
        b = fig.result.conditions.benchmark
        absent += [w for w in (b.benchmark, b.scenario) if w not in note]
        if absent:
            found.append(finding("missing-citation-field", where, f"the footnote lacks: {', '.join(absent)}"))
    if not fig.verified and ("unverified" not in text or UNVERIFIED_SENTENCE not in note):
        found.append(finding("unverified-not-labelled", where, f"{text!r} is unverified but not labelled so"))
    if fig.derivation is not None:
        basis = notes.get(fig.derivation.mark, "")
        if "derived" not in text or "Derived" not in basis or fig.result.conditions.benchmark.benchmark not in basis:
            found.append(finding("derived-not-labelled", where, f"{text!r} is derived but not labelled with its basis"))
    return found


def _validate_ranking(table: BoundTable, where: str) -> list[Finding]:
    rank_col = next((i for i, c in enumerate(table.columns) if c.key == "rank"), None)
    fig_col = next((i for i, c in enumerate(table.columns) if c.kind == "figure"), None)
    if rank_col is None or fig_col is None or not table.slack.estimable:
        return []
    found = []
    rows = table.rows
    for i in range(1, len(rows)):
        hi, lo = rows[i - 1][fig_col], rows[i][fig_col]
        if hi.magnitude <= lo.magnitude * (1 + table.slack.fraction) and "tie" not in rows[i][rank_col]:
            found.append(finding("lead-within-slack", f"{where}, rows {i}-{i + 1}",
                                 f"{hi.text()} leads {lo.text()} by {hi.magnitude / lo.magnitude - 1:.1%}, inside "
                                 f"the slack of {table.slack.slack_text()}, but the ranking shows an order"))
    return found


def refuse_on_errors(findings: Iterable[Finding]) -> tuple[Finding, ...]:
    """Raise on errors; return the warnings (they go into the manifest)."""
    findings = tuple(findings)
    errors = [f for f in findings if f.severity == ERROR]
    if errors:
        raise GuardError(errors)
    return findings

