"""PDF: each page's text, as pypdf extracts it, within the safe-open layer's PDF limits.

Each page is a scope (``page 2``) and one item: the page's text, lines joined by newlines, so that
a note runs on over its lines until the next note or a blank line. A figure's location is its page
and line (``page 2, line 14``).

Limits (safety.py): the page count, each content stream's inflated size (pypdf's decompression
limits, set from ours; every content stream is inflated, text or not), content that is not a stream
(a reference loop), pypdf's warnings that content was lost, Python's recursion limit in the worker
(deep nesting, reference loops). An
encrypted PDF that does not open with an empty password cannot be inspected. PDF tables have no
structure to read, so a bare number under a "tok/s" column header in a PDF is not recognised as a
figure (a number with its unit is).
"""
from __future__ import annotations

from pathlib import Path

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
    except NotInspectable:
        raise
    except MemoryError:
        raise
    except Exception as e:  # pypdf's errors, RecursionError, LimitReachedError, zlib errors ...
        raise pdf_problem(e, limits) from None
    finally:
        trouble.close()
