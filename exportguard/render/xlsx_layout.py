"""Where things go on an XLSX sheet, decided before anything is written: sheet names, the columns
of a table (with band edges and sort values beside each figure column), column widths and row
heights from the text they must show. Pure functions; render/xlsx.py writes what they decide.

Widths are in Excel's unit (the width of a "0"); heights in points.
"""
from __future__ import annotations

import bisect
import dataclasses
import functools
import itertools
import math
import re
from dataclasses import dataclass
from typing import Sequence

from ..embedding import XLSX_MANIFEST_SHEET
from ..layout import paper
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
TABLE_SMALLEST_PT = 11  # a table sheet's smallest text (its notes and legend): it sets the print scale
RESERVED_SHEETS = ("Caveat", "Sources", XLSX_MANIFEST_SHEET, "History")
_BAD_SHEET_CHARS = re.compile(r"[\[\]:*?/\\\x00-\x1f]")


@dataclass
class Col:
    kind: str  # text / rank / count / figure / sort / band_low / band_high / verified
    header: str
    src: int  # index into the table's cells (-1: from the row's first figure)
    width: float = 10.0
    as_text: bool = False  # a figure written as its text (text-cell mode)
    key: str = ""  # the report column's key ("system"), where it is one


# -- text measurement ----------------------------------------------------------------------------

# Text widths: Calibri's advance widths (1/1000 em; Carlito, its metric twin, has the same), so that a
# planned row is as tall as Excel and LibreOffice draw it: a row taller than its text wastes paper, one
# shorter cuts it (neither application grows a row of a set height). Measured from Carlito; a character
# not listed counts as the widest capital.
_CHARS = (' !"#$%&\'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~'
          '±®≈×…–—’‘“”é·°µ')
class _Widths(dict):
    """Advance widths by character; a character not listed is as wide as the widest capital."""

    def __missing__(self, ch: str) -> int:
        return _UNLISTED


_REGULAR = _Widths(zip(_CHARS, map(int, """
226 326 401 498 507 715 682 221 303 303 498 498 250 306 252 386 507 507 507 507 507 507 507 507 507 507 268 268 498
498 498 463 894 579 544 533 615 488 459 631 623 252 319 520 420 855 646 662 517 673 543 459 487 642 567 890 519 487
468 307 386 307 498 498 291 479 525 423 525 498 305 471 525 230 239 455 230 799 525 527 525 525 349 391 335 525 452
715 433 453 395 314 460 314 498 498 507 498 498 690 498 905 250 250 418 418 498 252 339 550""".split())))
_BOLD = _Widths(zip(_CHARS, map(int, """
226 326 438 498 507 729 705 233 312 312 498 498 258 306 267 430 507 507 507 507 507 507 507 507 507 507 276 276 498
498 498 463 898 606 561 529 630 488 459 637 631 267 331 547 423 874 659 676 532 686 563 473 495 653 591 906 551 520
478 325 430 325 498 498 300 494 537 418 537 503 316 474 537 246 255 480 246 813 537 538 537 537 355 399 347 537 473
745 459 474 397 344 475 344 498 498 507 498 498 711 498 905 258 258 435 435 503 268 342 563""".split())))
_UNLISTED = 906
# A column w units wide shows 7 w pixels of text in Excel (5.25 w points; 5.55 w in LibreOffice): a line
# is planned at 97 % of that, so that rounding in either application never wraps it.
TEXT_PT_PER_UNIT = 5.25 * 0.97


def text_pt(text: str, font_pt: float = 11, bold: bool = False) -> float:
    # summed in C (map over the string), the same integers in the same order as a loop would add them
    return sum(map((_BOLD if bold else _REGULAR).__getitem__, text)) * font_pt / 1000


@functools.lru_cache(maxsize=16384)
def lines(text: str, width_chars: float, font_pt: float = 11, bold: bool = False) -> int:
    """Lines a wrapped text takes in a cell ``width_chars`` wide: greedy word wrap at spaces (where
    an application also breaks after a hyphen, the plan is only generous), a word wider than the line
    broken anywhere."""
    room = max(1.0, width_chars * TEXT_PT_PER_UNIT - 1.0)
    space = text_pt(" ", font_pt, bold)
    total = 0
    for para in str(text).split("\n"):
        count, line = 1, 0.0
        for word in para.split(" "):
            w = text_pt(word, font_pt, bold)
            if line and line + space + w <= room:
                line += space + w
                continue
            if line:
                count += 1
            while w > room:  # a word wider than the line (a URL) breaks anywhere
                count += 1
                w -= room
            line = w
        total += count
    return total


