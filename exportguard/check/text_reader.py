"""CSV and Markdown: the text a person sees, cell by cell and line by line.

CSV: one scope (the file), split at commas (at semicolons or tabs when the header line is: a CSV
saved by a German or French Excel); each cell is an item at ``row R, column C`` (R counts records from the
header, as exportguard's manifest does; the line in the file is kept for text and SARIF output);
a row is a block, so a row's own notes column resolves its marks first. A column whose header
names a throughput unit makes its numbers figures. In exportguard's own CSV each figure's text
comes with the number of its ``value`` column, which the manifest comparison checks too.

Markdown: one scope (the file); HTML comments are not shown and are skipped (older exportguard
files keep their manifest in one). Table cells are items at ``section N, table row R, column C`` (N counts
``## `` headings, R the table's body rows; a caption right over a table that names a unit, such as
'Results (tokens/s):', gives it to the columns that name no quantity of their own), a bold lead ``**...**`` at the start of a line is
``section N, headline``, any other line is ``line L``. A section is a block.
"""
from __future__ import annotations

import csv
import html
import math
import re
from pathlib import Path

from ..detect import caption_unit, header_unit, row_units, takes_caption_unit
from .evaluate import DOCUMENT
from .manifests import CSV_FIGURE_HEADER, CSV_VALUE_HEADER
from .safety import DEFAULT_LIMITS, Limits, NotInspectable, check_file_size, read_text

CSV_FIELD_LIMIT = 64 << 20


def read_csv(path: Path, sink, limits: Limits = DEFAULT_LIMITS) -> None:
    check_file_size(path, limits)
    sink.scope(DOCUMENT)
    previous = csv.field_size_limit()
    csv.field_size_limit(CSV_FIELD_LIMIT)
    try:
        f = open(path, newline="", encoding="utf-8-sig")
    except OSError as e:
        raise NotInspectable(f"cannot read the file: {e.strerror or e}") from None
    try:
        reader = csv.reader(f, delimiter=_delimiter(f))
        headers: list[str] = []
        units: dict[int, str] = {}
        paired: tuple[int, int] | None = None  # (figure column, value column), from 0, in exportguard's CSV
        line = 1
        for r, row in enumerate(reader, 1):
            if r == 1:
                headers = row
                units = {c: u for c, h in enumerate(row, 1) if (u := header_unit(h))}
                if CSV_FIGURE_HEADER in row and CSV_VALUE_HEADER in row:
                    paired = (row.index(CSV_FIGURE_HEADER), row.index(CSV_VALUE_HEADER))
            labelled = row_units(row) if r > 1 and len(row) > 1 else ()
            for c, cell in enumerate(row, 1):
                if not cell:
                    continue
                name = headers[c - 1] if r > 1 and c <= len(headers) and headers[c - 1] else ""
                where = f"row {r}, column {c}" + (f" ({name!r})" if name else "") + f", line {line}"
                value = _paired_value(row, paired[1]) if paired and r > 1 and c - 1 == paired[0] else None
                unit = (units.get(c, "") or (labelled[c - 1] if labelled else "")) if r > 1 else ""
                sink.item(f"row {r}, column {c}", where, cell, value, block=f"row {r}",
                          unit=unit, kind="header" if r == 1 else "cell", line=line)
            line = reader.line_num + 1
    except csv.Error as e:
        raise NotInspectable(f"not a readable CSV file: {e}") from None
    except UnicodeDecodeError as e:
        raise NotInspectable(f"not UTF-8 text (byte {e.start} of a block: {e.reason})") from None
    finally:
        f.close()
        csv.field_size_limit(previous)


def _delimiter(f) -> str:
    """',' unless the first line is split by ';' or tabs (a CSV saved by a German or French Excel)."""
    head = f.readline(64 * 1024)
    f.seek(0)
    counts = {d: head.count(d) for d in (",", ";", "\t")}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] > counts[","] else ","


def _paired_value(row: list[str], column: int) -> float | None:
    """The number in a figure's value column, or None where it holds none (the manifest then finds
    the figure edited if it recorded one)."""
    try:
        value = float(row[column])
    except (IndexError, ValueError):
        return None
    return value if math.isfinite(value) else None


_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")
_HEADLINE = re.compile(r"^\*\*(.+?)\*\*(.*)$")
_BLOCK_START = re.compile(r"^\s*(?:[-*+•]\s|\d+[.)]\s|#|\||>|```|\[[a-z]{1,6}\]\s)")


def split_row(line: str) -> list[str]:
    """A Markdown table row's cells, as written (escapes kept), split at unescaped pipes."""
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    cells, buf, i = [], [], 0
    while i < len(s):
        ch = s[i]
        if ch == "\\" and i + 1 < len(s):
            buf.append(s[i:i + 2])
            i += 2
            continue
        if ch == "|":
            cells.append("".join(buf).strip())
            buf = []
        else:
            buf.append(ch)
        i += 1
    tail = "".join(buf).strip()
    if tail or not s.endswith("|"):
        cells.append(tail)
    return cells


_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")  # a backslash before ASCII punctuation (CommonMark)


_REFERENCE = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")  # CommonMark's


