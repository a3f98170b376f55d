"""How a workbook prints (issues 16 and 34): every example spec and the demo's report exported to XLSX
for A4 and for Letter (the workbook sets its paper), printed through LibreOffice's PDF export, and read
back page by page with pypdf.

    .venv/bin/python bench/xlsx_print.py [--out FOLDER]

One line per workbook, paper and sheet: printed pages; table rows per page (fewest and most, on the
pages that show rows); the smallest text on paper (font size times the sheet's scale, the page header
left out); the farthest a figure's note prints from the figure (0: on its page; 1: the next; "-": a
note missing on and after the figure's page); pages that show figures without the row's key (its
rank, submitter and system headers); and pages that show neither a table row nor a note (furniture
only). tests/test_render_xlsx_print.py measures with these same functions.
"""
from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import REPO, real_store  # noqa: E402

PAPERS = ("a4", "letter")
DEMO = REPO / "exportguard" / "data" / "demo.toml"


def specs() -> dict[str, Path]:
    """Every example report spec (the price table is not one) and the demo's."""
    found = {p.name: p for p in sorted((REPO / "examples").glob("*.toml")) if not p.name.startswith("prices")}
    return {**found, "demo": DEMO}


def workbooks(store, work: Path, names: dict[str, Path] | None = None) -> dict[tuple[str, str], Path]:
    """(spec name, paper) -> the workbook exported from ``store`` for that paper."""
    from exportguard.render import export
    from exportguard.spec import build_report, load_spec

    out = {}
    for k, (name, spec) in enumerate((names or specs()).items()):
        report = build_report(store, load_spec(spec))
        for paper in PAPERS:
            [out[name, paper]] = export(report, [work / f"print-{k}-{paper}.xlsx"], page_size=paper)
    return out


def to_pdf(paths: list[Path], outdir: Path) -> list[Path]:
    """The workbooks printed by LibreOffice (one process, a profile of its own)."""
    profile = Path(tempfile.mkdtemp(prefix="eg-lo-print-"))
    try:
        subprocess.run(["soffice", f"-env:UserInstallation=file://{profile}", "--headless", "--convert-to", "pdf",
                        "--outdir", str(outdir), *map(str, paths)], check=True, capture_output=True, timeout=1800)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    return [outdir / f"{p.stem}.pdf" for p in paths]


@dataclass
class Page:
    sheet: str
    runs: list  # (text, effective size in pt) of the page's text, the page header left out
    lefts: list  # each run's left edge (pt from the page's left)


def printed_pages(pdf: Path) -> list[Page]:
    """Each page of a workbook's PDF: its sheet (read from the page header '<sheet>, page n of m') and
    its text runs with the size they print at (font size times the text and page transforms)."""
    from pypdf import PdfReader

    pages = []
    for page in PdfReader(pdf).pages:
        found: list[tuple[str, float, float]] = []

        def visit(text, cm, tm, font, size):
            if not text.strip():
                return
            a, b, c, d = (tm[0] * cm[0] + tm[1] * cm[2], tm[0] * cm[1] + tm[1] * cm[3],
                          tm[2] * cm[0] + tm[3] * cm[2], tm[2] * cm[1] + tm[3] * cm[3])
            x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
            found.append((text.strip(), round(size * abs(a * d - b * c) ** 0.5, 2), round(x, 1)))

        page.extract_text(visitor_text=visit)
        # the page header '<sheet>, page 1 of 3' comes in runs: the sheet's name is the run before ', page'
        at = next((k for k, (t, _, _) in enumerate(found) if t == ", page" and k > 0), None)
        sheet = found[at - 1][0] if at is not None else "?"
        header = set(range(at - 2, at + 4)) if at is not None else set()  # title, sheet, page n of m
        kept = [(t, s, x) for k, (t, s, x) in enumerate(found) if k not in header and s > 0]
        pages.append(Page(sheet, [(t, s) for t, s, _ in kept], [x for _, _, x in kept]))
    return pages