def one_line_width(text: str, font_pt: float = 11, bold: bool = False) -> float:
    """The width (in units) at which a text takes one line."""
    return math.ceil(2 * (max((text_pt(p, font_pt, bold) for p in str(text).split("\n")), default=0.0) + 1.0)
                     / TEXT_PT_PER_UNIT) / 2


def height(text: str, width_chars: float, font_pt: float = 11, bold: bool = False) -> float:
    """The height of a row that shows a wrapped text (a title or note merged across columns)."""
    return round(lines(text, width_chars, font_pt, bold) * LINE_PT * font_pt / 11 + 3, 1)


ROW_LINE_PT = 15.0  # a line of a table row's 11 pt text, as Excel fits a row to it (20 pixels: 15 pt for 1, 30 for 2)


def row_height(n_lines: int) -> float | None:
    """A table row's height for text of ``n_lines`` lines (None: one line, the sheet's default row)."""
    return n_lines * ROW_LINE_PT if n_lines > 1 else None


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
            unit = header_unit(c.header, unit)
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
            cols.append(Col(kind, c.header, i, key=c.key))
            if c.key == "result_id" and add_verified:
                cols.append(Col("verified", "Verified", -1))
                add_verified = False
    return _figures_first(cols, table)


# The columns that say which row a figure is: first, and repeated on every further printed strip.
IDENTITY_KEYS = ("rank", "submitter", "system")
# With the figures, what a reader decides by: which published result it is.
DECISION_KEYS = ("result_id", "verified")


def _figures_first(cols: list[Col], table: BoundTable) -> list[Col]:
    """The identifying columns (rank, submitter, system), each figure column (with its sort value),
    the result ID and verified status, the other columns (details), then the band edges, each group
    in the table's order. The first printed strip holds what a reader decides by; the details print
    after it beside the repeated key; the band edges are for the screen (each figure's text states
    its band)."""
    def identity(c: Col) -> bool:
        return c.kind in ("text", "rank") and c.key in IDENTITY_KEYS

    figures = [c for c in cols if c.kind in ("figure", "sort")]
    edges = [c for c in cols if c.kind in ("band_low", "band_high")]
    lead = [c for c in cols if identity(c)]
    decision = [c for c in cols if c.key in DECISION_KEYS or c.kind == "verified"]
    rest = [c for c in cols if c not in lead and c not in figures and c not in edges and c not in decision]
    return lead + figures + decision + rest + edges


def key_columns(cols: Sequence[Col]) -> int:
    """How many leading columns name a row (rank, submitter, system): repeated on each printed strip."""
    k = 0
    while k < len(cols) and cols[k].kind in ("text", "rank") and cols[k].key in IDENTITY_KEYS:
        k += 1
    return k


def printed_columns(cols: Sequence[Col]) -> int:
    """How many columns, from the first, print: all but the band edges at the end."""
    k = len(cols)
    while k and cols[k - 1].kind in ("band_low", "band_high"):
        k -= 1
    return k


def _basis_marks(table: BoundTable, lettering: Lettering) -> dict[int, str]:
    """Column -> the one mark all its derived figures share for their basis note."""
    found: dict[int, set] = {}
    for _, c, fig in table.figures():
        if fig.derivation is not None:
            found.setdefault(c, set()).add(lettering.letters(fig)[-1])
    return {c: next(iter(m)) for c, m in found.items() if len(m) == 1}


def header_unit(name: str, unit: str) -> str:
    """A column's unit as its header states it after the column's name, without the words the name
    ends with: 'tok/s per accelerator' under 'Per accelerator (derived)' is 'tok/s', 'USD per 1M
    tokens' under 'Cost per 1M tokens (derived)' is 'USD' (a header on one line leaves the table's
    rows more of the printed page)."""
    said = re.sub(r"\s*\(derived\)$", "", name, flags=re.IGNORECASE).lower().split()
    words = unit.split()
    k = 0
    while k < min(len(said), len(words) - 1) and said[-1 - k] == words[-1 - k].lower():
        k += 1
    while k and words[len(words) - k].lower() != "per":  # only a whole "per ..." phrase goes
        k -= 1
    return " ".join(words[:len(words) - k]) if k else unit


