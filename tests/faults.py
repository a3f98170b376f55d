"""What the fault-injection tests share: exportguard in a fresh process (under strace with a fault
injected at one syscall, or under a file-size limit), small and read-only file systems, and a CSV
of made-up rows for a cohort of the real v5.1 data."""
from __future__ import annotations

import csv
import os
import resource
import shutil
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

from tests.conftest import IN_CI

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE_CSV = ROOT / "templates" / "results.csv"
# Exports made in a child process are deterministic where they can be, and no .pyc is written:
# a rename that Python makes for its byte-code cache would be counted with the export's own.
CHILD_ENV = {"PYTHONDONTWRITEBYTECODE": "1", "SOURCE_DATE_EPOCH": "1757376000"}
OFFLINE_70B = ["--round", "v5.1", "--division", "closed", "--model", "llama2-70b", "--track", "99",
               "--scenario", "Offline"]


def strace() -> str:
    found = shutil.which("strace")
    if found:
        return found
    if IN_CI:
        pytest.fail("CI=true but strace is not installed: .ci/run installs it for the fault-injection tests")
    pytest.skip("strace is not installed (apt-get install strace)")


def run(args, *, inject: str | None = None, file_size_limit: int | None = None, env: dict | None = None,
        timeout: float = 180) -> subprocess.CompletedProcess:
    """``exportguard ARGS`` in a new process. ``inject``: an strace fault, e.g.
    "rename:signal=KILL:when=2" (the process gets SIGKILL as it enters its 2nd rename);
    ``file_size_limit``: RLIMIT_FSIZE in bytes."""
    cmd = [sys.executable, "-m", "exportguard", *map(str, args)]
    if inject:
        syscall = inject.split(":", 1)[0]
        cmd = [strace(), "-f", "-qq", "-o", os.devnull, "-e", f"trace={syscall}", "-e", f"inject={inject}", "--", *cmd]

    def limit():
        if file_size_limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_size_limit, file_size_limit))

    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                          env={**os.environ, **CHILD_ENV, **(env or {})}, preexec_fn=limit)


def killed(done: subprocess.CompletedProcess) -> bool:
    return done.returncode in (-9, 137)


def assert_one_line_error(done: subprocess.CompletedProcess, *words: str) -> str:
    """A fault ends in a non-zero exit and one line on stderr that says what happened; no traceback."""
    assert done.returncode not in (0, -9, 137), (done.returncode, done.stdout, done.stderr)
    lines = [line for line in done.stderr.splitlines() if not line.startswith("waiting for ")]
    assert "Traceback" not in done.stderr, done.stderr
    assert len(lines) == 1, done.stderr
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


def can_mount() -> bool:
    return os.geteuid() == 0 and shutil.which("mount") is not None


@contextmanager
def small_filesystem(folder: Path, size_kb: int) -> Iterator[Path | None]:
    """A tmpfs of ``size_kb`` at ``folder`` where this process may mount one (root), else None
    (the callers then use a file-size limit, the other way a write runs out of room)."""
    folder.mkdir(parents=True, exist_ok=True)
    if not can_mount() or subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_kb}k,mode=0755", "tmpfs",
                                          str(folder)], capture_output=True).returncode:
        yield None
        return
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)


@contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """``folder`` read-only for what runs inside: a read-only bind mount (root), or, for a user
    whom file modes bind, the write bits taken away."""
    if can_mount() and not subprocess.run(["mount", "--bind", str(folder), str(folder)],
                                          capture_output=True).returncode:
        try:
            subprocess.run(["mount", "-o", "remount,bind,ro", str(folder)], check=True, capture_output=True)
            yield
        finally:
            subprocess.run(["umount", "-l", str(folder)], capture_output=True)
        return
    if os.geteuid() == 0:
        if IN_CI:
            pytest.fail("CI=true, running as root, but a read-only bind mount is not permitted here")
        pytest.skip("root without mount: file modes do not make a folder read-only for root")
    modes = {p: p.stat().st_mode for p in [folder, *folder.iterdir()]}
    for p, mode in modes.items():
        p.chmod(mode & ~0o222)
    try:
        yield
    finally:
        for p, mode in modes.items():
            p.chmod(mode)


def made_up_rows(path: Path, systems: list[str], submitter: str = "Fault Test Co") -> Path:
    """Not-yet-published MLPerf rows (CSV, unverified) in the v5.1 closed llama2-70b-99 Offline
    cohort, one per system id: each one stored adds one result to that cohort."""
    header = TEMPLATE_CSV.read_text().splitlines()[0].split(",")  # the template's comments and examples follow
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        for n, system in enumerate(systems):
            row = dict(mlperf="yes", submitter=submitter, system_name=f"Box {system}", system_id=system,
                       model="llama2-70b", accuracy_track="99", scenario="Offline", value=str(30000 + n),
                       unit="tokens/s", accelerator="Made-up X1", accelerators_per_node="8", nodes="1",
                       framework="vLLM", source_url="https://example.org/fault-test", round="v5.1",
                       division="closed", availability="available", tokens_per_sample="290")
            w.writerow([row.get(c, "") for c in header])
    return path
