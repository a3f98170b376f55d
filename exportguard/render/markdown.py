"""Markdown: tables with marks, each followed by its notes; the caveat at the top in short form
and in full at the end; the manifest in an HTML comment at the end of the file."""
from __future__ import annotations

from pathlib import Path

from .. import manifest as manifest_mod
from ..report import ChartSection, KpiSection, Report, TableSection, TextSection
from .walk import FigureCell, Walk, walk

from ..check.manifests import MD_CLOSE as MANIFEST_CLOSE, MD_OPEN as MANIFEST_OPEN


def _cell(text: str) -> str:
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").replace("<", "&lt;")


class MarkdownRenderer:
    format = "markdown"

    def __init__(self):
        self.lines: list[str] = []

    def front(self, doc: Walk) -> None:
        self.lines += [f"# {_cell(doc.report.title)}", "", f"> {doc.report.caveat_short}", ""]

    def table(self, doc: Walk, n: int, section: TableSection | ChartSection) -> None:
        table = section.table
        part = doc.part(n, section.title, table)
        lines = self.lines
        lines += [f"## {_cell(section.title)}", "", f"*{_cell(table.table_note.text)}*", ""]
        lines.append("| " + " | ".join(_cell(c.header) for c in table.columns) + " |")
        lines.append("|" + "|".join("---:" if c.kind in ("figure", "derived") else "---" for c in table.columns) + "|")
        for r, cells in part.cells():
            out = []
            for c, cell in enumerate(cells, 1):
                if isinstance(cell, FigureCell):
                    doc.place(f"section {n}, table row {r + 1}, column {c}", cell.figure, part.lettering,
                              _cell(cell.text))
                    out.append(_cell(cell.text))
                else:
                    out.append(_cell(cell))
            lines.append("| " + " | ".join(out) + " |")
        lines.append("")
        lines += [f"- {_cell(line)}" for line in part.lettering.note_lines()]
        self._legend(doc)

    chart = table

    def kpi(self, doc: Walk, n: int, section: KpiSection) -> None:
        lettering = doc.kpi_part(section)
        text = _cell(lettering.text(section.figure))
        doc.place(f"section {n}, headline", section.figure, lettering, text)
        self.lines += [f"## {_cell(section.title)}", "", f"**{text}**: {_cell(section.inline_conditions)}", "",
                       f"*{_cell(section.table_note.text)}*", ""]
        self.lines += [f"- {_cell(line)}" for line in lettering.note_lines()]
        self._legend(doc)

    def text(self, doc: Walk, n: int, section: TextSection) -> None:
        self.lines += [f"## {_cell(section.title)}", ""]
        for p in section.paragraphs:
            self.lines += [p, ""]

    def _legend(self, doc: Walk) -> None:
        self.lines += ["", f"<sub>{doc.report.legend}</sub>", ""]

    def back(self, doc: Walk) -> dict:
        self.lines += ["## Caveat", ""] + [p + "\n" for p in doc.report.caveat_full] + [doc.report.legend, ""]
        manifest = doc.manifest()
        body = manifest_mod.dumps(manifest).replace("--", "\\u002d\\u002d")
        self.lines += [MANIFEST_OPEN + body + MANIFEST_CLOSE, ""]
        return manifest


def render(report: Report, path: Path, **_options) -> dict:
    renderer = MarkdownRenderer()
    manifest = walk(report, renderer)
    path.write_text("\n".join(renderer.lines), encoding="utf-8")
    return manifest
