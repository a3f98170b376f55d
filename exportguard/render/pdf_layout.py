"""Paging for the PDF briefing: which content goes on which page, decided before anything is drawn,
in one pass over the content (linear in the number of rows).

Every page has a footnote area that holds exactly the notes of the figures on that page. Adding a
row (or a bar, or a headline) to a page costs its own height plus the height of those of its notes
that the page does not hold yet, so the pager knows, row by row, whether the row and its notes still
fit; when they do not, the table goes on on the next page with its caption, its shared conditions
and its header rows repeated, and that page gets its own notes. Heights come from the embedded
font's metrics (pdf_text.Measure), and the renderer draws exactly the lines that were measured, so
the plan and the drawing agree; the renderer checks that each planned page starts on its page.

A table share is drawn straight onto the canvas (one text object per share), not through
reportlab's Table, whose layout of a long table is quadratic.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from reportlab.lib.colors import HexColor
from reportlab.lib.pagesizes import A4, LETTER, landscape

from ..citation import Note
from ..errors import ExportguardError
from ..report import BoundFigure, BoundTable
from ..sanitize import shorten
from ..wording import marks_words
from .pdf_text import (NARROW, NARROW_BOLD, NARROW_OBLIQUE, SANS, SANS_BOLD, SANS_OBLIQUE, Measure, Style,
                       clean)

# -- page geometry and type -------------------------------------------------------------------------

MARGIN_X = 40.0
MARGIN_TOP = 46.0  # the running header sits in it
MARGIN_BOTTOM = 54.0  # the one-line caveat and the page number sit in it
HEADER_TOP, HEADER_H = 20.0, 15.0  # the running header's box: its line's baseline 5 pt above its rule
FOOTER_RULE = 12.0  # the footer's rule, this far above the bottom margin's top
SAFETY = 0.5  # points left free on every page, so that rounding never pushes content over


@dataclass(frozen=True)
class Geometry:
    name: str  # the orientation: "portrait" or "landscape"
    page_w: float
    page_h: float

    @property
    def frame_w(self) -> float:
        return self.page_w - 2 * MARGIN_X

    @property
    def frame_h(self) -> float:
        return self.page_h - MARGIN_TOP - MARGIN_BOTTOM


PORTRAIT = Geometry("portrait", *A4)
LANDSCAPE = Geometry("landscape", *landscape(A4))
PAGE_SIZES = {"a4": A4, "letter": LETTER}
ORIENTATIONS = ("portrait", "landscape")


def geometry(page_size: str = "a4", orientation: str = "portrait") -> Geometry:
    """The one page geometry of a briefing (issue 16: one orientation per document)."""
    if page_size not in PAGE_SIZES or orientation not in ORIENTATIONS:
        raise ExportguardError(f"PDF page: size {page_size!r} (a4 or letter), orientation {orientation!r} "
                               "(portrait or landscape)")
    size = PAGE_SIZES[page_size]
    return Geometry(orientation, *(landscape(size) if orientation == "landscape" else size))


# Legibility on screen and on paper (issue 16): table text at least 8.5 pt, notes at least 8 pt.
BODY = Style(SANS, 9.5, 13.4)
CAPTION = Style(SANS_BOLD, 9.5, 12.0)
CELL = Style(NARROW, 8.6, 10.4)
HEAD = Style(NARROW_BOLD, 8.6, 10.4)
SHARED = Style(NARROW_OBLIQUE, 8.0, 9.5)  # a table's shared conditions
NOTE = Style(NARROW, 8.0, 9.2)
NOTE_MARK = Style(NARROW_BOLD, 8.0, 9.2)
SMALL = Style(SANS_OBLIQUE, 7.4, 8.8)  # page furniture: the footer's caveat line, "continues" lines
LEGEND = Style(NARROW_OBLIQUE, 8.0, 9.5)  # a chart's legend: read like a note

INK = HexColor("#1a1a1a")
GREY = HexColor("#555555")
RULE = HexColor("#9aa5b1")
HEAD_FILL = HexColor("#dde5ef")
ZEBRA = HexColor("#f3f5f8")
DERIVED_FILL = HexColor("#f2f2f2")

# The briefing's paragraph styles, by the name a planned paragraph carries (layout.document.Para.style):
# (style, colour). Run-in words at a paragraph's start (Para.lead) are set in LEAD_FONT.
TITLE = Style(SANS_BOLD, 21.0, 26.0)
HEADING = Style(SANS_BOLD, 13.0, 16.5)
CONTENTS_INDENT = 16.0  # a contents entry's continuation lines
RUNNING = Style(SANS, 7.5, 9.0)  # the running header and the page number
PROSE = {
    "heading": (HEADING, INK),
    "running header": (RUNNING, GREY),
    "footer": (SMALL, GREY),
    "caption": (CAPTION, INK),
    "body": (BODY, INK),
    "lead": (Style(SANS_BOLD, BODY.size, BODY.leading), INK),
    "small": (Style(SANS_OBLIQUE, 8.0, 10.0), GREY),  # legend, warnings: read as notes
    "title": (TITLE, INK),
    "sub": (Style(SANS, 10.5, 14.0), GREY),
    "caveat": (Style(SANS_OBLIQUE, 9.0, 12.4), INK),
    "kpi-cond": (Style(SANS, 9.0, 12.0), INK),
    "kpi-who": (Style(SANS, 8.4, 11.0), GREY),
    "kpi-shared": (SHARED, GREY),
}
LEAD_FONT = SANS_BOLD
PARA_GAP = 3.0  # between two paragraphs of one box
BOX_PAD = 7.0  # inside a tinted box
KPI_PAD = 9.0  # inside a headline box
KPI_FILL = HexColor("#eef3f9")
KPI_EDGE = HexColor("#9fb6d0")

PAD_X, PAD_Y = 3.0, 1.9  # cell padding
NOTES_TOP = 8.0  # the rule above a page's notes and the space around it
NOTE_GAP = 1.2  # between two notes
NOTE_GUTTER = 17.0  # the marks' column in the notes area: "[m]" and a space that text extraction reads as one
# A page's notes stand in columns where the page is wide: a row's note is about 100 to 200
# characters, which at full width leaves the last line of most notes half empty; in columns of 45
# to 60 characters a line reads easily and the notes area takes about a third less height.
NOTE_COLUMN_MIN = 225.0  # points: the narrowest notes column (about 50 characters at 8 pt)
NOTE_COLUMN_GAP = 14.0
WIDTH_SAMPLE = 120  # rows of a table whose line breaks decide its column widths
CELL_LIMIT = 240  # characters of one text cell before it is cut, visibly
# Lines of one text cell at its column's width: the rest is cut, visibly (sanitize.shorten's marker, which
# counts every character cut since the source). Characters alone do not bound a row: 240 characters of a
# name of many hyphens in a 43-point column take 43 lines, and the row, its table's head and its notes
# then do not fit one page (a 45 kB system description over many own cohorts). At 12 lines (125 points
# at 8.6 pt) a row leaves an empty page room for its heading, its table's head and its notes.
CELL_LINES = 12
NOTE_LIMIT = 2000
SECTION_GAP = 14.0
MAX_PAGE_NOTES = 26  # a page's notes, so that its marks are one letter ([a] to [z]): narrower figure columns
CONTINUES_H = 10.0  # "Table 2 continues on the next page."


class Metrics:
    """One Measure per style, shared by the whole document (their word caches too)."""

    def __init__(self):
        self._m: dict[Style, Measure] = {}

    def __call__(self, style: Style) -> Measure:
        m = self._m.get(style)
        if m is None:
            m = self._m[style] = Measure(style)
        return m


# -- notes ------------------------------------------------------------------------------------------

def note_columns(width: float) -> int:
    """The most columns a notes area of this width holds: 3 on a landscape page, 2 on a portrait one."""
    return max(1, min(3, int((width + NOTE_COLUMN_GAP) // (NOTE_COLUMN_MIN + NOTE_COLUMN_GAP))))


def column_width(width: float, columns: int) -> float:
    return (width - NOTE_COLUMN_GAP * (columns - 1)) / columns


def balance(heights: Sequence[float], columns: int) -> tuple[float, list[int]]:
    """The notes, kept in order and each whole, in at most ``columns`` columns filled top down, left
    to right: the least height that holds them, and the index at which each column after the first
    starts. Greedy filling at a height H holds them iff H is at least this least height, so H goes up
    from its lower bound to the next height at which a column could take one more note."""
    if not heights:
        return 0.0, []
    if columns <= 1:
        return sum(heights), []
    h = max(max(heights), sum(heights) / columns)
    while True:
        starts, col, grow = [], 0.0, float("inf")
        for i, x in enumerate(heights):
            if col + x > h + 1e-6:
                grow = min(grow, col + x)
                starts.append(i)
                col = x
            else:
                col += x
        if len(starts) < columns:
            return h, starts
        h = grow


@dataclass(frozen=True)
class NotesPlan:
    """A page's notes area: its height (rule left out), its columns, where each column after the first starts."""

    height: float = 0.0
    columns: int = 1
    starts: tuple[int, ...] = ()


