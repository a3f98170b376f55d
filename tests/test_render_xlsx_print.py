"""A printed workbook (issue 16 item 3): printed through LibreOffice's PDF export on A4 and on Letter,
every sheet's text is at least 8 pt on paper, the first page of each table shows figures with their band
beside the names of their rows, each notes block wraps inside its table's first page and begins on the
page of the table's last figures or on the page right after it.

The sizes and the placement are read back from the PDF exactly as bench/xlsx_print.py reads them (the
same functions), so the bench's numbers and this test cannot drift apart.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from openpyxl import load_workbook

from exportguard.render import export
from exportguard.render import xlsx, xlsx_layout
from exportguard.spec import build_report, parse_spec
from tests.office import convert

pytestmark = pytest.mark.real_data

BENCH = Path(__file__).resolve().parents[1] / "bench"

SPEC = '''
title = "Printed comparison: llama2-70b-99 and llama3.1-8b, MLPerf v5.1 closed"
[filters]
round = "v5.1"
division = "closed"
[[section]]
kind = "kpi"
title = "Highest llama2-70b-99 Server throughput"
filters = { model = "llama2-70b", track = "99", scenario = "Server" }
[[section]]
kind = "text"
title = "How to read the printout"
text = "Each figure carries its unit, band and note mark; the notes follow each table."
[[section]]
kind = "table"
title = "llama2-70b-99 Offline, per accelerator and software"
filters = { model = "llama2-70b", track = "99", scenario = "Offline" }
columns = ["rank", "submitter", "system", "accelerator", "accelerators", "availability", "result_id",
           "tokens_per_sample", "software", "throughput"]
derived = ["per_accelerator"]
[[section]]
kind = "table"
title = "llama3.1-8b Server"
filters = { model = "llama3.1-8b", scenario = "Server" }
'''


def _bench():
    """bench/xlsx_print.py as a module: its PDF measurement is the one this test asserts on."""
    if "eg_bench_xlsx_print" not in sys.modules:
        spec = importlib.util.spec_from_file_location("eg_bench_xlsx_print", BENCH / "xlsx_print.py")
        module = sys.modules[spec.name] = importlib.util.module_from_spec(spec)  # its dataclasses look it up
        spec.loader.exec_module(module)
    return sys.modules["eg_bench_xlsx_print"]


@pytest.fixture(scope="module")
def printed(v51_store, tmp_path_factory):
    bench = _bench()
    folder = tmp_path_factory.mktemp("xlsx_print")
    report = build_report(v51_store, parse_spec(SPEC, name="print.toml"))
    [path] = export(report, [folder / "print.xlsx"])
    papers = {paper: bench.on_paper(path, code, folder / f"print-{paper}.xlsx") for paper, code in bench.PAPERS.items()}
    pdfs = convert(list(papers.values()), folder, timeout=600)
    return bench, path, {paper: bench.printed_pages(pdf) for paper, pdf in zip(papers, pdfs)}


@pytest.mark.parametrize("paper", ["A4", "Letter"])
def test_every_sheet_prints_at_8_pt_or_more(printed, paper):
    bench, path, pages = printed
    sizes = bench.sizes(pages[paper])
    shown = {ws.title for ws in load_workbook(path, read_only=True).worksheets if ws.sheet_state == "visible"}
    assert shown <= set(sizes), f"sheets without a page of their own: {shown - set(sizes)}"
    small = {sheet: min(found) for sheet, (_, found) in sizes.items() if min(found) < xlsx_layout.PRINT_MIN_PT}
    assert not small, f"{paper}: text below {xlsx_layout.PRINT_MIN_PT} pt on paper: {small}"


@pytest.mark.parametrize("paper", ["A4", "Letter"])
def test_notes_begin_on_the_last_figures_page_or_the_next(printed, paper):
    bench, path, pages = printed
    after = bench.notes_after(pages[paper])
    tables = [ws.title for ws in load_workbook(path, read_only=True).worksheets
              if ws.title.startswith(("llama2-70b", "llama3.1-8b"))]
    assert len(tables) == 2 and set(tables) <= set(after), after
    late = {sheet: n for sheet, n in after.items() if n not in (0, 1)}
    assert not late, f"{paper}: notes more than a page after their figures: {late}"


@pytest.mark.parametrize("paper", ["A4", "Letter"])
def test_the_first_printed_page_of_each_table_shows_figures_with_their_band_beside_the_names(printed, paper):
    """A reader of page 1 sees numbers, not only names: the figure column prints on the first page
    beside rank, submitter and system, even where the spec lists it last or its text is very wide
    (a cohort without a band says why in every figure)."""
    bench, path, pages = printed
    first = bench.first_page_figures(pages[paper])
    tables = [ws.title for ws in load_workbook(path, read_only=True).worksheets
              if ws.title.startswith(("llama2-70b", "llama3.1-8b"))]
    assert len(tables) == 2
    for sheet in tables:
        page = next(p for p in pages[paper] if p.sheet == sheet)
        texts = {t for t, _ in page.runs}
        assert first[sheet] >= 3, f"{paper}: page 1 of {sheet} shows {first[sheet]} figures with their band"
        assert {"Rank", "Submitter", "System"} <= texts, f"{paper}: page 1 of {sheet} does not name its rows"


def test_wide_texts_wrap_inside_the_first_page_of_the_table(printed):
    """No merged text crosses a column page break or runs past the table (a note cut at a page
    edge is unreadable on both pages), and the page set-up is the planned one."""
    _, path, _ = printed
    wb = load_workbook(path)
    for ws in wb.worksheets:
        if ws.sheet_state != "visible":
            continue
        breaks = [b.id for b in ws.col_breaks.brk]
        assert ws.page_setup.scale * xlsx._SMALLEST_PT >= 100 * xlsx_layout.PRINT_MIN_PT
        if breaks:
            assert ws.page_setup.pageOrder == "overThenDown"
        for merged in ws.merged_cells.ranges:
            assert merged.max_col <= ws.max_column
            assert not any(merged.min_col <= b < merged.max_col for b in breaks), f"{ws.title}!{merged.coord}"


def test_a_plan_splits_a_wide_sheet_into_page_wide_groups_keeping_a_figure_with_its_band_edges():
    widths = [13, 14, 20, 16, 18.8, 14, 10.4, 11, 15, 26.7, 41.4, 41.4]
    plan = xlsx_layout.print_plan(widths, 10, keep=[(9, 12)])
    assert plan.scale == 80 and plan.header_pt == 10  # 10 pt text at 80 % is 8 pt; so is the page header
    room = xlsx_layout.PRINT_WIDTH[True] * 100 / plan.scale
    edges = [0, *plan.col_breaks, len(widths)]
    for a, b in zip(edges, edges[1:]):
        assert xlsx_layout.columns_pt(widths[a:b]) <= room
    assert not any(9 < b < 12 for b in plan.col_breaks)  # the figure and its band edges share a page
    narrow = xlsx_layout.print_plan([20, 30, 20], 10)
    assert narrow.col_breaks == () and narrow.scale == 100  # a sheet that fits prints at full size


def test_a_plan_keeps_the_first_figure_on_the_first_page_beside_the_identifying_columns():
    """Rank, submitter, system and the first figure share the first page; a figure's band edges keep
    together; the identifying text columns narrow where a very wide figure would not fit beside them."""
    Col = xlsx_layout.Col
    cols = [Col("rank", "Rank", 0, 13), Col("text", "Submitter", 1, 14), Col("text", "System", 2, 35),
            Col("figure", "Throughput, tok/s", 5, 60), Col("text", "Accelerator", 3, 16),
            Col("text", "Result ID", 4, 10.4), Col("band_low", "Band low edge, tok/s", 5, 41.4),
            Col("band_high", "Band high edge, tok/s", 5, 41.4)]
    assert xlsx_layout.lead_columns(cols) == 4
    keep = xlsx_layout.keep_runs(cols)
    assert (0, 4) in keep and (6, 8) in keep
    plan = xlsx_layout.print_plan([c.width for c in cols], 10, keep=keep)
    assert plan.first_cols >= 4 and 7 not in plan.col_breaks
    wide = [Col("rank", "Rank", 0, 13), Col("text", "Submitter", 1, 14), Col("text", "System", 2, 20),
            Col("figure", "Throughput, tok/s", 5, 95)]
    xlsx_layout._fit_first_page(wide, 10)
    room = xlsx_layout.PRINT_WIDTH[True] * 100 / 80
    assert xlsx_layout.columns_pt([c.width for c in wide]) <= room
    assert wide[0].width == 13 and wide[3].width == 95 and wide[2].width < 20  # only wrapping text narrows
