"""The manifest embedded in an artifact, read back: the very hidden sheet of a workbook, the
sidecar file of a CSV or a Markdown file (older Markdown exports: their closing HTML comment), the
custom XML part of a deck or a Word file, the attached file of a PDF. Integrity is checked separately
(exportguard.manifest.verify). Where each format keeps it is named in exportguard/embedding.py,
which the renderers write by; nothing here imports a renderer.

Artifacts are untrusted input: every branch reads through the checker's safe-open layer
(check/safety.py: archive limits, XML without DTDs or entities, file size limits, pypdf's limits),
which raises NotInspectable (an ExportguardError) for a file it refuses; the checker also runs each
file in a worker with a time and memory bound. A new format adds one reader here, named by its
record in exportguard/formats.py."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..embedding import (CSV_FIGURE_HEADER, CSV_VALUE_HEADER, DOCX_DIGEST_PROPERTY, DOCX_MANIFEST_NS,  # noqa: F401
                         MD_CLOSE, MD_OPEN, MD_POINTER, PDF_MANIFEST_NAME, PDF_MAX_MANIFEST_BYTES, PPTX_DIGEST_PROPERTY,
                         PPTX_MANIFEST_NS, SIDECAR, XLSX_MANIFEST_SHEET)
from ..errors import ExportguardError

XLSX_SHEET = XLSX_MANIFEST_SHEET
CSV_SIDECAR = SIDECAR
RT_CUSTOM_XML = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/customXml"
RT_CUSTOM_PROPERTIES = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/custom-properties"
_CUSTOM_PROPS = "{http://schemas.openxmlformats.org/officeDocument/2006/custom-properties}"
_VT = "{http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes}"
MAX_CUSTOM_XML_BYTES = 256 << 20  # a deck's or Word file's custom XML item larger than this is not read
PPTX_MAIN, DOCX_MAIN = "ppt/presentation.xml", "word/document.xml"  # main parts where a package names none


class ManifestNotFound(ExportguardError):
    """The artifact carries no exportguard manifest (not made by exportguard, or removed since)."""


class NoManifestReader(ExportguardError):
    """No branch of read_manifest reads this format (yet): its files are checked without a manifest."""


def read_manifest(path) -> dict:
    """The manifest a file carries, read by its format's manifest reader (exportguard/formats.py)."""
    from ..formats import of_path

    path = Path(path)
    fmt = of_path(path)
    if fmt is None:
        raise NoManifestReader(f"{path}: no manifest reader for {path.suffix.lower()!r} files")
    return fmt.load_manifest_reader()(path)


def xlsx_manifest(path: Path) -> dict:
    return _parse(path, _xlsx_text(path))  # the very hidden manifest sheet


def markdown_manifest(path: Path) -> dict:
    return _parse(path, _markdown_text(path))  # its sidecar, or the closing comment of an older export


def csv_manifest(path: Path) -> dict:
    return _parse(path, _sidecar_text(path, "the CSV"))


def pdf_manifest(path: Path) -> dict:
    _file_within_limits(path)
    return _parse(path, _pdf_text(path))  # the attached exportguard-manifest.json


def _text(path: Path) -> str:
    from .safety import read_text

    return read_text(path)


def _file_within_limits(path: Path) -> None:
    from .safety import DEFAULT_LIMITS, check_file_size

    check_file_size(path, DEFAULT_LIMITS)


def custom_xml_parts(z, default_main: str = PPTX_MAIN) -> list[str]:
    """The custom XML parts of a deck or a Word file (a SafeZip): related from its main part (the
    presentation or document part; ``default_main`` where the package names none), as exportguard,
    PowerPoint and Word relate them, then from the package root, where LibreOffice relates them when
    it saves a file (with a target of ``../customXml/item1.xml``: above the root, which resolves to
    the root, RFC 3986 section 5.2.4)."""
    from .xlsx_reader import main_part, relationships

    main = main_part(z, default_main)
    out: list[str] = []
    for part in (main, ""):
        for kind, target, mode in relationships(z, part).values():
            while target.startswith("../"):
                target = target[3:]
            if kind == RT_CUSTOM_XML and mode != "External" and target not in out:
                out.append(target)
    return out


