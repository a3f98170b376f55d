"""An export's files go into place all together or not at all, and a crash cannot change that;
nothing anyone plants in an export folder can turn an export against its user.

The protocol (``Commit``), for the files of one export run (``run``: 32 hex digits, also in every
artifact's manifest):

1. Lock each target's folder (``flock`` on the folder: a second export there waits, up to a bound).
   Finish or undo every export to that folder that a crash interrupted, whatever its targets, and
   sweep the leftovers of any target (``recover_folder``).
2. Render each target to a hidden ``.part`` beside it (a renderer's temporary files go to a
   ``.scratch`` folder beside it, handed down through exportguard/scratch.py), then fsync it.
3. Hard-link each existing target to a ``.bak`` (the target itself stays where it is); in every
   other folder of the export, write a ``.journal`` naming the commit record; fsync the folders.
4. Write the commit record (``.commit``, beside the first target, owner-only): the run and every
   target. From now until it is deleted, an interruption is finished or undone.
5. ``os.replace`` each part over its target: at every instant a target is the previous file or the
   new one, never absent.
6. Fsync the folders and delete the commit record: the export has happened. Then the backups and
   journals go.

Every name an export keeps beside a target is ``.<target>~<digest>.<run>.<kind>``: the part and
the backup of a target are not read from the record but worked out from the target's name and the
run, so a record can only ever speak of the files its own run made.

A record or journal is untrusted input (a shared folder, /tmp, a CI workspace: anyone who can
write there can plant one). One is acted on only when it is a regular file owned by this user and
writable by no one else, of this version, named for the run it states, with targets that are plain
names in its folder or in a folder that holds this user's journal of the same run pointing back at
it. Anything else is reported in one line and left alone: never followed, never deleted.

After a kill (``recover_folder``, run by the next export to the folder or ``exportguard recover``),
a record whose every unmoved part is still there, this user's, is finished: the rest of the parts go
into place, and the export the user asked for has happened whole. Otherwise (a part gone missing
or replaced), and always inside the process that fails (an error, SIGINT, SIGTERM), it is undone:
each moved target gets its backup back (or, new, is deleted). Each step can be interrupted and run
again. Without a readable record nothing was moved, and the leftovers are only swept.
"""
from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import shutil
import stat
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Sequence

from ..errors import ExportguardError, os_cause as cause
from ..scratch import inside
from ..signals import held

RECORD_VERSION = 2
_NAME_BYTES = 96  # of a target's name kept in its leftovers' names: they must fit where the target fits
_KINDS = ("part", "bak", "scratch", "journal", "commit")
_RUN = re.compile(r"[0-9a-f]{32}")
_MAX_RECORD = 1 << 20
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


def new_run() -> str:
    """A fresh export run id: 32 hex digits that no one can guess before the export starts."""
    return os.urandom(16).hex()


# -- names of an export's own files beside a target ----------------------------------------------

def _stem(target: Path) -> str:
    """The hidden prefix of every file an export keeps beside ``target``: part of its name (so a
    person can tell whose it is) and a digest of all of it (so no other target's files match)."""
    name = target.name
    short = name
    while len(os.fsencode(short)) > _NAME_BYTES:
        short = short[:-1]
    return f".{short}~{hashlib.sha1(os.fsencode(name)).hexdigest()[:8]}"


def own_name(target: Path, run: str, kind: str) -> Path:
    """The one name the export run ``run`` gives its ``kind`` of file beside ``target``."""
    return target.parent / f"{_stem(target)}.{run}.{kind}"


# Any export's file (this protocol's, and version 1's with 12 hex digits in place of the run).
_OURS = re.compile(rf"\..*~[0-9a-f]{{8}}\.([A-Za-z0-9_]+)\.({'|'.join(_KINDS)})")


def is_ours(path: str | os.PathLike) -> bool:
    """Whether ``path`` names one of the files an export keeps beside a target (no user's file)."""
    return any(_OURS.fullmatch(part) for part in Path(path).parts)


def _old_parts(target: Path) -> re.Pattern:
    """The .part names of exportguard before this protocol (".NAME.XXXXXXXX.part"), swept beside
    the targets an export names."""
    return re.compile(rf"{re.escape('.' + target.name)}\.[a-z0-9_]{{8}}\.part")


# -- the transaction -----------------------------------------------------------------------------

