"""The PDF briefing's page geometry and type: page sizes and margins, the styles, colours and
spacings that the planner measures with (pdf_planner.py, pdf_tables.py, pdf_chart.py, with the one
pager of layout/pager.py) and the painter draws with (pdf_paint.py). Nothing here plans or draws.
"""
from __future__ import annotations

from dataclasses import dataclass

from reportlab.lib.colors import HexColor

from ..errors import ExportguardError
from ..layout import paper
from ..layout.pager import NoteBook, NotesStyle
from .pdf_text import NARROW, NARROW_BOLD, NARROW_OBLIQUE, SANS, SANS_BOLD, SANS_OBLIQUE, Metrics, Style, clean

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


PORTRAIT = Geometry("portrait", *paper.size("a4"))
LANDSCAPE = Geometry("landscape", *paper.size("a4", "landscape"))
PAGE_SIZES = paper.SIZES
ORIENTATIONS = paper.ORIENTATIONS


def geometry(page_size: str = "a4", orientation: str = "portrait") -> Geometry:
    """The one page geometry of a briefing (issue 16: one orientation per document)."""
    if page_size not in PAGE_SIZES or orientation not in ORIENTATIONS:
        raise ExportguardError(f"PDF page: size {page_size!r} (a4 or letter), orientation {orientation!r} "
                               "(portrait or landscape)")
    return Geometry(orientation, *paper.size(page_size, orientation))


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
# a page's notes area, as the pager (layout/pager.py) reserves it and pdf_paint draws it
NOTES = NotesStyle(leading=NOTE.leading, gap=NOTE_GAP, gutter=NOTE_GUTTER, top=NOTES_TOP,
                   column_min=NOTE_COLUMN_MIN, column_gap=NOTE_COLUMN_GAP)
PAIR_GUTTER = 16.0  # between the two panels of a beside section
STACK_GAP = 8.0  # between two tables stacked in one panel


def note_book(metrics: Metrics) -> NoteBook:
    """The pager's note measure for a briefing: a note's text escaped for the PDF (pdf_text.clean, cut
    at NOTE_LIMIT) and broken into lines in the note style's metrics."""
    measure = metrics(NOTE)
    return NoteBook(NOTES, lambda text, width: measure.wrap(clean(text, NOTE_LIMIT), width))
