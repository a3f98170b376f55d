"""The streaming SpreadsheetML writer (render/xlsx_writer.py) on its own: what it writes is what
openpyxl, the checker's reader and LibreOffice read back, text stays text, and every sheet setting
(merges, frozen pane, autofilter, print titles, page set-up, header and footer, a very hidden
sheet, comments, number formats) is where a reader looks for it."""
from __future__ import annotations

import subprocess
import zipfile

from openpyxl import load_workbook

from exportguard.check.safety import SafeZip
from exportguard.check.xlsx_reader import Workbook as ReadBook, comments, stream_cells
from exportguard.clock import Clock
from exportguard.render.xlsx_writer import Alignment, Font, PageSetup, Style, WorkbookWriter
from tests.office import convert, tool

STYLES = {"text": Style(Font("Calibri"), border="BFBFBF", alignment=Alignment(wrap=True, vertical="top")),
          "figure": Style(Font("Calibri", 10, bold=True, color="404040"), fill="D9E1F2",
                          alignment=Alignment(horizontal="right"))}
HOSTILE = ["=1+1", "+A1", "-2", "@SUM(A1)", "_x0041_ stays as written", "a & <b> \"q\" 'q'", "  leading and trailing  ",
           "two\nlines", "bell\x07 and \ufffe", "plain"]
CLOCK = Clock.from_epoch(1757376000)


def write(path, title="Sheet 'one'"):
    book = WorkbookWriter(STYLES, title="A & B", creator="exportguard")
    sheet = book.add_sheet(title, [30, 12.34], freeze_row=2, page=PageSetup(landscape=True), title_rows="1:1",
                           header="&L&8 A && B", footer="&C&8 caveat")
    sheet.append([(1, "Header", book.xf("text"), True), (2, "Figure", book.xf("text"), True)])
    author = book.author("exportguard")
    for k, text in enumerate(HOSTILE):
        quote = text.startswith(("=", "+", "-", "@"))
        r = sheet.append([(1, text, book.xf("text", None, quote), True),
                          (2, 1234.5 + k, book.xf("figure", '#,##0" tok/s ±5.4% [a]"'), False)], height=30 if k else None)
        sheet.comment(r, 2, f"note {k}: {text}", author, 460, 48)
    r = sheet.append([(1, "a note merged across the table", book.xf("text"), True)])
    sheet.merge(r, 1, r, 2)
    sheet.auto_filter = f"A1:B{1 + len(HOSTILE)}"
    hidden = book.add_sheet("manifest", [20], freeze_row=None, page=PageSetup(landscape=False), title_rows=None,
                            header="", footer="", state="veryHidden")
    hidden.append([(1, '{"x": 1}', book.xf("text"), True)])
    try:
        book.save(path, CLOCK)
    finally:
        book.close()
    return path


def expected(text: str) -> str:
    return text.replace("\x07", "\ufffd").replace("\ufffe", "\ufffd")


def test_openpyxl_reads_every_cell_and_setting(tmp_path):
    path = write(tmp_path / "w.xlsx")
    wb = load_workbook(path)
    ws = wb["Sheet 'one'"]
    # openpyxl does not undo the _x005F_ escape that Excel, LibreOffice and the checker read as "_"
    assert [ws.cell(r, 1).value for r in range(2, 2 + len(HOSTILE))] == [
        expected(t).replace("_x0041_", "_x005F_x0041_") for t in HOSTILE]
    for r, text in enumerate(HOSTILE, 2):
        cell = ws.cell(r, 1)
        assert cell.data_type == "s"  # never a formula
        assert cell.quotePrefix == text.startswith(("=", "+", "-", "@"))
        assert ws.cell(r, 2).value == 1234.5 + r - 2 and ws.cell(r, 2).number_format == '#,##0" tok/s ±5.4% [a]"'
        assert ws.cell(r, 2).comment.text == f"note {r - 2}: {expected(text)}".replace("_x0041_", "_x005F_x0041_")
    assert ws.cell(2, 2).font.b and ws.cell(2, 2).fill.fgColor.rgb == "FFD9E1F2"
    assert ws.cell(2, 1).alignment.wrap_text and ws.cell(2, 1).border.left.style == "thin"
    assert [str(m) for m in ws.merged_cells.ranges] == [f"A{2 + len(HOSTILE)}:B{2 + len(HOSTILE)}"]
    assert ws.freeze_panes == "A2" and ws.auto_filter.ref == f"A1:B{1 + len(HOSTILE)}"
    assert ws.print_title_rows == "$1:$1"
    assert ws.page_setup.orientation == "landscape" and ws.page_setup.fitToWidth == 1 and ws.page_setup.fitToHeight == 0
    assert ws.sheet_properties.pageSetUpPr.fitToPage
    assert ws.column_dimensions["B"].width == 12.3 and ws.row_dimensions[3].height == 30
    assert ws.oddHeader.left.text == "A && B" and ws.oddFooter.center.text == "caveat"
    assert wb["manifest"].sheet_state == "veryHidden"
    assert wb.properties.title == "A & B" and wb.properties.created.year == 2025