class Commit:
    """``with Commit(finals) as c: part = c.stage(final); with c.scratch(final): ...render...;
    c.commit()``. Leaving the block without ``commit()`` (an exception, a signal turned into one)
    removes every part and changes no target."""

    def __init__(self, finals: Sequence[Path], *, wait_s: float = 0.0, tell: Tell | None = None,
                 run: str | None = None):
        self.finals = [Path(f) for f in finals]
        self.wait_s = wait_s
        self.tell = tell or (lambda _text: None)
        self.run = run if run is not None else new_run()
        if not _RUN.fullmatch(self.run):
            raise ValueError(f"an export run id is 32 hex digits, not {self.run!r}")
        self.parts: dict[Path, Path] = {}
        self.done = False
        self._recorded: Recorded | None = None  # once the record is being written
        self._made: list[Path] = []  # backups and journals, removed once the export is done or undone
        self._locks: list[int] = []

    def __enter__(self) -> "Commit":
        try:
            for folder in _folders(self.finals):
                folder.mkdir(parents=True, exist_ok=True)
                self._locks.append(_lock(folder, self.wait_s, self.tell))
            for folder in _folders(self.finals):
                recover_folder(folder, self.tell, old_targets=[f for f in self.finals if f.parent == folder])
        except BaseException:
            self._unlock()
            raise
        return self

    def stage(self, final: Path) -> Path:
        """A new, empty part beside ``final`` for a renderer to write (its mode as any new file's:
        the umask is the kernel's to apply, never read or changed here)."""
        part = own_name(final, self.run, "part")
        os.close(os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o666))
        self.parts[final] = part
        return part

    @contextmanager
    def scratch(self, final: Path) -> Iterator[Path]:
        """Temporary files a renderer makes (exportguard/scratch.py) go to a folder beside ``final``
        for this thread only: removed afterwards, and swept with the folder's leftovers after a kill."""
        folder = own_name(final, self.run, "scratch")
        os.mkdir(folder, 0o700)
        try:
            with inside(folder):
                yield folder
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def commit(self) -> None:
        """Steps 2 (fsync) to 6 for every staged part; on failure, raise ExportWriteError naming the
        target and the cause (the undo runs when the ``with`` block ends)."""
        first = self.finals[0]
        record = own_name(first, self.run, "commit")
        others = [f for f in _folders(self.finals) if f != first.parent]
        journals = [own_name(folder / first.name, self.run, "journal") for folder in others]
        doing = first
        try:
            for final in self.finals:
                doing = final
                _fsync(self.parts[final])
                if os.path.lexists(final):
                    backup = own_name(final, self.run, "bak")
                    self._made.append(backup)
                    _backup(final, backup)
            for folder, journal in zip(others, journals):
                doing = folder
                self._made.append(journal)
                _write_durably(journal, {"exportguard": "export journal", "version": RECORD_VERSION,
                                         "run": self.run, "record": {"folder": _rel(first.parent, folder),
                                                                     "name": record.name}})
            for folder in _folders(self.finals):
                _fsync_folder(folder)
            doing = first
            previous = {f: own_name(f, self.run, "bak") in self._made for f in self.finals}
            self._recorded = Recorded(record, self.run, tuple(
                (f, self.parts[f], own_name(f, self.run, "bak") if previous[f] else None) for f in self.finals),
                tuple(journals))
            _write_durably(record, {"exportguard": "export commit record", "version": RECORD_VERSION,
                                    "run": self.run,
                                    "entries": [{"folder": _rel(f.parent, first.parent), "final": f.name,
                                                 "previous": previous[f]} for f in self.finals]})
            _fsync_folder(first.parent)
            for final in self.finals:
                doing = final
                os.replace(self.parts[final], final)
            for folder in _folders(self.finals):
                _fsync_folder(folder)
            with held():  # the export has happened exactly when the record is gone
                os.unlink(record)
                self.done = True
        except OSError as err:
            raise ExportWriteError(f"{doing}: could not be put in place: {cause(err)}") from None
        for path in self._made:
            _remove(path)
        try:
            _fsync_folder(first.parent)
        except OSError:
            pass  # the export is complete; were the deletion lost to a power cut, the next export finishes it

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
            if self._recorded is not None and os.path.lexists(self._recorded.record):
                self._recorded.undo()
            for path in [*self.parts.values(), *self._made]:
                _remove(path)
        except OSError as err:
            raise ExportWriteError(
                f"the interrupted export could not be undone ({cause(err)}): some targets may be new and others "
                f"previous; run `exportguard recover {self.finals[0].parent}` to finish the undo") from None

    def _unlock(self) -> None:
        while self._locks:
            fd = self._locks.pop()
            if fd >= 0:
                os.close(fd)  # closing the folder releases its flock


