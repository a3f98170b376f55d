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


def parse(text: str, label: str) -> list[Record]:
    """The records of a file: one for a JSON document, one per non-blank line for JSON Lines."""
    try:
        return [Record(label, strict_json.loads(text), text[:4000])]
    except json.JSONDecodeError as e:
        if not e.msg.startswith("Extra data"):
            raise _invalid(e, text, label) from None
    except (RecursionError, ValueError) as e:
        raise SourceError("invalid_json", f"not usable JSON: {str(e).partition(':')[0] or type(e).__name__}",
                          label) from None
    return list(_lines(text, label))


def _lines(text: str, label: str) -> Iterator[Record]:
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        locator = f"{label} line {number}"
        try:
            value = strict_json.loads(line)
        except json.JSONDecodeError as e:
            value = _invalid(e, line, locator)
        except (RecursionError, ValueError) as e:
            value = SourceError("invalid_json", f"not usable JSON: {str(e).partition(':')[0]}", locator)
        yield Record(locator, value, line[:4000])


def _invalid(e: json.JSONDecodeError, text: str, label: str) -> SourceError:
    ends_early = e.msg.startswith("Unterminated string") or not text[e.pos:].strip()
    truncated = "; the file ends before the JSON does (truncated?)" if ends_early else ""
    return SourceError("invalid_json", f"not valid JSON at line {e.lineno} column {e.colno}: {e.msg}{truncated}",
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


def positive_or_none(value: float | None) -> float | None:
    """A latency or spread a tool printed as 0 (no data) is not a measurement of 0."""
    return value if value is not None and math.isfinite(value) and value > 0 else None