def column_unit(table: BoundTable, i: int) -> str:
    for row in table.rows:
        if not isinstance(row[i], str):
            return row[i].unit_text
    return ""


HEADER_STRETCH = 3.0  # units a figure column widens by to keep its header on one line


def chars_width(chars: int) -> float:
    """A column's width (units) for numbers of ``chars`` characters, counted rather than measured: a
    digit is one unit wide, and a cell of numbers cannot wrap, so the estimate is generous."""
    return chars * 1.05 + 2.5


def figure_width(text_pt_: float) -> float:
    """A figure column's width (units) for its widest text, measured in Calibri 11 (``text_pt``): with
    room for the cell's padding and for how Excel rounds each glyph to whole pixels on screen (a
    number wider than its cell shows as ###), about a fifth more than the text."""
    return text_pt_ / TEXT_PT_PER_UNIT * 1.06 + 2.5


def size_columns(cols: list[Col], table: BoundTable, figure_widths: dict[int, float], band_chars: dict[int, int],
                 sort_chars: dict[int, int] | None = None, smallest_pt: float = TABLE_SMALLEST_PT,
                 paper_: "Paper | None" = None, title_pt=None) -> None:
    """Widths: a figure or band column as wide as its widest text (numbers cannot wrap), a text
    column as wide as its text up to a cap (then it wraps), never narrower than its header's words;
    the identifying columns narrower where that lets the first figure print on the first page."""
    rows = sample(table.rows)
    for col in cols:
        head = longest_word(col.header) + 2
        if col.kind == "figure":
            col.width = min(FIGURE_WIDTH_CAP, max(head, figure_widths.get(col.src, chars_width(10))))
            one_line = one_line_width(col.header, bold=True)
            if one_line <= col.width + HEADER_STRETCH:  # a header row of one line, where a little width buys it
                col.width = max(col.width, one_line)
        elif col.kind == "sort":
            col.width = min(FIGURE_WIDTH_CAP, max(head, chars_width((sort_chars or {}).get(col.src, 10))))
        elif col.kind in ("band_low", "band_high"):
            col.width = min(FIGURE_WIDTH_CAP, max(head, chars_width(band_chars.get(col.src, 10))))
        elif col.kind == "verified":
            col.width = max(head, 11)
        else:
            cap = TEXT_CAPS.get(table.columns[col.src].key,
                                NUMBER_TEXT_CAP if col.kind in ("rank", "count") else TEXT_WIDTH_CAP)
            widest = max((display_len(r[col.src]) for r in rows), default=0)
            col.width = max(head, min(cap, widest * 1.05 + 2))
    paper_ = paper_ or Paper()
    _tighten(cols, table)
    _widen_key(cols, table, smallest_pt, paper_, title_pt)


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


KEY_TEXT_CAP = 56  # a key text column (a system's name) widens at most to this
DETAIL_TEXT_CAP = 45  # a detail text column (accelerator, software) starts at most this wide in a plan
TITLE_ROWS_PT = 270.0  # what a table's repeated rows above its header take, about: for comparing plans only


