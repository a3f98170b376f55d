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
