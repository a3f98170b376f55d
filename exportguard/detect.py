"""The one figure detector: where a text quotes a throughput figure, and what binding travels with it.

Shared by the guard (no figure in free text or in source strings), ingest (a name that reads like a
figure is quarantined) and the checker (bare figures in documents made by anyone). The words it
knows (units, locale number forms, labels, what a number may be instead) are data, in
figure_forms.py; this module turns them into patterns and reads a text with them.

A figure is a throughput a person reads in a text, written in any of these ways:

- a number with a throughput unit: '101,527 tok/s', '147k TPS', '~66k output tokens/s',
  '45,3 Samples/s', '1,2 Mio. Token/s', '101 253 tok/s' (thin-space thousands), and each end of a
  range ('120–155 tokens/sec' is two figures); per accelerator ('tok/s/GPU'), per dollar or per watt
  it is derived;
- a derived cost figure: '$0.21/M tokens', '0.2121 USD per 1M tokens', '169,600 tokens/dollar'; but a
  price a provider charges per token count ('list price $0.20 / 1M tokens', '$0.40 / 1M input tokens',
  under a heading or title that names a price: ``without_prices``) is not a figure;
- a number after a label that names a throughput ('Output token throughput (tok/s):   1764.14',
  '"output_throughput": 1764.1', an AIPerf console row), under a heading line or a text table's
  column heading that names one, or in a sentence that states the unit once for several numbers
  ('... samples/second: H200 achieves 118.5 (40% faster than H100's 84.2)').

What follows a figure may bind it: a band (``±5.4%``, or the words ``slack not estimable: ...`` / an
own run's ``single run: no band``), marks (``[a]``), and the labels ``derived``, ``own measurement,``
and ``unverified``. A number preceded by "target" (and
the like) is a load setting, not a result. Tables and sheets: a number in a column whose header
names a throughput unit is a figure too (``header_unit`` reads the header, ``column_figure`` the
cell), with the same binding rules.

Numbers inside a file name, a path or a URL are parts of a name, never figures: they are blanked out
before any rule reads the text (``_without_file_names``).
"""
from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass

from . import figure_forms as F
from . import lazy_re

_I = re.IGNORECASE


def _alt(parts) -> str:
    return "(?:" + "|".join(parts) + ")"


_NOT_LETTER = r"(?![A-Za-zÀ-ÿ])"
_COUNT = _alt(F.COUNT_WORDS)
_ADJ = r"(?:" + _alt(F.COUNT_ADJECTIVES) + r"[\s-]+){0,2}"
_UNIT = ("(?:" + _ADJ + _COUNT + _alt(F.PER_SECOND) + r"|(?<![A-Za-z])" + _alt(F.ACRONYM_UNITS) + ")" + _NOT_LETTER)
# a number: grouped thousands and a decimal part (one class of separators, so that the engine tries one
# alternative; number_value reads a mixed '1,234.5')
_NUM_TIGHT = r"(\d{1,3}(?:[" + re.escape("".join(F.GROUP_SEPARATORS)) + r"]\d{3})+(?!\d)(?:[.,]\d+)?|\d+(?:[.,]\d+)?)"
_SCALE = (r"(?:\s?(" + "(?-i:" + "|".join(re.escape(k) for k in sorted(F.SCALES, key=len, reverse=True)) + ")"
          + r")(?![A-Za-z]))?")
# in a German or French text, a plain space may group thousands too: text extracted from a PDF shows
# the narrow no-break space of '101 253 tok/s' as a space
_NUM_SPACED = _NUM_TIGHT.replace("]\\d{3})+", " ]\\d{3})+", 1)
_BEFORE = r"(?<![\w.,\u00a0\u202f\u2009])"


def _figure_pattern(number: str) -> lazy_re.LazyPattern:
    """groups: 1 number, 2 its scale, 3 a range's second number, 4 its scale, 5 the unit"""
    rng = r"(?:" + _alt(F.RANGE_JOINERS) + number + _SCALE + r")?"
    return lazy_re.compile(_BEFORE + number + _SCALE + rng + r"\s*(" + _UNIT + ")", _I)


_FIGURE = _figure_pattern(_NUM_TIGHT)
_FIGURE_SPACED = _figure_pattern(_NUM_SPACED)
_LOAD_SETTING = lazy_re.compile(_alt(F.LOAD_SETTING_BEFORE) + r"\s*[:=]?\s*[~≈]?\s*$", _I)
_PER = lazy_re.compile(_alt(F.PER_JOINERS) + "(" + _alt(p for p, _, _ in F.PER_WHAT) + ")" + _NOT_LETTER, _I)
_PER_KIND = [(lazy_re.compile(p + "$", _I), name, derived) for p, name, derived in F.PER_WHAT]
_EDGE = lazy_re.compile(r",\s+((?:low|high)\s+edge)\s+of|\s*(=)(?=\s*±)", _I)
_BAND_OF = lazy_re.compile(r"\s+band\s+of\s+the\s+figure", _I)  # '9,124 tok/s = ±5.4% band of the figure [a]'

# derived cost figures: groups 1 number, 2 its scale, 3 the unit
_CURRENCY = _alt(F.CURRENCY_SYMBOLS)
_PER_MILLION = _alt(F.PER_MILLION_TOKENS)
_COSTS = (
    lazy_re.compile(r"(?<![\w$€£])" + r"(?:" + _CURRENCY + r"|(?-i:USD|EUR|GBP)\s?)\s?" + _NUM_TIGHT + _SCALE
                    + r"(\s*" + _PER_MILLION + ")" + _NOT_LETTER, _I),
    lazy_re.compile(_BEFORE + _NUM_TIGHT + _SCALE + r"(\s*(?:" + _CURRENCY + "|" + _alt(F.CURRENCY_WORDS) + r")\s*"
                    + _PER_MILLION + ")" + _NOT_LETTER, _I),
    lazy_re.compile(r"(?<![\w.,\u00a0\u202f\u2009$€£])" + _NUM_TIGHT + _SCALE + r"(\s*" + _ADJ
                    + F.TOKENS_PER_CURRENCY + ")" + _NOT_LETTER, _I),
)
_COST_QUALIFIER = ("cost per million tokens", "cost per million tokens", "tokens per dollar")  # one per _COSTS
# a price a provider charges per token count, not a figure (figure_forms.PRICE_WORDS, PRICED_TOKENS)
_PRICE = lazy_re.compile(r"(?<![A-Za-zÀ-ÿ])" + _alt(F.PRICE_WORDS) + _NOT_LETTER, _I)
_PRICED_TOKENS = lazy_re.compile(r"(?<![A-Za-zÀ-ÿ])" + _alt(F.PRICED_TOKENS) + r"\s*(?:tok|jeton)", _I)
# in a heading: 'input_usd_per_1m'
_PRICED_WORD = lazy_re.compile(r"(?<![A-Za-zÀ-ÿ])" + _alt(F.PRICED_TOKENS) + _NOT_LETTER, _I)

