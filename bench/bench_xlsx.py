"""XLSX export benchmark: export time and peak memory for 20,000 and 100,000 bound figures.

Builds a synthetic report by replicating the real v5.1 closed llama2-70b-99 Offline results (each
copy gets its own system id and name, so each row keeps its own note and mark, as distinct results
would) into one BoundTable bound by ``guard.bind_table`` with the cohort's real slack, then times
``render.export`` to .xlsx. The baseline, measured in the same run, writes the same number of plain
numeric cells with openpyxl's write-only mode and no binding.

Each case runs in a fresh subprocess, so that ru_maxrss is that case's own peak; time is measured
without tracemalloc, and tracemalloc's peak (Python allocations made during the export itself) in a
second subprocess, because tracing slows Python down.

    python bench/bench_xlsx.py                      # 20,000 and 100,000 figures
    python bench/bench_xlsx.py --sizes 2000 20000   # other sizes
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("EXPORTGUARD_SHARED", REPO.parent / "shared"))
SUMMARY = SHARED / "mlperf" / "summaries" / "v5.1_summary_results.json"
TREE = SHARED / "mlperf" / "submissions" / "v5.1"
COHORT = dict(round="v5.1", division="closed", model="llama2-70b", accuracy_track="99", scenario="Offline")


def _maxrss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kilobytes


def make_store(folder: Path) -> str:
    from exportguard.ingest import ingest_path
    from exportguard.store import open_store

    url = f"sqlite:///{folder / 'bench.db'}"
    store = open_store(url)
    ingest_path(store, SUMMARY)
    ingest_path(store, TREE)
    store.close()
    return url


def make_report(url: str, n: int):
    from exportguard.caveat import FULL, SHORT, TRADEMARK_LEGEND
    from exportguard.guard import bind_table
    from exportguard.model import estimate_slack
    from exportguard.report import Report, TableSection
    from exportguard.store import open_store

    store = open_store(url)
    real = store.results(**COHORT)
    store.close()
    slack = estimate_slack(real)
    copies = []
    for k in range(n):
        r = real[k % len(real)]
        i = r.conditions.identity
        identity = dataclasses.replace(i, system_id=f"{i.system_id}-copy{k}", system_name=f"{i.system_name} #{k}")
        copies.append(dataclasses.replace(r, conditions=dataclasses.replace(r.conditions, identity=identity)))
    table = bind_table(copies, title=f"{n:,} replicated results", slack=slack)
    return Report(f"Benchmark: {n:,} figures", "benchmark", (TableSection(table.title, table),), SHORT, FULL,
                  TRADEMARK_LEGEND)


def baseline(n: int, path: Path) -> None:
    from openpyxl import Workbook

    wb = Workbook(write_only=True)
    ws = wb.create_sheet("numbers")
    value = 101527.0
    for k in range(n):
        ws.append([value + k])
    wb.save(path)


def child(mode: str, url: str, n: int, out: Path) -> dict:
    """One measurement in this process: mode is export or baseline; trace adds tracemalloc."""
    trace = mode.endswith("+trace")
    result = {"n": n, "mode": mode}
    if mode.startswith("export"):
        from exportguard.render import export

        t0 = time.perf_counter()
        report = make_report(url, n)
        result["build_s"] = time.perf_counter() - t0
        result["rss_before_mb"] = _maxrss_mb()
        if trace:
            _split_peak_at_manifest(result)
            tracemalloc.start()
        t0 = time.perf_counter()
        [path] = export(report, [out])
        result["seconds"] = time.perf_counter() - t0
    else:
        if trace:
            tracemalloc.start()
        t0 = time.perf_counter()
        baseline(n, out)
        result["seconds"] = time.perf_counter() - t0
        path = out
    if trace:
        result["trace_peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    result["maxrss_mb"] = _maxrss_mb()
    result["file_mb"] = path.stat().st_size / 2**20
    return result


def _split_peak_at_manifest(result: dict) -> None:
    """Record the traced peak up to manifest.build (the sheets, streamed) and during it."""
    from exportguard.render import xlsx

    build = xlsx.manifest_mod.build

    def measured(*args, **kwargs):
        result["sheets_peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        manifest = build(*args, **kwargs)
        result["manifest_peak_mb"] = (tracemalloc.get_traced_memory()[1] - before) / 2**20
        result["manifest_kept_mb"] = (tracemalloc.get_traced_memory()[0] - before) / 2**20
        return manifest

    xlsx.manifest_mod.build = measured


def run_child(mode: str, url: str, n: int, folder: Path) -> dict:
    out = folder / f"{mode.replace('+', '-')}-{n}.xlsx"
    done = subprocess.run([sys.executable, __file__, "--child", mode, "--url", url, "--n", str(n), "--out", str(out)],
                          capture_output=True, text=True, cwd=REPO)
    if done.returncode:
        raise SystemExit(f"{mode} {n} failed:\n{done.stdout}\n{done.stderr}")
    out.unlink(missing_ok=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[20_000, 100_000])
    ap.add_argument("--child")
    ap.add_argument("--url")
    ap.add_argument("--n", type=int)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.url, args.n, args.out)))
        return
    with tempfile.TemporaryDirectory(prefix="eg-bench-") as tmp:
        folder = Path(tmp)
        url = make_store(folder)
        rows = []
        for n in args.sizes:
            base = run_child("baseline", url, n, folder)
            base_trace = run_child("baseline+trace", url, n, folder)
            exp = run_child("export", url, n, folder)
            exp_trace = run_child("export+trace", url, n, folder)
            rows.append((n, base, base_trace, exp, exp_trace))
            print(f"... {n:,} figures done", file=sys.stderr)
    print(f"{'figures':>8} | {'case':<8} | {'seconds':>8} | {'x baseline':>10} | {'traced peak MB':>14} | "
          f"{'max RSS MB':>10} | {'RSS before MB':>13} | {'file MB':>7}")
    print("-" * 98)
    split = []
    for n, base, base_trace, exp, exp_trace in rows:
        print(f"{n:>8,} | {'baseline':<8} | {base['seconds']:>8.2f} | {1.0:>10.1f} | "
              f"{base_trace['trace_peak_mb']:>14.1f} | {base['maxrss_mb']:>10.0f} | {'':>13} | {base['file_mb']:>7.1f}")
        print(f"{n:>8,} | {'export':<8} | {exp['seconds']:>8.2f} | {exp['seconds'] / base['seconds']:>10.1f} | "
              f"{exp_trace['trace_peak_mb']:>14.1f} | {exp['maxrss_mb']:>10.0f} | {exp['rss_before_mb']:>13.0f} | "
              f"{exp['file_mb']:>7.1f}")
        split.append(f"{n:>8,} | {exp_trace['sheets_peak_mb']:>15.1f} | {exp_trace['manifest_peak_mb']:>20.1f} | "
                     f"{exp_trace['manifest_kept_mb']:>18.1f}")
    print(f"\n{'figures':>8} | {'sheets peak MB':>15} | {'manifest.build peak MB':>20} | {'manifest dict MB':>18}")
    print("-" * 72)
    print("\n".join(split))
    print("\nexport = guard.validate + xlsx.render + move into place (the report is built beforehand: "
          "'RSS before' is the process with the report in memory); traced peak = Python allocations during "
          "the export or baseline only.")


if __name__ == "__main__":
    main()
