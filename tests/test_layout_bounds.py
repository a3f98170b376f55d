"""layout/bounds.py reads a plan's breaches off the plan: a block outside its unit, blocks on top
of each other, a table taller or wider than its frame, text or notes under the floor. Each case
is a plan that breaks one bound, beside the same plan within it."""
from __future__ import annotations

import dataclasses

import pytest

from exportguard.layout.bounds import Floors, problems
from exportguard.layout.document import Document, Frame, Para, TableBlock, TextBlock, Unit

FLOORS = Floors(text=11, notes=9, labels=10)


def _table(**kw) -> TableBlock:
    base = dict(name="Table 1", frame=Frame(36, 90, 600, 120), headers=("Rank", "Throughput"),
                rows=(("1", "101,527 tok/s ±5.4% [a]"), ("2", "98,000 tok/s ±5.4% [b]")), widths=(100, 500),
                header_h=20, row_heights=(20, 20), footer=(Para("Table note.", 9), Para("[a] One. [b] Two.", 9)),
                footer_heights=(30, 30), body_pt=11, note_pt=9, figure_columns=(1,), first=0, of=2)
    base.update(kw)
    return TableBlock(**base)


def _doc(*blocks) -> Document:
    return Document("pptx", 960, 540, (Unit("slide", 2, "Top 2", tuple(blocks)),))


def test_a_plan_within_its_bounds_has_no_problems():
    assert problems(_doc(_table(), TextBlock("Notes", Frame(36, 220, 600, 60), (Para("[a] x", 9),))), FLOORS) == []


@pytest.mark.parametrize("change, words", [
    (dict(frame=Frame(36, 450, 600, 120)), "overflows the slide"),
    (dict(frame=Frame(400, 90, 600, 120)), "overflows the slide"),
    (dict(row_heights=(40, 40)), "needs 160.0 pt"),
    (dict(widths=(100, 520)), "620.0 pt wide"),
    (dict(body_pt=9), "text at 9 pt, under 11"),
    (dict(note_pt=8), "notes at 8 pt, under 9"),
])
def test_each_breach_is_named(change, words):
    found = problems(_doc(_table(**change)), FLOORS)
    assert len(found) == 1 and words in found[0] and found[0].startswith("slide 2 (Top 2): table 'Table 1'"), found


def test_blocks_on_top_of_each_other_are_named():
    notes = TextBlock("Notes", Frame(36, 200, 600, 60), (Para("[a] x", 9),))
    [found] = problems(_doc(_table(), notes), FLOORS)
    assert "overlap" in found and "'Notes'" in found
    # touching edges are not an overlap
    assert problems(_doc(_table(), dataclasses.replace(notes, frame=Frame(36, 210, 600, 60))), FLOORS) == []


def test_small_notes_in_a_notes_box_are_named_and_prose_is_not_held_to_the_notes_floor():
    small = (Para("[a] x", 8.5),)
    assert problems(_doc(TextBlock("Notes", Frame(36, 90, 600, 60), small)), FLOORS) == \
        ["slide 2 (Top 2): text 'Notes' notes at 8.5 pt, under 9"]
    assert problems(_doc(TextBlock("Caveat (one line)", Frame(36, 90, 600, 60), small)), FLOORS) == []


# -- the real plans: every slide and page of the example specs and of a split export of v5.1 closed --

REAL = ("executive-deck", "briefing")


def _real_reports(store):
    from pathlib import Path

    from exportguard.spec import build_report, load_spec, spec_from_filters

    examples = Path(__file__).resolve().parents[1] / "examples"
    out = {name: build_report(store, load_spec(examples / f"{name}.toml")) for name in REAL}
    out["v5.1 closed, split"] = build_report(store, spec_from_filters({"round": ("v5.1",), "division": ("closed",)},
                                                                      split_by_cohort=True))
    return out


@pytest.mark.real_data
def test_no_slide_of_a_real_deck_breaks_its_bounds_or_goes_under_11_and_9_pt(v51_store):
    from exportguard.render.pptx_plan import plan_deck
    from exportguard.render.pptx_template import open_template

    template = open_template(None)
    for name, report in _real_reports(v51_store).items():
        deck = plan_deck(report, template)
        assert problems(deck, FLOORS) == [], name


@pytest.mark.real_data
@pytest.mark.parametrize("size", ["a4", "letter"])
def test_no_page_of_a_real_briefing_breaks_its_bounds_or_goes_under_8_5_and_8_pt(v51_store, tmp_path, size):
    from exportguard.render import pdf

    for name, report in _real_reports(v51_store).items():
        plan = pdf.render_document(report, tmp_path / "x.pdf", page_size=size).document
        assert problems(plan, Floors(text=8.5, notes=8.0)) == [], name