def rendered(text: str) -> str:
    """What a reader of the rendered Markdown sees: backslash escapes and character references
    resolved (exportguard's own Markdown escapes '*', '[', a '_' outside a word ... and writes '&lt;').
    A reference needs its ';', as in CommonMark: '&copy 2025' shows as written."""
    if "\\" in text:
        text = _ESCAPED.sub(r"\1", text)
    if "&" in text:
        text = _REFERENCE.sub(lambda m: html.unescape(m.group(0)), text)
    return text


def _item(sink, key: str, where: str, raw: str, **kw) -> None:
    text = rendered(raw)
    sink.item(key, where, text, shown=raw if text != raw else None, **kw)


def read_markdown(path: Path, sink, limits: Limits = DEFAULT_LIMITS) -> None:
    text = read_text(path, limits)
    sink.scope(DOCUMENT)
    # comments are replaced by as many newlines as they span, so line numbers stay true
    text = _COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    lines = text.split("\n")
    section = 0
    i = 0
    while i < len(lines):
        line = lines[i]
        n = i + 1
        stripped = line.strip()
        if line.startswith("## "):
            section += 1
        if stripped.startswith("|") and i + 1 < len(lines) and _SEPARATOR.match(lines[i + 1]):
            headers = split_row(line)
            units = {c: u for c, h in enumerate(headers, 1) if (u := header_unit(rendered(h)))}
            caption = _caption(lines, i)  # 'Llama 2 70B results (tokens/s):' right over the table
            if caption:
                units.update({c: caption for c, h in enumerate(headers, 1)
                              if c not in units and takes_caption_unit(rendered(h))})
            for c, h in enumerate(headers, 1):
                if h:
                    _item(sink, f"line {n}", f"line {n}, table header, column {c}", h, block=f"section {section}",
                              kind="header", line=n)
            i += 2
            r = 0
            while i < len(lines) and lines[i].strip().startswith("|"):
                r += 1
                n = i + 1
                cells = split_row(lines[i])
                labelled = row_units([rendered(c) for c in cells])
                for c, cell in enumerate(cells, 1):
                    if cell:
                        key = f"section {section}, table row {r}, column {c}"
                        _item(sink, key, f"line {n} ({key})", cell, block=f"section {section}",
                              unit=units.get(c, "") or labelled[c - 1], kind="cell", line=n)
                i += 1
            continue
        if stripped.startswith(("```", "~~~")):  # a code block: one text, as a reader sees it
            fence = stripped[:3]
            block = []
            i += 1
            while i < len(lines) and not lines[i].strip().startswith(fence):
                block.append(lines[i])
                i += 1
            i += 1
            if "\n".join(block).strip():
                sink.item(f"line {n + 1}", f"line {n + 1}", "\n".join(block), block=f"section {section}",
                          kind="code", line=n + 1)
            continue
        if not stripped:
            i += 1
            continue
        if stripped.startswith("#"):
            i += 1
            _item(sink, f"line {n}", f"line {n}", "\n".join([line] + _list_after(lines, i, line)),
                  block=f"section {section}", line=n)
            i += len(_list_after(lines, i, line))
            continue
        m = _HEADLINE.match(stripped)
        if m:
            key = f"section {section}, headline"
            _item(sink, key, f"line {n} ({key})", m.group(1), block=f"section {section}", line=n)
            if m.group(2).strip():
                _item(sink, f"line {n}", f"line {n}", m.group(2), block=f"section {section}", line=n)
            i += 1
            continue
        # a paragraph or a list item, with its continuation lines
        para = [line]
        i += 1
        while i < len(lines) and lines[i].strip() and not _BLOCK_START.match(lines[i]):
            para.append(lines[i])
            i += 1
        listed = _list_after(lines, i, para[-1])
        i += len(listed)
        _item(sink, f"line {n}", f"line {n}", "\n".join(para + listed), block=f"section {section}", line=n)


def _caption(lines: list[str], i: int) -> str:
    """The unit that the line right over a table (a blank line between allowed) names for it."""
    j = i - 1
    if j >= 0 and not lines[j].strip():
        j -= 1
    if j < 0 or lines[j].strip().startswith("|") or not lines[j].strip():
        return ""
    return caption_unit(lines[j])


_LIST_ITEM = re.compile(r"^\s*(?:[-*+•]\s|\d+[.)]\s)(?!\s*\[[a-z]{1,6}\]\s)")


def _list_after(lines: list[str], i: int, lead: str) -> list[str]:
    """The list right after a heading or a paragraph that names a throughput and introduces it
    ('Offline throughput (samples/s):' then '- H200: 118.5'): one text with its lead, since the lead
    states the unit of the list's numbers. Notes lists ('- [a] ...') stay items of their own."""
    head = lead.strip().lstrip("#").strip()
    if not (head.endswith(":") or lead.lstrip().startswith("#")) or not header_unit(head.rstrip(":").strip("*_ ")):
        return []
    j = i
    while j < len(lines) and not lines[j].strip():
        j += 1
    out = lines[i:j] if j > i else []
    k = j
    while k < len(lines) and lines[k].strip() and (_LIST_ITEM.match(lines[k]) or
                                                   (k > j and not _BLOCK_START.match(lines[k]))):
        k += 1
    return (out + lines[j:k]) if k > j else []
