"""Ranks as a report states them, read back and held against the guard: a rank cell parsed ('3',
'3 (tie 2-5)', 'not ranked') and every pair of shown rows checked with guard.is_tie; and the reports the
rank tests read them from (the demo's three specs in exportguard/data, the examples folder).
"""
from __future__ import annotations

import re

from exportguard.guard import is_tie
from exportguard.wording import NOT_RANKED
from tests.conftest import REPO

EXAMPLES = REPO / "examples"
DEMO_SPECS = ("demo.toml", "demo-deck.toml", "demo-briefing.toml")
RANK = re.compile(r"^(\d+)(?: \(tie (\d+)-(\d+)\))?$")


def parse_rank(text: str) -> tuple[int, int, int] | None:
    """'3 (tie 2-5)' -> (3, 2, 5); '3' -> (3, 3, 3); 'not ranked' -> None. Any other form fails."""
    if text == NOT_RANKED:
        return None
    m = RANK.match(text)
    assert m, f"a rank reads '3' or '3 (tie 2-5)' or {NOT_RANKED!r}, not {text!r}"
    pos = int(m.group(1))
    lo, hi = (int(m.group(2)), int(m.group(3))) if m.group(2) else (pos, pos)
    assert lo <= pos <= hi and (lo, hi) != (pos, pos) or not m.group(2), text
    return pos, lo, hi


def assert_ranks_hold(values: list[float], ranks: list[tuple[int, int, int] | None], slack, where: str) -> int:
    """Every pair of shown rows: j is in i's tie span exactly when the two are within slack. A span may
    run past the last row shown (a top N cut inside a tie), never past a row that is not tied.
    Returns the number of pairs checked."""
    assert values == sorted(values, reverse=True), where
    if not slack.estimable:
        assert ranks == [None] * len(values), f"{where}: ranked without an estimable slack"
        return 0
    pairs = 0
    for i, rank in enumerate(ranks):
        assert rank is not None, where
        pos, lo, hi = rank
        assert pos == i + 1, where
        for j in range(len(values)):
            tied = is_tie(values[i], values[j], slack)
            assert (lo <= j + 1 <= hi) == tied, (where, i + 1, j + 1, values[i], values[j], rank)
            pairs += 1
        assert hi == i + 1 or hi < len(values) or is_tie(values[i], values[-1], slack), (where, rank)
    return pairs
