"""PDF: each page's text, as pypdf extracts it, within the safe-open layer's PDF limits.

Each page is a scope (``page 2``) and one item: the page's text, lines joined by newlines, so that
a note runs on over its lines until the next note or a blank line. A figure's location is its page
and line (``page 2, line 14``).

Limits (safety.py): the page count, each content stream's inflated size (pypdf's decompression
limits, set from ours; every content stream is inflated, text or not), content that is not a stream
(a reference loop), pypdf's warnings that content was lost, Python's recursion limit in the worker
(deep nesting, reference loops). An
encrypted PDF that does not open with an empty password cannot be inspected.

PDF tables have no structure to read, so columns are read by position: a page whose text names a
throughput in what may be a column heading is extracted a second time with its layout (pypdf's
layout mode, which keeps each text's x-position as columns of characters), and a bare number under
a heading that names a throughput unit ("Throughput (tok/s)" over "101,527") is a figure, located
at its line (``page 2, line 14 (column 'Throughput (tok/s)')``).
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

from ..detect import may_hold_columns, table_figures
from .safety import (DEFAULT_LIMITS, Limits, NotInspectable, PypdfTrouble, check_file_size, configure_pypdf,
                     inflate_page_contents, made_beside, pdf_problem, spare_core)


def read(path: Path, sink, limits: Limits = DEFAULT_LIMITS, beside: bool | None = None) -> None:
    """Each page's text and table cells to ``sink``, in page order. With a spare core (``beside``
    None) or ``beside`` true, pypdf extracts the pages in a helper process while this one reads
    those it has."""
    check_file_size(Path(path), limits)
    if beside is None:
        beside = spare_core()
    pages = made_beside(lambda: _pages(path, limits), limits) if beside else _pages(path, limits)
    for n, text, cells in pages:
        sink.scope(f"page {n}")
        if text.strip():
            sink.item(f"page {n}", f"page {n}", text, block=f"page {n}", kind="page", line=1)
            for line, unit, figure in cells:
                sink.item(f"page {n}", f"page {n}, line {line} (column {unit!r})", figure, block=f"page {n}",
                          unit=unit, kind="cell", line=line)


def _pages(path: Path, limits: Limits) -> Iterator[tuple[int, str, list[tuple[int, str, str]]]]:
    """(page number, the page's text, the figures in its table columns as (line, column unit, text))."""
    configure_pypdf(limits)
    from pypdf import PdfReader

    trouble = PypdfTrouble()
    try:
        reader = PdfReader(str(path), strict=False)
        if reader.is_encrypted:
            try:
                ok = reader.decrypt("")
            except Exception:
                ok = 0
            if not ok:
                raise NotInspectable("the PDF is encrypted (it does not open without a password)")
        pages = reader.pages
        count = len(pages)
        if count > limits.max_pdf_pages:
            raise NotInspectable(f"the PDF has {count:,} pages, more than the limit of {limits.max_pdf_pages:,}")
        for n in range(count):
            page = pages[n]
            inflate_page_contents(page, n + 1)  # every content stream inflates within the limits, text or not
            text = page.extract_text() or ""
            trouble.check(n + 1)
            text = "\n".join(line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
            cells = _columns(page, n + 1, text, trouble) if text.strip() and may_hold_columns(text) else []
            yield n + 1, text, cells
    except NotInspectable:
        raise
    except MemoryError:
        raise
    except Exception as e:  # pypdf's errors, RecursionError, LimitReachedError, zlib errors ...
        raise pdf_problem(e, limits) from None
    finally:
        trouble.close()


def _columns(page, n: int, text: str, trouble: PypdfTrouble) -> list[tuple[int, str, str]]:
    """The bare numbers under a throughput heading of a table on the page, read from its layout."""
    layout = page.extract_text(extraction_mode="layout") or ""
    trouble.check(n)
    lines = text.split("\n")
    at = 0
    cells = []
    for d in table_figures(layout):
        number = d.text.split()[0]
        found = next((i for i in range(at, len(lines)) if number in lines[i]), None)
        if found is None:
            found = next((i for i in range(len(lines)) if number in lines[i]), 0)
        at = found
        cells.append((found + 1, d.unit, d.text))
    return cells