def _widen_key(cols: list[Col], table: BoundTable, smallest_pt: float, paper_: Paper, title_pt=None) -> None:
    """The key's text columns (submitter, system) print on every strip: each as wide as makes the
    fewest printed pages (then the fewest lines), trying the widths at which half to all of the sampled
    names take one line (up to KEY_TEXT_CAP), each with the strips planned and their spare room shared
    out. A wider key can push a column onto another strip or leave a detail no room; a narrower one
    wraps names and makes every row taller."""
    k = key_columns(cols)
    keys = [i for i, c in enumerate(cols[:k]) if c.kind == "text"]
    rows = table.rows[:WIDEN_SAMPLE] if len(table.rows) > WIDEN_SAMPLE else table.rows
    options = []
    for i in keys:
        natural = sorted(min(KEY_TEXT_CAP, one_line_width(str(r[cols[i].src]))) for r in rows)
        picks = {cols[i].width} | {max(cols[i].width, natural[min(len(natural) - 1, int(q * len(natural)))])
                                   for q in (0.5, 0.7, 0.8, 0.9, 1.0)} if natural else {cols[i].width}
        options.append(sorted(picks))
    # the details either as tight as their caps keep them (more fit a strip) or as wide as keeps nine
    # in ten of their texts on one line (rows one line tall)
    roomy = {}
    for i, c in enumerate(cols[k:], k):
        texts = _wrapped_texts(c, rows) if c.kind == "text" else None
        if texts:
            natural = sorted(one_line_width(t) for t in texts)
            roomy[i] = max(c.width, min(DETAIL_TEXT_CAP, natural[int(0.9 * (len(natural) - 1))]))
    best = None
    trials = list(itertools.product(itertools.product(*options), (False, True) if roomy else (False,)))
    widest = [dataclasses.replace(c) for c in cols]
    for i, w in zip(keys, (o[-1] for o in options)):
        widest[i].width = w
    for i, w in roomy.items():
        widest[i].width = w
    if not sheet_plan(widest, smallest_pt, paper_).col_breaks:
        trials = [(tuple(o[-1] for o in options), True)]  # every name on one line, and one page wide: no choice
    for widths, detail in trials:
        trial = [dataclasses.replace(c) for c in cols]
        for i, w in zip(keys, widths):
            trial[i].width = w
        for i, w in (roomy.items() if detail else ()):
            trial[i].width = w
        _fit_first_page(trial, smallest_pt, paper_)
        order = decisions_first(trial, smallest_pt, paper_)
        trial = [trial[i] for i in order]
        _widen_into_pages(trial, table, smallest_pt, paper_)
        score = _pages_estimate(trial, rows, len(table.rows), smallest_pt, paper_,
                                title_pt(trial) if title_pt else TITLE_ROWS_PT)
        if best is None or score < best[0]:
            best = (score, trial, order)
    cols[:] = [cols[i] for i in best[2]]
    for c, t in zip(cols, best[1]):
        c.width = t.width


def decisions_first(cols: Sequence[Col], smallest_pt: float, paper_: Paper) -> list[int]:
    """The columns' printing order (indices into ``cols``): where a sheet prints in strips, the room its
    first strip leaves takes the decision columns that would print on a later strip (each figure with
    its sort value, then the result ID and verified status, in reading order, each where it fits), so
    that a reader finds on one page what they decide by; every other column keeps its place."""
    order = list(range(len(cols)))
    plan = sheet_plan(cols, smallest_pt, paper_)
    if not plan.col_breaks:
        return order
    end = plan.col_breaks[0]
    spare = plan.room - columns_pt([c.width for c in cols[:end]])
    runs, k = [], end
    while k < plan.printed_cols:
        stop = k + 1
        while stop < len(cols) and cols[k].kind == "figure" and cols[stop].kind == "sort" and cols[stop].src == cols[k].src:
            stop += 1
        if cols[k].kind == "figure" or cols[k].key in DECISION_KEYS or cols[k].kind == "verified":
            runs.append(range(k, stop))
        k = stop
    moved: list[int] = []
    for run in sorted(runs, key=lambda r: cols[r[0]].kind != "figure"):
        need = columns_pt([cols[i].width for i in run])
        if need <= spare:
            moved += run
            spare -= need
    return order[:end] + moved + [i for i in order[end:] if i not in moved]


def _pages_estimate(cols: Sequence[Col], rows: Sequence, nrows: int, smallest_pt: float,
                    paper_: Paper, title: float = 0.0) -> tuple[int, int, int]:
    """(strips that would print without the row's key, printed pages, lines) of a table at these
    widths, about: pages are strips times row blocks, a row as tall as its tallest wrapped text, every
    page repeating ``title`` points of rows."""
    plan = sheet_plan(cols, smallest_pt, paper_)
    tall = [1] * len(rows)
    for c in cols:
        for i, t in enumerate(_wrapped_texts(c, rows) or ()):
            tall[i] = max(tall[i], lines(t, c.width))
    body = sum(row_height(n) or DEFAULT_ROW_PT for n in tall) * nrows / max(1, len(rows))
    blocks = math.ceil(body / max(LINE_PT, plan.page_height - (title or TITLE_ROWS_PT)))
    unnamed = len(plan.col_breaks) if not plan.key and key_columns(cols) else 0  # strips without the row's key
    return unnamed, len(plan.strips()) * blocks, sum(tall)


