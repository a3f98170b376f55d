"""The workbook's number formats, and the budget they are planned within.

A throughput cell is a number whose format carries its binding as literal text
(``#,##0" tok/s ±5.4% [a]"``). Excel cannot open a workbook with more than about 200 custom number
formats (Office's implementation notes say 206; the specifications page 200-250 by language) and
LibreOffice keeps the first 9,856 and silently shows the rest as bare numbers, so a workbook holds at
most ``BUDGET`` custom formats, whatever its size. Formats are shared by every cell that shows the same
literal, and each table is written in one of three modes, planned before anything is written
(``plan``), the most binding first:

- ``ROW``: each figure's format carries its row's own marks (``[c]``), resolved in the notes block;
  one format per row and band edge, so only small workbooks can afford it;
- ``TABLE``: one mark for the whole table (``[a]``, the table note with its sources and retrieval
  date), shared by every figure of the table; the row's own note stays in its cells (result ID,
  verified status, system) and in the figure's cell comment; unverified rows add a mark of their own
  and derived columns their basis mark, so a table needs a handful of formats (MLPerf tables only:
  an own run's note must stand beside its figure);
- ``TEXT``: the figure cell holds its text with its own marks, beside a numeric sort-value column
  whose one format per decimals is shared by the whole workbook.

Rank and count cells (numbers whose format shows their words, ``0" (tie 3-11)"``) take what the
figures' cheapest modes leave of the budget, in section order, before the tables move up to ROW, all
of them or none, so that a mark means one thing in the whole workbook; a table whose ranks do not fit
writes them as text.
"""
from __future__ import annotations

import os.path
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

from .. import escaping
from ..caveat import UNVERIFIED_SENTENCE
from ..escaping import DIGITS
from ..embedding import CUSTOM_FORMAT_BUDGET
from ..citation import Note, TableNote
from ..model import RESULT_ID_PENDING
from ..report import BoundFigure, BoundTable, RankSpan
from .walk import Lettering

BUDGET = CUSTOM_FORMAT_BUDGET  # custom number formats per workbook, whatever its size (the checker's EG024)
ROW, TABLE, TEXT = "row", "table", "text"
SORT_LITERAL = " (sort value of the figure beside)"


def number_format(fig: BoundFigure, binding: str) -> str:
    """'#,##0" tok/s ±5.4% [a]"': the figure's digits, then its binding as literal text."""
    return escaping.number_format(fig.decimals, binding)


def figure_format(fig: BoundFigure, lettering: Lettering) -> str:
    return formats(fig, lettering.marks(fig))[0]


def edge_format(fig: BoundFigure, low: bool, lettering: Lettering) -> str:
    """'#,##0" tok/s, low edge of ±5.4% [a]"': a band edge's digits and what it is."""
    return formats(fig, lettering.marks(fig))[1 if low else 2]


def formats(fig: BoundFigure, marks: str) -> tuple[str, str, str]:
    """The figure's format and its low and high edges' (what they depend on is all in the key: a
    table's figures share a handful, so each is written once, not three times per figure)."""
    key = (fig.unit_text, fig.slack, marks, fig.decimals, fig.derivation is not None, fig.verified, fig.own)
    found = _FORMATS.get(key)
    if found is None:
        if len(_FORMATS) >= 4096:  # bounded: a long-lived process exports many workbooks
            _FORMATS.clear()
        found = _FORMATS[key] = (escaping.number_format(fig.decimals, fig.binding(marks)),
                                 escaping.number_format(fig.decimals, fig.edge_binding(True, marks)),
                                 escaping.number_format(fig.decimals, fig.edge_binding(False, marks)))
    return found


_FORMATS: dict[tuple, tuple[str, str, str]] = {}


def sort_format(decimals: int) -> str:
    """One format per decimals for every sort value in the workbook: it carries no unit, since a number
    with a throughput unit but no band or mark would be a bare figure."""
    return f'{DIGITS[decimals]}"{SORT_LITERAL}"'