class NoteBook:
    """The lines a note takes in a page's notes area, measured once per note and column width, and
    the plan of a page's notes area: in the number of columns (up to note_columns) that takes the
    least height, fewer columns on a tie. Many short notes go in columns (a row's note of 100 to 200
    characters leaves the last line of most notes half empty at full width); a few long ones (an own
    run's note) stay at full width, where one of them in a narrow column would stand tall alone."""

    def __init__(self, metrics: Metrics):
        self.measure = metrics(NOTE)
        self._lines: dict[tuple[str, float], list[str]] = {}  # by text: a note's lines are its text's
        self._heights: dict[tuple[Note, float], tuple[float, ...]] = {}

    def lines(self, note: Note, width: float, columns: int = 1) -> list[str]:
        """The note's lines in a notes area ``width`` points wide (the page frame's) of ``columns`` columns."""
        return self.text_lines(note.text, width, columns)

    def text_lines(self, text: str, width: float, columns: int = 1) -> list[str]:
        """A note's lines from its text (what a page's planned notes block holds): as ``lines``."""
        inner = column_width(width, columns) - NOTE_GUTTER
        key = (text, inner)
        got = self._lines.get(key)
        if got is None:
            got = self._lines[key] = self.measure.wrap(clean(text, NOTE_LIMIT), inner)
        return got

    def heights(self, note: Note, width: float) -> tuple[float, ...]:
        """The note's height in 1, 2, ... columns (as many as the width holds)."""
        key = (note, width)
        got = self._heights.get(key)
        if got is None:
            got = self._heights[key] = tuple(len(self.lines(note, width, k)) * NOTE.leading + NOTE_GAP
                                             for k in range(1, note_columns(width) + 1))
        return got

    def plan(self, heights: Sequence[tuple[float, ...]], width: float) -> NotesPlan:
        if not heights:
            return NotesPlan()
        best = None
        for k in range(1, note_columns(width) + 1):
            h, starts = balance([x[k - 1] for x in heights], k)
            if best is None or h < best.height - 1e-6:
                best = NotesPlan(h, k, tuple(starts))
        return best

    def block(self, notes: Sequence[Note], width: float) -> float:
        """The height of a notes area holding these notes, in this order (its rule included)."""
        if not notes:
            return 0.0
        return NOTES_TOP + self.plan([self.heights(n, width) for n in notes], width).height


