"""SIGINT and SIGTERM held off for a step that must not be cut in two: an export's undo, a
transaction's commit and the note that it happened. A signal that arrives meanwhile is delivered
when the step is done."""
from __future__ import annotations

import signal
from contextlib import contextmanager
from typing import Iterator

_STOPPING = {signal.SIGINT, signal.SIGTERM}


@contextmanager
def held() -> Iterator[None]:
    try:
        old = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPPING)
    except (AttributeError, ValueError, OSError):  # no POSIX signal masks here
        old = None
    try:
        yield
    finally:
        if old is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
