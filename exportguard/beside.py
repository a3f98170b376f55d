"""An MLPerf cohort beside the user's own runs, never in one comparison (report.BesideSection).

The guard binds each panel as the table it is (bind_table, each with its own cohort's band rule and
notes), builds the shape panel from the two bound tables (report.ShapePanel.of), and refuses one axis
for both (EG021), naming the way out.
"""
from __future__ import annotations

from typing import Sequence

from .guard import DEFAULT_COLUMNS, GuardError, lean_columns, bind_table, shows_defaults, one_axis_refusal
from .model import Cohort
from .report import BesideSection, ShapePanel
from .rules import finding

AXES = ("separate", "shared")
MAX_OWN_COHORTS = 4  # own cohorts (one table each) a panel beside an MLPerf cohort shows


def beside_section(mlperf: Cohort, own: Sequence[Cohort], *, title: str, columns: Sequence[str] = DEFAULT_COLUMNS,
                   own_columns: Sequence[str] = DEFAULT_COLUMNS, limit: int | None = None, axis: str = "separate",
                   where: str = "beside") -> BesideSection:
    """Raises GuardError: one axis asked for, or a panel of the wrong kind."""
    if axis != "separate":
        raise GuardError([one_axis_refusal(where)])
    problems = []
    if not mlperf.key.mlperf:
        problems.append(finding("mlperf-vs-non-mlperf", f"{where}, MLPerf panel",
                                f"{mlperf.key.label()} is not an MLPerf cohort: the MLPerf panel holds MLPerf figures only"))
    for cohort in own:
        if cohort.key.mlperf:
            problems.append(finding("mlperf-vs-non-mlperf", f"{where}, own panel",
                                    f"{cohort.key.label()} is an MLPerf cohort: the own panel holds your own runs only"))
    if len(own) > MAX_OWN_COHORTS:
        problems.append(finding("mixed-cohort", f"{where}, own panel", f"the own filters select {len(own)} own cohorts; "
                                f"a panel beside MLPerf shows at most {MAX_OWN_COHORTS} (one table each). Way out: "
                                "narrow the own filters of the section"))
    if problems:
        raise GuardError(problems)
    tables = []
    for label, cohort, cols in [("MLPerf panel", mlperf, columns)] + [("own panel", c, own_columns) for c in own]:
        try:
            tables.append(bind_table(cohort.results, title=f"{title}: {label_of(label, cohort)}", slack=cohort.slack,
                                     columns=lean_columns(cols, not cohort.key.mlperf, cohort.results),
                                     where=f"{where}, {label}", limit=limit, defaults=shows_defaults(cols),
                                     cohort=cohort.whole))
        except GuardError as e:
            problems += e.findings
    if problems:
        raise GuardError(problems)
    return BesideSection(title, tables[0], tuple(tables[1:]), ShapePanel.of(tables[0], tuple(tables[1:])))


def label_of(panel: str, cohort: Cohort) -> str:
    return cohort.key.label() if panel == "MLPerf panel" else f"your runs, {cohort.key.label()}"
