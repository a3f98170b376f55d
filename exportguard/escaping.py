"""How text is written into each format's syntax, and read back out of it: the one escaping module.

sanitize.py makes source text visible (controls, bidi and zero-width characters shown, length cut);
this module is the last step before text becomes part of a file, per format, with its inverse where
the checker needs to see what a reader sees:

- spreadsheets (CSV, XLSX): one list of the characters a spreadsheet treats as the start of a
  formula; a CSV cell starting with one gets a leading apostrophe, an XLSX text cell its
  "quote prefix" style (it is stored as text, and stays text when a person edits it in Excel);
- number formats (XLSX cells, PPTX chart labels): one digits table and one rule for the quoted
  literal that carries a figure's unit, band and marks;
- Markdown: what CommonMark and GitHub-flavoured Markdown need escaped, and no more, and
  ``markdown_seen``, what a reader of the rendered file sees (the checker reads with it);
- slides: ``slide_text``, every string a deck shows (the limits by place: render/pptx_text.py);
- worksheets: ``worksheet_text``, every string a workbook cell holds.

The PDF's ``pdf_text.clean`` stays beside the briefing's fonts: it also replaces what they cannot draw.
"""
from __future__ import annotations

import functools
import html
import re

from .detect import defuse
from .sanitize import shorten, unhidden, visible

# -- spreadsheets ---------------------------------------------------------------------------------

# '=', '+', '-', '@' start a formula; a tab or a line end before one hides it; '|' (DDE) and '%'
# (an encoded line end, %0A) are read as one by some spreadsheets' CSV import.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n", "|", "%")


def formula_like(text: str) -> bool:
    """Would a spreadsheet read this text, typed into a cell, as a formula?"""
    return text.startswith(FORMULA_START)


@functools.lru_cache(maxsize=65536)
def csv_text(value) -> str:
    """Text for a CSV cell that no spreadsheet evaluates and that steers nothing: controls shown
    (sanitize.visible), a leading formula character escaped with an apostrophe."""
    text = visible(str(value))
    return "'" + text if formula_like(text) else text


# -- number formats -------------------------------------------------------------------------------

DIGITS = {0: "#,##0", 2: "#,##0.00", 4: "0.0000"}  # a figure's decimals -> its number format's digits


def format_literal(text: str) -> str:
    """Text as a number format's quoted literal. A double quote would end it (the format code has no
    escape for one inside quotes) and a backslash escapes the next character in some readers' format
    parsers: each becomes a look-alike that reads the same to a person."""
    return text.replace('"', "'").replace("\\", "/")


def number_format(decimals: int, text: str) -> str:
    """'#,##0" tok/s ±5.4% [a]"': the figure's digits, then ``text`` as literal after a space."""
    return f'{DIGITS[decimals]}" {format_literal(text)}"'


# -- Markdown -------------------------------------------------------------------------------------

# Inline markup: backslash, code span, emphasis, link and image brackets, strikethrough, table pipe.
_INLINE = re.compile(r"[\\`*\[\]~|]")
# "_" makes emphasis except inside a word (CommonMark's flanking rules); "&" starts a character
# reference only before "name;" or "#digits;"; "<" starts HTML or an autolink.
_UNDERSCORE = re.compile(r"(?<![^\W_])_|_(?![^\W_])")
_ENTITY = re.compile(r"&(?=#?[0-9A-Za-z]+;)")
# GFM's extended autolinks: a backslash before "://" or after "www" leaves the address as text
# (cmark-gfm links "0HTTP://0" from its scheme on, so the scheme needs no word boundary before it).
_SCHEME = re.compile(r"(?i)(https?|ftp)(?=://)")
_WWW = re.compile(r"(?i)(www)(?=\.)")
# What opens a block at the start of a line (heading, quote, list item, thematic break or setext
# underline), and an ordered list item's "1." or "1)": its punctuation takes the escape, since a
# backslash before a digit shows.
_BLOCK_START = re.compile(r"^(?:#{1,6}(?=\s|$)|>|[-+](?=\s|$)|[-=]+\s*$)")
_ORDERED = re.compile(r"^(\d{1,9})([.)])(?=\s|$)")
_CLOSING_HASHES = re.compile(r"(\s)(#+\s*)$")  # would close an ATX heading
# Where one of the substitutions below has something to do: a character escaped or made visible
# anywhere, what opens a block at the start, an address, or a closing run of hashes. Text without
# any (most names, which hold '-', '#' or '.' only inside) is returned as it is, untouched by them.
_NEEDS_WORK = re.compile(r"[\\`*_\[\]~|<&\x00-\x1f\x7f-\x9f\u00ad\u061c\u200b-\u200f\u2028-\u202e"
                         r"\u2060-\u2069\ufeff\ufff9-\ufffb\ufffe\uffff\ud800-\udfff]|^\s|^[#>+=\-]|^\d{1,9}[.)]"
                         r"|://|(?i:www)\.|\s#+\s*$")


