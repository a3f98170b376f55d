"""The deck is planned once, then painted (render/pptx_plan.py, render/pptx.py).

The plan (layout.document.Document) of the small golden report and of the example executive deck,
in text form (Document.text), is pinned by golden files under tests/golden/plan/; the manifest an
exported deck embeds lists exactly the plan's placements, in order; and the painter is faithful: the
deck read back with python-pptx shows every planned figure's text at its planned location (a table
cell, a chart's data label, the headline box). Each comparison is also run against a plan with one
figure's text changed, and must then find the difference: these tests can fail.

When a change to the planner is meant to change the plans, regenerate and review the diff:

    EXPORTGUARD_REGEN_GOLDEN=1 .venv/bin/python -m pytest -q tests/test_layout_plan_pptx.py
    git diff tests/golden/plan/

Under CI=true regeneration is refused (tests/golden_files.py).
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from exportguard.check.manifests import read_manifest
from exportguard.clock import Clock
from exportguard.layout import document as ld
from exportguard.render import export
from exportguard.render.pptx_plan import plan_deck
from exportguard.render.pptx_template import open_template
from exportguard.spec import build_report, load_spec, parse_spec
from tests.conftest import REPO
from tests.golden_files import EPOCH, SMALL_SPEC, assert_golden

pytestmark = pytest.mark.real_data
GOLDEN = Path(__file__).resolve().parent / "golden" / "plan"
REPORTS = ("small", "executive-deck")


def _dated(report):
    """The report as an export at EPOCH renders it (render.export dates an undated report)."""
    return report if report.generated_on else dataclasses.replace(report, generated_on=Clock.from_epoch(EPOCH).date())


@pytest.fixture(scope="module")
def reports(fixed_store):
    return {"small": _dated(build_report(fixed_store, parse_spec(SMALL_SPEC, name="golden.toml"))),
            "executive-deck": _dated(build_report(fixed_store, load_spec(REPO / "examples" / "executive-deck.toml")))}


@pytest.fixture(scope="module")
def plans(reports):
    return {name: plan_deck(report, open_template()) for name, report in reports.items()}


@pytest.fixture(scope="module")
def decks(reports, tmp_path_factory):
    folder = tmp_path_factory.mktemp("planned_decks")
    return {name: export(report, [folder / f"{name}.pptx"], clock=Clock.from_epoch(EPOCH))[0]
            for name, report in reports.items()}


def _plan_text(document: ld.Document) -> str:
    """Document.text() with the data folder named <shared>: a CI clone keeps it elsewhere."""
    from tests.conftest import SHARED

    text = document.text()
    for root in sorted({str(SHARED), str(SHARED.resolve())}, key=len, reverse=True):
        text = text.replace(root, "<shared>")
    return text


def _tampered(document: ld.Document) -> ld.Document:
    """The plan with its first figure's shown text changed: what a broken planner or painter would give."""
    for u, unit in enumerate(document.units):
        for b, block in enumerate(unit.blocks):
            if isinstance(block, ld.KpiBlock):
                new = dataclasses.replace(block, cell=dataclasses.replace(block.cell, shown_text=block.cell.shown_text + "0"))
            elif isinstance(block, ld.TableBlock) and any(block.cells()):
                r, c = next((r, c) for r, row in enumerate(block.rows) for c, cell in enumerate(row)
                            if isinstance(cell, ld.BoundCell))
                cell = block.rows[r][c]
                row = block.rows[r][:c] + (dataclasses.replace(cell, shown_text=cell.shown_text + "0"),) + block.rows[r][c + 1:]
                new = dataclasses.replace(block, rows=block.rows[:r] + (row,) + block.rows[r + 1:])
            else:
                continue
            unit = dataclasses.replace(unit, blocks=unit.blocks[:b] + (new,) + unit.blocks[b + 1:])
            return dataclasses.replace(document, units=document.units[:u] + (unit,) + document.units[u + 1:])
    raise AssertionError("the plan places no figure")


