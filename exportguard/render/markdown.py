"""Markdown: tables with marks, each followed by its notes; the caveat at the top in short form
and in full at the end; the manifest in an HTML comment at the end of the file."""
from __future__ import annotations

import functools
import re
from pathlib import Path

from .. import manifest as manifest_mod
from ..sanitize import visible
from ..report import BesideSection, ChartSection, KpiSection, Report, TableSection, TextSection
from .panels import beside_parts, notes_of
from .walk import FigureCell, TablePart, Walk, walk

SECTION_KINDS = ("table", "chart", "kpi", "text", "beside")

from ..check.manifests import MD_CLOSE as MANIFEST_CLOSE, MD_OPEN as MANIFEST_OPEN


_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~!])")
_LINE_START = re.compile(r"^(\s*)([#>+=-]|\d+[.)])")


_NEEDS_WORK = re.compile(r"[\\`*_\[\]|~!&<>\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff"
                         r"\ufff9-\ufffb\ufffe\uffff\ud800-\udfff]|^\s*(?:[#>+=-]|\d+[.)])")


@functools.lru_cache(maxsize=65536)
def md_text(text) -> str:
    """Text from a source or a spec as Markdown shows it literally, on one line: no link, image,
    HTML, comment, emphasis or table cell boundary can come out of it."""
    text = str(text)
    if not _NEEDS_WORK.search(text):
        return text
    text = visible(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _LINE_START.sub(r"\1\\\2", _MD_SPECIAL.sub(r"\\\1", text))


def _figure(text: str) -> str:
    """A figure's text is exportguard's own (digits, unit, band, marks): it only needs its cell kept."""
    return text.replace("|", "\\|")


class MarkdownRenderer:
    format = "markdown"

    def __init__(self):
        self.lines: list[str] = []
        self.heading = 0  # "## " headings so far: the checker numbers a Markdown file's sections by them

    def _heading(self, title: str) -> int:
        self.heading += 1
        self.lines += [f"## {md_text(title)}", ""]
        return self.heading

    def front(self, doc: Walk) -> None:
        self.lines += [f"# {md_text(doc.report.title)}", "", f"> {md_text(doc.report.caveat_short)}", ""]

    def table(self, doc: Walk, n: int, section: TableSection | ChartSection) -> None:
        part = doc.part(n, section.title, section.table)
        self._part(doc, self._heading(section.title), part)
        self.lines += [f"- [{m}] {md_text(note.text)}" for m, note in part.lettering.notes()]
        self._legend(doc)

    def beside(self, doc: Walk, n: int, section: BesideSection) -> None:
        """Two panels in one section, each a table with its own note and notes (marks lettered across
        both), never one comparison; then the shape panel with both shapes in numbers."""
        mlperf, own, lettering = beside_parts(n, section)
        for part in (mlperf, *own):
            self._part(doc, self._heading(part.title), part)
            self.lines += [f"- [{m}] {md_text(note.text)}" for m, note in notes_of(part.table, lettering)]
            self.lines += ["", "*Beside, never one comparison: each panel has its own band rule and notes.*", ""]
        self._heading(f"{section.title}: both shapes")
        self.lines += [f"- {md_text(r.label)}: {md_text(r.shape)}; load: {md_text(r.load)}"
                       for r in (section.shape.mlperf, *section.shape.own)]
        self.lines += ["", md_text(section.shape.sentence)]
        self._legend(doc)

    def _part(self, doc: Walk, n: int, part: TablePart) -> None:
        table = part.table
        lines = self.lines
        lines += [f"*{md_text(table.table_note.text)}*", ""]
        lines.append("| " + " | ".join(md_text(c.header) for c in table.columns) + " |")
        lines.append("|" + "|".join("---:" if c.kind in ("figure", "derived") else "---" for c in table.columns) + "|")
        for r, cells in part.cells():
            out = []
            for c, cell in enumerate(cells, 1):
                if isinstance(cell, FigureCell):
                    doc.place(f"section {n}, table row {r + 1}, column {c}", cell.figure, part.lettering,
                              _figure(cell.text))
                    out.append(_figure(cell.text))
                else:
                    out.append(md_text(cell))
            lines.append("| " + " | ".join(out) + " |")
        lines.append("")

    chart = table

    def kpi(self, doc: Walk, n: int, section: KpiSection) -> None:
        lettering = doc.kpi_part(section)
        text = _figure(lettering.text(section.figure))
        doc.place(f"section {self._heading(section.title)}, headline", section.figure, lettering, text)
        self.lines += [f"**{text}**: {md_text(section.inline_conditions)}", "",
                       f"*{md_text(section.table_note.text)}*", ""]
        self.lines += [f"- [{m}] {md_text(note.text)}" for m, note in lettering.notes()]
        self._legend(doc)

    def text(self, doc: Walk, n: int, section: TextSection) -> None:
        self._heading(section.title)
        for p in section.paragraphs:
            self.lines += [md_text(p), ""]

    def _legend(self, doc: Walk) -> None:
        self.lines += ["", f"<sub>{md_text(doc.report.legend)}</sub>", ""]

    def back(self, doc: Walk) -> dict:
        self.lines += ["## Caveat", ""] + [md_text(p) + "\n" for p in doc.report.caveat_full] + [md_text(doc.report.legend), ""]
        return doc.manifest()


def render(report: Report, path: Path, **_options) -> dict:
    renderer = MarkdownRenderer()
    manifest = walk(report, renderer)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(renderer.lines))
        f.write("\n" + MANIFEST_OPEN)
        # "--" would end the HTML comment: JSON may write "-" as \u002d.
        manifest_mod.write(manifest, f, escape=lambda piece: piece.replace("--", "\\u002d\\u002d"))
        f.write(MANIFEST_CLOSE + "\n")
    return manifest
