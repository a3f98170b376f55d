"""Planning the PDF briefing (issue 10): the pages of a paged report in which every page carries
the notes of its own figures, as one frozen layout.document.Document. Layout in docs/pdf.md;
painting in render/pdf.py and render/pdf_paint.py.

- A title page (title, audience, date, the one-line caveat, how to read the figures, contents),
  then one part per section of the report: text, tables (split across pages with caption, shared
  conditions and header rows repeated), KPI boxes (the figure with its scenario and shape inline),
  charts (bands as error bars, each bar's rank in words), beside sections (the MLPerf panel left,
  the own panel right, the shape panel under them on the same page; layout.pager.Pager.add_pair),
  then the caveat in full and a sources appendix.
- Ranks are the guard's (BoundTable.ranks, KpiSection.rank: "3 (tie 2-5)", "not ranked"); wherever
  a rank shows, its table or chart states the tie rule (wording.TIE_RULE) on the same page, and
  every guard notice of a comparison (report.Notice, e.g. EG020) stands in its shared conditions on
  each page it spans.
- Every figure is one text run, exactly its bound text (``101,527 tok/s ±5.4% [a]``), in a column
  sized to it, so it never breaks across lines. Marks are lettered per page; each page's notes area
  holds exactly the notes of the figures on that page.
- A running header with the report title; the one-line caveat and "Page N of M" at the foot of
  every page; an outline entry (bookmark) per section.

Pages are filled first (layout.pager.Pager, linear in the rows) while the walker goes through the
sections; each share of a table or chart, and each headline box, carries which one it is
(pdf_tables.TableOf, pdf_chart.ChartOf, HeadlineOf). In ``back``, once every page is final,
``_plan`` makes the pages one frozen Document (pdf_plan.py): per page its blocks at the frames the
pager gave them, with their text as wrapped, every figure a BoundCell lettered for its page with its
location, the page's notes and its furniture. A page planned over-full is an error before anything
is drawn.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from typing import Sequence

from .. import __version__
from ..guard import lean_table
from ..citation import result_id_cell
from ..layout import compose
from ..layout.document import Document, Frame, KpiBlock, Location, Para, TextBlock, Unit
from ..report import BesideSection, BoundFigure, BoundTable, ChartSection, KpiSection, Report, TableSection, TextSection
from ..wording import BESIDE_RULE, NOT_RANKED_SENTENCE, TIE_RULE, both_shapes_title, shape_title
from ..layout.pager import LayoutError, Page, Pager, PairShare
from . import pdf_layout as lay
from .pdf_chart import Bar, ChartLayout, ChartOf, ChartShare
from .pdf_layout import BODY, CAPTION, HEADING, PROSE, SMALL, Geometry, note_book
from .pdf_manifest import MANIFEST_NAME
from .pdf_plan import bound, chart_block, notes_block, table_block
from .pdf_tables import WORD_CAPS, TableLayout, TableOf, TableShare, fits_for, mark_letters, widest_text
from .pdf_text import SANS_BOLD, SANS_OBLIQUE, Metrics, Style, clean, register_fonts
from .walk import Lettering, Walk, walk


KPI_FIGURE_MAX = 22.0
TEXT_LIMIT = 20_000  # characters of one paragraph of free text
ORPHAN_ROWS = 3  # rows a table or chart starts a page with, at least, when it goes on overleaf


# -- flowables: each draws exactly what was measured ------------------------------------------------

@dataclass(frozen=True)
class Heading:
    """A section's heading as the pager holds it: its title's lines, the outline entry (bookmark) it
    starts, and the space kept above its lines; without lines, only that space (the room kept above
    a table's next column part)."""

    title: str
    lines: tuple[str, ...] = ()
    key: str = ""
    above: float = 0.0

    @property
    def height(self) -> float:
        return len(self.lines) * HEADING.leading + self.above


@dataclass(frozen=True)
class Contents:
    """The title page's contents as the pager holds it: each entry (title, key) with its lines, the
    pages filled in once every page is planned."""

    entries: tuple[tuple[str, str], ...]
    lines: tuple[tuple[str, ...], ...]
    width: float

    @property
    def height(self) -> float:
        return CAPTION.leading + 4.0 + sum(len(x) for x in self.lines) * BODY.leading


@dataclass(frozen=True)
class Prose:
    """A paragraph as the pager holds it: its text in one of pdf_layout.PROSE's styles, wrapped once
    at the width it stands in; ``lead``: the run-in words its first line starts with, set in bold."""

    style: str
    lines: tuple[str, ...]
    lead: str = ""

    @property
    def height(self) -> float:
        return len(self.lines) * PROSE[self.style][0].leading

    def para(self) -> Para:
        style = PROSE[self.style][0]
        return Para(" ".join(self.lines), style.size, bold=style.font in _BOLD, italic=style.font in _ITALIC,
                    lines=self.lines, style=self.style, lead=self.lead)

    def split(self, room: float) -> tuple[Prose, Prose] | None:
        """The lines that fit ``room`` points and the rest; None where fewer than two lines fit (a
        paragraph's first line is not left alone at a page's foot) or all of them do."""
        n = int(room // PROSE[self.style][0].leading)
        if n < 2 or n >= len(self.lines):
            return None
        return Prose(self.style, self.lines[:n], self.lead), Prose(self.style, self.lines[n:])


@dataclass(frozen=True)
class Box:
    """Paragraphs in a tinted box (the caveat on the title page)."""

    paras: tuple[Prose, ...]
    width: float

    @property
    def height(self) -> float:
        return sum(p.height for p in self.paras) + 2 * lay.BOX_PAD + lay.PARA_GAP * (len(self.paras) - 1)


@dataclass(frozen=True)
class HeadlineOf:
    """Which headline a box shows: its number through the document ("Headline 1", the location's
    headline) and the report section it belongs to (from 1)."""

    number: int
    section: int


@dataclass(frozen=True)
class Headline:
    """A headline figure as the pager holds it: its label, the figure's type size (the widest text it
    may show with its page's marks fits the box), and its paragraphs (scenario and shape inline, who
    measured it, what it shares with its cohort, its rank, the statements beside it), wrapped."""

    label: str
    section: KpiSection
    width: float
    of: HeadlineOf
    size: float
    paras: tuple[Prose, ...]

    @property
    def height(self) -> float:
        return (2 * lay.KPI_PAD + SMALL.leading + 2.0 + self.size * 1.25 + 4.0 +
                sum(p.height for p in self.paras) + lay.PARA_GAP * (len(self.paras) - 1))


# -- the renderer -----------------------------------------------------------------------------------

class BriefingPlanner:
    """The walker's renderer that plans a briefing and draws nothing: after ``walk``, ``plan`` holds
    the frozen Document (layout.document) and ``pager.pages`` the pages it was made from."""

    format = "pdf"

    def __init__(self, report: Report, page_size: str = "a4", orientation: str | None = None):
        register_fonts()
        self.trials: dict[str, BriefingPlanner] = {}  # the orientations planned to choose one, each walked
        self.metrics = Metrics()
        notes = set()
        for _, fig in report.figures():
            notes.update(fig.notes)
        # the pager keeps a page to 26 notes (one-letter marks), unless one figure alone has more
        most = max((len(fig.notes) for _, fig in report.figures()), default=0)
        self.letters = mark_letters(max(min(len(notes), lay.MAX_PAGE_NOTES), most))
        # every page's geometry: one orientation per document, portrait unless asked or unless a
        # table's columns (each figure whole, at the one type size) need a landscape page's width
        if orientation is None:
            orientation = self._orientation(report, page_size)
        self.orientation = orientation
        self.geometry = lay.geometry(page_size, orientation)
        self.report = report
        self.notebook = note_book(self.metrics)
        self.pager = Pager(self.notebook, self.geometry, lay.MAX_PAGE_NOTES, safety=lay.SAFETY, stack_gap=lay.STACK_GAP)
        self.counts = defaultdict(int)  # tables, charts, headlines numbered through the document
        self.toc_pages: dict[str, int] = {}
        self.plan: Document | None = None  # the frozen plan of the pages, once they are final (back)

    def _orientation(self, report: Report, page_size: str) -> str:
        """Where every table holds its columns on a portrait page with their words whole: portrait if
        its rows take no larger share of a page there than on a landscape page, else landscape
        (judged on each table's first rows); landscape where a table needs its width for the full type
        size; else the one of the two whose plan takes fewer pages (planned, not drawn), and on a tie the
        one whose rows take the smaller share of a page."""
        portrait, landscape = (lay.geometry(page_size, o) for o in lay.ORIENTATIONS)
        # a table that holds its columns on a portrait page may still need many more lines there
        if self._fits(report, portrait, WORD_CAPS[0]):
            # in share of a page: a table whose rows wrap to two or three times the height in portrait
            # (a briefing's eight columns: 671 pt against 248) reads better across a landscape page
            return "portrait" if self._denser_in_portrait(report, portrait, landscape) else "landscape"
        if not self._fits(report, portrait, WORD_CAPS[-1]) or not self._fits(report, landscape, WORD_CAPS[-1]):
            return "landscape"
        pages = {}
        for o in lay.ORIENTATIONS:
            trial = self.trials[o] = BriefingPlanner(report, page_size, o)
            walk(report, trial)
            pages[o] = len(trial.pager.pages)
        if pages["portrait"] != pages["landscape"]:
            return "portrait" if pages["portrait"] < pages["landscape"] else "landscape"
        return "portrait" if self._denser_in_portrait(report, portrait, landscape) else "landscape"

    def _denser_in_portrait(self, report: Report, portrait: Geometry, landscape: Geometry) -> bool:
        """Do the tables' rows take no larger share of a page in portrait than in landscape?"""
        return self._rows_height(report, portrait) / portrait.frame_h <= \
            self._rows_height(report, landscape) / landscape.frame_h

    def _rows_height(self, report: Report, g: Geometry) -> float:
        """The height the rows of the report's tables take laid out on a page of this geometry."""
        total = 0.0
        for s in report.sections:
            if isinstance(s, TableSection):  # the first rows: both orientations are judged on the same ones
                layout = self._table_layout(replace(s.table, rows=s.table.rows[:DENSITY_SAMPLE]), 0, "", "")
                try:
                    layout.fit(fits_for(g))
                except LayoutError:
                    return float("inf")
                total += sum(layout.heights)
        return total

    def _fits(self, report: Report, g: Geometry, cap: float) -> bool:
        """Does every table of the report hold its columns on a page of this geometry, at the full
        type size, breaking no word shorter than ``cap`` points? A beside section's panels count
        side by side where they can be so on a landscape page (else stacked, each the frame's width):
        a document takes landscape for its panels to stand side by side."""
        size = lay.CELL.size
        wide = Geometry("landscape", max(g.page_w, g.page_h), min(g.page_w, g.page_h))
        for s in report.sections:
            tables = s.tables() if isinstance(s, BesideSection) else (s.table,) if isinstance(s, TableSection) else ()
            layouts = [TableLayout(self.metrics, letters=self.letters, label="", title="", shared="",
                                   headers=[c.header for c in t.columns], rows=t.rows,
                                   whole=[c.kind == "rank" or c.key == "result_id" for c in t.columns])
                       for t in tables]
            if isinstance(s, BesideSection) and _panel_widths(layouts[0], layouts[1:], wide) is not None:
                if _panel_widths(layouts[0], layouts[1:], g) is None or \
                        sum(layouts[0].minimum(size, cap)) + max(sum(t.minimum(size, cap)) for t in layouts[1:]) > \
                        g.frame_w - lay.PAIR_GUTTER + 0.01:
                    return False
                continue
            if any(sum(t.minimum(size, cap)) > g.frame_w + 0.01 for t in layouts):
                return False
        return True

    # -- helpers --
    def _width(self) -> float:
        return self.pager.page.geometry.frame_w

    def _heading(self, text: str, key: str, keep: float = 0.0, keep_figures: Sequence[BoundFigure] = (),
                 new_page: bool = False, geometry: Geometry | None = None) -> None:
        geometry = geometry or self.geometry
        if new_page and not self.pager.page.empty:
            self.pager.new_page(geometry)
        self.pager.use(geometry)
        title = clean(text, 400, one_line=True)
        lines = self.metrics(HEADING).wrap(title, self._width())
        heading = Heading(title, tuple(lines), key, above=5.0)
        self.pager.add(heading, heading.height, gap=lay.SECTION_GAP, keep=keep, keep_figures=keep_figures)
        self.toc_pages[key] = self.pager.page.number

    def _prose(self, text: str, style: str, limit: int | None = None, width: float | None = None,
                lead: str = "") -> Prose:
        """A paragraph wrapped at ``width`` (the frame's) in one of pdf_layout.PROSE's styles; ``lead``:
        run-in words before ``text``, set in bold, its first line measured after them."""
        width = self._width() if width is None else width
        style_of = PROSE[style][0]
        measure = self.metrics(style_of)
        text = clean(text, limit, one_line=True)
        if not lead:
            return Prose(style, tuple(measure.wrap(text, width)))
        bold = self.metrics(Style(lay.LEAD_FONT, style_of.size, style_of.leading))
        rest = measure.wrap(text, width, indent=bold.width(lead + " "))
        return Prose(style, (f"{lead} {rest[0]}", *rest[1:]) if rest else (lead,), lead)

    def _contents(self, entries: list[tuple[str, str]], width: float) -> Contents:
        """The contents' entries, each wrapped short of the page numbers' column, its continuation
        lines indented."""
        m = self.metrics(BODY)
        lines = []
        for title, _ in entries:
            first, *rest = m.wrap(title, width - 40.0) or [""]
            lines.append(tuple([first] + (m.wrap(" ".join(rest), width - 40.0 - lay.CONTENTS_INDENT) if rest else [])))
        return Contents(tuple(entries), tuple(lines), width)

    def _paragraph(self, p: Prose, gap: float = 6.0) -> None:
        def split(room: float):
            parts = p.split(room)
            return None if parts is None else (parts[0], parts[0].height, parts[1], parts[1].height)

        self.pager.add(p, p.height, gap=gap, split=split)

    # -- the protocol --
    def front(self, doc: Walk) -> None:
        r = self.report
        width = self._width()
        add = self.pager.add
        title = self._prose(r.title, "title", 400)
        add(title, title.height + 8.0)
        # the data's dates, not the spec's audience: a reader asks how current the figures are
        sub = self._prose(f"{doc.data_dates()} Generated {r.generated_on or 'on export'} by exportguard "
                          f"{__version__}.".lstrip(), "sub", 600)
        add(sub, sub.height, gap=4.0)
        box = Box((self._prose(r.caveat_short, "caveat", width=width - 2 * lay.BOX_PAD),), width)
        add(box, box.height, gap=16.0)
        how = self._prose(
            "Every figure is printed as one piece of text: its value, its unit, its "
            "band and a note mark in brackets. The band is plus or minus half the shape slack of the figure's cohort "
            "(the spread of generation lengths among the results that may be compared with it). "
            f"{TIE_RULE} Each mark points to a note at the foot of the same page, "
            "with the result's MLCommons citation, its configuration, shape and load; marks are lettered afresh on "
            "every page. A table that runs over several pages repeats its header, its shared conditions and the "
            "notes of the figures on each page. Figures from different cohorts are never compared. This PDF carries "
            f"its machine-readable manifest as the attached file {MANIFEST_NAME}.", "body", lead="How to read the figures.")
        add(how, how.height, gap=14.0)
        # the guard's warnings (their rule IDs and command-line ways out) go to stderr and the manifest; a
        # reader meets their statements in readers' words beside each table they concern (Notice)
        entries = [(f"{n}. {clean(s.title, 300, one_line=True)}", f"s{n}") for n, s in enumerate(r.sections, 1)]
        entries += [("Caveat: what these figures tell, and what they do not", "caveat"),
                    ("Sources: one citation per result shown", "sources")]
        contents = self._contents(entries, width)
        add(contents, contents.height, gap=18.0)
        legend = self._prose(r.legend, "small")
        add(legend, legend.height, gap=14.0)
        self.pager.new_page()

    def text(self, doc: Walk, n: int, section: TextSection) -> None:
        self._heading(f"{n}. {section.title}", f"s{n}", keep=2 * BODY.leading + 6.0)
        for text in section.paragraphs:
            self._paragraph(self._prose(text, "body", TEXT_LIMIT))

    def _fitting_layout(self, **kw) -> tuple[TableLayout, Geometry]:
        """Portrait when the table's columns fit it (each at least its longest word, each figure
        whole), else landscape, in smaller type and with long words broken if it must be
        (pdf_tables.FITS)."""
        layout = TableLayout(self.metrics, letters=self.letters, **kw)
        return layout, layout.fit(fits_for(self.geometry))

    def table(self, doc: Walk, n: int, section: TableSection) -> None:
        table = section.table
        cohort = table.cohort.label()
        title = section.title if cohort in section.title else f"{section.title} ({cohort})"
        whole = self._table_layout(table, self.counts["table"] + 1, title,
                                   "" if cohort in section.title else f"Cohort: {cohort}")
        groups = self._column_groups(table, whole)
        for k, part in enumerate(groups):
            self.counts["table"] += 1
            number = self.counts["table"]
            sub = table if len(groups) == 1 else replace(
                table, columns=tuple(table.columns[c] for c in part), rows=tuple(tuple(row[c] for c in part) for row in table.rows))
            caption = "" if cohort in section.title else f"Cohort: {cohort}"
            if len(groups) > 1:  # a table too wide for the page at full size: its columns in parts, the row's keys in each
                others = " and ".join(f"Table {number - k + j}" for j in range(len(groups)) if j != k)
                caption = (f"{caption}; p" if caption else "P") + (
                    f"art {k + 1} of {len(groups)} of its columns, the other{'s' if len(groups) > 2 else ''} in "
                    f"{others}; each part shows each row's rank, submitter and system")
            layout = whole if len(groups) == 1 else self._table_layout(sub, number, title, caption, part=k)
            geometry = layout.fit(fits_for(self.geometry))

            def make(start, stop, continued, page, continues, layout=layout, number=number, sub=sub):
                return TableShare(layout, start, stop, continued, continues, page, of=TableOf(number, n, sub))

            keep, keep_figures = self._keep(layout, layout.head_height(False, geometry), geometry)
            if k == 0:
                self._heading(f"{n}. {section.title}", f"s{n}", geometry=geometry, keep=keep, keep_figures=keep_figures)
                self.pager.add_run(layout.run(f"table {number}", make), gap=2.0)
            else:
                self.pager.add(Heading(""), 0.0, gap=lay.SECTION_GAP, keep=keep, keep_figures=keep_figures)
                self.pager.add_run(layout.run(f"table {number}", make), gap=0.0)

    def _table_layout(self, table: BoundTable, number: int, title: str, caption: str, part: int = 0) -> TableLayout:
        return TableLayout(
            self.metrics, letters=self.letters, label=f"Table {number}", title=title, first_caption=caption,
            shared=compose.shared_conditions(table),
            part=part, **_cells_of(table))

    def _column_groups(self, table: BoundTable, layout: TableLayout) -> list[list[int]]:
        """The table's columns in one part when the page (or, on a portrait page, a landscape one: a
        document takes landscape for such a table, BriefingPlanner._orientation) holds them at the full
        type size with their words whole (up to 60 points), else in as few parts as hold them so (the longest words kept
        whole where they can; in one part the rows of such a table wrap into many lines), each part with
        the columns that say whose row it is (rank, submitter, system) and then the next columns
        in order; a table whose parts cannot be so gets smaller type instead (pdf_tables.fits_for)."""
        every = list(range(len(table.columns)))
        width, size = self.geometry.frame_w + 0.01, lay.CELL.size
        wide = max(self.geometry.page_w, self.geometry.page_h) - 2 * lay.MARGIN_X + 0.01
        need = sum(layout.minimum(size, WORD_CAPS[0]))  # every column, its words whole
        if need <= width or need <= wide:  # parts only for what a landscape page cannot hold either
            return [every]
        keys = [c for c, col in enumerate(table.columns) if col.kind == "rank" or col.key in ("submitter", "system")]
        rest = [c for c in every if c not in keys]
        best = None
        for cap in WORD_CAPS:
            least = layout.minimum(size, cap)
            base = sum(least[c] for c in keys)
            groups, current = [], []
            for c in rest:
                if base + sum(least[x] for x in current) + least[c] <= width:
                    current.append(c)
                elif current and base + least[c] <= width:
                    groups.append(current)
                    current = [c]
                else:
                    groups = None
                    break
            if groups is None:
                continue
            groups.append(current)
            best = cap, groups  # the first cap that gives parts: words kept whole before fewer parts
            break
        if best is None or len(best[1]) < 2:
            return [every]
        return [sorted(keys + g) for g in _even_groups(layout, keys, rest, len(best[1]), best[0], width)]

    def chart(self, doc: Walk, n: int, section: ChartSection) -> None:
        table = section.table
        cols = [c for c, col in enumerate(table.columns) if col.holds_figures]
        text_cols = {col.key: c for c, col in enumerate(table.columns)}
        any_figure = next((f for _, _, f in table.figures()), None)
        shape = shape_title(any_figure.result) if any_figure else table.table_note.shape
        first = True
        for c in cols:
            self.counts["chart"] += 1
            number = self.counts["chart"]
            rows = list(range(len(table.rows)))
            figs = [table.rows[r][c] for r in rows]
            # bars highest first (a derived column has its own order); rows without a figure last
            rows.sort(key=lambda r: (not isinstance(figs[r], BoundFigure),
                                     -figs[r].magnitude if isinstance(figs[r], BoundFigure) else 0.0))
            # the guard's ranks, for the figure column the table is ranked by; a derived column's bars
            # are in its own order and carry no rank (a rank is a statement about the throughput)
            ranked = table.ranked and table.columns[c].kind == "figure"
            ranks = [table.ranks[r].words() if ranked else "" for r in rows]
            bars = []
            for k, r in enumerate(rows):
                row = table.rows[r]
                who = [row[text_cols[key]] for key in ("submitter", "system") if key in text_cols]
                if not who:
                    who = [row[i] for i, col in enumerate(table.columns) if col.kind == "text"][:2]
                bars.append(Bar(clean(", ".join(str(x) for x in who), lay.CELL_LIMIT, one_line=True), ranks[k], figs[r]))
            sample = next((f for f in figs if isinstance(f, BoundFigure)), None)
            unit = sample.unit_text if sample else table.columns[c].header
            cohort = table.cohort.label()
            what = "" if c == cols[0] else f"{table.columns[c].header}, "
            title = section.title if cohort in section.title else f"{section.title}; {cohort}"
            title = title if not what else f"{title}: {table.columns[c].header}"
            chart = ChartLayout(self.metrics, label=f"Chart {number}", title=title,
                                first_caption=f"{what}{cohort}; shape: {shape}",
                                shared=compose.shared_conditions(table, ranked, "Every bar"),
                                unit=unit, bars=bars, slack=table.slack, width=self.geometry.frame_w,
                                letters=self.letters)

            def make(start, stop, continued, page, continues, chart=chart, number=number):
                return ChartShare(chart, start, stop, continued, continues, page, of=ChartOf(number, n))

            keep, keep_figures = self._keep(chart, chart.head_height(False))
            if first:
                self._heading(f"{n}. {section.title}", f"s{n}", keep=keep, keep_figures=keep_figures)
                first = False
            else:
                self.pager.use(self.geometry)
            self.pager.add_run(chart.run(make), gap=6.0)

    def _keep(self, layout, head: float, geometry: Geometry | None = None) -> tuple[float, list[BoundFigure]]:
        """What a heading keeps with it: the whole table or chart (with its notes) when that fits
        on one page, so a short one never splits; else its head and first row."""
        geometry = geometry or self.geometry
        n = len(layout.heights)
        figures = [f for i in range(n) for f in layout.figures_of(i)]
        whole = head + sum(layout.heights) + layout.tail_h
        room = geometry.frame_h - lay.SAFETY - HEADING.leading * 2 - lay.SECTION_GAP
        if whole <= room and whole + self.notebook.block(
                list(dict.fromkeys(note for f in figures for note in f.notes)), geometry.frame_w) <= room:
            return whole, figures
        # no table starts at a page's foot with a row or two and goes on overleaf: it keeps its first
        # rows, as many of ORPHAN_ROWS as an empty page holds with their notes
        def keep(first: int) -> tuple[float, list[BoundFigure]]:
            return (head + sum(layout.heights[:first]) + layout.tail_h,
                    [f for i in range(first) for f in layout.figures_of(i)])

        first = 1
        while first < min(n, ORPHAN_ROWS):
            h, figs = keep(first + 1)
            if h + self.notebook.block(list(dict.fromkeys(x for f in figs for x in f.notes)), geometry.frame_w) > room:
                break
            first += 1
        return keep(first)

    def _headline(self, label: str, section: KpiSection, width: float, of: HeadlineOf) -> Headline:
        """A headline figure: label, the figure as one run in large type (as large as the widest text it
        may show fits), its scenario and shape inline, who measured it, and the conditions it shares with
        its cohort."""
        fig = section.figure
        i = fig.result.conditions.identity
        inner = width - 2 * lay.KPI_PAD
        widest = widest_text(fig, self.letters)
        bold = self.metrics(Style(SANS_BOLD, KPI_FIGURE_MAX, KPI_FIGURE_MAX))
        size = min(KPI_FIGURE_MAX, KPI_FIGURE_MAX * inner / max(1.0, bold.width(widest)))
        texts = [(section.inline_conditions, "kpi-cond", 600),
                 (f"{i.submitter}, {i.system_name}; result {result_id_cell(fig.result)}, {i.verified}", "kpi-who", 600),
                 (section.table_note.text, "kpi-shared", lay.NOTE_LIMIT)]
        if section.rank is not None:
            rule = TIE_RULE if section.rank.ranked else NOT_RANKED_SENTENCE
            texts.append((f"Rank in its cohort: {section.rank.words()}. {rule}", "kpi-shared", 1000))
        texts += [(x.text, "kpi-shared", 1000) for x in section.notices]
        return Headline(label, section, width, of, size,
                        tuple(self._prose(text, style, limit, width=inner) for text, style, limit in texts))

    def kpi(self, doc: Walk, n: int, section: KpiSection) -> None:
        self.counts["headline"] += 1
        box = self._headline(f"Headline {self.counts['headline']}", section, self.geometry.frame_w,
                             HeadlineOf(self.counts["headline"], n))
        self._heading(f"{n}. {section.title}", f"s{n}", keep=box.height + 4.0, keep_figures=[section.figure])
        self.pager.add(box, box.height, [section.figure], gap=4.0)

    def beside(self, doc: Walk, n: int, section: BesideSection) -> None:
        """The MLPerf panel (left) and the own panel (right) side by side, each its own table with
        its own caption, band rule, ranks and notes, and under them, on the section's first page,
        the shape panel: both shapes in numbers and why a throughput does not carry over. Rows that
        do not fit continue on the next pages, still side by side, each with its head repeated.
        Where the panels do not hold their columns in half the page at the full type size, they are
        stacked instead (the document's orientation is chosen for the side by side one,
        BriefingPlanner._fits). Every panel takes the page geometry, so the section never flips
        orientation midway."""
        panels = []
        for k, table in enumerate(section.tables()):
            self.counts["table"] += 1
            number = self.counts["table"]
            panels.append((number, table, self._panel_layout(number, table, k)))
        self.counts["table"] += 1
        shape_number = self.counts["table"]
        rows = [(r.label, r.shape, r.load) for r in (section.shape.mlperf, *section.shape.own)]
        shape = TableLayout(self.metrics, letters=self.letters, label=f"Table {shape_number}",
                            title=both_shapes_title(section.title), first_caption=both_shapes_title(section.title),
                            shared=section.shape.sentence, headers=["Whose", "Shape, in numbers", "Load"], rows=rows)
        layouts = [layout for _, _, layout in panels]
        widths = _panel_widths(layouts[0], layouts[1:], self.geometry, choose=True)  # None: the panels are stacked
        if widths is not None:
            (left_w, right_w), options = widths  # the panels are laid out at these widths
            shape.fit(fits_for(self.geometry))
            geometry = self.geometry
            # the heading keeps with it the intro, the first row of each panel and the whole shape
            # panel; where even an empty page cannot hold that with its notes, the panels are stacked
            head = max(t.head_height(False, geometry) + t.heights[0] + t.tail_h for t in layouts[:2])
            intro_h = self._prose(BESIDE_RULE, "small", width=geometry.frame_w).height
            pair_keep = intro_h + 4.0 + head + 8.0 + _placed_height(shape, geometry)
            pair_figures = layouts[0].figures_of(0) + layouts[1].figures_of(0)
            need = pair_keep + self.notebook.block(list(dict.fromkeys(x for f in pair_figures for x in f.notes)),
                                                   geometry.frame_w)
            if need + HEADING.leading * 2 + lay.SECTION_GAP > geometry.frame_h - lay.SAFETY:
                widths = None
        if widths is None:
            geometry = _fit_together(layouts + [shape], self.geometry)
        intro = self._prose(BESIDE_RULE, "small", width=geometry.frame_w)
        intro_h = intro.height
        shape_h = _placed_height(shape, geometry)
        figures = [f for _, t, _ in panels for _, _, f in t.figures()]
        notes_h = self.notebook.block(list(dict.fromkeys(note for f in figures for note in f.notes)), geometry.frame_w)

        def makers(number, table, layout):
            def make(start, stop, continued, page, continues):
                return TableShare(layout, start, stop, continued, continues, page, of=TableOf(number, n, table))
            return make

        def make_shape(start, stop, continued, page, continues):
            return TableShare(shape, start, stop, continued, continues, page)

        runs = [layout.run(f"table {number}", makers(number, table, layout)) for number, table, layout in panels]
        if widths is not None:
            self._heading(f"{n}. {section.title}", f"s{n}", geometry=geometry, keep=pair_keep,
                          keep_figures=pair_figures)
            self.pager.add(intro, intro_h, gap=4.0)
            columns = [runs[:1], runs[1:]]
            right_x = left_w + lay.PAIR_GUTTER
            rest = self.pager.add_pair(columns, gap=4.0, keep_below=shape_h + 8.0, one_page=True, right_x=right_x)
            self.pager.add_run(shape.run(f"table {shape_number}", make_shape), gap=8.0)
            if all(p[0] < len(col) for col, p in zip(columns, rest)):  # both panels go on side by side
                self.pager.new_page()
                rest = self.pager.add_pair(columns, start=rest, right_x=right_x)
            if not self.pager.pair_done(columns, rest):
                # one panel goes on alone: in the frame's width, its head repeated ("continued")
                self.pager.new_page()
                c = next(c for c, (col, p) in enumerate(zip(columns, rest)) if p[0] < len(col))
                k0, i0 = rest[c]
                offset = 0 if c == 0 else 1
                for k in range(k0, len(columns[c])):
                    number, table, _ = panels[offset + k]
                    wide = self._panel_layout(number, table, offset + k)
                    wide.fit(fits_for(geometry))
                    self.pager.add_run(wide.run(f"table {number}", makers(number, table, wide)), gap=8.0,
                                       start=i0 if k == k0 else 0)
            return
        # stacked: the heading keeps the whole section with it when it fits on one page with its notes
        whole = intro_h + 4.0 + sum(_placed_height(layout, geometry) + 8.0 for layout in layouts) + shape_h
        fits = whole + notes_h + HEADING.leading * 2 + lay.SECTION_GAP <= geometry.frame_h - lay.SAFETY
        first_layout = layouts[0]
        keep = whole if fits else intro_h + 4.0 + first_layout.head_height(False, geometry) + first_layout.heights[0] + first_layout.tail_h
        self._heading(f"{n}. {section.title}", f"s{n}", geometry=geometry, keep=keep,
                      keep_figures=figures if fits else first_layout.figures_of(0))
        self.pager.add(intro, intro_h, gap=4.0)
        for run in runs:
            self.pager.add_run(run, gap=8.0)
        self.pager.add_run(shape.run(f"table {shape_number}", make_shape), gap=8.0)

    def _panel_layout(self, number: int, table: BoundTable, k: int) -> TableLayout:
        """A beside section's panel k (0: MLPerf, then one per own cohort) as a table, not yet fit."""
        which = "MLPerf panel" if k == 0 else "Your runs panel"
        return TableLayout(
            self.metrics, letters=self.letters, label=f"Table {number}", title=f"{which}: {table.title}",
            first_caption=f"{which}: {table.cohort.label()}",
            shared=compose.shared_conditions(table), **_cells_of(table))

    def back(self, doc: Walk) -> dict:
        r = self.report
        # the caveat in full, with the trademark legend
        self._heading("Caveat: what these figures tell, and what they do not", "caveat", new_page=True)
        for k, text in enumerate(r.caveat_full):
            self._paragraph(self._prose(text, "lead" if k == 0 else "body", TEXT_LIMIT))
        self._paragraph(self._prose(r.legend, "small"), gap=10.0)
        # every figure's page is final now: the sources say which pages show each result
        self._sources(doc, _shown_on(self.pager.pages))
        # the pages as a frozen plan (the manifest is built from it, before anything is drawn: pdf.py)
        self.plan = self._plan()
        return {}

    # -- the plan: every page's blocks at their positions, every figure with its page's marks --
    def _plan(self) -> Document:
        """Each page planned (layout.pager.Pager) as a frozen Unit: its items at the positions the
        pager gave them, from the top of the frame down, each figure lettered for its page
        (marks in order of first appearance) and bound to its location, and its notes area under
        them. A page planned over-full is an error here, before anything is drawn."""
        title = clean(self.report.title, 300, one_line=True)
        units = []
        pages = self.pager.pages
        for page in pages:
            fill = page.capacity - page.used - page.notes_block()
            if fill < -0.01:
                raise LayoutError(f"page {page.number} is over-full by {-fill:.1f} points")
            g = page.geometry
            lettering = Lettering(page.figures)
            blocks = []
            top = lay.MARGIN_TOP
            for item in page.items:
                top += item.gap
                blocks += self._blocks(item.payload, page.number, lettering, Frame(lay.MARGIN_X, top, g.frame_w,
                                                                                   item.height))
                top += item.height
            if page.notes:  # right under the page's content: no empty band between a table and its notes
                blocks.append(notes_block(page, lettering, Frame(lay.MARGIN_X, top, g.frame_w, page.notes_block()),
                                          self.notebook))
            size = {} if (g.page_w, g.page_h) == (self.geometry.page_w, self.geometry.page_h) else \
                dict(width=g.page_w, height=g.page_h)
            units.append(Unit("page", page.number, title, tuple(self._furniture(page, title, blocks, len(pages))),
                              **size))
        return Document("pdf", self.geometry.page_w, self.geometry.page_h, tuple(units))

    def _furniture(self, page: Page, title: str, blocks: list, total: int) -> list:
        """A page's blocks between its furniture: the running header above them (from the second page
        on: the document's title, cut to one line), and under them the footer (a rule, the one-line
        caveat, the page number)."""
        g = page.geometry
        header = []
        if page.number > 1:
            line = self.metrics(lay.RUNNING).fit(title, g.frame_w)
            header = [TextBlock("running header", Frame(lay.MARGIN_X, lay.HEADER_TOP, g.frame_w, lay.HEADER_H),
                                (Para(line, lay.RUNNING.size, lines=(line,), style="running header"),))]
        caveat = tuple(self.metrics(SMALL).wrap(clean(self.report.caveat_short, 1000, one_line=True), g.frame_w - 70))
        top = g.page_h - lay.MARGIN_BOTTOM + lay.FOOTER_RULE
        footer = TextBlock("footer", Frame(lay.MARGIN_X, top, g.frame_w, len(caveat) * SMALL.leading),
                           (Para(" ".join(caveat), SMALL.size, italic=True, lines=caveat, style="footer",
                                 tail=f"Page {page.number} of {total}"),))
        return header + blocks + [footer]

    def _blocks(self, payload, page: int, lettering: Lettering, frame: Frame):
        """The blocks one item of a page plans: a pair of panels gives a block per table share, each at
        its panel's left and at its place in the panel's stack."""
        if isinstance(payload, PairShare):  # two panels, each at its x, tops aligned, tables stacked
            for column, x in zip(payload.columns, (0.0, payload.right_x)):
                top = frame.top
                for share, h in column:
                    yield table_block(share, page, lettering, Frame(frame.left + x, top, share.layout.width, h))
                    top += h + lay.STACK_GAP
        elif isinstance(payload, TableShare):
            yield table_block(payload, page, lettering, replace(frame, width=payload.layout.width))
        elif isinstance(payload, ChartShare):
            yield chart_block(payload, page, lettering, replace(frame, width=payload.layout.width))
        elif isinstance(payload, Headline):
            fig = payload.section.figure
            cell = bound(fig, lettering, Location("page", page, "headline", payload.of.number))
            yield KpiBlock(payload.label, replace(frame, width=payload.width), cell,
                           (Para(cell.shown_text, payload.size, bold=True),) + tuple(p.para() for p in payload.paras))
        elif isinstance(payload, Prose):
            yield TextBlock("paragraph", frame, (payload.para(),))
        elif isinstance(payload, Box):
            yield TextBlock("box", replace(frame, width=payload.width), tuple(p.para() for p in payload.paras))
        elif isinstance(payload, Heading):
            if not payload.lines:
                yield TextBlock("space", frame, ())
                return
            yield TextBlock("heading", Frame(frame.left, frame.top + payload.above, frame.width,
                                             frame.height - payload.above),
                            (Para(payload.title, HEADING.size, bold=True, lines=payload.lines, style="heading"),),
                            outline=payload.key)
        elif isinstance(payload, Contents):
            entries = tuple(Para(title, BODY.size, lines=lines, style="body", tail=str(self.toc_pages.get(key, "")))
                            for (title, key), lines in zip(payload.entries, payload.lines))
            yield TextBlock("contents", replace(frame, width=payload.width),
                            (Para("Contents", CAPTION.size, bold=True, style="caption"),) + entries)
        else:
            raise LayoutError(f"no plan for a page item of type {type(payload).__name__}")

    def _sources(self, doc: Walk, shown_on: dict) -> None:
        results = doc.sources()
        if not results:
            return
        src = compose.sources(results, {key: _page_list(pages) for key, pages in shown_on.items()}, "Page")
        headers, joined = src.joined()
        rows = [joined(values) for values in src.rows()]
        numeric = [h == "Page" for h in headers]
        said = src.said()
        shared = (f"One row per result shown in this briefing, in order of first appearance, with the page(s) that "
                  f"show it. {said + ' ' if said else ''}The manifest of this PDF (every figure with its page, value, "
                  f"unit, band, marks, notes and conditions) is attached to it as the file {MANIFEST_NAME}.")
        layout, geometry = self._fitting_layout(label="Sources", title="one citation per result shown", first_caption=None,
                                                shared=shared, headers=headers, rows=rows, numeric=numeric,
                                                whole=[h == "Result ID" for h in headers])

        def make(start, stop, continued, page, continues):
            return TableShare(layout, start, stop, continued, continues, page)

        self._heading(compose.SOURCES_TITLE, "sources", new_page=True, geometry=geometry,
                      keep=layout.head_height(False, geometry) + layout.heights[0] + lay.CONTINUES_H)
        self.pager.add_run(layout.run("the sources", make), gap=2.0)

    # -- drawing the planned pages --


def _even_groups(layout: TableLayout, keys: list[int], rest: list[int], parts: int, cap: float,
                 width: float) -> list[list[int]]:
    """``rest`` in order in ``parts`` runs, each holding its columns with the keys at their least
    widths, and, of those, the runs whose widest at least is the narrowest: every part then has
    room to spare for its text columns (a part of three figures beside the keys would leave the
    system names none)."""
    least = layout.minimum(lay.CELL.size, cap)
    base_least = sum(least[c] for c in keys)
    n = len(rest)
    inf = float("inf")
    # best[j][i]: the narrowest widest part of rest[:i] in j runs, and where its last run starts
    best = [[(inf, 0)] * (n + 1) for _ in range(parts + 1)]
    best[0][0] = (0.0, 0)
    for j in range(1, parts + 1):
        for i in range(1, n + 1):
            for a in range(i):
                group = rest[a:i]
                if best[j - 1][a][0] == inf or base_least + sum(least[c] for c in group) > width:
                    continue
                over = max(best[j - 1][a][0], base_least + sum(least[c] for c in group))
                if over < best[j][i][0]:
                    best[j][i] = (over, a)
    if best[parts][n][0] == inf:  # cannot happen: the greedy grouping is one such
        raise LayoutError("no grouping of the table's columns fits the page")
    groups, i = [], n
    for j in range(parts, 0, -1):
        a = best[j][i][1]
        groups.append(rest[a:i])
        i = a
    return groups[::-1]


def _fit_together(layouts: Sequence[TableLayout], geometry: Geometry) -> Geometry:
    """The first fit (pdf_tables.fits_for) that holds every one of these tables, each then laid out
    in it: the panels of one section share a page and a look."""
    for option in fits_for(geometry):
        if all(sum(t.minimum(option[1], option[2])) <= option[0].frame_w + 0.01 for t in layouts):
            for t in layouts:
                t.fit([option])
            return option[0]
    for t in layouts:
        t.fit(fits_for(geometry))  # raises LayoutError, naming the table that does not fit
    return geometry


def _panel_widths(left: TableLayout, right: Sequence[TableLayout], g: Geometry, choose: bool = False):
    """The widths of a beside section's two panels side by side (MLPerf left; the own cohorts'
    tables stacked right, in one width) and the fits they are laid out with, keeping the longest
    words whole where it can (WORD_CAPS). None when the panels do not hold their columns side by
    side at the full type size: then they are stacked, each the frame's width, rather than shrunk.
    The frame less the gutter is shared in proportion to what each panel needs at least, or, with
    ``choose``, at the share (of a few tried between each panel's least and most) whose taller panel
    is the shortest: a panel of few narrow columns then leaves the other the width its names need
    (the panels are laid out at the widths returned)."""
    room = g.frame_w - lay.PAIR_GUTTER
    for k, cap in enumerate(WORD_CAPS):
        need_l = sum(left.minimum(lay.CELL.size, cap))
        need_r = max(sum(t.minimum(lay.CELL.size, cap)) for t in right) if right else 0.0
        if right and need_l + need_r <= room + 0.01:
            options = [(g, lay.CELL.size, c) for c in WORD_CAPS[k:]]
            left_w = room * need_l / (need_l + need_r)
            if choose:
                left_w = min(_splits(need_l, need_r, room), key=lambda w: (_pair_height(left, right, options, w, room), w))
                _pair_height(left, right, options, left_w, room)  # lay them out at the chosen widths
            return (left_w, room - left_w), options
    return None


def _splits(need_l: float, need_r: float, room: float, n: int = 12) -> list[float]:
    """Left panel widths to try: from the left's least to the frame less the right's least."""
    lo, hi = need_l, room - need_r
    return [lo + (hi - lo) * i / n for i in range(n + 1)]


def _pair_height(left: TableLayout, right: Sequence[TableLayout], options, left_w: float, room: float) -> float:
    """The taller panel's height, every row in (heads included), with the left panel left_w wide."""
    left.fit(options, width=left_w)
    for t in right:
        t.fit(options, width=room - left_w)
    tall = [t.head_height(False, options[0][0]) + sum(t.heights) for t in (left, *right)]
    return max(tall[0], sum(tall[1:]) + lay.STACK_GAP * (len(right) - 1))


def _placed_height(layout: TableLayout, geometry: Geometry) -> float:
    """A whole table's height as Pager.add_run places it on one page: its head, every row, and the room
    it keeps for a "continues" line (a keep smaller than this lets the table split over two pages)."""
    return layout.head_height(False, geometry) + sum(layout.heights) + layout.tail_h


def _shown_on(pages: Sequence[Page]) -> dict[tuple, list[int]]:
    """The pages that show each result (by its natural key), in order: the figures each page holds."""
    shown_on: dict[tuple, list[int]] = defaultdict(list)
    for page in pages:
        for fig in page.figures:
            on = shown_on[fig.result.natural_key]
            if not on or on[-1] != page.number:
                on.append(page.number)
    return shown_on


_BOLD = (SANS_BOLD, lay.NARROW_BOLD)
_ITALIC = (SANS_OBLIQUE, lay.NARROW_OBLIQUE)


def _page_list(pages: Sequence[int]) -> str:
    if len(pages) > 12:
        return ", ".join(map(str, pages[:12])) + f" and {len(pages) - 12} more"
    return ", ".join(map(str, pages))


DENSITY_SAMPLE = 200  # rows of a table on which its density in each layout is judged


def lean_where_denser(report: Report, page_size: str, orientation: str | None = None) -> Report:
    """The report as the briefing shows it: a table of the default columns (no --columns, no spec
    columns) whose rows and notes take more pages' worth of height than the lean columns' (rank,
    submitter, system, accelerators, each column the rows' differences need, the figures:
    guard.lean_table) is shown with the lean ones, every row's note saying what left the table
    (accelerator, result ID, tokens per sample). Columns asked for stay."""
    register_fonts()
    geometries = [lay.geometry(page_size, o) for o in ((orientation,) if orientation else lay.ORIENTATIONS)]
    metrics = Metrics()
    sections, changed = [], False
    for s in report.sections:
        # judged on the first rows (the same share of a page either way), bound again in full only if chosen
        sample = replace(s.table, rows=s.table.rows[:DENSITY_SAMPLE]) if isinstance(s, TableSection) else None
        lean = lean_table(sample) if sample is not None else None
        if lean is not None and _pages_of(metrics, lean, geometries) < _pages_of(metrics, sample, geometries):
            s, changed = replace(s, table=lean_table(s.table)), True
        sections.append(s)
    return replace(report, sections=tuple(sections)) if changed else report


def _cells_of(table: BoundTable) -> dict:
    """A table's headers and rows as TableLayout takes them, with which columns are numbers, derived
    figures, and kept on one line (a rank's words, a result ID)."""
    kinds = [c.kind for c in table.columns]
    return dict(headers=[c.header for c in table.columns], rows=table.rows,
                numeric=[k in ("figure", "derived") for k in kinds], derived=[k == "derived" for k in kinds],
                whole=[k == "rank" or c.key == "result_id" for k, c in zip(kinds, table.columns)])


def _pages_of(metrics: Metrics, table: BoundTable, geometries: Sequence[Geometry]) -> float:
    """About how many pages a table's rows and their notes fill, on the best of these geometries."""
    notes = list(dict.fromkeys(n for _, _, f in table.figures() for n in f.notes))
    best = float("inf")
    for g in geometries:
        layout = TableLayout(metrics, label="", title="", shared="", **_cells_of(table))
        try:
            layout.fit(fits_for(g))
        except LayoutError:
            continue
        best = min(best, (sum(layout.heights) + note_book(metrics).block(notes, g.frame_w)) / g.frame_h)
    return best


def plan_briefing(report: Report, page_size: str = "a4", orientation: str | None = None) -> BriefingPlanner:
    """The briefing ``report`` makes, planned (``.plan``, ``.pager.pages``): in the orientation
    asked for, else the one BriefingPlanner chooses; where it planned both to choose, the chosen
    plan is the one it made then, not planned a third time."""
    planner = BriefingPlanner(report, page_size, orientation)
    done = planner.trials.get(planner.orientation)
    if done is None:
        walk(report, planner)
        done = planner
    return done
