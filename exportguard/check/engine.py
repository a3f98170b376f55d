"""exportguard check: which files, how each is inspected, and the outcome per file.

Each file is inspected in a worker process (safety.run_isolated) with a wall-clock and a memory
bound: its manifest (when it carries one) is read through the safe-open layer and verified
(digest, and HMAC when EXPORTGUARD_SIGNING_KEY is set), its reader feeds every visible text to the
evaluator (rules on figures and citations) and the manifest comparison (tamper.py), and the
findings come back to the parent. A file that cannot be inspected safely has a reason instead.
"""
from __future__ import annotations

import os
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from ..formats import BY_NAME, BY_SUFFIX, of_path
from .evaluate import DOCUMENT, Evaluator, Hit, hit
from .safety import DEFAULT_LIMITS, Limits, NotInspectable, not_regular, run_isolated

SKIP_SUFFIXES = (".manifest.json",)
CLEAN, FINDINGS, NOT_INSPECTED = "clean", "findings", "not-inspected"


@dataclass
class FileReport:
    path: str
    format: str
    status: str = CLEAN
    reason: str | None = None  # why the file could not be inspected
    hits: list[Hit] = field(default_factory=list)
    figures: int = 0  # figures found (every occurrence, cell comments included)
    manifest: dict | None = None  # what the manifest check found, when the file carries one
    seconds: float = 0.0
    peak_rss_mb: float = 0.0
    # the manifest's export run: {"run": 32 hex digits, "members": [file names beside it]}, None when the
    # manifest has none (written before run ids) or the file carries no manifest
    export: dict | None = None
    note: str | None = None  # said instead of the usual summary (a sidecar manifest given by name)


def collect(paths: Iterable[str | Path]) -> tuple[list[tuple[Path, str]], list[FileReport]]:
    """Files to inspect: each path given, and the supported files under each folder (sorted;
    hidden folders such as .git skipped). A file given by name in a format the checker does not
    read is reported as not inspected."""
    files: list[tuple[Path, str]] = []
    refused: list[FileReport] = []
    seen: set[Path] = set()
    for p in paths:
        p = Path(p)
        if p.is_dir():
            for folder, dirs, names in os.walk(p):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(names):
                    fp = Path(folder) / name
                    fmt = _format(fp)
                    if fmt and not name.startswith((".", "~$")) and fp not in seen:
                        seen.add(fp)
                        if (kind := not_regular(fp)) is not None:
                            refused.append(_not_a_file(fp, fmt, kind))
                        else:
                            files.append((fp, fmt))
        elif p not in seen:
            seen.add(p)
            fmt = _format(p)
            if (kind := not_regular(p)) is not None:  # before any format: a FIFO never gets opened
                refused.append(_not_a_file(p, fmt, kind))
            elif (of := _sidecar_of(p)) is not None:  # `check folder/*` names r.md.manifest.json too
                refused.append(FileReport(str(p), "manifest", CLEAN, note=f"the manifest of {of.name}, checked with it"))
            elif fmt:
                files.append((p, fmt))
            else:
                refused.append(FileReport(str(p), p.suffix.lower().lstrip(".") or "?", NOT_INSPECTED,
                                          f"not a format the checker reads (known: {', '.join(sorted(BY_SUFFIX))})"))
    return files, refused


def _not_a_file(path: Path, fmt: str | None, kind: str) -> FileReport:
    """A FIFO, a device or a socket: refused from its stat alone (opening a FIFO waits for a writer,
    a device never ends), where the worker would wait out the whole timeout."""
    return FileReport(str(path), fmt or path.suffix.lower().lstrip(".") or "?", NOT_INSPECTED,
                      f"{path} is {kind}, not a regular file")


def _sidecar_of(path: Path) -> Path | None:
    """The CSV or Markdown file whose manifest ``path`` is (``r.md`` for ``r.md.manifest.json``), if
    that file is beside it."""
    name = path.name
    if not name.lower().endswith(SKIP_SUFFIXES):
        return None
    of = path.with_name(name[:-len(SKIP_SUFFIXES[0])])
    fmt = of_path(of)
    return of if fmt is not None and not fmt.embeds_manifest and of.is_file() else None


def _format(path: Path) -> str | None:
    name = path.name.lower()
    if name.endswith(SKIP_SUFFIXES):
        return None
    fmt = of_path(path)
    return fmt.name if fmt else None


def _signing_key() -> bytes | None:
    from ..embedding import SIGNING_KEY_ENV

    value = os.environ.get(SIGNING_KEY_ENV)
    return value.encode("utf-8") if value else None


def preload(fmt: str) -> None:
    """Import a format's reader in the parent, so that each forked worker starts with it."""
    import importlib

    from . import manifests  # noqa: F401

    record = BY_NAME[fmt]
    record.load_reader()
    for module in record.preload:
        importlib.import_module(module)


