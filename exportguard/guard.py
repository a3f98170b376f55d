"""The guard: turns stored results into bound tables, and refuses what breaks the rules (rules.py).

``bind_table`` builds one comparison (a table, a chart's data, a ranking) from results of one
cohort; ``kpi`` a headline; ``validate`` re-checks a whole report before any renderer sees it, so a
report assembled by other code gets the same scrutiny. Ranks and ties come from one place,
``rank_spans`` (the rule is wording.TIE_RULE): every format shows their words, and formats that
hold numbers take the numbers from ``BoundTable.ranks`` and ``KpiSection.rank``.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Sequence

from .caveat import UNVERIFIED_SENTENCE
from .citation import (OWN_NOTE_MARK, Citation, Note, Shared, TableNote, repository_words, result_id_cell, row_note,
                       table_note)
from .detect import find_figures, reads_like_a_figure
from .errors import ExportguardError
from .memo import ByIdentity
from .model import Result, Slack, group_by_cohort
from .report import (BesideSection, BoundFigure, BoundTable, ChartSection, Column, Derivation, KpiSection, Notice,
                     RankSpan, Report, ShapePanel, TableSection, TextSection)
from .rules import ERROR, Finding, finding, rule
from .sanitize import presentable
from .wording import (NOT_RANKED, NOT_RANKED_SENTENCE, TIE_RULE, headline_words, mixed_scale_words, number, own_load_of,
                      own_shape_class_words, own_tool_words, series_words, shape_words, shown_rows_words, slack_words,
                      tps_cell, tps_words, unit_words)


class GuardError(ExportguardError):
    """An export refused: carries the findings (rule, location, message, way out)."""

    def __init__(self, findings: Sequence[Finding]):
        self.findings = tuple(findings)
        super().__init__("export refused:\n" + "\n".join(f"  {f}" for f in self.findings))


def _accelerators(r: Result) -> str:
    c = r.conditions.configuration
    if c.accelerators_total is None:
        return "unknown"
    return str(c.accelerators_total) if c.nodes == 1 else f"{c.accelerators_total} ({c.nodes} nodes x {c.accelerators_per_node})"


def _own_ms(value: float | None, places: int) -> str:
    return "not reported" if value is None else f"{number(value, places)} ms"


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
    "tokens_per_sample": ("Tokens/sample", lambda r: tps_cell(r.conditions.shape)),
    "software": ("Software", lambda r: r.conditions.configuration.framework),
    "round": ("Round", lambda r: r.conditions.identity.round),
    "division": ("Division", lambda r: r.conditions.identity.division),
    "benchmark": ("Benchmark", lambda r: r.conditions.benchmark.benchmark),
    "scenario": ("Scenario", lambda r: r.conditions.benchmark.scenario),
    "target_qps": ("Target QPS", lambda r: f"{r.conditions.load.target_qps:g}" if r.conditions.load.target_qps
                   else ("n/a (Offline)" if r.conditions.benchmark.scenario == "Offline" else "not published")),
    # own runs
    "measured_by": ("Measured by", lambda r: r.conditions.identity.submitter),
    "tool": ("Tool", lambda r: own_tool_words(r) if r.own else "MLPerf LoadGen"),
    "load": ("Load", lambda r: own_load_of(r) if r.own else r.conditions.load.arrival_process),
    "shape": ("Shape (mean per request)", lambda r: own_shape_class_words(r.conditions.run.mean_input_tokens,
                                                                           r.conditions.shape.tokens_per_sample)
              if r.own else tps_words(r.conditions.shape)),
    "p99_ttft": ("p99 TTFT", lambda r: _own_ms(r.conditions.load.p99_ttft_ms, 0)),
    "p99_tpot": ("p99 TPOT", lambda r: _own_ms(r.conditions.load.p99_tpot_ms, 1)),
    "run_date": ("Run on", lambda r: r.conditions.run.run_date if r.own else "n/a"),
}
FIGURE_COLUMNS = {"throughput": "Throughput", "per_accelerator": "Per accelerator (derived)",
                  "cost_per_million_tokens": "Cost per 1M tokens (derived)"}
DEFAULT_COLUMNS = ("rank", "submitter", "system", "accelerator", "accelerators", "availability", "result_id",
                   "tokens_per_sample", "throughput")
# An own cohort's table, where a section asks for the default columns (default_columns).
OWN_DEFAULT_COLUMNS = ("measured_by", "system", "accelerator", "accelerators", "tool", "shape", "p99_ttft", "p99_tpot",
                       "throughput")
# A panel beside the other (a beside section) has half the width: where it asked for the defaults it
# shows fewer columns. What a panel's rows share (round, division, scenario, tokens per sample, shape,
# tool) is in its table note and in the shape panel; what tells them apart must still show
# (_MUST_SHOW: a column is added where the rows differ in it).
BESIDE_COLUMNS = ("rank", "submitter", "system", "accelerators", "throughput")
OWN_BESIDE_COLUMNS = ("system", "accelerators", "p99_ttft", "throughput")
KNOWN_COLUMNS = ("rank",) + tuple(TEXT_COLUMNS) + tuple(FIGURE_COLUMNS)


def default_columns(columns, own: bool) -> tuple[str, ...]:
    """The columns a section shows: its own, or, where it asked for the defaults (with derived columns
    after them), the defaults for the kind of results it shows."""
    columns = tuple(columns)
    if own and columns[:len(DEFAULT_COLUMNS)] == DEFAULT_COLUMNS:
        return OWN_DEFAULT_COLUMNS + columns[len(DEFAULT_COLUMNS):]
    return columns

def shows_defaults(columns) -> bool:
    """The columns start with the defaults (MLPerf's or an own cohort's): nobody named them."""
    columns = tuple(columns)
    return any(columns[:len(d)] == d for d in (DEFAULT_COLUMNS, OWN_DEFAULT_COLUMNS))


def lean_columns(columns, own: bool, results: Sequence[Result]) -> tuple[str, ...]:
    """The columns of a half-width panel (a beside section) or a narrow page: its own, or, where it
    asked for the defaults (MLPerf's or an own cohort's), the lean defaults with each column the
    rows' differences need (before the throughput), then the derived columns asked for."""
    columns = tuple(columns)
    defaults = next((d for d in (DEFAULT_COLUMNS, OWN_DEFAULT_COLUMNS) if columns[:len(d)] == d), None)
    if defaults is None:
        return columns
    lean = list(OWN_BESIDE_COLUMNS if own else BESIDE_COLUMNS)
    for get, showing in _MUST_SHOW.values():
        if len({get(r) for r in results}) > 1 and not any(c in lean for c in showing):
            lean.insert(lean.index("throughput"), showing[0])
    return tuple(lean) + columns[len(defaults):]


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


