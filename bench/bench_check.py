"""Checker benchmark: `exportguard check` on large documents against the same library only opening
the file and reading all its text.

Builds a 200-slide deck (python-pptx: title, a text box with a bound figure, a 9-row table of
figures with a notes footer, speaker notes; a chart every 20 slides), a 100,000-cell workbook
(openpyxl: 20,000 rows x 5 columns, the throughput cells numeric with the binding in their number
format, notes rows below) and a 200-page PDF (reportlab: figures quoted in paragraphs, their notes
and the legend on each page). Each measurement runs in a fresh subprocess (interpreter start and
imports included on both sides); the median of --runs measurements is reported.

- check: ``python -m exportguard check --format json FILE`` (each file is inspected in a forked
  worker with its limits, as always);
- bare read: python-pptx opens the deck and reads every text frame, table cell, grouped shape and
  speaker note; openpyxl (read-only) reads every cell value; pypdf extracts every page's text.

    python bench/bench_check.py                 # the three documents, 5 runs each
    python bench/bench_check.py --runs 3 --exportguard-100k   # also exportguard's own 100,000-figure
                                                               # XLSX export (builds a store; minutes)
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench" / "baselines"))
from plain import mark  # noqa: E402  (documents built the way a person would, marks and all)
NOTE = ("[{m}] Vendor {k}, 8x B200-SXM-180GB. MLPerf® Inference: Datacenter v5.1, Closed division, llama2-70b-99 "
        "Offline, result 5.1-{id:04d}, verified. 273.3 tokens/sample, OpenOrca. Source https://mlcommons.org/"
        "benchmarks/inference-datacenter/, retrieved 2025-09-09.")
LEGEND = ("The MLPerf name and logo are registered and unregistered trademarks of MLCommons Association in the United "
          "States and other countries. All rights reserved. Unauthorized use strictly prohibited. See "
          "www.mlcommons.org for more information.")


def build_deck(path: Path, slides: int = 200) -> None:
    from pptx import Presentation
    from pptx.chart.data import CategoryChartData
    from pptx.enum.chart import XL_CHART_TYPE
    from pptx.util import Inches, Pt

    prs = Presentation()
    for s in range(slides):
        slide = prs.slides.add_slide(prs.slide_layouts[5])
        slide.shapes.title.text = f"llama2-70b-99 Offline, MLPerf® Inference v5.1: systems {s * 8 + 1}-{s * 8 + 8}"
        box = slide.shapes.add_textbox(Inches(0.5), Inches(1.2), Inches(9), Inches(0.5)).text_frame
        box.text = f"Leader on this slide: {101527 - s:,} tok/s ±5.4% [a]"
        rows = 9 if s % 20 else 5
        table = slide.shapes.add_table(rows + 1, 4, Inches(0.5), Inches(1.8), Inches(9), Inches(3)).table
        for c, head in enumerate(("System", "Accelerators", "Tokens/sample", "Throughput")):
            table.cell(0, c).text = head
        for r in range(1, rows):
            for c, text in enumerate((f"System {s}-{r}", "8", "273.3 tokens/sample",
                                      f"{101527 - s * 10 - r:,} tok/s ±5.4% [{mark(r - 1)}]")):
                table.cell(r, c).text = text
        footer = table.cell(rows, 0)
        footer.merge(table.cell(rows, 3))
        footer.text = "\n".join(NOTE.format(m=mark(r - 1), k=f"{s}-{r}", id=(s * 8 + r) % 10000)
                                for r in range(1, rows))
        for p in footer.text_frame.paragraphs:
            for run in p.runs:
                run.font.size = Pt(6)
        legend = slide.shapes.add_textbox(Inches(0.5), Inches(6.8), Inches(9), Inches(0.4)).text_frame
        legend.text = LEGEND
        if s % 20 == 0:
            data = CategoryChartData(number_format='#,##0" tok/s ±5.4% [a]"')
            data.categories = [f"System {s}-{r}" for r in range(1, 5)]
            data.add_series("Throughput (tok/s)", [101527 - s * 10 - r for r in range(1, 5)])
            chart = slide.shapes.add_chart(XL_CHART_TYPE.BAR_CLUSTERED, Inches(5), Inches(4.5), Inches(4), Inches(2),
                                           data).chart
            chart.plots[0].has_data_labels = True
            chart.plots[0].data_labels.number_format = '#,##0" tok/s ±5.4% [a]"'
            chart.plots[0].data_labels.number_format_is_linked = False
        slide.notes_slide.notes_text_frame.text = ("MLPerf® figures hold only under their stated conditions; compare "
                                                   "them inside one cohort.")
    prs.save(path)


def build_workbook(path: Path, rows: int = 20_000) -> None:
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell

    wb = Workbook(write_only=True)
    ws = wb.create_sheet("llama2-70b-99 Offline")
    ws.append(["System", "Accelerators", "Tokens/sample", "Throughput, tok/s", "Result ID"])
    for r in range(rows):
        cell = WriteOnlyCell(ws, 101527.4 - r)
        cell.number_format = f'#,##0" tok/s ±5.4% [{mark(r % 500)}]"'
        ws.append([f"System {r}", 8, "273.3 tokens/sample", cell, f"5.1-{r % 10000:04d}"])
    ws.append([])
    for r in range(500):
        ws.append([NOTE.format(m=mark(r), k=r, id=r)])
    ws.append([LEGEND])
    wb.save(path)


def build_pdf(path: Path, pages: int = 200) -> None:
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate

    styles = getSampleStyleSheet()
    story = []
    for p in range(pages):
        if p:
            story.append(PageBreak())
        story.append(Paragraph(f"Briefing page {p + 1}: llama2-70b-99 Offline (MLPerf® Inference v5.1)", styles["Heading2"]))
        for k in range(6):
            story.append(Paragraph(f"System {p}-{k} reached {101527 - p * 10 - k:,} tok/s ±5.4% [{mark(k)}] on the "
                                   "llama2-70b-99 Offline shape, a result that holds only under its stated "
                                   "conditions and is a tie within slack with its neighbours.", styles["Normal"]))
        for k in range(6):
            story.append(Paragraph(NOTE.format(m=mark(k), k=f"{p}-{k}", id=(p * 6 + k) % 10000), styles["Normal"]))
        story.append(Paragraph(LEGEND, styles["Normal"]))
    SimpleDocTemplate(str(path), pagesize=A4).build(story)


BARE_READ = {
    ".pptx": r'''
import sys
from pptx import Presentation
def walk(shapes):
    n = 0
    for sh in shapes:
        if sh.shape_type == 6:  # group
            n += walk(sh.shapes)
        if getattr(sh, "has_text_frame", False) and sh.has_text_frame:
            n += len(sh.text_frame.text)
        if getattr(sh, "has_table", False) and sh.has_table:
            for row in sh.table.rows:
                for cell in row.cells:
                    n += len(cell.text)
        if getattr(sh, "has_chart", False) and sh.has_chart:
            ch = sh.chart
            if ch.has_title:
                n += len(ch.chart_title.text_frame.text)
            for plot in ch.plots:
                for s in plot.series:
                    n += len(s.name) + sum(len(str(v)) for v in s.values)
    return n
prs = Presentation(sys.argv[1])
n = 0
for slide in prs.slides:
    n += walk(slide.shapes)
    if slide.has_notes_slide:
        n += len(slide.notes_slide.notes_text_frame.text)
print(n)
''',
    ".xlsx": r'''
import sys
from openpyxl import load_workbook
wb = load_workbook(sys.argv[1], read_only=True)
n = 0
for ws in wb.worksheets:
    for row in ws.iter_rows(values_only=True):
        for v in row:
            if v is not None:
                n += len(str(v))
print(n)
''',
    ".pdf": r'''
import sys
from pypdf import PdfReader
r = PdfReader(sys.argv[1])
print(sum(len(p.extract_text() or "") for p in r.pages))
''',
}


def timed(cmd: list[str]) -> tuple[float, subprocess.CompletedProcess]:
    started = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO)
    return time.perf_counter() - started, done


def measure(path: Path, runs: int) -> dict:
    bare, check, worker, rss = [], [], [], []
    for _ in range(runs):
        seconds, done = timed([sys.executable, "-c", BARE_READ[path.suffix], str(path)])
        if done.returncode:
            raise SystemExit(f"bare read of {path} failed:\n{done.stderr}")
        bare.append(seconds)
        seconds, done = timed([sys.executable, "-m", "exportguard", "check", "--format", "json", "--timeout", "1200",
                               "--max-memory", "4096", str(path)])
        if done.returncode not in (0, 1):
            raise SystemExit(f"check of {path} failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
        report = json.loads(done.stdout)["files"][0]
        check.append(seconds)
        worker.append(report["seconds"])
        rss.append(report["peak_rss_mb"])
    return {"file": path.name, "mb": path.stat().st_size / 2**20, "bare": statistics.median(bare),
            "check": statistics.median(check), "worker": statistics.median(worker), "rss": max(rss),
            "status": report["status"], "figures": report["figures"], "findings": len(report["findings"])}


def exportguard_100k(folder: Path) -> Path:
    """exportguard's own XLSX export of 100,000 figures (the real v5.1 llama2-70b-99 Offline results,
    replicated as bench/common.py does for the export cases)."""
    sys.path.insert(0, str(REPO / "bench"))
    from common import load_rows

    from exportguard.caveat import FULL, SHORT, TRADEMARK_LEGEND
    from exportguard.guard import bind_table
    from exportguard.render import export
    from exportguard.report import Report, TableSection

    rows, slack = load_rows(folder, 100_000)
    table = bind_table(rows, title="100,000 results, llama2-70b-99 Offline", slack=slack)
    report = Report("Results", "benchmark", (TableSection(table.title, table),), SHORT, FULL, TRADEMARK_LEGEND)
    [path] = export(report, [folder / "exportguard-100000-figures.xlsx"])
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--exportguard-100k", action="store_true", help="also exportguard's own 100,000-figure XLSX")
    ap.add_argument("--keep", type=Path, help="build the documents in this folder and keep them")
    args = ap.parse_args()
    import compileall

    compileall.compile_dir(str(REPO / "exportguard"), quiet=1)  # bytecode, as an install leaves it
    with tempfile.TemporaryDirectory(prefix="eg-bench-check-") as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        docs = [folder / "deck-200-slides.pptx", folder / "workbook-100000-cells.xlsx", folder / "brief-200-pages.pdf"]
        for doc, build in zip(docs, (build_deck, build_workbook, build_pdf)):
            if not doc.exists():
                build(doc)
        if args.exportguard_100k:
            big = folder / "exportguard-100000-figures.xlsx"
            docs.append(big if big.exists() else exportguard_100k(folder))
        rows = []
        for doc in docs:
            runs = args.runs if doc.stat().st_size < 20 << 20 else 1
            rows.append(measure(doc, runs))
            print(f"... {doc.name} done", file=sys.stderr)
    print(f"{'document':<36} | {'MB':>5} | {'bare read s':>11} | {'check s':>8} | {'ratio':>5} | {'worker s':>8} | "
          f"{'peak RSS MB':>11} | result")
    print("-" * 118)
    for r in rows:
        print(f"{r['file']:<36} | {r['mb']:>5.1f} | {r['bare']:>11.2f} | {r['check']:>8.2f} | "
              f"{r['check'] / r['bare']:>5.2f} | {r['worker']:>8.2f} | {r['rss']:>11.0f} | "
              f"{r['status']}, {r['figures']} figures, {r['findings']} findings")
    print(f"\nmedian of {args.runs} fresh subprocesses per cell (1 for files over 20 MB); both sides include the "
          "interpreter start and imports; 'worker s' is the checker's own time in its worker process.")


if __name__ == "__main__":
    main()
