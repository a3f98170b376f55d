"""The manifest embedded in an artifact, read back: the very hidden sheet of a workbook, the
sidecar file of a CSV or a Markdown file (older Markdown exports: their closing HTML comment), the custom XML part of a deck,
the attached file of a PDF. Integrity is checked separately (exportguard.manifest.verify).

Artifacts are untrusted input: every branch reads through the checker's safe-open layer
(check/safety.py: archive limits, XML without DTDs or entities, file size limits), which raises
NotInspectable (an ExportguardError) for a file it refuses; the checker also runs each file in a
worker with a time and memory bound. A new format adds one branch to ``read_manifest``."""
from __future__ import annotations

import json
from pathlib import Path

from ..errors import ExportguardError

XLSX_SHEET = "exportguard_manifest"
MD_OPEN, MD_CLOSE = "<!-- exportguard-manifest\n", "\nexportguard-manifest -->"  # older Markdown exports
# The closing line of exportguard's Markdown now: a comment (not shown when rendered) saying where the manifest is.
MD_POINTER = "<!-- exportguard manifest: beside this file, as <this file's name>.manifest.json -->"
SIDECAR = ".manifest.json"  # beside a CSV, and beside a Markdown file (which keeps only a pointer to it)
CSV_SIDECAR = SIDECAR
# exportguard's CSV: the column of each figure's text, and the column of the number it shows (the
# checker pairs them, so an edited number is found like an edited text)
CSV_FIGURE_HEADER, CSV_VALUE_HEADER = "figure", "value"


class ManifestNotFound(ExportguardError):
    """The artifact carries no exportguard manifest (not made by exportguard, or removed since)."""


class NoManifestReader(ExportguardError):
    """No branch of read_manifest reads this format (yet): its files are checked without a manifest."""


def read_manifest(path) -> dict:
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".xlsx":
        return _parse(path, _xlsx_text(path))
    if suffix == ".md":
        return _parse(path, _markdown_text(path))  # its sidecar, or the closing comment of an older export
    if suffix == ".pptx":
        from ..render.pptx_xml import read_manifest_text  # the deck's custom XML part (docs/pptx.md)

        _archive_within_limits(path)
        return _parse(path, read_manifest_text(path))
    if suffix == ".csv":
        return _parse(path, _sidecar_text(path, "the CSV"))
    if suffix == ".pdf":
        from ..render.pdf_manifest import read_text  # pypdf: the attached exportguard-manifest.json

        _file_within_limits(path)
        return _parse(path, read_text(path))
    raise NoManifestReader(f"{path}: no manifest reader for {suffix!r} files")


def _text(path: Path) -> str:
    from .safety import read_text

    return read_text(path)


def _archive_within_limits(path: Path) -> None:
    """The checker's archive limits (entries, sizes, ratio, names) before any part is read."""
    from .safety import SafeZip

    SafeZip(path).close()


def _file_within_limits(path: Path) -> None:
    from .safety import DEFAULT_LIMITS, check_file_size

    check_file_size(path, DEFAULT_LIMITS)


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
    text = _text(path)
    start, end = text.rfind(MD_OPEN), text.rfind(MD_CLOSE)
    if 0 <= start < end:
        return text[start + len(MD_OPEN): end]
    return _sidecar_text(path, "the Markdown file")


def _parse(path: Path, text: str) -> dict:
    try:
        manifest = json.loads(text)
    except ValueError as e:
        raise ExportguardError(f"{path}: the embedded manifest is not valid JSON: {e}") from None
    if not isinstance(manifest, dict):
        raise ExportguardError(f"{path}: the embedded manifest is not a JSON object")
    return manifest