# What tells cohorts apart -> (command-line option, spec filter key) that selects one of them.
_COHORT_FILTERS = {"mlperf": ("--mlperf / --non-mlperf", "mlperf"), "round": ("--round", "round"),
                   "division": ("--division", "division"), "model": ("--model", "model"),
                   "accuracy_track": ("--track", "track"), "scenario": ("--scenario", "scenario"),
                   "unit": ("--unit", "unit")}


def check_one_cohort(results: Sequence[Result], where: str, *, can_split: bool = True) -> list[Finding]:
    """EG009 / EG003 when the results would make a comparison across cohorts. The message lists
    each cohort on its own line with its count, and names the options and spec keys that would
    select one (``can_split``: whether one table per cohort is a way out, as it is not for a headline)."""
    if len({r.conditions.identity.mlperf for r in results}) > 1:
        others = [r for r in results if not r.conditions.identity.mlperf]
        names = "; ".join(_row_name(r) for r in others[:5]) + (f"; and {len(others) - 5} more" if len(others) > 5 else "")
        return [finding("mlperf-vs-non-mlperf", where,
                        f"MLPerf and non-MLPerf results in one comparison ({len(others)} non-MLPerf: {names}). "
                        "Way out: select one kind (--mlperf or --non-mlperf; mlperf = true or false in the spec's "
                        "filters), put them in separate sections, or show them side by side in a section of kind "
                        "\"beside\".")]
    cohorts = group_by_cohort(results)
    if len(cohorts) < 2:
        return []
    differ = [k for k in _COHORT_FILTERS if len({getattr(key, k) for key, _ in cohorts}) > 1]
    lines = [f"    {key.label()}: {len(rows)} result{'s' if len(rows) != 1 else ''}" for key, rows in cohorts]
    narrow = (f"narrow the filters to one {', '.join(k.replace('_', ' ') for k in differ)} "
              f"({', '.join(_COHORT_FILTERS[k][0] for k in differ)}; "
              f"{', '.join(_COHORT_FILTERS[k][1] for k in differ)} in the spec's filters)")
    way_out = (f"one table per cohort (--split-by-cohort; split_by_cohort = true in the section), or {narrow}"
               if can_split else narrow)
    return [finding("mixed-cohort", where, f"{len(cohorts)} cohorts in one comparison:\n" + "\n".join(lines)
                    + f"\n  Way out: {way_out}.")]


def _row_name(r: Result) -> str:
    i = r.conditions.identity
    return f"{i.submitter} {i.system_id} ({r.conditions.benchmark.benchmark} {r.conditions.benchmark.scenario})"


def is_tie(higher: float, lower: float, slack: Slack) -> bool:
    """The tie rule (wording.TIE_RULE): the higher figure is at most 1 + slack times the lower.
    Nothing is a tie where the slack is not estimable: nothing is ranked there either."""
    return slack.estimable and max(higher, lower) <= min(higher, lower) * (1 + slack.fraction)


