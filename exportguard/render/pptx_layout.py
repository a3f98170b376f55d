"""Where things go on a slide, decided from font metrics before anything is written: how wide a
text is, how many lines it wraps to in a box, column widths and rows per slide of a table, bars per
chart and the chart's inner geometry, the font sizes of text boxes. Pure functions over text and
sizes; render/pptx_plan.py plans a deck with them and render/pptx.py paints the plan. Lengths are
in points (1 pt = 12,700 EMU).

Metrics come from the TrueType file of the template's theme font (PIL.ImageFont advance widths), or
its metric-compatible twin, or DejaVu Sans, which is wider than the usual office sans-serif fonts
and is what LibreOffice substitutes on a Debian machine: measuring with a wider font can only leave
spare room. Text wrap is simulated greedily at spaces, as PowerPoint and LibreOffice wrap; a word
wider than its box breaks anywhere.
"""
from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from ..layout.document import Frame
from .fonts import installed as font_file  # a module global, so that tests can measure without fonts

EMU_PER_PT = 12_700
SAFETY = 1.03  # measured widths are stretched by this much: kerning, hinting and renderers differ (LibreOffice
# draws DejaVu Sans within 0.3% of PIL's advance widths)
LINE_FACTOR = 1.2  # a line is at least this many times the font size
CELL_PAD_X = 7.2  # PowerPoint's default cell and text box insets: 0.1" left and right...
CELL_PAD_Y = 3.6  # ...and 0.05" top and bottom
ROW_SLACK = 1.0  # pt added to every computed table row
ROW_PAD_Y = 2.0  # top and bottom insets of a table's header and body cells: half PowerPoint's default, so that a
# slide holds more rows at the same type size (the alternating fills keep the rows apart)
FOOTER_PAD_Y = 1.5  # top and bottom insets of a table's footer (notes) rows
FALLBACK_FAMILY = "DejaVu Sans"


# (body, notes) sizes tried for a table, largest first; the step needing the fewest slides wins. Never under 11 pt
# text and 9 pt notes: rows that do not fit move to a continuation slide instead.
TABLE_LADDER = ((14, 10), (13, 10), (12, 9), (11, 9))
FORCED_STEPS = ((8, 7), (7, 6.5))  # below the ladder, only when the figure columns alone would not fit the width
MIN_TEXT_COLUMN = 54.0  # pt: a text column narrower than this is not worth drawing
# A text column is never made wider than this share of the table for one unbroken word (a URL, a hostile
# name): the word breaks instead, at a hyphen where it can. (At 0.12 the default columns of an ad-hoc
# export stay columns at 11 pt on 16:9, but their rows grow taller than the combined "Result" cell's:
# the v5.1 closed deck took 166 slides instead of 157.)
LONG_WORD_SHARE = 0.3
BROKEN_WORD_SHARE = 0.2  # where whole words do not fit: no piece of a word claims more (renderers break it anywhere)
SQUEEZE_FLOOR = 90.0  # pt: a column whose words break anywhere is no narrower (else the table is refused)
# (category and data label size, notes size) for a chart: never under 10 pt labels and 9 pt notes; bars that
# do not fit move to a continuation slide instead
CHART_LADDER = ((12, 10), (11, 10), (11, 9), (10, 9))
CATEGORY_SHARES = (0.4, 0.5)  # of a chart's width, the room its category labels may take (plan_chart)
NOTE_COLUMN_MIN = 800.0  # pt: a notes box at least this wide sets its notes in two columns (a 16:9 slide, not 4:3)
NOTE_COLUMN_GAP = 18.0  # pt between the two columns
NOTE_PREFIX = "[zz] "  # notes are measured with the widest mark a slide can have in practice
RUN_IN_WASTE = 1.08  # run-on notes: the share of a line lost where a word does not fit the line's end


# -- fonts: found by render/fonts.py (the one font finder); measured here ----------------------------


class _Face:
    """Advance widths (in em) of one font file, character by character, cached."""

    def __init__(self, path: str | None, embolden: bool = False):
        self.path = path
        self.scale = 1.06 if embolden else 1.0  # a bold face measured with the regular file
        self._adv: dict[str, float] = {}
        self._words: dict[str, float] = {}
        if path:
            from PIL import ImageFont

            self._font = ImageFont.truetype(path, 1000)
            ascent, descent = self._font.getmetrics()
            self.line = max(LINE_FACTOR, (ascent + descent) / 1000)
        else:
            self._font = None
            self.line = LINE_FACTOR

    def char(self, ch: str) -> float:
        adv = self._adv.get(ch)
        if adv is None:
            if unicodedata.category(ch) in ("Mn", "Me", "Cf"):
                adv = 0.0
            else:
                adv = self._font.getlength(ch) / 1000 if self._font is not None else 0.6
                if unicodedata.east_asian_width(ch) in ("W", "F"):
                    adv = max(adv, 1.0)  # drawn from a CJK fallback font, a full em wide
            adv *= self.scale
            self._adv[ch] = adv
        return adv

    def word(self, word: str) -> float:
        w = self._words.get(word)
        if w is None:
            w = sum(self.char(ch) for ch in word) * SAFETY
            if len(self._words) < 200_000:
                self._words[word] = w
        return w


