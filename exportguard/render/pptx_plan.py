"""The PPTX planner: a report laid out as a deck (layout.document.Document) before anything is drawn.

``plan_deck(report, template)`` decides everything a deck shows (docs/pptx.md): the slides in
report order (a title slide; per table section a native table whose footer rows, merged across the
table, hold the table note, the notes of the marks on that slide and the trademark legend, continued
over as many slides as the rows need, each lettered on its own; per chart section a bar chart per
figure column with the bands as error bars and the notes in text boxes beneath; per KPI section one
box holding the headline figure, its scenario and shape, and its notes; per beside section an MLPerf
panel and an own-runs panel side by side and the shape panel; per text section its paragraphs; then
the caveat and the sources), which rows and bars go on which slide, every text shown (through
``slide_text``), every size and frame in points, the letters and notes of each slide's marks and
where each figure stands (BoundCell and its Location), the speaker notes, alt texts and shape names.
Ranks are the report's rank words (BoundTable.ranks: ties that hold pairwise); a slide that shows
them states wording.TIE_RULE, and every statement the guard puts beside a comparison
(report.Notice) stands on each slide of it. Every slide that shows figures carries the one-line
caveat; every slide's speaker notes carry the full notes of its figures and the caveat.

It reads the Template (slide size, layouts, theme fonts, the room the layouts leave) and measures
with pptx_layout's metrics; it never creates a slide: render/pptx.py paints the Document it returns.
The Sources slides' "Slide" column is read from the placements planned before them.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Sequence

from ..errors import ExportguardError
from ..escaping import slide_text
from ..guard import lean_chart_table, lean_table
from ..layout import compose, document as ld
from ..report import BesideSection, BoundFigure, BoundTable, ChartSection, KpiSection, Report, TableSection, TextSection
from ..wording import (BESIDE_RULE, BOTH_SHAPES, NOT_RANKED_SENTENCE, TIE_RULE, band_words, columns_left_out_words, marks_words,
                       note_line, shape_line, shape_title)
from . import pptx_layout as lay
from .panels import beside_parts, notes_of
from .pptx_layout import Box, Para
from .pptx_template import Template
from .pptx_text import CELL_LIMIT, HEADLINE_LIMIT, NAME_LIMIT, NOTE_LIMIT, PARA_LIMIT, TITLE_LIMIT
from .walk import FigureCell, Lettering, TablePart, Walk, walk

# A beside slide's table text and notes: 11 and 9 pt or more, rows moving to further slides; where not
# even one row with its notes fits a panel, the table text shrinks first, and the notes last.
BESIDE_LADDERS = (((12, 9), (11, 9)), ((10, 9), (9, 9)), ((9, 8), (8, 7), (7, 6.5)))
BESIDE_SHARES = (0.5, 0.45, 0.55, 0.4, 0.6)  # the MLPerf panel's share of the width, tried in this order
BESIDE_NOTE_PT = 9.0  # the shape panel and the panel headings
BESIDE_GAP = 14.0  # pt between the two panels, and between the tables of one panel
CHART_TITLE_PT = 10.0
CAVEAT_MARGIN = 6.0  # pt the one-line caveat keeps from the slide's bottom edge, where it takes the footer band
CHART_TITLE_SHARE = 0.5  # chart titles are broken into lines this share of the chart wide (renderers wrap near it)
CAVEAT_PT = 8.0
TITLE_SLIDE_PT = 40  # the title slide's title, at most
SUBTITLE = "subtitle"  # TextBlock.placeholder: the title layout's subtitle placeholder holds the text


def plan_deck(report: Report, template: Template) -> ld.Document:
    """The deck ``report`` makes on ``template``: one Unit per slide, in order."""
    planner = _Planner(report, template)
    walk(report, planner)
    slide = template.slide
    return ld.Document("pptx", slide.width, slide.height, tuple(d.unit() for d in planner.drafts),
                       title=slide_text(report.title, limit=TITLE_LIMIT),
                       subject=slide_text(report.caveat_short, limit=TITLE_LIMIT))


def _frame(box: Box) -> ld.Frame:
    return ld.Frame(box.left, box.top, box.width, box.height)


def _paras(paras: Sequence[Para], italic_from: int | None = None) -> tuple[ld.Para, ...]:
    """pptx_layout's measured paragraphs as the document's, italic from ``italic_from`` on."""
    return tuple(ld.Para(p.text, p.size, p.bold, italic_from is not None and i >= italic_from, p.space_after)
                 for i, p in enumerate(paras))


def _bound(fig: BoundFigure, lettering: Lettering, shown: str, where: ld.Location) -> ld.BoundCell:
    """A figure as one slide shows it: its marks' letters and the notes they resolve to there."""
    return ld.BoundCell(fig, shown, lettering.letters(fig), tuple(n.text for n in lettering.notes_of(fig)), where)


@dataclasses.dataclass
class _Draft:
    """A slide being planned: its blocks are appended in the order the painter adds them."""

    number: int
    title: str
    layout: str
    title_pt: float = 0.0
    blocks: list = dataclasses.field(default_factory=list)
    speaker_notes: str = ""

    def unit(self) -> ld.Unit:
        return ld.Unit("slide", self.number, self.title, tuple(self.blocks), self.layout, self.title_pt,
                       self.speaker_notes)