def rank_spans(values: Sequence[float], slack: Slack) -> tuple[RankSpan, ...]:
    """For values sorted high to low: each one's position and the ranks it is tied with. Ties hold
    pairwise: a row's span holds exactly the figures within slack of it (for sorted values they are
    contiguous), so no span joins two figures farther apart than the slack, and neighbours within
    it see each other. Without an estimable slack no row is ranked."""
    n = len(values)
    if not slack.estimable:
        return tuple(RankSpan(i + 1, None, None) for i in range(n))
    within = 1 + slack.fraction

    def tie(a: float, b: float) -> bool:  # is_tie, with the slack's factor worked out once
        return (a if a > b else b) <= (b if a > b else a) * within

    spans, lo, hi = [], 0, 0
    ranks = list(range(1, n + 1))  # one int object per rank, shared by the spans that name it
    for i, v in enumerate(values):
        while lo < i and not tie(values[lo], v):
            lo += 1
        if hi < i:
            hi = i
        while hi + 1 < n and tie(v, values[hi + 1]):
            hi += 1
        spans.append(RankSpan(ranks[i], ranks[lo], ranks[hi]))
    return tuple(spans)


def cohort_ranks(shown: Sequence[Result], cohort: Sequence[Result], slack: Slack) -> tuple[RankSpan, ...]:
    """Each shown row's span in its whole stored cohort (``shown`` high to low, a part of ``cohort``):
    a filter or a limit chooses the rows, never their ranks. Where the rows are not the cohort's
    first ones, each span names the cohort's size ('7 (tie 3-12) of 47'): a reader of a filtered
    table must not take its first row for the cohort's lead."""
    order, at = _cohort_order(shown, cohort)
    spans = rank_spans([r.value for r in order], slack)
    picked = [spans[at[r.natural_key]] for r in shown]
    if [s.position for s in picked] == list(range(1, len(picked) + 1)):
        return tuple(picked)
    return tuple(replace(s, of=len(order)) for s in picked)


def _cohort_order(shown: Sequence[Result], cohort: Sequence[Result]) -> tuple[list[Result], dict]:
    """The cohort high to low (a shown row it lacks joins it: a rank is never counted among fewer
    than the rows shown), and each result's place in it by its natural key."""
    keys = {r.natural_key for r in cohort}
    order = sorted([*cohort, *(r for r in shown if r.natural_key not in keys)], key=lambda r: -r.value)
    return order, {r.natural_key: i for i, r in enumerate(order)}


def rank_groups(values: Sequence[float], slack: Slack) -> list[tuple[int, int]]:
    """For values sorted high to low: (first, last) of each chain of neighbours that are tied, for
    colouring bars so that untied neighbours differ. A chain states no tie between its ends (ranks
    3 and 12 of a chain may be farther apart than the slack): a tie statement uses rank_spans."""
    groups: list[list[int]] = []
    for i, v in enumerate(values):
        if groups and is_tie(values[i - 1], v, slack):
            groups[-1].append(i)
        else:
            groups.append([i])
    return [(g[0], g[-1]) for g in groups]


def bind_table(results: Sequence[Result], *, title: str, slack: Slack, columns: Sequence[str] = DEFAULT_COLUMNS,
               prices: PriceTable | None = None, where: str = "table", limit: int | None = None,
               defaults: bool | None = None, cohort: Sequence[Result] | None = None,
               chosen_by: str = "") -> BoundTable:
    """One comparison of one cohort, highest figure first, every figure bound. ``slack`` is the whole
    stored cohort's (Store.cohort_slack), and so is every rank: ``cohort`` is the whole stored cohort
    where a filter chose ``results`` from it (Cohort.whole; ``chosen_by`` that filter in words, for
    the table note). With ``limit`` the table shows the first rows of ``results``, so the last row
    shown says that its ties go on below the cut. ``defaults``: the columns are the defaults, in some
    form (by default: they start with them, shows_defaults). Raises GuardError."""
    seen = ByIdentity()  # the parts the results share, made presentable once
    selected = sorted((presentable(r, seen) for r in results), key=lambda r: -r.value)
    results = selected[:limit]
    whole = selected if cohort is None or len(cohort) <= len(selected) else cohort
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
                                "Way out: add column throughput (--columns, or columns in the section)."))
    if "cost_per_million_tokens" in columns and prices is None:
        problems.append(finding("missing-prices", where,
                                "cost_per_million_tokens needs a price table (--prices FILE, or prices in the spec's [outputs])"))
    if problems:
        raise GuardError(problems)
    asked = tuple(columns)
    columns, empty = _without_empty_columns(asked, results)
    cohort = results[0].cohort_key
    ranked = "rank" in columns
    spans = cohort_ranks(results, whole, slack) if ranked else ()
    among = tuple(sorted((r.value for r in whole), reverse=True)) if len(results) < len(whole) else ()
    selection = " ".join(filter(None, [shown_rows_words(len(results), len(whole), chosen_by if len(selected) < len(whole)
                                                        else "", len(results) < len(selected)), empty]))
    rows = []
    # stated once by the table note, or by the row's own cells, and left out of each row's note
    shared = Shared.of(results, shown=columns)
    texts: dict[str, str] = {}  # a column's words repeat down it (accelerators, tokens per sample): held once
    for i, r in enumerate(results):
        note = row_note(r, shared)
        cells = []
        for key in columns:
            if key == "rank":
                cells.append(spans[i].words())
            elif key == "throughput":
                cells.append(BoundFigure(r, cohort, slack, note, r.value))  # the note its derived figures share
            elif key == "per_accelerator":
                cells.append(_per_accelerator(r, slack, note))
            elif key == "cost_per_million_tokens":
                cells.append(_cost(r, slack, note, prices))
            else:
                text = TEXT_COLUMNS[key][1](r)
                cells.append(texts.setdefault(text, text))
        rows.append(tuple(cells))
    cols = tuple(Column(k, "Rank" if k == "rank" else FIGURE_COLUMNS.get(k) or TEXT_COLUMNS[k][0],
                        "rank" if k == "rank" else "figure" if k == "throughput" else
                        "derived" if k in FIGURE_COLUMNS else "text") for k in columns)
    return BoundTable(title, cohort, slack, cols, tuple(rows), _table_note(results, slack, shared, ranked, selection),
                      ranked=ranked, ranks=spans, notices=scale_notices(results, "per_accelerator" in columns),
                      defaults=shows_defaults(asked) if defaults is None else defaults,
                      ranked_among=among if ranked else (), selection=selection)


