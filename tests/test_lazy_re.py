"""Patterns compiled on first use (lazy_re): the same matches as re's, one compilation each."""
from __future__ import annotations

import re

import pytest

from exportguard import lazy_re

pytestmark = pytest.mark.quick


def test_a_lazy_pattern_matches_as_re_does_and_compiles_once(monkeypatch):
    compiled = []
    real = re.compile
    monkeypatch.setattr(lazy_re.re, "compile", lambda p, f=0: compiled.append(p) or real(p, f))
    rx = lazy_re.compile(r"(\d+) (tok)/s", re.IGNORECASE)
    assert compiled == [] and rx.pattern == r"(\d+) (tok)/s"  # its text needs no compilation
    text = "101527 TOK/s and 99 tok/s"
    assert [m.groups() for m in rx.finditer(text)] == [m.groups() for m in real(rx.pattern, re.I).finditer(text)]
    assert rx.search(text).group(1) == "101527" and rx.sub("x", text) == "x and x"
    assert rx.groups == 2 and compiled == [rx.pattern]