# a file name or a URL: the numbers in it are parts of a name (figure_forms.FILE_EXTENSIONS)
_WORD_CHAR = r"[^\s()\[\]<>,;|│┃]"
# A word that may name a file (_file_token decides): one with a file extension or a slash in it, or one
# that ends in a hyphen (a long name a line broke); other words ('5.4%', 'v5.1') are passed over by the
# regex engine, not in Python.
_NAME_TOKEN = lazy_re.compile(rf"(?<!{_WORD_CHAR})(?:{_WORD_CHAR}*?(?:(?i:\.(?:{'|'.join(F.FILE_EXTENSIONS)})(?!\w))|/)"
                              rf"{_WORD_CHAR}*|{_WORD_CHAR}*-(?!{_WORD_CHAR}))")
_EXTENSION = lazy_re.compile(r"\.(?:" + "|".join(F.FILE_EXTENSIONS) + r")(?![\w])", _I)
_OTHER_UNIT_WORD = lazy_re.compile(r"(?<![\w/$€£%])(?-i:" + _alt(F.OTHER_UNITS) + r")(?![\w/])|[$€£%]")

_BAND = lazy_re.compile(r"\s?(?:±\s?\d+(?:[.,]\d+)?\s?%|\(slack not estimable(?:: [^)]*)?\)|\([^()]{1,60}: no band\))")
MARK = r"[a-z]{1,6}"  # a, b, ..., z, aa, ..., zz, aaa, ...: wording.mark_name for up to 321 million notes
_MARKS = lazy_re.compile(r"\s?((?:\[" + MARK + r"\])+)")
_LABELS = lazy_re.compile(r"(?:\s(?:derived|unverified|own measurement,?))+")
_LABEL = lazy_re.compile(r"derived|unverified|own measurement")
_COMMA_DECIMAL = lazy_re.compile(_alt(h.lower() for h in F.COMMA_DECIMAL_HINTS))  # on the lowered text: faster

# headings and labels
_THROUGHPUT_WORD = _alt(F.THROUGHPUT_WORDS)
_HEADER_COST = (r"(?:" + _CURRENCY + "|USD|EUR|GBP|" + "|".join(F.COST_WORDS) + r")\s*(?:/|per|pro|par|\()\s*"
                r"(?:1\s?)?(?:M|million|Mio\.?)\s*(?:(?:output|input|generated)\s+)?tok(?:en)?s?" + _NOT_LETTER
                + "|" + F.TOKENS_PER_CURRENCY + _NOT_LETTER)
THROUGHPUT_HEADER = lazy_re.compile(_UNIT + "|" + _THROUGHPUT_WORD + "|" + _HEADER_COST, _I)
_HEADER_UNIT = lazy_re.compile(r"(?<![A-Za-z])" + _UNIT + "(?:" + _PER.pattern + ")?", _I)
_HEADER_COST_UNIT = lazy_re.compile(_HEADER_COST, _I)
_NOT_A_FIGURE_HEADER = lazy_re.compile("|".join(F.NOT_A_THROUGHPUT_HEADING), _I)
_OTHER_UNIT = lazy_re.compile(r"[(\[/,:]|\bin\b", _I)  # 'Throughput (GB/s)', 'Throughput, Mbps', 'throughput in MB'
_PER_SECOND_ONLY = lazy_re.compile(r"\(\s*(?:per\s+s(?:ec(?:ond)?)?|/\s?s(?:ec(?:ond)?)?)\s*\)\s*$", _I)
_SNAKE = lazy_re.compile(r"^[\"'`*]*[A-Za-z][A-Za-z0-9]*(?:[_.][A-Za-z0-9]+)+[\"'`*]*$")
_SNAKE_UNIT = lazy_re.compile(r"\b(tok(?:en)?s?|samples?|req(?:uest)?s?|quer(?:y|ies))\s(s|sec|second)\b", _I)
_CELL_NUMBER = lazy_re.compile(r"\s*[~≈]?\s*" + _NUM_TIGHT + _SCALE)
_CELL_PRICE = lazy_re.compile(r"\s*[~≈]?\s*(?:[$€£]\s?)?" + _NUM_TIGHT + _SCALE)  # '$0.12' under 'Cost per 1M tokens'
_CELL_SPACED = lazy_re.compile(r"\s*[~≈]?\s*" + _NUM_SPACED + _SCALE)
_CELL_REST = lazy_re.compile(r"[A-Za-z0-9%/:-]")
HEADER_MAX_CHARS = 100

# text laid out as labels and tables
_CELL_SPLIT = lazy_re.compile(r"[ \t]*(?:[│┃|\t]|[:=](?=\s|$)|(?<!\d)[:=](?=\d|\")|(?<=[^\d\s,])[,;](?=\s*\d)|"
                              r",\s*(?=[\"'])|(?<=\S)\s{2,}(?=\S)|\s[-–—]\s)[ \t]*")
_TABLE_SPLIT = lazy_re.compile(r"[ \t]*[│┃|\t][ \t]*|(?<=\S)\s{2,}(?=\S)")
_STATISTIC = lazy_re.compile(r"[\s\-*•·]*" + _alt(F.STATISTIC_LABELS) + r"\s*$", _I)
_SENTENCE_END = lazy_re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[A-Z\"'(\[•\-])|\n\s*\n|\n(?=\s*[-*•·]\s)")
_BARE_UNIT = lazy_re.compile(r"(?<![\w])" + _UNIT, _I)
_CONTEXT_NUMBER = lazy_re.compile(r"(?<![\w.,'\u00a0\u202f\u2009\"“‘«$€£#±/:\-])[~≈]?" + _NUM_TIGHT + _SCALE
                                  + r"(?![\w%‰×\-/:])")
_YEAR = lazy_re.compile(r"(?:19[5-9]\d|20\d\d)$")
_WORD = lazy_re.compile(r"[A-Za-zÀ-ÿ][\w\-.]*|[±$€£%#×]")
_FOLLOWS = frozenset(w.lower() for w in F.FOLLOWS_A_FIGURE)
_OTHER_BEFORE = frozenset(w.lower() for w in F.OTHER_QUANTITY_BEFORE)

# Every figure above has one of these words: substring tests at C speed on the lowered text, so that
# most texts (names, numbers, notes) stop here. (key, must not follow a letter, what may follow it:
# None for anything, else a letter must not follow unless it starts one of these)
_QUICK_KEYS = (
    ("/s", False, ("ec", "ek")), ("/ s", False, ("ec", "ek")), (" per s", False, ("ec",)), (" pro s", False, ("ek",)),
    (" par s", False, ("ec",)), (" por s", False, ("eg",)), (" a second", False, None), ("-per-s", False, ("ec",)),
    (" each second", False, None), (" every second", False, None), (" je sek", False, None), ("qps", True, ()),
    ("tps", True, ()), ("rps", True, ()), ("q/s", True, ()), ("_s", False, ("ec",)), ("$", False, None),
    ("€", False, None), ("£", False, None), ("usd", True, ()), ("eur", True, ("o",)), ("gbp", True, ()),
    ("dollar", True, None), ("cent", True, ("s",)), ("million tok", False, None), ("1m tok", False, None),
    ("/m tok", False, None), ("/1m", False, None), ("m tok", True, None), ("mio. tok", False, None),
) + tuple((w.lower(), False, None) for w in F.THROUGHPUT_WORDS)
_COST_KEYS = frozenset(("$", "€", "£", "usd", "eur", "gbp", "dollar", "cent"))
_LOAD_WORD = lazy_re.compile("|".join(w for word in F.LOAD_SETTING_WORDS for w in (word, word.capitalize())))


