"""What a slide may show: every string from a source reaches a deck through ``slide_text``.

The planner (render/pptx_plan.py) escapes every text it lays out with it; the painter
(render/pptx.py) only for the number-format codes it derives from a figure. Both import it from
here, which imports neither of them.
"""
from __future__ import annotations

import functools
import re

from ..detect import defuse
from ..sanitize import shorten, visible

CELL_LIMIT = 160  # characters of one table cell from a source
NAME_LIMIT = 100  # a name in a chart's category label
TITLE_LIMIT = 200
HEADLINE_LIMIT = 600  # a section's title: a headline names submitter, system and scale in full, never cut short
NOTE_LIMIT = 1500  # one footnote on a slide (speaker notes take up to SPEAKER_LIMIT)
PARA_LIMIT = 4000
SPEAKER_LIMIT = 20_000

_RTL = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefe\U00010800-\U00010fff\U0001e800-\U0001efff]")


def slide_text(value, *, limit: int = CELL_LIMIT, figure: bool = False, lines: bool = False) -> str:
    """Any string made safe for a slide, a chart, a workbook cell or speaker notes: the shared
    visible-text layer (sanitize.visible: controls, bidi and zero-width characters as U+FFFD; line
    breaks as spaces, kept when ``lines``), then, unless ``figure`` (a bound figure's own text),
    figure-like text defused (detect.defuse) and text longer than ``limit`` cut with a visible
    marker; text with right-to-left letters is closed with a left-to-right mark so that what
    follows it on the slide keeps its order."""
    text = "" if value is None else str(value)
    if len(text) > 4000:
        return _slide_text(text, limit, figure, lines)
    return _slide_text_cached(text, limit, figure, lines)


def _slide_text(text: str, limit: int, figure: bool, lines: bool) -> str:
    if lines:
        text = "\n".join(visible(line) for line in text.replace("\r\n", "\n").split("\n"))
    else:
        text = visible(text)
    if not figure:
        text = shorten(defuse(text), limit)
    if _RTL.search(text) and not text.endswith("\u200e"):
        text += "\u200e"
    return text


_slide_text_cached = functools.lru_cache(maxsize=65_536)(_slide_text)
