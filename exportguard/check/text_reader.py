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
import io
import math
import re
from pathlib import Path

from ..detect import caption_unit, header_unit, row_units, takes_caption_unit
from ..escaping import markdown_seen
from .evaluate import DOCUMENT, stands_under
from .manifests import CSV_FIGURE_HEADER, CSV_VALUE_HEADER
from .safety import DEFAULT_LIMITS, Limits, NotInspectable, Pace, open_regular

CSV_FIELD_LIMIT = 64 << 20


PACE_EVERY = 1024  # rows or lines between two looks at the pace of the read


def read_csv(path: Path, sink, limits: Limits = DEFAULT_LIMITS) -> None:
    raw, size = open_regular(path, limits)
    pace = Pace(size, limits)
    sink.scope(DOCUMENT)
    previous = csv.field_size_limit()
    csv.field_size_limit(CSV_FIELD_LIMIT)
    f = io.TextIOWrapper(raw, encoding="utf-8-sig", newline="")
    try:
        reader = csv.reader(f, delimiter=_delimiter(f))
        headers: list[str] = []
        units: dict[int, str] = {}
        paired: tuple[int, int] | None = None  # (figure column, value column), from 0, in exportguard's CSV
        line = 1
        for r, row in enumerate(reader, 1):
            if r % PACE_EVERY == 0:
                pace.check(f.buffer.tell())
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
                          unit=unit, kind="header" if r == 1 else "cell", line=line, about=name)
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


def _item(sink, key: str, where: str, raw: str, **kw) -> None:
    text = markdown_seen(raw)
    sink.item(key, where, text, shown=raw if text != raw else None, **kw)


MAX_TEXT_CHARS = 8 << 20  # one line, or one paragraph, list or code block read as one text
_PIECE = 1 << 20  # characters read at a time inside a comment


class _Lines:
    """A Markdown file's lines as ``text.split("\n")`` gives them, HTML comments removed as a reader
    of the rendered file sees them (a comment becomes as many line breaks as it spans, so line
    numbers stay true; one never closed stays as written, as the pattern ``<!--.*?-->`` leaves it),
    read as the reader asks for them. Only the lines from BEHIND lines above the reader to as far
    as it looked ahead are held, so a file of any length is read in bounded memory. A line longer
    than MAX_TEXT_CHARS is refused (no document a person reads has one), except inside a comment:
    an older export keeps its manifest in one, which is scanned for its end, never held."""

    BEHIND = 2  # a table's caption stands at most two lines above it

    def __init__(self, path: Path, limits: Limits):
        self._path, self._limits = path, limits
        self._f, size = self._open()
        self._pace = Pace(size, limits)
        self._held: dict[int, str] = {}
        self._next = 0  # the next line to take from _visible
        self._low = 0  # lines above this one are forgotten
        self._visible_lines = self._visible()

    def _open(self):
        raw, size = open_regular(self._path, self._limits)
        # utf-8-sig as read_text; newline="\n": split at line feeds only, a "\r" kept, as split("\n")
        return io.TextIOWrapper(raw, encoding="utf-8-sig", newline="\n"), size

    def close(self) -> None:
        self._f.close()

    def get(self, i: int) -> str | None:
        """Line ``i`` (from 0), or None past the end."""
        if i < self._low:
            raise IndexError(f"line {i + 1} was forgotten")  # a reader's bug, never the file's
        while i >= self._next:
            line = next(self._visible_lines, None)
            if line is None:
                return None
            self._held[self._next] = line
            self._next += 1
            if self._next % PACE_EVERY == 0:
                self._pace.check(self._f.buffer.tell())
        return self._held[i]

    def forget(self, i: int) -> None:
        """The reader is at line ``i``: lines more than BEHIND above it are never asked for again."""
        low = max(self._low, i - self.BEHIND)
        for k in range(self._low, low):
            self._held.pop(k, None)
        self._low = low

    # -- reading -----------------------------------------------------------------------------------
    def _pieces(self, f):
        """(text, last) pieces of each line: at most _PIECE characters each, ``last`` on the piece
        that ends its line (its line feed removed). The text after the last line feed is a line too
        (empty when the file ends with one), as split("\n") gives it."""
        while True:
            try:
                piece = f.readline(_PIECE)
            except UnicodeDecodeError as e:
                raise NotInspectable(f"not UTF-8 text (byte {e.start} of a block: {e.reason})") from None
            except OSError as e:
                raise NotInspectable(f"cannot read the file: {e.strerror or e}") from None
            if piece.endswith("\n"):
                yield piece[:-1], True
            elif not piece:
                yield "", True
                return
            else:
                yield piece, False

    def _whole(self, piece: str, last: bool, pieces, n: int) -> str:
        """The rest of line ``n`` (from 0) joined to ``piece``, refused past MAX_TEXT_CHARS."""
        if last:
            return piece
        parts, size = [piece], len(piece)
        while not last:
            piece, last = next(pieces)
            size += len(piece)
            if size > MAX_TEXT_CHARS:
                raise NotInspectable(f"line {n + 1} is longer than {MAX_TEXT_CHARS >> 20} MB of text")
            parts.append(piece)
        return "".join(parts)

    def _visible(self):
        pieces = self._pieces(self._f)
        n = 0  # the line being read, from 0
        for piece, last in pieces:
            line = self._whole(piece, last, pieces, n)
            shown, opened = _outside(line)
            while opened is not None:  # a comment runs on past this line
                found = self._comment_end(pieces)
                if found is None:  # never closed: as written from '<!--' to the end of the file
                    yield shown + line[opened:]
                    yield from self._verbatim_after(n)
                    return
                spanned, (rest, rest_ends_line) = found
                yield shown
                for _ in range(spanned - 1):
                    yield ""
                n += spanned
                line = self._whole(rest, rest_ends_line, pieces, n)  # the closing line, from after '-->'
                shown, opened = _outside(line)
            yield shown
            n += 1

    def _comment_end(self, pieces) -> tuple[int, tuple[str, bool]] | None:
        """Scan on from the next line for '-->': (lines gone down, (text after it, whether that ends
        its line)), or None at the end of the file. Nothing scanned is held."""
        spanned, carry = 1, ""
        for piece, last in pieces:
            text = carry + piece
            k = text.find("-->")
            if k >= 0:
                return spanned, (text[k + 3:], last)
            if last:
                spanned, carry = spanned + 1, ""
            else:
                carry = text[-2:]  # '-->' may be cut between two pieces
        return None

    def _verbatim_after(self, n: int):
        """Lines after line ``n``, as written (no comment closes after an unclosed one)."""
        f, _size = self._open()
        try:
            pieces = self._pieces(f)
            k = 0
            for _piece, last in pieces:  # skip to the line after n
                if last:
                    k += 1
                    if k > n:
                        break
            for piece, last in pieces:
                yield self._whole(piece, last, pieces, k)
                k += 1
        finally:
            f.close()