class Metrics:
    """Widths and line heights of one font family (regular and bold), in points."""

    def __init__(self, family: str):
        self.family = family or FALLBACK_FAMILY
        regular = font_file(self.family)
        self.installed = regular is not None
        if regular is None:
            regular = font_file(FALLBACK_FAMILY)
            bold = font_file(FALLBACK_FAMILY, True)
        else:
            bold = font_file(self.family, True)
        self.measured_with = Path(regular).stem if regular else "average widths (no font file found)"
        self._faces = {False: _Face(regular), True: _Face(bold or regular, embolden=bold is None)}
        self._em: dict[tuple[str, bool], tuple[float, float]] = {}
        self._lines: dict[tuple[str, float, bool], int] = {}

    def face(self, bold: bool = False) -> _Face:
        return self._faces[bold]

    def width(self, text: str, size: float, bold: bool = False) -> float:
        """Width of the widest line of ``text`` set on one line each."""
        face = self._faces[bold]
        space = face.char(" ") * SAFETY
        best = 0.0
        for line in text.split("\n"):
            words = line.split(" ")
            best = max(best, sum(face.word(w) for w in words) + space * (len(words) - 1))
        return best * size

    def longest_word(self, text: str, size: float, bold: bool = False) -> float:
        face = self._faces[bold]
        return max((face.word(w) for w in text.split()), default=0.0) * size

    def line_height(self, size: float, bold: bool = False) -> float:
        return self._faces[bold].line * size

    def wrap(self, text: str, size: float, width: float, bold: bool = False) -> list[str]:
        """The lines ``text`` takes in a box ``width`` wide, broken as a renderer would."""
        return _wrap(self._faces[bold], text, width / size, True)

    def em(self, text: str, bold: bool = False) -> tuple[float, float, float]:
        """(widest line, longest word, longest piece of a word that does not break) of ``text`` in
        em: widths at any size are these times the size. A word breaks after a hyphen (_breakable):
        a column that must be narrow need not be as wide as "SYS-422GS-NBRT-LCC" to hold it."""
        key = (text, bold)
        found = self._em.get(key)
        if found is None:
            face = self._faces[bold]
            space = face.char(" ") * SAFETY
            widest = word = piece = 0.0
            for line in text.split("\n"):
                words = line.split(" ")
                ems = [face.word(w) for w in words]
                widest = max(widest, sum(ems) + space * (len(words) - 1))
                word = max(word, max(ems))
                piece = max(piece, max(face.word(p) for w in words for p in _breakable(w)))
            found = self._em[key] = (widest, word, piece)
        return found

    def lines(self, text: str, size: float, width: float, bold: bool = False) -> int:
        if not text:
            return 1
        key = (text, round(width / size, 3), bold)
        n = self._lines.get(key)
        if n is None:
            n = self._lines[key] = _wrap(self._faces[bold], text, width / size, False)
        return n

    def text_height(self, text: str, size: float, width: float, bold: bool = False) -> float:
        return self.lines(text, size, width, bold) * self.line_height(size, bold)


# After a hyphen, a line may break (Unicode line breaking, which LibreOffice follows; PowerPoint
# breaks there too), except before a digit, where it would split a number such as "-5" or "H100-80".
_AFTER_HYPHEN = re.compile(r"(?<=-)(?=[^\d-])")


def _breakable(word: str) -> list[str]:
    """The pieces of ``word`` no renderer splits unless a piece is wider than the line."""
    return _AFTER_HYPHEN.split(word) if "-" in word else [word]


