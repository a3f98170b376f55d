"""EG027: a figure written with characters a reader does not see (zero-width characters, a soft
hyphen, a byte order mark) or after a bidi override that reorders it on screen. The checker reads the
figure as a reader sees it, so a bare figure split by a zero-width joiner is still found bare."""
from __future__ import annotations

import pytest

from exportguard.caveat import TRADEMARK_LEGEND
from exportguard.check.engine import check
from tests.documents import NOTE

pytestmark = pytest.mark.quick

BOUND = "101,527 tok/s ±5.4% [a]"


def _markdown(tmp_path, *lines: str):
    path = tmp_path / "brief.md"
    path.write_text("\n\n".join([*lines, NOTE, TRADEMARK_LEGEND]) + "\n", encoding="utf-8")
    return check([path], isolate=False)[0]


def _rules(report) -> list[tuple[str, str]]:
    return [(h.rule_id, h.location) for h in report.hits]


def test_a_bare_figure_split_by_a_zero_width_joiner_is_found_bare_and_named(tmp_path):
    r = _markdown(tmp_path, f"Vendor X: {BOUND}.", "Vendor Y reaches 99\u200d,000 tok/s on our cluster.")
    assert _rules(r) == [("EG027", "line 3"), ("EG001", "line 3")]
    hidden, bare = r.hits
    assert "'99,000 tok/s' holds U+200D ZERO WIDTH JOINER" in hidden.message
    assert bare.message.startswith("'99,000 tok/s' is a throughput figure with no band")


@pytest.mark.parametrize("hidden,named", [
    ("\u200b", "U+200B ZERO WIDTH SPACE"), ("\u00ad", "U+00AD SOFT HYPHEN"), ("\ufeff", "U+FEFF ZERO WIDTH NO-BREAK SPACE"),
    ("\u2060", "U+2060 WORD JOINER")])
def test_a_bound_figure_holding_a_character_that_shows_nothing_is_reported(tmp_path, hidden, named):
    r = _markdown(tmp_path, f"Vendor X: 101,5{hidden}27 tok/s ±5.4% [a].")
    assert _rules(r) == [("EG027", "line 1")]
    assert f"'101,527 tok/s ±5.4% [a]' holds {named}" in r.hits[0].message


def test_an_override_before_a_figure_reorders_it_on_screen(tmp_path):
    r = _markdown(tmp_path, f"Vendor X: \u202e{BOUND}\u202c.", f"Vendor Z: \u2067reordered\u2069 then {BOUND}.")
    assert _rules(r) == [("EG027", "line 1"), ("EG027", "line 3")]
    assert "stands after U+202E RIGHT-TO-LEFT OVERRIDE, which reorders it on screen" in r.hits[0].message
    assert "U+2067 RIGHT-TO-LEFT ISOLATE" in r.hits[1].message


def test_marks_around_names_that_leave_the_figure_alone_are_no_finding(tmp_path):
    """A right-to-left name closed with a left-to-right mark (as a deck writes it), a soft hyphen in a
    word: nothing hidden in or before a figure."""
    r = _markdown(tmp_path, f"\u05d0\u05d1\u05d2\u200e: {BOUND}.", f"Through\u00adput of Vendor X: {BOUND}.")
    assert r.hits == []


def test_a_workbook_cell_and_a_deck_text_with_a_hidden_character_are_reported(tmp_path):
    import openpyxl
    from pptx import Presentation
    from pptx.util import Inches

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["System", "Throughput"])
    ws.append(["Vendor X", "1\u200b01,527 tok/s ±5.4% [a]"])
    ws.append([NOTE])
    ws.append([TRADEMARK_LEGEND])
    wb.save(tmp_path / "w.xlsx")
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    for n, text in enumerate([f"Vendor X: 101,527\u2060 tok/s ±5.4% [a]", NOTE, TRADEMARK_LEGEND]):
        slide.shapes.add_textbox(Inches(0.5), Inches(0.5 + 1.5 * n), Inches(9), Inches(1)).text_frame.text = text
    prs.save(tmp_path / "d.pptx")
    deck, workbook = check([tmp_path / "d.pptx", tmp_path / "w.xlsx"], isolate=False)
    assert [h.rule_id for h in deck.hits] == ["EG027"] and [h.rule_id for h in workbook.hits] == ["EG027"]
    assert workbook.hits[0].location == "Sheet 'Sheet'!B2" and "U+200B" in workbook.hits[0].message