def words_format(words: str, number_words: str) -> str:
    """A whole number shown with the words after it: rank 3 as '3 (tie 3-11)' is ``0" (tie 3-11)"``;
    the plain integer format where the words add nothing."""
    tail = words[len(number_words):] if words.startswith(number_words) else None
    if tail is None:
        raise ValueError(f"{words!r} does not start with {number_words!r}")
    return f'0"{escaping.format_literal(tail)}"' if tail else "0"


def rank_format(span: RankSpan) -> str:
    return words_format(span.words(), str(span.position))


def count_format(words: str, count: int) -> str:
    return words_format(words, str(count))


COUNT_KEYS = ("accelerators", "nodes")


def table_extras(key, table: BoundTable) -> list[tuple[tuple, set]]:
    """(("rank", key), formats) and (("count", key), formats): what a table's rank cells and its
    accelerator and node counts would take as numbers."""
    ranks = {rank_format(s) for s in table.ranks if s.ranked}
    counts: set[str] = set()
    cols = [i for i, c in enumerate(table.columns) if c.key in COUNT_KEYS]
    if cols:
        for row in table.rows:
            fig = next((c for c in row if isinstance(c, BoundFigure)), None)
            if fig is None:
                continue
            conf = fig.result.conditions.configuration
            for i in cols:
                count = conf.accelerators_total if table.columns[i].key == "accelerators" else conf.nodes
                if count is not None and row[i].startswith(str(count)):
                    counts.add(count_format(row[i], count))
    return [(("rank", key), ranks), (("count", key), counts)]


# The number formats every application knows by their ids (ECMA-376 Part 1, 18.8.30, as openpyxl
# lists them in openpyxl.styles.numbers.BUILTIN_FORMATS; tests/test_xlsx_writer.py holds the two
# alike): written here so that an export does not import openpyxl (some 20 MB) for one table.
BUILTIN_FORMATS = frozenset((
    "General", "0", "0.00", "#,##0", "#,##0.00", '"$"#,##0_);("$"#,##0)', '"$"#,##0_);[Red]("$"#,##0)',
    '"$"#,##0.00_);("$"#,##0.00)', '"$"#,##0.00_);[Red]("$"#,##0.00)', "0%", "0.00%", "0.00E+00", "# ?/?",
    "# ??/??", "mm-dd-yy", "d-mmm-yy", "d-mmm", "mmm-yy", "h:mm AM/PM", "h:mm:ss AM/PM", "h:mm", "h:mm:ss",
    "m/d/yy h:mm", "#,##0_);(#,##0)", "#,##0_);[Red](#,##0)", "#,##0.00_);(#,##0.00)", "#,##0.00_);[Red](#,##0.00)",
    '_(* #,##0_);_(* \\(#,##0\\);_(* "-"_);_(@_)', '_("$"* #,##0_);_("$"* \\(#,##0\\);_("$"* "-"_);_(@_)',
    '_(* #,##0.00_);_(* \\(#,##0.00\\);_(* "-"??_);_(@_)',
    '_("$"* #,##0.00_)_("$"* \\(#,##0.00\\)_("$"* "-"??_)_(@_)', "mm:ss", "[h]:mm:ss", "mmss.0", "##0.0E+0",
    "@"))


def is_custom(code: str) -> bool:
    """A format the workbook must define (one of Excel's built-in formats needs no definition)."""
    return code not in BUILTIN_FORMATS


def custom(codes: Iterable[str]) -> set[str]:
    return {c for c in codes if is_custom(c)}


# -- one mark per table ----------------------------------------------------------------------------

