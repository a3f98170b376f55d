"""JSON as RFC 8259 has it, for untrusted sources (summary tables, systems/<id>.json).

Python's json module accepts NaN, Infinity and -Infinity, turns 1e309 into inf, and keeps the
last of two equal keys without a word (other readers keep the first: the two disagree on what the
row says). Here none of those fails the whole document: each becomes a ``Refused`` value in its
place, and an object with a repeated key becomes a ``DuplicateKeys``, so that a summary table can
quarantine just the row that holds one while a systems JSON, which is one record, is refused whole.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from ..errors import SourceError
from .numbers import JSON, MAX_NUMBER_TEXT, parse_number


@dataclass(frozen=True)
class Refused:
    """A JSON value the standard does not allow, kept in place so its row can be refused."""
    reason: str
    message: str
    constant: str = ""  # "NaN", "Infinity" or "-Infinity" when the value was one of those words


class DuplicateKeys(dict):
    """An object that names a key more than once (the last value is kept, as json.loads does)."""
    duplicates: tuple[str, ...] = ()


def loads(text: str) -> object:
    """Like json.loads; the caller still handles JSONDecodeError, RecursionError and ValueError."""
    return json.loads(text, parse_constant=_constant, parse_float=_float, parse_int=_int,
                      object_pairs_hook=_object)


def refusal_in(value: object) -> tuple[str, Refused] | None:
    """The first refused value inside ``value`` as (path of keys, refusal), or None."""
    stack: list[tuple[str, object]] = [("", value)]
    while stack:  # a loop, not recursion: a document may nest as deep as the JSON parser allows
        path, item = stack.pop()
        if isinstance(item, Refused):
            return path, item
        if isinstance(item, DuplicateKeys):
            key = item.duplicates[0]
            return _join(path, key), Refused("duplicate_key", f"key {key!r} appears more than once in one object, "
                                                              "so readers disagree on its value")
        if isinstance(item, dict):
            stack.extend((_join(path, k), v) for k, v in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend((f"{path}[{i}]", v) for i, v in reversed(list(enumerate(item))))
    return None


def check(value: object, what: str, locator: str = "") -> None:
    """Raise SourceError for the first refused value inside ``value``; ``what`` names the document."""
    found = refusal_in(value)
    if found:
        path, refused = found
        raise SourceError(refused.reason, f"{what}, key {path}: {refused.message}" if path else
                          f"{what}: {refused.message}", locator)


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _constant(name: str) -> Refused:
    return Refused("bad_number", f"{name} is not a number JSON allows", name)


def _float(text: str) -> float | Refused:
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
    duplicates = []
    for key, value in pairs:
        if key in obj:
            duplicates.append(key)
        obj[key] = value
    if not duplicates:
        return obj
    marked = DuplicateKeys(obj)
    marked.duplicates = tuple(duplicates)
    return marked