def preload_comparison() -> None:
    """Import what compares an exportguard artifact with its manifest (the manifest model, the
    report types) once a file has shown one: most files a reviewer checks carry none and need not
    pay for it (a tenth of a second of each `exportguard check`)."""
    from .. import manifest  # noqa: F401
    from . import tamper  # noqa: F401


def inspect(path: Path, fmt: str, limits: Limits = DEFAULT_LIMITS, key: bytes | None = None) -> FileReport:
    """Inspect one file in this process (the worker): manifest, reading, rules, comparison."""
    from ..errors import ExportguardError
    from .manifests import ManifestNotFound, NoManifestReader, read_manifest

    report = FileReport(str(path), fmt)
    pre: list[Hit] = []
    observer = None
    record = BY_NAME.get(fmt)
    if record is not None and record.prepare:  # a library's own limits, set before the manifest is read
        record.load_prepare()(limits)
    try:
        manifest = read_manifest(path)
    except (ManifestNotFound, NoManifestReader):
        manifest = None
    except NotInspectable:
        raise
    except ExportguardError as e:
        manifest = None
        report.manifest = {"present": True, "readable": False}
        pre.append(hit("manifest-invalid", "manifest", str(e).replace(f"{path}: ", ""), scope=DOCUMENT))
    if manifest is not None:
        from ..manifest import verify
        from .tamper import ManifestCheck

        problems = verify(manifest, key)
        pre += [hit("manifest-invalid", "manifest", p, scope=DOCUMENT) for p in problems]
        observer = ManifestCheck(manifest, fmt)
        report.manifest = {"present": True, "readable": True, "figures": len(observer.entries),
                           "digest_ok": not any("digest" in p for p in problems),
                           "signed": "hmac" in manifest, "signature_checked": key is not None,
                           "signature_ok": (not any("signature" in p for p in problems)) if key else None}
        report.export = export_info(manifest)
        del manifest  # the comparison keeps what it needs; a 100,000-figure manifest is ~1 GB of objects
    ev = Evaluator(observer)
    read(path, fmt, ev, limits)
    report.hits = pre + ev.finish()
    report.figures = ev.figures
    if observer is not None:
        report.manifest["moved"] = getattr(observer, "moved", 0)
        report.manifest["edited"] = sum(1 for h in report.hits if h.rule_id in ("EG017", "EG018", "EG019"))
    report.status = FINDINGS if report.hits else CLEAN
    return report


def read(path: Path, fmt: str, sink, limits: Limits = DEFAULT_LIMITS) -> None:
    """Feed every text a person can see in the file to ``sink`` (an Evaluator), through its format's
    reader (exportguard/formats.py): a package opened through the safe-open layer, any other file by path."""
    from .safety import SafeZip

    record = BY_NAME.get(fmt)
    if record is None:
        raise NotInspectable(f"no reader for {fmt!r} files")
    reader = record.load_reader()
    if record.package:
        with SafeZip(path, limits) as z:
            reader(z, sink)
    else:
        reader(path, sink, limits)


def check(paths: Iterable[str | Path], *, limits: Limits = DEFAULT_LIMITS, ignore: Iterable[str] = (),
          progress: Callable[[int, int, str], None] | None = None, isolate: bool = True) -> list[FileReport]:
    """Inspect every file under ``paths``; ``ignore`` drops findings of those rule IDs."""
    files, reports = collect(paths)
    key = _signing_key()
    ignored = set(ignore)
    preloaded: set[str] = set()
    for n, (path, fmt) in enumerate(files):
        if progress:
            progress(n, len(files), str(path))
        if fmt not in preloaded:
            preload(fmt)
            preloaded.add(fmt)
        if isolate:
            outcome = run_isolated(inspect, (path, fmt, limits, key), limits)
            if outcome.reason is not None:
                report = FileReport(str(path), fmt, NOT_INSPECTED, outcome.reason)
            else:
                report = outcome.value
            report.seconds, report.peak_rss_mb = outcome.seconds, outcome.peak_rss_mb
        else:  # in this process: for tests and profiling only
            started = time.monotonic()
            try:
                report = inspect(path, fmt, limits, key)
            except NotInspectable as e:
                report = FileReport(str(path), fmt, NOT_INSPECTED, e.reason)
            report.seconds = time.monotonic() - started
        if ignored and report.hits:
            report.hits = [h for h in report.hits if h.rule_id not in ignored]
            if report.status == FINDINGS and not report.hits:
                report.status = CLEAN
        if report.manifest and "comparison" not in preloaded:
            preload_comparison()  # the next artifacts' workers start with it
            preloaded.add("comparison")
        reports.append(report)
    if progress:
        progress(len(files), len(files), "")
    mixed_sets(reports, ignored)
    return reports


# -- mixed export sets ---------------------------------------------------------------------------------