@functools.lru_cache(maxsize=65536)
def markdown_text(text) -> str:
    """Text from a source or a spec as Markdown shows it literally, on one line."""
    text = str(text)
    if not _NEEDS_WORK.search(text):
        return text
    text = visible(text).lstrip()  # leading blanks would make an indented code block
    text = _INLINE.sub(r"\\\g<0>", text)
    text = _UNDERSCORE.sub(r"\\_", text)
    text = _ENTITY.sub("&amp;", text).replace("<", "&lt;")
    text = _WWW.sub(r"\1\\", _SCHEME.sub(r"\1\\", text))
    text = _CLOSING_HASHES.sub(r"\1\\\2", text)
    text = _ORDERED.sub(r"\1\\\2", text, count=1)
    return _BLOCK_START.sub(lambda m: "\\" + m.group(0), text, count=1)


def markdown_figure(text: str) -> str:
    """A bound figure's text is exportguard's own (digits, unit, band, marks): it only needs its
    table cell kept."""
    return text.replace("|", "\\|")


_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")  # a backslash before ASCII punctuation (CommonMark)
_REFERENCE = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")  # CommonMark's


def markdown_seen(text: str) -> str:
    """What a reader of rendered Markdown sees: backslash escapes and character references resolved
    (``markdown_text`` escapes '*', '[', a '_' outside a word ... and writes '&lt;'). A reference
    needs its ';', as in CommonMark: '&copy 2025' shows as written."""
    if "\\" in text:
        text = _ESCAPED.sub(r"\1", text)
    if "&" in text:
        text = _REFERENCE.sub(lambda m: html.unescape(m.group(0)), text)
    return text


# -- slides -----------------------------------------------------------------------------------------

_RTL = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefe\U00010800-\U00010fff\U0001e800-\U0001efff]")


SLIDE_CELL_LIMIT = 160  # characters of one table cell from a source (render/pptx_text.py: every place's limit)


def slide_text(value, *, limit: int = SLIDE_CELL_LIMIT, figure: bool = False, lines: bool = False) -> str:
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


# -- Word -----------------------------------------------------------------------------------------

WORD_TEXT_LIMIT = 20_000  # characters of one paragraph or cell from a source (a Word paragraph holds any length)


def word_text(value, *, figure: bool = False, limit: int = WORD_TEXT_LIMIT) -> str:
    """Any string made safe for a Word paragraph, table cell, footnote, header or alt text: a slide's
    rules (slide_text: nothing hidden, what XML cannot carry as U+FFFD, figure-like source text
    defused, right-to-left text closed), its line breaks kept (the painter writes them as breaks)."""
    return slide_text(value, limit=limit, figure=figure, lines=True)


# -- worksheets -------------------------------------------------------------------------------------

CELL_MAX = 32_767  # characters a worksheet cell holds (Excel's limit)
_SHORT = 200  # longer texts (comments, notes, manifest chunks) are mostly unique: not worth keeping


def worksheet_text(value) -> str:
    """A string a worksheet can hold, with nothing hidden: controls, bidi and zero-width characters
    and what XML cannot carry become U+FFFD (sanitize.unhidden: titles and spec text reach a workbook
    here without passing the source-text layer), line ends are normalised to LF (XML would turn a bare
    CR into LF on reading anyway), at most 32,767 characters."""
    text = value if type(value) is str else str(value)
    # a table's short text cells repeat (submitter, accelerator, verified): each is cleaned once
    return _worksheet_short(text) if len(text) <= _SHORT else _worksheet(text)


def _worksheet(text: str) -> str:
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return unhidden(text)[:CELL_MAX]


_worksheet_short = functools.lru_cache(maxsize=8192)(_worksheet)
