"""How large a workbook's text prints (issue 16's XLSX print target): each workbook exported from the
real v5.1 data, printed through LibreOffice's PDF export on A4 and on Letter, landscape as the
workbook asks; for each sheet, the effective size of its text on paper (the font size times the scale
LibreOffice fits the sheet to the page width with), read back from the PDF with pypdf.

    .venv/bin/python bench/xlsx_print.py [--out FOLDER]

Prints one line per workbook, paper and sheet: pages, smallest and most common effective text size
(in points) of the sheet's text (the page header left out; LibreOffice scales it with the sheet), and
for a sheet that shows figures, how many figures with their band its first page shows ("p1 figs") and
where its notes block begins: on the last page that shows figures, or how many pages after it.
tests/test_render_xlsx_print.py measures the same way.
"""
from __future__ import annotations

import argparse
import collections
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import REPO, real_store  # noqa: E402

PAPERS = {"A4": 9, "Letter": 1}  # OOXML paperSize codes


def workbooks(work: Path) -> dict[str, Path]:
    from exportguard.render import export
    from exportguard.spec import build_report, load_spec, spec_from_filters
    from exportguard.store import open_store

    out = {}
    with open_store(real_store(work)) as store:
        reports = {"v5.1 closed, a sheet per cohort": build_report(store, spec_from_filters(
            {"round": ("v5.1",), "division": ("closed",)}, split_by_cohort=True))}
        spec = REPO / "examples" / "vendor-comparison.toml"
        reports["vendor-comparison.toml"] = build_report(store, load_spec(spec))
    for k, (name, report) in enumerate(reports.items()):
        [out[name]] = export(report, [work / f"print-{k}.xlsx"])
    return out


def on_paper(path: Path, paper: int, target: Path) -> Path:
    """The workbook with every sheet's page set-up on the given paper."""
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename.startswith("xl/worksheets/sheet"):
                text = data.decode("utf-8")
                text = re.sub(r'<pageSetup( [^>]*)?/>', lambda m: f'<pageSetup paperSize="{paper}"'
                              + re.sub(r' paperSize="\d+"', "", m.group(1) or "") + "/>", text)
                data = text.encode("utf-8")
            dst.writestr(item, data)
    return target


def to_pdf(path: Path, outdir: Path) -> Path:
    profile = Path(tempfile.mkdtemp(prefix="eg-lo-print-"))
    try:
        subprocess.run(["soffice", f"-env:UserInstallation=file://{profile}", "--headless", "--convert-to", "pdf",
                        "--outdir", str(outdir), str(path)], check=True, capture_output=True, timeout=900)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    return outdir / f"{path.stem}.pdf"


@dataclass
class Page:
    sheet: str
    runs: list  # (text, effective size in pt) of the page's text, the page header left out


def printed_pages(pdf: Path) -> list[Page]:
    """Each page of a workbook's PDF: its sheet (read from the page header '<sheet>, page n of m') and
    its text runs with the size they print at (font size times the text and page transforms)."""
    from pypdf import PdfReader

    pages = []
    for page in PdfReader(pdf).pages:
        found: list[tuple[str, float]] = []

        def visit(text, cm, tm, font, size):
            if not text.strip():
                return
            a, b, c, d = (tm[0] * cm[0] + tm[1] * cm[2], tm[0] * cm[1] + tm[1] * cm[3],
                          tm[2] * cm[0] + tm[3] * cm[2], tm[2] * cm[1] + tm[3] * cm[3])
            found.append((text.strip(), round(size * abs(a * d - b * c) ** 0.5, 2)))

        page.extract_text(visitor_text=visit)
        # the page header '<sheet>, page 1 of 3' comes in runs: the sheet's name is the run before ', page'
        at = next((k for k, (t, _) in enumerate(found) if t == ", page" and k > 0), None)
        sheet = found[at - 1][0] if at is not None else "?"
        header = set(range(at - 2, at + 4)) if at is not None else set()  # title, sheet, page n of m
        pages.append(Page(sheet, [(t, s) for k, (t, s) in enumerate(found) if k not in header and s > 0]))
    return pages


def sizes(pages: list[Page]) -> dict[str, tuple[int, list[float]]]:
    """Sheet -> (pages, effective text sizes in pt of its pages' text)."""
    out: dict[str, tuple[int, list[float]]] = {}
    for page in pages:
        n, found = out.get(page.sheet, (0, []))
        out[page.sheet] = (n + 1, found + [s for _, s in page.runs])
    return out


# a printed figure or band edge (ending in its marks), or a band edge's words where the cohort has no band
FIGURE = re.compile(r"\d[^\[]*(\[[a-z]+\])+( derived)?$|^slack not estimable")


# a throughput figure as its cell shows it: number, unit, its band (or the words why there is none), marks
BANDED = re.compile(r"^\d[\d,.]* [^,\[±(]*?(±\d[\d.]*%|\(slack not estimable[^)]*\)) (\[[a-z]+\] ?)+( derived)?$")


def first_page_figures(pages: list[Page]) -> dict[str, int]:
    """Sheet -> how many figures with their band its first printed page shows."""
    out: dict[str, int] = {}
    for page in pages:
        if page.sheet not in out:
            out[page.sheet] = sum(1 for t, _ in page.runs if BANDED.search(t))
    return out


def notes_after(pages: list[Page]) -> dict[str, int]:
    """Sheet -> how many pages after the last page showing figures (or band edges) its notes block
    begins (0: on that page), for each sheet that shows figures and has a notes block (its label)."""
    out: dict[str, int] = {}
    for sheet in dict.fromkeys(p.sheet for p in pages):
        own = [p for p in pages if p.sheet == sheet]
        figures = [k for k, p in enumerate(own) if any(FIGURE.search(t) for t, _ in p.runs)]
        notes = [k for k, p in enumerate(own) if any(t == "Notes" for t, _ in p.runs)]
        if figures and notes:
            out[sheet] = notes[0] - figures[-1]
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    work = args.out or Path(tempfile.mkdtemp(prefix="eg-print-"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"{'workbook':34} {'paper':6} {'sheet':34} {'pages':>5} {'min pt':>7} {'most pt':>7} {'p1 figs':>7}  notes")
    for name, path in workbooks(work).items():
        for paper, code in PAPERS.items():
            pages = printed_pages(to_pdf(on_paper(path, code, work / f"{path.stem}-{paper}.xlsx"), work))
            after = notes_after(pages)
            first = first_page_figures(pages)
            for sheet, (n, found) in sizes(pages).items():
                if not found:
                    continue
                common = collections.Counter(found).most_common(1)[0][0]
                where = ("" if sheet not in after else "on the last figures' page" if after[sheet] == 0
                         else "on the page after the last figures" if after[sheet] == 1
                         else f"{after[sheet]} pages after the last figures")
                figs = first[sheet] if sheet in after else ""
                print(f"{name:34} {paper:6} {sheet[:34]:34} {n:5} {min(found):7.1f} {common:7.1f} {figs:>7}  {where}")


if __name__ == "__main__":
    main()