def test_the_checker_reads_what_was_written(tmp_path):
    path = write(tmp_path / "w.xlsx")
    z = SafeZip(path)
    book = ReadBook(z)
    assert [(n, s) for n, s, _ in book.sheets] == [("Sheet 'one'", "visible"), ("manifest", "veryHidden")]
    assert book.custom_formats == 1
    rows = {}
    stream_cells(book, book.sheets[0][2], lambda r, cells: rows.setdefault(r, cells))
    assert [rows[r][0][1] for r in range(2, 2 + len(HOSTILE))] == [expected(t) for t in HOSTILE]
    assert rows[2][1][1] == "1,235 tok/s ±5.4% [a]"
    notes = dict(comments(book, book.sheets[0][2]))
    assert notes["B2"] == "note 0: =1+1" and len(notes) == len(HOSTILE)


def test_the_package_is_the_same_every_time(tmp_path):
    a, b = write(tmp_path / "a.xlsx"), write(tmp_path / "b.xlsx")
    assert a.read_bytes() == b.read_bytes()
    with zipfile.ZipFile(a) as z:
        names = z.namelist()
        assert names[:2] == ["[Content_Types].xml", "_rels/.rels"] and names[2:] == sorted(names[2:])
        assert {i.date_time for i in z.infolist()} == {CLOCK.zip_time()}
        assert "xl/comments/comment1.xml" in names and "xl/drawings/commentsDrawing1.vml" in names


