"""The one figure detector: where a text quotes a throughput figure, and what binding travels with it.

Shared by the guard (no figure in free text or in source strings) and the checker (bare figures in
documents made by anyone). A figure is a number (thousands separators, decimals, a k/M suffix)
followed by a throughput unit; what follows the unit may bind it: a band (``±5.4%``, or the words
``slack not estimable: ...``), marks (``[a]``), and the labels ``derived`` and ``unverified``.

A number preceded by "target" is a load setting (a Server run's target QPS), not a result.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass

_UNIT = (r"(?:tok(?:en)?s?\s?/\s?s(?:ec(?:ond)?)?|tok(?:en)?s?\s+per\s+s(?:ec(?:ond)?)?"
         r"|samples?\s?/\s?s(?:ec(?:ond)?)?|samples?\s+per\s+second"
         r"|quer(?:y|ies)\s?/\s?s(?:ec(?:ond)?)?|quer(?:y|ies)\s+per\s+second|QPS|q/s"
         r"|req(?:uest)?s?\s?/\s?s(?:ec(?:ond)?)?|requests?\s+per\s+second)(?![A-Za-z])")
_NUMBER = r"(?<![\w.,])(\d{1,3}(?:[,\u00a0\u202f]\d{3})+|\d+)(\.\d+)?(?:[ \u00a0]?([kKM])(?![A-Za-z]))?"
_FIGURE = re.compile(_NUMBER + r"[ \t\u00a0\u202f]*(" + _UNIT + r")", re.IGNORECASE)
_TARGET = re.compile(r"\btarget(?:ed)?(?:\s+(?:rate|load|of|at))?\s*$", re.IGNORECASE)
_QUALIFIER = re.compile(r"(?:\s+per\s+(?:accelerator|GPU|chip|node|device|card|socket))?(?:,\s+(?:low|high)\s+edge\s+of)?",
                        re.IGNORECASE)
_BAND = re.compile(r"\s?(?:±\s?\d+(?:\.\d+)?\s?%|\(slack not estimable: [^)]*\))")
_MARKS = re.compile(r"\s?((?:\[[a-z]{1,3}\])+)")
_LABELS = re.compile(r"(?:\s(?:derived|unverified))+")
_SCALE = {"k": 1e3, "K": 1e3, "M": 1e6, "m": 1e6}
THROUGHPUT_HEADER = re.compile(_UNIT + r"|throughput", re.IGNORECASE)


@dataclass(frozen=True)
class Detected:
    start: int
    end: int  # end of the figure's binding (band, marks, labels) when it has one
    text: str  # the figure as written, binding included
    value: float
    unit: str
    band: str  # "±5.4%", "(slack not estimable: ...)" or ""
    marks: tuple[str, ...]  # ("a", "d")
    labels: tuple[str, ...]  # ("derived", "unverified")

    @property
    def bound(self) -> bool:
        """Carries a band (or the words for none) and at least one mark."""
        return bool(self.band and self.marks)


def find_figures(text: str) -> list[Detected]:
    """Every throughput figure quoted in ``text``, with the binding that follows it."""
    found = []
    for m in _FIGURE.finditer(text):
        if _TARGET.search(text, 0, m.start()):
            continue
        digits = m.group(1).replace(",", "").replace("\u00a0", "").replace("\u202f", "")
        value = float(digits + (m.group(2) or "")) * _SCALE.get(m.group(3) or "", 1.0)
        end, band, marks, labels = _QUALIFIER.match(text, m.end()).end(), "", (), ()
        b = _BAND.match(text, end)
        if b:
            band, end = b.group(0).strip(), b.end()
        k = _MARKS.match(text, end)
        if k:
            marks, end = tuple(re.findall(r"\[([a-z]{1,3})\]", k.group(1))), k.end()
        lab = _LABELS.match(text, end)
        if lab:
            labels, end = tuple(lab.group(0).split()), lab.end()
        found.append(Detected(m.start(), end, text[m.start():end], value, m.group(4), band, marks, labels))
    return found


@functools.lru_cache(maxsize=65536)
def reads_like_a_figure(text: str) -> bool:
    return bool(find_figures(text))


MARK_LIKE = re.compile(r"\[([a-z]{1,3})\]")  # what a mark looks like (wording.mark_name)


def defuse(text: str) -> str:
    """Source text made so that no reader or checker takes any of it for a figure or a mark: each
    figure-like span gets its unit in quotes, and anything that looks like a mark reads (a) -
    '999,999 "tok/s" ±0.1% (a)'. A second line of defence for renderers; the guard refuses such
    text in the first place."""
    found = find_figures(text)
    if found:
        out, last = [], 0
        for d in found:
            span = text[d.start:d.end]
            unit_at = span.find(d.unit)
            out += [text[last:d.start], f'{span[:unit_at]}"{d.unit}"{span[unit_at + len(d.unit):]}']
            last = d.end
        text = "".join(out) + text[last:]
    return MARK_LIKE.sub(r"(\1)", text) if "[" in text else text
