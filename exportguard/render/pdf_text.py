"""Text for the PDF briefing: the embedded fonts, the escaping layer every data string goes through,
and the measuring and line-breaking that the page layout relies on (pdf_tables.py, layout/pager.py).

Escaping (one place): ``clean`` turns any string that comes from the data (submitter and system
names, frameworks, notes built from them, spec titles and paragraphs) into text the PDF may show:
first the shared layer, sanitize.visible (control, bidi and zero-width characters shown as U+FFFD,
one line), then detect.defuse (text that reads like a figure or a note mark shown so that it does
not; the guard refuses such source text before export, this is the renderer's second line), and
sanitize.shorten (over-long text cut with a visible marker). Nothing goes through reportlab's
Paragraph markup: every line is drawn as the plain text it is, so a submitter named
``<font color=red>x</font>`` prints as those characters.

Measuring: widths come from the embedded font's own metrics (pdfmetrics.stringWidth), which are
additive (reportlab applies no kerning), so a line's width is the sum of its words and spaces; the
layout wraps lines itself and draws exactly the lines it measured.
"""
from __future__ import annotations

import re
import threading
import unicodedata
import weakref
from bisect import bisect_right
from itertools import accumulate
from dataclasses import dataclass

from reportlab.lib.fonts import addMapping
from reportlab.pdfbase import pdfmetrics
from reportlab.lib.rl_accel import escapePDF
from reportlab.pdfbase.ttfonts import TTFont

from ..detect import defuse, reads_like_a_figure
from ..sanitize import shorten, visible
from .fonts import BRIEFING_FACES as _FACES, face_file as font_file
from .reportlab_adapter import document_of

# -- fonts ----------------------------------------------------------------------------------------

SANS, SANS_BOLD, SANS_OBLIQUE = "EG-Sans", "EG-Sans-Bold", "EG-Sans-Oblique"
NARROW, NARROW_BOLD, NARROW_OBLIQUE = "EG-Narrow", "EG-Narrow-Bold", "EG-Narrow-Oblique"
_registered: dict[str, str] = {}
_registering = threading.Lock()  # exports in several threads: one registers, the others wait for all faces


def register_fonts() -> dict[str, str]:
    """Register (once per process) the faces the briefing embeds; returns name -> file."""
    with _registering:
        if not _registered:
            faces = {}
            for name in _FACES:
                path = font_file(name)
                pdfmetrics.registerFont(TTFont(name, str(path)))
                faces[name] = str(path)
            for family in ("EG-Sans", "EG-Narrow"):
                addMapping(family, 0, 0, family)
                addMapping(family, 1, 0, f"{family}-Bold")
                addMapping(family, 0, 1, f"{family}-Oblique")
                addMapping(family, 1, 1, f"{family}-BoldOblique")
            _registered.update(faces)
        return dict(_registered)


# -- escaping: the one layer every data string goes through ---------------------------------------


_CACHE: dict[tuple, str] = {}


def clean(value, limit: int | None = None, one_line: bool = False) -> str:
    """Any data string as text the PDF may show (module docstring). ``limit`` cuts it, visibly,
    after that many characters; ``one_line`` turns line ends into spaces."""
    text = str(value)
    # the common case, kept cheap for long tables: nothing to neutralise. isprintable() is False for
    # every control, format (bidi, zero-width), separator, surrogate, private and unassigned character
    if (text.isprintable() and (text.isascii() or _covered(text)) and "[" not in text
            and (limit is None or len(text) <= limit)
            and not (one_line and "  " in text) and not reads_like_a_figure(text)):
        return text
    key = (text, limit, one_line)
    got = _CACHE.get(key)
    if got is None:
        if len(_CACHE) > 50_000:
            _CACHE.clear()
        got = _CACHE[key] = _clean(text, limit, one_line)
    return got