def _fit_first_page(cols: list[Col], smallest_pt: float, paper_: "Paper | None" = None) -> None:
    """Narrow the identifying text columns (they wrap) until the first figure column prints on the
    first page beside them, at the scale that keeps ``smallest_pt`` text at PRINT_MIN_PT; a figure
    column is as wide as its widest text (a cohort without a band says so in it)."""
    lead = lead_columns(cols)
    room = (paper_ or Paper()).width * smallest_pt / PRINT_MIN_PT
    texts = [c for c in cols[:lead] if c.kind == "text"]
    while texts and columns_pt([c.width for c in cols[:lead]]) > room:
        widest = max(texts, key=lambda c: c.width - _least_width(c))
        if widest.width - 0.5 < _least_width(widest):
            return
        widest.width -= 0.5


def _widen_into_pages(cols: list[Col], table: BoundTable, smallest_pt: float, paper_: "Paper | None" = None) -> None:
    """A sheet wider than a page prints in page-wide column strips: the room each strip leaves goes to
    its wrapping text columns, a little at a time to the one whose widening saves the most lines of
    the rows it makes tall, so that more rows fit a page; where that moves a strip's edge, the strips
    are planned again and their new room shared out, and so while a round widens anything (a few
    rounds at most: a row that two strips make tall shrinks only once both widen). What the first strip
    still leaves goes to its last column, so that the texts merged above the table span its page."""
    rows = table.rows[:WIDEN_SAMPLE] if len(table.rows) > WIDEN_SAMPLE else table.rows
    shown = [(c, _wrapped_texts(c, rows)) for c in cols]
    shown = [(c, t) for c, t in shown if t and len(t) == len(rows)]
    plan = sheet_plan(cols, smallest_pt, paper_)
    if not plan.col_breaks:
        return  # a sheet one page wide keeps its scale (widening it would shrink it on paper)
    for _ in range(4):  # a strip's widening can make another's unneeded (the row was tall for both)
        before = [c.width for c in cols]
        if rows and shown:
            _share_out(cols, plan, shown)
        again = sheet_plan(cols, smallest_pt, paper_)
        if again.col_breaks == plan.col_breaks and before == [c.width for c in cols]:
            break
        plan = again
    edges = [0, *plan.col_breaks, plan.printed_cols]
    # not to the key, which every strip repeats
    first = [c for c in cols[plan.key:edges[1]] if c.kind == "text"] or cols[plan.key:edges[1]]
    if first:
        first[-1].width += max(0.0, (plan.room - columns_pt([c.width for c in cols[:edges[1]]])) / PT_PER_UNIT - 0.5)


def _share_out(cols: list[Col], plan: "PrintPlan", shown: Sequence[tuple[Col, list[str]]]) -> None:
    """Each strip's spare room to its wrapping text columns (the key's widths are settled: widening it
    here would narrow every other strip)."""
    key_pt = columns_pt([c.width for c in cols[:plan.key]])
    texts = [c for c, _ in shown]
    values = [list(row) for row in zip(*(t for _, t in shown))]
    edges = [0, *plan.col_breaks, plan.printed_cols]
    for a, b in zip(edges, edges[1:]):
        room = plan.room - (key_pt if a else 0.0)  # a strip after the first repeats the row's key
        _one_line_headers(cols[a:b], room)
        own = cols[max(a, plan.key):b]
        mine = [k for k, c in enumerate(texts) if any(c is d for d in own)]
        # a row is as tall as its tallest text on this strip's page (its own columns and the key): another
        # strip's wrapped text is that strip's to widen, with its own room
        here = [k for k, c in enumerate(texts) if any(c is d for d in cols[:plan.key] + own)]
        while mine:
            spare = (room - columns_pt([c.width for c in cols[a:b]])) / PT_PER_UNIT
            now = [[lines(row[k], texts[k].width) if k in here else 1 for k in range(len(texts))] for row in values]
            tallest = [max(n) for n in now]
            best = None  # (lines saved per unit of width, column, width added)
            steps = int(2 * spare)
            for k in mine:
                # only a row this column alone makes tallest can get shorter by widening it: for each, the
                # least widening (in half units, found by bisection: lines only fall as a column widens)
                # that takes a line off; the first such widening, and what it saves over all those rows
                width = texts[k].width
                tall = [(i, max(n[:k] + n[k + 1:], default=1)) for i, n in enumerate(now)
                        if n[k] == tallest[i] and max(n[:k] + n[k + 1:], default=1) < tallest[i]]
                needs = []
                for i, _ in tall:
                    if lines(values[i][k], width + steps / 2) >= tallest[i]:
                        continue
                    lo, hi = 1, steps
                    while lo < hi:
                        mid = (lo + hi) // 2
                        lo, hi = (lo, mid) if lines(values[i][k], width + mid / 2) < tallest[i] else (mid + 1, hi)
                    needs.append(lo)
                if not needs:
                    continue
                add = min(needs) / 2
                saved = sum(tallest[i] - max(o, lines(values[i][k], width + add)) for i, o in tall)
                if best is None or saved / add > best[0]:
                    best = (saved / add, k, add)
            if best is None:
                break
            texts[best[1]].width += best[2]