class _Planner:
    """The walk protocol (render/walk.py) over a report, appending one _Draft per slide."""

    format = "pptx"

    def __init__(self, report: Report, template: Template):
        self.report = report
        self.t = template
        self.m = lay.Metrics(template.body_font)
        self.mt = lay.Metrics(template.title_font) if template.title_font != template.body_font else self.m
        self.caveat = slide_text(report.caveat_short, limit=PARA_LIMIT)
        self.legend = slide_text(report.legend, limit=PARA_LIMIT)
        area = template.area
        self.caveat_pt = CAVEAT_PT
        self.caveat_h = lay.paras_height(self.m, [Para(self.caveat, self.caveat_pt)], area.width)
        band = template.footer_band
        if band is not None and band.top + self.caveat_h <= template.slide.height - CAVEAT_MARGIN:
            # the caveat is small print: it takes the template's footer band (the painter removes its
            # placeholders from every slide), and the whole area above it is the figures'
            self.caveat_box = Box(area.left, band.top, area.width, self.caveat_h)
            self.body = Box(area.left, area.top, area.width, area.height)
        else:
            self.caveat_box = Box(area.left, area.bottom - self.caveat_h, area.width, self.caveat_h)
            self.body = Box(area.left, area.top, area.width, area.height - self.caveat_h - 6)
        self.drafts: list[_Draft] = []

    # -- slide furniture --
    def _slide(self, title: str, layout: str = "content", max_lines: int = 3) -> _Draft:
        s = _Draft(len(self.drafts) + 1, title, layout)
        if layout == "content":
            s.title_pt = lay.fit_title(self.mt, title, self.t.title_box, self.t.title_pt, max_lines=max_lines)
        self.drafts.append(s)
        return s

    def _textbox(self, s: _Draft, box: Box, paras: Sequence[Para], name: str, italic_from: int | None = None,
                 alt_text: str = "", **kw) -> ld.TextBlock:
        block = ld.TextBlock(name, _frame(box), _paras(paras, italic_from), alt_text=alt_text, **kw)
        s.blocks.append(block)
        return block

    def _caveat_strip(self, s: _Draft) -> None:
        self._textbox(s, self.caveat_box, [Para(self.caveat, self.caveat_pt)], "Caveat (one line)", italic_from=0,
                      alt_text="The one-line caveat: " + self.caveat)

    def _speaker_notes(self, s: _Draft, title: str, figures: Sequence[str] = (), notes: Sequence[str] = ()) -> None:
        parts = [title]  # every part below was made safe by slide_text already
        if figures:
            parts.append("Figures on this slide:\n" + "\n".join(figures))
        if notes:
            parts.append("Their notes:\n" + "\n".join(notes))
        parts.append("Caveat: " + self.caveat)
        parts.append("\n".join(slide_text(p, limit=PARA_LIMIT) for p in self.report.caveat_full))
        parts.append(self.legend)
        s.speaker_notes = slide_text("\n\n".join(parts), lines=True, figure=True)  # the parts are escaped already

    def _note_lines(self, lettering: Lettering) -> list[str]:
        return [note_line(m, slide_text(note.text, limit=NOTE_LIMIT)) for m, note in lettering.notes()]

    def _detail_lines(self, lettering: Lettering) -> list[str]:
        """Each mark's whole footnote (Note.full: framework, results folder), for the speaker notes."""
        return [note_line(m, slide_text(note.full, limit=NOTE_LIMIT)) for m, note in lettering.notes()]

    def _shown_on(self) -> dict[tuple, int]:
        """The first slide that shows each result, from the placements planned so far."""
        out: dict[tuple, int] = {}
        for s in self.drafts:
            for block in s.blocks:
                for cell in block.cells():
                    out.setdefault(cell.figure.result.natural_key, s.number)
        return out

    # -- the title slide --
    def front(self, doc: Walk) -> None:
        report = self.report
        title = slide_text(report.title, limit=TITLE_LIMIT)
        s = self._slide(title, "title")
        title_box, sub_box = self.t.title_slide_boxes
        if self.t.title_layout is self.t.content_layout:
            title_box, sub_box = self.t.title_box, None
        if title_box is not None:  # the title placeholder holds it at the title slide's size
            s.title_pt = lay.fit_title(self.mt, title, title_box, TITLE_SLIDE_PT, max_lines=3)
        date = report.generated_on or dt.date.today().isoformat()
        # the data's publication and retrieval dates, not the spec's audience: how current the figures are
        lines = [f"Date: {date}", slide_text(doc.data_dates(), limit=PARA_LIMIT), self.caveat]
        # the layout's subtitle placeholder holds the lines where it has one, else a text box in the body
        box = sub_box if sub_box is not None else self.body
        for big, small in ((20, 12), (18, 11), (16, 10), (14, 9), (12, 8)):
            paras = [Para(lines[0], big, space_after=2), Para(lines[1], small, space_after=big * 0.8),
                     Para(lines[2], small)]
            if lay.paras_height(self.m, paras, box.width) <= box.height:
                break
        self._textbox(s, box, paras, "Subtitle", italic_from=2, placeholder=SUBTITLE if sub_box is not None else "")
        self._speaker_notes(s, title)

    # -- tables --
    def table(self, doc: Walk, n: int, section: TableSection) -> None:
        title = slide_text(section.title, limit=HEADLINE_LIMIT)

        def planned(table: BoundTable, combine: bool, left_out: str = ""):
            table_note = slide_text(table.table_note.text, limit=NOTE_LIMIT)
            said = _statements(table, shows_rank=table.ranked) + ([left_out] if left_out else [])
            shared = _run_on(table_note, said)
            return (table, table_note, said, shared,
                    *self._plan_table(table, title, [*shared, self.legend], self.body.width, self.body.height,
                                      combine=combine))

        table, table_note, said, shared, view, plan = planned(section.table, combine=False)
        lean = lean_table(table) if table.defaults else None
        if lean is not None:
            # the default columns where they fit in fewer slides than the lean ones (each row's note saying
            # the rest), which are used where the default ones do not fit
            slim = planned(lean, combine=True)
            if plan.forced or (not slim[-1].forced and len(slim[-1].pages) < len(plan.pages)):
                table, table_note, said, shared, view, plan = slim
        elif plan.forced and table.defaults:
            table, table_note, said, shared, view, plan = planned(table, combine=True)
        elif plan.forced and (slim_asked := lean_table(table, asked=True)) is not None:
            # columns asked for that no slide holds: the lean ones, and the slide says what it leaves out
            slim = planned(slim_asked, combine=True, left_out=columns_left_out_words(
                [c.header for c in table.columns], [c.header for c in slim_asked.columns]))
            if not slim[-1].forced:
                table, table_note, said, shared, view, plan = slim
        if plan.forced:
            # not even one row with its notes fits at 11 / 9 pt: drawn, it would run off the slide
            raise self._refusal(title, table, view, plan)
        pages = plan.pages
        for k, (start, stop) in enumerate(pages):
            part = doc.part(n, section.title, table, start, stop)
            page_title = _part_title(title, table, start, stop, k, len(pages))
            s = self._slide(page_title)
            notes = self._note_lines(part.lettering)
            block, _ = self._table_block(s, part, plan, view, shared, notes, n)
            self._caveat_strip(s)
            shown = [c.shown_text for c in block.cells()]
            self._speaker_notes(s, page_title, shown, [table_note, *said] + self._detail_lines(part.lettering))

    def _refusal(self, title: str, table: BoundTable, view: "_TableView", plan: lay.TablePlan,
                 width: float | None = None, floor: tuple[float, float] = lay.TABLE_LADDER[-1],
                 where: str = "slide body") -> ExportguardError:
        """Why ``table`` is not drawn: at the ``floor`` (table text and notes, pt) its columns and one
        row with its notes need more than a ``where`` ``width`` wide has (and where its figure columns
        alone leave too little beside them, by how much); columns a user named are never merged into
        one cell."""
        width = self.body.width if width is None else width
        how = ("even with its text columns in one cell" if table.defaults else
               "and columns asked for stay columns (they are never merged into one cell)")
        return ExportguardError(
            f"table {title!r} does not fit a {width / 72:.1f} x {self.body.height / 72:.1f} in {where} "
            f"at {floor[0]:g} / {floor[1]:g} pt: its {len(table.columns)} columns "
            f"({', '.join(c.key for c in table.columns)}) with one row and its notes need more, {how}"
            f"{_wide_figures(view, plan, width)}. Nothing was written. Way out: fewer columns (--columns, or "
            "columns in the section), a wider template, or an .xlsx or .pdf export, which hold them")

    def _plan_table(self, table: BoundTable, title: str, fixed: list[str], width: float, height: float,
                    ladder=lay.TABLE_LADDER, combine: bool = True) -> tuple["_TableView", lay.TablePlan]:
        """Columns, sizes and rows per slide of a table ``width`` wide in ``height`` (its footer rows
        ``fixed`` on every slide): its own columns, or its text columns combined when they cannot fit
        (unless ``combine`` is False: the plan is then forced, for the caller to try something else)."""
        widest = _widest_mark(table)
        row_notes = [list(dict.fromkeys(slide_text(note.text, limit=NOTE_LIMIT) for cell in row
                                        if isinstance(cell, BoundFigure) for note in cell.notes)) for row in table.rows]
        for combined in (False, True)[:1 + combine]:
            view = _TableView(table, combined)
            rows_text = [[slide_text(c.text(marks_words([widest] * len(c.notes))), figure=True)
                          if isinstance(c, BoundFigure) else c for c in view.cells(row, r)]
                         for r, row in enumerate(table.rows)]
            # columns asked for are never combined: their words break anywhere before the table is refused
            plan = lay.plan_table(self.m, width, height, view.headers, rows_text, view.figure_cols, row_notes, fixed,
                                  ladder=ladder, squeeze=not table.defaults)
            if not plan.forced:
                break
        if plan.forced and combine:
            _refuse_wide_figures(title, view, plan, width)
        return view, plan

    def _table_block(self, s: _Draft, part: TablePart, plan: lay.TablePlan, view: "_TableView",
                     shared: list[str], notes: list[str], n: int, *, at: tuple[float, float] | None = None,
                     table_no: int = 1, legend: bool = True) -> tuple[ld.TableBlock, float]:
        """The table with its footer rows: ``shared`` (the table note, then the statements beside the
        comparison: notices and the tie rule), the notes of this slide's marks (``notes``, one line
        each, run on in one row), the legend.
        ``at``: its top left corner (default: the body's); ``table_no``: its number among the slide's
        tables, for the locations. Returns the block and its height."""
        nbody = part.stop - part.start
        # the notes of the slide's marks run on in one footer row, each after the one before
        run_in = " ".join(notes)
        footer = [(t, plan.note_h[t], False) for t in shared] \
            + ([(run_in, plan.run_in_height(self.m, run_in), False)] if notes else []) \
            + ([(self.legend, plan.note_h[self.legend], True)] if legend else [])
        rows, heights = [], []
        for i, (r, cells) in enumerate(part.cells()):
            out = []
            for c, cell in enumerate(view.cells(cells, r)):
                if isinstance(cell, FigureCell):
                    where = ld.Location("slide", s.number, "table", table_no, i + 2, c + 1)
                    out.append(_bound(cell.figure, part.lettering, slide_text(cell.text, figure=True), where))
                else:
                    out.append(cell)
            rows.append(tuple(out))
            heights.append(plan.row_h[r])
        left, top = at or (self.body.left, self.body.top)
        # its height as drawn: every row's height is whole EMU
        height = sum(lay.pt(lay.emu(h)) for h in [plan.header_h, *heights, *(h for _, h, _ in footer)])
        block = ld.TableBlock(
            f"Table {n}" if table_no == 1 else f"Table {n}.{table_no}", ld.Frame(left, top, plan.width, height),
            tuple(view.headers), tuple(rows), tuple(plan.widths), plan.header_h, tuple(heights),
            tuple(ld.Para(text, plan.note_pt, italic=is_legend) for text, _, is_legend in footer),
            tuple(h for _, h, _ in footer), plan.body_pt, plan.note_pt, tuple(view.figure_cols), part.start,
            len(part.table.rows),
            alt_text=f"Table: {slide_text(part.title, limit=HEADLINE_LIMIT)}. {nbody} rows; every figure shows its "
                     "value, unit, band and note marks; the last rows of the table hold the conditions every "
                     "row shares and the notes its marks resolve to" + (", and the trademark legend." if legend
                                                                         else "."))
        s.blocks.append(block)
        return block, height

    # -- charts --
    def chart(self, doc: Walk, n: int, section: ChartSection) -> None:
        # bars of the default columns are labelled lean (rank, submitter, system): the rest is in each
        # bar's note, so a label takes a line or two and a Top 10 fits one slide
        lean = lean_chart_table(section.table)
        if lean is not None:
            section = ChartSection(section.title, lean)
        table = section.table
        fig_cols = [i for i, c in enumerate(table.columns) if c.kind == "figure"] + \
                   [i for i, c in enumerate(table.columns) if c.kind == "derived"]
        if not fig_cols:
            return self.table(doc, n, TableSection(section.title, table))
        for k, col in enumerate(fig_cols):
            self._chart_column(doc, n, section, col, single=len(fig_cols) == 1, chart_no=k)

    def _chart_column(self, doc: Walk, n: int, section: ChartSection, col: int, single: bool, chart_no: int) -> None:
        table = section.table
        rows = [r for r, row in enumerate(table.rows) if isinstance(row[col], BoundFigure)]
        if not rows:
            return
        # the chart's own caption states cohort and shape: the slide title keeps what the caption does not
        # (the section's words and the scales it spans), on fewer lines
        title = slide_text(_without_shape(section.title, table.rows[rows[0]][col]), limit=HEADLINE_LIMIT)
        single = single and len(rows) == len(table.rows)
        figs = [table.rows[r][col] for r in rows]
        header = slide_text(table.columns[col].header, limit=NAME_LIMIT)
        derived = table.columns[col].kind == "derived"
        # the rank words rank the throughput: a chart of a derived column (in the same order) shows none
        shows_rank = table.ranked and not derived
        cat_parts, constant = _category_parts(table, col, rows, shows_rank)
        widest = _widest_mark(table)
        labels = [slide_text(f.text(marks_words([widest] * len(f.notes))), figure=True) for f in figs]
        row_notes = [list(dict.fromkeys(slide_text(nt.text, limit=NOTE_LIMIT) for nt in f.notes)) for f in figs]
        table_note = slide_text(table.table_note.text, limit=NOTE_LIMIT)
        if constant:
            table_note = "Every bar: " + "; ".join(constant) + ". " + table_note
        shared = _run_on(table_note, _statements(table, shows_rank))
        slack = table.slack
        band = slack.band_fraction if slack.estimable else None
        frame_w = self.body.width
        title_lines = self.m.wrap(_chart_title(table, figs[0], header, derived), CHART_TITLE_PT,
                                  frame_w * CHART_TITLE_SHARE, bold=True)
        title_h = len(title_lines) * self.m.line_height(CHART_TITLE_PT, bold=True) + 10
        plan = lay.plan_chart(self.m, frame_w, self.body.height, title_h, cat_parts, labels, row_notes, shared,
                              self.legend, frame_w)
        plot_w = lay.plot_box(frame_w, self.body.height, title_h, plan.cat_width).width
        axis_max = lay.axis_maximum(self.m, plot_w, [f.magnitude for f in figs], band, labels, plan.label_pt)
        series = f"{header}, {slide_text(figs[0].unit_text, figure=True)} {band_words(slack)}"
        # the value axis counts from zero in the figures' unit; its numbers are a scale, each bar's label
        # is its bound figure
        axis_title = f"{header}, {slide_text(figs[0].unit_text, figure=True)}"
        pages = plan.pages
        for k, (start, stop) in enumerate(pages):
            sub = figs[start:stop]
            if single:
                lettering = doc.part(n, section.title, table, rows[start], rows[stop - 1] + 1).lettering
            else:
                lettering = Lettering(sub)
            page_title = _part_title(title if not chart_no else f"{title}: {header}", table, start, stop, k,
                                     len(pages), len(rows), what=f": {header}" if chart_no else "")
            s = self._slide(page_title)
            notes = self._note_lines(lettering)
            note_boxes = lay.chart_note_columns(self.m, shared, notes, self.legend, plan.note_pt, frame_w)
            notes_h = lay.notes_area_height(self.m, note_boxes, plan.note_pt, frame_w)
            frame = Box(self.body.left, self.body.top, frame_w, self.body.height - notes_h - 6)
            shown = [slide_text(lettering.text(f), figure=True) for f in sub]
            geom = lay.chart_geometry(frame.width, frame.height, title_h, plan.cat_width, [f.magnitude for f in sub],
                                      band, axis_max)
            bars = tuple(ld.Bar(tuple(plan.cat_lines[start + i]),
                                _bound(f, lettering, text, ld.Location("slide", s.number, "chart", 1, point=i + 1)),
                                geom.label_offsets[i])
                         for i, (f, text) in enumerate(zip(sub, shown)))
            cats = "; ".join(f"{' '.join(b.category)}: {b.cell.shown_text}" for b in bars)
            s.blocks.append(ld.ChartBlock(
                "Chart 1", _frame(frame), tuple(title_lines), CHART_TITLE_PT, series, bars, plan.label_pt,
                geom.axis_max, _frame(geom.plot), band, band_words(slack),
                tuple(shared + notes + [self.legend, self.caveat]),
                alt_text=f"Bar chart. {' '.join(title_lines)} Bars, top to bottom: {cats}. "
                         f"The notes the marks resolve to are in the text {'boxes' if len(note_boxes) > 1 else 'box'} "
                         "under the chart.",
                axis_title=axis_title, axis_step=lay.axis_step(geom.axis_max),
                axis_title_at=lay.axis_title_at(self.m, geom.plot, axis_title)))
            # whole notes in each box, side by side: the legend closes the last box, in italics
            box_w = lay.note_column_width(frame_w, len(note_boxes))
            for k, paras in enumerate(note_boxes):
                last = k == len(note_boxes) - 1
                nbox = Box(self.body.left + k * (box_w + lay.NOTE_COLUMN_GAP), frame.bottom + 6, box_w, notes_h)
                self._textbox(s, nbox, [Para(t, plan.note_pt, space_after=plan.note_pt * 0.25) for t in paras],
                              "Notes" if k == 0 else f"Notes {k + 1}", italic_from=len(paras) - 1 if last else None)
            self._caveat_strip(s)
            self._speaker_notes(s, page_title, shown, shared + self._detail_lines(lettering))

    # -- an MLPerf cohort beside own runs --
    def beside(self, doc: Walk, n: int, section: BesideSection) -> None:
        """Two panels on each slide, never one comparison: the MLPerf cohort's table on the left, the
        own runs' tables (one per own cohort) stacked on the right, each table with its own note (its
        band rule), the statements beside its comparison (notices, the tie rule where ranks are shown)
        and the notes of its marks as footer rows; under the own tables, the shape panel that states
        both shapes in numbers; under both panels, across the slide, the trademark legend (at the
        full width it takes fewer lines than in a half-width table). A heading names each panel
        where the room it takes does not cost the tables a font size. Marks are lettered per slide
        across both panels, MLPerf's first (panels.beside_parts). Table text stays at 11 pt or more
        and notes at 9 pt: where the rows do not fit, the panels continue on further slides
        (BESIDE_LADDERS says what happens where not even one row fits a panel)."""
        title = slide_text(section.title, limit=HEADLINE_LIMIT)
        gap = BESIDE_GAP / 2
        shape_paras = self._shape_panel(section)
        heading_pt = BESIDE_NOTE_PT + 1
        heading_h = self.m.line_height(heading_pt, True) + 2  # one line, no insets
        strip_paras = [Para(self.legend, BESIDE_NOTE_PT)]
        strip_h = lay.paras_height(self.m, strip_paras, self.body.width)

        def plan_panels(widths: tuple[float, float], room: float) -> list[tuple]:
            out = []  # per table: (table, view, plan, shared)
            for k, table in enumerate(section.tables()):
                shared = _run_on(slide_text(table.table_note.text, limit=NOTE_LIMIT), _statements(table, table.ranked))
                # the columns stay columns, their text down to 9 pt; the default ones are then combined into
                # one cell, their notes smaller only where not even one row and its notes fit. Columns asked
                # for are never combined: where they do not fit at 9 pt, the section is refused (_refusal)
                tries = [(ladder, False) for ladder in BESIDE_LADDERS[:2]] + \
                    ([(ladder, True) for ladder in BESIDE_LADDERS] if table.defaults else [])
                for ladder, combine in tries:
                    view, plan = self._plan_table(table, title, shared, widths[k > 0], room, ladder=ladder,
                                                  combine=combine)
                    if not plan.forced:
                        break
                out.append((table, view, plan, shared))
            return out

        # The panels' widths follow what they hold (a long own figure text needs a wider column), and
        # the headings stand where they cost nothing: the largest notes win, then the fewest slides, then
        # the columns kept, then the largest table text; on a tie, headings, then halves nearest equal.
        room = self.body.height - strip_h - gap

        def stacks(panels, widths, room):
            table, _, plan, shared = panels[0]
            left = [[(0, a, b, _page_height(plan, table, a, b, shared))] for a, b in plan.pages]
            # the own tables' slices stacked on as many slides as they need; then the shape panel (k None)
            # under them, or under the MLPerf panel's last rows where only that adds no slide
            right = _stack([(k, a, b, _page_height(plan, table, a, b, shared))
                            for k, (table, _, plan, shared) in enumerate(panels[1:], 1) for a, b in plan.pages],
                           room, gap)
            shape_h = [lay.paras_height(self.m, shape_paras, w) for w in widths]
            last_h = [sum(p[-1] for p in side[-1]) + gap * (len(side[-1]) - 1) for side in (left, right)]
            if last_h[1] + gap + shape_h[1] <= room or len(left) < len(right) or last_h[0] + gap + shape_h[0] > room:
                right = _stack([p for page in right for p in page] + [(None, 0, 0, shape_h[1])], room, gap)
            else:
                left[-1].append((None, 0, 0, shape_h[0]))
            if len(right) > len(left) and all(k is None for k, *_ in right[-1]):
                # the last slide would hold the shape panel alone: the MLPerf rows spread over every slide
                spread = _spread(plan, table, shared, len(right), room)
                if spread is not None:
                    left = [[(0, a, b, h)] for a, b, h in spread]
            return left, right

        best = None
        for share in BESIDE_SHARES:
            widths = ((self.body.width - BESIDE_GAP) * share, (self.body.width - BESIDE_GAP) * (1 - share))
            for headed in (True, False):
                panels = plan_panels(widths, room - heading_h * headed)
                left, right = stacks(panels, widths, room - heading_h * headed)
                # columns asked for that fit, then the largest notes, then the fewest slides, then the most
                # tables with their own columns, then the largest table text
                score = (-sum(p[2].forced and not p[0].defaults for p in panels),
                         min(p[2].note_pt for p in panels), -max(len(left), len(right)),
                         -sum(p[1].combined for p in panels), min(p[2].body_pt for p in panels))
                if best is None or score > best[0]:
                    best = (score, panels, widths, headed, left, right)
        _, panels, widths, headed, left, right = best
        for k, (table, view, plan, _) in enumerate(panels):  # every own table, however many, on the right
            if plan.forced and not table.defaults:
                raise self._refusal(title, table, view, plan, widths[k > 0], BESIDE_LADDERS[1][-1],
                                    "panel beside the other")
        heading_h *= headed
        room -= heading_h
        count = max(len(left), len(right))
        labels = ("MLPerf® panel", "Your runs: own measurements, unverified")
        for page in range(count):
            page_title = title if count == 1 else f"{title} ({page + 1} of {count})"
            s = self._slide(page_title)
            columns = (left[page] if page < len(left) else [], right[page] if page < len(right) else [])
            bounds = {k: (a, b) for k, a, b, _ in columns[0] + columns[1] if k is not None}
            sliced = dataclasses.replace(section, mlperf=_rows_of(section.mlperf, *bounds.get(0, (0, 0))),
                                         own=tuple(_rows_of(t, *bounds.get(k, (0, 0)))
                                                   for k, t in enumerate(section.own, 1)))
            _, _, lettering = beside_parts(n, sliced)
            shown, said, mark_lines, table_no = [], [], [], 0
            for side, pieces in enumerate(columns):
                x = self.body.left + side * (widths[0] + BESIDE_GAP)
                width = widths[side]
                if headed:  # one line without top and bottom insets
                    box = Box(x, self.body.top, width, heading_h)
                    self._textbox(s, box, [Para(labels[side], heading_pt, True)], "Panel heading", inset_y=0.0)
                y = self.body.top + heading_h
                if not any(k is not None for k, *_ in pieces):  # a panel's rows run out before the other's
                    said_there = [Para("This panel's rows are on the slides before.", BESIDE_NOTE_PT)]
                    box = Box(x, y, width, lay.paras_height(self.m, said_there, width))
                    self._textbox(s, box, said_there, "Panel note")
                    y = box.bottom + gap
                for k, a, b, h in pieces:
                    if k is None:
                        self._textbox(s, Box(x, y, width, h), shape_paras, "Shape panel",
                                      alt_text="Shape panel: both shapes in numbers, and why throughput does not "
                                               "carry over from one shape to another.")
                        said += [p.text for p in shape_paras]
                        continue
                    table, view, plan, shared = panels[k]
                    part = TablePart(n, table.title, table, a, b, lettering)
                    marked = notes_of(_rows_of(table, a, b), lettering)
                    lines = [note_line(m, slide_text(note.text, limit=NOTE_LIMIT)) for m, note in marked]
                    table_no += 1
                    block, height = self._table_block(s, part, plan, view, shared, lines, n, at=(x, y),
                                                      table_no=table_no, legend=False)
                    y += height + gap
                    shown += [c.shown_text for c in block.cells()]
                    said += shared
                    mark_lines += [note_line(m, slide_text(note.full, limit=NOTE_LIMIT)) for m, note in marked]
            box = Box(self.body.left, self.body.bottom - strip_h, self.body.width, strip_h)
            self._textbox(s, box, strip_paras, "Legend", italic_from=0)
            self._caveat_strip(s)
            # the shared notes first: a mark's note runs to the next mark, so nothing else may follow one
            self._speaker_notes(s, page_title, shown, said + mark_lines)

    def _shape_panel(self, section: BesideSection) -> list[Para]:
        """The shape panel's text: MLPerf's tokens per sample for the cohort and each run's mean
        lengths and load, in numbers, then the one sentence on why throughput does not transfer."""
        size = BESIDE_NOTE_PT
        panel = section.shape
        paras = [Para(f"{BESIDE_RULE} {BOTH_SHAPES}:", size, True, space_after=size * 0.25)]
        paras += [Para(shape_line(slide_text(r.label, limit=NAME_LIMIT), slide_text(r.shape, limit=NOTE_LIMIT),
                                  slide_text(r.load, limit=NOTE_LIMIT)), size, space_after=size * 0.25)
                  for r in (panel.mlperf, *panel.own)]
        return paras + [Para(slide_text(panel.sentence, limit=PARA_LIMIT), size)]

    # -- headline figures --
    def kpi(self, doc: Walk, n: int, section: KpiSection) -> None:
        lettering = doc.kpi_part(section)
        fig = section.figure
        title = slide_text(section.title, limit=HEADLINE_LIMIT)
        headline = slide_text(lettering.text(fig), figure=True)
        conditions = slide_text(section.inline_conditions, limit=PARA_LIMIT)
        table_note = slide_text(section.table_note.text, limit=NOTE_LIMIT)
        said = [slide_text(x.text, limit=NOTE_LIMIT) for x in section.notices]
        if section.rank is not None and not section.rank.ranked:
            said.append(NOT_RANKED_SENTENCE)  # the title says "not ranked"; this says why it leads nothing
        elif section.rank is not None and section.rank.tied:
            said.append(TIE_RULE)  # the title states its rank span
        shared = [table_note, *said]
        notes = self._note_lines(lettering)
        s = self._slide(title)
        box = self.body
        inner = box.width - 2 * lay.CELL_PAD_X
        paras = None
        for big in (60, 54, 48, 44, 40, 36, 32, 28, 24, 20, 16):
            if self.m.width(headline, big, bold=True) > inner:
                continue
            for cond, note in ((24, 12), (22, 11), (20, 10), (18, 9), (16, 8), (14, 7.5), (12, 7)):
                candidate = [Para(headline, big, True, space_after=big * 0.2), Para(conditions, cond, space_after=cond)]
                candidate += [Para(t, note, space_after=note * 0.3) for t in shared + notes + [self.legend]]
                if lay.paras_height(self.m, candidate, box.width) <= box.height:
                    paras = candidate
                    break
            if paras:
                break
        if paras is None:
            paras = candidate
        s.blocks.append(ld.KpiBlock("Headline", _frame(box), _bound(fig, lettering, headline,
                                                                   ld.Location("slide", s.number, "headline")),
                                    _paras(paras, len(paras) - 1),
                                    alt_text=f"Headline figure {headline}: {conditions}. Its notes follow in the same box."))
        self._caveat_strip(s)
        self._speaker_notes(s, title, [headline + ": " + conditions], shared + self._detail_lines(lettering))

    # -- text sections --
    def text(self, doc: Walk, n: int, section: TextSection) -> None:
        title = slide_text(section.title, limit=HEADLINE_LIMIT)
        paras = [slide_text(p, limit=PARA_LIMIT) for p in section.paragraphs]
        self._prose(title, paras, name="Text")

    def _prose(self, title: str, paras: list[str], name: str, italic_last: bool = False) -> None:
        box = Box(self.body.left, self.body.top, self.body.width, self.t.area.height)
        size, pages = lay.fit_paragraphs(self.m, paras, box.width, box.height)
        for k, idx in enumerate(pages):
            page_title = title if len(pages) == 1 else f"{title} ({k + 1} of {len(pages)})"
            s = self._slide(page_title)
            ps = [Para(paras[i], size, space_after=size * 0.6) for i in idx]
            last = len(ps) - 1 if italic_last and idx[-1] == len(paras) - 1 else None
            self._textbox(s, box, ps, name, italic_from=last)
            self._speaker_notes(s, page_title)

    # -- the end: caveat, sources --
    def back(self, doc: Walk) -> None:
        full = [slide_text(p, limit=PARA_LIMIT) for p in self.report.caveat_full]
        self._prose("Caveat", full + [self.legend], name="Caveat", italic_last=True)
        self._sources(doc)

    def _sources(self, doc: Walk) -> None:
        results = doc.sources()
        if not results:
            return
        src = compose.sources(results, {key: str(n) for key, n in self._shown_on().items()}, "Slide")
        headers, joined = src.joined()
        headers = list(headers)
        rows = [[slide_text(v, limit=400 if h == "Source" else CELL_LIMIT) for h, v in zip(headers, joined(values))]
                for values in src.rows()]
        said = slide_text(src.said(), limit=PARA_LIMIT) if src.said() else ""
        title = compose.SOURCES_TITLE
        footer = [said, self.legend] if said else [self.legend]
        plan = lay.plan_table(self.m, self.body.width, self.body.height, headers, rows,
                              (headers.index("Result ID"), len(headers) - 1), None, footer, ladder=((12, 9), (11, 9)))
        for k, (start, stop) in enumerate(plan.pages):
            page_title = title if len(plan.pages) == 1 else f"{title} ({k + 1} of {len(plan.pages)})"
            s = self._slide(page_title)
            heights = [plan.row_h[r] for r in range(start, stop)]
            footer_h = [plan.note_h[text] for text in footer]
            height = sum(lay.pt(lay.emu(h)) for h in [plan.header_h, *heights, *footer_h])
            # every cell in the body style: the result ID and slide columns are kept from wrapping, not set as figures
            s.blocks.append(ld.TableBlock(
                "Sources", ld.Frame(self.body.left, self.body.top, plan.width, height), tuple(headers),
                tuple(tuple(row) for row in rows[start:stop]), tuple(plan.widths), plan.header_h, tuple(heights),
                tuple(ld.Para(text, plan.note_pt, italic=True) for text in footer), tuple(footer_h), plan.body_pt,
                plan.note_pt, (),
                start, len(rows),
                alt_text="Sources: result ID, submitter, system, benchmark, scenario, verified status, "
                         "retrieval date, source and the slide each result is shown on; what every result "
                         "shares is stated once under the table."))
            self._speaker_notes(s, page_title)