def _key_finder(keys) -> tuple[re.Pattern, dict]:
    # a literal alternation on the lowered text: the engine skips positions by their first character
    return (re.compile("|".join(re.escape(k) for k, _, _ in sorted(keys, key=lambda k: -len(k[0])))),
            {k: (word_start, then) for k, word_start, then in keys})


def _quick(text: str, finder=None) -> bool:
    rx, rules = finder or _QUICK_FINDER
    low = text.lower()
    if rx.search(low) is None:
        return False
    for m in rx.finditer(low):
        word_start, then = rules[m.group(0)]
        i, j = m.start(), m.end()
        if ((not word_start or i == 0 or not low[i - 1].isalpha()) and
                (then is None or j >= len(low) or not low[j].isalpha() or low.startswith(then, j))):
            return True
    return False


_QUICK_FINDER = _key_finder(_QUICK_KEYS)
_COST_FINDER = _key_finder([k for k in _QUICK_KEYS if k[0] in _COST_KEYS])


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
    qualifier: str = ""  # "per accelerator", "low edge", "cost per million tokens": what the number is of
    context: str = ""  # why a number without a unit of its own is a figure ("under the label '...'")

    @property
    def band_edge(self) -> bool:
        """A quantity of the band, not a figure: a band edge, or a band's half-width (a chart's error
        bar: '9,124 tok/s = ±5.4% band of the figure [a]')."""
        return self.qualifier.endswith("edge") or self.qualifier == "band"

    @property
    def derived(self) -> bool:
        """Computed from a measured figure (per accelerator, per dollar, a cost): it must say so."""
        return self.qualifier in _DERIVED

    @property
    def bound(self) -> bool:
        """Carries a band (or the words for none) and at least one mark."""
        return bool(self.band and self.marks)


_DERIVED = frozenset([name for _, name, derived in F.PER_WHAT if derived] + list(_COST_QUALIFIER))


# -- numbers -----------------------------------------------------------------------------------------

def comma_decimal(text: str) -> bool:
    """Does the text write numbers the German or French way ('45,3', '101.527 Token/s')?"""
    if "," in text and _COMMA_NUMBER.search(text):
        return True
    return _COMMA_DECIMAL.search(text.lower()) is not None


_COMMA_NUMBER = lazy_re.compile(r"\d\.\d{3},\d|(?<![\d,.])\d+,\d{1,2}(?![\d,])")


def number_value(raw: str, scale: str | None = None, comma_is_decimal: bool = False) -> float:
    """A number as written ('101,527', '101.527', '1 234,5', "1'234.5", '45,3') as a float;
    ``comma_is_decimal`` decides the ambiguous forms ('1,234' and '101.527') for German and French texts."""
    exp = _EXPONENT.get(scale or "", "")
    if raw.isdigit():
        return float(raw + exp)
    s = raw
    if not raw.isascii() or "'" in raw or " " in raw:
        for ch in "'\u00a0\u202f\u2009 ":
            s = s.replace(ch, "")
    commas, dots = s.count(","), s.count(".")
    if commas and dots:
        decimal = "," if s.rfind(",") > s.rfind(".") else "."
    elif commas:
        decimal = "," if commas == 1 and (comma_is_decimal or len(s) - s.rfind(",") - 1 != 3) else ""
    elif dots:
        decimal = "." if dots == 1 and not (comma_is_decimal and len(s) - s.rfind(".") - 1 == 3) else ""
    else:
        decimal = ""
    group = {",": ".", ".": ","}.get(decimal, ",.") if decimal else ",."
    for ch in group:
        s = s.replace(ch, "")
    if decimal == ",":
        s = s.replace(",", ".")
    try:
        return float(s + exp)  # '8.3e6', not 8.3 * 1e6 = 8300000.000000001
    except ValueError:
        return float("nan")


_EXPONENT = {k: f"e{len(str(int(v))) - 1}" for k, v in F.SCALES.items()}


# -- figures -----------------------------------------------------------------------------------------

def find_figures(text: str) -> list[Detected]:
    """Every throughput figure quoted in ``text``, with the binding that follows it, in text order."""
    if not _quick(text):
        return []
    original, text = text, _without_file_names(text)
    decimal = comma_decimal(text)
    costs, prices = _costs(text, decimal)
    found = _merge([], _explicit(text, decimal) + costs)
    rest = _masked(text, found + prices)  # the labels and headings a figure of its own leaves: its unit is its own
    if _LAYOUT_HINT.search(rest) and _quick(rest):
        found = _merge(found, _labelled(rest, decimal))
        if "\n" in rest:
            found = _merge(found, _text_tables(rest, decimal))
            found = _merge(found, _headed_blocks(rest, decimal))
    found = [d if d.text == text[d.start:d.end] else _retext(d, text) for d in found]
    if _has_loose_digits(text, found):
        found = _merge(found, _in_sentences(text, decimal, found, prices))
    if text is not original:
        found = [_retext(d, original) for d in found]
    return found


def _without_file_names(text: str) -> str:
    """The text with each file name, path and URL blanked out (same length): 'openai-4.0qps-...-094331.json'
    names a run, and its numbers are no figures. Read word by word (linear in the text)."""
    spans = [m.span() for m in _NAME_TOKEN.finditer(text) if _file_token(m.group(0), text, m.end())]
    if not spans:
        return text
    out, last = [], 0
    for a, b in spans:
        out += [text[last:a], " " * (b - a)]
        last = b
    return "".join(out) + text[last:]


def _file_token(t: str, text: str = "", end: int = -1) -> bool:
    """Is one word a file name or a path: a name with its extension, a URL, a path of snake_case
    folders ('poisson4_isl550_osl250/...'), or a long name that a line broke at a hyphen, as a PDF
    wraps a source note ('openai-4.0qps-mock-llm-20261201-' then '094331.json')?"""
    if len(t) < 6:
        return False
    if "." in t and _EXTENSION.search(t):
        return True
    if t.startswith(("http://", "https://")):
        return True
    if "/" in t and "_" in t and any(ch.isdigit() for ch in t):
        return True
    return (t.endswith("-") and t.count("-") >= 3 and any(ch.isdigit() for ch in t)
            and (end < 0 or end == len(text) or text[end] == "\n"))


def names_a_price(text: str) -> bool:
    """Does a text (a sentence, a column heading, a slide title) say that the money amounts per token
    count it holds or heads are prices a provider charges ('API pricing', 'Input price', 'list price')?"""
    return bool(text) and _PRICE.search(text) is not None


def is_price(d: Detected, about: str = "") -> bool:
    """Is a cost per token count a price, not a figure: it carries no binding of its own, and its
    unit counts tokens that providers price (input, cached) or ``about`` names a price."""
    return (d.qualifier == _COST_QUALIFIER[0] and not (d.band or d.marks or d.labels)
            and (_PRICED_TOKENS.search(d.unit) is not None or names_a_price(about)))


