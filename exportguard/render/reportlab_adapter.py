"""reportlab internals the PDF renderer leans on, in one place.

A canvas writes into a ``PDFDocument`` that it keeps in ``Canvas._doc``; reportlab offers no public
accessor. The renderer needs that document twice: to embed the manifest as an attached file before
the document is saved (pdf_manifest.attach), and to read the page objects it has written
(pdf_text). Nothing else of reportlab's private state is used.
"""
from __future__ import annotations


def document_of(canvas):
    """The PDFDocument a reportlab canvas writes into."""
    return canvas._doc


def deflate_pages(canvas) -> None:
    """Give each page of ``canvas`` its content stream deflated only (no ASCII85 on top, which makes
    them bigger and costs seconds), as reportlab does at save time when ``rl_config.useA85`` is 0,
    but for this document alone: reportlab's switch is process-wide, and an export in another
    thread must not see it change."""
    from reportlab.pdfbase.pdfdoc import PDFStream, PDFZCompress

    for page in document_of(canvas).Pages.pages:
        if page.Contents or not page.stream or getattr(page, "Override_default_compilation", False):
            continue  # reportlab builds these itself, as before
        stream = PDFStream()
        if page.compression:
            stream.filters = [PDFZCompress]
        stream.content = page.stream
        stream.__Comment__ = "page stream"
        page.Contents = stream
