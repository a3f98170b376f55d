"""Markdown: tables with marks, each followed by its notes; the caveat at the top in short form
and in full at the end; the manifest in an HTML comment at the end of the file."""
from __future__ import annotations

from pathlib import Path

from .. import manifest as manifest_mod
from ..report import BoundFigure, ChartSection, KpiSection, Report, TableSection, TextSection

MANIFEST_OPEN, MANIFEST_CLOSE = "<!-- exportguard-manifest\n", "\nexportguard-manifest -->"


def _cell(text: str) -> str:
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").replace("<", "&lt;")


def render(report: Report, path: Path, **_options) -> dict:
    lines = [f"# {_cell(report.title)}", "", f"> {report.caveat_short}", ""]
    placements = []
    for n, section in enumerate(report.sections, 1):
        lines += [f"## {_cell(section.title)}", ""]
        if isinstance(section, (TableSection, ChartSection)):
            table = section.table
            lines.append(f"*{_cell(table.table_note)}*")
            lines.append("")
            lines.append("| " + " | ".join(_cell(c.header) for c in table.columns) + " |")
            lines.append("|" + "|".join("---:" if c.kind in ("figure", "derived") else "---" for c in table.columns) + "|")
            for r, row in enumerate(table.rows, 1):
                cells = []
                for c, cell in enumerate(row, 1):
                    if isinstance(cell, BoundFigure):
                        placements.append((f"section {n} table row {r} column {c}", cell))
                        cells.append(_cell(cell.text()))
                    else:
                        cells.append(_cell(cell))
                lines.append("| " + " | ".join(cells) + " |")
            lines.append("")
            lines += [f"- [{x.mark}] {_cell(x.text)}" for x in table.notes]
        elif isinstance(section, KpiSection):
            placements.append((f"section {n} headline", section.figure))
            lines += [f"**{_cell(section.figure.text())}**: {_cell(section.inline_conditions)}", "",
                      f"*{_cell(section.table_note)}*", ""]
            lines += [f"- [{x.mark}] {_cell(x.text)}" for x in section.notes]
        elif isinstance(section, TextSection):
            for p in section.paragraphs:
                lines += [p, ""]
        lines += ["", f"<sub>{report.legend}</sub>", ""]
    lines += ["## Caveat", ""] + [p + "\n" for p in report.caveat_full] + [report.legend, ""]
    manifest = manifest_mod.build(report, placements, "markdown")
    body = manifest_mod.dumps(manifest).replace("--", "\\u002d\\u002d")
    lines += [MANIFEST_OPEN + body + MANIFEST_CLOSE, ""]
    path.write_text("\n".join(lines), encoding="utf-8")
    return manifest


def read_manifest(text: str) -> dict | None:
    import json

    start = text.rfind(MANIFEST_OPEN)
    end = text.rfind(MANIFEST_CLOSE)
    if start < 0 or end < start:
        return None
    return json.loads(text[start + len(MANIFEST_OPEN): end])
