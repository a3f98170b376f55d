"""Regular expressions compiled on their first use.

The checker's detector holds about sixty patterns, and compiling them all costs a start-up of
`exportguard check` some 40 ms, while a PDF or a deck uses about a third of them. ``compile``
returns a stand-in with the pattern's text and flags; its first search, match or other method
call compiles it and puts the compiled pattern's methods on the stand-in, so that every later call
goes straight to them (no per-call cost after the first).
"""
from __future__ import annotations

import re

_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split", "scanner")


class LazyPattern:
    def __init__(self, pattern: str, flags: int = 0):
        self.pattern = pattern
        self.flags = flags

    def __getattr__(self, name: str):  # only for what the instance does not hold yet
        if name.startswith("__"):
            raise AttributeError(name)
        compiled = re.compile(self.pattern, self.flags)
        for method in _METHODS:
            setattr(self, method, getattr(compiled, method))
        self.groups, self.groupindex = compiled.groups, compiled.groupindex
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy_re.compile({self.pattern!r}, {self.flags!r})"


def compile(pattern: str, flags: int = 0) -> LazyPattern:  # noqa: A001  (re.compile's name, on purpose)
    """As re.compile, compiled when first used."""
    return LazyPattern(pattern, flags)