def _outside(text: str) -> tuple[str, int | None]:
    """``text`` without its comments, and where a comment opens that does not close in it (or None)."""
    if "<!--" not in text:
        return text, None
    out, pos = [], 0
    while True:
        k = text.find("<!--", pos)
        if k < 0:
            out.append(text[pos:])
            return "".join(out), None
        out.append(text[pos:k])
        end = text.find("-->", k + 4)
        if end < 0:
            return "".join(out), k
        pos = end + 3


class _Text(list):
    """The lines of a paragraph, list or code block read as one text, refused once they run past
    MAX_TEXT_CHARS."""

    def __init__(self, first: int, lines=()):
        super().__init__()
        self.first, self.chars = first, 0
        for line in lines:
            self.append(line)

    def append(self, line: str) -> None:
        self.chars += len(line) + 1
        if self.chars > MAX_TEXT_CHARS:
            raise NotInspectable(f"the text that starts at line {self.first} is longer than "
                                 f"{MAX_TEXT_CHARS >> 20} MB")
        super().append(line)


def read_markdown(path: Path, sink, limits: Limits = DEFAULT_LIMITS) -> None:
    lines = _Lines(path, limits)
    try:
        sink.scope(DOCUMENT)
        _read_markdown(lines, sink)
    finally:
        lines.close()