def _clean(text: str, limit: int | None, one_line: bool) -> str:
    # the shared layers: sanitize.visible (controls, bidi, zero-width and soft hyphens shown as
    # U+FFFD), detect.defuse (nothing reads as a figure or a mark), sanitize.shorten (cut visibly)
    text = drawable(visible(text))
    if one_line:
        text = " ".join(text.split())
    text = defuse(text)
    return text if limit is None else shorten(text, limit)


def _covered(text: str) -> bool:
    glyphs = _char_widths(SANS)
    return all(ch in glyphs for ch in text)


def drawable(text: str) -> str:
    """``text`` with each character the embedded faces lack (they draw nothing for it, and a reader
    copies nothing) replaced by its compatibility form where the faces have that ('＝' by '=', a
    ligature by its letters), else by U+FFFD, which they draw: nothing a source says vanishes from
    the page unseen. The checker compares notes in the same compatibility form (check/tamper.py)."""
    if text.isascii() or _covered(text):
        return text
    glyphs = _char_widths(SANS)
    out = []
    for ch in text:
        if ch in glyphs:
            out.append(ch)
        else:
            plain = unicodedata.normalize("NFKC", ch)
            out.append(plain if plain and all(c in glyphs for c in plain) else "\ufffd")
    return "".join(out)


# -- measuring and breaking lines -----------------------------------------------------------------

_PIECES = re.compile(r"\s+|(?<=[/_-])")


class _Widths(dict):
    """Advance widths (thousandths of an em) by character; the font's default for any other."""

    def __init__(self, widths: dict[str, int], default: float):
        super().__init__(widths)
        self.default = default

    def __missing__(self, ch: str) -> float:
        return self.default


_WIDTHS: dict[str, _Widths] = {}


def _char_widths(font_name: str) -> _Widths:
    got = _WIDTHS.get(font_name)
    if got is None:
        register_fonts()
        face = pdfmetrics.getFont(font_name).face
        got = _WIDTHS[font_name] = _Widths({chr(k): v for k, v in face.charWidths.items()}, face.defaultWidth)
    return got


@dataclass(frozen=True)
class Style:
    """A font at a size with its line pitch."""

    font: str
    size: float
    leading: float


class Measure:
    """Widths and line breaks for one font at one size. Word widths are cached (table cells and
    notes repeat most of their words), so wrapping a row costs a few dictionary look-ups."""

    def __init__(self, style: Style):
        self.style = style
        self.font = pdfmetrics.getFont(style.font)
        self.size = style.size
        self._em = _char_widths(style.font)
        self._words: dict[str, float] = {}
        self.space = self.width(" ")

    def width(self, text: str) -> float:
        """The font's own advance widths summed (what pdfmetrics.stringWidth computes), by a
        dictionary look-up per character."""
        return sum(map(self._em.__getitem__, text)) * self.size * 0.001

    def word(self, word: str) -> float:
        w = self._words.get(word)
        if w is None:
            if len(self._words) > 200_000:  # bounded memory whatever the data
                self._words.clear()
            w = self._words[word] = sum(map(self._em.__getitem__, word)) * self.size * 0.001
        return w

    def wrap(self, text: str, width: float, indent: float = 0.0) -> list[str]:
        """Greedy line breaking at spaces (runs of white space count as one; line ends in the
        text break lines); a word wider than the line is broken between characters. Every line
        returned fits ``width``, the first ``width - indent`` (a run-in label stands before it).
        Works on the running sum of the characters' advance widths, so a line costs one bisection
        and one rfind, whatever its number of words."""
        if "\n" in text:
            out: list[str] = []
            for k, para in enumerate(text.split("\n")):
                out.extend(self.wrap(para, width, indent if k == 0 else 0.0) or [""])
            return out
        text = " ".join(text.split())
        if not text:
            return []
        cum = list(accumulate(map(self._em.__getitem__, text)))  # thousandths of an em
        limit = width / (self.size * 0.001) + 1e-6
        first = max(width - indent, 0.0) / (self.size * 0.001) + 1e-6
        if cum[-1] <= first:
            return [text]
        lines, start, n = [], 0, len(text)
        while start < n:
            base = cum[start - 1] if start else 0
            end = bisect_right(cum, base + (limit if lines else first), start)  # text[start:end] fits
            if end >= n:
                lines.append(text[start:])
                break
            if text[end] == " ":
                cut = end
            else:
                cut = text.rfind(" ", start, end)
                if cut <= start:  # one word wider than the line: break it after a / - or _, or anywhere
                    soft = max(text.rfind("/", start, end - 1), text.rfind("-", start, end - 1),
                               text.rfind("_", start, end - 1)) if end - 1 > start else -1
                    cut = soft + 1 if soft > start else max(end, start + 1)
                    lines.append(text[start:cut])
                    start = cut + 1 if cut < n and text[cut] == " " else cut
                    continue
            lines.append(text[start:cut])
            start = cut + 1
        return lines

    def longest_word(self, text: str) -> float:
        return max((self.word(w) for w in text.split()), default=0.0)

    def longest_piece(self, text: str) -> float:
        """The widest piece that wrap keeps together when it must break a word: a word, or the
        part of one up to and after a / - or _."""
        return max((self.word(w) for w in _PIECES.split(text) if w), default=0.0)

    def fit(self, text: str, width: float) -> str:
        """One line of ``text`` that fits ``width``, cut with an ellipsis if it must be."""
        if self.width(text) <= width:
            return text
        ell = self.width("…")
        out, acc = [], 0.0
        for ch in text:
            cw = self.width(ch)
            if acc + cw + ell > width:
                break
            out.append(ch)
            acc += cw
        return "".join(out).rstrip() + "…"