def sheet_plan(cols: Sequence[Col], smallest_pt: float, paper_: "Paper | None" = None) -> "PrintPlan":
    """How a table's sheet prints: its key repeated on every strip, its band edges on screen only."""
    return print_plan([c.width for c in cols], smallest_pt, paper_ or Paper(), keep=keep_runs(cols), key=key_columns(cols),
                      printed=printed_columns(cols))


def _one_line_headers(group: Sequence[Col], room: float) -> None:
    """The header row repeats on every printed page: a header that wraps (``Result ID`` in bold in a
    column as wide as ``5.1-0065``) is widened to one line where the page has the room."""
    for c in group:
        need = c.width
        while lines(c.header, need, bold=True) > 1 and need < c.width + 6:
            need += 0.5
        fits = columns_pt([g.width for g in group]) + (need - c.width) * PT_PER_UNIT <= room
        if fits and lines(c.header, need, bold=True) == 1:
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


LIST_TEXT_CAP = 90  # a list sheet's column (Sources) is at most this wide


def page_wide(columns: Sequence[Sequence[str]], heads: Sequence[str], smallest_pt: float,
              paper_: "Paper | None" = None) -> list[float]:
    """Widths for a list sheet (one row per item, text only, as Sources) that prints one page wide at
    the scale that keeps its smallest text at PRINT_MIN_PT: each column as wide as its longest text
    on one line (at most LIST_TEXT_CAP), then, while the columns are wider than the page, the column
    whose half-unit narrowing wraps the fewest of its texts gives that half unit (never below its
    header's longest word)."""
    paper_ = paper_ or Paper()
    least = [max(4.0, max((one_line_width(w, bold=True) for w in str(h).split()), default=4.0)) for h in heads]
    needs = [sorted(one_line_width(t) for t in col) for col in columns]
    widths = [max(lo, min(LIST_TEXT_CAP, need[-1] if need else lo)) for lo, need in zip(least, needs)]
    room = paper_.width * 100 / least_scale(smallest_pt)
    while columns_pt(widths) > room:
        cost = [(len(need) - bisect.bisect_right(need, w - 0.5), -w, i)
                for i, (w, lo, need) in enumerate(zip(widths, least, needs)) if w - 0.5 >= lo]
        if not cost:
            break
        widths[min(cost)[2]] -= 0.5
    return widths


def header_height(cols: Sequence[Col]) -> float | None:
    return row_height(max(lines(c.header, c.width, bold=True) for c in cols))


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
# page shrank its text to 3-4 pt. The scale is the largest at which the sheet's printed columns fit one
# page width, but never less than what keeps its smallest text at PRINT_MIN_PT; a sheet still wider
# than a page prints in page-wide column strips (across, then down). The first strip holds what a
# reader decides by (the row's rank, submitter and system, its figures and result ID); every further
# strip repeats the row's key (print-title columns), so that no printed detail stands without the name
# of its row. Wide texts (title, notes) are merged across the first strip only, so no note is cut at a
# page edge. Columns past ``printed`` (a figure's band edges: its printed text states its band) are for
# the screen only.

