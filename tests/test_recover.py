"""An interrupted set is visible and recoverable: every artifact's manifest names its export run and
its sibling files; `exportguard recover` (and every command that writes to a folder, whatever it
names) finishes what a kill left in flight and sweeps every export's leftovers there."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from exportguard.check.manifests import read_manifest
from exportguard.manifest import EXPORT_KEY
from tests.faults import OFFLINE_70B, killed, run, strace

pytestmark = [pytest.mark.real_data, pytest.mark.slow]
NAMES = ("r.md", "r.md.manifest.json", "r.csv", "r.csv.manifest.json", "r.xlsx")
ARTIFACTS = ("r.md", "r.csv", "r.xlsx")


def _export(url: str, out: Path, *names: str, **fault):
    return run(["--db", url, "export", *OFFLINE_70B, *(a for n in names for a in ("--to", out / n))], **fault)


def _runs(out: Path) -> dict[str, str]:
    return {name: read_manifest(out / name).get(EXPORT_KEY, {}).get("run") for name in ARTIFACTS}


def _lay_previous(out: Path) -> None:
    out.mkdir()
    for name in NAMES:
        (out / name).write_text(f"the previous {name}\n")


def test_every_artifact_names_its_run_and_its_siblings(v51_store, tmp_path):
    out = tmp_path / "out"
    done = _export(v51_store.url, out, *ARTIFACTS)
    assert done.returncode == 0, done.stderr
    runs = _runs(out)
    assert len(set(runs.values())) == 1 and all(len(r) == 32 for r in runs.values()), runs
    for name in ARTIFACTS:
        assert sorted(read_manifest(out / name)[EXPORT_KEY]["members"]) == sorted(NAMES)
    again = _export(v51_store.url, out, *ARTIFACTS, env={"SOURCE_DATE_EPOCH": "1757376001"})
    assert again.returncode == 0 and set(_runs(out).values()) != set(runs.values()), "a new run, a new id"


def test_a_set_killed_between_its_moves_is_finished_by_an_export_of_another_file(v51_store, tmp_path):
    strace()
    out = tmp_path / "out"
    _lay_previous(out)
    done = _export(v51_store.url, out, *ARTIFACTS, inject="rename:signal=KILL:when=2")
    assert killed(done), done.stderr
    assert any(p.name.endswith(".commit") for p in out.iterdir()), "the kill came inside the moves"
    other = _export(v51_store.url, out, "other.md")
    assert other.returncode == 0, other.stderr
    assert "finished an interrupted export" in other.stderr
    assert len(set(_runs(out).values())) == 1, "the set is whole: one run"
    assert sorted(p.name for p in out.iterdir()) == sorted(NAMES + ("other.md", "other.md.manifest.json"))


def test_a_kill_after_the_last_move_leaves_the_new_set_which_recover_completes(v51_store, tmp_path):
    """Killed as the record is deleted (every file already new): the next command keeps the new set
    (it used to revert it), and `exportguard recover` says what it did."""
    strace()
    out = tmp_path / "out"
    fresh = tmp_path / "fresh"
    assert _export(v51_store.url, fresh, *ARTIFACTS).returncode == 0
    for n in range(1, 40):  # the record's is the first unlink after the moves; others may come before it
        shutil.rmtree(out, ignore_errors=True)
        _lay_previous(out)
        done = _export(v51_store.url, out, *ARTIFACTS, inject=f"unlink:signal=KILL:when={n}")
        assert killed(done), done.stderr
        if any(p.name.endswith(".commit") for p in out.iterdir()) and all(
                (out / name).read_bytes() == (fresh / name).read_bytes() for name in NAMES):
            break
    else:
        pytest.fail("no kill came between the last move and the record's deletion")
    recovered = run(["recover", out])
    assert recovered.returncode == 0, recovered.stderr
    assert "finished an interrupted export" in recovered.stdout + recovered.stderr
    for name in NAMES:
        assert (out / name).read_bytes() == (fresh / name).read_bytes(), name  # the same export, complete
    assert sorted(p.name for p in out.iterdir()) == sorted(NAMES)
    again = run(["recover", out])
    assert again.returncode == 0 and "nothing to recover" in again.stdout


def test_recover_sweeps_leftovers_of_targets_no_export_names(v51_store, tmp_path):
    """A kill while rendering (parts and a scratch folder exist, no record): `recover` on the folder
    removes them, whatever the targets were."""
    strace()
    out = tmp_path / "out"
    _lay_previous(out)
    done = _export(v51_store.url, out, *ARTIFACTS, inject="rmdir:signal=KILL:when=3")
    assert killed(done), done.stderr
    assert any(p.name.endswith(".part") for p in out.iterdir())
    recovered = run(["recover", out])
    assert recovered.returncode == 0, recovered.stderr
    assert "removed" in recovered.stdout and "leftover" in recovered.stdout
    assert sorted(p.name for p in out.iterdir()) == sorted(NAMES)
    for name in NAMES:
        assert (out / name).read_text() == f"the previous {name}\n"


def test_records_are_owner_only(tmp_path):
    from exportguard.render.commit import Commit

    old = os.umask(0)
    try:
        finals = [tmp_path / "a" / "r.md", tmp_path / "b" / "r.csv"]
        seen = {}
        real = os.replace

        def look(src, dst):
            for p in (tmp_path / "a").iterdir():
                if p.name.endswith((".commit", ".journal")):
                    seen[p.name] = os.stat(p).st_mode & 0o777
            for p in (tmp_path / "b").iterdir():
                if p.name.endswith(".journal"):
                    seen[p.name] = os.stat(p).st_mode & 0o777
                    json.loads(p.read_text())
            real(src, dst)

        with Commit(finals) as c:
            for f in finals:
                Path(c.stage(f)).write_text("x")
            os.replace = look
            try:
                c.commit()
            finally:
                os.replace = real
    finally:
        os.umask(old)
    assert len(seen) == 2 and set(seen.values()) == {0o600}, seen
