"""Zip packages (PPTX, XLSX) written the same way every time: python-pptx and openpyxl stamp each
entry with the wall clock, and the core properties with the time of saving, so two saves of one
report differ. ``save`` lets the library write the package to an unnamed temporary file, then
copies it to the target with

- every entry stamped with the export clock (a DOS timestamp: to the even second, from 1980),
  made on "MS-DOS" with no file attributes, deflated at zlib's default level;
- the entries in one order: ``[Content_Types].xml`` first (where readers look for it), then
  ``_rels/.rels``, then the rest by name;
- ``docProps/core.xml``'s ``dcterms:created`` and ``dcterms:modified`` set to the clock;
- packages embedded in it (a chart's workbook) normalised the same way.

The entries' contents are otherwise copied as they are, a megabyte at a time (no part is held whole).
"""
from __future__ import annotations

import io
import shutil
import zipfile
from pathlib import Path
from typing import BinaryIO, Callable

from ..clock import Clock
from ..scratch import temporary_file

CORE = "docProps/core.xml"
# Packages inside the package (a chart's "Edit Data" workbook, written by XlsxWriter with the time
# of writing in its core properties) are normalised the same way.
_EMBEDDED = ("ppt/embeddings/", "xl/embeddings/")
_PACKAGES = (".xlsx", ".xlsm", ".pptx", ".docx")
_FIRST = ("[Content_Types].xml", "_rels/.rels")
_DCTERMS = "http://purl.org/dc/terms/"
_XSI = "http://www.w3.org/2001/XMLSchema-instance"
_CP = "http://schemas.openxmlformats.org/package/2006/metadata/core-properties"


def save(write: Callable[[BinaryIO], None], path, clock: Clock) -> None:
    """``write(f)`` saves the library's package into ``f``; the normalised package goes to ``path``.
    The temporary file is in the export's scratch folder (exportguard/scratch.py)."""
    with temporary_file() as raw:
        write(raw)
        raw.flush()
        raw.seek(0)
        with open(path, "wb") as out:
            normalise(raw, out, clock)


def entry_order(names) -> list[str]:
    first = [n for n in _FIRST if n in names]
    return first + sorted(n for n in names if n not in _FIRST)


def normalise(src: BinaryIO, dst: BinaryIO, clock: Clock) -> None:
    stamp = clock.zip_time()
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED, allowZip64=True) as zout:
        infos = {i.filename: i for i in zin.infolist()}
        for name in entry_order(infos):
            info = infos[name]
            out = _entry(name, stamp)
            if name == CORE:
                zout.writestr(out, core_with_dates(zin.read(info), clock))
                continue
            if name.startswith(_EMBEDDED) and name.endswith(_PACKAGES):
                zout.writestr(out, _normalised_bytes(zin.read(info), clock))  # a chart's workbook: small
                continue
            out.file_size = info.file_size  # so that zipfile decides ZIP64 up front for a large part
            with zin.open(info) as r, zout.open(out, "w") as w:
                shutil.copyfileobj(r, w, 1 << 20)


def _entry(name: str, stamp: tuple) -> zipfile.ZipInfo:
    """A package entry that says nothing of the machine that wrote it: the clock's stamp, deflated,
    no host system or file mode."""
    info = zipfile.ZipInfo(name, date_time=stamp)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.create_system = 0
    info.external_attr = 0
    return info


def _normalised_bytes(blob: bytes, clock: Clock) -> bytes:
    src, dst = io.BytesIO(blob), io.BytesIO()
    if not zipfile.is_zipfile(src):
        return blob
    normalise(src, dst, clock)
    return dst.getvalue()


def core_with_dates(blob: bytes, clock: Clock) -> bytes:
    """The core properties part (our own library's output) with its created and modified dates set
    to the clock, added where the library left them out."""
    from lxml import etree

    root = etree.fromstring(blob, etree.XMLParser(resolve_entities=False, no_network=True))
    if root.tag != f"{{{_CP}}}coreProperties":
        return blob
    for tag in ("created", "modified"):
        el = root.find(f"{{{_DCTERMS}}}{tag}")
        if el is None:
            el = etree.SubElement(root, f"{{{_DCTERMS}}}{tag}", nsmap={"dcterms": _DCTERMS, "xsi": _XSI})
        el.set(f"{{{_XSI}}}type", "dcterms:W3CDTF")
        el.text = clock.w3cdtf()
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)


def is_normalised(path: Path | str, clock: Clock) -> bool:
    """Whether a package's entries carry the clock's stamp and stand in ``entry_order`` (for tests)."""
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        return names == entry_order(names) and all(i.date_time == clock.zip_time() for i in z.infolist())


def write_parts(path, clock: Clock, parts: dict[str, list]) -> None:
    """A package written in its normalised form directly (no copy): each part is a list of pieces,
    bytes or files open for reading, streamed into its entry a megabyte at a time."""
    stamp = clock.zip_time()
    with open(path, "wb") as f, zipfile.ZipFile(f, "w", zipfile.ZIP_DEFLATED, allowZip64=True) as z:
        for name in entry_order(parts):
            pieces = parts[name]
            info = _entry(name, stamp)
            # the size up front, so that zipfile decides ZIP64 before a large part is written
            info.file_size = sum(len(p) if isinstance(p, bytes) else _size(p) for p in pieces)
            with z.open(info, "w") as w:
                for p in pieces:
                    if isinstance(p, bytes):
                        w.write(p)
                    else:
                        shutil.copyfileobj(p, w, 1 << 20)


def _size(f: BinaryIO) -> int:
    here = f.tell()
    end = f.seek(0, 2)
    f.seek(here)
    return end - here