def _wrap(face: _Face, text: str, width_em: float, build: bool):
    """Greedy wrap at spaces; a word wider than the line breaks anywhere. Returns the lines, or
    their count."""
    space = face.char(" ") * SAFETY
    width_em = max(width_em, 0.5)
    out: list[str] = []
    count = 0
    for para in text.split("\n"):
        cur: list[str] = []
        used = 0.0
        for word in para.split(" "):
            w = face.word(word)
            if cur and used + space + w <= width_em:
                cur.append(word)
                used += space + w
                continue
            if cur:
                count += 1
                if build:
                    out.append(" ".join(cur))
            if w > width_em:  # a word longer than the line (a URL): broken after its last hyphen that fits, else
                # anywhere, as PowerPoint and LibreOffice break it
                piece, piece_w, hyphen = "", 0.0, -1
                for ch in word:
                    cw = face.char(ch) * SAFETY
                    if piece and piece_w + cw > width_em:
                        cut = hyphen + 1 if hyphen >= 0 else len(piece)
                        count += 1
                        if build:
                            out.append(piece[:cut])
                        piece = piece[cut:]
                        piece_w = sum(face.char(x) for x in piece) * SAFETY
                        hyphen = piece.rfind("-")
                    piece += ch
                    piece_w += cw
                    if ch == "-":
                        hyphen = len(piece) - 1
                cur, used = [piece], piece_w
            else:
                cur, used = [word], w
        count += 1
        if build:
            out.append(" ".join(cur))
    return out if build else count


# -- geometry ------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Box(Frame):
    """A plan's rectangle in points (layout.document.Frame) that python-pptx takes in EMU."""

    def emu(self) -> tuple[int, int, int, int]:
        return emu(self.left), emu(self.top), emu(self.width), emu(self.height)


def emu(pt: float) -> int:
    return int(round(pt * EMU_PER_PT))


def pt(emu_value: int) -> float:
    return emu_value / EMU_PER_PT


# -- text boxes ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Para:
    text: str
    size: float
    bold: bool = False
    space_after: float = 0.0  # points after the paragraph


def paras_height(m: Metrics, paras: Iterable[Para], width: float) -> float:
    """Height of a text box holding ``paras`` (insets included), ``width`` being the box's width."""
    inner = width - 2 * CELL_PAD_X
    total = 2 * CELL_PAD_Y
    for p in paras:
        total += m.text_height(p.text, p.size, inner, p.bold) + p.space_after
    return total


def fit_title(m: Metrics, text: str, box: Box, largest: float, smallest: float = 14, max_lines: int = 2) -> float:
    """The largest size (by 1 pt steps) at which a title fits its placeholder on ``max_lines`` lines."""
    size = largest
    inner_w = box.width - 2 * CELL_PAD_X
    while size > smallest:
        lines = m.lines(text, size, inner_w)
        if lines <= max_lines and lines * m.line_height(size) <= box.height - 2 * CELL_PAD_Y + 0.5:
            return size
        size -= 1
    return smallest


# -- tables ----------------------------------------------------------------------------------------

@dataclass
class TablePlan:
    body_pt: float
    note_pt: float
    widths: list[float]  # per column, summing to the table width
    header_h: float
    row_h: list[float]  # per body row of the whole table
    note_h: dict[str, float]  # footer row height per note text
    pages: list[tuple[int, int]]  # rows [start, stop) of each slide
    forced: bool = False  # no step fitted: text columns squeezed below their longest word
    # The row notes of a slide run on in one footer row ("[a] ... [b] ..."): ``note_h`` holds each row
    # note's share of that row (its width over the row's, in lines, with room for where words break)
    # and ``run_in_h`` what the row adds once (its last line begun, its padding).
    row_note_texts: frozenset = frozenset()
    run_in_h: float = 0.0
    note_inner: float = 0.0  # the footer rows' text width

    @property
    def width(self) -> float:
        return sum(self.widths)

    def page_height(self, start: int, stop: int, notes: Sequence[str]) -> float:
        run_in = self.run_in_h if any(n in self.row_note_texts for n in notes) else 0.0
        return self.header_h + sum(self.row_h[start:stop]) + sum(self.note_h[n] for n in notes) + run_in

    def run_in_height(self, m: "Metrics", text: str) -> float:
        """The one footer row of a slide's row notes, run on, as drawn."""
        return m.lines(text, self.note_pt, self.note_inner) * m.line_height(self.note_pt) + 2 * FOOTER_PAD_Y + ROW_SLACK


@dataclass
class _Cell:
    text: str
    nowrap: bool


