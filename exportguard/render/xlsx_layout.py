"""Where things go on an XLSX sheet, decided before anything is written: sheet names, the columns
of a table (with band edges and sort values beside each figure column), column widths and row
heights from the text they must show. Pure functions; render/xlsx.py writes what they decide.

Widths are in Excel's unit (the width of a "0"); heights in points.
"""
from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from typing import Sequence

from ..embedding import XLSX_MANIFEST_SHEET
from ..report import BesideSection, BoundTable, ChartSection, KpiSection, Report, TableSection, TextSection
from ..wording import band_words
from .walk import Lettering

# Text columns wrap beyond this many characters, or these: narrow enough that a table prints at a
# readable size (taller rows cost less paper than a sheet too wide for a page).
TEXT_WIDTH_CAP = 18
TEXT_CAPS = {"rank": 13, "tokens_per_sample": 16, "system": 20, "software": 20, "submitter": 14, "accelerator": 16}
HEADLINE_TEXT_CAP = 28  # a headline row is one per figure: its names wrap less
NUMBER_TEXT_CAP = 28  # rank and count cells are numbers (their words in the format): they cannot wrap
BAND_TEXT_CAP = 22  # "slack not estimable: ..." in a band column wraps at this width
FIGURE_WIDTH_CAP = 250  # numeric cells cannot wrap: a figure column is as wide as its widest figure
PAGE_COL = 76  # the one column of a portrait text sheet (Caveat, Notes) fits the page at 100 %
WIDTH_SAMPLE = 4000  # rows sampled for text column widths in very long tables
WIDEN_SAMPLE = 200  # rows sampled when a page's spare width is shared among its wrapping columns
LINE_PT = 14.5  # one line of 11 pt text
TABLE_SMALLEST_PT = 10  # a table sheet's smallest text (its notes and legend): it sets the print scale
RESERVED_SHEETS = ("Caveat", "Sources", XLSX_MANIFEST_SHEET, "History")
_BAD_SHEET_CHARS = re.compile(r"[\[\]:*?/\\\x00-\x1f]")


@dataclass
class Col:
    kind: str  # text / rank / count / figure / sort / band_low / band_high / verified
    header: str
    src: int  # index into the table's cells (-1: from the row's first figure)
    width: float = 10.0
    as_text: bool = False  # a figure written as its text (text-cell mode)


# -- text measurement ----------------------------------------------------------------------------

@functools.lru_cache(maxsize=8192)
def lines(text: str, width_chars: float, font_pt: float = 11) -> int:
    """Lines a wrapped text takes in a cell ``width_chars`` wide, by greedy word wrap. Generous on
    purpose: without Calibri, LibreOffice draws with a wider substitute (DejaVu Sans), and neither
    application grows a merged row to fit its text."""
    # Measured in LibreOffice with DejaVu Sans: ~1.15-1.25 characters per width unit for prose, ~1.17
    # for dense notes (capitals, digits, URLs); a 10 pt text gets no credit for being smaller.
    cap = max(4, int((width_chars - 1) * 1.05 * min(1.0, 11 / font_pt)))
    total = 0
    for para in str(text).split("\n"):
        if len(para) <= cap:
            total += 1
            continue
        count, line = 1, 0
        for word in para.split(" "):
            w = len(word)
            if line and line + 1 + w <= cap:
                line += 1 + w
                continue
            if line:
                count += 1
            while w > cap:  # a word longer than the line (a URL) breaks anywhere
                count += 1
                w -= cap
            line = w
        total += count
    return total


def height(text: str, width_chars: float, font_pt: float = 11) -> float:
    return round(lines(text, width_chars, font_pt) * LINE_PT * font_pt / 11 + 3, 1)


def row_height(n_lines: int) -> float | None:
    return n_lines * LINE_PT + 3 if n_lines > 1 else None


def display_len(text: str) -> int:
    return max((len(line) for line in str(text).split("\n")), default=0)


def longest_word(text: str) -> int:
    return max((len(w) for w in str(text).split()), default=0)


