"""Baseline for the pdf case of bench/run.py: the briefing's table laid out the plain way, as one reportlab
platypus LongTable (header row repeated on every page) built by SimpleDocTemplate.

"The same rows and cells": every cell holds what the briefing draws in it, a text cell broken into
the same lines (joined with newlines), a figure as its bound text with its marks; the columns have
the same widths, the same embedded DejaVu face and type size, on the same page size and margins.
What the baseline does not do: no notes, no caveat, no sources appendix, no manifest. It measures
what reportlab's own table layout costs for these rows, which grows faster than linearly with
their number (each page split re-lays the rows that are left).
"""
from __future__ import annotations

from pathlib import Path


def prepare(report):
    """The table's header and rows as the briefing lays them out, and that layout (its widths,
    type size and page): built before the timed part."""
    from exportguard.render import pdf_tables as tab
    from exportguard.render.pdf_text import Metrics, register_fonts
    from exportguard.render.walk import Lettering
    from exportguard.report import BoundFigure

    from exportguard.render.pdf_planner import lean_where_denser

    register_fonts()
    table = lean_where_denser(report, "a4").sections[0].table  # the columns the briefing shows
    layout = tab.TableLayout(Metrics(), label="Table 1", title=table.title, shared="",
                             headers=[c.header for c in table.columns], rows=table.rows, letters=2)
    layout.geometry = layout.fit(tab.FITS)
    lettering = Lettering([f for _, _, f in table.figures()])
    data = [["\n".join(lines) for lines in layout.head_lines]]
    for r, row in enumerate(table.rows):
        data.append([lettering.text(c) if isinstance(c, BoundFigure) else "\n".join(layout.measured[r][k])
                     for k, c in enumerate(row)])
    return data, layout


def render(data: list[list[str]], layout, path: Path) -> None:
    from reportlab.lib import colors
    from reportlab.platypus import LongTable, SimpleDocTemplate, TableStyle

    from exportguard.render import pdf_layout as lay

    cell, head, g = layout.cell_style, layout.head_style, layout.geometry
    table = LongTable(data, repeatRows=1, colWidths=layout.widths)
    table.setStyle(TableStyle([
        ("FONT", (0, 0), (-1, 0), head.font, head.size, head.leading),
        ("FONT", (0, 1), (-1, -1), cell.font, cell.size, cell.leading),
        ("GRID", (0, 0), (-1, -1), 0.25, colors.grey),
        ("BACKGROUND", (0, 0), (-1, 0), colors.lightgrey),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("ALIGN", (-1, 1), (-1, -1), "RIGHT"),
    ]))
    doc = SimpleDocTemplate(str(path), pagesize=(g.page_w, g.page_h), leftMargin=lay.MARGIN_X,
                            rightMargin=lay.MARGIN_X, topMargin=lay.MARGIN_TOP, bottomMargin=lay.MARGIN_BOTTOM)
    doc.build([table])