def plan_table(m: Metrics, width: float, height: float, headers: Sequence[str], rows: Sequence[Sequence[str]],
               nowrap: Iterable[int] = (), row_notes: Sequence[Sequence[str]] | None = None,
               fixed_notes: Sequence[str] = (), ladder: Sequence[tuple[float, float]] = TABLE_LADDER,
               squeeze: bool = False) -> TablePlan:
    """Column widths, row heights and rows per slide for a table ``width`` wide that may take
    ``height`` on each slide, its footer rows included: ``fixed_notes`` (table note, legend) on every
    slide, and the notes of the rows the slide shows (``row_notes``: per row, the note texts its
    figures' marks resolve to, without the mark). Columns in ``nowrap`` never wrap (figures).

    Every step of ``ladder`` is tried; the one needing the fewest slides wins (the larger on a tie),
    and its rows are spread evenly over that many slides. If no step fits a column set, the smallest
    is used and figure columns keep their width (the table may then be wider than ``width``).
    With ``squeeze`` (columns a user asked for, which are never combined), a column set that fits
    no step with its words whole, or broken after their hyphens, is tried once more at the smallest
    step with its text columns' words broken anywhere (as renderers break a word wider than its cell;
    headers keep their words): the plan is not forced where its rows then fit.
    """
    nowrap = set(nowrap)
    row_notes = row_notes or [[] for _ in rows]
    best: TablePlan | None = None
    smallest = _plan_step(m, width, height, headers, rows, nowrap, row_notes, fixed_notes, *ladder[-1])
    fewest = len(smallest.pages) if smallest is not None else 0  # no larger step can need fewer slides
    for body, note in ladder[:-1]:
        plan = _plan_step(m, width, height, headers, rows, nowrap, row_notes, fixed_notes, body, note)
        if plan is None:
            continue
        if best is None or len(plan.pages) < len(best.pages):
            best = plan
        if len(plan.pages) <= max(fewest, 1):
            break
    if smallest is not None and (best is None or len(smallest.pages) < len(best.pages)):
        best = smallest
    if best is None and squeeze:
        plan = _plan_step(m, width, height, headers, rows, nowrap, row_notes, fixed_notes, *ladder[-1], squeeze=True)
        if plan is not None and _drawable(plan, width, nowrap, len(headers)):
            best = plan
    if best is None:  # not even the smallest step fits the columns: squeeze text columns, and go down to
        # 7 pt if the figures alone are wider than the slide
        for body, note in [ladder[-1]] + [step for step in FORCED_STEPS if step[0] < ladder[-1][0]]:
            best = _plan_step(m, width, height, headers, rows, nowrap, row_notes, fixed_notes, body, note, force=True)
            if _drawable(best, width, nowrap, len(headers)):
                break
        best.forced = True
    best.pages = _balance(best, row_notes, fixed_notes, height)
    return best


def _drawable(plan: TablePlan, width: float, nowrap, ncols: int) -> bool:
    """The figure columns, beside text columns no narrower than is worth drawing, fit ``width``."""
    return sum(plan.widths[c] for c in nowrap) + MIN_TEXT_COLUMN * (ncols - len(nowrap)) <= width


def _plan_step(m, width, height, headers, rows, nowrap, row_notes, fixed_notes, body, note, force=False,
               squeeze=False):
    """One step of the ladder. ``force``: text columns squeezed and rows placed even where they do
    not fit; ``squeeze``: text columns squeezed, but None where a row does not fit."""
    widths = _column_widths(m, width, headers, rows, nowrap, body, force or squeeze,
                            squeeze_floor=SQUEEZE_FLOOR if squeeze and not force else 0.0)
    if widths is None:
        return None
    lh = m.line_height(body)
    pad_y = 2 * ROW_PAD_Y + ROW_SLACK
    header_h = max(m.lines(h, body, w - 2 * CELL_PAD_X, bold=True) for h, w in zip(headers, widths)) \
        * m.line_height(body, bold=True) + pad_y
    row_h = []
    for row in rows:
        lines = 1
        for c, (text, w) in enumerate(zip(row, widths)):
            if text and c not in nowrap:
                inner = w - 2 * CELL_PAD_X
                if m.em(text)[0] * body > inner:
                    lines = max(lines, m.lines(text, body, inner))
                elif "\n" in text:
                    lines = max(lines, text.count("\n") + 1)
        row_h.append(lines * lh + pad_y)
    total_w = sum(widths)
    note_h: dict[str, float] = {}
    note_inner = total_w - 2 * CELL_PAD_X
    nlh = m.line_height(note)
    for text in fixed_notes:
        if text not in note_h:
            note_h[text] = m.lines(text, note, note_inner) * nlh + 2 * FOOTER_PAD_Y + ROW_SLACK
    row_texts = frozenset(t for notes in row_notes for t in notes) - frozenset(fixed_notes)
    for text in row_texts:  # run on: a share of the one row, by width
        note_h[text] = m.em(NOTE_PREFIX + text + " ")[0] * note / note_inner * RUN_IN_WASTE * nlh
    plan = TablePlan(body, note, widths, header_h, row_h, note_h, [], row_note_texts=row_texts,
                     run_in_h=(nlh + 2 * FOOTER_PAD_Y + ROW_SLACK) if row_texts else 0.0, note_inner=note_inner)
    plan.pages = _greedy(plan, row_notes, fixed_notes, height, cap=None)
    if plan.pages is None:
        if not force:
            return None
        plan.pages = _greedy(plan, row_notes, fixed_notes, height, cap=None, force=True)
    return plan


