"""Rendered pages of the example artifacts, for a person to look at (issue 16's before/after
pictures): the three example specs and the v5.1 closed llama2-70b-99 Offline cohort, exported from
the real v5.1 data to PPTX, PDF and XLSX, each converted by LibreOffice to PDF (a PPTX or XLSX) and
then to one PNG per page with pdftoppm.

    .venv/bin/python bench/pages.py artifacts/after        # PNGs under artifacts/after/<export>/

Prints one line per artifact: its path and how many pages it rendered to.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import REPO, real_store  # noqa: E402

SPECS = ("executive-deck", "briefing", "vendor-comparison")
FORMATS = (".pptx", ".pdf", ".xlsx")


def exports(work: Path, out: Path) -> list[Path]:
    from exportguard.render import export
    from exportguard.spec import build_report, load_spec, spec_from_filters
    from exportguard.store import open_store

    written = []
    with open_store(real_store(work)) as store:
        reports = {name: build_report(store, load_spec(REPO / "examples" / f"{name}.toml")) for name in SPECS}
        reports["cohort-llama2-70b-99-offline"] = build_report(store, spec_from_filters(
            {"round": ("v5.1",), "division": ("closed",), "model": ("llama2-70b",), "accuracy_track": ("99",), "scenario": ("Offline",)},
            split_by_cohort=True))
    for name, report in reports.items():
        # the vendor comparison's twelve columns do not fit a slide: its deck is refused
        targets = [out / name / f"{name}{suffix}" for suffix in FORMATS if (name, suffix) != ("vendor-comparison", ".pptx")]
        for t in targets:
            t.parent.mkdir(parents=True, exist_ok=True)
        export(report, targets, force=True)
        written += targets
    return written


def pages(path: Path, profile: Path) -> int:
    pdf = path
    if path.suffix != ".pdf":
        subprocess.run(["soffice", f"-env:UserInstallation=file://{profile}", "--headless", "--convert-to", "pdf",
                        "--outdir", str(path.parent / "office"), str(path)], check=True, capture_output=True,
                       timeout=600)
        pdf = path.parent / "office" / f"{path.stem}.pdf"
        pdf = pdf.rename(path.parent / "office" / f"{path.name}.pdf")
    stem = path.parent / "png" / path.name
    stem.parent.mkdir(exist_ok=True)
    subprocess.run(["pdftoppm", "-png", "-r", "60", str(pdf), str(stem)], check=True, timeout=600)
    return len(list(stem.parent.glob(f"{path.name}-*.png")))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    args = ap.parse_args()
    if args.out.exists():
        shutil.rmtree(args.out)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        os.environ.setdefault("SOURCE_DATE_EPOCH", "1764547200")  # the same pictures from the same code
        for path in exports(work, args.out):
            print(f"{path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path}: "
                  f"{pages(path, work / 'lo-profile')} pages")


if __name__ == "__main__":
    main()