# -- writing text runs ------------------------------------------------------------------------------

_ASCII = "".join(chr(i) for i in range(32, 127))


class Metrics:
    """One Measure per style, shared by the whole document (their word caches too)."""

    def __init__(self):
        self._m: dict[Style, Measure] = {}

    def __call__(self, style: Style) -> Measure:
        m = self._m.get(style)
        if m is None:
            m = self._m[style] = Measure(style)
        return m


class _Encoder:
    """A font's text as PDF string bytes for one document, fast: printable ASCII keeps its own
    codes in the font's first subset (reportlab's asciiReadable subsets, checked once), and each
    other character is asked of the font once (font.splitString) and remembered, since a code once
    given never changes. A string wholly in the first subset becomes one ``str.translate``; any
    other goes through font.splitString as a whole."""

    def __init__(self, font, doc):
        self.font, self.doc = font, doc
        self.table = {ord("\\"): "\\\\", ord("("): "\\(", ord(")"): "\\)"}
        self.elsewhere: set[str] = set()
        self.fast = font.splitString(_ASCII, doc) == [(0, _ASCII.encode("latin-1"))]
        self.cache: dict[str, list] = {}  # repeated texts (cells, labels) encoded once

    def encode(self, text: str):
        got = self.cache.get(text)
        if got is None:
            if len(self.cache) > 100_000:
                self.cache.clear()
            got = self.cache[text] = self._encode(text)
        return got

    def _encode(self, text: str):
        if self.fast and text.isprintable():
            if not text.isascii():
                table = self.table
                for ch in set(text).difference(_ASCII):
                    if ord(ch) not in table and ch not in self.elsewhere:
                        got = self.font.splitString(ch, self.doc)
                        if len(got) == 1 and got[0][0] == 0:
                            table[ord(ch)] = escapePDF(got[0][1])
                        else:
                            self.elsewhere.add(ch)
                if self.elsewhere and not self.elsewhere.isdisjoint(text):
                    return [(subset, escapePDF(chunk)) for subset, chunk in self.font.splitString(text, self.doc)]
            if text.isascii() and "(" not in text and ")" not in text and "\\" not in text:
                return [(0, text)]
            return [(0, text.translate(self.table))]
        return [(subset, escapePDF(chunk)) for subset, chunk in self.font.splitString(text, self.doc)]