def _column_widths(m: Metrics, width: float, headers, rows, nowrap, size, force=False,
                   squeeze_floor: float = 0.0) -> list[float] | None:
    """``squeeze_floor``: where text columns are squeezed, none narrower than this (or its whole
    words), else None."""
    pad = 2 * CELL_PAD_X
    mins, nats, broken = [], [], []
    for c, head in enumerate(headers):
        head_full, head_word, _ = (x * size for x in m.em(head, bold=True))
        ems = [m.em(row[c]) for row in rows if row[c]]
        widest = max((e[0] for e in ems), default=0.0) * size
        if c in nowrap:  # as wide as its widest figure; its header wraps rather than widen it
            mins.append(max(widest, head_word) + pad)
            nats.append(mins[-1] if len(headers) > 1 and head_full > widest * 1.5 else max(widest, head_full) + pad)
            broken.append(mins[-1])
        else:
            word = max((e[1] for e in ems), default=0.0) * size
            piece = max((e[2] for e in ems), default=0.0) * size
            cap = width * LONG_WORD_SHARE  # a very long word breaks rather than eats the table
            mins.append(max(min(word, cap), min(head_word, cap)) + pad)
            nats.append(max(widest, head_full, min(word, cap)) + pad)
            broken.append(max(min(piece, width * BROKEN_WORD_SHARE), min(head_word, cap)) + pad)
    if sum(mins) > width >= sum(broken):
        mins = broken  # whole words do not fit: words break after their hyphens, as renderers break them
    fixed = sum(mins[c] for c in nowrap)
    if sum(mins) > width:
        if not force:
            return None
        # the smallest step and still too narrow: the text columns with the longest words give them up
        # first (one ceiling for all, lowered until they fit), down to their header's longest word, so
        # that a short column (a result ID, a count) keeps its words whole; figures keep their width
        free = [c for c in range(len(headers)) if c not in nowrap]
        floors = {c: min(mins[c], max(m.longest_word(headers[c], size, bold=True) + pad, 30.0, squeeze_floor))
                  for c in free}
        widths = list(mins)
        for c, w in _ceiling({c: mins[c] for c in free}, floors, width - fixed).items():
            widths[c] = max(w, 24.0)
        if squeeze_floor and sum(widths) > width + 0.01:
            return None
        return widths
    extra = width - sum(mins)
    want = [n - mn for n, mn in zip(nats, mins)]
    if sum(want) <= extra:
        widths = list(nats)
        spare = width - sum(nats)
        grow = [c for c in range(len(headers)) if c not in nowrap] or list(range(len(headers)))
        base = sum(nats[c] for c in grow)
        for c in grow:
            widths[c] += spare * nats[c] / base
        return widths
    # max-min fair: columns that need little to stop wrapping ("48 (6 nodes x 8)") get all of it,
    # the rest is shared equally by the columns that would wrap anyway (a long system name)
    widths = list(mins)
    order = sorted((c for c in range(len(headers)) if want[c] > 0), key=lambda c: want[c])
    left = extra
    for k, c in enumerate(order):
        give = min(want[c], left / (len(order) - k))
        widths[c] += give
        left -= give
    return widths


def _ceiling(wants: dict, floors: dict, room: float) -> dict:
    """Widths no wider than one ceiling, each at least its floor, that together fill ``room``: the
    ceiling is lowered from the widest want until they fit (where even the floors do not, the floors)."""
    def total(cap):
        return sum(min(w, max(cap, floors[c])) for c, w in wants.items())

    if total(max(wants.values(), default=0.0)) <= room:
        return dict(wants)
    lo, hi = 0.0, max(wants.values())
    for _ in range(50):  # bisection on the ceiling: total() is monotone in it
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if total(mid) <= room else (lo, mid)
    return {c: min(w, max(lo, floors[c])) for c, w in wants.items()}


def fill_pages(heights, row_notes, note_h, height: float, base: float, caps=None, force: bool = False):
    """Rows per slide: each takes rows while ``base`` (what every slide holds) + its rows + the notes
    they bring (each note once) fit ``height``; ``caps`` limit the rows of each slide in turn. None
    when a row fits nowhere, unless ``force`` (it then gets a slide of its own)."""
    pages = []
    start, n = 0, len(heights)
    while start < n:
        used = base
        seen: set[str] = set()
        stop = start
        limit = n if caps is None or len(pages) >= len(caps) else caps[len(pages)]
        while stop < n and stop - start < limit:
            add = heights[stop] + sum(note_h[t] for t in row_notes[stop] if t not in seen)
            if used + add > height:
                break
            used += add
            seen.update(row_notes[stop])
            stop += 1
        if stop == start:
            if not force:
                return None
            stop = start + 1  # one row that cannot fit anywhere still gets its own slide
        pages.append((start, stop))
        start = stop
    return pages


