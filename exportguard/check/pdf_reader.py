"""PDF: each page's text, as pypdf extracts it, within the safe-open layer's PDF limits.

Each page is a scope (``page 2``) and one item: the page's text, lines joined by newlines, so that
a figure broken across two lines is still one figure and a note runs on until the next note or a
blank line. A figure's location is its page and line (``page 2, line 14``).

Limits (safety.Limits): the page count, each stream's inflated size (pypdf's decompression limits,
set from ours), Python's recursion limit in the worker (deep nesting, reference loops). An
encrypted PDF that does not open with an empty password cannot be inspected. PDF tables have no
structure to read, so a bare number under a "tok/s" column header in a PDF is not recognised as a
figure (a number with its unit is).
"""
from __future__ import annotations

import logging
import re
from pathlib import Path

from .safety import DEFAULT_LIMITS, Limits, NotInspectable, check_file_size, configure_pypdf, pdf_problem


def read(path: Path, sink, limits: Limits = DEFAULT_LIMITS) -> None:
    check_file_size(Path(path), limits)
    configure_pypdf(limits)
    from pypdf import PdfReader

    trouble: list[str] = []
    handler = _Trouble(trouble)
    log = logging.getLogger("pypdf")
    log.addHandler(handler)
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
            _decode_contents(page, n + 1)  # every content stream inflates within the limits, text or not
            text = page.extract_text() or ""
            if trouble:
                raise NotInspectable(f"pypdf could not read all of page {n + 1}: {trouble[0]} (a damaged object, "
                                     "nesting past its limits or a stream past the size limit)")
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
        log.removeHandler(handler)


_FATAL = re.compile(r"error reading|limit|recursion|cyclic|depth|impossible to decode|decompress|too many|loop",
                    re.IGNORECASE)


class _Trouble(logging.Handler):
    """pypdf recovers from damage with a logged warning and carries on with part of a page missing;
    the checker does not: a warning that content was lost ends the inspection."""

    def __init__(self, found: list[str]):
        super().__init__(logging.WARNING)
        self.found = found

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:
            message = str(record.msg)
        if _FATAL.search(message):
            self.found.append(message[:200])


def _decode_contents(page, n: int) -> None:
    """Inflate each of the page's content streams (within pypdf's limits, set from ours); a content
    entry that is not a stream or an array of streams (a reference loop, a damaged page) ends it."""
    from pypdf.generic import ArrayObject, StreamObject

    raw = page.get("/Contents")
    if raw is None:
        return
    obj = raw.get_object()
    parts = list(obj) if isinstance(obj, ArrayObject) else [obj]
    for part in parts:
        stream = part.get_object() if part is not None else None
        if not isinstance(stream, StreamObject):
            raise NotInspectable(f"page {n}'s contents are not streams ({type(stream).__name__}): a reference loop "
                                 "or a damaged page")
        stream.get_data()