def without_prices(found: list[Detected], about: str) -> list[Detected]:
    """``found`` without the prices that ``about`` (what the text is under: its column heading, the
    title over it) says they are."""
    if not found or not names_a_price(about):
        return found
    return [d for d in found if not is_price(d, about)]


def other_quantity(text: str) -> bool:
    """Does a caption name the unit of another quantity ('GB HBM3e', 'GPUs', 'ms p99')?"""
    return not header_unit(" ".join(text.split())) and _OTHER_UNIT_WORD.search(text) is not None


def _masked(text: str, found: list[Detected]) -> str:
    """The text with each figure found blanked out (same length, so positions hold)."""
    if not found:
        return text
    out, last = [], 0
    for d in found:
        out += [text[last:d.start], " " * (d.end - d.start)]
        last = d.end
    return "".join(out) + text[last:]


def _retext(d: Detected, text: str) -> Detected:
    return Detected(d.start, d.end, text[d.start:d.end], d.value, d.unit, d.band, d.marks, d.labels, d.qualifier,
                    d.context)


_LAYOUT_HINT = lazy_re.compile(r"[\n:=│┃|\t]|  ")


def _has_loose_digits(text: str, found: list[Detected]) -> bool:
    """Is there a digit outside the figures found (a number the sentence rule might take)?"""
    last = 0
    for d in found:
        if any(ch.isdigit() for ch in text[last:d.start]):
            return True
        last = d.end
    return any(ch.isdigit() for ch in text[last:])


@functools.lru_cache(maxsize=65536)
def reads_like_a_figure(text: str) -> bool:
    return bool(find_figures(text))


def _merge(kept: list[Detected], new: list[Detected]) -> list[Detected]:
    """``kept`` with each of ``new`` that overlaps none of them, in text order."""
    if not new:
        return kept
    if not kept and len(new) == 1:
        return new
    out = list(kept)
    for d in sorted(new, key=lambda d: (d.start, -d.end)):
        if not any(d.start < k.end and k.start < d.end for k in out):
            out.append(d)
    return sorted(out, key=lambda d: d.start)


def _unit_matches(text: str, rx: re.Pattern):
    """``rx``'s matches (a number, then a unit), tried only where a unit ends ('/s', ' per s', 'TPS'):
    a page holds hundreds of numbers and a few units, and trying the pattern at every number is slow."""
    last = 0
    for a in _UNIT_ENDING.finditer(text.lower()):
        if a.start() < last:
            continue
        start = max(last, a.start() - 80)
        while start > last and not text[start - 1].isspace():  # from a word's start: the pattern's look-behind
            start -= 1                                           # does not see before where it starts
        for m in rx.finditer(text, start, min(len(text), a.end() + 16)):
            if m.start(5) <= a.start() < m.end(5):
                yield m
                last = m.end()
                break


def _explicit(text: str, decimal: bool) -> list[Detected]:
    found = []
    for m in _unit_matches(text, _FIGURE_SPACED if decimal else _FIGURE):
        if _load_setting(text, m.start()):
            continue
        unit = m.group(5)
        if m.group(3):  # a range: each end is a figure, and the binding after the second binds both
            second = _bound(text, m.start(3), number_value(m.group(3), m.group(4), decimal), unit, m.end())
            first_end = m.end(2) if m.group(2) else m.end(1)
            first = Detected(m.start(1), first_end, text[m.start(1):first_end],
                             number_value(m.group(1), m.group(2), decimal), unit, second.band, second.marks,
                             second.labels, second.qualifier)
            found += [first, second]
        else:
            found.append(_bound(text, m.start(), number_value(m.group(1), m.group(2), decimal), unit, m.end()))
    return found


def _load_setting(text: str, at: int) -> bool:
    """Does the text right before ``at`` make the number there a load setting ('target 45.2 QPS')?"""
    before = text[max(0, at - 60):at]
    return _LOAD_WORD.search(before) is not None and _LOAD_SETTING.search(before) is not None


def _costs(text: str, decimal: bool) -> tuple[list[Detected], list[Detected]]:
    """(derived cost figures, prices): a cost per token count whose sentence names a price is a price."""
    found: list[Detected] = []
    prices: list[Detected] = []
    if not _quick(text, _COST_FINDER):
        return found, prices
    for kind, rx in enumerate(_COSTS):
        for m in rx.finditer(text):
            d = _bound(text, m.start(), number_value(m.group(1), m.group(2), decimal), m.group(3).strip(), m.end(),
                       qualifier=_COST_QUALIFIER[kind])
            (prices if is_price(d, _sentence_at(text, d.start, d.end)) else found).append(d)
    return found, prices


def _sentence_at(text: str, start: int, end: int) -> str:
    """The sentence (within its line) that holds text[start:end]."""
    lo = text.rfind("\n", 0, start) + 1
    hi = text.find("\n", end)
    hi = len(text) if hi < 0 else hi
    for m in _SENTENCE_END.finditer(text, lo, start):
        lo = m.end()
    m = _SENTENCE_END.search(text, end, hi)
    return text[lo:m.start() if m else hi]


def _bound(text: str, start: int, value: float, unit: str, end: int, qualifier: str = "",
           context: str = "") -> Detected:
    """The figure from ``start`` with its value and unit, and the binding that follows ``end``."""
    if not qualifier:
        p = _PER.match(text, end)
        if p:
            qualifier, end = _per_kind(p.group(1)), p.end()
    e = _EDGE.match(text, end)
    if e:
        edge = e.group(1)
        qualifier = " ".join(edge.lower().split()) if edge else "band"
        end = e.end()
    band, marks, labels = "", (), ()
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
    return Detected(start, end, text[start:end], value, unit, band, marks, labels, qualifier, context)


def _per_kind(word: str) -> str:
    for rx, name, _derived in _PER_KIND:
        if rx.match(word):
            return name
    return "per " + word.lower()


def unit_qualifier(unit: str) -> str:
    """What a figure in ``unit`` is of, from the unit alone ('tok/s/GPU' -> 'per accelerator',
    '$/M tokens' -> 'cost per million tokens'); '' for a plain throughput unit."""
    m = _UNIT_THEN_PER.search(unit)
    if m:
        return _per_kind(m.group(1))
    if _HEADER_COST_UNIT.search(unit):
        return "tokens per dollar" if re.search(F.TOKENS_PER_CURRENCY, unit, _I) else "cost per million tokens"
    return ""


_UNIT_THEN_PER = lazy_re.compile(_UNIT + _PER.pattern, _I)


# -- headings, labels and columns --------------------------------------------------------------------

def _heading_words(header: str) -> str:
    """A heading as words: snake_case and dotted keys as pandas and load tools write them
    ('output_tokens_per_second', 'tok_per_s', 'throughput_tok_s') read as 'output tokens per second'."""
    h = header.strip().strip("\"'`*#{[").strip()
    if "_" in h and _SNAKE.match(h):
        h = re.sub(r"[_.]+", " ", h)
        h = _SNAKE_UNIT.sub(r"\1/\2", h)
    return h


