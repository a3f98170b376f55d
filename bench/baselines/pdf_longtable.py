"""Baseline for bench/bench_pdf.py: the same rows and cells as the PDF briefing's table, laid out
the plain way, as one reportlab platypus LongTable (header row repeated on every page) built by
SimpleDocTemplate. No notes, no binding, no manifest: just what reportlab's own table layout costs
for these rows, which grows faster than linearly with their number.

    python bench/baselines/pdf_longtable.py --n 5000 --out /tmp/longtable.pdf --url sqlite:///...
"""
from __future__ import annotations

from pathlib import Path


def table_data(report) -> list[list[str]]:
    """The header and every row of the report's first table, each cell as the text the briefing
    shows (a figure as its bound text, lettered over the whole table)."""
    from exportguard.render.walk import Lettering
    from exportguard.report import BoundFigure

    table = report.sections[0].table
    lettering = Lettering([f for _, _, f in table.figures()])
    data = [[c.header for c in table.columns]]
    for row in table.rows:
        data.append([lettering.text(c) if isinstance(c, BoundFigure) else str(c) for c in row])
    return data


def render(data: list[list[str]], path: Path) -> None:
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4, landscape
    from reportlab.platypus import LongTable, SimpleDocTemplate, TableStyle

    from exportguard.render.pdf_text import NARROW, NARROW_BOLD, register_fonts

    register_fonts()  # the same embedded DejaVu faces as the briefing
    table = LongTable(data, repeatRows=1)
    table.setStyle(TableStyle([
        ("FONT", (0, 0), (-1, 0), NARROW_BOLD, 7.8),
        ("FONT", (0, 1), (-1, -1), NARROW, 7.8),
        ("GRID", (0, 0), (-1, -1), 0.25, colors.grey),
        ("BACKGROUND", (0, 0), (-1, 0), colors.lightgrey),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("ALIGN", (-1, 1), (-1, -1), "RIGHT"),
    ]))
    doc = SimpleDocTemplate(str(path), pagesize=landscape(A4), leftMargin=30, rightMargin=30, topMargin=30,
                            bottomMargin=30)
    doc.build([table])


if __name__ == "__main__":
    import argparse
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from bench_pdf import make_report  # noqa: E402

    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--url", required=True)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    render(table_data(make_report(args.url, args.n)), args.out)