def _read_markdown(lines: _Lines, sink) -> None:
    section = 0
    heading = ""  # the last heading: what the text under it is about (a price list's '## API pricing')
    i = 0
    while (line := lines.get(i)) is not None:
        lines.forget(i)
        n = i + 1
        stripped = line.strip()
        if line.startswith("## "):
            section += 1
        if stripped.startswith("#"):
            heading = markdown_seen(stripped.lstrip("#").strip())
        if stripped.startswith("|") and (sep := lines.get(i + 1)) is not None and _SEPARATOR.match(sep):
            headers = split_row(line)
            units = {c: u for c, h in enumerate(headers, 1) if (u := header_unit(markdown_seen(h)))}
            caption = _caption(lines, i)  # 'Llama 2 70B results (tokens/s):' right over the table
            if caption:
                units.update({c: caption for c, h in enumerate(headers, 1)
                              if c not in units and takes_caption_unit(markdown_seen(h))})
            for c, h in enumerate(headers, 1):
                if h:
                    _item(sink, f"line {n}", f"line {n}, table header, column {c}", h, block=f"section {section}",
                              kind="header", line=n)
            i += 2
            r = 0
            block = f"section {section}"
            while (row := lines.get(i)) is not None and row.strip().startswith("|"):
                lines.forget(i)
                r += 1
                n = i + 1
                cells = split_row(row)
                labelled = row_units([markdown_seen(c) for c in cells])
                for c, cell in enumerate(cells, 1):
                    if cell:
                        key = f"section {section}, table row {r}, column {c}"
                        about = markdown_seen(headers[c - 1]) if c <= len(headers) else ""
                        _item(sink, key, f"line {n} ({key})", cell, block=block,
                              unit=units.get(c, "") or labelled[c - 1], kind="cell", line=n,
                              about=stands_under(about, heading))
                i += 1
            continue
        if stripped.startswith(("```", "~~~")):  # a code block: one text, as a reader sees it
            fence = stripped[:3]
            block = _Text(n + 1)
            i += 1
            while (inner := lines.get(i)) is not None and not inner.strip().startswith(fence):
                lines.forget(i)
                block.append(inner)
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
            listed = _list_after(lines, i, line)
            _item(sink, f"line {n}", f"line {n}", "\n".join(_Text(n, [line] + listed)),
                  block=f"section {section}", line=n)
            i += len(listed)
            continue
        m = _HEADLINE.match(stripped)
        if m:
            key = f"section {section}, headline"
            _item(sink, key, f"line {n} ({key})", m.group(1), block=f"section {section}", line=n, about=heading)
            if m.group(2).strip():
                _item(sink, f"line {n}", f"line {n}", m.group(2), block=f"section {section}", line=n,
                      about=stands_under(m.group(1), heading))
            i += 1
            continue
        # a paragraph or a list item, with its continuation lines
        para = _Text(n, [line])
        i += 1
        while (more := lines.get(i)) is not None and more.strip() and not _BLOCK_START.match(more):
            lines.forget(i)
            para.append(more)
            i += 1
        for more in _list_after(lines, i, para[-1]):
            para.append(more)
            i += 1
        _item(sink, f"line {n}", f"line {n}", "\n".join(para), block=f"section {section}", line=n, about=heading)


def _caption(lines: _Lines, i: int) -> str:
    """The unit that the line right over a table (a blank line between allowed) names for it."""
    j = i - 1
    if j >= 0 and not lines.get(j).strip():
        j -= 1
    if j < 0 or lines.get(j).strip().startswith("|") or not lines.get(j).strip():
        return ""
    return caption_unit(lines.get(j))


_LIST_ITEM = re.compile(r"^\s*(?:[-*+•]\s|\d+[.)]\s)(?!\s*\[[a-z]{1,6}\]\s)")


def _list_after(lines: _Lines, i: int, lead: str) -> list[str]:
    """The list right after a heading or a paragraph that names a throughput and introduces it
    ('Offline throughput (samples/s):' then '- H200: 118.5'), and the paragraph right under such a
    heading ('## Offline results (samples/s)' then 'H200 leads with 118.5, ...'): one text with its
    lead, since the lead states the unit of their numbers. Notes lists ('- [a] ...') stay items of
    their own."""
    head = lead.strip().lstrip("#").strip()
    if not (head.endswith(":") or lead.lstrip().startswith("#")) or not header_unit(head.rstrip(":").strip("*_ ")):
        return []
    j = i
    while (line := lines.get(j)) is not None and not line.strip():
        j += 1
    k = j
    listed = _Text(j + 1)
    heading = lead.lstrip().startswith("#")  # a heading states the unit of the paragraph under it too
    while (line := lines.get(k)) is not None and line.strip() and (_LIST_ITEM.match(line) or
                                                                   ((k > j or heading) and not _BLOCK_START.match(line))):
        listed.append(line)  # bounded while it is scanned: the lines scanned are held until read
        k += 1
    return [lines.get(x) for x in range(i, k)] if k > j else []