def even_split(n: int, k: int) -> list[tuple[int, int]]:
    """``n`` rows (or bars) over ``k`` slides as evenly as they go, the larger shares first:
    (start, stop) per slide."""
    bounds, start = [], 0
    for i in range(k):
        stop = start + math.ceil((n - start) / (k - i))
        bounds.append((start, stop))
        start = stop
    return bounds


def _greedy(plan: TablePlan, row_notes, fixed_notes, height, cap, force=False):
    """Rows per slide, filling each slide while header + rows + footer rows fit ``height``."""
    if not plan.row_h:
        return [(0, 0)]
    base = plan.header_h + sum(plan.note_h[t] for t in fixed_notes) + plan.run_in_h
    return fill_pages(plan.row_h, row_notes, plan.note_h, height, base, cap, force)


def _balance(plan: TablePlan, row_notes, fixed_notes, height) -> list[tuple[int, int]]:
    """The same number of slides as the greedy split, with rows spread evenly over them."""
    pages = plan.pages
    if len(pages) <= 1:
        return pages
    k = len(pages)
    caps = [stop - start for start, stop in even_split(len(plan.row_h), k)]
    even = _greedy(plan, row_notes, fixed_notes, height, cap=caps)
    return even if even is not None and len(even) == k else pages


# -- charts ----------------------------------------------------------------------------------------

@dataclass
class ChartPlan:
    label_pt: float
    note_pt: float
    pages: list[tuple[int, int]]
    cat_lines: list[list[str]]  # per bar, the category label broken into lines
    cat_width: float  # room for category labels, left of the plot


def chart_category_lines(m: Metrics, parts: Sequence[str], size: float, width: float) -> list[str]:
    """A bar's category label (``parts``: rank words and submitter, system, the other columns that
    differ between bars), broken into lines ``width`` wide, every line kept: the label is where the
    chart names the system under test (the citation rules), and no note repeats it, so it is never cut
    short (the bar's band grows). Stacked, the system and the columns after it start a line of their own
    under the rank and submitter; run on ("3 (tie 3-11) · Lenovo · ThinkSystem SR680a V3 (8x
    B200-SXM-180GB, TensorRT) · Accelerators: 8"), the parts share lines: whichever takes fewer lines,
    stacked on a tie. Either way the parts stand in one order, so that every bar reads alike."""
    head, system, tail = parts
    stacked: list[str] = []
    for part in (head, " · ".join(p for p in (system, tail) if p)):
        if part:
            stacked += m.wrap(part, size, width)
    run_on = m.wrap(" · ".join(p for p in (head, system, tail) if p), size, width)
    return run_on if len(run_on) < len(stacked) else stacked


def note_columns(width: float) -> int:
    """How many columns a notes box ``width`` wide sets its notes in: two where a line would be long."""
    return 2 if width >= NOTE_COLUMN_MIN else 1


def note_column_width(width: float, columns: int) -> float:
    """The width of one box of a notes area ``width`` wide set in ``columns`` side-by-side boxes."""
    return (width - NOTE_COLUMN_GAP * (columns - 1)) / columns


def _band(lines: int, lh: float) -> float:
    """The height a bar takes: its category label's lines, with a little room between bars."""
    return max(max(lines, 1) * lh + 3, lh * 1.5)


def chart_note_paras(shared: Sequence[str], marked: Sequence[str], legend: str) -> list[str]:
    """The paragraphs of a chart slide's notes box: what the chart shares (table note and statements,
    run on), its bars' notes ("[a] ...", "[b] ...") run on in one paragraph, as under a table, and the
    trademark legend last. Every paragraph ends its last line part-empty: fewer paragraphs, fewer lines."""
    return _note_paras(shared, marked, (legend,))


def _note_paras(shared: Sequence[str], marked: Sequence[str], tail: Sequence[str] = ()) -> list[str]:
    return [*shared, *([" ".join(marked)] if marked else []), *tail]


def chart_note_columns(m: Metrics, shared: Sequence[str], marked: Sequence[str], legend: str, size: float,
                       width: float) -> list[list[str]]:
    """The paragraphs of a chart slide's notes (chart_note_paras), one list per notes box: one box
    where the area is narrow, else two side by side (note_columns). The split falls between whole
    paragraphs or between two marked notes, never inside one (an application flowing one box's text
    into its next column breaks a note where a line ends), at the point that makes the taller box
    least tall; the legend closes the last box."""
    columns = note_columns(width)
    if columns == 1:
        return [chart_note_paras(shared, marked, legend)]
    box_w = note_column_width(width, columns)
    best = None
    for cut in range(1, len(shared) + len(marked) + 1):  # the first box ends after `cut` of them
        k = max(cut - len(shared), 0)
        boxes = [_note_paras(shared[:cut], marked[:k]), _note_paras(shared[cut:], marked[k:], (legend,))]
        tallest = max(notes_box_height(m, b, size, box_w) for b in boxes)
        if best is None or tallest < best[0]:
            best = (tallest, boxes)
    return best[1]


