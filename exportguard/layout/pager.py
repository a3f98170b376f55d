"""The one pager: fills units (the PDF briefing's pages; a printed sheet's pages next) top to bottom,
decided before anything is drawn, in one pass over the content (linear in the number of rows).

Every unit has a notes area that holds exactly the notes of the figures on it. Adding a row (or a
bar, or a headline) to a unit costs its own height plus the height of those of its notes that the
unit does not hold yet, so the pager knows, row by row, whether the row and its notes still fit;
when they do not, the table goes on on the next unit with its head repeated (``Run``), and that
unit gets its own notes. Two panels side by side (a beside section) fill a unit evenly (``add_pair``).

It knows no format: a unit's area is anything with ``frame_w`` and ``frame_h`` (points), a note's
lines come from the format's own metrics and escaping (``NoteBook``'s ``wrap``), and the notes
area's furniture from a ``NotesStyle``. What it places (``payload``) is the format's own.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from ..citation import Note
from ..errors import ExportguardError
from ..report import BoundFigure


@dataclass(frozen=True)
class NotesStyle:
    """A format's notes area, in points: a note's line pitch, the space between two notes, the marks'
    column, the rule above the area with the space around it, and its columns (at most
    ``max_columns``, none narrower than ``column_min``)."""

    leading: float
    gap: float
    gutter: float
    top: float
    column_min: float
    column_gap: float
    max_columns: int = 3

    def columns_in(self, width: float) -> int:
        """The most columns a notes area of this width holds (3 on a landscape A4 page, 2 on a portrait one)."""
        return max(1, min(self.max_columns, int((width + self.column_gap) // (self.column_min + self.column_gap))))

    def column_width(self, width: float, columns: int) -> float:
        return (width - self.column_gap * (columns - 1)) / columns


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
    the plan of a page's notes area: in the number of columns (up to NotesStyle.columns_in) that takes the
    least height, fewer columns on a tie. Many short notes go in columns (a row's note of 100 to 200
    characters leaves the last line of most notes half empty at full width); a few long ones (an own
    run's note) stay at full width, where one of them in a narrow column would stand tall alone."""

    def __init__(self, style: NotesStyle, wrap: Callable[[str, float], list[str]]):
        self.style = style
        self._wrap = wrap  # a note's text in lines at a width: the format's metrics and escaping
        self._lines: dict[tuple[str, float], list[str]] = {}  # by text: a note's lines are its text's
        self._heights: dict[tuple[Note, float], tuple[float, ...]] = {}

    def lines(self, note: Note, width: float, columns: int = 1) -> list[str]:
        """The note's lines in a notes area ``width`` points wide (the page frame's) of ``columns`` columns."""
        return self.text_lines(note.text, width, columns)

    def text_lines(self, text: str, width: float, columns: int = 1) -> list[str]:
        """A note's lines from its text (what a page's planned notes block holds): as ``lines``."""
        inner = self.style.column_width(width, columns) - self.style.gutter
        key = (text, inner)
        got = self._lines.get(key)
        if got is None:
            got = self._lines[key] = self._wrap(text, inner)
        return got

    def heights(self, note: Note, width: float) -> tuple[float, ...]:
        """The note's height in 1, 2, ... columns (as many as the width holds)."""
        key = (note, width)
        got = self._heights.get(key)
        if got is None:
            got = self._heights[key] = tuple(len(self.lines(note, width, k)) * self.style.leading + self.style.gap
                                             for k in range(1, self.style.columns_in(width) + 1))
        return got

    def plan(self, heights: Sequence[tuple[float, ...]], width: float) -> NotesPlan:
        if not heights:
            return NotesPlan()
        best = None
        for k in range(1, self.style.columns_in(width) + 1):
            h, starts = balance([x[k - 1] for x in heights], k)
            if best is None or h < best.height - 1e-6:
                best = NotesPlan(h, k, tuple(starts))
        return best

    def block(self, notes: Sequence[Note], width: float) -> float:
        """The height of a notes area holding these notes, in this order (its rule included)."""
        if not notes:
            return 0.0
        return self.style.top + self.plan([self.heights(n, width) for n in notes], width).height


@dataclass
class Placed:
    payload: Any
    gap: float  # space above it on its page (0 at the top of a page)
    height: float


@dataclass
class Page:
    number: int
    geometry: Any  # the unit's area: frame_w and frame_h, in points
    items: list[Placed] = field(default_factory=list)
    used: float = 0.0
    figures: list[BoundFigure] = field(default_factory=list)
    notes: dict[Note, tuple[float, ...]] = field(default_factory=dict)  # heights in 1, 2, ... columns, in order of first appearance
    notes_plan: NotesPlan = NotesPlan()
    safety: float = 0.0  # points left free at the foot, so that rounding never pushes content over
    notes_top: float = 0.0  # the notes area's rule and the space around it

    @property
    def notes_h(self) -> float:
        return self.notes_plan.height

    @property
    def empty(self) -> bool:
        return not self.items

    @property
    def capacity(self) -> float:
        return self.geometry.frame_h - self.safety

    def notes_block(self) -> float:
        return self.notes_top + self.notes_h if self.notes else 0.0


class Pager:
    """Fills pages top to bottom, reserving each page's notes area as figures are added."""

    def __init__(self, notebook: NoteBook, first, max_notes: int, safety: float = 0.0, stack_gap: float = 0.0):
        self.notebook = notebook
        self.max_notes = max_notes
        self.safety = safety
        self.stack_gap = stack_gap  # between two tables stacked in one panel of a pair
        self.pages: list[Page] = []
        self.new_page(first)

    @property
    def page(self) -> Page:
        return self.pages[-1]

    def new_page(self, geometry=None) -> Page:
        self.pages.append(Page(len(self.pages) + 1, geometry or self.page.geometry, safety=self.safety,
                               notes_top=self.notebook.style.top))
        return self.page

    def use(self, geometry) -> None:
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
        return grown - page.notes_h + (0.0 if page.notes else self.notebook.style.top)

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
                return (self.stack_gap if segments[c] else 0.0) + run.head_height(i > 0, geometry) + run.tail_h + run.heights[i]

            def take(c: int) -> list:
                k, i = pos[c]
                h = cost(c)
                if segments[c] and segments[c][-1][0] == k:
                    segments[c][-1][2] = i + 1
                    segments[c][-1][3] += h
                else:
                    segments[c].append([k, i, i + 1, h - (self.stack_gap if segments[c] else 0.0)])
                step(c)
                return columns[c][k].figures(i)

            def tall(c: int) -> float:
                return sum(x[3] for x in segments[c]) + self.stack_gap * max(0, len(segments[c]) - 1)

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
    head_height: Callable[[bool, Any], float]  # (continued, the unit's area)
    tail_h: float
    make: Callable[[int, int, bool, Page, bool], Any]


@dataclass
class PairShare:
    """A page's shares of two panels side by side: per panel (column) its tables' shares with their
    heights, stacked top down (empty where a panel has no rows left); each table laid out in its
    panel's width, the right panel drawn at ``right_x``."""

    columns: list[list[tuple[Any, float]]]
    height: float
    right_x: float = 0.0

    @property
    def shares(self) -> list:
        return [s for col in self.columns for s, _ in col]


def shares_of(payload) -> list:
    """The table shares an item of a page holds: itself, or those of a pair."""
    return payload.shares if isinstance(payload, PairShare) else [payload]
