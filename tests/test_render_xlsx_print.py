"""A printed workbook a procurement team can use (issues 16 and 34): the demo's report and the shipped
vendor comparison, exported for A4 and for Letter and printed through LibreOffice's PDF export. Every
page that shows a figure shows its row's key (rank, submitter, system) and the figure's note; no page
holds furniture only; no text prints under 8 pt; the demo's workbook takes at most 16 Letter pages.

The pages are read back exactly as bench/xlsx_print.py reads them (the same functions), so the bench's
numbers and this test cannot drift apart.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from openpyxl import load_workbook

from exportguard.render import xlsx_layout
from tests.office import tool

pytestmark = [pytest.mark.real_data, pytest.mark.slow]

BENCH = Path(__file__).resolve().parents[1] / "bench"
REPO = BENCH.parent


def _bench():
    """bench/xlsx_print.py as a module: its PDF measurement is the one this test asserts on."""
    if "eg_bench_xlsx_print" not in sys.modules:
        sys.path.insert(0, str(BENCH))
        spec = importlib.util.spec_from_file_location("eg_bench_xlsx_print", BENCH / "xlsx_print.py")
        module = sys.modules[spec.name] = importlib.util.module_from_spec(spec)  # its dataclasses look it up
        spec.loader.exec_module(module)
    return sys.modules["eg_bench_xlsx_print"]


@pytest.fixture(scope="module")
def printed(v51_store, tmp_path_factory):
    """(spec, paper) -> (workbook, its sheets as printed)."""
    tool("soffice", "libreoffice")
    bench = _bench()
    folder = tmp_path_factory.mktemp("xlsx_print")
    names = {"demo": bench.DEMO, "vendor-comparison": REPO / "examples" / "vendor-comparison.toml"}
    books = bench.workbooks(v51_store, folder, names)
    pdfs = bench.to_pdf(list(books.values()), folder)
    return {key: (path, bench.measure(bench.printed_pages(pdf))) for (key, path), pdf in zip(books.items(), pdfs)}


CASES = [(name, paper) for name in ("demo", "vendor-comparison") for paper in ("a4", "letter")]


@pytest.mark.parametrize("case", CASES, ids=["-".join(c) for c in CASES])
def test_every_page_with_a_figure_names_its_rows_and_holds_its_notes(printed, case):
    path, sheets = printed[case]
    tables = [s for s in sheets if s.sheet.startswith("llama")]
    assert tables, [s.sheet for s in sheets]
    for s in tables:
        assert s.unnamed == 0, f"{case} {s.sheet}: {s.unnamed} pages show figures without rank, submitter and system"
        assert s.farthest in (0, 1), f"{case} {s.sheet}: a note prints {s.farthest} pages from its figure (-1: missing)"
    for s in sheets:
        assert s.furniture == 0, f"{case} {s.sheet}: {s.furniture} pages with neither a row nor a note"


@pytest.mark.parametrize("case", CASES, ids=["-".join(c) for c in CASES])
def test_every_sheet_prints_at_8_pt_or_more(printed, case):
    path, sheets = printed[case]
    shown = {ws.title for ws in load_workbook(path, read_only=True).worksheets if ws.sheet_state == "visible"}
    assert shown <= {s.sheet for s in sheets}, f"sheets without a page of their own: {shown - {s.sheet for s in sheets}}"
    # 11 pt at the 73 % scale is 8.03 pt as Excel prints it; LibreOffice's PDF export rounds it to 7.99 pt
    small = {s.sheet: s.smallest for s in sheets if s.smallest < xlsx_layout.PRINT_MIN_PT - 0.02}
    assert not small, f"{case}: text below {xlsx_layout.PRINT_MIN_PT} pt on paper: {small}"


def test_the_demo_workbook_prints_on_16_letter_pages_and_the_vendor_comparison_on_20(printed):
    """Issue 34's targets. The demo's workbook: 61 Letter pages before (three column strips per row block,
    the notes pages away, the Sources on 19 pages), at most 16 now. The shipped vendor comparison: 68
    before, 29 with the first print plan; its fifteen columns (a price column among them) print in three
    strips a row block, two row blocks a scenario, at most 20 pages on A4 and on Letter."""
    demo = sum(s.pages for s in printed["demo", "letter"][1])
    assert demo <= 16, demo
    for paper_ in ("a4", "letter"):
        vendor = sum(s.pages for s in printed["vendor-comparison", paper_][1])
        assert vendor <= 20, (paper_, vendor)


def test_the_decision_strip_holds_the_result_id(printed):
    """The first printed strip takes the decision columns a later strip would hold where they fit: the
    vendor comparison's throughput, per accelerator figure and result ID print on one page."""
    path, _ = printed["vendor-comparison", "letter"]
    wb = load_workbook(path)
    ws = wb["llama2-70b-99 Offline"]
    header = next(r for r in ws.iter_rows(values_only=True) if r[0] == "Rank")
    first = ws.col_breaks.brk[0].id  # columns on the first strip (1-based, the break after it)
    shown = [str(h) for h in header[:first]]
    assert any(h.startswith("Throughput") for h in shown) and "Result ID" in shown, shown
    assert any(h.startswith("Per accelerator") for h in shown), shown