def notes_area_height(m: Metrics, boxes: Sequence[Sequence[str]], size: float, width: float) -> float:
    """The height of a notes area ``width`` wide holding ``boxes`` (chart_note_columns) side by side:
    its tallest box."""
    box_w = note_column_width(width, len(boxes))
    return max(notes_box_height(m, b, size, box_w) for b in boxes)


def plan_chart(m: Metrics, width: float, height: float, title_h: float, cat_parts: Sequence[Sequence[str]],
               labels: Sequence[str], row_notes: Sequence[Sequence[str]], shared: Sequence[str], legend: str,
               notes_width: float, ladder=CHART_LADDER) -> ChartPlan:
    """Bars per chart slide and font sizes: each slide holds a chart (title ``title_h`` tall, then
    one band per bar, tall enough for its category label and data label) above a notes box
    (chart_note_columns: ``shared``, the notes of its bars, the ``legend``; in two boxes side by side
    where the area is wide); together at most ``height``. Each step of ``ladder`` is tried with the
    category labels in each share of CATEGORY_SHARES of the width (a wider label column puts a label
    on fewer lines, the bars keep the rest); the fewest slides win, then the larger type, then the
    narrower label column."""
    best = None
    for label_pt, note_pt in ladder:
        label_w = max((m.width(t, label_pt) for t in labels), default=0.0)
        longest = max((m.width(" · ".join(p for p in parts if p), label_pt) for parts in cat_parts), default=0.0)
        tried = set()
        for share in CATEGORY_SHARES:
            cat_w = max(min(width * share, longest + 2 * CELL_PAD_X), width * 0.18)
            if cat_w in tried:
                continue  # every label fits one line at a narrower share already
            tried.add(cat_w)
            plot_w = width - cat_w - 2 * CELL_PAD_X
            if label_w + 2 * CELL_PAD_X > plot_w * 0.62:
                continue  # the labels would squeeze the bars
            cat_lines = [chart_category_lines(m, parts, label_pt, cat_w - 2 * CELL_PAD_X) for parts in cat_parts]
            plan = ChartPlan(label_pt, note_pt, [], cat_lines, cat_w)
            pages = _fill_charts(m, plan, title_h, row_notes, shared, legend, notes_width, height)
            if pages is None:
                continue
            plan.pages = pages
            if best is None or len(pages) < len(best.pages):
                best = plan
    if best is None:  # nothing fits: the smallest step, one bar per slide
        label_pt, note_pt = ladder[-1]
        cat_w = width * 0.3
        best = ChartPlan(label_pt, note_pt, [(i, i + 1) for i in range(len(cat_parts))],
                         [chart_category_lines(m, p, label_pt, cat_w - 2 * CELL_PAD_X) for p in cat_parts], cat_w)
    if len(best.pages) > 1:  # spread the bars evenly
        bounds = even_split(len(cat_parts), len(best.pages))
        if all(_chart_page_fits(m, best, b, title_h, row_notes, shared, legend, notes_width, height)
               for b in bounds):
            best.pages = bounds
    return best


def _fill_charts(m, plan: ChartPlan, title_h, row_notes, shared, legend, notes_width, height):
    """Bars per slide, each slide taking bars while its chart and notes fit; None where a bar fits nowhere."""
    pages, start, n = [], 0, len(plan.cat_lines)
    while start < n:
        stop = start
        while stop < n and _chart_page_fits(m, plan, (start, stop + 1), title_h, row_notes, shared, legend,
                                            notes_width, height):
            stop += 1
        if stop == start:
            return None
        pages.append((start, stop))
        start = stop
    return pages


def _chart_page_fits(m, plan: ChartPlan, bounds, title_h, row_notes, shared, legend, notes_width, height) -> bool:
    start, stop = bounds
    lh = m.line_height(plan.label_pt)
    bars = sum(_band(len(plan.cat_lines[i]), lh) for i in range(start, stop))
    # measured with the widest mark a slide can have in practice
    marked = [NOTE_PREFIX + t for t in dict.fromkeys(t for i in range(start, stop) for t in row_notes[i])]
    boxes = chart_note_columns(m, shared, marked, legend, plan.note_pt, notes_width)
    notes_h = notes_area_height(m, boxes, plan.note_pt, notes_width)
    return title_h + 8 + AXIS_ROOM + bars + notes_h + 8 <= height