@functools.lru_cache(maxsize=65536)
def header_unit(header: str) -> str | None:
    """The throughput unit a table or sheet column header names ("Throughput (tok/s)" -> "tok/s",
    "Throughput" -> "throughput", "output_tokens_per_second" -> "tokens per second", "Cost ($/M
    tokens)" -> "$/M tokens"), or None when the header does not name one. Headers of load settings,
    latencies and shapes ("Target QPS", "p99 TTFT", "Tokens/sample") are not throughput columns; nor
    is a long text (a title, not a header), or one that quotes a figure itself."""
    if len(header) > 2 * HEADER_MAX_CHARS or not _quick(header) and "_" not in header:
        return None
    header = _heading_words(header)
    if not header or len(header) > HEADER_MAX_CHARS or not THROUGHPUT_HEADER.search(header):
        return None
    if _names_a_file(header):
        return None  # a file name or a path broken over lines ('.../openai-4.0qps-mock-llm-20261201-')
    cost = _HEADER_COST_UNIT.search(header)
    if cost:
        if unit_qualifier(cost.group(0)) == _COST_QUALIFIER[0] and (names_a_price(header) or
                                                                   _PRICED_WORD.search(header)):
            return None  # a price list's column ('Input price ($/1M tokens)'): prices, not figures
        return cost.group(0)
    if _NOT_A_FIGURE_HEADER.search(header) or _FIGURE.search(header) or _CELL_NUMBER.fullmatch(header):
        return None
    unit = _HEADER_UNIT.search(header)
    if unit:
        return unit.group(0)
    # "Throughput" alone names a throughput column, so does "Request Throughput (per sec)"; "Throughput
    # (GB/s)" or "Throughput, Mbps" name another unit
    if _PER_SECOND_ONLY.search(header):
        return "throughput"
    return None if _OTHER_UNIT.search(header) else "throughput"


def _names_a_file(text: str) -> bool:
    """One word that is a file name or a path, whole or broken at a hyphen where a line wrapped."""
    t = text.strip().strip("\"'`")
    if not t or any(ch.isspace() for ch in t):
        return False
    return _file_token(t) or (("/" in t or "\\" in t) and "_" in t) or (t.endswith("-") and any(ch.isdigit() for ch in t))


def column_figure(text: str, unit: str, context: str = "") -> Detected | None:
    """A cell of a column whose header names ``unit``: a number at the start of the cell, with the
    binding that follows it ("101,527 ±5.4% [a]"), is a figure in that unit. None when the cell
    holds no such number, or quotes a figure of its own (find_figures reads those)."""
    qualifier = unit_qualifier(unit)
    m = (_CELL_PRICE if qualifier.startswith("cost") else _CELL_NUMBER).match(text)
    if not m or _FIGURE.search(text):
        return None
    if text[m.end():m.end() + 4][:1] == " " and text[m.end() + 1:m.end() + 2].isdigit():
        m = _CELL_SPACED.match(text) or m  # '101 527,3': thousands grouped by a space (a French CSV)
    start = m.start(1)
    lead = text[m.start():start].rstrip()
    if lead[-1:] in ("$", "€", "£"):  # the price's currency is part of what it reads
        start = m.start() + len(lead) - 1
    # a German heading reads its column German: '93,5' and '1.234,5' under 'Durchsatz (Token/s)'
    decimal = comma_decimal(text) or comma_decimal(unit)
    d = _bound(text, start, number_value(m.group(1), m.group(2), decimal), unit, m.end(),
               qualifier=qualifier, context=context or f"a number under a {unit!r} heading")
    rest = text[d.end:].strip()
    if rest and not rest.startswith(("(", "*", "†", "‡")) and _CELL_REST.match(rest):
        return None  # "12 nodes", "5.1-0042", "2025-09-09", "45%": not a bare number in the column
    return d


def caption_unit(text: str) -> str:
    """The unit a caption names for the table under it ('Llama 2 70B results (tokens/s):', '##
    Throughput (tok/s)'), or ''."""
    text = text.strip().strip("#*_ ").rstrip(":").strip("*_ ")
    return (header_unit(text) or "") if text else ""


def takes_caption_unit(header: str) -> bool:
    """Does a column under a caption that names a unit hold figures in it? A column of its own unit,
    or of another quantity ('GPUs', 'p99 TTFT (ms)', 'Tokens/sample'), does not; 'Offline', 'B200' do."""
    h = _heading_words(header)
    return bool(h) and not header_unit(h) and not _NOT_A_FIGURE_HEADER.search(h) and not _OTHER_UNIT.search(h) \
        and not any(w in _OTHER_BEFORE for w in _words(h))


def row_units(cells: list[str]) -> list[str]:
    """The unit each cell of a table row takes from a label to its left ('Output Token Throughput
    (tokens/sec)' | 761.31 | 0.00): a text cell that names a throughput gives its unit to the number
    cells right after it, up to the next text cell; '' for every other cell."""
    labels = [t and not t[:1].isdigit() and _quick(t) and header_unit(t.strip()) or "" for t in cells]
    if not any(labels):
        return [""] * len(cells)
    out, unit = [], ""
    for text, label in zip(cells, labels):
        t = text.strip()
        if not t:
            out.append("")
            continue
        if unit and _CELL_NUMBER.match(t) and column_figure(t, "throughput") is not None:
            out.append(unit)
            continue
        unit = label
        out.append("")
    return out


def tile_number(text: str) -> bool:
    """Does a shape hold only a number, with or without its binding ('101,527', '~101.5k', '101,527
    ±5.4% [a]'): the number of a headline tile whose unit stands in a caption beside it?"""
    text = " ".join(text.split())
    d = column_figure(text, "throughput")
    return d is not None and not text[d.end:].strip()


def _cells(line: str, splitter: re.Pattern) -> list[tuple[int, int, str]]:
    """(start, end, text) of each non-empty cell of a line split at ``splitter``."""
    out, last = [], 0
    for m in splitter.finditer(line):
        if m.start() > last and line[last:m.start()].strip():
            out.append((last, m.start(), line[last:m.start()]))
        last = max(last, m.end())
    if line[last:].strip():
        out.append((last, len(line), line[last:]))
    return [(s + len(t) - len(t.lstrip()), e - (len(t) - len(t.rstrip())), t.strip()) for s, e, t in out]


def _cell_figure(text: str, offset: int, cell: tuple[int, int, str], unit: str, context: str,
                 decimal: bool) -> Detected | None:
    start, end, raw = cell
    if raw[:1] in "\"'“‘«":
        return None  # a quoted number is a string
    d = column_figure(raw.rstrip(",;"), unit, context)
    if d is None:
        return None
    value = d.value if not decimal else number_value(_CELL_NUMBER.match(raw).group(1),
                                                     _CELL_NUMBER.match(raw).group(2), True)
    at = offset + start
    return Detected(at + d.start, at + d.end, d.text, value, d.unit, d.band, d.marks, d.labels, d.qualifier,
                    d.context)


def _lines(text: str):
    at = 0
    for line in text.split("\n"):
        yield at, line
        at += len(line) + 1


