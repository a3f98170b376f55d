"""Exports change nothing process-wide: N exports in N threads (a notebook, a web service) write
the same bytes as the same exports one after another, and leave tempfile, reportlab's settings, the
working folder and the umask as they found them."""
from __future__ import annotations

import os
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from exportguard import scratch
from exportguard.api import build_report, export
from exportguard.clock import Clock

pytestmark = [pytest.mark.real_data, pytest.mark.slow]

CLOCK = Clock.from_epoch(1757376000)
NAMES = ("r.pptx", "r.xlsx", "r.pdf", "r.md")


@pytest.fixture(scope="module")
def report(v51_store):
    return build_report(v51_store, round="v5.1", division="closed", model="llama2-70b", track="99",
                        scenario="Server")


def _process_state() -> tuple:
    from reportlab import rl_config

    mask = os.umask(0o022)  # read in the test only: the exports must not do this themselves
    os.umask(mask)
    return tempfile.tempdir, tempfile.gettempdir(), rl_config.useA85, os.getcwd(), mask


def _export_into(report, folder: Path) -> dict[str, bytes]:
    written = export(report, *(folder / n for n in NAMES), clock=CLOCK)
    return {p.name: p.read_bytes() for p in written}


def test_exports_in_threads_write_what_they_write_one_after_another(report, tmp_path):
    before = _process_state()
    alone = _export_into(report, tmp_path / "alone")
    folders = [tmp_path / f"t{n}" for n in range(4)]
    barrier = threading.Barrier(len(folders))

    def one(folder: Path) -> dict[str, bytes]:
        barrier.wait()  # all four render at once
        return _export_into(report, folder)

    with ThreadPoolExecutor(len(folders)) as pool:
        together = list(pool.map(one, folders))
    for folder, written in zip(folders, together):
        assert written.keys() == alone.keys()
        for name in alone:
            assert written[name] == alone[name], f"{folder.name}/{name} differs from the export made alone"
        assert sorted(p.name for p in folder.iterdir()) == sorted(alone), "leftovers beside the targets"
    assert _process_state() == before
    fd, name = tempfile.mkstemp()  # as the attack found: it failed anywhere in the process afterwards
    os.close(fd)
    os.unlink(name)


def test_a_scratch_folder_holds_only_its_own_threads_files(tmp_path):
    folders = [tmp_path / "a", tmp_path / "b"]
    for f in folders:
        f.mkdir()
    seen: dict[str, str] = {}
    barrier = threading.Barrier(2)

    def one(folder: Path) -> None:
        with scratch.inside(folder):
            barrier.wait()
            with scratch.temporary_file() as f:
                seen[folder.name] = os.readlink(f"/proc/self/fd/{f.fileno()}")
            barrier.wait()
            assert scratch.folder() == str(folder)

    threads = [threading.Thread(target=one, args=(f,)) for f in folders]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for folder in folders:
        assert seen[folder.name].startswith(str(folder) + "/"), seen
    assert scratch.folder() is None  # outside an export: tempfile's own folder
