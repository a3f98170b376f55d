"""The manifest of a PDF briefing, as a file attached to the PDF (an embedded file in the document's
EmbeddedFiles name tree, as PDF viewers list attachments) named ``exportguard-manifest.json``.

``attach`` writes it while reportlab saves the document; ``read_text`` reads it back with pypdf (for
exportguard.check.manifests.read_manifest). Only this module knows where the manifest lives in a PDF.
"""
from __future__ import annotations

import hashlib
import zlib
from pathlib import Path

from .. import manifest as manifest_mod
from ..errors import ExportguardError

MANIFEST_NAME = "exportguard-manifest.json"
DESCRIPTION = ("exportguard manifest: every figure this briefing shows, with its page, value, unit, band, "
               "marks, notes and conditions (schema exportguard-manifest/2)")
MAX_MANIFEST_BYTES = 1 << 30  # what a reader will inflate at most


def attach(pdf_doc, manifest: dict) -> None:
    """Embed the manifest in reportlab's PDFDocument (canvas._doc) before it is saved: JSON
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


def read_text(path) -> str:
    """The manifest JSON attached to a PDF. Raises ManifestNotFound when the PDF has none and
    ExportguardError when the file cannot be read as a PDF."""
    from ..check.manifests import ManifestNotFound

    path = Path(path)
    try:
        import pypdf
        from pypdf import PdfReader

        limits = dict(zlib_maximum_output_length=MAX_MANIFEST_BYTES)
        apply = getattr(pypdf, "apply_configuration", None)
        if apply is None:  # an older pypdf: its default limits apply
            return _read(PdfReader(str(path)), path, ManifestNotFound)
        with apply(**limits):
            return _read(PdfReader(str(path)), path, ManifestNotFound)
    except ManifestNotFound:
        raise
    except ExportguardError:
        raise
    except Exception as e:  # pypdf's PdfReadError, LimitReachedError, OSError, ...: not a readable PDF
        raise ExportguardError(f"{path}: cannot read the PDF's attachments: {type(e).__name__}: {e}") from None


def _read(reader, path: Path, not_found) -> str:
    for entry in reader.attachment_list:
        if entry.name == MANIFEST_NAME:
            data = entry.content
            try:
                return data.decode("utf-8")
            except UnicodeDecodeError as e:
                raise ExportguardError(f"{path}: the attached {MANIFEST_NAME} is not UTF-8 text: {e}") from None
    raise not_found(f"{path}: no {MANIFEST_NAME} attachment: the PDF carries no exportguard manifest")