# a printed figure or band edge (ending in its marks), or a band edge's words where the cohort has no band
FIGURE = re.compile(r"\d[^\[]*(\[[a-z]+\])+( derived)?$|^slack not estimable")
MARK = re.compile(r"\[([a-z]+)\]")
NOTE = re.compile(r"^\[([a-z]+)\] \S")
RANK = re.compile(r"^(\d+( \(tie \d+-\d+\))?|not ranked)$")
KEY = ("Rank", "Submitter", "System")


@dataclass
class SheetPrint:
    """How one sheet printed."""

    sheet: str
    pages: int
    rows: list  # table rows on each page that shows rows
    smallest: float  # pt on paper
    farthest: int | None  # pages from a figure to its note (None: no marks; -1: a note missing)
    unnamed: int  # pages that show figures without the row's key
    furniture: int  # pages that show neither a table row nor a note


def measure(pages: list[Page]) -> list[SheetPrint]:
    out = []
    for sheet in dict.fromkeys(p.sheet for p in pages):
        own = [p for p in pages if p.sheet == sheet]
        figures = [[t for t, _ in p.runs if FIGURE.search(t)] for p in own]
        notes = [{NOTE.match(t).group(1) for t, _ in p.runs if NOTE.match(t)} for p in own]
        rows = [_rows(p) or len(f) for p, f in zip(own, figures)]
        distances = []
        for k, shown in enumerate(figures):
            for mark in {m for t in shown for m in MARK.findall(t)}:
                after = [q - k for q in range(k, len(own)) if mark in notes[q]]
                distances.append(min(after) if after else -1)
        farthest = None if not distances else -1 if -1 in distances else max(distances)
        shows_figures = any(figures)
        key = set(KEY) & {t for p in own for t, _ in p.runs}  # the key this sheet has (a headline: no rank)
        unnamed = sum(1 for p, f in zip(own, figures) if f and not key <= {t for t, _ in p.runs})
        furniture = sum(1 for r, n in zip(rows, notes) if shows_figures and not r and not n)
        sizes = [s for p in own for _, s in p.runs]
        out.append(SheetPrint(sheet, len(own), [r for r in rows if r], min(sizes) if sizes else 0.0, farthest,
                              unnamed, furniture))
    return out


def _rows(page: Page) -> int:
    """Table rows on a page: its ranks in the leftmost column (a count column's numbers stand further
    right); 0 for a table without ranks (its figures are counted instead)."""
    if "Rank" not in {t for t, _ in page.runs}:
        return 0
    xs = [x for (t, _), x in zip(page.runs, page.lefts) if RANK.match(t)]
    return sum(1 for x in xs if x <= min(xs) + 2) if xs else 0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    work = args.out or Path(tempfile.mkdtemp(prefix="eg-print-"))
    work.mkdir(parents=True, exist_ok=True)
    from exportguard.store import open_store

    with open_store(real_store(work)) as store:
        books = workbooks(store, work)
    pdfs = dict(zip(books, to_pdf(list(books.values()), work)))
    print(f"{'workbook':24} {'paper':6} {'sheet':32} {'pages':>5} {'rows/page':>9} {'min pt':>6} "
          f"{'note at':>7} {'no key':>6} {'empty':>5}")
    for (name, paper), pdf in pdfs.items():
        sheets = measure(printed_pages(pdf))
        for s in sheets:
            rows = f"{min(s.rows)}-{max(s.rows)}" if s.rows else ""
            note = "" if s.farthest is None else "-" if s.farthest < 0 else f"+{s.farthest}"
            print(f"{name:24} {paper:6} {s.sheet[:32]:32} {s.pages:5} {rows:>9} {s.smallest:6.2f} {note:>7} "
                  f"{s.unnamed:6} {s.furniture:5}")
        print(f"{name:24} {paper:6} {'(the workbook)':32} {sum(s.pages for s in sheets):5}")


if __name__ == "__main__":
    main()
