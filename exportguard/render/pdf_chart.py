"""Charts for the PDF briefing, drawn with reportlab's graphics: one horizontal bar per result, the
bar from zero to the figure, a whisker over the figure's band (its error bar), and the figure's
bound text (value, unit, band, marks) as the bar's label, and the bar's rank in words from the guard
(BoundTable.ranks: "3 (tie 2-5)"). Every bar has one colour: ties hold pairwise, not in groups, so
no colouring could state them truly; the rank words do. The caption carries the cohort and the
shape, the legend the band's basis (wording of citation.band_basis_words: an MLPerf cohort's shape
slack, an own cohort's repeated runs, or why there is no band). Every number drawn is a
bound figure: the value axis has no bare scale numbers.

A chart with more bars than a page holds is split like a table (layout.pager.Pager.add_run): each
page share repeats the caption, the shared conditions and the legend. This module measures a chart;
render/pdf_paint.py draws each share from its planned block.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from reportlab.lib.colors import HexColor

from ..citation import band_basis_words
from ..model import Slack
from ..report import BoundFigure
from ..layout.pager import Page, Run
from .pdf_layout import CAPTION, CELL, CONTINUES_H, LEGEND, NOTE_LIMIT, SHARED, Geometry
from .pdf_tables import sentence, widest_text
from .pdf_text import Metrics, clean

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

    def axis_words(self) -> str:
        """What stands under the value axis (it has no bare scale numbers)."""
        return f"{self.unit}, from zero; each bar carries its own figure"

    def continues_line(self) -> str:
        return f"{self.label} continues on the next page, with the notes of its figures there."