PRINT_MIN_PT = 8  # the smallest text size on paper (issue 16)
KEY_SHARE = 0.6  # the most of a page's width the repeated key may take (a strip needs room for its own columns)
# inches: left, right, top, bottom, page header, page footer; the header's one line and the footer's two
# (the one-line caveat) at 8 pt fit between the edge and the sheet's rows
MARGINS = (0.3, 0.3, 0.42, 0.62, 0.25, 0.3)
# A column of width w (in widths of Calibri 11's "0") is 5.55 w points wide in LibreOffice with
# Carlito, Calibri's metric twin (measured: 10 -> 55.5, 40 -> 222.0), and 7 w + 5 pixels in Excel; the
# plan takes the larger of the two, so that no strip spills onto a page of its own in either.
PT_PER_UNIT = 5.55
# points of paper a page's columns leave unplanned: a strip is packed to the page's edge, and the
# applications round each column's width (to pixels in Excel, to their own grid in LibreOffice)
WIDTH_SAFETY_PT = 8.0
PT_PER_COL = 3.75
DEFAULT_ROW_PT = 15.0  # a row without a height of its own


@dataclass(frozen=True)
class Paper:
    """The paper a sheet prints on (layout/paper.py's sizes) and how it is held; ``width`` and
    ``height``: the printable area inside MARGINS, in points of paper."""

    size: str = paper.DEFAULT_SIZE
    landscape: bool = True

    @property
    def width(self) -> float:
        return paper.size(self.size, self.orientation)[0] - (MARGINS[0] + MARGINS[1]) * 72 - WIDTH_SAFETY_PT

    @property
    def height(self) -> float:
        return paper.size(self.size, self.orientation)[1] - (MARGINS[2] + MARGINS[3]) * 72

    @property
    def orientation(self) -> str:
        return "landscape" if self.landscape else "portrait"


@dataclass(frozen=True)
class PrintPlan:
    """How a sheet prints: its scale (percent), the columns after which a new page starts (1-based;
    empty when the sheet is one page wide), the page header and footer size that prints at
    PRINT_MIN_PT at that scale, the leading columns repeated on every strip after the first (0: none)
    and how many columns print (the rest are for the screen)."""

    scale: int
    col_breaks: tuple[int, ...]
    header_pt: int
    ncols: int
    paper: Paper = Paper()
    key: int = 0
    printed: int | None = None
    areas: tuple[tuple[int, int], ...] = ()  # column ranges (0-based, end exclusive) printed on pages of their own

    @property
    def first_cols(self) -> int:
        """Columns on the first page: wide texts merge across these, never across a page edge."""
        if self.areas:
            return self.areas[0][1]
        return self.col_breaks[0] if self.col_breaks else self.printed_cols

    @property
    def printed_cols(self) -> int:
        return self.ncols if self.printed is None else self.printed

    def cols_on_page(self, col0: int, ncols: int) -> int:
        """Of ``ncols`` columns from ``col0`` (0-based), how many print before the next page edge."""
        edge = next((b for b in self.col_breaks if b > col0), None)
        return ncols if edge is None else max(1, min(ncols, edge - col0))

    @property
    def room(self) -> float:
        """The printable width of a page in the sheet's own points (at 100 %)."""
        return self.paper.width * 100 / self.scale

    @property
    def page_height(self) -> float:
        """The printable height of a page in the sheet's own points (at 100 %)."""
        return self.paper.height * 100 / self.scale

    def strips(self) -> list[tuple[int, int]]:
        """The printed column strips, (first, end) 0-based, end exclusive, the repeated key left out."""
        edges = [0, *self.col_breaks, self.printed_cols]
        return list(zip(edges, edges[1:]))

    def own_columns(self) -> list[tuple[int, int]]:
        """Each strip's own columns: the first strip's without the key, which every strip repeats."""
        return [(max(a, self.key), b) for a, b in self.strips()]


def least_scale(smallest_pt: float) -> int:
    """The smallest print scale (percent) that keeps ``smallest_pt`` text at PRINT_MIN_PT on paper: 11 pt
    at 73 % is 8.03 pt as Excel prints it (LibreOffice's PDF export rounds it to 7.99 pt)."""
    return math.ceil(100 * PRINT_MIN_PT / smallest_pt)


def columns_pt(widths: Sequence[float]) -> float:
    return sum(w * PT_PER_UNIT + PT_PER_COL for w in widths)


