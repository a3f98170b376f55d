"""The manifest comparison plugs a format in by its location syntax. exportguard has no PPTX or PDF
exporter on this branch yet, so these tests write the manifest entries such an exporter would write
(docs/manifest.md) beside decks and PDFs built with python-pptx and reportlab, and compare."""
from __future__ import annotations

from pathlib import Path

import pytest

from exportguard.caveat import SHORT, TRADEMARK_LEGEND
from exportguard.check import engine
from exportguard.check.evaluate import Evaluator
from exportguard.check.tamper import ManifestCheck, syntax_of
from exportguard.manifest import shown_digest
from tests.documents import NOTE, pdf_paragraphs

pytestmark = pytest.mark.quick
NOTE_TEXT = NOTE[len("[a] "):]


def entry(location: str, text: str, value=None) -> dict:
    return {"location": location, "shown": {"text": text, "value": value}, "shown_sha256": shown_digest(text, value),
            "text": text, "marks": ["a"], "notes": [NOTE_TEXT]}


def compare(path: Path, fmt: str, figures: list[dict]) -> list:
    ev = Evaluator(ManifestCheck({"caveat_short": SHORT, "figures": figures}, fmt))
    engine.read(path, fmt, ev)
    return ev.finish()


def deck(path: Path, figure: str, note: str = NOTE) -> Path:
    from pptx import Presentation
    from pptx.util import Inches

    prs = Presentation()
    s = prs.slides.add_slide(prs.slide_layouts[5])
    s.shapes.title.text = "llama2-70b-99 Offline"
    t = s.shapes.add_table(3, 2, Inches(0.5), Inches(1.5), Inches(9), Inches(3)).table
    t.cell(0, 0).text, t.cell(0, 1).text = "System", "Throughput"
    t.cell(1, 0).text, t.cell(1, 1).text = "Vendor X", figure
    footer = t.cell(2, 0)
    footer.merge(t.cell(2, 1))
    footer.text = note
    box = s.shapes.add_textbox(Inches(0.5), Inches(5), Inches(9), Inches(1)).text_frame
    box.text = SHORT
    box.add_paragraph().text = TRADEMARK_LEGEND
    prs.save(path)
    return path


def test_pptx_table_cells_compare_at_their_exact_location(tmp_path):
    manifest = [entry("slide 1, table 1, row 2, column 2", "101,527 tok/s ±5.4% [a]")]
    assert compare(deck(tmp_path / "ok.pptx", "101,527 tok/s ±5.4% [a]"), "pptx", manifest) == []
    hits = compare(deck(tmp_path / "edited.pptx", "111,527 tok/s ±5.4% [a]"), "pptx", manifest)
    assert [(h.rule_id, h.location, h.message) for h in hits] == [
        ("EG017", "slide 1, table 1, row 2, column 2", "exported 101,527, now 111,527 (the text reads "
                                                       "'111,527 tok/s ±5.4% [a]')")]
    hits = compare(deck(tmp_path / "stripped.pptx", "101,527 tok/s", note="[a] see appendix"), "pptx", manifest)
    assert [h.rule_id for h in hits] == ["EG001", "EG018", "EG018"]
    assert "(band ±5.4%, mark [a] removed)" in hits[1].message
    assert hits[2].location == "slide 1" and "note [a] of slide 1, table 1, row 2, column 2 no longer stands on slide 1" \
        in hits[2].message


def test_pdf_locations_the_reader_cannot_address_compare_on_their_page(tmp_path):
    """A PDF has no table cells to read back: a figure is looked for by its exported text on its page."""
    manifest = [entry("page 1, table 1, row 2, column 3", "101,527 tok/s ±5.4% [a]")]
    ok = pdf_paragraphs(tmp_path / "ok.pdf", [["Vendor X 101,527 tok/s ±5.4% [a]", NOTE, SHORT, TRADEMARK_LEGEND]])
    assert compare(ok, "pdf", manifest) == []
    edited = pdf_paragraphs(tmp_path / "edited.pdf", [["Vendor X 111,527 tok/s ±5.4% [a]", NOTE, SHORT,
                                                       TRADEMARK_LEGEND]])
    hits = compare(edited, "pdf", manifest)
    assert [(h.rule_id, h.location) for h in hits] == [("EG017", "page 1, table 1, row 2, column 3"),
                                                       ("EG019", "page 1, line 1")]
    assert "now nothing at this location" in hits[0].message
    assert "'111,527 tok/s ±5.4% [a]' is not in the artifact's manifest" in hits[1].message
    moved = pdf_paragraphs(tmp_path / "moved.pdf", [[SHORT], ["Vendor X 101,527 tok/s ±5.4% [a]", NOTE, SHORT,
                                                              TRADEMARK_LEGEND]])
    hits = compare(moved, "pdf", manifest)  # now on page 2: its page lost it (and its note and caveat stand on page 2)
    assert [h.rule_id for h in hits][:2] == ["EG017", "EG018"]


def test_every_format_names_its_scopes():
    assert syntax_of("xlsx").scope_of("'llama2-70b-99 Offline'!K5") == "Sheet 'llama2-70b-99 Offline'"
    assert syntax_of("xlsx").scope_of("'it''s'!A1") == "Sheet 'it's'"
    assert syntax_of("xlsx").where("'S'!A1") == "Sheet 'S'!A1"
    assert syntax_of("pptx").scope_of("slide 3, table 1, row 4, column 6") == "slide 3"
    assert syntax_of("pdf").scope_of("page 2, table 1, row 4, column 6") == "page 2"
    assert syntax_of("csv").scope_of("row 7, column 3") == syntax_of("markdown").scope_of("section 1, headline") == "document"
