"""The one figure detector: where a text quotes a throughput figure, and what binding travels with it.

Shared by the guard (no figure in free text or in source strings) and the checker (bare figures in
documents made by anyone). A figure is a number (thousands separators, decimals, a k/M suffix)
followed by a throughput unit; what follows the unit may bind it: a band (``±5.4%``, or the words
``slack not estimable: ...`` / an own run's ``single run: no band``), marks (``[a]``), and the labels
``derived``, ``own measurement,`` and ``unverified``.

A number preceded by "target" is a load setting (a Server run's target QPS), not a result.

Tables and sheets: a number in a column whose header names a throughput unit is a figure too
(``header_unit`` reads the header, ``column_figure`` the cell), with the same binding rules.
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
_FIGURE = re.compile(_NUMBER + r"\s*(" + _UNIT + r")", re.IGNORECASE)  # a line may break between them
_TARGET = re.compile(r"\btarget(?:ed)?(?:\s+(?:rate|load|of|at))?\s*$", re.IGNORECASE)
_QUALIFIER = re.compile(r"(\s+per\s+(?:accelerator|GPU|chip|node|device|card|socket))?(?:,\s+((?:low|high)\s+edge)\s+of"
                        r"|\s*(=)(?=\s*±))?", re.IGNORECASE)
_BAND_OF = re.compile(r"\s+band\s+of\s+the\s+figure", re.IGNORECASE)  # '9,124 tok/s = ±5.4% band of the figure [a]'

_BAND = re.compile(r"\s?(?:±\s?\d+(?:\.\d+)?\s?%|\(slack not estimable: [^)]*\)|\([^()]{1,60}: no band\))")
MARK = r"[a-z]{1,6}"  # a, b, ..., z, aa, ..., zz, aaa, ...: wording.mark_name for up to 321 million notes
_MARKS = re.compile(r"\s?((?:\[" + MARK + r"\])+)")
_LABELS = re.compile(r"(?:\s(?:derived|unverified|own measurement,?))+")
_LABEL = re.compile(r"derived|unverified|own measurement")
_SCALE = {"k": 1e3, "K": 1e3, "M": 1e6, "m": 1e6}
THROUGHPUT_HEADER = re.compile(_UNIT + r"|throughput", re.IGNORECASE)
_HEADER_UNIT = re.compile(r"(?<![A-Za-z])" + _UNIT, re.IGNORECASE)
_NOT_A_FIGURE_HEADER = re.compile(r"\btarget(?:ed)?\b|\bper\s+sample\b|\blatenc|\bTTFT\b|\bTPOT\b", re.IGNORECASE)
_CELL_NUMBER = re.compile(r"\s*[~≈]?\s*" + _NUMBER)
HEADER_MAX_CHARS = 100


@dataclass(frozen=True)
class Detected:
    start: int
    end: int  # end of the figure's binding (band, marks, labels) when it has one
    text: str  # the figure as written, binding included
    value: float
    unit: str
    band: str  # "±5.4%", "(slack not estimable: ...)" or ""
    marks: tuple[str, ...]  # ("a", "d")
    labels: tuple[str, ...]  # ("derived", "own measurement", "unverified")
    qualifier: str = ""  # "per accelerator", "low edge", "high edge": what the number is of

    @property
    def band_edge(self) -> bool:
        """A quantity of the band, not a figure: a band edge, or a band's half-width (a chart's error
        bar: '9,124 tok/s = ±5.4% band of the figure [a]')."""
        return self.qualifier.endswith("edge") or self.qualifier == "band"

    @property
    def bound(self) -> bool:
        """Carries a band (or the words for none) and at least one mark."""
        return bool(self.band and self.marks)


# Every unit above contains one of these: a cheap test that lets most texts skip the full pattern.
_QUICK = re.compile(r"/\s?s(?:ec(?:ond)?)?(?![A-Za-z])|\sper\s+s|QPS", re.IGNORECASE)


def find_figures(text: str) -> list[Detected]:
    """Every throughput figure quoted in ``text``, with the binding that follows it."""
    if not _QUICK.search(text):
        return []
    found = []
    for m in _FIGURE.finditer(text):
        if _TARGET.search(text, 0, m.start()):
            continue
        found.append(_bound(text, m.start(), _value(m), m.group(4), m.end()))
    return found


@functools.lru_cache(maxsize=65536)
def reads_like_a_figure(text: str) -> bool:
    return bool(find_figures(text))


def header_unit(header: str) -> str | None:
    """The throughput unit a table or sheet column header names ("Throughput (tok/s)" -> "tok/s",
    "Throughput" -> "throughput"), or None when the header does not name one. Headers of load
    settings, latencies and shapes ("Target QPS", "p99 TTFT", "Tokens/sample") are not throughput
    columns; nor is a long text (a title, not a header)."""
    header = header.strip()
    if not header or len(header) > HEADER_MAX_CHARS or not THROUGHPUT_HEADER.search(header):
        return None
    if _NOT_A_FIGURE_HEADER.search(header) or _FIGURE.search(header):
        return None
    unit = _HEADER_UNIT.search(header)
    if unit:
        return unit.group(0)
    # "Throughput" alone names a throughput column; "Throughput (GB/s)" or "Throughput, Mbps" name another unit
    return None if re.search(r"[(\[/,:]|\bin\b", header) else "throughput"


def column_figure(text: str, unit: str) -> Detected | None:
    """A cell of a column whose header names ``unit``: a number at the start of the cell, with the
    binding that follows it ("101,527 ±5.4% [a]"), is a figure in that unit. None when the cell
    holds no such number, or quotes a figure of its own (find_figures reads those)."""
    m = _CELL_NUMBER.match(text)
    if not m or _FIGURE.search(text):
        return None
    d = _bound(text, m.start(1), _value(m, offset=0), unit, m.end())
    rest = text[d.end:].strip()
    if rest and not rest.startswith(("(", "*", "†", "‡")) and re.match(r"[A-Za-z0-9%/:-]", rest):
        return None  # "12 nodes", "5.1-0042", "2025-09-09", "45%": not a bare number in the column
    return d


def _value(m: re.Match, offset: int = 0) -> float:
    digits = m.group(1 + offset).replace(",", "").replace("\u00a0", "").replace("\u202f", "")
    return float(digits + (m.group(2 + offset) or "")) * _SCALE.get(m.group(3 + offset) or "", 1.0)


def _bound(text: str, start: int, value: float, unit: str, end: int) -> Detected:
    """The figure from ``start`` with its value and unit, and the binding that follows ``end``."""
    q = _QUALIFIER.match(text, end)
    qualifier = " ".join(x.strip().lower() for x in q.groups() if x).replace("=", "band")
    end, band, marks, labels = q.end(), "", (), ()
    b = _BAND.match(text, end)
    if b:
        band, end = b.group(0).strip(), b.end()
        if qualifier == "band":
            of = _BAND_OF.match(text, end)
            end = of.end() if of else end
    k = _MARKS.match(text, end)
    if k:
        marks, end = tuple(re.findall(r"\[(" + MARK + r")\]", k.group(1))), k.end()
    lab = _LABELS.match(text, end)
    if lab:
        labels, end = tuple(_LABEL.findall(lab.group(0))), lab.end()
    return Detected(start, end, text[start:end], value, unit, band, marks, labels, qualifier)


MARK_LIKE = re.compile(r"\[(" + MARK + r")\]")  # what a mark looks like (wording.mark_name)


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