# A text cell that tells a reader nothing about the row: a column of only these, the same in every row,
# is left out and said once in the table note (a Target QPS column of 'not published' in all 8 rows).
_SAYS_NOTHING = frozenset({"not published", "not reported", "unknown", "n/a", "n/a (Offline)"})


def _without_empty_columns(columns: tuple[str, ...], results: Sequence[Result]) -> tuple[tuple[str, ...], str]:
    """The columns without those empty for every row (never one a comparison must show), and the
    table note's words for what was left out ('' where nothing was)."""
    must = {c for _, showing in _MUST_SHOW.values() for c in showing}
    kept, said = [], []
    for key in columns:
        if key in TEXT_COLUMNS and key not in must:
            values = {TEXT_COLUMNS[key][1](r) for r in results}
            if len(values) == 1 and values <= _SAYS_NOTHING:
                said.append(f"{TEXT_COLUMNS[key][0]}: {values.pop()} for every row shown.")
                continue
        kept.append(key)
    return tuple(kept), " ".join(said)


def _table_note(results: Sequence[Result], slack: Slack, shared: Shared, ranked: bool, selection: str = "") -> TableNote:
    note = table_note(results[0], slack, shared)
    if ranked and not slack.estimable:
        note = replace(note, text=f"{note.text} {NOT_RANKED_SENTENCE}")
    if selection:  # which rows of the cohort the table shows: never read as the whole cohort
        note = replace(note, text=f"{note.text} {selection}")
    return note


def lean_table(table: BoundTable, asked: bool = False) -> BoundTable | None:
    """A table that shows the default columns, as a narrow page (a slide) shows it where they do not
    all fit: the lean defaults (lean_columns: those a comparison must show among them), the rank
    words and figures as bound, and every row's note bound again to what its cells now show, so that
    what left the table (the accelerator's name, the result ID's column, tokens per sample) is in the
    row's note. None where the table's columns were asked for: those stay as asked, unless ``asked``
    (a slide they cannot fit at all, which then says which columns it leaves out)."""
    has = tuple(c.key for c in table.columns)
    keys = has  # with ``asked``: the lean defaults in place of the text columns asked for, the figures as asked
    if asked:
        keys = DEFAULT_COLUMNS + tuple(k for k in has if k in FIGURE_COLUMNS and k != "throughput")
    results = _row_results(table)
    if not results:
        return None
    lean = tuple(k for k in lean_columns(keys, bool(results[0].own), results) if k in has)  # never one it lacks
    if lean == has:
        return None
    problems = _hidden_differences(results, lean, table.title)
    if problems:  # lean_columns adds what a comparison must show: never expected, never passed over
        raise GuardError(problems)
    return _showing(table, results, lean)


def _showing(table: BoundTable, results: Sequence[Result], keys: Sequence[str]) -> BoundTable:
    """``table`` with only the columns ``keys`` (in that order), each row's note and the table note
    bound again to what its cells now show, so that what left the table is in the notes."""
    keep = [[c.key for c in table.columns].index(k) for k in keys]
    shared = Shared.of(results, shown=keys)
    rows = []
    for row, r in zip(table.rows, results):
        note = row_note(r, shared)
        rows.append(tuple(replace(c, note=note) if isinstance(c, BoundFigure) else c for c in (row[i] for i in keep)))
    return replace(table, columns=tuple(table.columns[i] for i in keep), rows=tuple(rows),
                   table_note=_table_note(results, table.slack, shared, table.ranked, table.selection))


