"""Reading a load-test tool's JSON: one document, or JSON Lines (one run per line, as vLLM's
append-result mode and SGLang write), through the strict reader (strict_json), and typed access to
keys that names the key in every refusal.

A missing key is "not reported" (None), never 0. A key holding the wrong type, NaN, Infinity or a
repeated key is refused where it stands. The one exception is the bare ``Infinity`` SGLang writes as
its request rate (own_sglang.py asks for it with ``allow_infinity``).
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Iterator

from ..errors import SourceError
from .source import decode_utf8
from . import strict_json
from .numbers import json_count, json_number
from .repeats import Repeat, judge

MAX_OWN_BYTES = 256 * 1024 * 1024  # a guidellm report with every request is tens of MB; more is not one


@dataclass(frozen=True)
class Record:
    locator: str  # "<file>" or "<file> line 3"
    value: object  # the decoded JSON (strict_json values: Refused where a value is not allowed)
    text: str  # the record's own text, for a quarantine excerpt
    same_as: str = ""  # JSON Lines: the locator of an earlier line with exactly this text (same verdict)
    escapes: bool = True  # whether its text escapes a surrogate or NUL (strict_json.may_hold_bad_text)


def parse(text: str, label: str) -> "list[Record] | JsonLines":
    """The records of a file: one for a JSON document, one per non-blank line for JSON Lines (read
    lazily, each time the lines are walked: a million junk lines are never a million objects at once)."""
    if not text.strip():
        raise SourceError("empty_file", "the file is empty" if not text else "the file holds only white space",
                          label)
    try:
        return [Record(label, strict_json.loads(text), text[:4000], escapes=strict_json.may_hold_bad_text(text))]
    except json.JSONDecodeError as e:
        if not e.msg.startswith("Extra data"):
            raise _invalid(e, text, label) from None
    except (RecursionError, ValueError) as e:
        raise SourceError("invalid_json", f"not usable JSON: {str(e).partition(':')[0] or type(e).__name__}",
                          label) from None
    return JsonLines(text, label)


class JsonLines:
    """The records of a JSON Lines file. Lines end at a line feed only (with a CR before it, CRLF):
    str.splitlines() also splits at U+2028, U+2029, U+0085, form feeds and more, which JSON allows raw
    inside a string (a tool writing with ensure_ascii=False does), and so would cut a record in two."""

    def __init__(self, text: str, label: str):
        self.text, self.label = text, label

    MEMO_LINE, MEMO_LINES = 512, 10_000  # short lines seen before are not parsed again (junk repeats itself)

    def __iter__(self) -> Iterator[Record]:
        memo: dict[str, Record] = {}
        for number, line in _physical_lines(self.text):
            if not line.strip():
                continue
            locator = f"{self.label} line {number}"
            seen = memo.get(line)
            if seen is not None:
                yield Record(locator, seen.value, seen.text, same_as=seen.locator, escapes=seen.escapes)
                continue
            try:
                value = strict_json.loads(line)
            except json.JSONDecodeError as e:
                value = _invalid(e, line, locator, unit="line")
            except (RecursionError, ValueError) as e:
                value = SourceError("invalid_json", f"not usable JSON: {str(e).partition(':')[0]}", locator)
            record = Record(locator, value, line[:4000], escapes=strict_json.may_hold_bad_text(line))
            if len(line) <= self.MEMO_LINE and len(memo) < self.MEMO_LINES:
                memo[line] = record
            yield record


def _physical_lines(text: str) -> Iterator[tuple[int, str]]:
    start, number = 0, 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        number += 1
        yield number, text[start:end].removesuffix("\r")
        start = end + 1


def _invalid(e: json.JSONDecodeError, text: str, label: str, unit: str = "file") -> SourceError:
    ends_early = e.msg.startswith("Unterminated string") or not text[e.pos:].strip()
    truncated = f"; the {unit} ends before the JSON does (truncated?)" if ends_early else ""
    where = f"line {e.lineno} column {e.colno}" if unit == "file" else f"column {e.colno}"
    return SourceError("invalid_json", f"not valid JSON at {where}: {e.msg}{truncated}",
                       label, raw=text[max(0, e.pos - 200): e.pos + 200])


def decode(data: bytes, label: str) -> str:
    return decode_utf8(data, label)


class Keys:
    """Typed, located access to one JSON object's keys: ``num("duration")`` is the float there,
    None when the key is absent or null, and a SourceError naming the key when it holds anything
    but a finite number."""

    def __init__(self, obj: object, where: str, prefix: str = ""):
        if not isinstance(obj, dict):
            raise SourceError("bad_field", f"{prefix or 'the record'} is not a JSON object", where)
        self.obj, self.where, self.prefix = obj, where, prefix

    def name(self, key: str) -> str:
        return f"{self.prefix}.{key}" if self.prefix else key

    def has(self, key: str) -> bool:
        return self.obj.get(key) is not None

    def raw(self, key: str) -> object:
        if isinstance(self.obj, strict_json.DuplicateKeys):
            # given twice with different values: refused where it is read (repeats.py), as every source's
            for name, values in self.obj.conflicts:
                if name == key:
                    judge([Repeat(self.name(key), tuple(json.dumps(v, default=str) for v in values))], {self.name(key)}, "",
                          "duplicate_key", lambda r: self.where)
        value = self.obj.get(key)
        if isinstance(value, strict_json.Refused):
            raise SourceError(value.reason, f"key {self.name(key)}: {value.message}", self.where)
        return value

    def sub(self, key: str) -> "Keys | None":
        value = self.raw(key)
        return None if value is None else Keys(value, self.where, self.name(key))

    def num(self, key: str, required: bool = False) -> float | None:
        value = self.raw(key)
        if value is None:
            if required:
                raise SourceError("missing_field", f"key {self.name(key)} is missing", self.where)
            return None
        if isinstance(value, str):  # the tools write numbers as numbers: text in their place is an edited file
            raise SourceError("bad_number", f"key {self.name(key)} holds the text {value[:40]!r}, not a JSON number",
                              self.where)
        return json_number(value, f"key {self.name(key)}", self.where)

    def count(self, key: str) -> int | None:
        value = self.raw(key)
        return None if value is None else json_count(value, f"key {self.name(key)}", self.where)

    def text(self, key: str) -> str | None:
        value = self.raw(key)
        if value is None:
            return None
        if not isinstance(value, str):
            raise SourceError("bad_field", f"key {self.name(key)} must be text, found {type(value).__name__}",
                              self.where)
        return value.strip() or None

    def stat(self, metric: str, stat: str) -> float | None:
        """``metric.stat`` of a tool's metric block ({"unit", "avg", "p99", ...}), or None."""
        block = self.sub(metric)
        return None if block is None else block.num(stat)


