"""Exports that cannot be written end in one line naming the file, the cause and that nothing was
replaced, with the previous file intact and nothing left beside it: a file-size limit, a full
small file system, a name too long, a folder no file can be made in. And no export overwrites a
file it reads (the store, the spec, the template, the price table)."""
from __future__ import annotations

import os
import shutil
import sqlite3
import zipfile
from pathlib import Path

import pytest

from exportguard.render.pptx_template import DEFAULT_PATH
from exportguard.store import open_store
from tests.conftest import IN_CI
from tests.faults import OFFLINE_70B, assert_one_line_error, run, small_filesystem

pytestmark = pytest.mark.real_data
FORMATS = ("md", "csv", "xlsx", "pptx", "pdf")
PREVIOUS = b"the approved version\n"
LIMIT = 16 * 1024  # smaller than every real export of the v5.1 llama2-70b-99 Offline cohort or its manifest


def _copy_store(v51_store, path: Path) -> str:
    with sqlite3.connect(v51_store.path) as src, sqlite3.connect(path) as dst:
        src.backup(dst)
    return f"sqlite:///{path}"


@pytest.fixture
def held_store(v51_store, tmp_path_factory):
    """A copy of the v5.1 store, held open by this process while a child exports from it: its
    -shm index exists at full size, so a child under a file-size limit only maps it."""
    with open_store(_copy_store(v51_store, tmp_path_factory.mktemp("held") / "store.db")) as s, s.reading():
        yield s


def _export(url: str, *targets: Path, extra=(), **fault):
    args = ["--db", url, "export", *OFFLINE_70B, *extra]
    for t in targets:
        args += ["--to", t]
    return run(args, **fault)


def _only(folder: Path, *names: str) -> None:
    assert sorted(p.name for p in folder.iterdir()) == sorted(names)


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_export_over_the_file_size_limit_ends_in_one_line(held_store, tmp_path, fmt):
    target = tmp_path / f"report.{fmt}"
    target.write_bytes(PREVIOUS)
    done = _export(held_store.url, target, file_size_limit=LIMIT)
    # the report or its manifest sidecar, whichever outgrows the limit first (it depends on their sizes)
    assert_one_line_error(done, f"report.{fmt}", "could not be written: File too large (EFBIG)", "Nothing was replaced")
    assert target.read_bytes() == PREVIOUS
    _only(tmp_path, target.name)


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_export_to_a_full_small_file_system_ends_in_one_line(held_store, tmp_path, fmt):
    with small_filesystem(tmp_path / "small", 32) as small:
        folder = small or tmp_path / "small"
        target = folder / f"report.{fmt}"
        target.write_bytes(PREVIOUS)
        fault = {} if small else {"file_size_limit": LIMIT}  # where no file system can be mounted
        done = _export(held_store.url, target, **fault)
        cause = "No space left on device (ENOSPC)" if small else "File too large (EFBIG)"
        # the report or its manifest sidecar, whichever the space runs out in first (it depends on their sizes)
        assert_one_line_error(done, f"report.{fmt}", f"could not be written: {cause}", "Nothing was replaced")
        assert target.read_bytes() == PREVIOUS
        _only(folder, target.name)


def test_a_second_target_that_does_not_fit_replaces_neither(v51_store, tmp_path):
    with small_filesystem(tmp_path / "small", 32) as small:
        if small is None:
            if IN_CI:
                pytest.fail("CI=true but no small file system can be mounted here (root and mount are needed)")
            pytest.skip("needs a mounted small file system (root)")
        first, second = tmp_path / "a.md", small / "b.pdf"
        first.write_bytes(PREVIOUS)
        second.write_bytes(PREVIOUS)
        done = _export(v51_store.url, first, second)
        assert_one_line_error(done, "b.pdf: could not be written: No space left on device", "Nothing was replaced")
        assert first.read_bytes() == PREVIOUS and second.read_bytes() == PREVIOUS
        _only(small, "b.pdf")
    _only(tmp_path, "a.md", "small")


