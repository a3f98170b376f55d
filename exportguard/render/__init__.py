"""Renderers: one module per format, one entry point each: ``render(report, path, **options) -> manifest``.

Each renderer writes the whole artifact to ``path`` and returns the manifest it embedded (or, for
formats that cannot hold one, the manifest that ``export`` writes beside the artifact). ``export``
validates the report first (guard.validate), renders every target to a temporary file in the
target's folder, and only when all succeeded moves them into place: a failed export leaves no file.
"""
from __future__ import annotations

import importlib
import os
import tempfile
from pathlib import Path
from typing import Sequence

from ..errors import ExportguardError
from ..guard import refuse_on_errors, validate
from ..manifest import dumps
from ..report import Report

FORMATS = {".csv": "csv_out", ".md": "markdown", ".xlsx": "xlsx", ".pptx": "pptx", ".pdf": "pdf"}
SIDECAR_SUFFIX = ".manifest.json"  # for formats that cannot embed a manifest (CSV)


def renderer_for(path: Path):
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise ExportguardError(f"{path}: unknown output format {suffix!r}; known: {', '.join(FORMATS)}")
    try:
        return importlib.import_module(f"{__name__}.{FORMATS[suffix]}")
    except ModuleNotFoundError as e:
        if e.name and e.name.endswith(FORMATS[suffix]):
            raise ExportguardError(f"{path}: the {suffix} exporter is not built yet") from None
        raise


def export(report: Report, targets: Sequence[str | Path], **options) -> list[Path]:
    """Validate once, render every target, then move all into place together. ``options`` go to
    every renderer (e.g. text_cells=True for XLSX); a renderer ignores those it does not know."""
    warnings = refuse_on_errors(validate(report))
    if warnings and not report.warnings:
        from dataclasses import replace

        report = replace(report, warnings=warnings)
    targets = [Path(t) for t in targets]
    modules = [renderer_for(t) for t in targets]
    staged: list[tuple[Path, Path]] = []
    try:
        for target, module in zip(targets, modules):
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = _temp_beside(target)
            staged.append((tmp, target))
            manifest = module.render(report, tmp, **options)
            if not getattr(module, "EMBEDS_MANIFEST", True):
                side_tmp = _temp_beside(target)
                staged.append((side_tmp, target.with_name(target.name + SIDECAR_SUFFIX)))
                side_tmp.write_text(dumps(manifest) + "\n", encoding="utf-8")
    except BaseException:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)
        raise
    for tmp, final in staged:
        os.replace(tmp, final)
    return [final for _, final in staged]


def _temp_beside(target: Path) -> Path:
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    os.close(fd)
    return Path(name)