def recover(paths: Sequence[Path], tell: Tell | None = None, wait_s: float = 0.0) -> list[str]:
    """Finish or undo every interrupted export in the folders of ``paths`` (folders, or files whose
    folders are meant) and sweep their leftovers, under each folder's lock, as every export does
    first; returns what was done, a line each (also told to ``tell``)."""
    done: list[str] = []

    def hear(line: str) -> None:
        done.append(line)
        if tell:
            tell(line)

    folders = _folders([Path(p) / "_" if Path(p).is_dir() else Path(p) for p in paths] or [Path.cwd() / "_"])
    for folder in folders:
        if not folder.is_dir():
            continue  # nothing was ever written there
        fd = _lock(folder, wait_s, hear)
        try:
            recover_folder(folder, hear, old_targets=[Path(p) for p in paths if Path(p).parent == folder])
        finally:
            if fd >= 0:
                os.close(fd)
    return done


def write_file(path: Path, data: bytes, tell: Tell | None = None, wait_s: float = 0.0) -> None:
    """One file (a report the command line writes, such as ``check --output``) put in place whole,
    by the same protocol as an export: its folder recovered first, the file never half-written."""
    path = Path(path)
    with Commit([path], wait_s=wait_s, tell=tell) as c:
        with open(c.stage(path), "wb") as f:
            f.write(data)
        c.commit()


def _folders(finals: Sequence[Path]) -> list[Path]:
    return sorted({Path(f).parent for f in finals}, key=str)


def _rel(path: Path, start: Path) -> str:
    return Path(os.path.relpath(path, start)).as_posix()


# -- recovery: records read as untrusted input ---------------------------------------------------

class Untrusted(Exception):
    """A record or journal that is not this user's, or does not hold together: never acted on."""


@dataclass(frozen=True)
class Recorded:
    """A commit record that passed every check: its run, and each target with its part and backup."""

    record: Path
    run: str
    entries: tuple[tuple[Path, Path, Path | None], ...]  # (final, part, backup or None: no previous file)
    journals: tuple[Path, ...]

    def finishable(self) -> bool:
        """Whether what is left completes the set: every part not yet moved is still there, a regular
        file of this user's (the record was written only once every part was on disk), and every
        moved target is as the moves left it, its backup beside it. A moved target whose backup is
        gone (put back) or, new, that is gone (deleted) shows an undo under way: it is carried on."""
        for final, part, backup in self.entries:
            if os.path.lexists(part):
                if not _is_mine(part):
                    return False
            elif not os.path.lexists(final) or (backup is not None and not os.path.lexists(backup)):
                return False
        return True

    def finish(self) -> list[Path]:
        moved = []
        for final, part, _backup in self.entries:
            if os.path.lexists(part):
                os.replace(part, final)
                moved.append(final)
        self._close()
        return moved

    def undo(self) -> list[Path]:
        restored = []
        for final, part, backup in self.entries:
            if os.path.lexists(part):
                continue  # never moved: the target is the previous file
            if backup is not None:
                if _is_regular(backup):
                    with _missing_ok():
                        os.replace(backup, final)
                        restored.append(final)
            else:
                with _missing_ok():
                    os.unlink(final)  # it did not exist before this export
                    restored.append(final)
        self._close()
        return restored

    def _close(self) -> None:
        for folder in _folders([f for f, _p, _b in self.entries]):
            _fsync_folder(folder)
        with _missing_ok():
            os.unlink(self.record)
        _fsync_folder(self.record.parent)
        for _final, part, backup in self.entries:
            for path in (part, backup):
                if path is not None and _is_regular(path):
                    _remove(path)
        for journal in self.journals:
            _remove(journal)


