"""One measurement in this (fresh) process: python bench/measure.py CASE SIDE N WORK
prints {"seconds": ..., "max_rss_mb": ...}: the time of the side's work alone, and the peak RSS
of the process (or, for whole-process cases, of the child it ran)."""
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
    started = time.perf_counter()
    work_fn(work, data)
    seconds = time.perf_counter() - started
    who = resource.RUSAGE_CHILDREN if case.subprocess else resource.RUSAGE_SELF
    print(json.dumps({"seconds": seconds, "max_rss_mb": resource.getrusage(who).ru_maxrss / 1024}))


if __name__ == "__main__":
    main()
