"""PPTX export benchmark: 1,000 bound figures in tables over 50 slides, against a plain python-pptx
script writing the same visible content; and the example deck.

The report replicates the real v5.1 closed llama2-70b-99 Offline results (each copy with its own
system id and name, so each row keeps its own note and mark, as distinct results would) into 50
table sections of 10 rows, each row with two bound figures (throughput and per accelerator, the
derived one with its basis note), bound by ``guard.bind_table`` with the cohort's real slack:
1,000 figures. Twenty figures with their eleven notes (each about 400 characters: citation, shape,
configuration, source) need the room of an A3 landscape slide to stay on one slide as footer rows of
their table, so the main case uses an A3 landscape variant of the default template; the same report
on the default 16:9 template (more slides) is measured too.

The baseline (bench/baselines/pptx_plain.py) writes the same slides with python-pptx's public API:
the same titles, the same table cells via ``cell.text`` with the same footer rows of notes merged
across each table, the same text boxes and speaker notes, read from the exportguard deck beforehand.

Every measurement runs in a fresh subprocess (so ru_maxrss is its own peak); exportguard and the
baseline alternate, and the median of the repetitions is reported. Times are inside the child,
from content in memory to the file saved: for exportguard, ``render.export`` (validation, layout,
rendering, manifest, atomic move) of a report built beforehand; for the baseline, writing and saving.

    python bench/bench_pptx.py                 # 5 repetitions
    python bench/bench_pptx.py --reps 9
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
BASELINE = REPO / "bench" / "baselines" / "pptx_plain.py"
COHORT = dict(round="v5.1", division="closed", model="llama2-70b", accuracy_track="99", scenario="Offline")
SECTIONS, ROWS = 50, 10  # x 2 figures per row = 1,000 figures
COLUMNS = ("submitter", "system", "accelerators", "availability", "result_id", "throughput", "per_accelerator")
A3 = dict(width_in=16.54, height_in=11.69)


def _maxrss_mb() -> float:
    """This process's peak resident set: VmHWM (Linux), which starts afresh at exec; ru_maxrss would
    keep the high-water mark of the parent that forked us."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def make_store(folder: Path) -> str:
    from exportguard.ingest import ingest_path
    from exportguard.store import open_store

    url = f"sqlite:///{folder / 'bench.db'}"
    store = open_store(url)
    ingest_path(store, SUMMARY)
    ingest_path(store, TREE)
    store.close()
    return url


def make_report(url: str):
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
    for k in range(SECTIONS * ROWS):
        r = real[k % len(real)]
        i = r.conditions.identity
        identity = dataclasses.replace(i, system_id=f"{i.system_id}-copy{k}", system_name=f"{i.system_name} #{k}")
        copies.append(dataclasses.replace(r, conditions=dataclasses.replace(r.conditions, identity=identity)))
    sections = []
    for j in range(SECTIONS):
        table = bind_table(copies[j * ROWS:(j + 1) * ROWS], title=f"Part {j + 1}", slack=slack, columns=COLUMNS)
        sections.append(TableSection(f"1,000 figures, part {j + 1} of {SECTIONS}", table))
    report = Report("Benchmark: 1,000 bound figures", "benchmark", tuple(sections), SHORT, FULL, TRADEMARK_LEGEND,
                    generated_on="2025-09-09")
    assert sum(1 for _ in report.figures()) == SECTIONS * ROWS * 2
    return report


def deck_content(path: Path) -> dict:
    """What a deck shows, for the baseline to write again: titles, tables, text boxes, notes."""
    from pptx import Presentation

    prs = Presentation(path)
    slides = []
    for n, slide in enumerate(prs.slides):
        spec = {"kind": "title" if n == 0 else "content", "title": "", "tables": [], "boxes": [], "notes": ""}
        for shape in slide.shapes:
            box = [shape.left, shape.top, shape.width, shape.height]
            if shape.is_placeholder and shape.placeholder_format.type.name in ("TITLE", "CENTER_TITLE"):
                spec["title"] = shape.text_frame.text
            elif shape.has_table:
                t = shape.table
                rows = []
                for row in t.rows:
                    merged = len(t.columns) > 1 and row.cells[0]._tc.get("gridSpan") == str(len(t.columns))
                    rows.append([row.height, [c.text for c in row.cells][:1 if merged else None], merged])
                spec["tables"].append({"box": box, "widths": [c.width for c in t.columns], "rows": rows,
                                       "name": shape.name})
            elif shape.has_text_frame:
                spec["boxes"].append({"box": box, "paragraphs": [p.text for p in shape.text_frame.paragraphs]})
        if slide.has_notes_slide:
            spec["notes"] = slide.notes_slide.notes_text_frame.text
        slides.append(spec)
    return {"width": prs.slide_width, "height": prs.slide_height, "slides": slides}