def _row_results(table: BoundTable) -> list[Result]:
    """The result of each row's figure, in row order; [] where a row holds none (no lean form then)."""
    results = []
    for row in table.rows:
        fig = next((c for c in row if isinstance(c, BoundFigure)), None)
        if fig is None:
            return []
        results.append(fig.result)
    return results


CHART_LABEL_COLUMNS = ("rank", "submitter", "system")


def lean_chart_table(table: BoundTable) -> BoundTable | None:
    """A chart of the default columns, as its bars are labelled: rank, submitter and system (and the
    availability where the bars differ in it, which a comparison must show beside each figure), the
    figures as bound; every other default column (the accelerator, the accelerators and nodes, the
    result ID, tokens per sample) goes to the bar's note, bound again to what the label now shows. The
    table's notices (the scales it spans) stay. None where the columns were asked for, or none leave."""
    if not table.defaults:
        return None
    results = _row_results(table)
    if not results:
        return None
    keys = [c.key for c in table.columns]
    label = list(CHART_LABEL_COLUMNS)
    if len({r.conditions.identity.availability for r in results}) > 1:
        label.append("availability")
    lean = [k for k in keys if k in label or k in FIGURE_COLUMNS]
    if lean == keys:
        return None
    return _showing(table, results, lean)


def scale_notices(results: Sequence[Result], per_accelerator_shown: bool = False) -> tuple[Notice, ...]:
    """EG020's statement, for a comparison of systems of different accelerator counts."""
    if len({r.conditions.configuration.accelerators_total for r in results}) < 2:
        return ()
    return (Notice(rule("mixed-scale").id, mixed_scale_words(results, per_accelerator_shown)),)


def _per_accelerator(r: Result, slack: Slack, note: Note) -> BoundFigure | str:
    total = r.conditions.configuration.accelerators_total
    if total is None:
        return "not derivable: accelerator count unknown"
    if total == 0:
        return "not derivable: CPU-only system"
    b = r.conditions.benchmark
    basis = Note(f"Derived, not an MLPerf metric: the row's {'measured' if r.own else 'official'} throughput divided "
                 "by its total accelerator "
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
                                 f"column shows it. Way out: add column {showing[0]} (--columns, or columns in the section)."))
    return found


def kpi_conditions(result: Result) -> str:
    """What a headline number states inline: round, division, benchmark, scenario and shape."""
    b, i, s = result.conditions.benchmark, result.conditions.identity, result.conditions.shape
    if not i.mlperf:
        return f"own measurement, {b.benchmark}, {own_load_of(result)}, {result.conditions.run.shape_class}"
    return (f"MLPerf® {i.round} {i.division}, {b.benchmark} {b.scenario}, {tps_words(s)}, {s.dataset}, "
            f"{result.conditions.load.arrival_process}")


def bound_figure(result: Result, slack: Slack, shared: Shared = Shared()) -> BoundFigure:
    """A result's official figure, bound to its cohort's slack and its citation (whole, unless
    ``shared`` names what a table note beside it states)."""
    result = presentable(result)
    return BoundFigure(result, result.cohort_key, slack, row_note(result, shared), result.value)


def kpi(results: Result | Sequence[Result], slack: Slack, title: str,
        cohort: Sequence[Result] | None = None, per_accelerator: bool = False, where: str = "kpi") -> KpiSection:
    """The highest figure of ``results`` (one cohort, as a section selected it; or one result) as a
    headline whose title names its submitter, system and scale, and its rank in its whole stored
    cohort (``cohort``, where a filter chose ``results`` from it) when that is a tie, not the lead,
    or cannot be told. ``per_accelerator``: the highest figure per accelerator (derived), ranked among
    the cohort's figures per accelerator."""
    ordered = sorted((presentable(r) for r in ([results] if isinstance(results, Result) else results)),
                     key=lambda r: -r.value)
    if per_accelerator:
        return _kpi_per_accelerator(ordered, slack, title, cohort, where)
    shared = Shared.of(ordered[:1])  # the headline's note and its table note, shown together
    figure = bound_figure(ordered[0], slack, shared)
    span = cohort_ranks(ordered[:1], ordered if cohort is None else cohort, slack)[0]
    headline = f"{title}: {headline_words(figure.result)}{kpi_rank_words(span, slack)}"
    return KpiSection(headline, figure, kpi_conditions(figure.result), table_note(figure.result, slack, shared),
                      rank=span, notices=scale_notices(ordered))


def _per_accelerator_count(r: Result) -> int:
    return r.conditions.configuration.accelerators_total or 0