class TableMarks(Lettering):
    """The marks of a table in TABLE mode: [a] for the table note (every figure), then the mark of
    the note for unverified rows, then each derived column's basis, in order of reading. A headline
    is a table of one figure (``of_headline``): its [a] means what a table's does."""

    def __init__(self, table: BoundTable | None, note: TableNote | None = None, figures: Sequence[BoundFigure] = ()):
        super().__init__()
        self._letters_of: dict[tuple, tuple[str, ...]] = {}
        self._marks_of: dict[tuple, str] = {}
        figures = [f for _, _, f in table.figures()] if table is not None else list(figures)
        self.table_note = Note(mark_text(table.table_note if table is not None else note, figures))
        self.unverified = Note(f"Rows labelled unverified: {UNVERIFIED_SENTENCE}") if any(
            not f.verified for f in figures) else None
        for fig in figures:
            self.add(fig)

    def notes_of(self, fig: BoundFigure) -> tuple[Note, ...]:
        if fig.own:  # an own run's figure beside the MLPerf table keeps its own note (BesideMarks)
            return fig.notes
        own = (self.table_note,) + ((self.unverified,) if not fig.verified else ())
        return own + ((fig.derivation.note,) if fig.derivation else ())

    # A table's figures share a handful of note tuples: each one's marks are worked out once (a mark,
    # once given, never changes, so nothing here goes stale as later figures are added).
    def letters(self, fig: BoundFigure) -> tuple[str, ...]:
        notes = self.notes_of(fig)
        found = self._letters_of.get(notes)
        if found is None:
            found = self._letters_of[notes] = super().letters(fig)
        return found

    def marks(self, fig: BoundFigure) -> str:
        notes = self.notes_of(fig)
        found = self._marks_of.get(notes)
        if found is None:
            found = self._marks_of[notes] = super().marks(fig)
        return found


class BesideMarks(TableMarks):
    """A beside section's marks in TABLE mode: the MLPerf panel's one mark per table, then the own
    panels' figures with their own notes, lettered on after it, so that no mark repeats on the sheet."""

    def __init__(self, mlperf: BoundTable, own: Sequence[BoundTable]):
        super().__init__(mlperf)
        for table in own:
            for _, _, fig in table.figures():
                self.add(fig)


def headline_marks(note: TableNote, figure: BoundFigure) -> TableMarks:
    """A headline's marks in TABLE mode: [a] its conditions, source and retrieval, as a table's."""
    return TableMarks(None, note, [figure])


def mark_text(table_note: TableNote, figures: Sequence[BoundFigure]) -> str:
    """The note of a table's one mark: the conditions its rows share, where their sources are and
    when they were retrieved (unless the table note says it already: one repository, one date), and
    where each row's own note stands."""
    results = {f.result.natural_key: f.result for f in figures}.values()
    urls = sorted({r.conditions.provenance.source_url for r in results})
    dates = sorted({r.conditions.provenance.retrieved_on for r in results})
    prefix = os.path.commonprefix(urls) if urls else ""
    prefix = prefix[:prefix.rfind("/") + 1] if "/" in prefix else prefix
    where = (f"results under {prefix}" if len(urls) > 1 and prefix.count("/") > 3 else
             urls[0] if len(urls) == 1 else "each row's own")
    when = dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}"
    pending = any(r.conditions.identity.result_id_state == RESULT_ID_PENDING for r in results)
    source = "" if table_note.shared.retrieved_on else f" Source: {where}, retrieved {when}."
    return (f"{table_note.text}{source} Each row's result ID and verified status "
            f"stand in its row{' (a result ID pending where it reads (pending))' if pending else ''}; its own note "
            "(system, configuration, tokens per sample, source folder) is in the figure's cell comment and on the "
            "Sources sheet.")


# -- the plan --------------------------------------------------------------------------------------

@dataclass
class Unit:
    """A table, a chart's table, a panel or a headline: what each of its modes would cost."""

    key: object
    figures: Sequence[BoundFigure]
    lettering_of: Callable[[], Lettering]  # its marks in ROW and TEXT mode, made when first asked for
    mlperf: bool
    kpi: bool = False
    costs: dict = field(default_factory=dict)  # mode -> custom formats
    marks: TableMarks | None = None
    _lettering: Lettering | None = None

    @property
    def lettering(self) -> Lettering:
        """Made on first use: a large table in TABLE mode never letters each row's note."""
        if self._lettering is None:
            self._lettering = self.lettering_of()
        return self._lettering


