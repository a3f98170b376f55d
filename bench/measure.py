"""One measurement in this (fresh) process: python bench/measure.py CASE SIDE N WORK
prints {"seconds": ..., "max_rss_mb": ...}: the CPU time of the side's work alone (wall time for
whole-process cases), and the peak RSS of the process (or, for those, of the child it ran)."""
from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cases import CASES  # noqa: E402


def main() -> None:
    name, side, n, work = sys.argv[1], sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
    case = CASES[name]
    data = case.prepare(work, n)
    work_fn = case.exportguard if side == "exportguard" else case.baseline
    # CPU time of this process for in-process work (steadier than the wall clock on a shared machine,
    # and the same for single-threaded work); the wall clock for whole processes.
    clock = time.perf_counter if case.subprocess else time.process_time
    started = clock()
    work_fn(work, data)
    seconds = clock() - started
    who = resource.RUSAGE_CHILDREN if case.subprocess else resource.RUSAGE_SELF
    print(json.dumps({"seconds": seconds, "max_rss_mb": resource.getrusage(who).ru_maxrss / 1024}))


if __name__ == "__main__":
    main()