class _TableView:
    """The columns a table shows on a slide: its own, or, when they cannot all fit the slide, the
    rank, one "Result" column combining the other text columns ("Submitter, system; Accelerators:
    8; ..."), and the figures."""

    def __init__(self, table: BoundTable, combined: bool):
        cols = table.columns
        self.combined = combined
        figure = [i for i, c in enumerate(cols) if c.holds_figures]
        if not combined:
            self.sources = [[i] for i in range(len(cols))]
            self.headers = [slide_text(c.header, limit=NAME_LIMIT) for c in cols]
        else:
            rank = [i for i, c in enumerate(cols) if c.key == "rank"]
            text = [i for i, c in enumerate(cols) if not c.holds_figures and c.key != "rank"]
            self.sources = [[i] for i in rank] + ([text] if text else []) + [[i] for i in figure]
            self.headers = ([slide_text(cols[i].header, limit=NAME_LIMIT) for i in rank] +
                            (["Result"] if text else []) + [slide_text(cols[i].header, limit=NAME_LIMIT) for i in figure])
        self.cols = cols
        self.table = table
        self.figure_cols = [k for k, src in enumerate(self.sources) if len(src) == 1 and src[0] in figure]
        self.main = next((k for k, src in enumerate(self.sources) if len(src) == 1 and cols[src[0]].kind == "figure"),
                         None)

    def cells(self, row, r: int) -> list:
        """Row ``r``'s cells as shown: figures (BoundFigure or FigureCell) as they are, the rank as
        its RankSpan's words, text escaped."""
        out = []
        for src in self.sources:
            if len(src) == 1:
                cell = row[src[0]]
                if self.cols[src[0]].key == "rank":
                    cell = _rank_words(self.table, r)
                out.append(slide_text(cell) if isinstance(cell, str) else cell)
                continue
            keys = [self.cols[i].key for i in src]
            first = ", ".join(slide_text(row[i]) for i, k in zip(src, keys) if k in ("submitter", "system"))
            rest = [f"{slide_text(self.cols[i].header, limit=NAME_LIMIT)}: {slide_text(row[i])}"
                    for i, k in zip(src, keys) if k not in ("submitter", "system")]
            out.append("; ".join(([first] if first else []) + rest))
        return out