def _labelled(text: str, decimal: bool) -> list[Detected]:
    """'Output token throughput (tok/s):   1764.14', '│ Request Throughput (requests/sec) │ 3.05 │':
    the numbers right after a label that names a throughput are figures in its unit."""
    found = []
    for at, line in _lines(text):
        if not _quick(line):
            continue
        cells = _cells(line, _CELL_SPLIT)
        for i, (_s, _e, label) in enumerate(cells):
            if not re.search(r"[A-Za-z]", label):
                continue
            unit = header_unit(label)
            if not unit:
                continue
            context = f"a number after the label {label.strip(chr(34)) !r}"
            for cell in cells[i + 1:]:
                d = _cell_figure(text, at, cell, unit, context, decimal)
                if d is None:
                    break
                found.append(d)
    return found


def _table_cells(line: str) -> tuple[list[tuple[int, int, str]], bool]:
    """A text table's cells: split at pipes, box-drawing bars or tabs, empty cells kept so that a
    cell's position names its column (the border's empty ends dropped); else at runs of spaces."""
    if not any(ch in line for ch in F.TEXT_TABLE_SEPARATORS):
        return _cells(line, _TABLE_SPLIT), False
    cells, last = [], 0
    for m in _PIPE.finditer(line + "|"):
        raw = line[last:m.start()]
        lead = len(raw) - len(raw.lstrip())
        cells.append((last + lead, last + len(raw.rstrip()), raw.strip()))
        last = m.end()
    if cells and not cells[0][2] and line.lstrip()[:1] in F.TEXT_TABLE_SEPARATORS:
        cells = cells[1:]
    if cells and not cells[-1][2]:
        cells = cells[:-1]
    return cells, True


_PIPE = lazy_re.compile("[" + re.escape(F.TEXT_TABLE_SEPARATORS) + "]")
_RULE_LINE = set("-=+|:│┃┡┩╇━─┏┓┗┛┳┻╋┼├┤┌┐└┘┬┴╭╮╰╯ \t")


def _heading_cell(text: str) -> bool:
    """A heading cell starts with a word or a parenthesis it closes ('Throughput (tok/s)', '(tok/s)'),
    not with the end or the start of a wrapped cell ('/ samples/s)', '(derived: tokens/s')."""
    return bool(_HEADING_START.match(text)) and text.count("(") == text.count(")")


_HEADING_START = lazy_re.compile(r"[\"'*`(]?[A-Za-zÀ-ÿ_]")


def _text_tables(text: str, decimal: bool) -> list[Detected]:
    """A table typed or pasted as text (pipes, box drawing, tabs, columns aligned with spaces): the
    numbers under a heading cell that names a throughput are figures in its unit. A cell belongs to
    the heading of the same position in a pipe table, else to the heading its characters overlap most."""
    found = []
    header: list[tuple[int, int, str]] | None = None
    rows = 0  # rows of numbers under the heading so far
    for at, line in _lines(text):
        if header is None and not _quick(line):
            continue  # no table heading here, and no table under way
        if not line.strip():
            header = None
            continue
        if set(line) <= _RULE_LINE:
            rows = 0  # a rule under a heading, or a new table's
            continue
        cells, piped = _table_cells(line)
        filled = [c for c in cells if c[2]]
        if len(filled) < 2:
            if any(_CELL_NUMBER.match(c[2]) for c in filled):
                header = None  # one number alone on a line ends a table; one word may continue a cell
            continue
        if not any(_CELL_NUMBER.match(c[2]) for c in filled):
            if header is not None and rows:
                continue  # words between rows: the wrapped cells of the row above, not a new heading
            units = [(s, e, header_unit(t) or "" if _heading_cell(t) else "") for s, e, t in cells]
            header = units if any(u for _, _, u in units) else None
            rows = 0
            continue
        rows += 1
        if header is None:
            continue
        for n, cell in enumerate(cells):
            if not cell[2]:
                continue
            unit = _column_of(header, cell, n if piped and len(cells) == len(header) else None)
            if unit:
                d = _cell_figure(text, at, cell, unit, f"a number under a {unit!r} heading", decimal)
                if d is not None:
                    found.append(d)
    return found


def table_figures(text: str) -> list[Detected]:
    """The figures of a text laid out as a table by position (a PDF page extracted with its layout):
    numbers under a heading that names a throughput."""
    if not THROUGHPUT_HEADER.search(text):
        return []
    text = _without_file_names(text)
    return _text_tables(text, comma_decimal(text))


def may_hold_columns(text: str) -> bool:
    """Might a page's text hold a table whose heading names a throughput over bare numbers? (a
    throughput word or unit that no number stands right before)"""
    if not _quick(text):
        return False
    low = text.lower()
    if any(w in low for w in _THROUGHPUT_WORDS) or _HEADER_COST_LOW.search(low):
        return True
    for a in _UNIT_ENDING.finditer(low):
        m = _BARE_UNIT.search(text, max(0, a.start() - 40), a.end() + 12)
        if m and not _NUMBER_BEFORE.search(text, max(0, m.start() - 24), m.start()):
            return True
    return False


_THROUGHPUT_WORDS = tuple(w.lower() for w in F.THROUGHPUT_WORDS)
_HEADER_COST_LOW = lazy_re.compile("(?:" + "|".join(w.lower() for w in F.COST_WORDS) + r")\s*(?:/|per|pro|par)"
                                   r"|tokens?\s*(?:/|per|pro|par)\s*[$€£de]")


_NUMBER_BEFORE = lazy_re.compile(r"\d(?:[kKM]|\s?(?:Mio\.|million|thousand))?\s*(?:[-–—]\s*)?$")


def _column_of(header: list[tuple[int, int, str]], cell: tuple, index: int | None) -> str:
    """The unit of the heading a cell stands under: by position in a pipe table, else by overlap."""
    if index is not None:
        return header[index][2]
    return column_by_overlap([(s, e) for s, e, _ in header], (cell[0], cell[1]), [u for _, _, u in header])


def column_by_overlap(spans: list[tuple[float, float]], span: tuple[float, float], names: list[str]) -> str:
    """The name of the heading span a cell's span overlaps most ('' when it overlaps none): the
    column of a cell in a table laid out by position (text columns, a PDF page)."""
    best, best_overlap = "", 0.0
    for (s, e), name in zip(spans, names):
        overlap = min(e, span[1]) - max(s, span[0])
        if overlap > best_overlap:
            best, best_overlap = name, overlap
    return best


def _headed_blocks(text: str, decimal: bool) -> list[Detected]:
    """A heading line that names a throughput, then lines of one value each: 'Offline throughput
    (samples/s):' then '• H200: 118.5'; 'request_output_throughput_token_per_s' then 'p50 = 97.2'."""
    found = []
    unit, context, values = None, "", 0
    for at, line in _lines(text):
        stripped = line.strip()
        if not stripped:
            if values:  # a blank line ends the block (one may stand between the heading and its values)
                unit = None
            continue
        heading = stripped.strip("#*_ ").rstrip(":").strip("*_ ")
        if re.search(r"[A-Za-z]", heading) and not re.search(r"\d", heading.replace("_per_", "")):
            u = header_unit(heading)
            if u:
                unit, context, values = u, f"a number under the heading {heading!r}", 0
                continue
        if unit is None:
            continue
        m = _VALUE_LINE.match(line)
        d = None
        label = m.group("label") if m else ""
        if (m and not _ROW_NUMBER.search(label.replace("'s", "")) and not re.fullmatch(r"\d", m.group("value"))
                and (_STATISTIC.match(label) or not any(w in _OTHER_BEFORE for w in _words(label)[-1:]))):
            d = _cell_figure(text, at, (m.start("value"), m.end("value"), m.group("value")), unit, context, decimal)
        if d is None:
            unit = None
            continue
        found.append(d)
        values += 1
    return found