def test_libreoffice_shows_text_as_text(tmp_path):
    path = write(tmp_path / "w.xlsx", title="one")
    # the first sheet, cells as shown (the 9th filter token)
    done = subprocess.run([tool("soffice", "libreoffice"), f"-env:UserInstallation=file://{tmp_path / 'lo'}", "--headless",
                           "--convert-to", "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true",
                           "--outdir", str(tmp_path / "csv"), str(path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    shown = (tmp_path / "csv" / "w.csv").read_text(encoding="utf-8")
    for text in ("=1+1", "+A1", "-2", "@SUM(A1)", "_x0041_ stays as written", "1,235 tok/s ±5.4% [a]"):
        assert text in shown, (text, shown[:400])
    [pdf] = convert([path], tmp_path, "pdf")  # and it renders the whole workbook
    assert pdf.stat().st_size > 0


def test_the_built_in_number_formats_are_openpyxls():
    # xlsx_formats lists them itself so that an export does not import openpyxl; they must stay alike
    from openpyxl.styles.numbers import BUILTIN_FORMATS

    from exportguard.render import xlsx_formats

    assert xlsx_formats.BUILTIN_FORMATS == frozenset(BUILTIN_FORMATS.values())


def test_the_format_budget_does_not_import_openpyxl():
    import subprocess
    import sys

    code = ("import sys; from exportguard.render import xlsx_formats as f; "
            "assert f.is_custom('#,##0\" tok/s\"') and not f.is_custom('0.00%'); print('openpyxl' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_print_titles_areas_paper_and_the_tallest_row_are_what_excel_reads(tmp_path):
    """The print set-up a workbook printed in strips needs, as openpyxl (Excel's reading) sees it: the
    key columns and title rows repeated, the print areas (a beside section prints each panel on its own
    pages), the paper; and no row taller than Excel's 409 points, however tall it was asked to be."""
    book = WorkbookWriter(STYLES, title="print", creator="exportguard")
    page = PageSetup(landscape=True, scale=73, col_breaks=(5,), paper="letter", title_cols=3,
                     areas=((1, 6), (9, 12)))
    sheet = book.add_sheet("It's printed", [10] * 14, freeze_row=3, page=page, title_rows="1:2", header="", footer="")
    for k in range(5):
        sheet.append([(1, f"row {k}", book.xf("text"), True)], height=1000 if k == 2 else None)
    try:
        book.save(tmp_path / "p.xlsx", CLOCK)
    finally:
        book.close()
    ws = load_workbook(tmp_path / "p.xlsx")["It's printed"]
    assert ws.print_title_cols == "$A:$C" and ws.print_title_rows == "$1:$2"
    assert ws.print_area == "'It''s printed'!$A$1:$F$5,'It''s printed'!$I$1:$L$5"
    assert ws.page_setup.paperSize == 1 and ws.page_setup.scale == 73 and [b.id for b in ws.col_breaks.brk] == [5]
    assert ws.row_dimensions[3].height == 409


def test_a_title_block_beside_its_notes_spans_rows_excel_allows():
    """The rows above a table printed in strips: the title block and the notes stacked independently,
    each text spanning as many rows as it needs, none taller than 400 points (a 6,000-character note in
    a narrow strip spans several), the block as tall as its taller stack."""
    from exportguard.render import xlsx, xlsx_layout as lay

    widths = [13, 14, 45, 26, 30, 20, 40]
    plan = lay.print_plan(widths, 11, lay.Paper("letter"), key=3)
    assert plan.key == 3 and plan.col_breaks
    left = [("A title", "title"), ("The caveat " * 20, "caveat")]
    right = [("[a] " + "a long note " * 500, "note"), ("[b] short", "note")]
    heights, places = xlsx._stacked(left, right, widths, plan)
    assert all(h <= xlsx.MAX_ROW_PT for h in heights) and len(heights) > 3
    own = [(a or plan.key, b) for a, b in plan.strips()]
    tall = max(lay.height("[a] " + "a long note " * 500, sum(widths[a:b]) - xlsx.ASIDE_INDENT) for a, b in own)
    first = [p for p in places if p[4].startswith("[a]")]
    assert len(first) == len(own)  # a copy in each strip
    r0, r1 = first[0][0], first[0][1]
    assert sum(heights[r0:r1 + 1]) >= tall - 0.5
    assert [p[2:4] for p in places if p[4] == "A title"] == [(0, 3)]


def test_the_pager_keeps_a_tables_tail_with_its_last_row():
    """The one pager (layout/pager.py) makes a table's printed pages: the legend or notes under the
    rows never print on a page without a row; where they do not fit under the last page's rows, the
    last row goes on with them (the one manual break); a tail taller than a page flows on."""
    from exportguard.render import xlsx_layout as lay

    plan = lay.print_plan([20] * 5, 11, lay.Paper("letter"))
    assert plan.scale == 100 and round(plan.page_height) == 537
    assert lay.page_breaks(plan, [100], [20] * 20, [60]) == [19]  # 100 + 400 + 60 > 537: row 20 goes on
    assert lay.page_breaks(plan, [100], [20] * 10, [60]) == []  # it all fits one page
    assert lay.page_breaks(plan, [100], [20] * 30, [None]) == []  # 15 pt fit under the last page's rows
    assert lay.page_breaks(plan, [100], [20] * 20, [600]) == []  # taller than a page: it flows on
    assert lay.page_breaks(plan, [100], [20] * 41, [60]) == [40]  # the second page: 21 rows, then 60 pt