def custom_xml_part_names(path, default_main: str = PPTX_MAIN) -> list[str]:
    """``custom_xml_parts`` of the deck (or, with DOCX_MAIN, the Word file) at ``path``."""
    from .safety import SafeZip

    with SafeZip(Path(path)) as z:
        return custom_xml_parts(z, default_main)


class _NotOurs(Exception):
    """A custom XML item whose root is not the manifest: reading it stops at its first tag."""


def custom_xml_manifest(stream, part: str, namespace: str = PPTX_MANIFEST_NS) -> str | None:
    """The JSON text of ``<eg:manifest xmlns:eg="urn:exportguard:manifest">JSON</eg:manifest>``, or
    None when the item's root is another element. Streamed through the safety layer's parser (no
    DTD, no entities), so a large manifest is not built into a tree."""
    from .safety import local, stream_xml

    depth = [0]
    text: list[str] = []

    def start(tag, attrs):
        if depth[0] == 0:
            prefix = tag.partition(":")[0] if ":" in tag else ""
            ns = attrs.get(f"xmlns:{prefix}" if prefix else "xmlns")
            if ns != namespace or local(tag) != "manifest":
                raise _NotOurs()
        depth[0] += 1

    def end(tag):
        depth[0] -= 1

    def data(chunk):
        if depth[0] == 1:
            text.append(chunk)

    try:
        stream_xml(stream, part, start, end, data)
    except _NotOurs:
        return None
    return "".join(text)


def custom_properties(z) -> dict[str, str]:
    """The text custom properties of an OOXML package (docProps/custom.xml, related from the root)."""
    from .safety import parse_tree
    from .xlsx_reader import relationships

    out: dict[str, str] = {}
    for kind, target, mode in relationships(z, "").values():
        if kind != RT_CUSTOM_PROPERTIES or mode == "External" or z.find(target) is None:
            continue
        for prop in parse_tree(z.read(target), target, z.limits).iter(f"{_CUSTOM_PROPS}property"):
            value = prop.find(f"{_VT}lpwstr")
            if prop.get("name") and value is not None:
                out[prop.get("name")] = value.text or ""
    return out


def pptx_manifest(path: Path) -> dict:
    """The deck's manifest. The digest exportguard also states in docProps/custom.xml (which
    LibreOffice keeps on a re-save) must be the manifest's: a deck that states one but carries no
    manifest, or another, had its manifest removed or replaced."""
    return _package_manifest(path, _Package("deck", "presentation", PPTX_MAIN, PPTX_MANIFEST_NS, PPTX_DIGEST_PROPERTY))


def docx_manifest(path: Path) -> dict:
    """The Word file's manifest: a custom XML part as in a deck (embedding.py), related from the
    document part or, after a LibreOffice re-save, from the package root; its digest stated in
    docProps/custom.xml must be the manifest's."""
    return _package_manifest(path, _Package("document", "Word document", DOCX_MAIN, DOCX_MANIFEST_NS,
                                            DOCX_DIGEST_PROPERTY))


@dataclass(frozen=True)
class _Package:
    """How an Office package that carries its manifest as a custom XML part names it: ``noun`` in
    messages ("the deck's custom property"), ``what`` it is ("the presentation carries no ...")."""
    noun: str
    what: str
    main: str
    namespace: str
    digest_property: str


def _package_manifest(path: Path, pkg: _Package) -> dict:
    from .safety import SafeZip

    with SafeZip(path) as z:
        stated = custom_properties(z).get(pkg.digest_property)
        try:
            manifest = _parse(path, _custom_xml_text(path, z, pkg))
        except ManifestNotFound:
            if stated is None:
                raise
            raise ExportguardError(f"{path}: the {pkg.noun}'s custom property {pkg.digest_property} says it carried an "
                                   f"exportguard manifest (sha256 {stated[:16]}...), but it has no manifest: the "
                                   "custom XML part that held it was removed") from None
    digest = manifest.get("digest")
    if stated is not None and (not isinstance(digest, dict) or digest.get("value") != stated):
        raise ExportguardError(f"{path}: the manifest's digest is not the one the {pkg.noun}'s custom property "
                               f"{pkg.digest_property} states ({stated[:16]}...): the manifest was replaced")
    return manifest