# one value on a line: '• H200: 118.5', 'p50 = 97.2', 'B200   101,527', 'H100 84.2 ±5% [a]'
_VALUE_LINE = lazy_re.compile(r"^\s*(?:[-*•·]\s+)?(?P<label>[A-Za-z][^\n]{0,60}?)(?:\s*[:=]\s*|\s+)"
                              r"(?P<value>[~≈]?\d[^\s]*"
                              r"(?:\s(?:±\s?[\d.,]+\s?%|\[[a-z]{1,6}\]|derived|unverified))*)\s*$")


def _in_sentences(text: str, decimal: bool, found: list[Detected], prices: list[Detected] = ()) -> list[Detected]:
    """A unit stated once for several numbers: in a sentence that names a throughput unit (a figure's,
    or a bare '(samples/second)'), and in the sentence after it, a number that stands alone (not
    followed by a word of its own such as 'GPUs' or 'ms', not after words that name another
    quantity such as 'TTFT' or 'Llama', not in a row of numbers) is a figure in that unit."""
    taken = _Spans(sorted(list(found) + list(prices), key=lambda d: d.start))
    candidates = [m for m in _CONTEXT_NUMBER.finditer(text) if not taken.holds(m.start(1))]
    if not candidates:
        return []
    bounds = [0] + [m.end() for m in _SENTENCE_END.finditer(text)] + [len(text)]
    # (start, end, unit, qualifier, sentences the unit reaches: its own and the next, or its own only)
    mentions = [(d.start, d.end, d.unit, d.qualifier, 2) for d in found if not d.context and not d.band_edge]
    mentions += [(a, b, u, q, 2) for a, b, u, q in _bare_units(text, taken)]
    mentions += _throughput_subjects(text, taken, bounds)
    if not mentions:
        return []
    starts = [m.start() for m in candidates]
    out: list[Detected] = []
    done: set[int] = set()
    for start, end, unit, qualifier, reach in sorted(mentions):
        i = max(bisect.bisect_right(bounds, start) - 1, 0)
        # the sentence and the next, but no further than two lines from the mention: text extracted
        # from a page runs on without full stops through titles and tables
        lo = _line_start(text, start, F.SENTENCE_LINES_BEFORE, bounds[i])
        hi = bounds[min(i + reach, len(bounds) - 1)]
        hi = _line_end(text, end, F.SENTENCE_LINES_AFTER, max(hi, end))
        if reach == 1:  # a sentence's subject: the numbers after it, on its line
            lo, hi = end, _line_end(text, end, 0, hi)
        for m in candidates[bisect.bisect_left(starts, lo):bisect.bisect_left(starts, hi)]:
            s = m.start(1)
            if m.end() > hi or s in done:
                continue
            if end <= m.start() and not re.search(r"[A-Za-zÀ-ÿ]", text[end:m.start()]):
                continue  # 'Offline (tokens/s) 38': a heading and a page number, not a sentence
            if not _stands_alone(text, m, end if end <= m.start() else 0) or _states_a_band(text, bounds, m.start()):
                continue
            d = _bound(text, s, number_value(m.group(1), m.group(2), decimal), unit, m.end(), qualifier,
                       context=f"a number in a sentence that states the unit {unit.strip()!r}")
            if d.band_edge:
                continue  # an edge or a band, not a figure
            out.append(d)
            done.add(s)
    return out


_SUBJECT = lazy_re.compile(r"(?<![\w\"'`])" + _THROUGHPUT_WORD + r"(?:\s*\([^()\d]{1,30}\))?(?![\w\"'`])", _I)
SUBJECT_WORDS = 6  # a throughput word this far into its sentence is what the sentence is about


def _throughput_subjects(text: str, taken: "_Spans", bounds: list[int]) -> list[tuple[int, int, str, str, int]]:
    """A sentence about a throughput states its unit by its subject ('Offline throughput on the H200
    node reached 118.5, against 84.2 on H100'): the word near the sentence's start, in a phrase that
    names no other unit ('Network throughput', 'Throughput (GB/s)'), gives its numbers the unit."""
    low = text.lower()
    if not any(w in low for w in _THROUGHPUT_WORDS):
        return []
    out = []
    for m in _SUBJECT.finditer(text):
        if taken.holds(m.start()):
            continue
        i = max(bisect.bisect_right(bounds, m.start()) - 1, 0)
        lo = max(bounds[i], m.start() - 160)  # SUBJECT_WORDS words at most: a bounded look back
        nl = text.rfind("\n", lo, m.start())
        lo = nl + 1 if nl >= 0 else lo
        lead = text[lo:m.end()]
        clause = re.split(r"[,;(]", text[lo:m.start()])[-1]
        phrase = " ".join(clause.split()[-2:] + [m.group(0)])  # 'Offline throughput', 'Network throughput'
        if len(lead.split()) > SUBJECT_WORDS or ":" in lead or header_unit(phrase) != "throughput":
            continue
        if text[m.end():m.end() + 3].lstrip()[:1] in (":", "=", "|", "│", "┃", ")", "\t"):
            continue  # a label and its value ('Overall Output Throughput: 504.6'), read as one
        out.append((m.start(), m.end(), "throughput", "", 1))
    return out


def _bare_units(text: str, taken: "_Spans") -> list[tuple[int, int, str, str]]:
    """The throughput units a text names outside its figures ('(samples/second)', 'in tok/s'): found
    from their per-second ending, which few texts hold, rather than tried at every character."""
    out, last = [], -1
    for a in _UNIT_ENDING.finditer(text.lower()):
        if a.start() <= last or taken.holds(a.start()):
            continue
        m = _BARE_UNIT.search(text, max(0, a.start() - 40), a.end() + 12)
        if m and m.start() <= a.start() < m.end() and not taken.holds(m.start()):
            out.append((m.start(), m.end(), m.group(0), ""))
            last = m.end()
    return out


# where a unit ends, on the lowered text ('/s' but not '/sample', 'tps' but not 'https')
_UNIT_ENDING = lazy_re.compile(r"/ ?s(?:ec(?:ond)?|ek(?:unde)?)?(?![a-z])|(?:per|pro|par|por)[ -]"
                               r"s(?:ec(?:ond)?|ek(?:unde)?|egundo)?(?![a-z])|(?:a|each|every) second|je sekunde|"
                               r"(?<![a-z])(?:qps|tps|rps)(?![a-z])|q/s")


class _Spans:
    """Sorted, non-overlapping (start, end) spans of figures, asked whether they hold a position."""

    def __init__(self, found: list[Detected]):
        self.starts = [d.start for d in found]
        self.ends = [d.end for d in found]

    def holds(self, at: int) -> bool:
        i = bisect.bisect_right(self.starts, at) - 1
        return i >= 0 and at < self.ends[i]


