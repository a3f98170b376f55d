"""Markdown: tables with marks, each followed by its notes; the caveat at the top in short form
and in full at the end. The manifest stands beside the file (<name>.md.manifest.json, as a CSV's
does), and the file ends with a one-line HTML comment naming it, which a rendered page does not show.

Escaping (``md_text``) is what CommonMark and GitHub-flavoured Markdown need and no more, so that a
rendered page shows the text exactly (``5.1-0046``, ``inference_results_v5.1``), while nothing in it
can become markup: no emphasis, code, link, image, autolink, HTML, strikethrough, table cell
boundary, heading, list, quote or thematic break. An e-mail address still renders as a mailto link
(GFM finds those after escapes are resolved), and nothing else does.
"""
from __future__ import annotations

import functools
import re
from pathlib import Path

from ..embedding import MD_POINTER, md_headline, md_table_cell
from ..sanitize import visible
from ..report import BesideSection, ChartSection, KpiSection, Report, TableSection, TextSection
from ..wording import note_line
from .panels import beside_parts, notes_of
from .walk import FigureCell, TablePart, Walk, walk

SECTION_KINDS = ("table", "chart", "kpi", "text", "beside")
OPTIONS = ()  # what export() passes on to this format: nothing (api.export refuses any)

EMBEDS_MANIFEST = False

# Inline markup: backslash, code span, emphasis, link and image brackets, strikethrough, table pipe.
_INLINE = re.compile(r"[\\`*\[\]~|]")
# "_" makes emphasis except inside a word (CommonMark's flanking rules); "&" starts a character
# reference only before "name;" or "#digits;"; "<" starts HTML or an autolink.
_UNDERSCORE = re.compile(r"(?<![^\W_])_|_(?![^\W_])")
_ENTITY = re.compile(r"&(?=#?[0-9A-Za-z]+;)")
# GFM's extended autolinks: a backslash before "://" or after "www" leaves the address as text.
_SCHEME = re.compile(r"(?i)\b(https?|ftp)(?=://)")
_WWW = re.compile(r"(?i)\b(www)(?=\.)")
# What opens a block at the start of a line (heading, quote, list item, thematic break or setext
# underline), and an ordered list item's "1." or "1)": its punctuation takes the escape, since a
# backslash before a digit shows.
_BLOCK_START = re.compile(r"^(?:#{1,6}(?=\s|$)|>|[-+](?=\s|$)|[-=]+\s*$)")
_ORDERED = re.compile(r"^(\d{1,9})([.)])(?=\s|$)")
_CLOSING_HASHES = re.compile(r"(\s)(#+\s*)$")  # would close an ATX heading
# Where one of the substitutions below has something to do: a character escaped or made visible
# anywhere, what opens a block at the start, an address, or a closing run of hashes. Text without
# any (most names, which hold '-', '#' or '.' only inside) is returned as it is, untouched by them.
_NEEDS_WORK = re.compile(r"[\\`*_\[\]~|<&\x00-\x1f\x7f-\x9f\u00ad\u061c\u200b-\u200f\u2028-\u202e"
                         r"\u2060-\u2069\ufeff\ufff9-\ufffb\ufffe\uffff\ud800-\udfff]|^\s|^[#>+=\-]|^\d{1,9}[.)]"
                         r"|://|(?i:www)\.|\s#+\s*$")


@functools.lru_cache(maxsize=65536)
def md_text(text) -> str:
    """Text from a source or a spec as Markdown shows it literally, on one line."""
    text = str(text)
    if not _NEEDS_WORK.search(text):
        return text
    text = visible(text).lstrip()  # leading blanks would make an indented code block
    text = _INLINE.sub(r"\\\g<0>", text)
    text = _UNDERSCORE.sub(r"\\_", text)
    text = _ENTITY.sub("&amp;", text).replace("<", "&lt;")
    text = _WWW.sub(r"\1\\", _SCHEME.sub(r"\1\\", text))
    text = _CLOSING_HASHES.sub(r"\1\\\2", text)
    text = _ORDERED.sub(r"\1\\\2", text, count=1)
    return _BLOCK_START.sub(lambda m: "\\" + m.group(0), text, count=1)


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
        self.lines += ["- " + note_line(m, md_text(note.text)) for m, note in part.lettering.notes()]
        self._legend(doc)

    def beside(self, doc: Walk, n: int, section: BesideSection) -> None:
        """Two panels in one section, each a table with its own note and notes (marks lettered across
        both), never one comparison; then the shape panel with both shapes in numbers."""
        mlperf, own, lettering = beside_parts(n, section)
        for part in (mlperf, *own):
            self._part(doc, self._heading(part.title), part)
            self.lines += ["- " + note_line(m, md_text(note.text)) for m, note in notes_of(part.table, lettering)]
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
        lines += self._notices(table.notices)
        lines.append("| " + " | ".join(md_text(c.header) for c in table.columns) + " |")
        lines.append("|" + "|".join("---:" if c.kind in ("figure", "derived") else "---" for c in table.columns) + "|")
        for r, cells in part.cells():
            out = []
            for c, cell in enumerate(cells, 1):
                if isinstance(cell, FigureCell):
                    text = _figure(cell.text)
                    doc.place(md_table_cell(n, r + 1, c), cell.figure, part.lettering, text)
                    out.append(text)
                else:
                    out.append(md_text(cell))
            lines.append("| " + " | ".join(out) + " |")
        lines.append("")

    chart = table

    def kpi(self, doc: Walk, n: int, section: KpiSection) -> None:
        lettering = doc.kpi_part(section)
        text = _figure(lettering.text(section.figure))
        doc.place(md_headline(self._heading(section.title)), section.figure, lettering, text)
        self.lines += [f"**{text}**: {md_text(section.inline_conditions)}", "",
                       f"*{md_text(section.table_note.text)}*", ""]
        self.lines += self._notices(section.notices)
        self.lines += ["- " + note_line(m, md_text(note.text)) for m, note in lettering.notes()]
        self._legend(doc)

    def text(self, doc: Walk, n: int, section: TextSection) -> None:
        self._heading(section.title)
        for p in section.paragraphs:
            self.lines += [md_text(p), ""]

    @staticmethod
    def _notices(notices) -> list[str]:
        """The guard's statements beside a comparison (EG020: different scales), one quoted line each."""
        return [line for x in notices for line in (f"> **Note:** {md_text(x.text)}", "")]

    def _legend(self, doc: Walk) -> None:
        self.lines += ["", f"<sub>{md_text(doc.report.legend)}</sub>", ""]

    def back(self, doc: Walk) -> dict:
        self.lines += ["## Caveat", ""] + [md_text(p) + "\n" for p in doc.report.caveat_full] + [md_text(doc.report.legend), ""]
        return doc.manifest()


def render(report: Report, path: Path, clock=None, **_options) -> dict:
    renderer = MarkdownRenderer()
    manifest = walk(report, renderer, clock)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(renderer.lines))
        f.write("\n" + MD_POINTER + "\n")
    return manifest
