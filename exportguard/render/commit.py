"""An export's files go into place all together or not at all, and a crash cannot change that.

The protocol (``Commit``), for the files of one export:

1. Lock each target's folder (``flock`` on the folder: a second export there waits, up to a bound).
   Undo any export to these targets that a crash interrupted, and sweep its leftovers.
2. Render each target to a hidden ``.part`` beside it (a renderer's scratch files go to a
   ``.scratch`` folder beside it too), then fsync it.
3. Hard-link each existing target to a ``.bak`` (the target itself stays where it is), write a
   ``.journal`` beside every target after the first naming the commit record, fsync the folders.
4. Write the commit record (``.commit``, beside the first target): every part, target and backup.
   From now until it is deleted, an interruption is undone.
5. ``os.replace`` each part over its target: at every instant a target is the previous file or the
   new one, never absent.
6. Fsync the folders and delete the commit record: the export has happened. Then the backups and
   journals go.

Undo, in this process (an error, SIGINT, SIGTERM) or in the next export to any of the targets
(after SIGKILL or a power cut), reads the commit record: a part still there was not moved, so it is
deleted; a part gone was moved, so the backup goes back over its target (or the new target, which
had no predecessor, is deleted). Each step can be interrupted and run again. Without a readable
commit record nothing was moved, and the leftovers are only swept.
"""
from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import shutil
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, Sequence

from ..errors import ExportguardError, os_cause as cause
from ..signals import held

RECORD_VERSION = 1
_NAME_BYTES = 96  # of a target's name kept in its leftovers' names: they must fit where the target fits
_KINDS = ("part", "bak", "scratch", "journal", "commit")
Tell = Callable[[str], None]


class ExportWriteError(ExportguardError):
    """An export's files could not be written or put in place; the message says what was kept."""


def write_failure(err: BaseException) -> OSError | None:
    """The OSError behind a renderer's failure to write, or None if it failed otherwise. lxml's
    incremental writer (openpyxl's sheets) reports a full disk or a file-size limit as
    ``SerialisationError("IO_ENOSPC")`` instead of an OSError."""
    if isinstance(err, OSError):
        return err
    if type(err).__module__.startswith("lxml") and err.args and isinstance(err.args[0], str):
        m = re.fullmatch(r"IO_(E[A-Z0-9]+)", err.args[0].strip())
        code = getattr(errno, m.group(1), None) if m else None
        if code is not None:
            return OSError(code, os.strerror(code))
    return None


# -- names of an export's own files beside a target ----------------------------------------------

def _stem(target: Path) -> str:
    """The hidden prefix of every file an export keeps beside ``target``: part of its name (so a
    person can tell whose it is) and a digest of all of it (so no other target's files match)."""
    name = target.name
    short = name
    while len(os.fsencode(short)) > _NAME_BYTES:
        short = short[:-1]
    return f".{short}~{hashlib.sha1(os.fsencode(name)).hexdigest()[:8]}"


def _leftovers_of(target: Path) -> re.Pattern:
    # The second form: the .part names of exportguard before this protocol (".NAME.XXXXXXXX.part").
    return re.compile(rf"{re.escape(_stem(target))}\.[A-Za-z0-9_]+\.(?:{'|'.join(_KINDS)})"
                      rf"|{re.escape('.' + target.name)}\.[a-z0-9_]{{8}}\.part")


_OURS = re.compile(rf"\..*~[0-9a-f]{{8}}\.[A-Za-z0-9_]+\.(?:{'|'.join(_KINDS)})")


def is_ours(path: str | os.PathLike) -> bool:
    """Whether ``path`` names one of the files an export keeps beside a target (no user's file)."""
    return any(_OURS.fullmatch(part) for part in Path(path).parts)


def _new_name(target: Path, kind: str) -> Path:
    return target.parent / f"{_stem(target)}.{os.urandom(6).hex()}.{kind}"


# -- the transaction -----------------------------------------------------------------------------