def _states_a_band(text: str, bounds: list[int], at: int) -> bool:
    """Is the sentence at ``at`` one that explains a band ('Band ±0.5%: half the run-to-run spread of
    0.9% (... from 774.0 to 781.2)')? Its numbers are the band's basis, not figures to bind."""
    i = max(bisect.bisect_right(bounds, at) - 1, 0)
    sentence = text[bounds[i]:bounds[min(i + 1, len(bounds) - 1)]].lower()
    return any(phrase in sentence for phrase in F.BAND_SENTENCE)


def _line_start(text: str, at: int, lines: int, floor: int = 0) -> int:
    """The start of the line ``lines`` above the one at ``at``, or ``floor`` if that is later (a search
    bounded by the sentence: a page of one long line holds many mentions)."""
    for _ in range(lines + 1):
        at = text.rfind("\n", floor, at)
        if at < 0:
            return floor
    return at + 1


def _line_end(text: str, at: int, lines: int, ceiling: int | None = None) -> int:
    ceiling = len(text) if ceiling is None else ceiling
    for _ in range(lines + 1):
        at = text.find("\n", at + 1 if _ else at, ceiling)
        if at < 0:
            return ceiling
    return at


LINE_WINDOW = 1000


def _stands_alone(text: str, m: re.Match, lo: int) -> bool:
    raw = m.group(1)
    if not m.group(2) and (re.fullmatch(r"\d", raw) or _YEAR.match(raw)):
        return False  # a count ('8'), a year
    if m.start() and (text[m.start() - 1].isalnum() or text[m.start() - 1] in "-~"):
        return False  # '83~22.04'
    # the number's line, read no further than LINE_WINDOW characters each side: a table row is short,
    # and a paragraph of one long line holds many numbers (reading it whole for each is quadratic)
    floor = max(0, m.start() - LINE_WINDOW)
    line_start = text.rfind("\n", floor, m.start()) + 1 or floor
    ceiling = m.end() + LINE_WINDOW
    line_end = text.find("\n", m.end(), ceiling)
    if line_end < 0 and ceiling < len(text):
        line_end = ceiling
    line = text[line_start:line_end if line_end >= 0 else len(text)]
    numbers = len(_ROW_NUMBER.findall(line))
    if numbers >= 3 and (numbers >= 0.3 * len(line.split()) or re.search(r"\S(?: {2,}|\t|\|)\S", line)):
        return False  # a row of a table: its columns say what each number is
    if not m.group(2) and raw.isdigit() and not line[m.end() - line_start:].strip() and _numbered_lines(text, line_start):
        return False  # a table of contents: lines that end in page numbers
    after = text[m.end():line_end if line_end >= 0 else len(text)][:30]
    if after[:1] in ".," and after[1:2].isdigit():
        return False
    if raw.isdigit() and not m.group(2) and not text[line_start:m.start()].strip() and re.match(r"\.\s+[A-Z]", after):
        return False  # '11. Results: ...' opening a line: a numbered heading or list item
    rest = after.lstrip()
    if rest and not (rest[0] in ".,;:)(]!?" or rest[0].isalpha()):
        return False  # '40 %', '83~22.04', '1-2', a quote
    if rest[:1] == "(" and any(w in _OTHER_BEFORE for w in _words(rest[1:].split(")")[0])):
        return False  # '11 (slack not estimable)', '48 (6 nodes x 8)'
    w = _WORD.match(rest)
    if w and w.group(0).lower().rstrip(".") not in _FOLLOWS:
        return False  # '8 GPUs', '450 ms', '24,576 samples', '3.3x'
    if w and rest[w.end():].lstrip()[:1] == "/":
        return False  # '~550 in / 250 out tokens per request': a shape, not a throughput
    if w and re.fullmatch(r"\s*\d*", rest[w.end():]) and line_end >= 0 and text[line_end + 1:line_end + 40].lstrip()[:1] == "/":
        return False  # the same, broken after its word: '~550 in' (a contents line's page number after it) then '/ 250 out ...'
    if not rest and line_end >= 0 and _SHAPE_CLASS_NEXT.match(text, line_end + 1):
        return False  # the same, broken over two lines: '~550' then 'in / 250 out ...'
    if not rest and line_end >= 0:  # a page wrapped the line between a number and its word: '1,024' then 'tokens)'
        w = _WORD.match(text[line_end + 1:line_end + 31].lstrip())
        if w and w.group(0).lower().rstrip(".") not in _FOLLOWS:
            return False
    before = text[max(lo, 0):m.start()].rstrip()
    before = before[max(0, len(before) - 40):]
    if re.search(r"(?:\d[\d.,]*|[-/])\s*$", before):
        return False  # the second of two numbers in a row; a word broken over a line; '550 in / 250 out'
    return not any(w in _OTHER_BEFORE or w in "$€£#" for w in _words(before)[-F.WORDS_BEFORE:])


def _numbered_lines(text: str, line_start: int) -> bool:
    """Does the line before or after the one starting at ``line_start`` end in a page number too?"""
    before = text.rfind("\n", 0, max(line_start - 1, 0)) + 1 if line_start else -1
    after = text.find("\n", line_start)
    near = []
    if before >= 0 and line_start:
        near.append(text[before:line_start - 1])
    if after >= 0:
        nxt = text.find("\n", after + 1)
        near.append(text[after + 1:nxt if nxt >= 0 else len(text)])
    return any(_PAGE_NUMBER_END.search(n) for n in near)


_PAGE_NUMBER_END = lazy_re.compile(r"[A-Za-z)].*\s\d{1,4}\s*$")


def _words(text: str) -> list[str]:
    """The words of a text, lowered, possessives dropped ("H100's" -> 'h100')."""
    text = re.sub(r"['’]s\b", "", text)
    return [w.lower().rstrip(".:") for w in re.findall(r"[A-Za-zÀ-ÿ][\w\-.]*|[$€£#]", text)]


_SHAPE_CLASS_NEXT = lazy_re.compile(r"\s*[A-Za-z]+\s*/")
_ROW_NUMBER = lazy_re.compile(r"(?<![\w.,])\d[\d.,]*(?![\w%.,])(?!\s?%)")


MARK_LIKE = lazy_re.compile(r"\[(" + MARK + r")\]")  # what a mark looks like (wording.mark_name)


def defuse(text: str) -> str:
    """Source text made so that no reader or checker takes any of it for a figure or a mark: each
    figure-like span gets its unit in quotes (a number that is a figure only by its label or
    sentence gets quotes around itself), and anything that looks like a mark reads (a) -
    '999,999 "tok/s" ±0.1% (a)'. A second line of defence for renderers; the guard refuses such
    text in the first place."""
    # marks first: a number before '(a)' may read as a figure where '[a]' did not
    text = MARK_LIKE.sub(r"(\1)", text) if "[" in text else text
    for _ in range(4):  # quoting one figure's unit may leave its number to the sentence rule
        found = find_figures(text)
        if not found:
            break
        out, last = [], 0
        for d in found:
            span = text[d.start:d.end]
            unit_at = span.find(d.unit) if d.unit and not d.context else -1
            if unit_at >= 0:
                span = f'{span[:unit_at]}"{d.unit}"{span[unit_at + len(d.unit):]}'
            else:
                span = f'"{span}"'
            out += [text[last:d.start], span]
            last = d.end
        text = "".join(out) + text[last:]
    return text