@pytest.mark.parametrize("case", CASES, ids=["-".join(c) for c in CASES])
def test_the_workbook_sets_its_paper_and_prints_its_key_on_every_strip(printed, case):
    path, _ = printed[case]
    wb = load_workbook(path)
    for ws in wb.worksheets:
        if ws.sheet_state != "visible":
            continue
        assert ws.page_setup.paperSize == {"a4": 9, "letter": 1}[case[1]]
        assert ws.page_setup.scale * 11 >= 100 * xlsx_layout.PRINT_MIN_PT
        breaks = [b.id for b in ws.col_breaks.brk]
        if breaks:
            assert ws.page_setup.pageOrder == "overThenDown"
            assert ws.print_title_cols == "$A:$C"  # rank, submitter, system on every strip
        for merged in ws.merged_cells.ranges:  # no text merged across a page edge
            assert not any(merged.min_col <= b < merged.max_col for b in breaks), f"{ws.title}!{merged.coord}"


def test_a_plan_repeats_the_key_on_every_strip_and_keeps_the_band_edges_off_paper():
    Col = xlsx_layout.Col
    cols = [Col("rank", "Rank", 0, 13, key="rank"), Col("text", "Submitter", 1, 14, key="submitter"),
            Col("text", "System", 2, 45, key="system"), Col("figure", "Throughput, tok/s", 5, 26),
            Col("figure", "Per accelerator (derived)", 6, 55), Col("text", "Result ID", 4, 10.4, key="result_id"),
            Col("text", "Accelerator", 3, 30, key="accelerator"), Col("text", "Software", 7, 60, key="software"),
            Col("band_low", "Band low edge, tok/s", 5, 41.4), Col("band_high", "Band high edge, tok/s", 5, 41.4)]
    assert xlsx_layout.key_columns(cols) == 3 and xlsx_layout.printed_columns(cols) == 8
    plan = xlsx_layout.sheet_plan(cols, 11, xlsx_layout.Paper("letter"))
    assert plan.scale == 73 and plan.key == 3 and plan.printed_cols == 8
    key = xlsx_layout.columns_pt([c.width for c in cols[:3]])
    for k, (a, b) in enumerate(plan.strips()):  # each strip, with the key before it, fits the page
        assert xlsx_layout.columns_pt([c.width for c in cols[a:b]]) + (key if k else 0) <= plan.room
    assert plan.strips()[0][1] >= 5  # the key and both figures on the first strip
    narrow = xlsx_layout.print_plan([20, 30, 20], 11)
    assert narrow.col_breaks == () and narrow.scale == 100 and narrow.key == 0  # a sheet that fits: full size


def test_a_row_is_planned_as_tall_as_calibri_wraps_it():
    """Line breaks from Calibri's widths (Carlito's): a system name that fits its column stays one line,
    one that does not takes two; a word wider than the column breaks anywhere."""
    name = "Dell PowerEdge XE9680L (8x B200-SXM-180GB, TensorRT)"
    width = xlsx_layout.one_line_width(name)
    assert xlsx_layout.lines(name, width) == 1 and xlsx_layout.lines(name, width - 1) == 2
    assert xlsx_layout.lines("W" * 30, 20) > xlsx_layout.lines("i" * 30, 20) == 1