def _custom_xml_text(path: Path, z, pkg: _Package) -> str:
    for target in custom_xml_parts(z, pkg.main):
        if z.find(target) is None:
            raise ExportguardError(f"{path}: the package names a part it does not hold: {target}")
        if z.size(target) > MAX_CUSTOM_XML_BYTES:
            raise ExportguardError(f"{path}: part {target} is larger than {MAX_CUSTOM_XML_BYTES >> 20} MB; not read")
        with z.open(target) as f:
            text = custom_xml_manifest(f, target, pkg.namespace)
        if text is not None:
            return text
    raise ManifestNotFound(f"{path}: no exportguard manifest part (custom XML {pkg.namespace}): the {pkg.what} "
                           "carries no exportguard manifest")


def _pdf_text(path: Path) -> str:
    """The manifest JSON attached to a PDF, read by pypdf (its limits as the checker set them, but
    the attachment may inflate to PDF_MAX_MANIFEST_BYTES: a big export's manifest is one stream)."""
    from .safety import pdf_problem

    try:
        import contextlib

        import pypdf
        from pypdf import PdfReader

        apply = getattr(pypdf, "apply_configuration", None)  # an older pypdf: its default limits apply
        with apply(zlib_maximum_output_length=PDF_MAX_MANIFEST_BYTES) if apply else contextlib.nullcontext():
            for entry in PdfReader(str(path)).attachment_list:
                if entry.name == PDF_MANIFEST_NAME:
                    data = entry.content
                    try:
                        return data.decode("utf-8")
                    except UnicodeDecodeError as e:
                        raise ExportguardError(f"{path}: the attached {PDF_MANIFEST_NAME} is not UTF-8 text: {e}") \
                            from None
    except ExportguardError:
        raise
    except Exception as e:  # pypdf's PdfReadError, LimitReachedError, OSError, ...: not a readable PDF
        raise ExportguardError(f"{path}: cannot read the PDF's attachments: {pdf_problem(e)}") from None
    raise ManifestNotFound(f"{path}: no {PDF_MANIFEST_NAME} attachment: the PDF carries no exportguard manifest")


def _xlsx_text(path: Path) -> str:
    from .safety import SafeZip
    from .xlsx_reader import sheet_column_text

    with SafeZip(path) as z:
        text = sheet_column_text(z, XLSX_SHEET)
    if text is None:
        raise ManifestNotFound(f"{path}: no {XLSX_SHEET} sheet: the workbook carries no exportguard manifest")
    return text


def _sidecar_text(path: Path, what: str) -> str:
    sidecar = path.with_name(path.name + SIDECAR)
    if not sidecar.is_file():
        raise ManifestNotFound(f"{path}: no {sidecar.name} beside it: {what} carries no exportguard manifest")
    return _text(sidecar)


def _markdown_text(path: Path) -> str:
    """The manifest beside the file (exports since the manifest moved out of the reader's way), or
    the one in the closing HTML comment of an older export."""
    embedded = _closing_comment(path)
    if embedded is not None:
        return embedded
    return _sidecar_text(path, "the Markdown file")


def _closing_comment(path: Path, block: int = 1 << 20) -> str | None:
    """The text between the last MD_OPEN and the last MD_CLOSE after it (an older export's closing
    comment), or None. The file is searched a block at a time and only the manifest is read whole:
    a big Markdown file is never held (its reader streams it too)."""
    from .safety import NotInspectable, open_regular

    opener, closer = MD_OPEN.encode(), MD_CLOSE.encode()
    keep = max(len(opener), len(closer)) - 1  # a marker cut between two blocks
    start = end = -1
    f, _size = open_regular(path)
    with f:
        at, tail = 0, b""
        while chunk := f.read(block):
            data, base = tail + chunk, at - len(tail)
            if (k := data.rfind(opener)) >= 0:
                start = max(start, base + k)
            if (k := data.rfind(closer)) >= 0:
                end = max(end, base + k)
            tail, at = data[-keep:], at + len(chunk)
        if not 0 <= start < end:
            return None
        f.seek(start + len(opener))
        raw = f.read(end - start - len(opener))
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise NotInspectable(f"not UTF-8 text (byte {start + len(opener) + e.start}: {e.reason})") from None


def _parse(path: Path, text: str) -> dict:
    try:
        manifest = json.loads(text)
    except ValueError as e:
        raise ExportguardError(f"{path}: the embedded manifest is not valid JSON: {e}") from None
    if not isinstance(manifest, dict):
        raise ExportguardError(f"{path}: the embedded manifest is not a JSON object")
    return manifest