class Commit:
    """``with Commit(finals) as c: part = c.stage(final); ...render...; c.commit()``. Leaving the
    block without ``commit()`` (an exception, a signal turned into one) removes every part and
    changes no target."""

    def __init__(self, finals: Sequence[Path], *, wait_s: float = 0.0, tell: Tell | None = None):
        self.finals = [Path(f) for f in finals]
        self.wait_s = wait_s
        self.tell = tell or (lambda _text: None)
        self.parts: dict[Path, Path] = {}
        self.done = False
        self._record: Path | None = None
        self._journals: list[Path] = []
        self._backups: list[Path] = []
        self._locks: list[int] = []

    def __enter__(self) -> "Commit":
        folders = sorted({f.parent for f in self.finals}, key=str)
        try:
            for folder in folders:
                folder.mkdir(parents=True, exist_ok=True)
                self._locks.append(_lock(folder, self.wait_s, self.tell))
            for final in self.finals:
                _recover(final, self.tell)
        except BaseException:
            self._unlock()
            raise
        return self

    def stage(self, final: Path) -> Path:
        """A new, empty part beside ``final`` for a renderer to write."""
        fd, name = tempfile.mkstemp(prefix=f"{_stem(final)}.", suffix=".part", dir=final.parent)
        os.close(fd)
        self.parts[final] = Path(name)
        return self.parts[final]

    @contextmanager
    def scratch(self, final: Path) -> Iterator[Path]:
        """Temporary files a renderer makes (tempfile's default folder) go to a folder beside
        ``final``: removed afterwards, and swept with the target's other leftovers after a kill."""
        folder = Path(tempfile.mkdtemp(prefix=f"{_stem(final)}.", suffix=".scratch", dir=final.parent))
        previous = tempfile.tempdir
        tempfile.tempdir = str(folder)
        try:
            yield folder
        finally:
            tempfile.tempdir = previous
            shutil.rmtree(folder, ignore_errors=True)

    def commit(self) -> None:
        """Steps 2 (fsync) to 6 for every staged part; on failure, raise ExportWriteError naming the
        target and the cause (the undo runs when the ``with`` block ends)."""
        mode = 0o666 & ~_umask()  # mkstemp makes 0600; an export is a file like any other
        first = self.finals[0]
        record = _new_name(first, "commit")
        entries, doing = [], first
        for final in self.finals:
            backup = _new_name(final, "bak") if os.path.lexists(final) else None
            entries.append((self.parts[final], final, backup))
        self._journals = [_new_name(f, "journal") for f in self.finals[1:]]
        folders = sorted({f.parent for f in self.finals}, key=str)
        try:
            for part, final, backup in entries:
                doing = final
                os.chmod(part, mode)
                _fsync(part)
                if backup is not None:
                    self._backups.append(backup)
                    _backup(final, backup)
            for doing, journal in zip(self.finals[1:], self._journals):
                _write_durably(journal, {"exportguard": "export journal", "version": RECORD_VERSION,
                                         "commit": os.path.relpath(record, journal.parent)})
            for folder in folders:
                _fsync_folder(folder)
            doing = first
            self._record = record
            _write_durably(record, _record_data(record, entries, self._journals))
            _fsync_folder(first.parent)
            for part, final, _ in entries:
                doing = final
                os.replace(part, final)
            for folder in folders:
                _fsync_folder(folder)
            with held():  # the export has happened exactly when the record is gone
                os.unlink(record)
                self.done = True
        except OSError as err:
            raise ExportWriteError(f"{doing}: could not be put in place: {cause(err)}") from None
        for path in self._backups + self._journals:
            _remove(path)
        try:
            _fsync_folder(first.parent)
        except OSError:
            pass  # the export is complete; were the deletion lost to a power cut, the next export undoes it

    def __exit__(self, exc_type, exc, tb):
        try:
            if not self.done:
                with held():  # an undo cut short would leave a mixed export
                    self._undo()
        finally:
            self._unlock()
        return False

    def _undo(self) -> None:
        try:
            if self._record is not None and os.path.lexists(self._record):
                _undo_record(self._record)
            for path in [*self.parts.values(), *self._backups, *self._journals]:
                _remove(path)
        except OSError as err:
            raise ExportWriteError(
                f"the interrupted export could not be undone ({cause(err)}): some targets may be new and others "
                f"previous; the next export to {self.finals[0]} finishes the undo") from None

    def _unlock(self) -> None:
        while self._locks:
            fd = self._locks.pop()
            if fd >= 0:
                os.close(fd)  # closing the folder releases its flock


def recover(finals: Sequence[Path], tell: Tell | None = None, wait_s: float = 0.0) -> None:
    """Undo an interrupted export to any of ``finals`` and sweep its leftovers (what ``Commit``
    does first); for callers that want that without exporting."""
    with Commit(finals, wait_s=wait_s, tell=tell) as c:
        c.done = True


def _record_data(record: Path, entries, journals: Sequence[Path]) -> dict:
    rel = lambda p: None if p is None else os.path.relpath(p, record.parent)  # noqa: E731
    return {"exportguard": "export commit record", "version": RECORD_VERSION,
            "entries": [{"part": rel(part), "final": rel(final), "backup": rel(backup)}
                        for part, final, backup in entries],
            "journals": [rel(j) for j in journals]}


