"""The one number parser of the ingest: every number any source gives goes through here.

Python's ``float()`` and ``int()`` accept far more than any of our formats writes: Arabic-Indic
``'٣'`` and full-width ``'３'`` digits (for which ``str.isdigit()`` is True too), ``'1_000'``,
``'nan'``, ``'infinity'``, and ``'1e309'``, which becomes inf. A naive clean-up is worse: dropping
the commas of a spreadsheet's ``'1,5'`` gives 15, of ``'1.234,5'`` gives 1.2345. So a number must
match an explicit ASCII grammar before it reaches ``float()``/``int()``, and the result must be finite.

What each format may write (everything else is refused with reason ``bad_number``):

=====================================================  ====  =============  ========
format                                                 sign  decimal point  exponent
=====================================================  ====  =============  ========
mlperf_log_summary.txt rates, QPS, latencies (LOG)     yes   yes            yes (C++ streams print 1e+06)
accuracy.txt dict values, Python literals (PYTHON)     yes   yes            yes (also as np.float64(...))
JSON numbers, and numbers written as JSON strings      yes   yes            yes
summary ``Accuracy`` text, e.g. TOKENS_PER_SAMPLE      no    yes            yes (Python's str(float) prints 1e-05)
CSV cells (CSV)                                        yes   yes            no
counts: ns, ms, nodes, accelerators (COUNT)            no    no             no
=====================================================  ====  =============  ========

Never accepted: digit-group separators (``1,5``, ``1 234``, ``1'000``, ``1_000``), decimal commas,
digits other than ASCII 0-9, more than one decimal point, NaN, Infinity, a value that overflows to
inf, empty text, text longer than any real number (which also keeps ``int()`` far from CPython's
digit limit). A sign, where allowed, is only a grammar matter: whether a negative value makes sense
is the caller's range check.

A numpy scalar's repr is read as the number it wraps: under numpy 2 the reference accuracy scripts
print ``np.int64(28662277)`` and ``np.float64(44.42)`` where numpy 1 printed ``28662277`` and
``44.42`` (``unwrap_numpy_scalar``). Only that exact form is unwrapped; nothing is evaluated.
"""
from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass

from ..errors import SourceError

MAX_NUMBER_TEXT = 64
# 18 digits stay below 2**63, which SQLite can bind; a count PostgreSQL's columns cannot hold is
# refused by the store and its row quarantined.
MAX_COUNT_DIGITS = 18


@dataclass(frozen=True)
class Syntax:
    sign: bool
    fraction: bool
    exponent: bool

    @property
    def pattern(self) -> re.Pattern[str]:
        return _PATTERNS[self]


LOG = Syntax(sign=True, fraction=True, exponent=True)
PYTHON = Syntax(sign=True, fraction=True, exponent=True)
JSON = Syntax(sign=True, fraction=True, exponent=True)
SUMMARY_TEXT = Syntax(sign=False, fraction=True, exponent=True)
CSV = Syntax(sign=True, fraction=True, exponent=False)
COUNT = Syntax(sign=False, fraction=False, exponent=False)


def _compile(s: Syntax) -> re.Pattern[str]:
    # [0-9], never \d: \d matches every Unicode decimal digit.
    mantissa = r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)" if s.fraction else r"[0-9]+"
    return re.compile((r"[+-]?" if s.sign else "") + mantissa + (r"(?:[eE][+-]?[0-9]+)?" if s.exponent else ""))


_PATTERNS = {s: _compile(s) for s in (LOG, PYTHON, JSON, SUMMARY_TEXT, CSV, COUNT)}


def parse_number(text: str, syntax: Syntax, field: str, locator: str = "") -> float:
    """A finite float written in ``syntax``; ``field`` names it in the refusal."""
    if len(text) <= MAX_NUMBER_TEXT and syntax.pattern.fullmatch(text):
        value = float(text)
        if math.isfinite(value):
            return value
        raise _refusal(text, field, locator, "it is too large to be a finite number")
    raise _refusal(text, field, locator, _why_not(text, syntax))