def unit(key, table: BoundTable | None, lettering: Lettering | Callable[[], Lettering],
         figures: Sequence[BoundFigure] | None = None, kpi: bool = False, marks: TableMarks | None = None) -> Unit:
    """``lettering``: the unit's own marks, or what makes them; ``marks``: the lettering of TABLE mode
    (one mark for an MLPerf table), where it is not the table's own."""
    figs = list(figures) if figures is not None else [f for _, _, f in table.figures()]
    make = lettering if callable(lettering) else (lambda: lettering)
    u = Unit(key, figs, make, bool(table is not None and table.cohort.mlperf), kpi)
    # each distinct note needs at least one format of its own: past the budget, ROW is out of reach
    if len({note for f in figs for note in f.notes}) <= BUDGET:
        u.costs[ROW] = _codes(figs, u.lettering)
    if marks is not None or (table is not None and u.mlperf):
        u.marks = marks or TableMarks(table)
        u.costs[TABLE] = _codes(figs, u.marks)
    u.costs[TEXT] = set() if kpi else custom(sort_format(f.decimals) for f in figs)
    return u


def _codes(figures: Iterable[BoundFigure], lettering: Lettering) -> set[str]:
    out: set[str] = set()
    for fig in figures:
        out.add(figure_format(fig, lettering))
        if fig.derivation is None and fig.slack.estimable:
            out.add(edge_format(fig, True, lettering))
            out.add(edge_format(fig, False, lettering))
    return custom(out)


@dataclass
class Plan:
    modes: dict  # unit key -> ROW / TABLE / TEXT
    units: dict  # unit key -> Unit
    used: set  # the custom formats the figures take
    extras: dict = field(default_factory=dict)  # extra key -> True when its numeric form fits

    def mode(self, key) -> str:
        return self.modes[key]

    def lettering(self, key) -> Lettering:
        """A unit's marks: in TABLE mode the one mark for the table; a table written as text (TEXT) takes
        it too where any unit of the workbook is in TABLE mode, so that [a] means the table note on every
        sheet, never a row's note on one and the table's on the next."""
        u = self.units[key]
        table = self.modes[key] == TABLE or (self.modes[key] == TEXT and u.marks is not None
                                              and TABLE in self.modes.values())
        return u.marks if table else u.lettering


def plan(units: Sequence[Unit], text_cells: bool = False, extras: Sequence[tuple[object, set]] = (),
         budget: int | None = None) -> Plan:
    """Each unit's mode within the budget: the cheapest numeric mode for every unit (TABLE for an MLPerf
    table, else ROW); while over the budget, the unit that takes the most formats becomes TEXT (the last
    of equals first); then extras (rank and count cells) are numeric, in order, where what they add
    still fits (a number that sorts is worth more than a row's own mark); then every table moves up to ROW
    where all of them still fit. ``text_cells``: every table TEXT."""
    budget = BUDGET if budget is None else budget
    modes: dict = {}
    for u in units:
        if text_cells and not u.kpi:
            modes[u.key] = TEXT
        else:
            modes[u.key] = TABLE if TABLE in u.costs else ROW if ROW in u.costs else TEXT

    def used() -> set:
        return set().union(*(u.costs[modes[u.key]] for u in units)) if units else set()

    taken = used()
    while len(taken) > budget:
        numeric = [u for u in units if modes[u.key] != TEXT]
        if not numeric:
            break
        worst = max(reversed(numeric), key=lambda u: len(u.costs[modes[u.key]]))
        modes[worst.key] = TEXT
        taken = used()
    fits, extra = {}, set()
    for key, codes in extras:  # numbers that sort come before marks of a row's own
        codes = custom(codes)
        fits[key] = len(taken | extra | codes) <= budget
        if fits[key]:
            extra |= codes
    # Every table moves up to ROW, or none does: a mark then means one thing in the whole workbook (a
    # row's own note on every sheet, or the table's note), never [a] a row's note on one sheet and the
    # table note on the next.
    table_units = [u for u in units if modes[u.key] == TABLE and ROW in u.costs]
    if table_units and len(table_units) == sum(modes[u.key] == TABLE for u in units):
        for u in table_units:
            modes[u.key] = ROW
        if len(used() | extra) > budget:
            for u in table_units:
                modes[u.key] = TABLE
    taken = used() | extra
    return Plan(modes, {u.key: u for u in units}, taken, fits)