# -- helpers -------------------------------------------------------------------------------------------

def _wide_figures(view: "_TableView", plan: lay.TablePlan, width: float) -> str:
    """Words for a refusal, where a table's figure columns alone (a figure never wraps), beside the
    narrowest text columns worth drawing, are wider than ``width``; else ''."""
    text_cols = len(view.headers) - len(view.figure_cols)
    figures = sum(plan.widths[c] for c in view.figure_cols)
    if figures + lay.MIN_TEXT_COLUMN * text_cols <= width:
        return ""
    return (f"; its {len(view.figure_cols)} figure columns alone need {figures / 72:.1f} in at {plan.body_pt:g} pt "
            f"(a figure never wraps), and its other columns at least {text_cols * lay.MIN_TEXT_COLUMN / 72:.1f} in")


def _refuse_wide_figures(title: str, view: "_TableView", plan: lay.TablePlan, width: float) -> None:
    """Refuses a table whose figure columns alone, beside the narrowest text columns worth drawing,
    are wider than the slide."""
    wide = _wide_figures(view, plan, width)
    if wide:
        raise ExportguardError(
            f"table {title!r} does not fit the slide{wide}; the template leaves {width / 72:.1f} in. Way out: fewer "
            "figure columns (--derived / columns), a wider template, or an XLSX export")