def completed_requests(k: Keys, key: str = "completed") -> int:
    """The requests a run's figures are measured over; a run where none completed measured nothing."""
    completed = k.count(key)
    if not completed:
        raise SourceError("non_positive_value", f"no request completed ({k.name(key)} = {completed}): there is no "
                          "measurement", k.where)
    return completed


def positive_or_none(value: float | None, key: str = "") -> float | None:
    """A latency or spread a tool printed as 0 (no data) is not a measurement of 0; a negative one is
    no measurement at all, and costs its run (not "not reported": the file is wrong)."""
    if value is not None and value < 0:
        raise SourceError("non_positive_value", f"{'key ' + key if key else 'a latency'} is {value:g}: a latency "
                          "or spread is never below 0", key)
    return value if value is not None and math.isfinite(value) and value > 0 else None


def lengths_agree(k: Keys, lengths: list, lens_key: str, total_key: str, tolerance: float = 0.01) -> None:
    """Per-request lengths (a file saved with its details) sum to the file's own total, within 1 % (a
    tool may count a cut request's tokens in one and not the other); else the run contradicts itself."""
    total = k.num(total_key)
    if total is None or not lengths:
        return
    summed = sum(lengths)
    if abs(summed - total) > tolerance * max(total, 1):
        raise SourceError("contradicts_itself", f"key {k.name(lens_key)} sums to {summed:,.0f}, key "
                          f"{k.name(total_key)} says {total:,.0f}: the file contradicts itself", k.where)