def _kpi_per_accelerator(ordered: list[Result], slack: Slack, title: str, cohort: Sequence[Result] | None,
                         where: str) -> KpiSection:
    """The highest figure per accelerator (derived: the official figure divided by the system's total
    accelerators) as a headline labelled derived, naming submitter, system and scale, with its rank among
    the whole cohort's figures per accelerator where that is a tie, not the lead, or cannot be told.
    Dividing by an exact count keeps the ratio of two figures, so the cohort's slack decides their ties."""
    def per(r: Result) -> float:
        return r.value / _per_accelerator_count(r)

    picked = sorted((r for r in ordered if _per_accelerator_count(r) > 0), key=lambda r: -per(r))
    if not picked:
        raise GuardError([finding("empty-selection", where, "no selected result has a known accelerator count, so "
                                  "none has a figure per accelerator")])
    top = picked[0]
    whole = [presentable(r) for r in (cohort if cohort is not None else ordered) if _per_accelerator_count(r) > 0]
    keys = {r.natural_key for r in whole}
    whole = sorted([*whole, *(r for r in picked if r.natural_key not in keys)], key=lambda r: -per(r))
    spans = rank_spans([per(r) for r in whole], slack)
    span = spans[[r.natural_key for r in whole].index(top.natural_key)]
    if span.position != 1:
        span = replace(span, of=len(whole))  # not the lead: among how many, as cohort_ranks says it
    shared = Shared.of([top])
    figure = _per_accelerator(top, slack, row_note(top, shared))
    label = "" if "per accelerator" in title.lower() else " per accelerator (derived)"
    headline = f"{title}{label}: {headline_words(top)}{kpi_rank_words(span, slack)}"
    # the figure is per accelerator already: the total's size warning (EG020) does not apply to it
    return KpiSection(headline, figure, kpi_conditions(top), table_note(top, slack, shared), rank=span)


def kpi_rank_words(span: RankSpan, slack: Slack) -> str:
    """What a headline adds about its lead: nothing for a clear lead, the rank words for a tie."""
    if not span.ranked:
        return f"; {NOT_RANKED} ({slack_words(slack)})"
    return f"; rank {span.words()}" if span.tied or span.of else ""


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
            if headline_words(section.figure.result) not in section.title:
                found.append(finding("bare-figure", where, "a headline must name its submitter, system and scale in "
                                     f"its own text: {headline_words(section.figure.result)!r}"))
            if section.rank is not None and section.rank.tied and section.rank.words() not in section.title:
                found.append(finding("lead-within-slack", where, f"the headline figure is tied ({section.rank.words()}) "
                                     "and its title does not say so"))
            found += _scale_findings(section.notices, None, where)
        elif isinstance(section, BesideSection):
            found += validate_beside(section, where)
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
    figures = list(table.figures())  # walked once: every check below reads these
    found = check_one_cohort([f.result for _, _, f in figures], where)
    clean: set[str] = set()  # text cells repeat (submitter, accelerator): each distinct text is read once
    for r, row in enumerate(table.rows):
        for c, cell in enumerate(row):
            if isinstance(cell, str) and cell not in clean:
                if reads_like_a_figure(cell):
                    found.append(finding("bare-figure", f"{where}, row {r + 1}, column {c + 1}",
                                         f"the source text {cell!r} reads like a throughput figure; a reader would "
                                         "take it for one. Correct the name at its source."))
                else:
                    clean.add(cell)
    checked: set[int] = set()
    for r, c, fig in figures:
        found += _validate_figure(fig, table.table_note, f"{where}, row {r + 1}, column {c + 1}", checked)
        if (fig.cohort is not table.cohort and fig.cohort != table.cohort) or \
                (fig.slack is not table.slack and fig.slack != table.slack):
            found.append(finding("mixed-cohort", f"{where}, row {r + 1}", "figure of another cohort (or band) than the table's"))
    if table.ranked:
        found += _validate_ranking(table, where)
    results = [f.result for _, _, f in figures if f.derivation is None]
    found += _hidden_differences(results, [c.key for c in table.columns], where)
    found += _scale_findings(table.notices, results, where, any(c.key == "per_accelerator" for c in table.columns))
    return found


