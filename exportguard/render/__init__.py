"""Renderers: one module per format (named by its record in exportguard/formats.py), each with one
entry point, ``render(report, path, **options) -> manifest``.

``export`` validates the report once (guard.validate), checks every target before rendering any,
renders each to a temporary file beside its target, and only when all succeeded moves them into
place together (render/commit.py): a failed, interrupted or killed export replaces nothing, and
its temporary files are removed (after a kill: by the next export to its targets).
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Callable, Mapping, Sequence

from ..clock import Clock, resolve as resolve_clock
from ..errors import ExportguardError, os_cause as cause
from ..guard import refuse_on_errors, validate
from ..manifest import write as write_manifest
from ..embedding import SIDECAR as SIDECAR_SUFFIX  # for formats that do not embed their manifest
from ..formats import WRITTEN, Format, template_for, written_as
from ..report import ExportRun, Report
from .commit import Commit, ExportWriteError, is_ours, new_run, write_failure

def renderer_for(path: Path) -> Format:
    """The format an export writes to ``path`` (exportguard/formats.py), its painter imported."""
    fmt = written_as(path)
    if fmt is None:
        raise ExportguardError(f"{path}: unknown output format {path.suffix.lower()!r}; known: {', '.join(WRITTEN)}")
    try:
        fmt.load_painter()
    except ModuleNotFoundError as e:
        if e.name and e.name.endswith(fmt.painter.rpartition(".")[2]):
            raise ExportguardError(f"{path}: the {fmt.suffix} exporter is not built yet") from None
        raise
    return fmt


def check_section_kinds(report: Report, targets: Sequence[Path], formats: Sequence[Format]) -> None:
    """Refuse, before anything is rendered, a section kind a target's format cannot draw yet."""
    for target, fmt in zip(targets, formats):
        for n, section in enumerate(report.sections, 1):
            if section.kind not in fmt.section_kinds:
                raise ExportguardError(f"{target}: section {n} ({section.title}) is a {section.kind!r} section, not yet "
                                       f"supported in {target.suffix.lower()}: export it to .csv or .md")


def check_template(template, formats: Sequence[Format]) -> None:
    """Refuse a template that no target takes (a .docx template for a deck alone), before anything is
    rendered."""
    if template is None or any(template_for(fmt, template) for fmt in formats):
        return
    takers = [f"{f.suffix} ({', '.join(f.templates)})" for f in WRITTEN.values() if f.templates]
    raise ExportguardError(f"{template}: no target of this export takes a {Path(template).suffix or 'suffix-less'} "
                           f"template; a template is for {', '.join(takers)} targets. Nothing was written")


def outputs_of(targets: Sequence[Path], formats: Sequence[Format]) -> list[Path]:
    """Every file an export writes: each target, and the manifest beside those that cannot embed one."""
    out = []
    for target, fmt in zip(targets, formats):
        out.append(target)
        if not fmt.embeds_manifest:
            out.append(target.with_name(target.name + SIDECAR_SUFFIX))
    return out


def check_targets(paths: Sequence[Path], force: bool = False, inputs: Mapping[str, str | Path | None] | None = None
                  ) -> None:
    """Refuse before any rendering: a target that is a folder, in a folder that cannot be written,
    named twice, with a name longer than its file system allows, read-only (unless ``force``), or
    the same file as one of the export's ``inputs`` (role -> path: the store, the spec, ...)."""
    seen: set[Path] = set()
    for path in paths:
        folder = _existing_ancestor(path.parent)
        longest = _longest_name(folder)
        if len(os.fsencode(path.name)) > longest:
            raise ExportguardError(f"{path}: the name is {len(os.fsencode(path.name))} bytes long, more than the "
                                   f"{longest} a file name may have in {folder}; nothing was written")
        resolved = path.resolve()
        if resolved in seen:
            raise ExportguardError(f"{path}: named twice as an output")
        seen.add(resolved)
        if path.is_dir():
            raise ExportguardError(f"{path}: is a folder, not a file to write")
        if path.exists() and not path.is_file():
            raise ExportguardError(f"{path}: is not a regular file; refusing to replace it")
        if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
            raise ExportguardError(f"{path}: cannot write in {folder}")
        if path.exists():
            for role, source in (inputs or {}).items():
                if source and Path(source).exists() and os.path.samefile(path, source):
                    raise ExportguardError(f"{path}: is the {role} this export reads ({source}); refusing to "
                                           "overwrite it. Nothing was written: choose another output file")
        if path.exists() and not force and (not path.stat().st_mode & 0o222 or not os.access(path, os.W_OK)):
            raise ExportguardError(f"{path}: is read-only; refusing to replace it (--force to replace anyway)")