def child(mode: str, url: str, out: Path, template: str | None) -> dict:
    from exportguard.render import export

    result: dict = {"mode": mode}
    if mode == "example":
        from exportguard.spec import build_report, load_spec
        from exportguard.store import open_store

        t0 = time.perf_counter()
        store = open_store(url)
        report = build_report(store, load_spec(REPO / "examples" / "executive-deck.toml"))
        store.close()
        t1 = time.perf_counter()
        [path] = export(report, [out])
        result["build_s"] = t1 - t0
    else:
        report = make_report(url)
        result["rss_before_mb"] = _maxrss_mb()
        t1 = time.perf_counter()
        [path] = export(report, [out], template=template)
    result["seconds"] = time.perf_counter() - t1
    result["maxrss_mb"] = _maxrss_mb()
    from pptx import Presentation

    result["slides"] = len(Presentation(path).slides)
    result["file_mb"] = path.stat().st_size / 2**20
    return result


def run(cmd: list[str]) -> dict:
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO)
    wall = time.perf_counter() - t0
    if done.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stdout}\n{done.stderr}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["wall_s"] = wall
    return result


def run_export(mode: str, url: str, out: Path, template: Path | None) -> dict:
    cmd = [sys.executable, __file__, "--child", mode, "--url", url, "--out", str(out)]
    if template:
        cmd += ["--template", str(template)]
    return run(cmd)


def median(rows: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--child")
    ap.add_argument("--url")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--template")
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.url, args.out, args.template)))
        return
    from exportguard.render.pptx_template import build_default

    with tempfile.TemporaryDirectory(prefix="eg-bench-pptx-") as tmp:
        folder = Path(tmp)
        url = make_store(folder)
        a3 = folder / "a3-landscape.pptx"
        a3.write_bytes(build_default(**A3))
        lines = []
        for label, template in (("A3 landscape", a3), ("16:9 default", None)):
            warm = run_export("export", url, folder / "warm.pptx", template)
            content = folder / "content.json"
            content.write_text(json.dumps(deck_content(folder / "warm.pptx")), encoding="utf-8")
            tables = sum(1 for s in json.loads(content.read_text())["slides"] for t in s["tables"]
                         if t["name"].startswith("Table "))
            ours, base = [], []
            for rep in range(args.reps):
                order = ("export", "baseline") if rep % 2 == 0 else ("baseline", "export")
                for which in order:
                    if which == "export":
                        ours.append(run_export("export", url, folder / "ours.pptx", template))
                    else:
                        base.append(run([sys.executable, str(BASELINE), str(content), str(folder / "plain.pptx")]))
                print(f"... {label}: repetition {rep + 1} of {args.reps}", file=sys.stderr)
            ratio = median(ours, "seconds") / median(base, "seconds")
            lines.append((label, warm["slides"], tables, ours, base, ratio))
        example = [run_export("example", url, folder / "example.pptx", None) for _ in range(args.reps)]
    print(f"1,000 bound figures ({SECTIONS} tables of {ROWS} rows x 2 figures), median of {args.reps}, "
          "exportguard and baseline alternating, each run in a fresh process\n")
    print(f"{'template':<14} | {'slides':>6} | {'case':<11} | {'seconds':>7} | {'ratio':>5} | {'child wall s':>12} | "
          f"{'peak RSS MB':>11} | {'file MB':>7}")
    print("-" * 96)
    for label, slides, tables, ours, base, ratio in lines:
        print(f"{label:<14} | {slides:>6} | {'exportguard':<11} | {median(ours, 'seconds'):>7.2f} | {ratio:>5.2f} | "
              f"{median(ours, 'wall_s'):>12.2f} | {median(ours, 'maxrss_mb'):>11.0f} | {ours[0]['file_mb']:>7.2f}")
        print(f"{'':<14} | {slides:>6} | {'baseline':<11} | {median(base, 'seconds'):>7.2f} | {1.0:>5.2f} | "
              f"{median(base, 'wall_s'):>12.2f} | {median(base, 'maxrss_mb'):>11.0f} |")
        print(f"{'':<14} | {'':>6} | slides of figure tables: {tables} (the rest: title, caveat, sources); "
              f"exportguard RSS with the report built, before export: "
              f"{median(ours, 'rss_before_mb'):.0f} MB")
    print(f"\nexample deck (examples/executive-deck.toml, real v5.1 data): {example[0]['slides']} slides; "
          f"export {median(example, 'seconds'):.2f} s (median of {args.reps}), report built from the store in "
          f"{median(example, 'build_s'):.2f} s, child process wall {median(example, 'wall_s'):.2f} s, "
          f"peak RSS {median(example, 'maxrss_mb'):.0f} MB")
    print("\nseconds = in the child, from content in memory to the file saved; ratio = exportguard / baseline.")


if __name__ == "__main__":
    main()
