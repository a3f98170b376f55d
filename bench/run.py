"""The benchmarks, in one table: python bench/run.py [--quick] [--cases a,b] [--repeat N] [--write]

Each case runs exportguard and a hand-written baseline (bench/baselines/) on the same input, each
measurement in a fresh process, alternating sides, --repeat times (median). The table gives both
times, the ratio exportguard / baseline against the case's target, the peak RSS of each, and,
for cases run at n and 4n, time(4n) / time(n) (target: at most 4.5). --quick runs small sizes as
a smoke test (CI runs it; the numbers then mean little). --write puts the table in bench/RESULTS.md.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from cases import CASES  # noqa: E402

SCALING_TARGET = 4.5


def measure(case: str, side: str, n: int, work: Path) -> dict:
    done = subprocess.run([sys.executable, str(HERE / "measure.py"), case, side, str(n), str(work)],
                          capture_output=True, text=True, cwd=HERE.parent)
    if done.returncode:
        raise SystemExit(f"{case} {side} n={n} failed:\n{done.stdout}\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_case(name: str, n: int, repeat: int, work: Path) -> dict:
    subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(HERE)!r}); from cases import CASES; "
                    f"from pathlib import Path; CASES[{name!r}].prepare(Path({str(work)!r}), {n})"],
                   check=True, cwd=HERE.parent)  # the input, made once, outside every measurement
    runs: dict[str, list[dict]] = {"exportguard": [], "baseline": []}
    for k in range(repeat):
        for side in (("exportguard", "baseline") if k % 2 == 0 else ("baseline", "exportguard")):
            runs[side].append(measure(name, side, n, work))
    med = {side: statistics.median(r["seconds"] for r in rs) for side, rs in runs.items()}
    rss = {side: max(r["max_rss_mb"] for r in rs) for side, rs in runs.items()}
    return {"case": name, "n": n, "exportguard_s": med["exportguard"], "baseline_s": med["baseline"],
            "ratio": med["exportguard"] / med["baseline"], "exportguard_rss_mb": rss["exportguard"],
            "baseline_rss_mb": rss["baseline"]}


def table(rows: list[dict]) -> list[str]:
    out = ["| case | n | exportguard s | baseline s | ratio | target | exportguard RSS MB | baseline RSS MB |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        target = CASES[r["case"]].target
        verdict = "ok" if r["ratio"] <= target else "over"
        out.append(f"| {r['case']} | {r['n']:,} | {r['exportguard_s']:.3f} | {r['baseline_s']:.3f} | "
                   f"{r['ratio']:.2f} | {target:g} ({verdict}) | {r['exportguard_rss_mb']:.0f} | "
                   f"{r['baseline_rss_mb']:.0f} |")
    scaling = []
    for name in dict.fromkeys(r["case"] for r in rows):
        mine = sorted((r for r in rows if r["case"] == name), key=lambda r: r["n"])
        if len(mine) == 2 and mine[1]["n"] == 4 * mine[0]["n"]:
            growth = mine[1]["exportguard_s"] / mine[0]["exportguard_s"]
            verdict = "ok" if growth <= SCALING_TARGET else "over"
            scaling.append(f"| {name} | {mine[0]['n']:,} -> {mine[1]['n']:,} | {growth:.2f} | "
                           f"{SCALING_TARGET:g} ({verdict}) |")
    if scaling:
        out += ["", "| case | n -> 4n | exportguard time(4n) / time(n) | target |", "|---|---|---:|---:|", *scaling]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes, one repetition: a smoke test")
    ap.add_argument("--cases", help=f"comma-separated, of: {', '.join(CASES)}")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--write", action="store_true", help="write the table to bench/RESULTS.md")
    args = ap.parse_args()
    names = args.cases.split(",") if args.cases else list(CASES)
    repeat = 1 if args.quick else args.repeat
    rows = []
    with tempfile.TemporaryDirectory(prefix="eg-bench-") as tmp:
        work = Path(tmp)
        for name in names:
            case = CASES[name]
            for n in (case.quick if args.quick else case.sizes):
                rows.append(run_case(name, n, repeat, work))
                print(f"... {name} n={n:,}: {rows[-1]['ratio']:.2f}x", file=sys.stderr)
    lines = table(rows)
    print("\n".join(lines))
    if args.write:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                cwd=HERE.parent).stdout.strip()
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
        head = ["# Benchmark results", "",
                f"{dt.date.today().isoformat()}, commit {commit}, {os.cpu_count()} cores, {mem:.0f} GiB, "
                f"Python {platform.python_version()}; `python bench/run.py --repeat {repeat}` (median of {repeat}, "
                "alternating sides, a fresh process per measurement).", "",
                *(f"- **{c.name}**: {c.what}" for c in CASES.values() if c.name in names), ""]
        (HERE / "RESULTS.md").write_text("\n".join(head + lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
