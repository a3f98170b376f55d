"""The export-time clock: the one instant an export states (the manifest's ``generated_at``, the
report's date, the package and PDF dates), taken once and passed to every renderer as an argument,
so that the same report and options give byte-identical artifacts.

By default it is ``SOURCE_DATE_EPOCH`` when that is set (the reproducible-builds convention:
https://reproducible-builds.org/specs/source-date-epoch/), else the current time, in UTC and to
the second. Nothing else in an export reads the wall clock.
"""
from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass
from typing import Mapping

from .errors import ExportguardError

ENV = "SOURCE_DATE_EPOCH"
# A ZIP entry's DOS timestamp holds 1980-01-01 to 2107-12-31; an instant outside is clamped to it.
_ZIP_FIRST = dt.datetime(1980, 1, 1, tzinfo=dt.timezone.utc)
_ZIP_LAST = dt.datetime(2107, 12, 31, 23, 59, 58, tzinfo=dt.timezone.utc)


@dataclass(frozen=True)
class Clock:
    """One instant, UTC, whole seconds; ``source`` says where it came from (for messages)."""

    at: dt.datetime
    source: str = "given"

    def __post_init__(self):
        if self.at.tzinfo is None:
            raise ValueError("Clock needs an aware datetime (UTC)")
        object.__setattr__(self, "at", self.at.astimezone(dt.timezone.utc).replace(microsecond=0))

    @classmethod
    def from_epoch(cls, seconds: int, source: str = "given") -> "Clock":
        return cls(dt.datetime.fromtimestamp(seconds, dt.timezone.utc), source)

    @property
    def epoch(self) -> int:
        return int(self.at.timestamp())

    def iso(self) -> str:
        """'2025-09-09T00:00:00+00:00' (the manifest's generated_at)."""
        return self.at.isoformat(timespec="seconds")

    def date(self) -> str:
        """'2025-09-09' (the date a report states)."""
        return self.at.date().isoformat()

    def w3cdtf(self) -> str:
        """'2025-09-09T00:00:00Z': the form of docProps/core.xml's dcterms dates."""
        return self.at.strftime("%Y-%m-%dT%H:%M:%SZ")

    def zip_time(self) -> tuple[int, int, int, int, int, int]:
        """The instant as a ZIP entry's date_time: clamped to what a DOS timestamp can hold, and to
        the even second below (its resolution), so that it reads back as written."""
        at = min(max(self.at, _ZIP_FIRST), _ZIP_LAST)
        return (at.year, at.month, at.day, at.hour, at.minute, at.second - at.second % 2)

    def pdf_date(self) -> str:
        """"D:20250909000000+00'00'": a PDF date string (ISO 32000-1, 7.9.4)."""
        return self.at.strftime("D:%Y%m%d%H%M%S+00'00'")


def from_env(environ: Mapping[str, str] | None = None) -> Clock:
    """``SOURCE_DATE_EPOCH`` when set (a bad value is an error naming it), else now."""
    environ = os.environ if environ is None else environ
    text = environ.get(ENV, "").strip()
    if not text:
        return Clock(dt.datetime.now(dt.timezone.utc), "now")
    if not text.isdigit():
        raise ExportguardError(f"{ENV}={text[:40]!r}: not a whole number of seconds since 1970-01-01 UTC")
    try:
        return Clock.from_epoch(int(text), ENV)
    except (OverflowError, OSError, ValueError):
        raise ExportguardError(f"{ENV}={text[:40]!r}: out of range for a date") from None


def resolve(clock: Clock | None) -> Clock:
    """The clock an export uses: the one given, else ``from_env()``."""
    return clock if clock is not None else from_env()
