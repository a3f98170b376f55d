"""Cells of exportguard's CSV read as what their column holds: a number, a count, a date. Every
refusal names the column; every number goes through the one number parser (numbers.py, CSV
syntax). Shared by MLPerf rows (csv_rows.py) and own-run rows (own_csv.py)."""
from __future__ import annotations

import datetime as dt
import re

from ..errors import SourceError
from .numbers import CSV, parse_count, parse_number


def cell_number(get, key: str, positive: bool, required: bool = True, zero: bool = False) -> float | None:
    """The number in column ``key`` (None when empty and not required); ``positive`` refuses one
    below 0, and 0 itself unless ``zero`` (a standard deviation may be 0)."""
    raw = get(key)
    if not raw:
        if required:
            raise SourceError("missing_field", f"column {key} is empty", f"column {key}")
        return None
    value = parse_number(raw, CSV, f"column {key}", f"column {key}")
    if positive and (value < 0 or (value == 0 and not zero)):
        raise SourceError("non_positive_value", f"column {key} must be a positive number, found {raw!r}", f"column {key}")
    return value


def cell_count(get, key: str, least: int = 0) -> int:
    raw = get(key)
    if not raw:
        raise SourceError("missing_field", f"column {key} is empty", f"column {key}")
    value = parse_count(raw, f"column {key}", f"column {key}")
    if value < least:
        raise SourceError("non_positive_value", f"column {key} must be at least {least}, found {raw!r}",
                          f"column {key}")
    return value


def cell_date(get, key: str) -> str | None:
    raw = get(key)
    if not raw:
        return None
    try:
        if re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", raw):
            return dt.date.fromisoformat(raw).isoformat()
    except ValueError:
        pass
    raise SourceError("bad_field", f"column {key} must be a date written YYYY-MM-DD, found {raw!r}", f"column {key}")
