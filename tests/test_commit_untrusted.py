"""Commit records and journals are untrusted input: whatever anyone plants in an export folder (a
team drive, /tmp, a CI workspace), the next export there touches no file but its own run's.

Each case plants what an attacker would, beside a pending export of ``r.md``, with a victim file
outside the folder and one inside it; then exports ``r.md``. The export succeeds, says in one line
per planted record what it ignored, and every file but the export's own outputs is as it was."""
from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from exportguard.api import build_report, export
from exportguard.render.commit import _stem, own_name

pytestmark = [pytest.mark.real_data]

NOBODY = 65534  # another user: the tests run as root in CI, which may give files away
RUN = "ab" * 16


@pytest.fixture(scope="module")
def report(v51_store):
    return build_report(v51_store, round="v5.1", division="closed", model="llama2-70b", track="99",
                        scenario="Offline")


@pytest.fixture
def scene(tmp_path):
    out, home = tmp_path / "shared", tmp_path / "home"
    out.mkdir()
    home.mkdir()
    (home / "thesis.txt").write_text("four years of work\n")
    (out / "notes.txt").write_text("the team's notes\n")
    (out / "r.md").write_text("the previous report\n")
    return out, home


def _snapshot(*folders: Path) -> dict[str, tuple]:
    """Every entry under ``folders`` (links not followed): kind, owner and content."""
    seen = {}
    for folder in folders:
        for root, dirs, files in os.walk(folder):
            for name in dirs + files:
                path = Path(root) / name
                info = os.lstat(path)
                if path.is_symlink():
                    seen[str(path)] = ("link", os.readlink(path), info.st_uid)
                elif path.is_dir():
                    seen[str(path)] = ("dir", info.st_uid)
                elif stat.S_ISREG(info.st_mode):
                    seen[str(path)] = ("file", path.read_bytes(), info.st_uid)
                else:  # a FIFO: opening it would wait for a writer
                    seen[str(path)] = ("special", stat.S_IFMT(info.st_mode), info.st_uid)
    return seen


def _plant(path: Path, data, owner: int | None = None, mode: int = 0o600) -> Path:
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    os.chmod(path, mode)
    if owner is not None:
        os.lchown(path, owner, owner)
    return path


def _record(entries, run=RUN, version=2) -> dict:
    return {"exportguard": "export commit record", "version": version, "run": run, "entries": entries}


def _export_and_compare(report, out: Path, home: Path) -> list[str]:
    before = _snapshot(out, home)
    told: list[str] = []
    written = export(report, out / "r.md", tell=told.append)
    after = _snapshot(out, home)
    ours = {str(p) for p in written}
    changed = sorted(k for k in set(before) | set(after) if k not in ours and before.get(k) != after.get(k))
    assert not changed, f"files changed that are not the export's own: {changed}"
    assert (out / "r.md").read_text().startswith("#") or "MLPerf" in (out / "r.md").read_text()
    return told


def _ignored(told: list[str], n: int = 1) -> None:
    lines = [t for t in told if t.startswith("ignored ")]
    assert len(lines) == n, told
    assert all("\n" not in t for t in lines)


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root (CI runs as root)")
def test_another_users_record_naming_a_file_in_the_folder_is_not_acted_on(report, scene):
    out, home = scene
    _plant(own_name(out / "r.md", RUN, "commit"),
           _record([{"folder": ".", "final": "r.md", "previous": False},
                    {"folder": ".", "final": "notes.txt", "previous": False}]), owner=NOBODY)
    told = _export_and_compare(report, out, home)
    _ignored(told)
    assert "another user" in told[0]


@pytest.mark.parametrize("entry", [
    {"folder": ".", "final": "/ABS/thesis.txt", "previous": False},
    {"folder": ".", "final": "../home/thesis.txt", "previous": False},
    {"folder": "../home", "final": "thesis.txt", "previous": False},
    {"folder": "/ABS", "final": "thesis.txt", "previous": False},
    {"folder": ".", "final": "..", "previous": False},
], ids=["absolute-final", "dotdot-final", "dotdot-folder", "absolute-folder", "dotdot-name"])
def test_a_record_of_yours_naming_a_file_elsewhere_is_not_acted_on(report, scene, entry):
    """Even a record the exporting user owns (planted by a tool running as them, or a stale one
    edited) cannot reach outside its folder without a journal of its run there."""
    out, home = scene
    entry = {k: (v.replace("/ABS", str(home)) if isinstance(v, str) else v) for k, v in entry.items()}
    _plant(own_name(out / "r.md", RUN, "commit"),
           _record([{"folder": ".", "final": "r.md", "previous": False}, entry]))
    told = _export_and_compare(report, out, home)
    _ignored(told)
    assert (home / "thesis.txt").read_text() == "four years of work\n"


def test_the_earlier_record_format_with_paths_outside_the_folder_is_not_acted_on(report, scene):
    """The attack as found on version 1 records: relative and absolute paths obeyed."""
    out, home = scene
    _plant(out / f"{_stem(out / 'r.md')}.0123456789ab.commit",
           _record([{"part": ".r.md.nothere.part", "final": str(home / "thesis.txt"), "backup": None},
                    {"part": "x.part", "final": "../home/thesis.txt", "backup": "/etc/hostname"}],
                   run=None, version=1))
    told = _export_and_compare(report, out, home)
    _ignored(told)


def test_a_record_whose_run_is_not_its_name_or_that_others_may_write_is_not_acted_on(report, scene):
    out, home = scene
    entries = [{"folder": ".", "final": "r.md", "previous": False}, {"folder": ".", "final": "notes.txt",
                                                                       "previous": False}]
    _plant(own_name(out / "r.md", RUN, "commit"), _record(entries, run="cd" * 16))
    _plant(own_name(out / "r.md", "ef" * 16, "commit"), _record(entries, run="ef" * 16), mode=0o666)
    told = _export_and_compare(report, out, home)
    _ignored(told, 2)


