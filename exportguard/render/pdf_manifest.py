"""The manifest of a PDF briefing, as a file attached to the PDF (an embedded file in the document's
EmbeddedFiles name tree, as PDF viewers list attachments) named ``exportguard-manifest.json``.

``attach`` writes it while reportlab saves the document; the checker reads it back with pypdf
(exportguard.check.manifests). The attachment's name is in exportguard/embedding.py.
"""
from __future__ import annotations

import hashlib
import zlib

from .. import manifest as manifest_mod
from ..embedding import PDF_MANIFEST_NAME

MANIFEST_NAME = PDF_MANIFEST_NAME
DESCRIPTION = ("exportguard manifest: every figure this briefing shows, with its page, value, unit, band, "
               f"marks, notes and conditions (schema {manifest_mod.SCHEMA})")


def attach(pdf_doc, manifest: dict) -> None:
    """Embed the manifest in reportlab's PDFDocument (reportlab_adapter.document_of) before it is saved: JSON
    (ASCII-only) deflated piece by piece, so the text is never held whole in memory."""
    from reportlab.pdfbase.pdfdoc import PDFArray, PDFDictionary, PDFName, PDFStream, PDFString

    z = zlib.compressobj(1)  # the JSON repeats itself: level 1 keeps most of the gain at a fraction of the time
    md5 = hashlib.md5(usedforsecurity=False)
    size = 0
    parts = []
    for piece in manifest_mod.json_pieces(manifest):
        data = piece.encode("ascii")
        md5.update(data)
        size += len(data)
        parts.append(z.compress(data))
    parts.append(z.flush())
    stream = PDFStream(PDFDictionary({
        "Type": PDFName("EmbeddedFile"),
        "Subtype": "/application#2Fjson",  # a name with '/' escaped; reportlab's PDFName would split it
        "Filter": PDFName("FlateDecode"),
        "Params": PDFDictionary({"Size": size, "CheckSum": PDFString(md5.digest(), enc="raw")}),
    }), content=b"".join(parts), filters=())
    stream.__Comment__ = "exportguard manifest"
    filespec = PDFDictionary({
        "Type": PDFName("Filespec"),
        "F": PDFString(MANIFEST_NAME),
        "UF": PDFString(MANIFEST_NAME),
        "Desc": PDFString(DESCRIPTION),
        "AFRelationship": PDFName("Data"),
        "EF": PDFDictionary({"F": pdf_doc.Reference(stream), "UF": pdf_doc.Reference(stream)}),
    })
    ref = pdf_doc.Reference(filespec)
    pdf_doc.Catalog.Names = PDFDictionary({"EmbeddedFiles": PDFDictionary({"Names": PDFArray([PDFString(MANIFEST_NAME), ref])})})