def test_a_name_longer_than_the_file_system_allows_is_refused_before_rendering(v51_store, tmp_path):
    done = _export(v51_store.url, tmp_path / ("x" * 300 + ".md"))
    assert_one_line_error(done, "the name is 303 bytes long, more than the 255", "nothing was written")
    _only(tmp_path)


def test_a_long_name_that_fits_is_exported(v51_store, tmp_path):
    """The export's own temporary names must fit wherever the target's name fits."""
    target = tmp_path / ("y" * 250 + ".xlsx")
    done = _export(v51_store.url, target, tmp_path / ("z" * 235 + ".csv"))  # its sidecar adds 14 bytes
    assert done.returncode == 0, done.stderr
    with zipfile.ZipFile(target) as z:
        assert any("tok/s" in z.read(n).decode("utf-8", "replace") for n in z.namelist() if n.endswith(".xml"))
    target = tmp_path / ("y" * 236 + ".md")  # with its sidecar (".manifest.json"), 255 bytes
    done = _export(v51_store.url, target)
    assert done.returncode == 0, done.stderr
    assert "tok/s" in target.read_text(encoding="utf-8")


@pytest.mark.parametrize("target", ["/proc/exportguard-test.md", "/proc/self/exportguard-test.md",
                                    "/proc/no-such-pid/report.md"])
def test_a_target_where_no_file_can_be_made_ends_in_one_line(v51_store, target):
    done = _export(v51_store.url, Path(target))
    line = assert_one_line_error(done, target)
    assert "nothing was" in line.lower() or "cannot write" in line


# --------------------------------------------------------------------------- an export never overwrites its inputs


SPEC = 'title = "Offline"\n[[section]]\nkind = "table"\ntitle = "t"\nfilters = {{ model = "llama2-70b", ' \
       'track = "99", scenario = "Offline", division = "closed", round = "v5.1" }}\n[outputs]\ntargets = ["{}"]\n'
PRICES = 'currency = "USD"\nsource = "test prices"\n[[price]]\naccelerator = "NVIDIA B200-SXM-180GB"\nper_hour = 6.0\n'


@pytest.mark.parametrize("role", ["store", "store (hard link)", "spec", "template", "price table"])
def test_a_target_that_is_one_of_the_exports_inputs_is_refused(v51_store, tmp_path, role):
    url = v51_store.url
    extra: list = []
    if role == "store":
        target = tmp_path / "store.md"
        url = _copy_store(v51_store, target)
    elif role == "store (hard link)":
        url = _copy_store(v51_store, tmp_path / "store.db")
        target = tmp_path / "also-the-store.csv"
        os.link(tmp_path / "store.db", target)
    elif role == "spec":
        target = tmp_path / "spec.md"
        target.write_text(SPEC.format("spec.md"))
        done = run(["--db", url, "export", "--spec", target])
    elif role == "template":
        target = tmp_path / "deck.pptx"
        shutil.copy(DEFAULT_PATH, target)
        extra = ["--template", target]
    else:
        target = tmp_path / "prices.md"
        target.write_text(PRICES)
        extra = ["--prices", target, "--derived", "cost_per_million_tokens"]
    before = target.read_bytes()
    if role != "spec":
        done = _export(url, target, extra=extra)
    assert_one_line_error(done, f"is the {role.split(' (')[0]} this export reads", "Nothing was written")
    assert target.read_bytes() == before


def test_an_export_waits_for_another_in_the_same_folder_then_gives_up_in_one_line(v51_store, tmp_path):
    import fcntl

    target = tmp_path / "report.md"
    target.write_bytes(PREVIOUS)
    fd = os.open(tmp_path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # another export, in the middle of writing into this folder
        done = _export(v51_store.url, target, extra=["--wait", "1"])
    finally:
        os.close(fd)
    assert "waiting for another exportguard export writing in" in done.stderr
    assert_one_line_error(done, "another exportguard export is writing there (waited 1 s)", "nothing was written")
    assert target.read_bytes() == PREVIOUS
