"""A PDF briefing's tables, measured: each table's cells cleaned and measured once at a reference
size (``TableLayout``), its column widths shared out where they save the most lines, its rows
wrapped once in the type size and page width that hold its columns; the result (``Run``) is what
the one pager (layout/pager.py) places, share by share, and pdf_paint.py draws.

A table share is drawn straight onto the canvas (one text object per share), not through
reportlab's Table, whose layout of a long table is quadratic.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence

from ..layout.pager import LayoutError, Page, Run, shares_of
from ..report import BoundFigure, BoundTable
from ..sanitize import shorten
from ..wording import marks_words
from .pdf_layout import (CAPTION, CELL, CELL_LIMIT, CELL_LINES, CONTINUES_H, NOTE, NOTE_LIMIT, PAD_X, PAD_Y,
                         PORTRAIT, SHARED, WIDTH_SAMPLE, Geometry)
from .pdf_text import NARROW, NARROW_BOLD, Measure, Metrics, Style, clean


# -- tables -----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class TableOf:
    """Which result table a share shows: its number through the document ("Table 3", the location's
    table), the report section it belongs to (from 1) and the bound table whose figures it holds (a
    beside section has several). A share without one (the sources, a shape panel) holds no figures."""

    number: int
    section: int
    table: BoundTable


@dataclass
class TableShare:
    """The rows start..stop of a table as one page shows them."""

    layout: "TableLayout"
    start: int
    stop: int
    continued: bool
    continues: bool
    page: Page
    of: TableOf | None = None  # the result table it shows, if any





def sentence(caption: str) -> str:
    """A caption closed by a full stop, so that no reader (the checker's included) runs it on into
    the shared conditions below it: '(tokens/s)' there is the caption's unit, not theirs."""
    return caption if caption.endswith((".", "!", "?")) else caption + "."


def share_width(total: float, natural: list[float], minimum: list[float], fixed: list[bool],
                thresholds: Sequence[Sequence[Sequence[float]]] | None = None) -> list[float]:
    """Column widths: every column at least its minimum (its longest word, a figure's whole text),
    then the page width goes where it saves the most lines. ``thresholds[r][c]`` lists, for a sample
    row r (the header among them) and a text column c, the widths at which its cell takes 1, 2, ...
    lines (widest first; empty where the cell is one line at any width it can get); a row is as
    tall as its tallest cell. Each step widens the one column whose next threshold saves the most
    row lines per point (a system name kept to two lines rather than every 'tokens/sample' cell
    broken into three). What no line needs goes in equal shares to the columns still narrower than
    their natural width (water-filling), then to the text columns."""
    ncols = len(natural)
    widths = list(minimum)
    spare = total - sum(widths)
    if thresholds:
        widths, spare = _fewest_lines(widths, spare, natural, thresholds)
    while spare > 0.01:
        hungry = [c for c in range(ncols) if natural[c] - widths[c] > 0.01]
        if not hungry:
            break
        share = spare / len(hungry)
        for c in hungry:
            give = min(share, natural[c] - widths[c])
            widths[c] += give
            spare -= give
    if spare > 0.01:
        flex = [c for c in range(ncols) if not fixed[c]] or list(range(ncols))
        weight = sum(widths[c] for c in flex)
        for c in flex:
            widths[c] += spare * widths[c] / weight
    return widths


def _lines(thr: Sequence[float], w: float) -> int:
    """Lines a cell takes at width w, from its thresholds (the width for 1 line, for 2, ...)."""
    for k, t in enumerate(thr):
        if w >= t - 1e-6:
            return k + 1
    return len(thr) + 1


def _fewest_lines(widths: list[float], spare: float, natural: list[float],
                  thresholds: Sequence[Sequence[Sequence[float]]]) -> tuple[list[float], float]:
    """share_width's first share: greedy, a threshold at a time (linear in the sample's rows per step)."""
    ncols = len(widths)
    rows = range(len(thresholds))
    cur = [[_lines(thresholds[r][c], widths[c]) for c in range(ncols)] for r in rows]
    while spare > 0.01:
        # each row's tallest cell, the column it is in, and its second tallest: a row's lines
        # without column c are its tallest unless c holds it
        tops = []
        for x in cur:
            c1 = max(range(ncols), key=x.__getitem__)
            tops.append((x[c1], c1, max((x[c] for c in range(ncols) if c != c1), default=1)))
        tallest = [t[0] for t in tops]
        best = None  # (saved lines per point, -cost, column, width)
        for c in range(ncols):
            if widths[c] >= natural[c] - 0.01:
                continue
            others = [t[2] if t[1] == c else t[0] for t in tops]
            reach = min(natural[c], widths[c] + spare)
            cands = sorted({t for r in rows for t in thresholds[r][c] if widths[c] + 0.01 < t <= reach + 1e-6})
            for w in cands[:12]:
                new = [_lines(thresholds[r][c], w) for r in rows]
                # the rows' lines saved, and (a quarter as much) the cell's own: a row gets one line
                # shorter only once all its cells do, which no single step may show
                saved = sum(tallest[r] - max(others[r], new[r]) + 0.25 * (cur[r][c] - new[r]) for r in rows)
                if saved > 1e-9:
                    score = (saved / (w - widths[c]), widths[c] - w, -c)
                    if best is None or score > best[0]:
                        best = (score, c, w)
        if best is None:
            break
        _, c, w = best
        spare -= w - widths[c]
        widths[c] = w
        for r in rows:
            cur[r][c] = _lines(thresholds[r][c], w)
    return widths, spare


def _cell_thresholds(m: Measure, text: str, lo: float, hi: float) -> list[float]:
    """The (outer) widths at which a text takes 1, 2, ... lines, widest first, for the widths from
    ``lo`` to ``hi`` (inner): [] when it is one line at ``lo`` already. Each is found by bisection on
    the line breaking that draws it (pdf_text.Measure.wrap), to a quarter of a point."""
    most = len(m.wrap(text, lo)) if text else 1
    if most <= 1:
        return []
    out = []
    for k in range(1, min(most, 7)):  # up to 6 lines: a cell broken into more is not worth reading
        a, b = lo, max(hi, lo)
        if len(m.wrap(text, b)) > k:
            out.append(float("inf"))  # not in k lines even at the natural width: out of reach
            continue
        while b - a > 0.25:
            mid = (a + b) / 2
            if len(m.wrap(text, mid)) <= k:
                b = mid
            else:
                a = mid
        out.append(b + 2 * PAD_X)
    return out


def cell_lines(wrap: Callable[[str, float], list[str]], text: str, width: float,
               most: int = CELL_LINES) -> tuple[str, list[str]]:
    """A text cell as drawn ``width`` points wide (inner): its text and its lines, at most ``most``
    of them; a longer text is cut (sanitize.shorten, with its marker) at the most characters that
    still take no more lines."""
    lines = wrap(text, width) or [""]
    if len(lines) <= most:
        return text, lines
    lo, hi, best = 0, len(text), None  # cut to hi characters it takes too many lines: the longest cut that does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        got = wrap(shorten(text, mid), width)
        if len(got) <= most:
            lo, best = mid, got
        else:
            hi = mid
    if best is None:  # not even the marker fits (a column a few characters wide): the shortest cut
        best = wrap(shorten(text, 0), width)
    return shorten(text, lo), best or [""]


def widest_text(fig: BoundFigure, letters: int) -> str:
    """The figure's text with the widest marks it can get on a page whose marks have at most
    ``letters`` letters ('m' is the widest letter of the font)."""
    return fig.text(marks_words(("m" * letters,) * len(fig.notes)))


def mark_letters(distinct_notes: int) -> int:
    """Letters a mark needs at most when a page holds at most this many notes (a, ..., z, aa, ...)."""
    return 1 if distinct_notes <= 26 else 2 if distinct_notes <= 702 else 3


# A number and its unit in a text cell ("99 ms", "16 nodes"): one word to the line breaking, so that
# no reader (a checker's column reading among them) finds the number alone on its line.
QUANTITY = re.compile(r"[~≈]?\d[\d,.]*\s\S{1,8}")
TYPE_SIZES = (CELL.size, 7.8, 7.0, 6.3, 5.6)  # cell type sizes, largest first; below the first only as a last resort
REF = 10.0  # the size at which a table's widths are measured once (widths scale with the size)
WORD_CAPS = (60.0, 44.0, 32.0, 24.0)


def fits_for(g: Geometry) -> tuple[tuple[Geometry, float, float], ...]:
    """(page, type size, longest word kept whole in points): a table takes the first that holds its
    columns, in the document's one geometry. A wide table first breaks its long words (after a / - or
    _ first) at the full type size; only a table whose figures alone (each kept whole) are too wide
    for the page gets smaller type, and bench/density.py shows it."""
    return tuple((g, CELL.size, cap) for cap in WORD_CAPS) + tuple((g, size, WORD_CAPS[-1]) for size in TYPE_SIZES[1:])


FITS = fits_for(PORTRAIT)


def cell_styles(size: float) -> tuple[Style, Style]:
    leading = round(size * 1.17, 2)
    return Style(NARROW, size, leading), Style(NARROW_BOLD, size, leading)


class TableLayout:
    """One table, measured once: every text cell cleaned (pdf_text.clean) and its width taken at a
    reference size, from which ``fit`` picks the page geometry and type size whose page width holds
    every column at its minimum (its longest word; a figure's whole text), shares the width out and
    wraps every row once. Linear in the number of cells."""

    def __init__(self, metrics: Metrics, *, label: str, title: str, shared: str, headers: Sequence[str],
                 rows: Sequence[Sequence[str | BoundFigure]], numeric: Sequence[bool] = (),
                 derived: Sequence[bool] = (), first_caption: str | None = "", letters: int = 2,
                 whole: Sequence[bool] = (), part: int = 0):
        self.metrics = metrics
        self.cap, self.shared_m = metrics(CAPTION), metrics(SHARED)
        self.label = label
        self.letters = letters
        self.title = clean(title, 400, one_line=True)
        self.first_caption = None if first_caption is None else clean(first_caption, 400, one_line=True)
        self.shared = clean(shared, NOTE_LIMIT, one_line=True) if shared else ""
        self.headers = [clean(h, 80, one_line=True) for h in headers]
        self.rows = rows
        ncols = len(self.headers)
        self.numeric = list(numeric) or [False] * ncols
        self.derived = list(derived) or [False] * ncols
        self.whole = list(whole) or [False] * ncols  # text kept on one line, like a figure (a rank's words)
        self.part = part  # a table too wide for the page is drawn in column parts: 0, 1, ...
        self._measure_at_ref()

    # -- once: cleaned cells and each column's natural and minimum width at the reference size --
    def _measure_at_ref(self) -> None:
        ncols = len(self.headers)
        cell, head = (self.metrics(s) for s in cell_styles(REF))
        natural, fixed = [0.0] * ncols, [False] * ncols
        figure_w, word_w = [0.0] * ncols, [0.0] * ncols  # widest figure text, longest word of a text cell
        piece_w = [0.0] * ncols  # longest piece of a word between / - _ of a text cell
        head_word = [head.longest_word(h) for h in self.headers]
        head_piece = [head.longest_piece(h) for h in self.headers]
        pieces = cell.longest_piece
        for c, h in enumerate(self.headers):
            natural[c] = min(head.width(h), 90.0 * REF / TYPE_SIZES[0])
        width, longest = cell.width, cell.longest_word
        seen: list[dict[str, tuple[str, float]]] = [{} for _ in range(ncols)]  # each distinct text once
        cleaned = []
        for row in self.rows:
            out = []
            for c, value in enumerate(row):
                got = seen[c].get(value) if type(value) is str else None
                if got is not None:
                    out.append(got)
                    continue
                if isinstance(value, BoundFigure):
                    w = width(widest_text(value, self.letters))
                    fixed[c] = True
                    if w > figure_w[c]:
                        figure_w[c] = w
                    if w > natural[c]:
                        natural[c] = w
                    out.append(value)
                    continue
                text = clean(value, CELL_LIMIT)
                w = width(text)
                got = seen[c][value] = (text, w)
                if self.whole[c]:  # never broken: "3 (tie 2-11)" is read as one statement
                    fixed[c] = True
                    figure_w[c] = max(figure_w[c], w)
                out.append(got)
                if w > natural[c]:
                    natural[c] = w
                if QUANTITY.fullmatch(text):  # "99 ms": a number is never parted from its unit
                    word_w[c], piece_w[c] = max(word_w[c], w), max(piece_w[c], w)
                if w > word_w[c]:
                    word_w[c] = max(word_w[c], longest(text))
                if w > piece_w[c]:
                    piece_w[c] = max(piece_w[c], pieces(text))
            cleaned.append(out)
        self.cells = cleaned
        self.ref_natural, self.fixed = natural, fixed
        self.ref_figure = figure_w
        self.ref_words = list(zip(word_w, piece_w, head_word, head_piece))

    def minimum(self, size: float, word_cap: float) -> list[float]:
        """Each column's narrowest width at this type size: its widest figure whole; the longest
        word of its cells and of its header whole, unless that is wider than ``word_cap`` points
        (60 for a header), when it may break after a / - or _ (or, failing that, anywhere); in the
        tightest fits (``word_cap`` under 40) a header word may break after a / - or _ too."""
        k = size / REF

        def word(whole: float, piece: float, cap: float) -> float:
            return whole * k if whole * k <= cap else min(piece * k, cap)

        head_cap = 60.0 if word_cap >= 40.0 else 0.0  # in the tightest fits headers break after / - _ too
        return [max(f * k, word(w, p, word_cap), word(hw, hp, head_cap) if head_cap else hp * k) + 2 * PAD_X
                for f, (w, p, hw, hp) in zip(self.ref_figure, self.ref_words)]

    def _thresholds(self, size: float, minimum: list[float], natural: list[float]) -> list[list[list[float]]]:
        """For the header and a sample of the rows (at most WIDTH_SAMPLE, evenly spread: linear in the
        rows whatever their number), each text cell's widths for 1, 2, ... lines at this type size,
        between its column's minimum and natural widths (share_width)."""
        cell, head = self.metrics(cell_styles(size)[0]), self.metrics(cell_styles(size)[1])
        n = len(self.cells)
        step = max(1, -(-n // WIDTH_SAMPLE))
        sample = [(head, [(h, head.width(h)) for h in self.headers])]
        sample += [(cell, row) for row in self.cells[::step]]
        done: dict[tuple, list[float]] = {}
        out = []
        for m, row in sample:
            thr_row = []
            for c, value in enumerate(row):
                if self.fixed[c] or type(value) is not tuple:
                    thr_row.append(())
                    continue
                key = (m is head, c, value[0])
                got = done.get(key)
                if got is None:
                    got = done[key] = _cell_thresholds(m, value[0], minimum[c] - 2 * PAD_X, natural[c] - 2 * PAD_X)
                thr_row.append(got)
            out.append(thr_row)
        return out

    def fit(self, options: Sequence[tuple[Geometry, float, float]] | None = None,
            width: float | None = None) -> Geometry:
        """Lay the table out in the first (geometry, type size, word cap) whose width (the frame's,
        or ``width`` points: a panel's half) holds every column at its minimum (FITS by default);
        raises LayoutError when none does."""
        options = options or FITS
        for geometry, size, cap in options:
            total = geometry.frame_w if width is None else width
            if sum(self.minimum(size, cap)) <= total + 0.01:
                self._set(total, size, self.minimum(size, cap))
                return geometry
        geometry, size, cap = options[-1]
        raise LayoutError(f"{self.label} needs {sum(self.minimum(size, cap)):.0f} points for its columns at "
                          f"{size} pt, more than a {geometry.name} page's {geometry.frame_w:.0f}: choose fewer columns"
                          f"{' or --orientation landscape' if geometry.name == 'portrait' else ''}")

    def _set(self, total: float, size: float, minimum: list[float]) -> None:
        self.width, self.size = total, size
        self.cell_style, self.head_style = cell_styles(size)
        self.cell, self.head = self.metrics(self.cell_style), self.metrics(self.head_style)
        k = size / REF
        natural = [max(min(n * k, 0.42 * total) + 2 * PAD_X, m) for n, m in zip(self.ref_natural, minimum)]
        cell = self.cell
        k_ref = k
        self.widths = share_width(total, natural, minimum, self.fixed, self._thresholds(size, minimum, natural))
        self.head_lines = [self.head.wrap(h, w - 2 * PAD_X) for h, w in zip(self.headers, self.widths)]
        self.head_h = max(len(x) for x in self.head_lines) * self.head_style.leading + 2 * PAD_Y
        leading = self.cell_style.leading
        wrap = cell.wrap
        inner = [w - 2 * PAD_X for w in self.widths]
        done: list[dict[tuple, list[str]]] = [{} for _ in inner]  # each distinct cell wrapped once
        self.cut: dict[tuple[int, tuple], str] = {}  # (column, cell): its text cut to CELL_LINES lines
        self.measured: list[list[list[str] | None]] = []
        self.heights: list[float] = []
        for row in self.cells:
            lines: list[list[str] | None] = []
            most = 1
            for c, value in enumerate(row):
                if type(value) is tuple:
                    got = done[c].get(value)
                    if got is None:
                        text, ref_w = value
                        w = inner[c]
                        if ref_w * k_ref <= w - 0.01 and "\n" not in text:
                            got = [text]
                        else:
                            shown, got = cell_lines(wrap, text, w)
                            if shown != text:
                                self.cut[(c, value)] = shown
                        done[c][value] = got
                    if len(got) > most:
                        most = len(got)
                    lines.append(got)
                else:
                    lines.append(None)  # a figure: one line, its text with the marks of its page
            self.heights.append(most * leading + 2 * PAD_Y)
            self.measured.append(lines)
        # self.cells stays: a beside section fits its panels side by side first and, where the pair and
        # its notes do not fit one page, fits them again stacked

    def text(self, r: int, c: int) -> str:
        """Row r's text cell in column c as drawn: cleaned (pdf_text.clean), cut to CELL_LINES lines."""
        value = self.cells[r][c]
        return self.cut.get((c, value), value[0]) if self.cut else value[0]

    # -- the repeated head of each share --
    def caption(self, continued: bool) -> str:
        """The caption above a share: "" where the section heading right above says it all."""
        if continued:
            return sentence(f"{self.label} (continued). {self.title}")
        if self.first_caption is None:
            return ""
        return sentence(f"{self.label}. {self.first_caption}" if self.first_caption else self.label)

    def run_in(self, continued: bool) -> str:
        """The caption where it is the table's label alone ("Table 3."): it then stands at the start
        of the shared conditions' first line instead of on a line of its own."""
        text = self.caption(continued)
        return text if text and self.shared and text == sentence(self.label) else ""

    def label_indent(self, label: str) -> float:
        return self.cap.width(label) + self.shared_m.width(" ") if label else 0.0

    def caption_lines(self, continued: bool, width: float) -> list[str]:
        text = self.caption(continued)
        return self.cap.wrap(text, width) if text and not self.run_in(continued) else []

    def continues_line(self, start: int) -> str:
        """What a share that starts at row ``start`` says under its rows when the table goes on overleaf."""
        has_figures = any(c is None for c in self.measured[start])
        return (f"{self.label} continues on the next page, with its header"
                f"{' and the notes of its figures' if has_figures else ''} repeated there.")

    def shared_lines(self, width: float, continued: bool = True) -> list[str]:
        """The shared conditions' lines; on a share whose caption runs in, the first line leaves the
        caption its room."""
        if not self.shared:
            return []
        return self.shared_m.wrap(self.shared, width, self.label_indent(self.run_in(continued)))

    def head_height(self, continued: bool, geometry: Geometry) -> float:
        width = self.width
        captions = self.caption_lines(continued, width)
        shared = self.shared_lines(width, continued)
        first = max(SHARED.leading, CAPTION.leading) - SHARED.leading if self.run_in(continued) else 0.0
        return (len(captions) * CAPTION.leading + (3.0 if captions else 0.0) + first +
                len(shared) * SHARED.leading + (4.0 if self.shared else 0.0) + self.head_h)

    def figures_of(self, r: int) -> list[BoundFigure]:
        return [c for c in self.rows[r] if isinstance(c, BoundFigure)]

    tail_h = CONTINUES_H

    def run(self, label: str, make) -> Run:
        return Run(label, self.heights, self.figures_of, self.head_height, self.tail_h, make)


def density(pages: Sequence[Page]) -> dict:
    """What a planned briefing packs on a page (bench/density.py, tests): the fewest result rows on
    a page a table fills before it continues (it starts the page, under its section's heading at
    most; None when no table spans pages), the result rows (each row once: a table in column parts
    shows its rows in each part), the pages, the smallest table and note type sizes, and the page
    orientations in order of use."""
    full, rows, sizes, orientations = [], 0, [], []
    for page in pages:
        if page.geometry.name not in orientations:
            orientations.append(page.geometry.name)
        for k, item in enumerate(page.items):
            for share in shares_of(item.payload):
                if isinstance(share, TableShare) and share.of is not None:  # a result table, not the sources
                    if share.layout.part == 0:
                        rows += share.stop - share.start
                    sizes.append(share.layout.size)
                    if share.continues and (share.continued or k <= 1):
                        full.append(share.stop - share.start)
    return dict(rows_per_page=min(full) if full else None, rows=rows, pages=len(pages),
                table_pt=min(sizes) if sizes else None, notes_pt=NOTE.size, orientations=orientations)
