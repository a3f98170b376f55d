"""PDF density (issue 16): for the example specs and an ad-hoc export of each v5.1 cohort of the
shared data, how many result rows a page of the briefing holds with their notes, and at what type
sizes, on A4 and on Letter. The figures come from the briefing's own page plan (pdf_tables.density),
which is what is drawn.

    .venv/bin/python bench/density.py                 # every example spec and every v5.1 cohort
    .venv/bin/python bench/density.py --cohorts 5     # the first 5 cohorts only

"rows/page" is the fewest rows on a page that a table fills before it continues (its full pages);
a table that fits on one page reports all its rows, marked "all".
"""
from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import cohort_reports, example_reports, real_store  # noqa: E402


def measure(report, folder: Path, page_size: str) -> dict:
    from exportguard.render import pdf

    _, pages = pdf.render_planned(report, folder / f"density-{page_size}.pdf", page_size=page_size)
    from exportguard.render.pdf_tables import density

    return density(pages)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cohorts", type=int, default=None, help="only the first N v5.1 cohorts")
    args = parser.parse_args()
    from exportguard.store import open_store

    work = Path(tempfile.gettempdir()) / "exportguard-bench"
    work.mkdir(exist_ok=True)
    rows = []
    with open_store(real_store(work)) as store, tempfile.TemporaryDirectory() as tmp:
        for name, report in itertools.chain(example_reports(store), cohort_reports(store, args.cohorts)):
            for size in ("a4", "letter"):
                d = measure(report, Path(tmp), size)
                rows.append((name, size, d))
    print(f"{'export':58} {'page':6} {'rows/page':>10} {'rows':>5} {'pages':>5} {'table pt':>8} {'notes pt':>8} "
          f"{'orientation':>12}")
    for name, size, d in rows:
        per = f"{d['rows_per_page']}" if d["rows_per_page"] is not None else f"all {d['rows']}" if d["rows"] else "-"
        table = f"{d['table_pt']:.1f}" if d["table_pt"] else "-"
        print(f"{name[:58]:58} {size:6} {per:>10} {d['rows']:>5} {d['pages']:>5} {table:>8} {d['notes_pt']:>8.1f} "
              f"{'/'.join(d['orientations']):>12}")
    full = [d["rows_per_page"] for _, _, d in rows if d["rows_per_page"] is not None]
    sizes = [d["table_pt"] for _, _, d in rows if d["table_pt"]]
    print(f"\nfewest rows on a full page: {min(full) if full else 'no table spans pages'}; smallest table text "
          f"{min(sizes):.1f} pt; smallest notes {min(d['notes_pt'] for _, _, d in rows):.1f} pt")
    return 0


if __name__ == "__main__":
    sys.exit(main())