def test_a_journal_pointing_at_a_record_elsewhere_is_not_acted_on(report, scene):
    """The journal leads to a record (the exporting user's own, in another folder) that names a
    file there but does not name the journal's folder back."""
    out, home = scene
    _plant(home / own_name(home / "thesis.txt", RUN, "commit").name,
           _record([{"folder": ".", "final": "thesis.txt", "previous": False}]))
    _plant(own_name(out / "r.md", RUN, "journal"),
           {"exportguard": "export journal", "version": 2, "run": RUN,
            "record": {"folder": "../home", "name": own_name(home / "thesis.txt", RUN, "commit").name}})
    told = _export_and_compare(report, out, home)
    _ignored(told)
    assert "does not name it back" in told[0]


def test_symlinks_named_like_leftovers_are_never_followed(report, scene):
    out, home = scene
    (out / own_name(out / "r.md", RUN, "commit").name).symlink_to(home / "thesis.txt")
    (out / own_name(out / "r.md", RUN, "scratch").name).symlink_to(home)
    (out / own_name(out / "r.md", RUN, "part").name).symlink_to(home / "thesis.txt")
    (out / own_name(out / "notes.txt", RUN, "bak").name).symlink_to(home / "thesis.txt")
    before = _snapshot(home)
    told: list[str] = []
    export(report, out / "r.md", tell=told.append)
    assert _snapshot(home) == before
    _ignored(told)  # the record, a link: never read; the files of its run are kept with it, never followed
    assert len([p for p in out.iterdir() if p.is_symlink()]) == 4


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root (CI runs as root)")
def test_another_users_files_named_like_leftovers_are_left_alone_and_said_once(report, scene):
    out, home = scene
    planted = [_plant(own_name(out / "r.md", RUN, "part"), "x", owner=NOBODY),
               _plant(own_name(out / "other.pdf", RUN, "bak"), "x", owner=NOBODY)]
    scratch = own_name(out / "r.md", RUN, "scratch")
    scratch.mkdir()
    (scratch / "inside").write_text("y")
    os.lchown(scratch, NOBODY, NOBODY)
    os.symlink(home, own_name(out / "x.csv", RUN, "scratch"))
    os.lchown(own_name(out / "x.csv", RUN, "scratch"), NOBODY, NOBODY)
    told = _export_and_compare(report, out, home)
    _ignored(told, 4)
    assert all(p.exists() for p in planted) and (scratch / "inside").exists()


def test_a_genuine_record_across_two_folders_is_finished(report, tmp_path):
    """The checks do not stop the protocol's own cross-folder records: a two-folder export killed
    after its record was written is finished by the next command in either folder."""
    from exportguard.render.commit import recover

    a, b = tmp_path / "a", tmp_path / "b"
    finals = [a / "r.md", b / "r.csv"]

    _killed_at_move(finals, 2)
    assert (a / "r.md").read_text() == "new r.md\n" and not (b / "r.csv").exists()
    told = recover([b])  # the folder that holds only the journal
    assert (b / "r.csv").read_text() == "new r.csv\n", told
    assert any("finished an interrupted export" in t for t in told)
    assert sorted(p.name for p in a.iterdir()) == ["r.md"] and sorted(p.name for p in b.iterdir()) == ["r.csv"]


@pytest.mark.parametrize("make", ["fifo", "folder", "deep", "huge", "not-json-object"])
def test_files_named_like_a_record_that_are_no_record_are_not_acted_on(report, scene, make):
    out, home = scene
    path = own_name(out / "r.md", RUN, "commit")
    if make == "fifo":
        os.mkfifo(path, 0o600)
    elif make == "folder":
        path.mkdir(0o700)
    else:
        body = {"deep": "[" * 100_000 + "]" * 100_000, "huge": "{" + " " * (2 << 20) + "}",
                "not-json-object": "[1, 2]"}[make]
        _plant(path, body)
    told = _export_and_compare(report, out, home)
    _ignored(told)


def test_an_undo_cut_short_is_carried_on_not_turned_into_a_finish(tmp_path):
    """Killed while undoing (one target already put back, the others still new or unmoved): the next
    recovery goes on undoing; finishing the rest would leave a mixed set."""
    from exportguard.render.commit import _read_record, recover

    finals = [tmp_path / n for n in ("a.md", "b.csv", "c.pdf")]
    for f in finals:
        f.write_text(f"previous {f.name}\n")

    _killed_at_move(finals, 3)
    record = _read_record(own_name(finals[0], RUN, "commit"))
    final, _part, backup = record.entries[0]
    os.replace(backup, final)  # the undo had put a.md back when it was killed
    told = recover([tmp_path])
    assert [f.read_text() for f in finals] == [f"previous {f.name}\n" for f in finals], told
    assert any("undid an interrupted export" in t for t in told)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f.name for f in finals)


class _Killed(BaseException):
    """Raised as a SIGKILL would stop the process: no undo runs."""


def _killed_at_move(finals, n: int) -> None:
    """A commit of ``finals`` (each part "new NAME") cut off as it enters its ``n``-th move."""
    from exportguard.render.commit import Commit

    real_replace, calls = os.replace, []

    def replace_then_die(src, dst):
        calls.append(dst)
        if len(calls) == n:
            raise _Killed
        real_replace(src, dst)

    commit = Commit(finals, run=RUN)
    commit.__enter__()
    for final in finals:
        Path(commit.stage(final)).write_text(f"new {final.name}\n")
    os.replace = replace_then_die
    try:
        with pytest.raises(_Killed):
            commit.commit()
    finally:
        os.replace = real_replace
        commit._unlock()
