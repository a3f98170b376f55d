"""Ranks and counts in a workbook are numbers (issue 17 in XLSX): a rank cell holds its position and
its format shows the report's words (``0" (tie 3-11)"``), accelerator and node counts are numbers
whose format shows the rest of their words, so sorting and filtering work; every tie a sheet states
holds pairwise (guard.is_tie); the tie rule, the EG020 notices and the marks (lettered in order of
reading) stand on the sheet; the workbook checks clean.
"""
from __future__ import annotations

import re

import pytest
from openpyxl import load_workbook

from exportguard.check.engine import check
from exportguard.check.numfmt import format_number
from exportguard.guard import is_tie
from exportguard.render import export
from exportguard.report import TableSection
from exportguard.spec import build_report, spec_from_filters
from exportguard.wording import TIE_RULE, mark_name

pytestmark = pytest.mark.real_data

TIE = re.compile(r"^(\d+)(?: \(tie (\d+)-(\d+)\))?$")
MARKS = re.compile(r"\[([a-z]+)\]")


@pytest.fixture(scope="module")
def v51(v51_store, tmp_path_factory):
    spec = spec_from_filters({"round": ("v5.1",), "division": ("closed",)}, split_by_cohort=True,
                             columns=("rank", "submitter", "system", "accelerators", "nodes", "availability",
                                      "result_id", "throughput"))
    report = build_report(v51_store, spec)
    [path] = export(report, [tmp_path_factory.mktemp("xlsx_ranks") / "ranks.xlsx"])
    return report, path


def _shown(cell) -> str:
    return cell.value if cell.data_type == "s" else format_number(cell.value, cell.number_format)


def _sheets(report, wb):
    for section, ws in zip(report.sections, [w for w in wb.worksheets if w.sheet_state == "visible"]):
        assert isinstance(section, TableSection)
        header = int(ws.freeze_panes[1:]) - 1
        heads = [c.value for c in ws[header]]
        rows = [list(r) for r in ws.iter_rows(min_row=header + 1, max_row=header + len(section.table.rows))]
        yield section.table, ws, heads, rows


def test_ranks_and_counts_are_numbers_that_show_the_reports_words(v51):
    report, path = v51
    wb = load_workbook(path)
    ranked = 0
    for table, ws, heads, rows in _sheets(report, wb):
        rank, acc, nodes = heads.index("Rank"), heads.index("Accelerators"), heads.index("Nodes")
        for r, row in enumerate(rows):
            span = table.ranks[r]
            if span.ranked:
                ranked += 1
                assert row[rank].data_type == "n" and row[rank].value == span.position
            assert _shown(row[rank]) == span.words() == table.rows[r][0]
            conf = table.rows[r][-1].result.conditions.configuration
            assert row[acc].data_type == "n" and row[acc].value == conf.accelerators_total
            assert _shown(row[acc]) == table.rows[r][3]
            assert row[nodes].data_type == "n" and row[nodes].value == conf.nodes
        # sorting by the rank number gives the figures high to low, as a user sorting the sheet sees them
        figure = heads.index("Throughput, tok/s")
        if table.slack.estimable:
            by_rank = sorted(rows, key=lambda row: -row[rank].value)[::-1]
            values = [row[figure].value for row in by_rank]
            assert values == sorted(values, reverse=True)
        assert ws.auto_filter.ref.startswith("A")
    assert ranked > 100


def test_every_pair_of_ranks_states_a_tie_exactly_where_the_tie_rule_holds(v51):
    report, path = v51
    wb = load_workbook(path)
    pairs = 0
    for table, ws, heads, rows in _sheets(report, wb):
        if not table.slack.estimable:
            assert all(_shown(row[heads.index("Rank")]) == "not ranked" for row in rows)
            continue
        rank, figure = heads.index("Rank"), heads.index("Throughput, tok/s")
        spans = []
        for row in rows:
            m = TIE.match(_shown(row[rank]))
            assert m, _shown(row[rank])
            pos = int(m.group(1))
            spans.append((pos, int(m.group(2) or pos), int(m.group(3) or pos)))
        values = [row[figure].value for row in rows]
        for i, (pi, lo, hi) in enumerate(spans):
            for j, (pj, _, _) in enumerate(spans):
                if i == j:
                    continue
                pairs += 1
                stated = lo <= pj <= hi
                assert stated == is_tie(values[i], values[j], table.slack), (ws.title, pi, pj)
        column_a = [v for (v,) in ws.iter_rows(min_col=1, max_col=1, values_only=True) if v]
        assert TIE_RULE in column_a
    assert pairs > 1000


def test_notices_and_marks_in_order_of_reading(v51):
    report, path = v51
    wb = load_workbook(path)
    for table, ws, heads, rows in _sheets(report, wb):
        column_a = [v for (v,) in ws.iter_rows(min_col=1, max_col=1, values_only=True) if v]
        for notice in table.notices:
            assert notice.text in column_a[:6]  # above the header row, repeated on every printed page
        seen: list[str] = []
        for row in ws.iter_rows():
            for cell in row:
                if cell.value is None:
                    continue
                for m in MARKS.findall(_shown(cell)):
                    if m not in seen:
                        seen.append(m)
        assert seen == [mark_name(i) for i in range(len(seen))], ws.title


def test_the_ranked_workbook_checks_clean(v51):
    _, path = v51
    [r] = check([path], isolate=False)
    assert r.hits == [], [str(h) for h in r.hits[:5]]
    assert r.manifest["figures"] > 300
