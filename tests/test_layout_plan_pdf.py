"""The PDF briefing is planned, then painted (render/pdf.py, render/pdf_plan.py): its pages become
one frozen layout.document.Document before anything is drawn, the manifest is built from that plan,
and the painter draws every figure's text from it.

Golden files pin the plan's text form (``Document.text()``) for the small report of
tests/golden_files.py and the example executive deck, on A4, at a fixed clock and retrieval
date: tests/golden/plan/small.pdf.txt and executive-deck.pdf.txt. When a change to the PDF layout is
meant to change them, regenerate and review the diff:

    EXPORTGUARD_REGEN_GOLDEN=1 .venv/bin/python -m pytest -q tests/test_layout_plan_pdf.py
    git diff tests/golden/plan/

Under CI=true regeneration is refused, so a golden test can only pass by matching.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from exportguard.check.manifests import read_manifest
from exportguard.clock import Clock
from exportguard.layout.document import BoundCell, ChartBlock, KpiBlock, TableBlock, TextBlock
from exportguard.render import pdf, pdf_planner
from exportguard.layout.pager import LayoutError
from exportguard.spec import build_report, load_spec, parse_spec
from tests.conftest import REPO
from tests.golden_files import EPOCH, SMALL_SPEC, assert_golden
from tests.pdf_pages import pages_raw, pages_text, squash

pytestmark = pytest.mark.real_data
GOLDEN = Path(__file__).resolve().parent / "golden" / "plan"


def _render(report, path):
    return pdf.render_document(report, path, page_size="a4", clock=Clock.from_epoch(EPOCH))


@pytest.fixture(scope="module")
def planned(fixed_store, tmp_path_factory):
    """The small report and the executive deck, rendered on A4: name -> (path, Rendered)."""
    folder = tmp_path_factory.mktemp("plan_pdf")
    reports = {"small": build_report(fixed_store, parse_spec(SMALL_SPEC, name="golden.toml")),
               "executive-deck": build_report(fixed_store, load_spec(REPO / "examples" / "executive-deck.toml"))}
    return {name: (folder / f"{name}.pdf", _render(report, folder / f"{name}.pdf")) for name, report in reports.items()}


def _plan_text(document) -> str:
    """The plan's text form, with the data folder (the sources name the files each result was read
    from, which sit elsewhere on another machine) named <shared>."""
    from tests.conftest import SHARED

    text = document.text()
    for root in sorted({str(SHARED), str(SHARED.resolve())}, key=len, reverse=True):
        text = text.replace(root, "<shared>")
    return text


@pytest.mark.parametrize("name", ["small", "executive-deck"])
def test_golden_plan_of_the_briefing(name, planned, request):
    """Asserts: the plan's text form (every page, its blocks with their frames and type sizes, every
    figure's shown text and location, every page's notes with their marks) is the golden one."""
    _, done = planned[name]
    text = _plan_text(done.document)
    assert "/work/" not in text and str(REPO) not in text  # no machine's path in a golden file
    assert_golden(text, GOLDEN / f"{name}.pdf.txt", request, f"the plan of {name}.pdf", measured=True)


@pytest.mark.parametrize("name", ["small", "executive-deck"])
def test_the_attached_manifest_lists_exactly_the_plans_placements_in_order(name, planned):
    """Asserts: the manifest attached to the PDF has one entry per BoundCell of the plan, in the plan's
    reading order, each with the plan's location, shown text, marks and notes; and the plan holds
    every kind of figure block the report has."""
    path, done = planned[name]
    cells = list(done.document.placements())
    assert cells and done.manifest == read_manifest(path)
    got = [(e["location"], e["shown"]["text"], e["text"], tuple(e["marks"]), tuple(e["notes"]))
           for e in done.manifest["figures"]]
    want = [(c.location, c.shown_text, c.shown_text, c.letters, c.notes) for c in cells]
    assert got == want
    kinds = {type(b) for u in done.document.units for b in u.blocks}
    assert {TableBlock, TextBlock} <= kinds
    if name == "small":
        assert {KpiBlock, ChartBlock} <= kinds


@pytest.mark.parametrize("name", ["small", "executive-deck"])
def test_painting_is_faithful_to_the_plan(name, planned):
    """Asserts: every figure's planned text is on one line of its own page of the PDF, every note of a
    page's planned notes block is in that page's text with its mark, and the PDF has the plan's pages."""
    from exportguard.render.pdf_text import clean

    path, done = planned[name]
    pages, raw = pages_text(path), pages_raw(path)
    assert len(pages) == len(done.document.units)
    for unit in done.document.units:
        lines = pages[unit.number - 1].splitlines()
        for cell in unit.cells():
            assert any(cell.shown_text in line for line in lines), f"page {unit.number}: {cell.shown_text!r}"
        for block in unit.blocks:
            if isinstance(block, TextBlock) and block.name == "Notes":
                for para in block.paras:
                    assert squash(f"[{para.mark}]{clean(para.text, 2000)}") in squash(raw[unit.number - 1])