# numpy's scalar types as their repr names them: np.float64(...), np.int64(...), and the older
# numpy. spelling. Not longdouble: its repr quotes the number (np.longdouble('1.0')).
_NUMPY_SCALAR = re.compile(r"(?:np|numpy)\.(?:float(?:16|32|64)|u?int(?:8|16|32|64))\(\s*([^()]{0,%d})\s*\)"
                           % MAX_NUMBER_TEXT)


def unwrap_numpy_scalar(text: str) -> str | None:
    """The literal inside a numpy scalar's repr (``'28662277'`` for ``'np.int64(28662277)'``), or None
    when ``text`` is not one. The caller still parses the literal in its own format's syntax."""
    m = _NUMPY_SCALAR.fullmatch(text)
    return m.group(1).strip() if m else None


def parse_count(text: str, field: str, locator: str = "") -> int:
    """A whole number 0 or more, written as ASCII digits only."""
    if len(text) <= MAX_COUNT_DIGITS and COUNT.pattern.fullmatch(text):
        return int(text)
    why = f"it has more than {MAX_COUNT_DIGITS} digits" if COUNT.pattern.fullmatch(text) else _why_not(text, COUNT)
    raise _refusal(text, field, locator, why, count=True)


def json_number(value: object, field: str, locator: str = "") -> float:
    """A number from a decoded JSON document: a JSON number, or a number written as a JSON string."""
    if isinstance(value, str):
        return parse_number(value.strip(), JSON, field, locator)
    if isinstance(value, float) and math.isfinite(value):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) < 10 ** 300:
        return float(value)
    raise _refusal(_shown_json(value), field, locator, "it is not a finite JSON number")


def json_count(value: object, field: str, locator: str = "") -> int:
    """A count from a decoded JSON document: 8, 8.0 (v4.1 tables write counts as floats) or "8"."""
    if isinstance(value, str):
        return parse_count(value.strip(), field, locator)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 10 ** MAX_COUNT_DIGITS:
        return value
    if isinstance(value, float) and value.is_integer() and 0 <= value < 10 ** MAX_COUNT_DIGITS:
        return int(value)
    raise _refusal(_shown_json(value), field, locator, "it is not a whole number 0 or more", count=True)


def _shown_json(value: object) -> str:
    return "true" if value is True else "false" if value is False else "null" if value is None else repr(value)


def _refusal(text: str, field: str, locator: str, why: str, count: bool = False) -> SourceError:
    shown = repr(text if len(text) <= 40 else text[:40] + "...")
    what = "a count (a whole number, 0 or more)" if count else "a number"
    return SourceError("bad_number", f"{field + ': ' if field else ''}{shown} is not {what}: {why}", locator,
                       text[:200])


_SEPARATOR = re.compile(r"[0-9][,' _\u00a0\u2009\u202f][0-9]")


def _why_not(text: str, syntax: Syntax) -> str:
    """In words, why ``text`` is refused, so the person fixing the source knows what to change."""
    if not text.strip():
        return "it is empty"
    if len(text) > MAX_NUMBER_TEXT:
        return f"it is {len(text):,} characters long, longer than any number this format writes"
    if text.strip().lower().lstrip("+-") in ("nan", "inf", "infinity"):
        return "it is not a finite number"
    if any(not ch.isascii() and (ch.isdigit() or unicodedata.category(ch) == "Nd") for ch in text):
        return "it uses digits other than ASCII 0-9"
    if text != text.strip():
        return "it has spaces around it"
    if "," in text or _SEPARATOR.search(text) or text.count(".") > 1:
        return "it has a digit-group separator, a decimal comma or a second decimal point (write 1234.5)"
    if not syntax.sign and text[:1] in "+-":
        return "this format writes no sign"
    if not syntax.exponent and re.search(r"[0-9.][eE][+-]?[0-9]", text):
        return "this format writes no exponent (write 1500, not 1.5e3)"
    if not syntax.fraction and "." in text:
        return "a count has no decimal point"
    return "it is not written as ASCII digits with at most one decimal point"