def _widest_mark(table: BoundTable) -> str:
    """The mark letters to measure figures with: one letter when a slide cannot need more."""
    distinct = len({n for _, _, f in table.figures() for n in f.notes})
    return "w" if distinct <= 26 else "mw"


def _part_title(title: str, table: BoundTable, start: int, stop: int, k: int, parts: int,
                total: int | None = None, what: str = "") -> str:
    """The title of the ``k``-th of ``parts`` slides that rows ``start``..``stop`` of a table take: on
    every slide the section's title (a continuation keeps its "Top N" and the scales it states: a
    slide shown on its own must not read as another ranking), the cohort where the title does not name
    it, and the rows it shows ("Top 8 systems, ... nodes): 5-8 of 8 results"). The count is followed
    by its noun: a bare number after a title's "(tokens/s)" reads as a figure in that unit. ``what``
    (where one section has several charts: ": Per accelerator (derived)") is already in ``title``."""
    if parts == 1:
        return title
    span = f"{start + 1}-{stop} of {len(table.rows) if total is None else total} results"
    key = table.cohort
    cohort = slide_text(f"{key.benchmark or key.model} {key.scenario}" if key.mlperf else
                        f"Own runs: {key.benchmark}; {key.own}", limit=TITLE_LIMIT)
    return f"{title}: {span}" if cohort in title else f"{title}: {cohort}, {span}"