def _recover(final: Path, tell: Tell) -> None:
    """Undo what an interrupted export to ``final`` left in flight, then sweep its leftovers. The
    caller holds ``final``'s folder; an undo also touches that export's targets in other folders,
    which is safe unlocked because each of its steps can be repeated by whoever comes next."""
    pattern = _leftovers_of(final)
    folder = final.parent
    try:
        names = [n for n in os.listdir(folder) if pattern.fullmatch(n)]
    except OSError:
        return  # a folder that cannot be listed holds nothing we could sweep
    for name in sorted(names, key=lambda n: not n.endswith(".commit")):
        path = folder / name
        if name.endswith(".journal"):
            data = _read_record(path)
            record = (folder / data["commit"]) if data and isinstance(data.get("commit"), str) else None
            if record is not None and os.path.lexists(record):
                tell(f"undoing an interrupted export to {final} (recorded in {record})")
                _undo_record(record)
        elif name.endswith(".commit") and os.path.lexists(path):
            tell(f"undoing an interrupted export to {final} (recorded in {path})")
            _undo_record(path)
    swept = 0
    for name in os.listdir(folder):
        if pattern.fullmatch(name):
            path = folder / name
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                _remove(path)
            swept += 1
    if swept:
        tell(f"removed {swept} leftover file(s) of an interrupted export beside {final}")


def _undo_record(record: Path) -> None:
    """Put every target of the recorded export back as it was; idempotent, so a crash during an
    undo is finished by the next one. An unreadable record was cut short while being written, before
    any target moved: it is only removed."""
    data = _read_record(record)
    base = record.parent
    entries = []
    if data:
        for e in data.get("entries", ()):
            if isinstance(e, dict) and isinstance(e.get("part"), str) and isinstance(e.get("final"), str):
                backup = e.get("backup")
                entries.append((base / e["part"], base / e["final"], base / backup if isinstance(backup, str) else None))
    for part, final, backup in entries:
        if os.path.lexists(part):
            continue  # never moved: the target is the previous file
        if backup is not None:
            if os.path.lexists(backup):
                os.replace(backup, final)
        else:
            with _missing_ok():
                os.unlink(final)  # it did not exist before this export
    for folder in sorted({e[1].parent for e in entries}, key=str):
        _fsync_folder(folder)
    os.unlink(record)
    _fsync_folder(base)
    for part, _final, backup in entries:
        for path in (part, backup):
            if path is not None:
                _remove(path)
    for journal in (data or {}).get("journals", ()):
        _remove(base / journal)


def _read_record(path: Path) -> dict | None:
    try:
        with open(path, "rb") as f:
            data = json.loads(f.read(1 << 20))
        return data if isinstance(data, dict) and data.get("version") == RECORD_VERSION else None
    except (OSError, ValueError):
        return None


# -- file-system steps ---------------------------------------------------------------------------

def _lock(folder: Path, wait_s: float, tell: Tell) -> int:
    """An exclusive flock on ``folder`` (its descriptor, to close when done). Where the file system
    cannot lock, the export goes on unlocked, as it did before locks."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except PermissionError:
        return -1  # a folder we may write but not list: nothing to lock or sweep there
    try:
        import fcntl
    except ImportError:
        return fd
    deadline = time.monotonic() + max(wait_s, 0.0)
    told = False
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            pass
        except OSError as err:
            if err.errno in (errno.ENOLCK, errno.EOPNOTSUPP, errno.EINVAL, errno.EBADF):
                return fd
            os.close(fd)
            raise
        if time.monotonic() >= deadline:
            os.close(fd)
            raise ExportWriteError(f"{folder}: another exportguard export is writing there (waited {wait_s:g} s); "
                                   "nothing was written. Try again when it is done, or give --wait SECONDS")
        if not told:
            tell(f"waiting for another exportguard export writing in {folder} (up to {wait_s:g} s; --wait to change)")
            told = True
        time.sleep(0.05)


def _backup(final: Path, backup: Path) -> None:
    """A second name for the previous target: a hard link where the file system has them, else a copy."""
    try:
        os.link(final, backup, follow_symlinks=False)
    except OSError as err:
        if err.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.EMLINK, errno.ENOSYS, errno.EXDEV):
            raise
        shutil.copy2(final, backup, follow_symlinks=False)
        _fsync(backup)


def _write_durably(path: Path, data: dict) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, json.dumps(data).encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError as err:
        if err.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):  # folders some file systems cannot sync
            raise
    finally:
        os.close(fd)


def _remove(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass  # a leftover that stays is swept by the next export to its target


@contextmanager
def _missing_ok():
    try:
        yield
    except FileNotFoundError:
        pass


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
