"""PDF briefing export benchmark: export time, pages and peak memory for 5,000 and 20,000 bound
figures, against a plain reportlab LongTable of the same rows and cells (bench/baselines/pdf_longtable.py).

Builds a synthetic report by replicating the real v5.1 closed llama2-70b-99 Offline results (each
copy gets its own system id and name, so each row keeps its own note and mark, as distinct results
would) into one BoundTable bound by ``guard.bind_table`` with the cohort's real slack, then times
``render.export`` to .pdf: validation, layout, the notes of every page, the caveat, the sources
appendix, the drawing and the manifest attachment. The baseline times reportlab's LongTable (header
row repeated, SimpleDocTemplate) laying out the same table: the same cells broken into the same
lines, in the same columns, font, type size and page size; it has no notes, no appendix and no
manifest.

Every measurement runs in a fresh subprocess (so ru_maxrss is its own peak); exports and baselines
alternate, and the table gives the median of the repeats.

    python bench/bench_pdf.py                        # 5,000 and 20,000 figures, 3 exports, 1 baseline each
    python bench/bench_pdf.py --sizes 2000 --repeats 5 --baseline-repeats 3
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
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


def child(mode: str, url: str, n: int, out: Path) -> dict:
    """One measurement in this process: ``export`` (the whole PDF export) or ``baseline``."""
    result = {"n": n, "mode": mode}
    t0 = time.perf_counter()
    report = make_report(url, n)
    result["build_s"] = time.perf_counter() - t0
    if mode == "export":
        from exportguard.render import export

        t0, c0 = time.perf_counter(), time.process_time()
        [path] = export(report, [out])
        result["seconds"], result["cpu"] = time.perf_counter() - t0, time.process_time() - c0
    else:
        sys.path.insert(0, str(REPO / "bench" / "baselines"))
        import pdf_longtable

        data, layout = pdf_longtable.prepare(report)
        t0, c0 = time.perf_counter(), time.process_time()
        pdf_longtable.render(data, layout, out)
        result["seconds"], result["cpu"] = time.perf_counter() - t0, time.process_time() - c0
        path = out
    from pypdf import PdfReader

    result["pages"] = len(PdfReader(str(path)).pages)
    result["maxrss_mb"] = _maxrss_mb()
    result["file_mb"] = path.stat().st_size / 2**20
    return result


def run_child(mode: str, url: str, n: int, folder: Path) -> dict:
    out = folder / f"{mode}-{n}.pdf"
    done = subprocess.run([sys.executable, __file__, "--child", mode, "--url", url, "--n", str(n), "--out", str(out)],
                          capture_output=True, text=True, cwd=REPO)
    if done.returncode:
        raise SystemExit(f"{mode} {n} failed:\n{done.stdout}\n{done.stderr}")
    out.unlink(missing_ok=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[5_000, 20_000])
    ap.add_argument("--repeats", type=int, default=3, help="exports per size (the median is reported)")
    ap.add_argument("--baseline-repeats", type=int, default=1, help="LongTable runs per size (slow: quadratic)")
    ap.add_argument("--child")
    ap.add_argument("--url")
    ap.add_argument("--n", type=int)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.url, args.n, args.out)))
        return
    rows = {}
    with tempfile.TemporaryDirectory(prefix="eg-bench-pdf-") as tmp:
        folder = Path(tmp)
        url = make_store(folder)
        for n in args.sizes:
            exports, bases = [], []
            for k in range(max(args.repeats, args.baseline_repeats)):  # alternate: export, baseline, export, ...
                if k < args.repeats:
                    exports.append(run_child("export", url, n, folder))
                if k < args.baseline_repeats:
                    bases.append(run_child("baseline", url, n, folder))
                print(f"... {n:,} figures, round {k + 1} done", file=sys.stderr)
            rows[n] = (exports, bases)

    def med(runs, key):
        return statistics.median(r[key] for r in runs)

    print(f"{'figures':>8} | {'case':<9} | {'runs':>4} | {'seconds':>8} | {'CPU s':>6} | {'x LongTable':>11} | "
          f"{'pages':>6} | {'max RSS MB':>10} | {'file MB':>7}")
    print("-" * 92)
    for n, (exports, bases) in rows.items():
        base_s = med(bases, "seconds")
        for case, runs in (("LongTable", bases), ("export", exports)):
            print(f"{n:>8,} | {case:<9} | {len(runs):>4} | {med(runs, 'seconds'):>8.2f} | {med(runs, 'cpu'):>6.2f} | "
                  f"{med(runs, 'seconds') / base_s:>11.2f} | {int(med(runs, 'pages')):>6} | "
                  f"{max(r['maxrss_mb'] for r in runs):>10.0f} | {med(runs, 'file_mb'):>7.1f}")
    sizes = sorted(rows)
    if len(sizes) >= 2:
        small, big = sizes[0], sizes[-1]
        for case, i in (("export", 0), ("LongTable", 1)):
            ratio = med(rows[big][i], "seconds") / med(rows[small][i], "seconds")
            print(f"\n{case}: time({big:,}) / time({small:,}) = {ratio:.2f} (rows x{big / small:g})", end="")
        print()
    print("\nexport = guard.validate + pdf.render (layout, every page's notes, caveat, sources appendix, drawing, "
          "manifest attachment) + move into place; the report is built beforehand and not timed. LongTable = "
          "reportlab's LongTable laying out the same table only (no notes, appendix or manifest); its input is "
          "prepared beforehand and not timed. seconds = wall clock (median), CPU s = process time (median).")


if __name__ == "__main__":
    main()
