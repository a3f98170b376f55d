"""Content that every format shows, composed once: the conditions a table's rows share, and the
Sources table (one citation per result shown). A format lays it out (a sheet, a slide's table, a page's table) and escapes its text; it does
not decide what it says.

What every result shares (the suite, round, division, availability, benchmark and scenario, verified
status and retrieval date) is stated once above the table, and so is the folder every source is in,
so that each row holds what tells its result apart. Rows are made as they are read (``rows()``): a
workbook of 100,000 results never holds them all.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable, Iterator, Mapping, Sequence

from ..citation import result_id_cell, source_words, suite_name
from ..model import Result
from ..report import BoundTable
from ..states import NOT_APPLICABLE
from ..wording import TIE_RULE

def shared_conditions(table: BoundTable, ranks_shown: bool | None = None, lead: str = "Every row") -> str:
    """'Every row: <the table note>', then what a table's or chart's shared conditions add wherever it
    shows: the tie rule where ranks show (the not-ranked sentence is in the table note already), and
    the guard's notices in readers' words (no rule ID)."""
    ranks_shown = table.ranked if ranks_shown is None else ranks_shown
    out = f"{lead}: {table.table_note.text}"
    if ranks_shown and table.slack.estimable:
        out += f" {TIE_RULE}"
    return out + "".join(f" {x.text}" for x in table.notices)


SOURCES_TITLE = "Sources: one citation per result shown"
SHOWN_ON = "Shown on"

_Get = Callable[[Result, str], str]
# (header, what a row shows there); the last column is where the artifact shows the result.
_COLUMNS: tuple[tuple[str, _Get], ...] = (
    ("Result ID", lambda r, on: result_id_cell(r)),
    ("Suite", lambda r, on: suite_name(r) if r.conditions.identity.mlperf else "not MLPerf"),
    ("Round", lambda r, on: r.conditions.identity.round),
    ("Division", lambda r, on: r.conditions.identity.division),
    ("Availability", lambda r, on: r.conditions.identity.availability),
    ("Submitter", lambda r, on: r.conditions.identity.submitter),
    ("System", lambda r, on: r.conditions.identity.system_name),
    ("Benchmark, scenario", lambda r, on: f"{r.conditions.benchmark.benchmark} {r.conditions.benchmark.scenario}"),
    ("Verified", lambda r, on: r.conditions.identity.verified),
    ("Retrieved", lambda r, on: r.conditions.provenance.retrieved_on),
    # in readers' words, with no local path (citation.source_words): the paths are in the manifest
    ("Source", lambda r, on: source_words(r)),
    (SHOWN_ON, lambda r, on: on),
)
# Columns stated once above the header where every result has the same value; the others tell the
# results apart (or, like a source's URL, are its own) and always stay columns.
_SHAREABLE = ("Suite", "Round", "Division", "Availability", "Benchmark, scenario", "Verified", "Retrieved")
_FOLDERED = {"Source": "every source in it starts with"}
_FOLDER_MIN = 16  # characters: a shorter shared folder is left in every row
# A page or a slide joins related columns into one (their values with ", "), to stay one page wide.
_JOINED = (("Result ID",), ("Submitter", "System"), ("Benchmark, scenario",), ("Suite", "Round", "Division", "Availability"),
           ("Verified", "Retrieved"), ("Source",), (SHOWN_ON,))


@dataclass(frozen=True)
class Sources:
    """The Sources table of one artifact: ``shared`` (header, value) every result has, ``folders``
    (header, folder) every value of that column starts with, and the columns that remain."""

    results: tuple[Result, ...]
    shown_on: Mapping[tuple, str]  # a result's natural key -> where the artifact shows it ("2, 3")
    shown_header: str
    shared: tuple[tuple[str, str], ...]
    folders: tuple[tuple[str, str], ...]
    columns: tuple[str, ...]  # the column headers, as _COLUMNS names them

    @property
    def headers(self) -> tuple[str, ...]:
        return tuple(self.shown_header if h == SHOWN_ON else h for h in self.columns)

    def said(self) -> str:
        """'Every result in this table: Round: v5.1; Division: closed; every source in it starts with
        https://...': true above the table (a sheet, a page) and under it (a slide's footer row)."""
        parts = [f"{h}: {v}" for h, v in self.shared] + [f"{_FOLDERED[h]} {f}" for h, f in self.folders]
        return "Every result in this table: " + "; ".join(parts) + "." if parts else ""

    def rows(self) -> Iterator[list[str]]:
        """Each result's row, made when read."""
        return map(self.row, self.results)

    def row(self, r: Result) -> list[str]:
        """One result's column values, each shared folder cut from its column."""
        getters = dict(_COLUMNS)
        values = [getters[h](r, self.shown_on.get(r.natural_key, "")) for h in self.columns]
        for h, f in self.folders:
            k = self.columns.index(h)
            values[k] = values[k][len(f):]
        return values

    def joined(self) -> tuple[tuple[str, ...], Callable[[list[str]], list[str]]]:
        """The headers and a row maker for a page or a slide: related columns joined into one
        ("Submitter, System"), a group whose every column is stated above left out."""
        groups = [[h for h in g if h in self.columns] for g in _JOINED]
        groups = [g for g in groups if g]
        at = {h: k for k, h in enumerate(self.columns)}
        headers = tuple(", ".join(self.shown_header if h == SHOWN_ON else h for h in g) for g in groups)
        headers = tuple(h[0] + h[1:].lower() if ", " in h else h for h in headers)

        def row(values: list[str]) -> list[str]:  # an own run's round, division, availability: n/a, left out
            return [", ".join(v for h in g if (v := values[at[h]]) and v != NOT_APPLICABLE) for g in groups]

        return headers, row


def sources(results: Sequence[Result], shown_on: Mapping[tuple, str], shown_header: str = SHOWN_ON) -> Sources:
    """The Sources table of the results an artifact shows, in order of first appearance."""
    results = tuple(results)
    same = _shared(results)
    columns = tuple(h for h, _ in _COLUMNS if h not in same)
    getters = dict(_COLUMNS)
    folders = tuple((h, f) for h in columns if h in _FOLDERED
                    and (f := _shared_folder([getters[h](r, "") for r in results])))
    return Sources(results, shown_on, shown_header, tuple(same.items()), folders, columns)


def _shared(results: Sequence[Result]) -> dict[str, str]:
    """The shareable columns whose value is the same for every result (header -> value), in the
    columns' order; none when there are fewer than two results."""
    if len(results) < 2:
        return {}
    getters = {h: get for h, get in _COLUMNS if h in _SHAREABLE}
    first = {h: get(results[0], "") for h, get in getters.items()}
    for r in results[1:]:
        for h in [h for h in first if getters[h](r, "") != first[h]]:
            del first[h]
        if not first:
            break
    return first


def _shared_folder(locators: Sequence[str]) -> str:
    """The folder (ending in '/') every locator (or URL) is in, where it is long enough to be worth
    stating once; '' otherwise. Each row keeps the rest: its file or folder name, its place in it."""
    if len(locators) < 2 or not all(locators):
        return ""
    prefix = os.path.commonprefix(list(locators))
    folder = prefix[:prefix.rfind("/") + 1]
    return folder if len(folder) >= _FOLDER_MIN else ""
