"""PPTX density (issue 16, item 3): for the example specs, Top N decks on 16:9 and on a 4:3 template,
the v5.1 closed division split by cohort and an ad-hoc export of each v5.1 cohort, how many slides a
deck takes, how many result rows (bars) a figure slide holds with its notes, and the smallest table
text, note and chart label sizes. Everything is read back from the written deck (what is drawn).

    .venv/bin/python bench/pptx_density.py               # everything
    .venv/bin/python bench/pptx_density.py --cohorts 0   # without the per-cohort ad-hoc exports

"Result" counts the figure tables whose text columns are combined into one "Result" cell (only
ever the default columns; columns asked for stay columns). "rows/slide" is the fewest rows of a figure slide that is followed by a continuation (a full slide),
or "all N" where every section fits one slide each.
"""
from __future__ import annotations

import argparse
import re
import sys
import tempfile
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import cohort_reports, example_reports, real_store  # noqa: E402

A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
# a continuation slide's title: "(2 of 3)" (before issue 16), or "llama2-70b-99 Offline, 11-20 of 47 results"
CONTINUED = re.compile(r" \(([2-9]|\d\d+) of \d+\)$|, ([2-9]|\d\d+)-\d+ of \d+ results$")
TOP = '''
title = "Top {n}"
[filters]
round = "v5.1"
division = "closed"
availability = "available"
[[section]]
kind = "{kind}"
title = "Top {n} systems, llama2-70b-99 Offline"
filters = {{ model = "llama2-70b", track = "99", scenario = "Offline" }}
columns = ["rank", "submitter", "system", "accelerators", "availability", "throughput"]
limit = {n}
'''


def measure(path: Path) -> dict:
    """Slides, figure slides per section with their rows, and the smallest sizes, read from the deck."""
    from lxml import etree
    from pptx import Presentation

    prs = Presentation(path)
    sections: dict[str, list[int]] = {}
    table_pt, note_pt, label_pt = [], [], []
    combined = 0
    for slide in prs.slides:
        title = slide.shapes.title.text_frame.text if slide.shapes.title is not None else ""
        rows = 0
        figure_slide = False
        for shape in slide.shapes:
            if shape.has_table and shape.name != "Sources":
                figure_slide = True
                cols = len(shape.table.columns)
                combined += any(c.text == "Result" for c in shape.table.rows[0].cells)  # text columns in one cell
                for r, tr in enumerate(shape._element.iter(A + "tr")):
                    cells = tr.findall(A + "tc")
                    footer = cols > 1 and cells[0].get("gridSpan") == str(cols)
                    sizes = [int(v) / 100 for v in tr.xpath(".//@sz")]
                    if footer:
                        note_pt += sizes
                    elif r:
                        table_pt += sizes
                        rows += 1
            elif shape.has_chart:
                figure_slide = True
                rows += len(shape.chart.plots[0].categories)
            elif shape.name in ("Notes",):
                note_pt += [int(v) / 100 for v in shape._element.xpath(".//@sz")]
        if figure_slide:
            if CONTINUED.search(title) and sections:
                sections[next(reversed(sections))].append(rows)
            else:
                sections[f"{len(sections)} {title}"] = [rows]
    with zipfile.ZipFile(path) as z:
        for part in z.namelist():
            if re.fullmatch(r"ppt/charts/chart\d+\.xml", part):
                label_pt += [int(v) / 100 for v in etree.fromstring(z.read(part)).xpath(".//@sz")]
    full = [n for per in sections.values() for n in per[:-1]]
    return {"slides": len(prs.slides), "sections": sections, "full": min(full) if full else None,
            "rows": sum(sum(v) for v in sections.values()), "table_pt": min(table_pt, default=None),
            "note_pt": min(note_pt, default=None), "label_pt": min(label_pt, default=None),
            "most": max((max(v) for v in sections.values()), default=0), "combined": combined}


def cases(store, corp: Path, n_cohorts: int | None):
    from exportguard.spec import build_report, parse_spec, spec_from_filters

    for name, report in example_reports(store):
        yield name, report, None
        yield name + " 4:3", report, corp
    for kind in ("table", "chart"):
        for n, template in ((10, None), (8, corp)):
            report = build_report(store, parse_spec(TOP.format(n=n, kind=kind), name="top.toml"))
            yield f"top {n} {kind}" + (" 4:3" if template else ""), report, template
    closed = spec_from_filters({"round": "v5.1", "division": "closed"}, True)
    yield "v5.1 closed, split by cohort", build_report(store, closed), None
    for name, report in cohort_reports(store, n_cohorts):
        yield name, report, None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cohorts", type=int, default=None, help="only the first N v5.1 cohorts")
    args = parser.parse_args()
    from exportguard.errors import ExportguardError
    from exportguard.render import export
    from exportguard.render.pptx_template import build_default
    from exportguard.store import open_store

    work = Path(tempfile.gettempdir()) / "exportguard-bench"
    work.mkdir(exist_ok=True)
    out = []
    with open_store(real_store(work)) as store, tempfile.TemporaryDirectory() as tmp:
        corp = Path(tmp) / "corp-4x3.pptx"
        corp.write_bytes(build_default(width_in=10, font="DejaVu Serif"))
        for i, (name, report, template) in enumerate(cases(store, corp, args.cohorts)):
            try:
                [path] = export(report, [Path(tmp) / f"deck{i}.pptx"], **({"template": template} if template else {}))
            except ExportguardError as refused:  # a table that cannot fit a slide at 11 / 9 pt
                out.append((name, str(refused)))
                continue
            out.append((name, measure(path)))

    def pt(x):
        return f"{x:g}" if x is not None else "-"

    print(f"{'deck':52} {'slides':>6} {'figure slides':>13} {'rows':>5} {'rows/slide':>10} {'most':>5} "
          f"{'table pt':>8} {'notes pt':>8} {'labels pt':>9} {'Result':>6}")
    for name, d in out:
        if isinstance(d, str):
            print(f"{name[:52]:52} refused: {d[:120]}")
            continue
        per = str(d["full"]) if d["full"] is not None else f"all {d['rows']}" if d["rows"] else "-"
        figure = sum(len(v) for v in d["sections"].values())
        print(f"{name[:52]:52} {d['slides']:>6} {figure:>13} {d['rows']:>5} {per:>10} {d['most']:>5} "
              f"{pt(d['table_pt']):>8} {pt(d['note_pt']):>8} {pt(d['label_pt']):>9} {d['combined']:>6}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