def sample(rows: Sequence) -> Sequence:
    if len(rows) <= WIDTH_SAMPLE:
        return rows
    step = len(rows) // WIDTH_SAMPLE + 1
    return list(rows[:WIDTH_SAMPLE // 2]) + list(rows[WIDTH_SAMPLE // 2::step])


# -- sheet names ---------------------------------------------------------------------------------

def sheet_names(report: Report) -> dict[int, str]:
    """Section index -> sheet name: the cohort ('llama2-70b-99 Offline'), with round and division
    added where two sections would share a name; unique, at most 31 characters, no forbidden ones."""
    sections = report.sections
    taken = {n.lower() for n in RESERVED_SHEETS}
    if any(isinstance(s, KpiSection) for s in sections):
        taken.add("headline")
    if any(isinstance(s, TextSection) for s in sections):
        taken.add("notes")
    tables = [(i, s) for i, s in enumerate(sections) if isinstance(s, (TableSection, ChartSection))]
    for i, s in enumerate(sections):  # a beside section: its MLPerf cohort and the own runs beside it
        if isinstance(s, BesideSection):
            tables.append((i, s))
    tables.sort(key=lambda t: t[0])
    short = {i: _section_sheet_name(s, long=False) for i, s in tables}
    counts = _counted(short.values())
    # Sections that share a cohort are told apart by what they show (a per-accelerator view, a
    # chart), sections of different rounds or divisions by those; the cohort always stays whole in
    # the name ('Chart v5.1 closed llama2-70' read as another benchmark).
    shown = {i: short[i] + (" per acc." if _per_accelerator_only(s) else "") for i, s in tables}
    seen = _counted(shown.values())
    shown = {i: shown[i] + " chart" if seen[shown[i].lower()] > 1 and isinstance(s, ChartSection) else shown[i]
             for i, s in tables}
    seen = _counted(shown.values())
    names: dict[int, str] = {}
    for i, s in tables:
        if counts[short[i].lower()] == 1:
            name = short[i]
        elif seen[shown[i].lower()] == 1:
            name = shown[i]
        else:
            name = _section_sheet_name(s, long=True)
        names[i] = unique_sheet_name(name, taken)
    return names


def _per_accelerator_only(section) -> bool:
    """A section that shows its figures per accelerator alone (derived), not the totals."""
    table = getattr(section, "table", None)
    keys = {c.key for c in table.columns} if table is not None else set()
    return "per_accelerator" in keys and "throughput" not in keys


def _counted(names) -> dict[str, int]:
    counts: dict[str, int] = {}
    for n in names:
        counts[n.lower()] = counts.get(n.lower(), 0) + 1
    return counts


def _section_sheet_name(section, long: bool) -> str:
    if isinstance(section, BesideSection):
        return _cohort_sheet_name(section.mlperf, long) + ", own runs"
    return _cohort_sheet_name(section.table, long)


def _cohort_sheet_name(table: BoundTable, long: bool) -> str:
    k = table.cohort
    bench = k.benchmark or f"{k.model}-{k.accuracy_track}"
    base = f"{bench} {k.scenario}" if k.mlperf else f"Own runs {bench} {k.scenario}"
    if long:
        base = f"{k.round} {k.division} {base}" if k.mlperf else f"{base} {k.unit}"
    return base


def unique_sheet_name(name: str, taken: set[str]) -> str:
    name = _BAD_SHEET_CHARS.sub("-", name).strip().strip("'").strip() or "Table"
    name = name[:31].rstrip()
    candidate, n = name, 2
    while candidate.lower() in taken:
        suffix = f" ({n})"
        candidate = name[: 31 - len(suffix)].rstrip() + suffix
        n += 1
    taken.add(candidate.lower())
    return candidate


# -- a table's columns ---------------------------------------------------------------------------

def table_columns(table: BoundTable, lettering: Lettering, text_cells: bool) -> list[Col]:
    """The table's columns, with band low/high (and in text-cell mode a sort value) beside each
    figure column, and a Verified column beside the result ID when the table has none."""
    cols: list[Col] = []
    add_verified = "verified" not in [c.key for c in table.columns]
    basis_marks = _basis_marks(table, lettering)
    for i, c in enumerate(table.columns):
        if c.holds_figures:
            unit = column_unit(table, i)
            derived = c.kind == "derived"
            header = c.header
            if derived and "derived" not in header.lower():
                header += " (derived)"
            if derived and i in basis_marks:
                header += f"; basis in note [{basis_marks[i]}]"
            if add_verified:
                cols.append(Col("verified", "Verified", -1))
                add_verified = False
            tag = " (derived)" if derived else ""
            if text_cells:
                cols.append(Col("figure", f"{header}, {unit}", i, as_text=True))
                # no unit words in this header: a number under a heading that names a unit reads as a figure
                cols.append(Col("sort", f"Sort value{tag} (the figure beside, as a number)", i))
            else:
                cols.append(Col("figure", f"{header}, {unit}", i))
            if not derived:  # a derived figure's text carries the same ± band; its own edges add little
                cols.append(Col("band_low", f"Band low edge, {unit}", i))
                cols.append(Col("band_high", f"Band high edge, {unit}", i))
        else:
            kind = "rank" if c.kind == "rank" else "count" if c.key in ("accelerators", "nodes") else "text"
            cols.append(Col(kind, c.header, i))
            if c.key == "result_id" and add_verified:
                cols.append(Col("verified", "Verified", -1))
                add_verified = False
    return _figures_first(cols, table)


# The columns that say which row a figure is: printed on the first page with the figures.
IDENTITY_KEYS = ("rank", "submitter", "system")


def _figures_first(cols: list[Col], table: BoundTable) -> list[Col]:
    """The identifying columns (rank, submitter, system), each figure column (with its sort value),
    the other columns, then the band edges, each group in the table's order. A sheet wider than a
    page prints the figures on its first page beside the names of their rows, and its last column
    group, the page before the notes, holds figures' band edges: every page that shows a mark has its
    note on that page or the next."""
    def identity(c: Col) -> bool:
        return c.src >= 0 and c.kind in ("text", "rank") and table.columns[c.src].key in IDENTITY_KEYS

    figures = [c for c in cols if c.kind in ("figure", "sort")]
    edges = [c for c in cols if c.kind in ("band_low", "band_high")]
    lead = [c for c in cols if identity(c)]
    return lead + figures + [c for c in cols if not identity(c) and c not in figures and c not in edges] + edges


def _basis_marks(table: BoundTable, lettering: Lettering) -> dict[int, str]:
    """Column -> the one mark all its derived figures share for their basis note."""
    found: dict[int, set] = {}
    for _, c, fig in table.figures():
        if fig.derivation is not None:
            found.setdefault(c, set()).add(lettering.letters(fig)[-1])
    return {c: next(iter(m)) for c, m in found.items() if len(m) == 1}


def column_unit(table: BoundTable, i: int) -> str:
    for row in table.rows:
        if not isinstance(row[i], str):
            return row[i].unit_text
    return ""


def size_columns(cols: list[Col], table: BoundTable, figure_chars: dict[int, int], band_chars: dict[int, int],
                 sort_chars: dict[int, int] | None = None, smallest_pt: float = TABLE_SMALLEST_PT) -> None:
    """Widths: a figure or band column as wide as its widest text (numbers cannot wrap), a text
    column as wide as its text up to a cap (then it wraps), never narrower than its header's words;
    the identifying columns narrower where that lets the first figure print on the first page."""
    rows = sample(table.rows)
    for col in cols:
        head = longest_word(col.header) + 2
        if col.kind == "figure":
            col.width = min(FIGURE_WIDTH_CAP, max(head, figure_chars.get(col.src, 10) * 1.05 + 2.5))
        elif col.kind == "sort":
            col.width = min(FIGURE_WIDTH_CAP, max(head, (sort_chars or figure_chars).get(col.src, 10) * 1.05 + 2.5))
        elif col.kind in ("band_low", "band_high"):
            col.width = min(FIGURE_WIDTH_CAP, max(head, band_chars.get(col.src, 10) * 1.05 + 2.5))
        elif col.kind == "verified":
            col.width = max(head, 11)
        else:
            cap = TEXT_CAPS.get(table.columns[col.src].key,
                                NUMBER_TEXT_CAP if col.kind in ("rank", "count") else TEXT_WIDTH_CAP)
            widest = max((display_len(r[col.src]) for r in rows), default=0)
            col.width = max(head, min(cap, widest * 1.05 + 2))
    _tighten(cols, table)
    _fit_first_page(cols, smallest_pt)
    _widen_into_pages(cols, table, smallest_pt)


def _wrapped_texts(col: Col, rows: Sequence) -> list[str] | None:
    """The texts a wrapping column shows in ``rows`` (a text column, or band edges that say in words
    why a cohort has no band); None for a column of numbers, which cannot wrap."""
    if col.kind == "text":
        return [str(r[col.src]) for r in rows]
    if col.kind in ("band_low", "band_high"):
        figs = [r[col.src] for r in rows if not isinstance(r[col.src], str)]
        if figs and all(not f.slack.estimable for f in figs):
            return [band_words(f.slack) for f in figs]
    return None


def _tighten(cols: list[Col], table: BoundTable) -> None:
    """A wrapping column narrowed to the least width at which its texts wrap to no more lines than at
    its planned width: the width it gives back can save a page width (the spare is shared out again
    once the sheet's pages are planned)."""
    rows = table.rows[:WIDEN_SAMPLE] if len(table.rows) > WIDEN_SAMPLE else table.rows
    for col in cols:
        texts = _wrapped_texts(col, rows)
        if not texts:
            continue
        least = _least_width(col)
        planned = [lines(t, col.width) for t in texts]
        width = col.width
        while width - 0.5 >= least and all(lines(t, width - 0.5) <= n for t, n in zip(texts, planned)):
            width -= 0.5
        col.width = width


def _fit_first_page(cols: list[Col], smallest_pt: float) -> None:
    """Narrow the identifying text columns (they wrap) until the first figure column prints on the
    first page beside them, at the scale that keeps ``smallest_pt`` text at PRINT_MIN_PT; a figure
    column is as wide as its widest text (a cohort without a band says so in it)."""
    lead = lead_columns(cols)
    room = PRINT_WIDTH[True] * smallest_pt / PRINT_MIN_PT
    texts = [c for c in cols[:lead] if c.kind == "text"]
    while texts and columns_pt([c.width for c in cols[:lead]]) > room:
        widest = max(texts, key=lambda c: c.width - _least_width(c))
        if widest.width - 0.5 < _least_width(widest):
            return
        widest.width -= 0.5


def _widen_into_pages(cols: list[Col], table: BoundTable, smallest_pt: float) -> None:
    """A sheet wider than a page prints in page-wide column groups: the room each group leaves goes to
    its wrapping text columns, a little at a time to the one whose widening saves the most lines of
    the rows it makes tall, so that more rows fit a page. The groups stay as planned: each only fills
    its own page."""
    plan = print_plan([c.width for c in cols], smallest_pt, keep=keep_runs(cols))
    if not plan.col_breaks:
        return  # a sheet one page wide keeps its scale (widening it would shrink it on paper)
    room = PRINT_WIDTH[True] * 100 / plan.scale
    rows = table.rows[:WIDEN_SAMPLE] if len(table.rows) > WIDEN_SAMPLE else table.rows
    shown = [(c, _wrapped_texts(c, rows)) for c in cols]
    shown = [(c, t) for c, t in shown if t and len(t) == len(rows)]
    if not rows or not shown:
        return
    texts = [c for c, _ in shown]
    values = [list(row) for row in zip(*(t for _, t in shown))]
    edges = [0, *plan.col_breaks, len(cols)]
    for a, b in zip(edges, edges[1:]):
        _one_line_headers(cols[a:b], room)
        mine = [k for k, c in enumerate(texts) if c in cols[a:b]]
        while mine:
            spare = (room - columns_pt([c.width for c in cols[a:b]])) / PT_PER_UNIT
            now = [[lines(v, c.width) for v, c in zip(row, texts)] for row in values]
            tallest = [max(n) for n in now]
            best = None  # (lines saved per unit of width, column, width added)
            for k in mine:
                others = [max(n[:k] + n[k + 1:], default=1) for n in now]
                for add in (x / 2 for x in range(1, int(2 * spare) + 1)):
                    saved = sum(t - max(o, lines(row[k], texts[k].width + add))
                                for t, o, row in zip(tallest, others, values))
                    if saved > 0:
                        if best is None or saved / add > best[0]:
                            best = (saved / add, k, add)
                        break
            if best is None:
                break
            texts[best[1]].width += best[2]
    first = [c for c in cols[:edges[1]] if c.kind == "text"]
    if first:  # what the first page still leaves: the wide texts above the table merge across it
        first[-1].width += max(0.0, (room - columns_pt([c.width for c in cols[:edges[1]]])) / PT_PER_UNIT - 0.5)


def _one_line_headers(group: Sequence[Col], room: float) -> None:
    """The header row repeats on every printed page: a header that wraps (``Result ID`` in bold in a
    column as wide as ``5.1-0065``) is widened to one line where the page has the room."""
    for c in group:
        need = c.width
        while lines(c.header, need * 0.9) > 1 and need < c.width + 6:  # bold text is wider (header_height)
            need += 0.5
        fits = columns_pt([g.width for g in group]) + (need - c.width) * PT_PER_UNIT <= room
        if fits and lines(c.header, need * 0.9) == 1:
            c.width = need


def _least_width(col: Col) -> float:
    return max(10.0, longest_word(col.header) + 2)


def lead_columns(cols: Sequence[Col]) -> int:
    """How many columns, from the first, print on the first page: up to the first figure and its sort
    value (0 for a table without figures)."""
    k = next((k for k, c in enumerate(cols) if c.kind == "figure"), None)
    if k is None:
        return 0
    end = k + 1
    while end < len(cols) and cols[end].kind == "sort" and cols[end].src == cols[k].src:
        end += 1
    return end


def keep_runs(cols: Sequence[Col]) -> list[tuple[int, int]]:
    """Runs of columns kept on one printed page where they fit one: the columns up to the first
    figure (the identifying columns and that figure), each other figure with its sort value, and the
    low and high edges of each figure's band."""
    lead = lead_columns(cols)
    runs, k = ([(0, lead)] if lead > 1 else []), lead
    while k < len(cols):
        end = k + 1
        kinds = ("sort",) if cols[k].kind == "figure" else ("band_high",) if cols[k].kind == "band_low" else ()
        while end < len(cols) and cols[end].kind in kinds and cols[end].src == cols[k].src:
            end += 1
        if end > k + 1:
            runs.append((k, end))
        k = end
    return runs


def header_height(cols: Sequence[Col]) -> float | None:
    return row_height(max(lines(c.header, c.width * 0.9) for c in cols))  # bold text is wider


def footer_caveat(short: str) -> str:
    """The one-line caveat for the page footer (Excel allows 255 characters for the whole footer,
    its '&C&8 ' codes included): an over-long caveat is cut at a word and points to its sheet."""
    text = short.replace("\n", " ").replace("&", "&&")
    room = 255 - len("&C&8 ")
    if len(text) <= room:
        return text
    tail = " ... (full caveat on the Caveat sheet)"
    cut = text[: room - len(tail)]
    return cut.rsplit(" ", 1)[0].rstrip("&") + tail


# -- print: the size on paper, planned ---------------------------------------------------------------
# A sheet prints at a fixed scale chosen here, never "fit to page width": fitting a wide sheet to one
# page shrank its text to 3-4 pt. The scale is the largest at which the sheet fits one page width, but
# never less than what keeps its smallest text at PRINT_MIN_PT; a sheet still wider than a page goes
# on consecutive pages (across, then down) in page-wide column groups, and its wide texts (title,
# notes) are merged across the first group only, so no note is cut at a page edge.

PRINT_MIN_PT = 8  # the smallest text size on paper (issue 16)
# Printable area in points of the smaller of A4 and Letter, inside the sheet's margins (0.4 in at the
# sides, 0.6 in top and 0.85 in bottom): the plan holds on either paper.
PRINT_WIDTH = {True: (11.0 - 0.8) * 72, False: (8.27 - 0.8) * 72}  # landscape / portrait
PRINT_HEIGHT = {True: (8.27 - 1.45) * 72, False: (11.0 - 1.45) * 72}
# LibreOffice without Calibri sizes a column by its substitute's "0" (DejaVu Sans): measured, a column
# of width w takes 6.65 w + 3.75 pt; a little more is planned so that no group spills onto a page.
PT_PER_UNIT = 6.9
PT_PER_COL = 3.75
DEFAULT_ROW_PT = 15.0  # a row without a height of its own


@dataclass(frozen=True)
class PrintPlan:
    """How a sheet prints: its scale (percent), the columns after which a new page starts (1-based;
    empty when the sheet is one page wide) and the page header and footer size that prints at
    PRINT_MIN_PT at that scale."""

    scale: int
    col_breaks: tuple[int, ...]
    header_pt: int
    ncols: int
    paper_height: float = PRINT_HEIGHT[True]  # printable, in points of paper

    @property
    def first_cols(self) -> int:
        """Columns on the first page: wide texts merge across these, never across a page edge."""
        return self.col_breaks[0] if self.col_breaks else self.ncols

    def cols_on_page(self, col0: int, ncols: int) -> int:
        """Of ``ncols`` columns from ``col0`` (0-based), how many print before the next page edge."""
        edge = next((b for b in self.col_breaks if b > col0), None)
        return ncols if edge is None else max(1, min(ncols, edge - col0))

    @property
    def page_height(self) -> float:
        """The printable height of a page in the sheet's own points (at 100 %)."""
        return self.paper_height * 100 / self.scale


def columns_pt(widths: Sequence[float]) -> float:
    return sum(w * PT_PER_UNIT + PT_PER_COL for w in widths)


def print_plan(widths: Sequence[float], smallest_pt: float, landscape: bool = True,
               keep: Sequence[tuple[int, int]] = ()) -> PrintPlan:
    """The scale and column groups of a sheet whose smallest text is ``smallest_pt``. ``keep``: runs
    of columns (0-based, end exclusive) kept on one page where they fit one, e.g. a figure and its
    band edges."""
    page = PRINT_WIDTH[landscape]
    least = math.ceil(100 * PRINT_MIN_PT / smallest_pt)
    fit = math.floor(100 * page / max(1.0, columns_pt(widths)))
    scale = max(least, min(100, fit))
    breaks: list[int] = []
    if fit < least:
        room = page * 100 / scale
        runs: dict[int, int] = {}
        for a, b in keep:  # of two runs from one column, the longer that fits
            if columns_pt(widths[a:b]) <= room and b > runs.get(a, a):
                runs[a] = b
        used, i = 0.0, 0
        while i < len(widths):
            j = runs.get(i, i + 1)
            need = columns_pt(widths[i:j])
            if used and used + need > room:
                breaks.append(i)
                used = 0.0
            used += need
            i = j
    header = math.ceil(PRINT_MIN_PT * 100 / scale)
    return PrintPlan(scale, tuple(breaks), header, len(widths), PRINT_HEIGHT[landscape])


def notes_need_page(plan: PrintPlan, title_rows: Sequence[float | None], body_rows: Sequence[float | None],
                    notes_rows: Sequence[float | None]) -> bool:
    """Whether the notes block should start a page of its own: when it would not fit whole under the
    table's last rows (pages repeat ``title_rows``), or when the sheet is more than one page wide (the
    table's last page is then a continuation page, after the page that would hold the notes)."""
    if plan.col_breaks:
        return True
    page = plan.page_height
    title = sum(h or DEFAULT_ROW_PT for h in title_rows)
    used = title
    for h in body_rows:
        h = h or DEFAULT_ROW_PT
        if used + h > page and used > title:
            used = title
        used += h
    notes = sum(h or DEFAULT_ROW_PT for h in notes_rows)
    return used + notes > page and notes <= page - title