def recover_folder(folder: Path, tell: Tell, old_targets: Sequence[Path] = ()) -> None:
    """Finish or undo what interrupted exports left in flight in ``folder``, then sweep every export's
    leftovers there (this user's only). The caller holds ``folder``'s lock; an export's files in
    other folders are reached only through this user's journals there, and each step can be
    repeated by whoever comes next."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return  # a folder that cannot be listed holds nothing we could sweep
    refused: set[str] = set()
    held_runs: set[str] = set()  # runs of records not acted on: their files here may be all that is left of them
    for name in names:
        m = _OURS.fullmatch(name)
        if not m or m.group(2) not in ("commit", "journal") or not os.path.lexists(folder / name):
            continue
        try:
            recorded = _read_record(folder / name) if m.group(2) == "commit" else _via_journal(folder / name)
        except Untrusted as why:
            refused.add(name)
            held_runs.add(m.group(1))
            tell(f"ignored {folder / name}: {why}; it was not acted on")
            continue
        if recorded is None:
            continue  # a journal whose export has ended: swept below
        _settle(recorded, tell)
    swept = 0
    old = [_old_parts(t) for t in old_targets]
    for name in sorted(os.listdir(folder)):
        m = _OURS.fullmatch(name)
        if name in refused or (m and m.group(1) in held_runs) or not (m or any(p.fullmatch(name) for p in old)):
            continue
        path = folder / name
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if info.st_uid != os.geteuid():
            refused.add(name)
            tell(f"ignored {path}: named like an export's file but not yours; it was left alone")
            continue
        if stat.S_ISDIR(info.st_mode):
            shutil.rmtree(path, ignore_errors=True)  # a scratch folder: rmtree never follows its links
        else:
            _remove(path)  # a file or a link: the name goes, never what a link points at
        swept += 1
    if swept:
        tell(f"removed {swept} leftover file(s) of interrupted exports in {folder}")


def _settle(recorded: Recorded, tell: Tell) -> None:
    short = recorded.run[:12]
    if recorded.finishable():
        moved = recorded.finish()
        tell(f"finished an interrupted export (run {short}) recorded in {recorded.record}: "
             f"{len(moved)} of its {len(recorded.entries)} file(s) put in place now, the rest were already")
    else:
        restored = recorded.undo()
        tell(f"undid an interrupted export (run {short}) recorded in {recorded.record}: "
             f"{len(restored)} file(s) put back as they were")


def _read_record(path: Path) -> Recorded | None:
    """The record at ``path``, checked; None for a record cut short while being written (before any
    target moved: it is only swept). Raises Untrusted for anything not this user's own record."""
    m = _OURS.fullmatch(path.name)
    run = m.group(1) if m else ""
    data = _read_json(path)
    if data is None:
        return None
    if data.get("exportguard") == "export commit record" and data.get("version") == 1:
        return _read_v1(path, data)
    if data.get("exportguard") != "export commit record" or data.get("version") != RECORD_VERSION:
        raise Untrusted("not a commit record of this exportguard")
    if data.get("run") != run or not _RUN.fullmatch(run):
        raise Untrusted("its run does not match its name")
    entries = data.get("entries")
    if not isinstance(entries, list) or not entries:
        raise Untrusted("it lists no targets")
    home = path.parent
    first = _target_name(entries[0])
    if _entry_folder(home, entries[0]) != home or path.name != own_name(home / first, run, "commit").name:
        raise Untrusted("its name is not its first target's")
    found, journals = [], []
    for entry in entries:
        final_folder = _entry_folder(home, entry)
        final = final_folder / _target_name(entry)
        if final_folder.resolve() != home.resolve():
            journal = own_name(final_folder.resolve() / first, run, "journal")
            _check_journal(journal, run, path)
            journals.append(journal)
        previous = entry.get("previous")
        if not isinstance(previous, bool):
            raise Untrusted("a target without its previous state")
        found.append((final, own_name(final, run, "part"), own_name(final, run, "bak") if previous else None))
    return Recorded(path, run, tuple(found), tuple(dict.fromkeys(journals)))


def _read_v1(path: Path, data: dict) -> Recorded:
    """A record of the exportguard before run ids (its part and backup names stated, relative to the
    record): honoured where every name is a plain name in its folder and of its target's scheme, so
    that an upgrade finishes what the earlier version left in flight."""
    entries = data.get("entries")
    if not isinstance(entries, list) or not entries:
        raise Untrusted("it lists no targets")
    found = []
    for entry in entries:
        names = [entry.get(k) if isinstance(entry, dict) else None for k in ("final", "part", "backup")]
        final, part, backup = names
        if not all(isinstance(n, str) and _plain_name(n) for n in (final, part)) or (
                backup is not None and not (isinstance(backup, str) and _plain_name(backup))):
            raise Untrusted("an earlier exportguard's record naming files outside its folder")
        stem = re.escape(_stem(Path(final)))
        if not re.fullmatch(rf"{stem}\.[a-z0-9_]+\.part", part) or (
                backup is not None and not re.fullmatch(rf"{stem}\.[a-z0-9_]+\.bak", backup)):
            raise Untrusted("an earlier exportguard's record naming files that are not its target's")
        home = path.parent
        found.append((home / final, home / part, None if backup is None else home / backup))
    if not path.name.startswith(_stem(found[0][0]) + "."):
        raise Untrusted("its name is not its first target's")
    return Recorded(path, "earlier", tuple(found), ())


