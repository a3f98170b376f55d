"""Deliverables speak to their readers (DESIGN invariant 9, issue 32 item 2): no command-line advice,
rule IDs or option names, no local path, no spec metadata inside an artifact; sources in readers'
words; the first slide or page dates the data; a column empty for every row is left out and said
so; the running header names the document. Read back from the demo's artifacts, as written."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from openpyxl import load_workbook
from pptx import Presentation

from exportguard.cli import main
from exportguard.guard import bind_table

pytestmark = pytest.mark.real_data

# what a reader of a deliverable must never meet: options, rule IDs, local paths, ingest jargon
INTERNALS = re.compile(r"(?<![\w-])--[a-z]|\bEG0\d\d\b|Guard warning|site-packages|/tmp/|/home/|/work/|data/examples/|file:/|"
                       r"mlperf_summary|mlperf_tree|Source kind|source locator|Audience:|exportguard briefing")


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    folder = tmp_path_factory.mktemp("demo32")
    db = f"sqlite:///{folder / 'store.db'}"
    out = CliRunner().invoke(main, ["--db", db, "demo", "--out", str(folder / "out")], catch_exceptions=False)
    assert out.exit_code == 0, out.output
    return folder / "out"


def _pdf_pages(path: Path) -> list[str]:
    text = subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True).stdout
    return text.split("\f")


def _slide_texts(path: Path) -> list[str]:
    out = []
    for slide in Presentation(path).slides:
        parts = []
        for shape in slide.shapes:
            if shape.has_text_frame:
                parts.append(shape.text_frame.text)
            if shape.has_table:
                parts += [c.text for row in shape.table.rows for c in row.cells]
            if shape.has_chart:
                chart = shape.chart
                parts += [str(c) for c in chart.plots[0].categories]
                if chart.has_title:
                    parts.append(chart.chart_title.text_frame.text)
        out.append("\n".join(parts))
    return out


def test_the_briefing_holds_no_tool_internals_and_dates_its_data_on_page_one(demo):
    pages = _pdf_pages(demo / "briefing.pdf")
    for n, page in enumerate(pages, 1):
        found = INTERNALS.findall(page)
        assert not found, (n, found)
    assert "published by MLCommons on 2025-09-09" in pages[0] and "retrieved 2025-09-09" in pages[0]
    # the running header names the document, not the tool
    assert pages[1].split("\n")[0].strip() == "Briefing: MLPerf® Inference v5.1 LLM results by benchmark"


def test_the_deck_holds_no_tool_internals_and_its_title_slide_dates_its_data(demo):
    slides = _slide_texts(demo / "executive-deck.pptx")
    for n, text in enumerate(slides, 1):
        found = INTERNALS.findall(text)
        assert not found, (n, found)
    assert "published by MLCommons on 2025-09-09" in slides[0] and "executive (demo)" not in slides[0]
    sources = "\n".join(t for t in slides if t.startswith("Sources"))
    assert "https://github.com/mlcommons/inference_results_v5.1/tree/main/closed/" in sources


def test_an_own_run_is_cited_by_tool_file_and_run_date(demo, tmp_path):
    db = f"sqlite:///{demo.parent / 'store.db'}"
    out = CliRunner().invoke(main, ["--db", db, "export", "--non-mlperf",
                                    *(a for ext in ("pptx", "pdf", "xlsx", "csv", "md")
                                      for a in ("--to", str(tmp_path / f"own.{ext}")))])
    assert out.exit_code == 0, out.output
    slides = _slide_texts(tmp_path / "own.pptx")
    pages = _pdf_pages(tmp_path / "own.pdf")
    # the data files too: a CSV's source column names an own run's file by folder and name, never its path
    data = [(tmp_path / f"own.{ext}").read_text(encoding="utf-8-sig") for ext in ("csv", "md")]
    for text in [*slides, *pages, *data]:
        assert not INTERNALS.findall(text), INTERNALS.findall(text)
    assert ",own-traffic/own-traffic-infqps-" in data[0]
    sources = "\n".join(t for t in slides if t.startswith("Sources"))
    assert "vllm bench serve result file own-traffic/own-traffic-infqps" in sources and "run on 2026-12-01" in sources
    test_the_workbook_holds_no_local_path_and_cites_sources_in_readers_words(tmp_path / "x", tmp_path / "own.xlsx")


def test_the_workbook_holds_no_local_path_and_cites_sources_in_readers_words(demo, path=None):
    wb = load_workbook(path or demo / "vendor-comparison.xlsx")
    for ws in wb.worksheets:
        if ws.sheet_state != "visible":
            continue
        for row in ws.iter_rows(values_only=True):
            for v in row:
                if isinstance(v, str):
                    assert not INTERNALS.findall(v), (ws.title, v)


def test_a_column_empty_for_every_row_is_left_out_and_the_note_says_so(v51_store):
    rows = [r for r in v51_store.results(round="v5.1", division="closed", model="llama2-70b", scenario="Offline")
            if r.conditions.benchmark.accuracy_track == "99"]
    slack = v51_store.cohort_slack(rows[0].cohort_key)
    table = bind_table(rows, title="t", slack=slack, limit=8,
                       columns=("rank", "submitter", "system", "accelerators", "availability", "target_qps", "throughput"))
    assert "target_qps" not in [c.key for c in table.columns]
    assert "Target QPS: n/a (Offline) for every row shown" in table.table_note.text
