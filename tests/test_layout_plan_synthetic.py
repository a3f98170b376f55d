"""The paged formats' plans of a small synthetic report (tests/synthetic.py: every section kind, from
a CSV of a few rows), measured with fixed widths: golden files that need neither the real corpus nor
the machine's fonts, in the quick run (issue 33 item 5). tests/test_layout_plan_pdf.py and
test_layout_plan_pptx.py pin the plans of real reports measured with the real fonts.

When a change to a planner is meant, regenerate and review the difference:

    EXPORTGUARD_REGEN_GOLDEN=1 python -m pytest tests/test_layout_plan_synthetic.py
    git diff tests/golden/plan/synthetic.*
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from exportguard.layout.document import ChartBlock, KpiBlock, TableBlock, TextBlock
from exportguard.render.pdf_planner import lean_where_denser, plan_briefing
from exportguard.render.pptx_plan import plan_deck
from exportguard.render.pptx_template import open_template
from tests.golden_files import assert_golden
from tests.synthetic import stub_metrics, synthetic_report

pytestmark = pytest.mark.quick

GOLDEN = Path(__file__).resolve().parent / "golden" / "plan"


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    return dataclasses.replace(synthetic_report(tmp_path_factory.mktemp("synthetic")), generated_on="2025-09-09")


def test_the_deck_plan_of_every_section_kind(report, monkeypatch, request):
    stub_metrics(monkeypatch)
    document = plan_deck(report, open_template())
    kinds = {type(b) for u in document.units for b in u.blocks}
    assert {TableBlock, ChartBlock, KpiBlock, TextBlock} <= kinds
    assert_golden(document.text(), GOLDEN / "synthetic.pptx.txt", request, "the synthetic deck's plan")


@pytest.mark.parametrize("size", ["a4", "letter"])
def test_the_briefing_plan_of_every_section_kind(report, monkeypatch, request, size):
    stub_metrics(monkeypatch)
    document = plan_briefing(lean_where_denser(report, size), size).plan
    kinds = {type(b) for u in document.units for b in u.blocks}
    assert {TableBlock, ChartBlock, KpiBlock, TextBlock} <= kinds
    assert_golden(document.text(), GOLDEN / f"synthetic.{size}.pdf.txt", request, f"the synthetic briefing's plan ({size})")


def test_the_stub_metrics_make_the_plan_independent_of_the_fonts(report, monkeypatch):
    """Asserts: with the stub, a plan is the same whatever fonts the deck's theme would find."""
    from exportguard.render import pptx_layout

    stub_metrics(monkeypatch)
    first = plan_deck(report, open_template()).text()
    monkeypatch.setattr(pptx_layout, "font_file", lambda family, bold=False: "/no/such/font.ttf")
    stub_metrics(monkeypatch)  # the stub wins over whatever a machine has
    assert plan_deck(report, open_template()).text() == first