def _tampered(monkeypatch, change, kinds=(TableBlock, ChartBlock, KpiBlock)):
    """Make BriefingPlanner._plan return its plan with ``change`` applied to each BoundCell of the blocks
    of these kinds."""
    real = pdf_planner.BriefingPlanner._plan

    def plan(self):
        done = real(self)
        units = []
        for unit in done.units:
            blocks = []
            for block in unit.blocks:
                if not isinstance(block, kinds):
                    pass
                elif isinstance(block, TableBlock):
                    block = dataclasses.replace(block, rows=tuple(tuple(change(c) if isinstance(c, BoundCell) else c
                                                                        for c in row) for row in block.rows))
                elif isinstance(block, ChartBlock):
                    block = dataclasses.replace(block, bars=tuple(dataclasses.replace(b, cell=change(b.cell))
                                                                  if isinstance(b.cell, BoundCell) else b
                                                                  for b in block.bars))
                elif isinstance(block, KpiBlock):
                    block = dataclasses.replace(block, cell=change(block.cell))
                blocks.append(block)
            units.append(dataclasses.replace(unit, blocks=tuple(blocks)))
        # the painter draws from the blocks it is handed, and from nothing else
        return dataclasses.replace(done, units=tuple(units))

    monkeypatch.setattr(pdf_planner.BriefingPlanner, "_plan", plan)


def test_the_painter_draws_the_figures_texts_the_plan_holds(fixed_store, tmp_path, monkeypatch):
    """Asserts: a figure's text changed in the plan (and so in the manifest built from it) is what
    the PDF shows, at every kind of block: the painter letters nothing itself."""
    report = build_report(fixed_store, parse_spec(SMALL_SPEC, name="golden.toml"))
    _tampered(monkeypatch, lambda c: dataclasses.replace(c, shown_text=f"PLANNED {c.shown_text}"))
    path = tmp_path / "tampered.pdf"
    done = _render(report, path)
    raw = pages_raw(path)  # in drawing order: a text too wide for its column overlaps its neighbour's
    for unit in done.document.units:
        for cell in unit.cells():
            assert cell.shown_text.startswith("PLANNED ")
            assert squash(cell.shown_text) in squash(raw[unit.number - 1]), cell.location
    assert all(e["shown"]["text"].startswith("PLANNED ") for e in read_manifest(path)["figures"])


def test_a_figure_the_plan_does_not_hold_is_an_error_not_a_guess(fixed_store, tmp_path, monkeypatch):
    """Asserts: where the plan holds plain text at a figure's place, the painter refuses (LayoutError)
    and writes no file, rather than drawing a figure the manifest does not list."""
    report = build_report(fixed_store, parse_spec(SMALL_SPEC, name="golden.toml"))
    _tampered(monkeypatch, lambda c: c.shown_text, kinds=(TableBlock,))
    path = tmp_path / "broken.pdf"
    with pytest.raises(LayoutError, match="a figure the plan does not hold"):
        _render(report, path)
    assert not path.exists()