# -- pages ------------------------------------------------------------------------------------------

@dataclass
class Placed:
    payload: Any
    gap: float  # space above it on its page (0 at the top of a page)
    height: float


@dataclass
class Page:
    number: int
    geometry: Geometry
    items: list[Placed] = field(default_factory=list)
    used: float = 0.0
    figures: list[BoundFigure] = field(default_factory=list)
    notes: dict[Note, tuple[float, ...]] = field(default_factory=dict)  # heights in 1, 2, ... columns, in order of first appearance
    notes_plan: NotesPlan = NotesPlan()

    @property
    def notes_h(self) -> float:
        return self.notes_plan.height

    @property
    def empty(self) -> bool:
        return not self.items

    @property
    def capacity(self) -> float:
        return self.geometry.frame_h - SAFETY

    def notes_block(self) -> float:
        return NOTES_TOP + self.notes_h if self.notes else 0.0


class Pager:
    """Fills pages top to bottom, reserving each page's notes area as figures are added."""

    def __init__(self, notebook: NoteBook, first: Geometry = PORTRAIT, max_notes: int = MAX_PAGE_NOTES):
        self.notebook = notebook
        self.max_notes = max_notes
        self.pages: list[Page] = [Page(1, first)]

    @property
    def page(self) -> Page:
        return self.pages[-1]

    def new_page(self, geometry: Geometry | None = None) -> Page:
        self.pages.append(Page(len(self.pages) + 1, geometry or self.page.geometry))
        return self.page

    def use(self, geometry: Geometry) -> None:
        """Go on in this page geometry: on a new page if the current one differs and holds something."""
        if self.page.geometry != geometry:
            if self.page.empty:
                self.page.geometry = geometry
            else:
                self.new_page(geometry)

    def _notes_cost(self, figures: Sequence[BoundFigure]) -> float:
        """The height the page's notes area grows by if these figures join the page (infinite when
        the page would hold more notes than one-letter marks can name: marks stay one letter)."""
        page, width = self.page, self.page.geometry.frame_w
        new: list[tuple[float, ...]] = []
        seen = set()
        for fig in figures:
            for note in fig.notes:
                if note not in page.notes and note not in seen:
                    seen.add(note)
                    new.append(self.notebook.heights(note, width))
        if not new:
            return 0.0
        if page.notes and len(page.notes) + len(new) > self.max_notes:
            return float("inf")
        grown = self.notebook.plan(list(page.notes.values()) + new, width).height
        return grown - page.notes_h + (0.0 if page.notes else NOTES_TOP)

    def room(self) -> float:
        page = self.page
        return page.capacity - page.used - page.notes_block()

    def fits(self, height: float, figures: Sequence[BoundFigure] = ()) -> bool:
        return height + self._notes_cost(figures) <= self.room()

    def gap(self, gap: float) -> float:
        return 0.0 if self.page.empty else gap

    def place(self, payload, height: float, figures: Sequence[BoundFigure] = (), gap: float = 0.0) -> Page:
        """Put something on the current page (the caller checked that it fits)."""
        page = self.page
        g = self.gap(gap)
        page.items.append(Placed(payload, g, height))
        page.used += g + height
        self.add_figures(figures)
        return page

    def add_figures(self, figures: Sequence[BoundFigure]) -> None:
        page, width = self.page, self.page.geometry.frame_w
        grew = False
        for fig in figures:
            page.figures.append(fig)
            for note in fig.notes:
                if note not in page.notes:
                    page.notes[note] = self.notebook.heights(note, width)
                    grew = True
        if grew:
            page.notes_plan = self.notebook.plan(list(page.notes.values()), width)

    def reserve(self, height: float) -> None:
        self.page.used += height

    def add(self, payload, height: float, figures: Sequence[BoundFigure] = (), gap: float = 0.0,
            keep: float = 0.0, keep_figures: Sequence[BoundFigure] = (),
            split: Callable[[float], tuple[Any, float, Any, float] | None] | None = None) -> None:
        """Place an item, on a new page if it (and ``keep`` points of what must follow it on the
        same page, with their notes) does not fit here. ``split(room)`` may cut a too-tall item in
        two: (first payload, its height, rest payload, its height)."""
        while True:
            need = self.gap(gap) + height + keep
            notes = self._notes_cost(list(figures) + list(keep_figures))
            if need + notes <= self.room():
                self.place(payload, height, figures, gap)
                return
            if split is not None and not figures:
                cut = split(self.room() - self.gap(gap))
                if cut is not None:
                    first, first_h, rest, rest_h = cut
                    self.place(first, first_h, (), gap)
                    self.new_page()
                    payload, height, gap = rest, rest_h, 0.0
                    continue
            if self.page.empty:
                raise LayoutError(f"an item {height:.0f} points tall does not fit on an empty page "
                                  f"({self.page.capacity:.0f} points)")
            self.new_page()

    def add_run(self, run: "Run", gap: float = 0.0, start: int = 0) -> None:
        """A table or a chart: shares of its units (rows, bars), each share with its head repeated;
        from unit ``start`` on (a beside panel continued at full width)."""
        n = len(run.heights)
        i = start
        while i < n:
            continued = i > 0
            head = run.head_height(continued, self.page.geometry) + run.tail_h
            first_h = run.heights[i]
            first_figs = run.figures(i)
            if not self.fits(self.gap(gap if not continued else 0.0) + head + first_h, first_figs):
                if not self.page.empty:
                    self.new_page()
                    head = run.head_height(continued, self.page.geometry) + run.tail_h
                if not self.fits(head + first_h, first_figs):  # said here, not as an over-full page later
                    raise LayoutError(f"one row of {run.label} does not fit on an empty page with its notes")
            page = self.page
            g = self.gap(gap if not continued else 0.0)
            self.reserve(g + head)
            start = i
            body = 0.0
            while i < n:
                figs = run.figures(i)
                h = run.heights[i]
                if i > start and not self.fits(h, figs):
                    break
                self.reserve(h)
                body += h
                self.add_figures(figs)
                i += 1
            page.items.append(Placed(run.make(start, i, continued, page, i < n), g, head + body))
            if i < n:
                self.new_page()


    def add_pair(self, columns: Sequence[Sequence["Run"]], gap: float = 0.0, start: Sequence[tuple[int, int]] = (),
                 keep_below: float = 0.0, one_page: bool = False, right_x: float = 0.0) -> list[tuple[int, int]]:
        """Two columns of tables side by side (a beside section's panels: MLPerf | your runs, the
        runs' cohorts stacked in the right one): on each page one ``PairShare`` holding, per column,
        a share of each of its tables with rows on that page, each share with its own head; the
        item is as tall as the taller column. Rows go to the shorter column first, so the panels
        fill a page evenly. ``keep_below`` points stay free under the first page's pair (the shape
        panel goes there); it returns after the first page with ``one_page``, else after the page
        on which a column runs out (the other then goes on in the frame's width, not in half a
        page). Positions are (table, row) per column."""
        pos = [tuple(x) for x in start] or [(0, 0)] * len(columns)

        def done(c: int) -> bool:
            return pos[c][0] >= len(columns[c])

        def step(c: int) -> None:
            k, i = pos[c]
            pos[c] = (k, i + 1) if i + 1 < len(columns[c][k].heights) else (k + 1, 0)

        first = True
        while not all(done(c) for c in range(len(columns))):
            geometry = self.page.geometry
            g = self.gap(gap if first else 0.0)
            below = keep_below if first else 0.0
            segments: list[list[list]] = [[] for _ in columns]  # per column: [table, start, stop, height]

            def cost(c: int) -> float:
                """What the next row of column c adds to it on this page."""
                k, i = pos[c]
                run = columns[c][k]
                if segments[c] and segments[c][-1][0] == k:
                    return run.heights[i]
                return (STACK_GAP if segments[c] else 0.0) + run.head_height(i > 0, geometry) + run.tail_h + run.heights[i]

            def take(c: int) -> list:
                k, i = pos[c]
                h = cost(c)
                if segments[c] and segments[c][-1][0] == k:
                    segments[c][-1][2] = i + 1
                    segments[c][-1][3] += h
                else:
                    segments[c].append([k, i, i + 1, h - (STACK_GAP if segments[c] else 0.0)])
                step(c)
                return columns[c][k].figures(i)

            def tall(c: int) -> float:
                return sum(x[3] for x in segments[c]) + STACK_GAP * max(0, len(segments[c]) - 1)

            active = [c for c in range(len(columns)) if not done(c)]
            need = {c: cost(c) for c in active}
            figs = [f for c in active for f in columns[c][pos[c][0]].figures(pos[c][1])]
            if not self.fits(g + max(need.values()) + below, figs):
                if self.page.empty:
                    raise LayoutError(f"one row of each panel ({', '.join(columns[c][pos[c][0]].label for c in active)}) "
                                      "does not fit side by side on an empty page with their notes")
                self.new_page()
                continue
            page = self.page
            before = len(page.figures)
            for c in active:
                self.add_figures(take(c))
            stuck: set[int] = set()
            while True:
                open_ = [c for c in active if not done(c) and c not in stuck]
                if not open_:
                    break
                c = min(open_, key=lambda x: (tall(x), x))
                k, i = pos[c]
                more = columns[c][k].figures(i)
                tallest = max(max(tall(x) for x in active), tall(c) + cost(c))
                if g + tallest + below + self._notes_cost(more) > self.room():
                    stuck.add(c)
                    continue
                self.add_figures(take(c))
            height = max(tall(c) for c in active)
            self._in_reading_order(page, before, [[f for k, a, b, _ in segs for i in range(a, b)
                                                   for f in columns[c][k].figures(i)]
                                                  for c, segs in enumerate(segments)])
            self.reserve(g + height)
            shares = []
            for c, segs in enumerate(segments):
                shares.append([(columns[c][k].make(a, b, a > 0, page, b < len(columns[c][k].heights)), h)
                               for k, a, b, h in segs])
            page.items.append(Placed(PairShare(shares, height, right_x), g, height))
            first = False
            if one_page or any(done(c) for c in range(len(columns))):
                break  # a panel is done: the other goes on at full width (the caller's)
            self.new_page()
        return pos

    def _in_reading_order(self, page: Page, before: int, by_column: Sequence[Sequence[BoundFigure]]) -> None:
        """The pair's figures on ``page`` (added after the first ``before``, in the order the rows were
        taken, alternating between the panels) put in the order a reader meets them: the left panel top
        to bottom, then the right one, so that the page's marks read [a], [b], ... down each panel.
        Kept only where the notes area this gives is no taller than the one measured (its columns are
        balanced in order), so nothing planned can overflow."""
        ordered = page.figures[:before] + [f for column in by_column for f in column]
        if ordered == page.figures or sorted(map(id, ordered)) != sorted(map(id, page.figures)):
            return
        notes: dict[Note, tuple[float, ...]] = {}
        for fig in ordered:
            for note in fig.notes:
                if note not in notes:
                    notes[note] = page.notes[note]
        plan = self.notebook.plan(list(notes.values()), page.geometry.frame_w)
        if plan.height <= page.notes_plan.height + 1e-6:
            page.figures[:], page.notes, page.notes_plan = ordered, notes, plan

    def pair_done(self, columns: Sequence[Sequence["Run"]], pos: Sequence[tuple[int, int]]) -> bool:
        return all(p[0] >= len(col) for col, p in zip(columns, pos))