def print_plan(widths: Sequence[float], smallest_pt: float, paper_: Paper = Paper(),
               keep: Sequence[tuple[int, int]] = (), key: int = 0, printed: int | None = None,
               areas: Sequence[tuple[int, int]] = ()) -> PrintPlan:
    """The scale and column strips of a sheet whose smallest text is ``smallest_pt``. ``keep``: runs
    of columns (0-based, end exclusive) kept on one page where they fit one, e.g. a figure and its
    band edges; ``key``: the leading columns that name a row, repeated on each strip after the first
    (where they take at most KEY_SHARE of a page); ``printed``: the columns that print, from the first.
    ``areas``: instead, column ranges that print each on pages of their own (a beside section's
    panels), at the scale that fits the widest on a page, where that keeps the text at PRINT_MIN_PT."""
    if areas:
        least = least_scale(smallest_pt)
        fit = min(math.floor(100 * paper_.width / max(1.0, columns_pt(widths[a:b]))) for a, b in areas)
        scale = max(least, min(100, fit))
        return PrintPlan(scale, (), math.ceil(PRINT_MIN_PT * 100 / scale), len(widths), paper_, 0, None,
                         tuple(areas))
    printed = len(widths) if printed is None else min(printed, len(widths))
    shown = list(widths[:printed])
    page = paper_.width
    least = least_scale(smallest_pt)
    fit = math.floor(100 * page / max(1.0, columns_pt(shown)))
    scale = max(least, min(100, fit))
    breaks: list[int] = []
    room = page * 100 / scale
    key_pt = columns_pt(shown[:key]) if 0 < key < printed else 0.0
    if key_pt > room * KEY_SHARE:
        key, key_pt = 0, 0.0
    if fit < least:
        runs: dict[int, int] = {}
        for a, b in keep:  # of two runs from one column, the longer that fits
            b = min(b, printed)
            if a < b and columns_pt(shown[a:b]) <= room - (key_pt if a >= key else 0) and b > runs.get(a, a):
                runs[a] = b
        used, placed, i = 0.0, False, 0
        while i < printed:
            j = runs.get(i, i + 1)
            need = columns_pt(shown[i:j])
            if placed and used + need > room:
                breaks.append(i)
                used, placed = key_pt, False
            used += need
            placed = True
            i = j
    header = math.ceil(PRINT_MIN_PT * 100 / scale)
    return PrintPlan(scale, tuple(breaks), header, len(widths), paper_, key if breaks else 0, printed,
                     ((0, printed),) if printed < len(widths) else ())


NOTES_ON_TOP_LINES = 16  # a table's notes, in lines, that its repeated title rows hold (more: under the table)


@dataclass(frozen=True)
class _PrintedPage:
    """A printed page as the pager sees it: the room under the rows every page repeats."""

    frame_w: float
    frame_h: float


def page_breaks(plan: PrintPlan, title_rows: Sequence[float | None], body_rows: Sequence[float | None],
                tail_rows: Sequence[float | None]) -> list[int]:
    """The manual page breaks a table's rows need (after how many body rows each falls): its printed
    pages are made by the one pager (layout/pager.py), each row as tall as Excel draws it and every page
    repeating ``title_rows`` (the notes stand there). What follows the rows (notes that did not fit
    above, the legend) stays on the last row's page, the last row going on with it where both do not fit
    (never a page without a figure); that is the one break set in the workbook, the others are left to
    the application, which cuts its pages by the rows' heights as it draws them. A tail taller than a
    page flows on."""
    from ..layout.pager import NoteBook, NotesStyle, Pager

    title = sum(h or DEFAULT_ROW_PT for h in title_rows)
    tail = sum(h or DEFAULT_ROW_PT for h in tail_rows)
    unit = _PrintedPage(plan.room, max(DEFAULT_ROW_PT, plan.page_height - title))
    if not body_rows or not tail_rows or tail > unit.frame_h:
        return []
    # a workbook's notes stand in the repeated rows, not at a page's foot: the pager reserves none
    no_notes = NoteBook(NotesStyle(leading=0.0, gap=0.0, gutter=0.0, top=0.0, column_min=1.0, column_gap=0.0),
                        lambda text, width: [text])

    def ends(keep_tail: bool) -> list[int]:
        pager = Pager(no_notes, unit, max_notes=0)
        last = len(body_rows) - 1
        for k, h in enumerate(body_rows):
            h = min(h or DEFAULT_ROW_PT, unit.frame_h)
            pager.add(k, h, keep=tail if keep_tail and k == last and h + tail <= unit.frame_h else 0.0)
        counts = [len(page.items) for page in pager.pages]
        return [sum(counts[:n]) for n in range(1, len(counts))]

    kept = ends(True)
    return kept[-1:] if kept[-1:] != ends(False)[-1:] else []
