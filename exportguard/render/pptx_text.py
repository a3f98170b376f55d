"""How much of a source's text a slide shows, by place. The text itself goes through
escaping.slide_text: the planner (render/pptx_plan.py) escapes every text it lays out with it, the
painter (render/pptx.py) the number-format codes it derives from a figure.
"""
from __future__ import annotations

from ..escaping import SLIDE_CELL_LIMIT

CELL_LIMIT = SLIDE_CELL_LIMIT  # characters of one table cell from a source
NAME_LIMIT = 100  # a name in a chart's category label
TITLE_LIMIT = 200
HEADLINE_LIMIT = 600  # a section's title: a headline names submitter, system and scale in full, never cut short
NOTE_LIMIT = 1500  # one footnote on a slide (speaker notes take up to SPEAKER_LIMIT)
PARA_LIMIT = 4000
SPEAKER_LIMIT = 20_000
