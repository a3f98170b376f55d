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

from ..detect import may_hold_columns, table_figures
from .safety import (DEFAULT_LIMITS, Limits, NotInspectable, PypdfTrouble, check_file_size, configure_pypdf,
                     inflate_page_contents, pdf_problem)


def read(path: Path, sink, limits: Limits = DEFAULT_LIMITS) -> None:
    check_file_size(Path(path), limits)
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
            sink.scope(f"page {n + 1}")
            text = "\n".join(line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
            if text.strip():
                sink.item(f"page {n + 1}", f"page {n + 1}", text, block=f"page {n + 1}", kind="page", line=1)
                if may_hold_columns(text):
                    _columns(page, n + 1, text, sink, trouble)
    except NotInspectable:
        raise
    except MemoryError:
        raise
    except Exception as e:  # pypdf's errors, RecursionError, LimitReachedError, zlib errors ...
        raise pdf_problem(e, limits) from None
    finally:
        trouble.close()


def _columns(page, n: int, text: str, sink, trouble: PypdfTrouble) -> None:
    """The bare numbers under a throughput heading of a table on the page, read from its layout."""
    layout = page.extract_text(extraction_mode="layout") or ""
    trouble.check(n)
    lines = text.split("\n")
    at = 0
    for d in table_figures(layout):
        number = d.text.split()[0]
        found = next((i for i in range(at, len(lines)) if number in lines[i]), None)
        if found is None:
            found = next((i for i in range(len(lines)) if number in lines[i]), 0)
        at = found
        sink.item(f"page {n}", f"page {n}, line {found + 1} (column {d.unit!r})", d.text, block=f"page {n}",
                  unit=d.unit, kind="cell", line=found + 1)