@pytest.mark.parametrize("name", REPORTS)
def test_golden_plan_text(name, plans, request):
    assert_golden(_plan_text(plans[name]), GOLDEN / f"{name}.pptx.txt", request, f"the plan of {name}", measured=True)


def _placements(document: ld.Document) -> list[tuple[str, str, list[str], list[str]]]:
    return [(c.location, c.shown_text, list(c.letters), list(c.notes)) for c in document.placements()]


def _manifest_placements(deck: Path) -> list[tuple[str, str, list[str], list[str]]]:
    """(location, shown text, letters, the notes they resolve to) of every figure the deck's manifest records."""
    return [(e["location"], e["shown"]["text"], e["marks"], e["notes"]) for e in read_manifest(deck)["figures"]]


@pytest.mark.parametrize("name", REPORTS)
def test_the_manifest_lists_exactly_the_plans_placements(name, plans, decks):
    planned, recorded = _placements(plans[name]), _manifest_placements(decks[name])
    assert planned, "the plan places no figure"
    assert recorded == planned
    assert _manifest_placements(decks[name]) != _placements(_tampered(plans[name]))


def _shown_at(prs, where: ld.Location) -> str | None:
    """What the deck shows at a figure's location, read back with python-pptx (None: nothing there)."""
    slide = prs.slides[where.number - 1]
    if where.block == "headline":
        box = next((s for s in slide.shapes if s.name == "Headline"), None)
        return None if box is None else box.text_frame.paragraphs[0].text
    kind = "has_table" if where.block == "table" else "has_chart"
    frames = [s for s in slide.shapes if getattr(s, kind, False)]
    if len(frames) < where.index:
        return None
    if where.block == "table":
        table = frames[where.index - 1].table
        return table.cell(where.row - 1, where.column - 1).text
    points = frames[where.index - 1].chart.plots[0].series[0].points
    label = points[where.point - 1].data_label
    return label.text_frame.text if label.has_text_frame else None


def _unfaithful(document: ld.Document, deck: Path) -> list[str]:
    from pptx import Presentation

    prs = Presentation(str(deck))
    assert len(prs.slides) == len(document.units)
    return [f"{cell.location}: planned {cell.shown_text!r}, shown {shown!r}" for cell in document.placements()
            if (shown := _shown_at(prs, cell.where)) != cell.shown_text]


@pytest.mark.parametrize("name", REPORTS)
def test_painting_is_faithful(name, plans, decks):
    """Every planned figure stands in the deck at its location with its planned text; the slides'
    titles are the planned ones."""
    from pptx import Presentation

    plan = plans[name]
    kinds = {c.where.block for c in plan.placements()}
    assert kinds == {"table", "chart", "headline"}, kinds  # both reports exercise every kind of location
    assert _unfaithful(plan, decks[name]) == []
    assert len(_unfaithful(_tampered(plan), decks[name])) == 1
    prs = Presentation(str(decks[name]))
    for unit, slide in zip(plan.units, prs.slides):
        if unit.title_pt:
            assert slide.shapes.title.text_frame.text == unit.title


def test_a_machine_without_the_golden_fonts_is_told_to_install_them_not_to_regenerate(monkeypatch, request):
    """Asserts: where the theme font is not installed (measured with average widths), the golden tests
    fail on the fonts, naming those to install, before any golden text is compared."""
    from exportguard.render import pptx_layout
    from tests.golden_files import assert_fonts

    monkeypatch.delenv("EXPORTGUARD_REGEN_GOLDEN", raising=False)
    monkeypatch.setattr(pptx_layout, "font_file", lambda family, bold=False: None)
    with pytest.raises(AssertionError, match=r"(?s)deck: Carlito-Regular.*deck: average widths.*fonts-crosextra-carlito"):
        assert_fonts(request)
