"""Errors that name what went wrong and where, so a user can find the bad byte."""
from __future__ import annotations

import errno


class ExportguardError(Exception):
    """Base class: every error the tool raises on purpose."""


class SourceError(ExportguardError):
    """A source (file, row, field) could not be read as what it claims to be.

    ``reason`` is a stable, machine-readable code (it becomes a quarantine reason);
    ``locator`` says where: "path:line 12", "path row 341 field Performance_Result".
    """

    def __init__(self, reason: str, message: str, locator: str = "", raw: str = ""):
        self.reason = reason
        self.message = message
        self.locator = locator
        self.raw = raw
        super().__init__(f"{locator}: {message}" if locator else message)


class StoreError(ExportguardError):
    """The store cannot be opened or used (wrong schema version, bad URL)."""


def os_cause(err: OSError) -> str:
    """An OSError in words a user can act on, with its code: "No space left on device (ENOSPC)"."""
    words = err.strerror or str(err) or type(err).__name__
    code = errno.errorcode.get(err.errno or 0)
    return f"{words} ({code})" if code else words