def _rows_of(table: BoundTable, start: int, stop: int) -> BoundTable:
    """Rows ``start``..``stop`` of a table (with their rank spans), for lettering what one slide shows."""
    return dataclasses.replace(table, rows=table.rows[start:stop], ranks=table.ranks[start:stop])


def _page_height(plan: lay.TablePlan, table: BoundTable, start: int, stop: int, shared: list[str]) -> float:
    """The height of rows ``start``..``stop`` of a planned table with its footer rows."""
    notes = dict.fromkeys(slide_text(note.text, limit=NOTE_LIMIT) for row in table.rows[start:stop]
                          for cell in row if isinstance(cell, BoundFigure) for note in cell.notes)
    return plan.page_height(start, stop, shared + list(notes))


def _spread(plan: lay.TablePlan, table: BoundTable, shared: list[str], count: int,
            room: float) -> list[tuple[int, int, float]] | None:
    """A planned table's rows spread evenly over ``count`` slides, as (start, stop, height) per
    slide; None where it has fewer rows than slides or a slice does not fit ``room``."""
    if len(table.rows) < count:
        return None
    out = [(a, b, _page_height(plan, table, a, b, shared)) for a, b in lay.even_split(len(table.rows), count)]
    return out if all(h <= room for *_, h in out) else None