_RUN = re.compile(r"[0-9a-f]{32}")
MAX_MEMBERS = 1_000  # an export writes a handful of files (each format, each sidecar)


def export_info(manifest: dict) -> dict | None:
    """The manifest's ``export`` key as {"run", "members"}, or None when it has none or it is not of
    that shape: manifests are untrusted, so a malformed key is unknown, never an error here (the digest
    check says whether the manifest was edited)."""
    from ..manifest import EXPORT_KEY

    got = manifest.get(EXPORT_KEY) if isinstance(manifest, dict) else None
    if not isinstance(got, dict) or not isinstance(got.get("run"), str) or not _RUN.fullmatch(got["run"]):
        return None
    members = got.get("members")
    members = [m for m in members[:MAX_MEMBERS] if isinstance(m, str)] if isinstance(members, list) else []
    return {"run": got["run"], "members": members}


def _member_path(folder: str, member: str) -> str | None:
    """A member's resolved path inside ``folder`` (resolved itself), or None for a name that is absolute,
    climbs with '..', holds a NUL or a backslash, or resolves outside the folder (through a symlink).
    Only names are resolved here: nothing is opened."""
    parts = member.split("/")
    if (not member or len(member) > 4096 or member.startswith("/") or "\\" in member or "\x00" in member
            or any(p in ("", ".", "..") for p in parts)):
        return None
    resolved = os.path.realpath(os.path.join(folder, member))
    return resolved if resolved.startswith(folder.rstrip(os.sep) + os.sep) else None


def mixed_sets(reports: list[FileReport], ignored: set[str] = frozenset()) -> None:
    """EG026 on each pair of checked files that one export lists as its members (its manifest's
    ``export.members``) but that carry different export run ids, or no run id where the other has one
    (a file of an older export). One finding per pair, on the file whose path sorts first. Only files
    given to the checker are compared; a sidecar manifest member stands for its CSV or Markdown file,
    which is checked with it."""
    if {"EG026", "mixed-export-set"} & set(ignored):
        return
    by_real: dict[str, FileReport] = {}
    for r in reports:
        if r.status != NOT_INSPECTED and r.manifest and r.manifest.get("readable"):
            by_real.setdefault(os.path.realpath(r.path), r)
    pairs: set[tuple[str, str]] = set()
    for real in sorted(by_real):
        a = by_real[real]
        if a.export is None:
            continue
        folder = os.path.dirname(real)
        for member in a.export["members"]:
            if member.lower().endswith(SKIP_SUFFIXES):
                continue  # the manifest of a CSV or Markdown member: compared through that member
            other = _member_path(folder, member)
            m = by_real.get(other) if other and other != real else None
            if m is None or (m.export and m.export["run"] == a.export["run"]):
                continue
            pair = tuple(sorted((a.path, m.path)))
            if pair in pairs:
                continue
            pairs.add(pair)
            first = a if a.path == pair[0] else m
            first.hits.append(hit("mixed-export-set", first.path, _mixed_message(a, m), scope=DOCUMENT))
            first.status = FINDINGS


def _mixed_message(a: FileReport, m: FileReport) -> str:
    folder = os.path.dirname(a.path) or "."
    theirs = f"export run {m.export['run'][:8]}" if m.export else "no export run id: an older export"
    return (f"{a.path} (export run {a.export['run'][:8]}) lists {m.path} as a file of the same export, but "
            f"{m.path} carries {theirs}: an export was interrupted between putting its files in place, or one "
            f"file was replaced by another export; run `exportguard recover {folder}`, then export again.")


def exit_code(reports: list[FileReport]) -> int:
    """0 clean, 1 findings, 2 a file could not be inspected."""
    if any(r.status == NOT_INSPECTED for r in reports):
        return 2
    return 1 if any(r.hits for r in reports) else 0


class Progress:
    """A one-line progress bar on stderr, shown once a run has taken more than a moment."""

    def __init__(self, stream=None, after_s: float | None = None, width: int = 30):
        self.stream = stream or sys.stderr
        self.started = time.monotonic()
        if after_s is None:
            try:
                after_s = float(os.environ.get("EXPORTGUARD_PROGRESS_AFTER", "0.5"))
            except ValueError:
                after_s = 0.5
        self.after_s, self.width, self.shown = after_s, width, False

    def __call__(self, done: int, total: int, current: str) -> None:
        if total < 2 or (not self.shown and time.monotonic() - self.started < self.after_s and done < total):
            return
        if done >= total:
            if self.shown:
                self.stream.write("\r" + " " * (self.width + 60) + "\r")
                self.stream.flush()
            return
        self.shown = True
        filled = int(self.width * done / total)
        name = current if len(current) <= 40 else "…" + current[-39:]
        self.stream.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] {done}/{total} {name:<40}")
        self.stream.flush()
