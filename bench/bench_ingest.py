"""Ingest speed of the real v5.1 tree and summary, as ratios against a baseline measured in the
same run: reading and parsing the same files without storing anything (json.load of the summary;
reading every file of the tree). Run: python bench/bench_ingest.py [--repeat N] [--db URL]"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
SHARED = HERE.parents[1] / "shared" / "mlperf"

from exportguard.ingest import ingest_path  # noqa: E402
from exportguard.store import open_store  # noqa: E402


def timed(fn, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--db", help="store URL (default: a fresh SQLite file per run)")
    args = parser.parse_args()
    tree, summary = SHARED / "submissions" / "v5.1", SHARED / "summaries" / "v5.1_summary_results.json"

    def baseline_summary():
        json.loads(summary.read_text())

    def baseline_tree():
        for f in tree.rglob("*"):
            if f.is_file():
                f.read_bytes()

    def fresh_ingest(path):
        def run():
            with tempfile.TemporaryDirectory() as d:
                with open_store(args.db or f"sqlite:///{d}/s.db") as s:
                    ingest_path(s, path)
        return run

    rows = []
    for name, path, base in (("v5.1 tree (51 results)", tree, baseline_tree),
                             ("v5.1 summary (1,448 rows)", summary, baseline_summary)):
        b = timed(base, args.repeat)
        t = timed(fresh_ingest(path), args.repeat)
        rows.append((name, t, b, t / b))
    print(f"{'source':<28} {'ingest s':>9} {'baseline s':>11} {'ratio':>7}")
    for name, t, b, ratio in rows:
        print(f"{name:<28} {t:>9.3f} {b:>11.4f} {ratio:>7.1f}")


if __name__ == "__main__":
    main()