def notes_box_height(m: Metrics, notes: Sequence[str], size: float, width: float) -> float:
    """The height of a notes box ``width`` wide holding ``notes`` (as drawn, marks included)."""
    inner = width - 2 * CELL_PAD_X
    lh = m.line_height(size)
    return 2 * CELL_PAD_Y + sum(m.lines(t, size, inner) * lh + size * 0.25 for t in notes)


@dataclass
class ChartGeometry:
    """The chart's inner layout, fixed so that whiskers and labels land where we computed."""

    plot: Box  # the plot area (inner), relative to the chart frame
    axis_max: float
    label_offsets: list[float]  # per bar: data label x offset, as a fraction of the chart width


LABEL_GAP = 6.0  # pt between a whisker's end and its data label


AXIS_PT = 10.0  # the value axis's numbers and its title (the unit)
AXIS_ROOM = 26.0  # pt under the plot: the axis's numbers, then its title, one line each at AXIS_PT


def plot_box(frame_w: float, frame_h: float, title_h: float, cat_w: float) -> Box:
    top = title_h + 8
    return Box(cat_w, top, frame_w - cat_w - CELL_PAD_X, max(frame_h - top - AXIS_ROOM, 10))


def axis_title_at(m: Metrics, plot: Box, title: str) -> tuple[float, float]:
    """Where the value axis's title stands (its top left, from the chart frame's): centred under the
    plot, under the line of the axis's numbers. Placed, not left to the application: LibreOffice sets
    an axis title of a chart with a fixed plot area over the axis's numbers."""
    lh = m.line_height(AXIS_PT)
    return (max(plot.left + (plot.width - m.width(title, AXIS_PT)) / 2 - CELL_PAD_X, 0.0), plot.bottom + lh + 1)


def axis_step(axis_max: float) -> float:
    """The value axis's major unit (a gridline and a number each): 1, 2, 2.5 or 5 times a power of ten,
    so that four to eight gridlines stand between zero and ``axis_max``."""
    if axis_max <= 0:
        return 1.0
    exp = math.floor(math.log10(axis_max))
    for e in (exp - 1, exp):
        for f in (1, 2, 2.5, 5):
            step = f * 10 ** e
            if axis_max / step <= 8:
                return step
    return 10 ** (exp + 1)


def axis_maximum(m: Metrics, plot_w: float, values: Sequence[float], band: float | None, labels: Sequence[str],
                 label_pt: float) -> float:
    """The value axis maximum at which every bar, its plus whisker and its data label (placed just
    past the whisker) fit the plot width. One maximum for all slides of a chart, so that bars on a
    continuation slide are drawn to the same scale."""
    frac = band or 0.0
    need = 0.0
    for v, text in zip(values, labels):
        lw = m.width(text, label_pt) + 2 * CELL_PAD_X
        room = 0.97 - (LABEL_GAP + lw) / plot_w
        need = max(need, v * (1 + frac) / max(room, 0.2))
    return _nice_ceiling(need) if need > 0 else 1.0


def chart_geometry(frame_w: float, frame_h: float, title_h: float, cat_w: float, values: Sequence[float],
                   band: float | None, axis_max: float) -> ChartGeometry:
    plot = plot_box(frame_w, frame_h, title_h, cat_w)
    frac = band or 0.0
    offsets = [(v * frac / axis_max * plot.width + LABEL_GAP) / frame_w for v in values]
    return ChartGeometry(plot, axis_max, offsets)


def _nice_ceiling(x: float) -> float:
    """A round axis maximum at or just above ``x`` (two significant digits)."""
    exp = math.floor(math.log10(x)) - 1
    step = 10 ** exp
    return math.ceil(x / step) * step


# -- text slides -------------------------------------------------------------------------------------

def fit_paragraphs(m: Metrics, texts: Sequence[str], width: float, height: float,
                   sizes: Sequence[float] = (24, 22, 20, 18, 16, 15, 14, 13, 12, 11)) -> tuple[float, list[list[int]]]:
    """The largest size at which ``texts`` fit a box, or, at the smallest, the paragraphs split into
    boxes (slides) that each fit: (size, [[paragraph indexes of slide 1], ...])."""
    for size in sizes:
        gap = size * 0.6
        if paras_height(m, [Para(t, size, space_after=gap) for t in texts], width) <= height:
            return size, [list(range(len(texts)))]
    size = sizes[-1]
    gap = size * 0.6
    pages: list[list[int]] = [[]]
    used = 2 * CELL_PAD_Y
    for i, t in enumerate(texts):
        h = paras_height(m, [Para(t, size, space_after=gap)], width) - 2 * CELL_PAD_Y
        if pages[-1] and used + h > height:
            pages.append([])
            used = 2 * CELL_PAD_Y
        pages[-1].append(i)
        used += h
    return size, pages
