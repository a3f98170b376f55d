"""Renderers: one module per format, each implementing the walker's protocol (render/walk.py) and
one entry point, ``render(report, path, **options) -> manifest``.

``export`` validates the report once (guard.validate), checks every target before rendering any,
renders each to a temporary file beside its target, and only when all succeeded moves them into
place together: a failed export leaves no file and no temporary file behind, and replaces nothing.
"""
from __future__ import annotations

import importlib
import os
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Sequence

from ..errors import ExportguardError
from ..guard import refuse_on_errors, validate
from ..manifest import write as write_manifest
from ..check.manifests import SIDECAR as SIDECAR_SUFFIX  # for formats that do not embed their manifest
from ..report import Report

FORMATS = {".csv": "csv_out", ".md": "markdown", ".xlsx": "xlsx", ".pptx": "pptx", ".pdf": "pdf"}
# The section kinds every renderer draws; a renderer that draws more lists them in SECTION_KINDS.
BASIC_SECTION_KINDS = ("table", "chart", "kpi", "text")


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


def check_section_kinds(report: Report, targets: Sequence[Path], modules) -> None:
    """Refuse, before anything is rendered, a section kind a target's format cannot draw yet."""
    for target, module in zip(targets, modules):
        kinds = getattr(module, "SECTION_KINDS", BASIC_SECTION_KINDS)
        for n, section in enumerate(report.sections, 1):
            if section.kind not in kinds:
                raise ExportguardError(f"{target}: section {n} ({section.title}) is a {section.kind!r} section, not yet "
                                       f"supported in {target.suffix.lower()}: export it to .csv or .md")


def outputs_of(targets: Sequence[Path], modules) -> list[Path]:
    """Every file an export writes: each target, and the manifest beside those that cannot embed one."""
    out = []
    for target, module in zip(targets, modules):
        out.append(target)
        if not getattr(module, "EMBEDS_MANIFEST", True):
            out.append(target.with_name(target.name + SIDECAR_SUFFIX))
    return out


def check_targets(paths: Sequence[Path], force: bool = False) -> None:
    """Refuse before any rendering: a target that is a folder, in a folder that cannot be written,
    named twice, or read-only (unless ``force``)."""
    seen: set[Path] = set()
    for path in paths:
        resolved = path.resolve()
        if resolved in seen:
            raise ExportguardError(f"{path}: named twice as an output")
        seen.add(resolved)
        if path.is_dir():
            raise ExportguardError(f"{path}: is a folder, not a file to write")
        if path.exists() and not path.is_file():
            raise ExportguardError(f"{path}: is not a regular file; refusing to replace it")
        folder = _existing_ancestor(path.parent)
        if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
            raise ExportguardError(f"{path}: cannot write in {folder}")
        if path.exists() and not force and (not path.stat().st_mode & 0o222 or not os.access(path, os.W_OK)):
            raise ExportguardError(f"{path}: is read-only; refusing to replace it (--force to replace anyway)")


def _existing_ancestor(folder: Path) -> Path:
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return folder


def export(report: Report, targets: Sequence[str | Path], *, force: bool = False, **options) -> list[Path]:
    """Validate once, render every target, then move all into place together. ``options`` go to
    every renderer (e.g. text_cells=True for XLSX); a renderer ignores those it does not know."""
    warnings = refuse_on_errors(validate(report))
    if warnings and not report.warnings:
        report = replace(report, warnings=warnings)
    targets = [Path(t) for t in targets]
    modules = [renderer_for(t) for t in targets]
    check_section_kinds(report, targets, modules)
    finals = outputs_of(targets, modules)
    check_targets(finals, force)
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
                with open(side_tmp, "w", encoding="utf-8") as f:
                    write_manifest(manifest, f)
                    f.write("\n")
        _move_all(staged)
    finally:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)
    return [final for _, final in staged]


def _move_all(staged: list[tuple[Path, Path]]) -> None:
    """Move every staged file into place, or, if one move fails, put back what was there before."""
    mode = 0o666 & ~_umask()
    backups: list[tuple[Path, Path | None]] = []
    try:
        for tmp, final in staged:
            os.chmod(tmp, mode)  # mkstemp makes 0600; an export is a file like any other
            backup = None
            if final.exists():
                backup = _temp_beside(final)
                try:
                    os.replace(final, backup)
                except BaseException:
                    backup.unlink(missing_ok=True)
                    raise
            backups.append((final, backup))
            os.replace(tmp, final)
    except BaseException:
        for final, backup in reversed(backups):
            if backup is not None:
                os.replace(backup, final)
            else:
                final.unlink(missing_ok=True)
        raise
    for _, backup in backups:
        if backup is not None:
            backup.unlink(missing_ok=True)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _temp_beside(target: Path) -> Path:
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    os.close(fd)
    return Path(name)
