"""The two figure panels of a beside section (report.BesideSection), lettered together: the MLPerf
panel's notes first, then the own panel's, so that every mark is unique on the slide, page, sheet or
section that shows both. Every format that draws a beside section takes its parts from here."""
from __future__ import annotations

from ..citation import Note
from ..report import BesideSection, BoundTable
from .walk import Lettering, TablePart


def beside_parts(n: int, section: BesideSection) -> tuple[TablePart, tuple[TablePart, ...], Lettering]:
    """The MLPerf panel's part, the own panel's parts (one per own cohort), and their one lettering."""
    figures = [f for table in section.tables() for _, _, f in table.figures()]
    lettering = Lettering(figures)
    mlperf, *own = (TablePart(n, t.title, t, 0, len(t.rows), lettering) for t in section.tables())
    return mlperf, tuple(own), lettering


def notes_of(table: BoundTable, lettering: Lettering) -> list[tuple[str, Note]]:
    """(mark, note) of the notes one panel's figures resolve to, in mark order."""
    wanted = {note for _, _, f in table.figures() for note in f.notes}
    return [(m, note) for m, note in lettering.notes() if note in wanted]
