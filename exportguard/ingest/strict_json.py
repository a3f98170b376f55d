"""JSON as RFC 8259 has it, for untrusted sources (summary tables, systems/<id>.json).

Python's json module accepts NaN, Infinity and -Infinity, turns 1e309 into inf, and keeps the
last of two equal keys without a word (other readers keep the first: the two disagree on what the
row says). Here none of those fails the whole document: each refused number becomes a ``Refused``
value in its place, so that a summary table can quarantine just the row that holds one while a
systems JSON, which is one record, is refused whole. A key repeated with the same value is no
ambiguity and leaves no trace; one repeated with different values makes its object a
``DuplicateKeys``, which the caller judges by whether it reads that field (repeats.py).
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Collection, Iterator

from ..errors import SourceError
from .numbers import JSON, MAX_NUMBER_TEXT, parse_number
from .repeats import Repeat, judge


@dataclass(frozen=True)
class Refused:
    """A JSON value the standard does not allow, kept in place so its row can be refused."""
    reason: str
    message: str
    constant: str = ""  # "NaN", "Infinity" or "-Infinity" when the value was one of those words


class DuplicateKeys(dict):
    """An object that gives a key more than once with different values (the last value is kept, as
    json.loads does); ``conflicts`` holds each such key with all the values it was given."""
    conflicts: tuple[tuple[str, tuple[object, ...]], ...] = ()


def loads(text: str) -> object:
    """Like json.loads; the caller still handles JSONDecodeError, RecursionError and ValueError."""
    return _decoder().decode(text)


_DECODERS: list = []


def _decoder() -> json.JSONDecoder:
    # one decoder, made once: json.loads with hooks builds a new one per call, which dominates a file of
    # a million short JSON Lines
    if not _DECODERS:
        _DECODERS.append(json.JSONDecoder(parse_constant=_constant, parse_float=_float, parse_int=_int,
                                          object_pairs_hook=_object))
    return _DECODERS[0]


def _walk(value: object) -> Iterator[tuple[str, object]]:
    """(path of keys, item) for ``value`` and everything inside it, in document order."""
    stack: list[tuple[str, object]] = [("", value)]
    while stack:  # a loop, not recursion: a document may nest as deep as the JSON parser allows
        path, item = stack.pop()
        yield path, item
        if isinstance(item, dict):
            stack.extend((_join(path, k), v) for k, v in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend((f"{path}[{i}]", v) for i, v in reversed(list(enumerate(item))))


def refusal_in(value: object) -> tuple[str, Refused] | None:
    """The first refused value inside ``value`` as (path of keys, refusal), or None."""
    return next(((path, item) for path, item in _walk(value) if isinstance(item, Refused)), None)


# The only ways JSON text decoded from UTF-8 can hold a lone surrogate or a NUL: an escape of one
_BAD_ESCAPE = re.compile(r"\\u(?:[dD][89a-fA-F][0-9a-fA-F]{2}|0000)")


def may_hold_bad_text(text: str) -> bool:
    """Whether the JSON ``text`` has an escape that decodes to a lone surrogate or NUL: only then need its
    value be walked by bad_text_in (a regular-expression search instead of a walk of every value)."""
    return _BAD_ESCAPE.search(text) is not None


def bad_text_in(value: object) -> tuple[str, str] | None:
    """(path of keys, what is wrong) for the first key or text inside ``value`` that no store can hold:
    a lone surrogate (legal JSON as an escape like \\udfff, but not Unicode text: UTF-8 cannot encode
    it) or a NUL (PostgreSQL's text cannot hold one). Keys are checked too: a key is text as well."""
    for path, item in _walk(value):
        if isinstance(item, dict):
            for key in item:
                why = text_fault(key) if isinstance(key, str) else ""
                if why:
                    return _join(path, key), f"the key's name {why}"
        elif isinstance(item, str):
            why = text_fault(item)
            if why:
                return path, why
    return None


def text_fault(text: str) -> str:
    """Why ``text`` is not storable Unicode text, in words; "" when it is."""
    if "\x00" in text:
        return "holds a NUL character (U+0000)"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        return f"holds a lone surrogate U+{ord(text[e.start]):04X} at character {e.start}, which is not Unicode text"
    return ""


def repeats_in(value: object) -> list[Repeat]:
    """Every key given more than once with different values inside ``value``, in document order."""
    return [Repeat(_join(path, key), tuple(_shown(v) for v in values))
            for path, item in _walk(value) if isinstance(item, DuplicateKeys) for key, values in item.conflicts]


def _shown(value: object) -> str:
    """A value as JSON writes it (a refused number by its refusal): what a message quotes, and what
    two repeats are compared by, so that 1 and true, or 1 and "1", are different values."""
    if isinstance(value, Refused):
        return f"<{value.reason}>"
    try:
        return json.dumps(value, sort_keys=True, ensure_ascii=False, default=_shown)
    except (ValueError, RecursionError):  # a circular or absurdly deep value: only its identity is comparable
        return f"<value {id(value)}>"


def check(value: object, what: str, locator: str = "", *, read: Collection[str]) -> tuple[str, ...]:
    """Raise SourceError for the first refused value inside ``value``, or for a key given twice with
    different values in a field of ``read`` (the fields the caller reads); return the warnings for
    such repeats in the other fields. ``what`` names the document."""
    found = refusal_in(value)
    if found:
        path, refused = found
        raise SourceError(refused.reason, f"{what}, key {path}: {refused.message}" if path else
                          f"{what}: {refused.message}", locator)
    return judge(repeats_in(value), read, what, "duplicate_key", lambda r: locator)


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _constant(name: str) -> Refused:
    return Refused("bad_number", f"{name} is not a number JSON allows", name)


def _float(text: str) -> float | Refused:
    # The json scanner hands over only text that matches JSON's number grammar: a short one that stays
    # finite needs no second look (a long file's latency arrays hold millions of them).
    if len(text) <= MAX_NUMBER_TEXT:
        value = float(text)
        if math.isfinite(value):
            return value
    try:
        return parse_number(text, JSON, "")
    except SourceError as err:
        return Refused(err.reason, err.message)


def _int(text: str) -> int | Refused:
    if len(text) > MAX_NUMBER_TEXT:  # refused before int() spends time on thousands of digits
        return _float(text)
    return int(text)


def _object(pairs: list[tuple[str, object]]) -> dict:
    obj: dict = {}
    given: dict[str, list[object]] = {}
    for key, value in pairs:
        if key in obj:
            given.setdefault(key, [obj[key]]).append(value)
        obj[key] = value
    conflicts = tuple((key, tuple(values)) for key, values in given.items()
                      if len({_shown(v) for v in values}) > 1)
    if not conflicts:
        return obj
    marked = DuplicateKeys(obj)
    marked.conflicts = conflicts
    return marked