def _scale_findings(notices: Sequence[Notice], results: Sequence[Result] | None, where: str,
                    per_accelerator_shown: bool = False) -> list[Finding]:
    """EG020 (a warning, recorded in the manifest) for a comparison across system scales, and EG008
    when the comparison does not carry the statement that says so. ``results`` None: a headline,
    whose notices were made where the figures it was picked from were known (guard.kpi)."""
    mixed = [n for n in notices if n.rule_id == rule("mixed-scale").id]
    if results is not None:
        # an own run's undescribed system has no count (None): an unknown scale, said as such
        counts = sorted({r.conditions.configuration.accelerators_total for r in results}, key=lambda n: (n is None, n))
        if len(counts) < 2:
            return []
        if not mixed or mixed[0].text != mixed_scale_words(results, per_accelerator_shown):
            shown = ", ".join("an unknown number of" if n is None else str(n) for n in counts)
            return [finding("hidden-difference", where, f"the compared systems have {shown} "
                            "accelerators and the table does not carry the statement that says so (guard.scale_notices)")]
    if not mixed:
        return []
    # a headline has no derived columns to add; a table that shows them needs no advice on them
    per = "" if results is None or per_accelerator_shown else f"; {PER_ACCELERATOR_ADVICE}"
    return [finding("mixed-scale", where, f"{mixed[0].text} {ONE_SCALE_ADVICE}{per}.")]


# The way out of a comparison across scales: for the person who runs the export (stderr and the
# manifest), never inside an artifact, whose readers have no command line.
ONE_SCALE_ADVICE = ("For one scale: --accelerator-count N (list, cohorts, export) or accelerator_count = N in a "
                    "spec's filters")
PER_ACCELERATOR_ADVICE = "per accelerator: --derived per_accelerator or derived = [\"per_accelerator\"] in the section"


def warning_lines(findings: Sequence[Finding]) -> list[str]:
    """The guard's warnings of one export, one line per rule: which sections it concerns and the way out,
    once. Each artifact states its own notices in full; the manifest keeps each finding as found."""
    by_rule: dict[str, list[Finding]] = {}
    for f in findings:
        by_rule.setdefault(f.rule_id, []).append(f)
    lines = []
    for rule_id, found in by_rule.items():
        r = found[0].rule
        sections = [m.group(1) for m in (re.match(r"section (\d+)", f.location) for f in found) if m]
        where = (f"in {'section' if len(sections) == 1 else 'sections'} {series_words(sections)}"
                 if len(sections) == len(found) else f"at {'; '.join(f.location for f in found)}")
        if rule_id == rule("mixed-scale").id:
            per = f"; {PER_ACCELERATOR_ADVICE}" if any(PER_ACCELERATOR_ADVICE in f.message for f in found) else ""
            lines.append(f"{r.id} {r.name} {where}: each compares systems of different scales and says so. "
                         f"{ONE_SCALE_ADVICE}{per}.")
        else:
            lines.append(f"{r.id} {r.name} {where}: {found[0].message}")
    return lines


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
        wrong = [] if citation == expected else [name for name in Citation.__dataclass_fields__
                                                 if getattr(citation, name) != getattr(expected, name)]
        if absent or wrong:
            found.append(finding("missing-citation-field", where, f"the footnote lacks: {', '.join(absent)}" if absent
                                 else f"the footnote's {', '.join(wrong)} do not match the figure's result"))
    if fig.own:
        if not fig.note.text.startswith(OWN_NOTE_MARK) or citation != Citation.of(fig.result) or fig.verified:
            found.append(finding("own-measurement-not-labelled", where, f"{fig.text()!r} is an own measurement, but "
                                 f"its note does not open with {OWN_NOTE_MARK!r} or does not match its run"))
    elif citation.verified != fig.verified or (not fig.verified and (
            "unverified" not in fig.note.text or UNVERIFIED_SENTENCE not in f"{fig.note.text} {shared.text}")):
        found.append(finding("unverified-not-labelled", where, f"{fig.text()!r} is unverified but its note does not say "
                             f"so, or neither its note nor its table note gives {UNVERIFIED_SENTENCE!r}"))
    if fig.result.conditions.identity.mlperf and not _sourced(fig, shared):
        found.append(finding("missing-citation-field", where, f"{fig.text()!r}: neither its note nor its table note "
                             "gives its source and retrieval date"))
    if fig.derivation is not None:
        basis = fig.derivation.note
        if basis.basis_of != fig.derivation.label or basis.shape_of != fig.result.conditions.benchmark.benchmark:
            found.append(finding("derived-not-labelled", where, f"{fig.text()!r} is derived but its note does not "
                                 "state its basis and the MLPerf shape it comes from"))
    return found


def _sourced(fig: BoundFigure, shared: TableNote) -> bool:
    """The figure's source and retrieval date stand in its note, or its table note gives them for it."""
    c, text, common = fig.note.citation, fig.note.text, shared.shared
    return (c.source in text and c.retrieved_on in text) or (
        common.covers_source(fig.result) and _NOTE_GIVES_SOURCES.get(shared, _gives_sources))


def _gives_sources(note: TableNote) -> bool:
    """The table note names the repository and the retrieval date its rows share."""
    return repository_words(note.shared.repository) in note.text and note.shared.retrieved_on in note.text


_NOTE_GIVES_SOURCES = ByIdentity()  # asked for each figure of a table, of the one note they share


