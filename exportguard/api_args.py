"""The public API's argument checks, in one place: each takes the argument's name and value and
returns the value as the call uses it, or raises ArgumentError naming the argument and what it
takes. The command line's options are checked by click before they reach the API; a caller of
the API has nothing in front, so every public call checks here first (docs/api.md, Arguments).
"""
from __future__ import annotations

import datetime as dt
import math
import os
from pathlib import Path
from typing import Any, Callable, Iterable

from .errors import ExportguardError


class ArgumentError(ExportguardError, ValueError):
    """A call's arguments are wrong (an unknown filter, a value outside its choices, no target): the
    message names the argument and what it may be."""


# The least memory limit check_documents takes: the worker is a fork of the checker (its address
# space is the base, check/safety.py _child), and a parser's imports and first buffers need tens of MB
# on top; a smaller limit would answer "could not inspect" for every file, a misuse rather than a bound.
MIN_MEMORY_MB = 64


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def path_arg(name: str, value: Any) -> Path:
    """A file or folder: a text or an os.PathLike (a path that is no text, None or a number is a misuse
    that would otherwise end as a TypeError deep inside)."""
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str) or not value:
        raise ArgumentError(f"{name}={_shown(value)}: a path (a text or a pathlib.Path), not "
                            f"{'an empty text' if value == '' else type(value).__name__}")
    if "\x00" in value:
        raise ArgumentError(f"{name}={_shown(value)}: a path holds no NUL character")
    return Path(value)  # a lone surrogate is an undecodable byte of a file name (os.fsencode): allowed


def text_arg(name: str, value: Any, *, optional: bool = True) -> str | None:
    """A text that can be stored and shown: valid Unicode (no lone surrogate), no NUL."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise ArgumentError(f"{name}={_shown(value)}: a text{' or None' if optional else ''}, "
                            f"not {type(value).__name__}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ArgumentError(f"{name}={_shown(value)}: not valid text (it holds a lone surrogate, which no "
                            "encoding can write)") from None
    if "\x00" in value:
        raise ArgumentError(f"{name}={_shown(value)}: a text without NUL characters")
    return value


def flag_arg(name: str, value: Any) -> bool:
    """True or False only: 'no' and 0 read as answers but are not (a non-empty text is true)."""
    if not isinstance(value, bool):
        raise ArgumentError(f"{name}={_shown(value)}: True or False, not {type(value).__name__}")
    return value


def callback_arg(name: str, value: Any) -> Callable | None:
    if value is not None and not callable(value):
        raise ArgumentError(f"{name}={_shown(value)}: a function (callable) or None, not {type(value).__name__}")
    return value


def seconds_arg(name: str, value: Any, *, positive: bool = False, optional: bool = False) -> float | None:
    """A finite number of seconds, 0 or more (``positive``: more than 0); not a bool or NaN."""
    if value is None and optional:
        return None
    least = "more than 0" if positive else "0 or more"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ArgumentError(f"{name}={_shown(value)}: a number of seconds, {least}")
    if not math.isfinite(value) or value < 0 or (positive and value == 0):
        raise ArgumentError(f"{name}={_shown(value)}: a finite number of seconds, {least}")
    return float(value)


def memory_arg(name: str, value: Any) -> int | None:
    """A memory limit in whole MB, at least MIN_MEMORY_MB; None for the default."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < MIN_MEMORY_MB:
        raise ArgumentError(f"{name}={_shown(value)}: a whole number of MB, {MIN_MEMORY_MB} or more "
                            "(what the inspecting process may add to the checker's own memory)")
    return value


def date_arg(name: str, value: Any) -> str | None:
    """A date as YYYY-MM-DD text, or a datetime.date (a datetime's date is taken)."""
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        value = value.date()
    if isinstance(value, dt.date):
        return value.isoformat()
    try:
        dt.date.fromisoformat(value)
    except (TypeError, ValueError):
        raise ArgumentError(f"{name}={_shown(value)}: not a date like 2025-09-09") from None
    return value


def round_arg(name: str, value: Any) -> str | None:
    """A round like v5.1 (or 5.1)."""
    from .ingest import ROUND_ARGUMENT

    if value is None:
        return None
    if not isinstance(value, str) or not ROUND_ARGUMENT.fullmatch(value.strip()):
        raise ArgumentError(f"{name}={_shown(value)}: a round like v5.1 (or 5.1)")
    return value


def texts_arg(name: str, value: Any) -> tuple[str, ...]:
    """Texts as a list, tuple or set; one text alone is one item (callers write ignore="EG001"),
    never read character by character."""
    if isinstance(value, str):
        value = (value,)
    if not isinstance(value, (list, tuple, set, frozenset)):
        raise ArgumentError(f"{name}={_shown(value)}: a text or a list of texts, not {type(value).__name__}")
    return tuple(text_arg(name, v, optional=False) for v in value)


def store_arg(value: Any):
    from .store import Store

    if not isinstance(value, Store):
        raise ArgumentError(f"store={_shown(value)}: an open store from open_store(), not {type(value).__name__}")
    return value


def paths_arg(name: str, values: Iterable[Any]) -> tuple[Path, ...]:
    return tuple(path_arg(name, v) for v in values)
