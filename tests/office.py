"""The real office tools the tests render with: LibreOffice converts, poppler reads PDFs back, and the
deck's theme font (Calibri or its metric twin Carlito) is installed. Under CI (CI=true) a missing tool
fails the run; elsewhere the test skips, saying which tool it needs."""
from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

from tests.conftest import IN_CI

ARTIFACTS_ROOT = os.environ.get("EXPORTGUARD_ARTIFACTS")  # where rendered pages are kept for a person to look at


def tool(*names: str) -> str:
    """The first of ``names`` on the PATH (``soffice``, ``pdftotext``, ...)."""
    for name in names:
        exe = shutil.which(name)
        if exe:
            return exe
    if IN_CI:
        pytest.fail(f"CI=true but {names[0]} is not installed (LibreOffice, poppler-utils, qpdf)")
    pytest.skip(f"{names[0]} is needed here (LibreOffice, poppler-utils, qpdf)")


def convert(paths: list[Path], outdir: Path, to: str = "pdf", timeout: int = 300, infilter: str | None = None) -> list[Path]:
    """LibreOffice headless, with a profile of its own (concurrent conversions do not collide).
    ``infilter``: the import filter and its options, as the import dialog would set them
    ("CSV:44,34,76,1": comma, double quote, UTF-8, from line 1)."""
    exe = tool("soffice", "libreoffice")
    profile = Path("/tmp") / f"eg-lo-{uuid.uuid4().hex[:10]}"
    extra = [f"--infilter={infilter}"] if infilter else []
    try:
        done = subprocess.run([exe, f"-env:UserInstallation=file://{profile}", "--headless", *extra, "--convert-to", to,
                               "--outdir", str(outdir), *map(str, paths)], capture_output=True, text=True,
                              timeout=timeout)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    out = [outdir / f"{p.stem}.{to}" for p in paths]
    assert done.returncode == 0 and all(p.exists() for p in out), done.stdout + done.stderr
    return out


def pdf_text(pdf: Path, *, layout: bool = True) -> str:
    args = [tool("pdftotext"), *(["-layout"] if layout else []), str(pdf), "-"]
    return subprocess.run(args, capture_output=True, text=True, check=True, timeout=60).stdout


def artifacts(kind: str, fallback: Path) -> Path:
    """The folder for rendered pages of ``kind``: EXPORTGUARD_ARTIFACTS/kind, else ``fallback``."""
    folder = Path(ARTIFACTS_ROOT) / kind if ARTIFACTS_ROOT else fallback
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def theme_font_measured() -> None:
    """The default template's theme font, Calibri, is measured with its own metrics or its metric twin's
    (Carlito, Debian's fonts-crosextra-carlito, which .ci/run installs); without either the planner
    measures with the wider fallback and plans more slides, which is safe but not what PowerPoint draws."""
    from exportguard.render.pptx_layout import font_file

    found = font_file("Calibri") or ""
    if any(name in found.lower() for name in ("calibri", "carlito")):
        return
    if IN_CI:
        pytest.fail("CI=true but neither Calibri nor Carlito is installed (fonts-crosextra-carlito)")
    pytest.skip("Calibri or its metric twin Carlito (fonts-crosextra-carlito) is needed to measure this deck")
