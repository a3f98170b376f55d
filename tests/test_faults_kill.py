"""An export killed at any step of putting its files in place: SIGKILL (strace injects it as the
process enters the Nth rename, link, fsync, unlink or mkdir) leaves every target present, and the
next export to them (render.commit.recover) leaves all of them previous or all of them new, with no
leftover; SIGTERM at any rename is undone by the process itself."""
from __future__ import annotations

import zipfile
from collections import Counter
from pathlib import Path

import pytest

from exportguard.render.commit import recover
from tests.faults import OFFLINE_70B, assert_one_line_error, killed, run, strace

pytestmark = [pytest.mark.real_data, pytest.mark.slow]
# three targets, five files (CSV and Markdown have sidecars)
NAMES = ("r.md", "r.md.manifest.json", "r.csv", "r.csv.manifest.json", "r.xlsx")
MAX_STEPS = 80  # more syscalls of one kind than an export makes: the loop ends when a run is not killed


def _export(url: str, out: Path, **fault):
    return run(["--db", url, "export", *OFFLINE_70B, "--to", out / "r.md", "--to", out / "r.csv",
                "--to", out / "r.xlsx"], **fault)


def _lay_previous(out: Path, present: bool) -> dict[str, bytes]:
    out.mkdir(exist_ok=True)
    for p in out.iterdir():
        p.unlink()
    previous = {name: f"the previous {name}\n".encode() for name in NAMES}
    if present:
        for name, data in previous.items():
            (out / name).write_bytes(data)
    return previous


def _is_complete_new(path: Path, previous: bytes) -> bool:
    data = path.read_bytes()
    if data == previous or not data:
        return False
    if path.suffix == ".xlsx":
        with zipfile.ZipFile(path) as z:
            return z.testzip() is None and "xl/workbook.xml" in z.namelist()
    return path.suffix != ".md" or data.rstrip().endswith(b"-->")  # the manifest closes a Markdown export


def _state(out: Path, previous: dict[str, bytes], present_before: bool) -> str:
    """'previous' or 'new' for the whole export; anything else is a broken promise."""
    states = set()
    for name in NAMES:
        path = out / name
        if not path.exists():
            states.add("absent")
        elif path.read_bytes() == previous[name]:
            states.add("previous")
        elif _is_complete_new(path, previous[name]):
            states.add("new")
        else:
            states.add("damaged")
    if states == {"absent"} and not present_before:
        return "previous"
    return states.pop() if len(states) == 1 else "mixed: " + ", ".join(sorted(states))


@pytest.mark.parametrize("present_before", [True, False], ids=["replacing", "creating"])
def test_a_kill_at_any_step_of_the_move_leaves_all_previous_or_all_new(v51_store, tmp_path, present_before):
    strace()
    out = tmp_path / "out"
    syscalls = ("rename", "linkat", "fsync", "unlink", "mkdir") if present_before else ("rename",)
    tally: Counter = Counter()
    for syscall in syscalls:
        for n in range(1, MAX_STEPS + 1):
            previous = _lay_previous(out, present_before)
            done = _export(v51_store.url, out, inject=f"{syscall}:signal=KILL:when={n}")
            if not killed(done):
                assert done.returncode == 0, done.stderr
                tally[f"{syscall} calls"] = n - 1
                break
            tally["kills"] += 1
            if present_before:
                missing = [name for name in NAMES if not (out / name).exists()]
                assert not missing, f"kill at {syscall} #{n}: {missing} absent"
            interrupted = any(p.name.endswith(".commit") for p in out.iterdir())
            tally["moves interrupted"] += interrupted
            recover([out / name for name in NAMES])
            state = _state(out, previous, present_before)
            assert state in ("previous", "new"), f"kill at {syscall} #{n}: {state}"
            assert sorted(p.name for p in out.iterdir()) == (sorted(NAMES) if present_before or state == "new"
                                                             else []), f"kill at {syscall} #{n}: leftovers"
            tally[f"all {state}"] += 1
            tally["targets intact"] += len(NAMES)
        else:
            pytest.fail(f"more than {MAX_STEPS} {syscall} calls: the loop would not end")
    print(f"\nkills during a 3-target export ({'replacing' if present_before else 'creating'}): {dict(tally)}")
    assert tally["rename calls"] == len(NAMES) and tally["moves interrupted"] >= len(NAMES)


def test_sigterm_at_any_rename_is_undone_by_the_export_itself(v51_store, tmp_path):
    strace()
    out = tmp_path / "out"
    for n in range(1, len(NAMES) + 1):
        previous = _lay_previous(out, True)
        done = _export(v51_store.url, out, inject=f"rename:signal=TERM:when={n}")
        assert done.returncode == 143, (n, done.returncode, done.stderr)
        assert_one_line_error(done, "stopped by SIGTERM", "nothing was replaced")
        assert _state(out, previous, True) == "previous", n
        assert sorted(p.name for p in out.iterdir()) == sorted(NAMES), n  # no .part, .bak or journal left


def test_the_next_export_sweeps_what_a_kill_left_behind(v51_store, tmp_path):
    """Killed as the workbook's rendering ends (its scratch folder and parts exist), then exported again.
    (The workbook's writer takes no folder of its own, only unnamed files: the kill comes as its target's
    scratch folder is about to be removed, the third folder removed after Markdown's and CSV's.)"""
    strace()
    out = tmp_path / "out"
    _lay_previous(out, True)
    done = _export(v51_store.url, out, inject="rmdir:signal=KILL:when=3")  # the workbook's scratch folder
    assert killed(done), done.stderr
    left = [p.name for p in out.iterdir() if p.name not in NAMES]
    assert any(n.endswith(".scratch") for n in left) and any(n.endswith(".part") for n in left), left
    again = _export(v51_store.url, out)
    assert again.returncode == 0, again.stderr
    assert sorted(p.name for p in out.iterdir()) == sorted(NAMES)
    assert "removed" in again.stderr and "leftover" in again.stderr