def _validate_ranking(table: BoundTable, where: str) -> list[Finding]:
    """Every tie a rank states holds pairwise, and every pair within slack is shown tied: the rank
    cells read as the spans of the shown figures (and as ``table.ranks``, where the table has them)."""
    rank_col = next((i for i, c in enumerate(table.columns) if c.key == "rank"), None)
    fig_col = next((i for i, c in enumerate(table.columns) if c.kind == "figure"), None)
    if rank_col is None or fig_col is None:
        return []
    figures = [row[fig_col] for row in table.rows]
    values = [f.magnitude for f in figures]
    among = list(table.ranked_among) or values  # what the ranks count in: the whole cohort, where shown in part
    expected = rank_spans(among, table.slack)
    found = []

    def wrong(i: int, shown: str, why: str) -> None:
        found.append(finding("lead-within-slack", f"{where}, row {i + 1}",
                             f"rank {shown!r} for {figures[i].text()} {why} (cohort slack {slack_words(table.slack)}; "
                             f"{TIE_RULE})"))

    if table.ranks and len(table.ranks) != len(table.rows):
        return [finding("lead-within-slack", where, f"{len(table.ranks)} rank spans for {len(table.rows)} rows")]
    if table.ranked_among and not table.ranks:
        return [finding("lead-within-slack", where, "a table that shows part of its cohort carries no rank spans")]
    previous = 0
    for i, row in enumerate(table.rows):
        span = table.ranks[i] if table.ranks else None
        cell = row[rank_col]
        if span is None:
            if cell != expected[i].words():
                wrong(i, cell, f"must read {expected[i].words()!r}")
            continue
        place = span.position
        if not (previous < place <= len(among)) or among[place - 1] != values[i] or \
                (not table.ranked_among and place != i + 1):
            wrong(i, cell, "is not the row's place in its cohort")
            continue
        previous, want = place, expected[place - 1]
        first_rows = table.ranks[-1].position == len(table.rows)  # the cohort's first rows: no size needed
        if span.ranked and span.of != (None if first_rows else len(among)):
            want = replace(want, of=None if first_rows else len(among))
            wrong(i, cell, f"must read {want.words()!r}: a rank of part of a cohort names the cohort's size")
        elif cell != span.words():
            wrong(i, cell, f"does not read as its rank span {span.words()!r}")
        elif span.ranked != want.ranked:
            wrong(i, cell, f"must read {want.words()!r}")
        elif span.ranked and (span.tie_from != want.tie_from or
                              (span.tie_to != want.tie_to and not (not table.ranked_among and want.tie_to == len(values)
                                                                   and span.tie_to > want.tie_to))):
            # a table that shows the first rows of a ranking may name ties below its last row, never others
            wrong(i, cell, f"must read {want.words()!r}: a lead inside the slack is a tie, and a lead beyond it is not")
    return found


def validate_beside(section: BesideSection, where: str) -> list[Finding]:
    """Two panels that are never one comparison: an MLPerf cohort's and own runs', each a valid table
    of its own, on axes of their own, with the shape panel their figures give."""
    if section.axis != "separate":
        return [one_axis_refusal(where)]
    found = []
    panels = [("MLPerf panel", section.mlperf, True)] + [(f"own panel, table {k}", t, False)
                                                         for k, t in enumerate(section.own, 1)]
    if not section.own:
        found.append(finding("empty-selection", where, "the own panel holds no table"))
    for label, table, mlperf in panels:
        results = [f.result for _, _, f in table.figures()]
        if not results or any(r.conditions.identity.mlperf != mlperf for r in results):
            found.append(finding("mlperf-vs-non-mlperf", f"{where}, {label}", f"the {label} must hold "
                                 f"{'MLPerf figures' if mlperf else 'own runs'} only"))
            continue
        found += _validate_table(table, f"{where}, {label}")
    if not any(f.severity == ERROR for f in found) and section.shape != ShapePanel.of(section.mlperf, section.own):
        found.append(finding("bare-figure", where, "the shape panel does not state the shapes of the figures beside it"))
    return found


def one_axis_refusal(where: str, chart: bool = False) -> Finding:
    way_out = ('a section of kind "beside" with mlperf = { ... } and own = { ... } filters' if chart else
               'leave axis out (or axis = "separate")')
    return finding("one-axis-for-mlperf-and-own", where,
                   "MLPerf figures and own measurements cannot share one axis: they are measured at different shapes "
                   f"and loads, and one scale makes them read as one comparison. Way out: {way_out}: the beside "
                   "section draws two panels, each with its own axis, band and notes, and a shape panel that states "
                   "both shapes.")


def refuse_on_errors(findings: Iterable[Finding]) -> tuple[Finding, ...]:
    """Raise on errors; return the warnings (they go into the manifest)."""
    findings = tuple(findings)
    errors = [f for f in findings if f.severity == ERROR]
    if errors:
        raise GuardError(errors)
    return findings
