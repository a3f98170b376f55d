"""The rows a source yields, read whole before the store's write lock is taken, in bounded memory.

Parsing a large or junk-filled file must not keep every other ingest waiting, so a source is read to
its end before the lock; but a million rows held as objects take about 2 GB. The first rows stay in
memory (a source of up to ``IN_MEMORY`` rows, most sources, never touches the disk); the rest are
pickled in batches to an unnamed scratch file, gone with the process whatever happens, and read back
in order while they are written.
"""
from __future__ import annotations

import pickle
from collections import deque
from itertools import islice
from typing import Iterable, Iterator, TypeVar

from ..errors import ExportguardError, os_cause
from ..scratch import temporary_file

T = TypeVar("T")

# Rows kept as objects (about 1.5 KB each). Past them, pickling and reading back costs about 30 % of
# the ingest's time (100,000 CSV rows: 24.7 s and 251 MB held whole, 32.3 s and 116 MB with 20,000
# kept), so the common sources stay whole and only the large ones pay for a bounded memory.
IN_MEMORY = 50_000
SPILL_BATCH = 2_000  # rows pickled together: one dump and one load per batch


class Held(Iterable[T]):
    """Every item of ``items``, consumed when this is made; iterate it once to have them back."""

    def __init__(self, items: Iterable[T], label: str, in_memory: int | None = None, batch: int | None = None):
        in_memory = IN_MEMORY if in_memory is None else in_memory
        batch = SPILL_BATCH if batch is None else batch
        self._head: deque[T] = deque()
        self._file = None
        self._batches = 0
        self._label = label
        rest = iter(items)
        for item in rest:
            self._head.append(item)
            if len(self._head) >= in_memory:
                break
        chunk: list[T] = list(islice(rest, 1))  # a row past those kept: the rest goes to the disk
        if not chunk:
            return
        try:
            self._file = temporary_file()
            for item in rest:
                chunk.append(item)
                if len(chunk) >= batch:
                    self._spill(chunk)
                    chunk = []
            if chunk:
                self._spill(chunk)
        except OSError as e:
            self.close()
            raise ExportguardError(f"{label}: the rows read could not be held for writing past the first "
                                   f"{in_memory:,}: {os_cause(e)} (in the temporary folder)") from None

    def _spill(self, chunk: list[T]) -> None:
        pickle.dump(chunk, self._file, pickle.HIGHEST_PROTOCOL)
        self._batches += 1

    def __iter__(self) -> Iterator[T]:
        head = self._head
        while head:
            yield head.popleft()  # handed over, not kept
        if self._file is None:
            return
        try:
            self._file.seek(0)
            for _ in range(self._batches):
                try:
                    chunk = pickle.load(self._file)
                except OSError as e:
                    raise ExportguardError(f"{self._label}: the rows held for writing could not be read back: "
                                           f"{os_cause(e)} (in the temporary folder)") from None
                yield from chunk
        finally:
            self.close()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
