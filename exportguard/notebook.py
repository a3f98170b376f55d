"""HTML for Jupyter (``_repr_html_`` of a Selection and a BoundReport): a report walked as every
format walks it (render/walk.py), so a notebook shows what an export would: each figure with its
band and marks, each table's note and notices, the notes its marks resolve to below it, and the
caveat, short at the top and in full at the end.

Every text goes through ``html.escape`` (quotes too) after sanitize.visible, figures included: the
only markup is the fixed set of tags written here, none with an attribute that comes from data.
A long table shows its first MAX_ROWS rows, lettered on their own, and says how many it holds:
a notebook cell stays bounded, and the records or an export hold every row.
"""
from __future__ import annotations

import html

from .report import BesideSection, ChartSection, KpiSection, Report, TableSection, TextSection
from .render.panels import beside_parts, notes_of
from .render.walk import FigureCell, TablePart, Walk, walk
from .sanitize import visible
from .wording import BESIDE_RULE, both_shapes_title, shape_line

MAX_ROWS = 200  # rows of one table a notebook cell shows
TAGS = ("div", "h3", "h4", "p", "em", "strong", "small", "table", "thead", "tbody", "tr", "th", "td", "ul", "li")


def esc(text) -> str:
    """Text as HTML shows it literally, on one line."""
    return html.escape(visible(str(text)), quote=True)


class HtmlRenderer:
    format = "html"

    def __init__(self):
        self.out: list[str] = []

    def front(self, doc: Walk) -> None:
        r = doc.report
        self.out += ['<div class="exportguard">', f"<h3>{esc(r.title)}</h3>", f"<p><em>{esc(r.caveat_short)}</em></p>"]

    def table(self, doc: Walk, n: int, section: TableSection | ChartSection) -> None:
        part = doc.part(n, section.title, section.table, 0, MAX_ROWS)
        self.out.append(f"<h4>{esc(section.title)}</h4>")
        self._part(part)
        self._notes(part.lettering.notes())
        self._legend(doc)

    chart = table  # a chart's figures, as the table they are drawn from

    def _part(self, part: TablePart) -> None:
        table = part.table
        self.out.append(f"<p><em>{esc(table.table_note.text)}</em></p>")
        self._notices(table.notices)
        self.out.append("<table><thead><tr>" + "".join(f"<th>{esc(c.header)}</th>" for c in table.columns)
                        + "</tr></thead><tbody>")
        for _, cells in part.cells():
            self.out.append("<tr>" + "".join(
                f'<td style="text-align:right">{esc(c.text)}</td>' if isinstance(c, FigureCell) else f"<td>{esc(c)}</td>"
                for c in cells) + "</tr>")
        self.out.append("</tbody></table>")
        if part.stop < len(table.rows):
            self.out.append(f"<p><em>Showing the first {part.stop} of {len(table.rows)} rows (ranked among all of "
                            "them): the records and an export hold every row.</em></p>")

    def kpi(self, doc: Walk, n: int, section: KpiSection) -> None:
        lettering = doc.kpi_part(section)
        self.out += [f"<h4>{esc(section.title)}</h4>",
                     f"<p><strong>{esc(lettering.text(section.figure))}</strong>: {esc(section.inline_conditions)}</p>",
                     f"<p><em>{esc(section.table_note.text)}</em></p>"]
        self._notices(section.notices)
        self._notes(lettering.notes())
        self._legend(doc)

    def text(self, doc: Walk, n: int, section: TextSection) -> None:
        self.out.append(f"<h4>{esc(section.title)}</h4>")
        self.out += [f"<p>{esc(p)}</p>" for p in section.paragraphs]

    def beside(self, doc: Walk, n: int, section: BesideSection) -> None:
        """Two panels, each with its own note and notes (marks lettered across both), never one
        comparison; then both shapes in numbers."""
        mlperf, own, lettering = beside_parts(n, section)
        for part in (mlperf, *own):
            self.out.append(f"<h4>{esc(part.title)}</h4>")
            self._part(part)
            self._notes(notes_of(part.table, lettering))
            self.out.append(f"<p><em>{esc(BESIDE_RULE)}</em></p>")
        self.out.append(f"<h4>{esc(both_shapes_title(section.title))}</h4><ul>")
        self.out += [f"<li>{esc(shape_line(r.label, r.shape, r.load))}</li>"
                     for r in (section.shape.mlperf, *section.shape.own)]
        self.out += ["</ul>", f"<p>{esc(section.shape.sentence)}</p>"]
        self._legend(doc)

    def _notices(self, notices) -> None:
        self.out += [f"<p><strong>Note:</strong> {esc(x.text)}</p>" for x in notices]

    def _notes(self, notes) -> None:
        if notes:
            self.out.append("<ul>" + "".join(f"<li>[{esc(m)}] {esc(note.text)}</li>" for m, note in notes) + "</ul>")

    def _legend(self, doc: Walk) -> None:
        self.out.append(f"<p><small>{esc(doc.report.legend)}</small></p>")

    def back(self, doc: Walk) -> str:
        self.out.append("<h4>Caveat</h4>")
        self.out += [f"<p><small>{esc(p)}</small></p>" for p in doc.report.caveat_full]
        self.out += [f"<p><small>{esc(doc.report.legend)}</small></p>", "</div>"]
        return "\n".join(self.out)


def report_html(report: Report) -> str:
    return walk(report, HtmlRenderer())


def empty_html(reason: str) -> str:
    """An empty selection: why, with what is stored instead."""
    lines = "".join(f"<p>{esc(line)}</p>" for line in (reason or "nothing selected").split("\n"))
    return f'<div class="exportguard">{lines}</div>'


def refusal_html(findings) -> str:
    """What the guard refused to show, finding by finding (rule, where, way out)."""
    items = "".join(f"<li>{esc(f)}</li>" for f in findings)
    return f'<div class="exportguard"><p><strong>Refused by the guard:</strong></p><ul>{items}</ul></div>'
