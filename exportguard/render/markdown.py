"""Markdown: tables with marks, each followed by its notes; the caveat at the top in short form
and in full at the end. The manifest stands beside the file (<name>.md.manifest.json, as a CSV's
does), and the file ends with a one-line HTML comment naming it, which a rendered page does not show.

Escaping (escaping.markdown_text) is what CommonMark and GitHub-flavoured Markdown need and no more, so that a
rendered page shows the text exactly (``5.1-0046``, ``inference_results_v5.1``), while nothing in it
can become markup: no emphasis, code, link, image, autolink, HTML, strikethrough, table cell
boundary, heading, list, quote or thematic break. An e-mail address still renders as a mailto link
(GFM finds those after escapes are resolved), and nothing else does.
"""
from __future__ import annotations

from pathlib import Path

from ..embedding import MD_POINTER, md_headline, md_table_cell
from ..escaping import markdown_figure, markdown_text
from ..report import BesideSection, ChartSection, KpiSection, Report, TableSection, TextSection
from ..wording import BESIDE_RULE, both_shapes_title, note_line, shape_line
from .panels import beside_parts, notes_of
from .walk import FigureCell, TablePart, Walk, walk


class MarkdownRenderer:
    format = "markdown"

    def __init__(self):
        self.lines: list[str] = []
        self.heading = 0  # "## " headings so far: the checker numbers a Markdown file's sections by them

    def _heading(self, title: str) -> int:
        self.heading += 1
        self.lines += [f"## {markdown_text(title)}", ""]
        return self.heading

    def front(self, doc: Walk) -> None:
        self.lines += [f"# {markdown_text(doc.report.title)}", "", f"> {markdown_text(doc.report.caveat_short)}", ""]

    def table(self, doc: Walk, n: int, section: TableSection | ChartSection) -> None:
        part = doc.part(n, section.title, section.table)
        self._part(doc, self._heading(section.title), part)
        self.lines += ["- " + note_line(m, markdown_text(note.text)) for m, note in part.lettering.notes()]
        self._legend(doc)

    def beside(self, doc: Walk, n: int, section: BesideSection) -> None:
        """Two panels in one section, each a table with its own note and notes (marks lettered across
        both), never one comparison; then the shape panel with both shapes in numbers."""
        mlperf, own, lettering = beside_parts(n, section)
        for part in (mlperf, *own):
            self._part(doc, self._heading(part.title), part)
            self.lines += ["- " + note_line(m, markdown_text(note.text)) for m, note in notes_of(part.table, lettering)]
            self.lines += ["", f"*{markdown_text(BESIDE_RULE)}*", ""]
        self._heading(both_shapes_title(section.title))
        self.lines += [f"- {markdown_text(shape_line(r.label, r.shape, r.load))}"
                       for r in (section.shape.mlperf, *section.shape.own)]
        self.lines += ["", markdown_text(section.shape.sentence)]
        self._legend(doc)

    def _part(self, doc: Walk, n: int, part: TablePart) -> None:
        table = part.table
        lines = self.lines
        lines += [f"*{markdown_text(table.table_note.text)}*", ""]
        lines += self._notices(table.notices)
        lines.append("| " + " | ".join(markdown_text(c.header) for c in table.columns) + " |")
        lines.append("|" + "|".join("---:" if c.holds_figures else "---" for c in table.columns) + "|")
        for r, cells in part.cells():
            out = []
            for c, cell in enumerate(cells, 1):
                if isinstance(cell, FigureCell):
                    text = markdown_figure(cell.text)
                    doc.place(md_table_cell(n, r + 1, c), cell.figure, part.lettering, text)
                    out.append(text)
                else:
                    out.append(markdown_text(cell))
            lines.append("| " + " | ".join(out) + " |")
        lines.append("")

    chart = table

    def kpi(self, doc: Walk, n: int, section: KpiSection) -> None:
        lettering = doc.kpi_part(section)
        text = markdown_figure(lettering.text(section.figure))
        doc.place(md_headline(self._heading(section.title)), section.figure, lettering, text)
        self.lines += [f"**{text}**: {markdown_text(section.inline_conditions)}", "",
                       f"*{markdown_text(section.table_note.text)}*", ""]
        self.lines += self._notices(section.notices)
        self.lines += ["- " + note_line(m, markdown_text(note.text)) for m, note in lettering.notes()]
        self._legend(doc)

    def text(self, doc: Walk, n: int, section: TextSection) -> None:
        self._heading(section.title)
        for p in section.paragraphs:
            self.lines += [markdown_text(p), ""]

    @staticmethod
    def _notices(notices) -> list[str]:
        """The guard's statements beside a comparison (EG020: different scales), one quoted line each."""
        return [line for x in notices for line in (f"> **Note:** {markdown_text(x.text)}", "")]

    def _legend(self, doc: Walk) -> None:
        self.lines += ["", f"<sub>{markdown_text(doc.report.legend)}</sub>", ""]

    def back(self, doc: Walk) -> dict:
        self.lines += ["## Caveat", ""] + [markdown_text(p) + "\n" for p in doc.report.caveat_full] + [markdown_text(doc.report.legend), ""]
        return doc.manifest()


def render(report: Report, path: Path, clock=None, **_options) -> dict:
    renderer = MarkdownRenderer()
    manifest = walk(report, renderer, clock)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(renderer.lines))
        f.write("\n" + MD_POINTER + "\n")
    return manifest