def _stack(pieces: list[tuple], height: float, gap: float) -> list[list[tuple]]:
    """Pieces (..., height) stacked in order on slides of ``height``: a new slide where the next does
    not fit under the last (each fits an empty slide: it was planned for ``height``)."""
    slides: list[list[tuple]] = []
    used = height
    for piece in pieces:
        if slides and used + gap + piece[-1] <= height:
            slides[-1].append(piece)
            used += gap + piece[-1]
        else:
            slides.append([piece])
            used = piece[-1]
    return slides


def _rank_words(table: BoundTable, r: int) -> str | None:
    """Row ``r``'s rank as every format words it: its RankSpan's words (ties that hold pairwise)."""
    if table.ranks:
        return table.ranks[r].words()
    keys = [c.key for c in table.columns]
    return slide_text(table.rows[r][keys.index("rank")]) if "rank" in keys else None


def _run_on(table_note: str, statements: list[str]) -> list[str]:
    """A table's shared footer: its note and the statements beside it run on in one footer row, which
    takes fewer lines than a row each (every one ends its last line part-empty)."""
    return [" ".join([table_note, *statements])]


def _statements(table: BoundTable, shows_rank: bool) -> list[str]:
    """What stands beside a comparison on each of its slides, after the table note: the guard's
    notices (EG020: systems of different scale), and the tie rule where ranks are shown with a band.
    Where a ranked table has no band, its table note already says why it is not ranked
    (wording.NOT_RANKED_SENTENCE, added by the guard)."""
    said = [slide_text(x.text, limit=NOTE_LIMIT) for x in table.notices]
    if shows_rank and table.ranked and table.slack.estimable:
        said.append(TIE_RULE)
    return said