_ENCODERS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # document -> font name -> _Encoder


def _encoder(doc, name: str) -> _Encoder:
    fonts = _ENCODERS.get(doc)
    if fonts is None:
        fonts = _ENCODERS[doc] = {}
    enc = fonts.get(name)
    if enc is None:
        enc = fonts[name] = _Encoder(pdfmetrics.getFont(name), doc)
    return enc


class TextRuns:
    """Text written as PDF text operators, one ``Tj`` run per string, inside one ``q BT ... ET Q``
    block added to the page (canvas.addLiteral). Strings go through the embedded font's subsets the
    way reportlab documents for dynamic fonts (font.splitString, font.getSubsetInternalName), but
    without the per-call cost of its text object, which measures every string it writes: long
    tables write hundreds of thousands of runs. Every run stays one piece of selectable text."""

    def __init__(self, canv):
        self.canv = canv
        self.doc = document_of(canv)
        self.ops: list[str] = ["q", "BT"]
        self.pre: list[str] = []
        self._font = None
        self._tf = ""
        self._names: dict[tuple[str, float, int], str] = {}  # -> its 'Tf' operator

    def font(self, name: str, size: float) -> None:
        self._font = (_encoder(self.doc, name), name, size)

    def colour(self, colour) -> None:
        self.ops.append(f"{colour.red:.3f} {colour.green:.3f} {colour.blue:.3f} rg")

    def text(self, x: float, y: float, text: str) -> None:
        enc, name, size = self._font
        chunks = enc.encode(text)
        if len(chunks) == 1:  # the common case: one run in one subset
            subset, escaped = chunks[0]
            tf = self._names.get((name, size, subset)) or self._tf_of(enc, name, size, subset)
            if tf != self._tf:
                self.ops.append(tf)
                self._tf = tf
            self.ops.append(f"1 0 0 1 {x:.2f} {y:.2f} Tm ({escaped}) Tj")
            return
        first = True
        for subset, escaped in chunks:
            tf = self._tf_of(enc, name, size, subset)
            if tf != self._tf:
                self.ops.append(tf)
                self._tf = tf
            if first:
                self.ops.append(f"1 0 0 1 {x:.2f} {y:.2f} Tm")
                first = False
            self.ops.append(f"({escaped}) Tj")

    def lines(self, x: float, y: float, lines, leading: float) -> None:
        """Several lines, the first with its baseline at ``y``, each next one ``leading`` lower
        (one positioning for the block; each line still its own run)."""
        if not lines:
            return
        self.text(x, y, lines[0])
        if len(lines) > 1:
            self.ops.append(f"{leading:g} TL")
            for line in lines[1:]:
                self.ops.append("T*")
                self._runs(line)

    def _runs(self, text: str) -> None:
        enc, name, size = self._font
        for subset, escaped in enc.encode(text):
            tf = self._tf_of(enc, name, size, subset)
            if tf != self._tf:
                self.ops.append(tf)
                self._tf = tf
            self.ops.append(f"({escaped}) Tj")

    def path(self, ops: str) -> None:
        """Path operators (rectangles, lines) drawn before the text block, in the same q ... Q."""
        self.pre.append(ops)

    def _tf_of(self, enc, name: str, size: float, subset: int) -> str:
        key = (name, size, subset)
        tf = self._names.get(key)
        if tf is None:
            tf = self._names[key] = f"{enc.font.getSubsetInternalName(subset, self.doc)} {size:g} Tf"
        return tf

    def close(self) -> None:
        self.ops += ["ET", "Q"]
        self.canv.addLiteral("\n".join(["q"] + self.pre + self.ops[1:]))
        self.ops = ["q", "BT"]
        self.pre = []
        self._tf = ""
