"""The checker's public calls (re-exported by ``exportguard.api`` and ``exportguard``): check any
document for bare or tampered figures. Kept apart from api.py, which imports the store and
SQLAlchemy, so that `exportguard check` pays only for the checker it runs (issue 37: within 1.5 x a
bare read of the file).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from .api_args import ArgumentError, callback_arg, memory_arg, paths_arg, seconds_arg, texts_arg
from .rules import rule


@dataclass(frozen=True)
class CheckResult:
    """The checker's outcome, as data: one FileReport per file (path, format, status, reason, hits,
    figures, manifest) and every finding (``findings``: rule_id, location, message, severity, and
    scope, line, key, exported, now)."""

    files: tuple[Any, ...]

    @property
    def findings(self) -> tuple[Any, ...]:
        return tuple(h for f in self.files for h in f.hits)

    @property
    def exit_code(self) -> int:
        """0 clean, 1 findings, 2 a file could not be inspected (as ``exportguard check``)."""
        from .check.engine import exit_code

        return exit_code(list(self.files))

    @property
    def clean(self) -> bool:
        return self.exit_code == 0

    def to_json(self) -> dict:
        """The JSON report (schema exportguard-check/1, docs/check.md)."""
        from .check.output import to_json

        return to_json(list(self.files))

    def render(self, format: str = "text", quiet: bool = False) -> str:
        """The report as ``exportguard check --format`` writes it: text, json or sarif."""
        from .check.output import render

        return render(list(self.files), format, quiet=quiet)

    def __iter__(self) -> Iterator[Any]:
        return iter(self.files)


def rule_ids(names: Iterable[str]) -> set[str]:
    """Rule IDs or names (a name list may be comma-separated) as IDs."""
    ids = set()
    for name in names:
        for part in str(name).split(","):
            try:
                ids.add(rule(part.strip()).id)
            except KeyError:
                raise ArgumentError(f"unknown rule {part!r} (see --rules)") from None
    return ids


def check_documents(*paths: str | Path, ignore: Iterable[str] = (), timeout: float | None = None,
                    max_memory: int | None = None, progress: Callable[[int, int, str], None] | None = None
                    ) -> CheckResult:
    """Check PPTX, XLSX, PDF, CSV and Markdown files (or folders of them), by anyone, for figures
    without their binding and citation gaps, and exportguard artifacts for edits since export; each
    file in a worker process bounded by ``timeout`` seconds (default 120) and ``max_memory`` MB
    (default 2048; at least 64). ``ignore``: the rule IDs or names whose findings to drop, as a list,
    tuple or set; one text alone is one rule (``ignore="EG001"``, or "EG001,EG002" as --ignore takes)."""
    from .check.engine import check
    from .check.safety import DEFAULT_LIMITS

    if not paths:
        raise ArgumentError("give at least one file or folder to check")
    paths_arg("paths", paths)
    rules = texts_arg("ignore", ignore)
    try:
        ignored = rule_ids(rules)
    except ArgumentError as e:  # rule_ids speaks for --ignore too: name the argument here
        raise ArgumentError(f"ignore={ignore!r}: {e}") from None
    seconds_arg("timeout", timeout, positive=True, optional=True)  # 0 s would answer "not inspected" for all
    memory_arg("max_memory", max_memory)
    callback_arg("progress", progress)
    limits = DEFAULT_LIMITS.with_overrides(timeout_s=timeout, max_memory_mb=max_memory)
    return CheckResult(tuple(check(paths, limits=limits, ignore=ignored, progress=progress)))
