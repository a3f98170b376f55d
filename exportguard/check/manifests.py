"""The manifest embedded in an artifact, read back: the very hidden sheet of a workbook, the
closing HTML comment of a Markdown file, the sidecar file of a CSV, the attached file of a PDF.
Integrity is checked separately (exportguard.manifest.verify)."""
from __future__ import annotations

import json
from pathlib import Path

from ..errors import ExportguardError

XLSX_SHEET = "exportguard_manifest"
MD_OPEN, MD_CLOSE = "<!-- exportguard-manifest\n", "\nexportguard-manifest -->"
CSV_SIDECAR = ".manifest.json"


class ManifestNotFound(ExportguardError):
    """The artifact carries no exportguard manifest (not made by exportguard, or removed since)."""


def read_manifest(path) -> dict:
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".xlsx":
        return _parse(path, _xlsx_text(path))
    if suffix == ".md":
        return _parse(path, _markdown_text(path))
    if suffix == ".pptx":
        from ..render.pptx_xml import read_manifest_text  # the deck's custom XML part (docs/pptx.md)

        return _parse(path, read_manifest_text(path))
    if suffix == ".csv":
        sidecar = path.with_name(path.name + CSV_SIDECAR)
        if not sidecar.is_file():
            raise ManifestNotFound(f"{path}: no {sidecar.name} beside it: the CSV carries no exportguard manifest")
        return _parse(path, sidecar.read_text("utf-8"))
    if suffix == ".pdf":
        from ..render.pdf_manifest import read_text  # pypdf: the attached exportguard-manifest.json

        return _parse(path, read_text(path))
    raise ExportguardError(f"{path}: no manifest reader for {suffix!r} files")


def _xlsx_text(path: Path) -> str:
    from openpyxl import load_workbook

    try:
        wb = load_workbook(path, read_only=True, data_only=True, keep_links=False)
    except Exception as e:  # zipfile.BadZipFile, KeyError, XML errors: not a readable workbook
        raise ExportguardError(f"{path}: cannot read as a workbook: {e}") from None
    try:
        if XLSX_SHEET not in wb.sheetnames:
            raise ManifestNotFound(f"{path}: no {XLSX_SHEET} sheet: the workbook carries no exportguard manifest")
        return "".join(str(v) for (v,) in wb[XLSX_SHEET].iter_rows(min_col=1, max_col=1, values_only=True)
                       if v is not None)
    finally:
        wb.close()


def _markdown_text(path: Path) -> str:
    text = path.read_text("utf-8")
    start, end = text.rfind(MD_OPEN), text.rfind(MD_CLOSE)
    if start < 0 or end < start:
        raise ManifestNotFound(f"{path}: no exportguard-manifest comment: the file carries no exportguard manifest")
    return text[start + len(MD_OPEN): end]


def _parse(path: Path, text: str) -> dict:
    try:
        manifest = json.loads(text)
    except ValueError as e:
        raise ExportguardError(f"{path}: the embedded manifest is not valid JSON: {e}") from None
    if not isinstance(manifest, dict):
        raise ExportguardError(f"{path}: the embedded manifest is not a JSON object")
    return manifest
