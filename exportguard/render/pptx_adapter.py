"""python-pptx internals the PPTX renderer leans on, adapted in one place (docs/pptx.md, "Speed").

python-pptx does three things per new slide that look at every slide already in the deck, so a deck
of S slides costs O(S²) in all (at 4,000 figures, ~740 slides, they were over half the export's
time, and time(4n) / time(n) was 5.9):

- ``OpcPackage.next_partname`` (naming a slide's notes slide, a chart, its embedded workbook) walks
  the package's whole relationship graph to collect the names in use;
- ``PresentationPart.relate_to`` (presentation -> new slide) builds a map of all its relationships by
  type to look for an existing one, which a part made a moment ago cannot have;
- ``CT_SlideIdList.add_sldId`` finds the highest slide ID with an XPath over every ``p:sldId``.

``PartNames`` and ``Slides`` do the same with what they learnt once: the names and IDs in use are
collected on first use, and each one handed out is remembered, so every later one costs O(1). The
output is the same: python-pptx takes, for names, the highest free number at or below the count
(for the gap-free names of a new deck: one more than the highest) and, for slide IDs, one more
than the highest; a name or ID is never handed out twice, nor one in the package when it was first
looked at. Parts dropped later leave a gap, never a clash. Only the renderer's own package is
changed (an instance attribute), never python-pptx's classes.

The other internals the renderer needs, where python-pptx has no public API, are here too, each a
one-line function that says why: a part's XML root and its bytes, a series' XML and a data label's.
Everywhere else the renderer uses python-pptx's public ``element`` of shapes, slides, masters,
charts and the slide list.
"""
from __future__ import annotations

import re

from pptx.opc.constants import RELATIONSHIP_TYPE as RT
from pptx.opc.packuri import PackURI
from pptx.parts.slide import SlidePart

MAX_SLIDE_ID = 2_147_483_647  # ECMA-376: p:sldId/@id is at most this (and at least 256)


class PartNames:
    """``next_partname`` for one package, without rescanning it for every new part."""

    def __init__(self, package):
        self._package = package
        self._highest: dict[str, int] = {}  # name template -> highest number in use

    def next_partname(self, tmpl: str) -> PackURI:
        if tmpl not in self._highest:
            head, _, tail = tmpl.partition("%d")
            pattern = re.compile(re.escape(head) + r"(\d+)" + re.escape(tail) + "$")
            found = (pattern.match(str(p.partname)) for p in self._package.iter_parts())
            self._highest[tmpl] = max((int(m.group(1)) for m in found if m), default=0)
        self._highest[tmpl] += 1
        return PackURI(tmpl % self._highest[tmpl])


class Slides:
    """``prs.slides.add_slide`` without the per-slide scans of the presentation part (above)."""

    def __init__(self, prs):
        prs.slides  # python-pptx's own first access (it renames the template's slide parts once)
        self._part = prs.part
        self._list = part_element(self._part).get_or_add_sldIdLst()
        self._next_id = max([255] + [int(i) for i in self._list.xpath("./p:sldId/@id")]) + 1

    def add_slide(self, layout):
        """A new slide on ``layout``, as python-pptx's ``Slides.add_slide`` makes it."""
        part = self._part
        slide_part = SlidePart.new(part._next_slide_partname, part.package, layout.part)
        rId = part.rels._add_relationship(RT.SLIDE, slide_part)  # a new part: nothing relates to it yet
        slide = slide_part.slide
        slide.shapes.clone_layout_placeholders(layout)
        if self._next_id > MAX_SLIDE_ID:  # IDs used up from the top: python-pptx looks for a free one
            self._list.add_sldId(rId)
        else:
            self._list._add_sldId(id=self._next_id, rId=rId)
            self._next_id += 1
        return slide


def adapt(prs) -> Slides:
    """Make adding slides and parts to ``prs`` cost O(1) each: its package gets a ``next_partname``
    that does not rescan it, and the returned ``Slides`` adds slides. Call it once the template is
    open, before the first slide is added; add every slide through it."""
    package = prs.part.package
    package.next_partname = PartNames(package).next_partname
    return Slides(prs)


def part_element(part):
    """A package part's XML root: python-pptx's XmlPart keeps it in ``_element`` and offers no accessor."""
    return part._element


def set_blob(part, blob: bytes) -> None:
    """A generic part's bytes: python-pptx reads them from ``_blob`` and has no setter."""
    part._blob = blob


def series_element(series):
    """A chart series' ``c:ser``: python-pptx's series proxies keep it private (error bars, point
    formats and data labels have no API)."""
    return series._element


def data_label_element(label):
    """A data point's ``c:dLbl``, made if missing: python-pptx's DataLabel has only a private maker."""
    return label._get_or_add_dLbl()
