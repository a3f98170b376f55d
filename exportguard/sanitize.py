"""Source text as reports show it: every string that came from a source (names, frameworks, URLs)
passes here before any renderer sees it, so that no format has to guess what it may hold.

- Control characters (C0, C1, DEL), bidirectional overrides and isolates, zero-width characters and
  lone surrogates become U+FFFD, visibly: they could reorder or hide what a reader sees (an RLO
  before "101,527" shows "725,101") or steer a terminal.
- Line breaks and tabs become spaces: a name is one line.
- Over-long text is shortened visibly, with a marker that says how much was cut, so a footnote
  never grows past what a cell, a slide or a page can hold and the citation after it survives.
- A provenance path or URL that reads like a figure or a mark (vLLM names its result files
  "openai-4.0qps-....json") is defused (detect.defuse: its unit in quotes, a mark in parentheses):
  names that read like figures are refused at ingest and by the guard, but a file's path is its
  tool's choice, and a real file is never refused for its name.

Format-specific escaping (a spreadsheet's formula prefix, Markdown syntax, XML) stays in each
renderer, on top of this.
"""
from __future__ import annotations

import functools
import re
from dataclasses import fields, replace
from typing import TYPE_CHECKING

from .detect import defuse, reads_like_a_figure

if TYPE_CHECKING:  # the text functions serve the checker too, which builds no model classes
    from .memo import ByIdentity
    from .model import Result

SOURCE_TEXT_LIMIT = 300  # characters of one source string a report shows
# Joiners (U+200C, U+200D) too, as docs/api.md says: between digits they split what a reader sees as one
# number ("101\u200d,527") into what a checker reads as two, and in a name they hide a difference.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff"
                     "\ufff9-\ufffb\ufffe\uffff\ud800-\udfff]")
_SPACES = re.compile("[\t\n\r\u2028\u2029]+")


def visible(value: str) -> str:
    """One line of text with nothing hidden: controls, bidi and zero-width characters as U+FFFD."""
    text = _SPACES.sub(" ", value) if ("\n" in value or "\r" in value or "\t" in value
                                      or "\u2028" in value or "\u2029" in value) else value
    return unhidden(text)


def unhidden(text: str) -> str:
    """Text with its line breaks and tabs kept and nothing else hidden: controls, bidi and zero-width
    characters (and what XML cannot carry) as U+FFFD."""
    return _UNSAFE.sub("\ufffd", text) if _UNSAFE.search(text) else text


_MARKER = re.compile(r"… \[(\d{1,3}(?:,\d{3}){0,3}) more characters cut\]")
_MOST_CUT = 10**12 - 1  # what a marker counts at most: it keeps within the 40 characters shorten leaves it


def shorten(text: str, limit: int) -> str:
    """At most ``limit`` characters, marker included: cut at a word where one is near, followed by a
    marker saying how much was cut. Text shortened before (a name cut for the report, then cut again
    for a note or a narrow cell) keeps an honest count: a marker that the new cut removes adds the
    characters it stood for, so the count is of the characters cut from the source ("[44,966 more
    characters cut]", never the last cut's 90), and no cut leaves half a marker."""
    if len(text) <= limit:
        return text
    end = max(limit - 40, 10)  # room for the marker
    markers = list(_MARKER.finditer(text)) if "more characters cut]" in text else []
    for m in markers:
        if m.start() < end < m.end():
            end = m.start()
    cut = text[:end]
    if " " in cut[len(cut) // 2:]:
        cut = cut[: cut.rindex(" ")]
    cut = cut.rstrip()
    gone = len(text) - len(cut)
    for m in markers:
        if m.start() >= len(cut):  # a marker cut away: the characters it stood for, not its own
            gone += int(m.group(1).replace(",", "")) - len(m.group(0))
    return f"{cut}… [{min(gone, _MOST_CUT):,} more characters cut]"


@functools.lru_cache(maxsize=65536)
def source_text(value: str, limit: int = SOURCE_TEXT_LIMIT) -> str:
    """One line of visible text, at most ``limit`` characters plus a marker saying what was cut."""
    return shorten(visible(value), limit)


def _path_text(value: str) -> str:
    text = source_text(value)
    return defuse(text) if reads_like_a_figure(text) or "[" in text else text


def presentable(result: Result, seen: ByIdentity | None = None) -> Result:
    """The result with every text condition passed through ``source_text``: what a report shows.
    ``seen`` keeps the parts worked out for one batch of results, which may share parts (a
    cohort's, a source file's): each shared part is then worked out once."""
    c = result.conditions
    parts = {}
    for name in _parts():
        part = getattr(c, name)
        show = _show_path_part if name == "provenance" else _show_part
        shown = show(part) if seen is None else seen.get(part, show)
        if shown is not part:
            parts[name] = shown
    corrections = tuple(source_text(x) for x in result.corrections) if result.corrections else ()
    if not parts and corrections == result.corrections:
        return result
    return replace(result, conditions=replace(c, **parts), corrections=corrections)


@functools.cache
def _parts() -> tuple[str, ...]:
    from .model import Conditions

    return tuple(f.name for f in fields(Conditions))


def _show_part(part, shown=None):
    from .model import fields_of

    fields = fields_of(part)
    texts = [v for v in fields.values() if isinstance(v, str)]
    if shown is None:
        # printable ASCII within the limit is already what source_text makes of it: one test for
        # all of a part's texts instead of one look-up each
        joined = "".join(texts)
        if joined.isascii() and joined.isprintable() and max(map(len, texts), default=0) <= SOURCE_TEXT_LIMIT:
            return part
        shown = source_text
    changed = {}
    for k, v in fields.items():
        if isinstance(v, str):
            text = shown(v)
            if text != v:
                changed[k] = text
    return replace(part, **changed) if changed else part


def _show_path_part(part):
    return _show_part(part, _path_text)
