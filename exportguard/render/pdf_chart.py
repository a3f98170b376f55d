"""Charts for the PDF briefing, drawn with reportlab's graphics: one horizontal bar per result, the
bar from zero to the figure, a whisker over the figure's band (its error bar), and the figure's
bound text (value, unit, band, marks) as the bar's label, and the bar's rank in words from the guard
(BoundTable.ranks: "3 (tie 2-5)"). Every bar has one colour: ties hold pairwise, not in groups, so
no colouring could state them truly; the rank words do. The caption carries the cohort and the
shape, the legend the band's basis (wording of citation.band_basis_words: an MLPerf cohort's shape
slack, an own cohort's repeated runs, or why there is no band). Every number drawn is a
bound figure: the value axis has no bare scale numbers.

A chart with more bars than a page holds is split like a table (pdf_layout.Pager.add_run): each
page share repeats the caption, the shared conditions and the legend.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from reportlab.graphics import renderPDF
from reportlab.graphics.shapes import Drawing, Line, Rect, String
from reportlab.lib.colors import HexColor

from ..citation import band_basis_words
from ..layout.document import BoundCell, ChartBlock
from ..model import Slack
from ..report import BoundFigure
from .pdf_layout import (sentence, widest_text, CAPTION, CELL, CONTINUES_H, GREY, INK, LEGEND, RULE, SHARED, SMALL, Geometry, Metrics, Page, Run,
                         CELL_LIMIT, NOTE_LIMIT, LayoutError)
from .pdf_text import NARROW, NARROW_OBLIQUE, clean

BAR_FILL = HexColor("#2f5f8f")
BAR_PITCH = 17.0
BAR_THICK = 9.5
AXIS_H = 16.0


@dataclass(frozen=True)
class Bar:
    label: str  # "NVIDIA, DGX B200 ...": who, cleaned
    rank: str  # the guard's words: "1", "3 (tie 2-5)", "not ranked"; "" where the chart shows no rank
    cell: BoundFigure | str  # the figure, or the words that say why there is none


@dataclass(frozen=True)
class ChartOf:
    """Which chart a share shows: its number through the document ("Chart 2", the location's chart)
    and the report section it belongs to (from 1)."""

    number: int
    section: int


@dataclass
class ChartShare:
    """The bars start..stop of a chart as one page shows them."""

    layout: "ChartLayout"
    start: int
    stop: int
    continued: bool
    continues: bool
    page: Page
    of: ChartOf | None = None


class ChartLayout:
    """One chart of one figure column: bars measured once; shares drawn per page."""

    def __init__(self, metrics: Metrics, *, label: str, title: str, first_caption: str, shared: str, unit: str,
                 bars: Sequence[Bar], slack: Slack, width: float, letters: int = 2):
        self.metrics = metrics
        self.cap, self.cell, self.shared_m, self.small = metrics(CAPTION), metrics(CELL), metrics(SHARED), metrics(LEGEND)
        self.label = label
        self.title = clean(title, 400, one_line=True)
        self.first_caption = clean(first_caption, 400, one_line=True)
        self.shared = clean(shared, NOTE_LIMIT, one_line=True)
        self.unit = clean(unit, 80, one_line=True)
        self.bars = list(bars)
        self.slack = slack
        self.width = width
        figs = [b.cell for b in self.bars if isinstance(b.cell, BoundFigure)]
        self.band = slack.band_fraction or 0.0
        self.vmax = max((f.magnitude * (1 + self.band) for f in figs), default=1.0) or 1.0
        self.rank_w = max((self.cell.width(b.rank) for b in self.bars), default=0.0) + 8.0
        natural = max((self.cell.width(b.label) for b in self.bars), default=0.0) + 8.0
        self.label_w = min(0.34 * width, natural)
        self.data_w = max([self.cell.width(widest_text(f, letters)) for f in figs] +
                          [self.cell.width(b.cell) for b in self.bars if isinstance(b.cell, str)] + [40.0]) + 8.0
        self.plot_x = self.rank_w + self.label_w + 4.0
        self.plot_w = max(60.0, width - self.plot_x - self.data_w)
        self.label_lines = [self.cell.wrap(b.label, self.label_w - 6.0) or [""] for b in self.bars]
        self.heights = [max(BAR_PITCH, len(lines) * CELL.leading + 6.0) for lines in self.label_lines]

    def legend(self) -> str:
        """How to read the bars: from zero, the whisker and where its band comes from (the band rule
        of the cohort: shape slack, repeated runs, or why there is none)."""
        if self.slack.estimable:
            return f"Bars start at zero. Each whisker is the figure's band. {band_basis_words(self.slack)}."
        return f"Bars start at zero, without whiskers. {band_basis_words(self.slack)}."

    def head_lines(self, continued: bool) -> list[tuple[str, list[str]]]:
        w = self.width
        caption = sentence(f"{self.label} (continued). {self.title}" if continued else f"{self.label}. {self.first_caption}")
        out = [("caption", self.cap.wrap(caption, w))]
        out.append(("shared", self.shared_m.wrap(self.shared, w)))
        out.append(("small", self.small.wrap(self.legend(), w)))
        return out

    def head_height(self, continued: bool, geometry: Geometry | None = None) -> float:
        lead = {"caption": CAPTION.leading, "shared": SHARED.leading, "small": LEGEND.leading}
        return sum(len(lines) * lead[kind] for kind, lines in self.head_lines(continued)) + 6.0

    def figures_of(self, i: int) -> list[BoundFigure]:
        cell = self.bars[i].cell
        return [cell] if isinstance(cell, BoundFigure) else []

    tail_h = AXIS_H + CONTINUES_H

    def run(self, make) -> Run:
        return Run(self.label, self.heights, self.figures_of, self.head_height, self.tail_h, make)

    # -- drawing --
    def drawing(self, share: ChartShare, texts: dict[int, str], height: float) -> Drawing:
        """The share as a reportlab Drawing, ``height`` points tall (as measured); ``texts`` holds
        each bar's bound figure text with the marks of its page."""
        d = Drawing(self.width, height)
        y = height
        styles = {"caption": CAPTION, "shared": SHARED, "small": LEGEND}
        colour = {"caption": INK, "shared": GREY, "small": GREY}
        for kind, lines in self.head_lines(share.continued):
            st = styles[kind]
            for line in lines:
                y -= st.leading
                d.add(String(0, y + (st.leading - st.size) * 0.5, line, fontName=st.font, fontSize=st.size,
                             fillColor=colour[kind]))
        y -= 6.0
        top = y
        scale = self.plot_w / self.vmax
        x0 = self.plot_x
        for i in range(share.start, share.stop):
            h = self.heights[i]
            bar = self.bars[i]
            mid = y - h / 2
            lines = self.label_lines[i]
            ly = mid + (len(lines) * CELL.leading) / 2
            d.add(String(2.0, mid - CELL.size * 0.35, bar.rank, fontName=NARROW, fontSize=CELL.size, fillColor=INK))
            for line in lines:
                ly -= CELL.leading
                d.add(String(self.rank_w, ly + (CELL.leading - CELL.size) * 0.5 + 0.6, line, fontName=NARROW,
                             fontSize=CELL.size, fillColor=INK))
            if isinstance(bar.cell, BoundFigure):
                v = bar.cell.magnitude
                d.add(Rect(x0, mid - BAR_THICK / 2, v * scale, BAR_THICK, fillColor=BAR_FILL, strokeColor=None))
                end = v * scale
                if self.band:
                    lo, hi = x0 + v * (1 - self.band) * scale, x0 + v * (1 + self.band) * scale
                    for shape in (Line(lo, mid, hi, mid), Line(lo, mid - 3.5, lo, mid + 3.5),
                                  Line(hi, mid - 3.5, hi, mid + 3.5)):
                        shape.strokeColor, shape.strokeWidth = INK, 0.8
                        d.add(shape)
                    end = hi - x0
                text = texts[i]
                font = NARROW_OBLIQUE if bar.cell.derivation else NARROW
                d.add(String(x0 + end + 4.0, mid - CELL.size * 0.35, text, fontName=font, fontSize=CELL.size,
                             fillColor=INK))
            else:
                d.add(String(x0 + 2.0, mid - CELL.size * 0.35, clean(bar.cell, CELL_LIMIT), fontName=NARROW_OBLIQUE,
                             fontSize=CELL.size, fillColor=GREY))
            y -= h
        axis = Line(x0, y - 2.0, x0 + self.plot_w, y - 2.0)
        axis.strokeColor, axis.strokeWidth = RULE, 0.8
        d.add(axis)
        zero = Line(x0, top, x0, y - 2.0)
        zero.strokeColor, zero.strokeWidth = RULE, 0.8
        d.add(zero)
        d.add(String(x0, y - 2.0 - SMALL.leading, f"{self.unit}, from zero; each bar carries its own figure",
                     fontName=SMALL.font, fontSize=SMALL.size, fillColor=GREY))
        if share.continues:
            d.add(String(0, y - AXIS_H - SMALL.leading + 2.0,
                         f"{self.label} continues on the next page, with the notes of its figures there.",
                         fontName=SMALL.font, fontSize=SMALL.size, fillColor=GREY))
        return d

    def draw(self, canv, share: ChartShare, block: ChartBlock, height: float) -> None:
        """The share, each bar's label its planned text with the marks of its page: the BoundCell
        of its bar in ``block``, the share's block in the page plan."""
        if len(block.bars) != share.stop - share.start:
            raise LayoutError(f"{self.label}: its planned bars are not the bars drawn")
        texts = {}
        for i, bar in zip(range(share.start, share.stop), block.bars):
            if isinstance(self.bars[i].cell, BoundFigure):
                if not isinstance(bar.cell, BoundCell):
                    raise LayoutError(f"{self.label}: bar {i + 1} is a figure the plan does not hold")
                texts[i] = bar.cell.shown_text
        renderPDF.draw(self.drawing(share, texts, height), canv, 0, 0)
