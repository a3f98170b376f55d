"""Where an export's temporary files go, without touching anything process-wide.

An export renders each target with its temporary files in a scratch folder beside that target
(render/commit.py makes it, and sweeps it after a kill). The folder is handed down in a context
variable, which each thread (and each asyncio task) has its own copy of: four exports in four
threads each see their own folder, and ``tempfile.tempdir`` (which the standard library and every
other library in the process read) is never changed. Outside an export, tempfile's own folder.
"""
from __future__ import annotations

import tempfile
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import IO, Iterator

_FOLDER: ContextVar[Path | None] = ContextVar("exportguard_scratch_folder", default=None)


@contextmanager
def inside(folder: Path) -> Iterator[Path]:
    """Temporary files made by this thread (or task) go to ``folder`` until the block ends."""
    token = _FOLDER.set(Path(folder))
    try:
        yield Path(folder)
    finally:
        _FOLDER.reset(token)


def folder() -> str | None:
    """The current scratch folder (None: tempfile's default)."""
    current = _FOLDER.get()
    return None if current is None else str(current)


def temporary_file(buffering: int = -1) -> IO[bytes]:
    """An unnamed temporary file (gone with the process, whatever happens) in the scratch folder."""
    return tempfile.TemporaryFile(buffering=buffering, dir=folder())


def spooled_file(max_size: int, mode: str = "w+b") -> IO:
    """A file held in memory up to ``max_size`` bytes, then spilled to the scratch folder."""
    return tempfile.SpooledTemporaryFile(max_size=max_size, mode=mode, dir=folder())