def _longest_name(folder: Path) -> int:
    try:
        return os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError):
        return 255


def _existing_ancestor(folder: Path) -> Path:
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return folder


def run_id(report: Report, finals: Sequence[Path], clock: Clock) -> str:
    """The id of one export run (in its file names and every artifact's manifest): unguessable for an
    export at the current time; for a clock the caller fixed (SOURCE_DATE_EPOCH, a test), worked out
    from that instant, the files' names and the figures shown, so the same export gives the same
    bytes and different figures a different id (the checker's mixed-set finding still sees them)."""
    if clock.source == "now":
        return new_run()
    digest = hashlib.sha256(json.dumps([clock.iso(), report.title, [Path(f).name for f in finals]]).encode())
    for _, figure in report.figures():
        ident = figure.result.conditions.identity
        digest.update(f"{figure.magnitude!r}|{figure.unit_text}|{ident.result_id}|{ident.submitter}|"
                      f"{ident.system_name}\n".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:32]


NOTHING_REPLACED = "Nothing was replaced: every target is as it was before, and no partial file is left"


def export(report: Report, targets: Sequence[str | Path], *, force: bool = False,
           inputs: Mapping[str, str | Path | None] | None = None, wait_s: float = 0.0,
           tell: Callable[[str], None] | None = None, clock: Clock | None = None, **options) -> list[Path]:
    """Validate once, render every target, then move all into place together (render/commit.py).
    ``options`` go to every renderer (e.g. text_cells=True for XLSX); a renderer ignores those it
    does not know. ``inputs`` (role -> path) are files the export reads, which no target may be
    (the template in ``options`` is one); ``wait_s`` bounds the wait for another export writing in
    a target's folder; ``tell`` hears about waits and interrupted exports undone; ``clock`` is the
    instant every artifact states (default: SOURCE_DATE_EPOCH when set, else now)."""
    clock = resolve_clock(clock)  # one instant for every target (exportguard/clock.py)
    if not report.generated_on:
        report = replace(report, generated_on=clock.date())
    warnings = refuse_on_errors(validate(report))
    if warnings and not report.warnings:
        report = replace(report, warnings=warnings)
    targets = [Path(t) for t in targets]
    formats = [renderer_for(t) for t in targets]
    check_section_kinds(report, targets, formats)
    check_template(options.get("template"), formats)
    finals = outputs_of(targets, formats)
    check_targets(finals, force, {**(inputs or {}), "template": options.get("template")})
    failure = None
    run = run_id(report, finals, clock)
    try:
        with Commit(finals, wait_s=wait_s, tell=tell, run=run) as commit:
            doing = targets[0]
            try:
                for target, fmt in zip(targets, formats):
                    doing = target
                    part = commit.stage(target)
                    members = tuple(Path(os.path.relpath(f, target.parent)).as_posix() for f in finals)
                    with commit.scratch(target):
                        own = {**options, "template": template_for(fmt, options.get("template"))}
                        manifest = fmt.load_painter().render(replace(report, export=ExportRun(run, members)), part,
                                                             clock=clock, **own)
                    if not fmt.embeds_manifest:
                        doing = target.with_name(target.name + SIDECAR_SUFFIX)
                        with open(commit.stage(doing), "w", encoding="utf-8") as f:
                            write_manifest(manifest, f)
                            f.write("\n")
                commit.commit()
            except ExportWriteError as err:
                failure = str(err)
            except Exception as raised:  # noqa: BLE001 - only a failure to write is reworded; others go on
                err = write_failure(raised)
                if err is None:
                    raise
                shown = "" if not err.filename or is_ours(err.filename) else f" ({err.filename})"
                failure = f"{doing}: could not be written: {cause(err)}{shown}"
    except OSError as err:  # making or locking a target's folder
        folder = Path(err.filename) if err.filename else finals[0].parent
        target = next((f for f in finals if folder == f.parent or folder in f.parents), finals[0])
        raise ExportWriteError(f"{target}: cannot write in {folder}: {cause(err)}; nothing was written") from None
    if failure:
        raise ExportWriteError(f"{failure}. {NOTHING_REPLACED}")
    return finals