class LayoutError(ExportguardError, RuntimeError):
    """The content cannot be laid out as planned (never a silent misplacement). An ExportguardError,
    so that the command says it in one line: a stored value of any size (1e300 from another tool's
    store) can make a figure wider than any page."""


@dataclass
class Run:
    """What the pager needs of a table or chart: a head (caption, shared conditions, header) repeated
    on each share, a tail, and its units' heights and figures."""

    label: str
    heights: list[float]
    figures: Callable[[int], Sequence[BoundFigure]]
    head_height: Callable[[bool, Geometry], float]
    tail_h: float
    make: Callable[[int, int, bool, Page, bool], Any]


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


PAIR_GUTTER = 16.0  # between the two panels of a beside section
STACK_GAP = 8.0  # between two tables stacked in one panel


@dataclass
class PairShare:
    """A page's shares of two panels side by side: per panel (column) its tables' shares with their
    heights, stacked top down (empty where a panel has no rows left); each table laid out in its
    panel's width, the right panel drawn at ``right_x``."""

    columns: list[list[tuple["TableShare", float]]]
    height: float
    right_x: float = 0.0

    @property
    def shares(self) -> list["TableShare"]:
        return [s for col in self.columns for s, _ in col]


def shares_of(payload) -> list:
    """The table shares an item of a page holds: itself, or those of a pair."""
    return payload.shares if isinstance(payload, PairShare) else [payload]


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