def _via_journal(path: Path) -> Recorded | None:
    """The record a journal of this user's points at, if that export is still in flight."""
    m = _OURS.fullmatch(path.name)
    run = m.group(1) if m else ""
    data = _read_json(path)
    if data is None:
        return None  # cut short: written before the record, so no target has moved
    if data.get("exportguard") == "export journal" and data.get("version") == 1:
        return None  # an earlier exportguard's: its record, beside it, is read on its own
    if data.get("exportguard") != "export journal" or data.get("version") != RECORD_VERSION:
        raise Untrusted("not an export journal of this exportguard")
    if data.get("run") != run or not _RUN.fullmatch(run):
        raise Untrusted("its run does not match its name")
    where = data.get("record")
    if not isinstance(where, dict) or not isinstance(where.get("name"), str):
        raise Untrusted("it names no commit record")
    name = where["name"]
    if not _plain_name(name) or not name.endswith(f".{run}.commit") or not _OURS.fullmatch(name):
        raise Untrusted("the record it names is not one of its run's")
    record = _entry_folder(path.parent, where).resolve() / name
    if not os.path.lexists(record):
        return None  # that export has ended (the record goes first): the journal is a leftover
    recorded = _read_record(record)
    if recorded is None or path.parent.resolve() / path.name not in recorded.journals:
        raise Untrusted(f"the record it names ({record}) does not name it back")
    return recorded


def _check_journal(journal: Path, run: str, record: Path) -> None:
    data = _read_json(journal)
    where = (data or {}).get("record")
    if (not data or data.get("run") != run or not isinstance(where, dict) or where.get("name") != record.name
            or not isinstance(where.get("folder"), str)
            or (journal.parent / where["folder"]).resolve() != record.parent.resolve()):
        raise Untrusted(f"it names a target in {journal.parent}, where no journal of its run points back at it")


def _read_json(path: Path) -> dict | None:
    """A record's or journal's data, read without following a link, only from a regular file of this
    user's that no one else may write; None when it is empty or cut short (not JSON)."""
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise Untrusted("it is a symbolic link") from None
        raise Untrusted(f"it cannot be read ({cause(err)})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Untrusted("it is not a regular file")
        if info.st_uid != os.geteuid():
            raise Untrusted("it belongs to another user")
        if info.st_mode & 0o022:
            raise Untrusted("others may write it")
        raw = os.read(fd, _MAX_RECORD + 1)
    finally:
        os.close(fd)
    if len(raw) > _MAX_RECORD:
        raise Untrusted("it is too large to be a record")
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    except RecursionError:  # JSON nested deeper than the parser goes: no record of ours is
        raise Untrusted("it is not a record (nested too deep)") from None
    if not isinstance(data, dict):
        raise Untrusted("it is not a record")
    return data


def _entry_folder(home: Path, entry: dict) -> Path:
    """The folder an entry names, relative to ``home``: never absolute."""
    rel = entry.get("folder") if isinstance(entry, dict) else None
    if not isinstance(rel, str) or not rel or "\0" in rel or rel.startswith("/") or "\\" in rel:
        raise Untrusted("it names a folder that is not relative to its own")
    return home if rel == "." else home / rel


def _target_name(entry) -> str:
    name = entry.get("final") if isinstance(entry, dict) else None
    if not isinstance(name, str) or not _plain_name(name) or _OURS.fullmatch(name):
        raise Untrusted("it names a target that is not a plain file name")
    return name


def _plain_name(name: str) -> bool:
    return bool(name) and name not in (".", "..") and "/" not in name and "\0" not in name and "\\" not in name


def _is_regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _is_mine(path: Path) -> bool:
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and info.st_uid == os.geteuid()


# -- file-system steps ---------------------------------------------------------------------------

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


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
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600)
    try:
        os.fchmod(fd, 0o600)  # owner-only whatever the umask: a record is read back only if no one else could write it
        os.write(fd, json.dumps(data).encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | _NOFOLLOW)
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
        pass  # a leftover that stays is swept by the next export to its folder


@contextmanager
def _missing_ok():
    try:
        yield
    except FileNotFoundError:
        pass