def _without_shape(title: str, fig: BoundFigure) -> str:
    """A chart section's title without the shape it states in parentheses (spec.py words it as
    "TITLE (SHAPE; SCALES)"); the chart's caption (_chart_title) states cohort and shape."""
    shape = shape_title(fig.result)
    return title.replace(f" ({shape}; ", " (", 1) if f" ({shape}; " in title else title


def _chart_title(table: BoundTable, fig: BoundFigure, header: str, derived: bool) -> str:
    """Cohort and shape, then what the bars and error bars are."""
    slack = table.slack
    b = fig.result.conditions.benchmark
    shape = shape_title(fig.result)
    prefix = f"{b.benchmark} {b.scenario}, "
    shape = shape[len(prefix):] if shape.startswith(prefix) else shape
    text = f"{slide_text(table.cohort.label(), limit=TITLE_LIMIT)} · {slide_text(shape, limit=TITLE_LIMIT)}\n"
    what = header
    if derived:
        what = (header if "derived" in header.lower() else f"{header} (derived)") + ", not an MLPerf metric"
    if derived:
        what += ", in order of throughput"
    if slack.estimable:
        text += f"Bars: {what}; error bars: band {band_words(slack)}"
    else:
        text += f"Bars: {what}; no error bars ({band_words(slack)})"
    return text


def _category_parts(table: BoundTable, col: int, rows: Sequence[int], shows_rank: bool = True
                    ) -> tuple[list[list[str]], list[str]]:
    """Per bar, its category label in three parts (rank words and submitter; system; the other columns
    that differ between bars, each '' where there is none: pptx_layout.chart_category_lines sets them),
    and the columns whose value is the same for every bar (said once). The rank words are the table's
    (BoundTable.ranks), left out where ``shows_rank`` is False."""
    cols = table.columns
    keys = [c.key for c in cols]
    text_cols = [i for i, c in enumerate(cols) if not c.holds_figures]
    others = [i for i in text_cols if keys[i] not in ("rank", "submitter", "system")]
    constant = [i for i in others if len({table.rows[r][i] for r in rows}) == 1]
    varying = [i for i in others if i not in constant]
    parts = []
    for r in rows:
        row = table.rows[r]
        rank = _rank_words(table, r) if shows_rank else None
        submitter = slide_text(row[keys.index("submitter")], limit=NAME_LIMIT) if "submitter" in keys else None
        first = " · ".join(p for p in (rank, submitter) if p is not None)
        system = slide_text(row[keys.index("system")], limit=NAME_LIMIT) if "system" in keys else ""
        rest = "; ".join(f"{slide_text(cols[i].header, limit=NAME_LIMIT)}: {slide_text(row[i], limit=NAME_LIMIT)}"
                         for i in varying)
        parts.append([first, system, rest])
    said = [f"{slide_text(cols[i].header, limit=NAME_LIMIT)}: {slide_text(table.rows[rows[0]][i], limit=NAME_LIMIT)}"
            for i in constant]
    return parts, said
