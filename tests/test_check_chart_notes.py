"""A chart's marks resolve only to notes a reader of its slide sees (EG025): the notes block inside
the chart's embedded workbook (shown only by Edit Data) does not count. Tested on an exportguard
deck, clean and with the chart slide's visible notes removed from its XML."""
from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest

from exportguard.check.engine import check
from exportguard.check.manifests import read_manifest
from exportguard.clock import Clock
from exportguard.render import export
from exportguard.spec import build_report, load_spec

pytestmark = pytest.mark.real_data
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.fixture(scope="module")
def deck(v51_store, tmp_path_factory) -> Path:
    report = build_report(v51_store, load_spec(EXAMPLES / "executive-deck.toml"))
    [path] = export(report, [tmp_path_factory.mktemp("chart_notes") / "deck.pptx"], clock=Clock.from_epoch(1757376000))
    return path


def _chart_slide(z: zipfile.ZipFile) -> str:
    """The first slide that holds a chart and a shape named 'Notes' (the chart's visible notes)."""
    for name in sorted((n for n in z.namelist() if re.fullmatch(r"ppt/slides/slide\d+\.xml", n)),
                       key=lambda n: int(re.search(r"\d+", n).group())):
        xml = z.read(name).decode("utf-8")
        if "graphicData uri=\"http://schemas.openxmlformats.org/drawingml/2006/chart\"" in xml and 'name="Notes"' in xml:
            return name
    raise AssertionError("no chart slide with a Notes shape in the exported deck")


def _without_visible_notes(deck: Path, out: Path) -> tuple[Path, int]:
    """The deck with the chart slide's notes boxes ('Notes', 'Notes 2') cut out of the slide XML (its embedded
    workbook, with the same notes below the data, untouched)."""
    with zipfile.ZipFile(deck) as src:
        slide = _chart_slide(src)
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
            for info in src.infolist():
                blob = src.read(info)
                if info.filename == slide:
                    xml = blob.decode("utf-8")
                    shapes = re.findall(r"<p:sp>(?:(?!</p:sp>).)*</p:sp>", xml, re.S)
                    notes = [s for s in shapes if re.search(r'name="Notes( \d+)?"', s)]
                    assert notes
                    for shape in notes:
                        xml = xml.replace(shape, "")
                    blob = xml.encode("utf-8")
                dst.writestr(info, blob)
    return out, int(re.search(r"\d+", slide.rsplit("/", 1)[1]).group())


def test_a_clean_deck_with_a_chart_checks_clean(deck):
    (r,) = check([deck])
    assert r.status == "clean", [str(h) for h in r.hits[:5]]
    assert not [h for h in r.hits if h.rule_id == "EG025"]


def test_a_chart_whose_visible_notes_were_removed_is_reported(deck, tmp_path):
    edited, n = _without_visible_notes(deck, tmp_path / "no-notes.pptx")
    with zipfile.ZipFile(edited) as z:  # the chart's workbook still carries the notes block
        assert any(n_.startswith("ppt/embeddings/") for n_ in z.namelist())
    (r,) = check([edited])
    unseen = [h for h in r.hits if h.rule_id == "EG025"]
    assert unseen, [str(h) for h in r.hits[:8]]
    assert all(h.location.startswith(f"slide {n}, ") for h in unseen)
    assert "embedded workbook" in unseen[0].message and f"slide {n}, chart 1 data" in unseen[0].message
    # every bar's data label on that slide is reported (and its alt text, which repeats them), and the
    # manifest comparison says the notes went too
    points = {e["location"] for e in read_manifest(deck)["figures"] if e["location"].startswith(f"slide {n}, chart 1, point")}
    reported = {h.location.split(" (")[0] for h in unseen if ", chart 1, point" in h.location}
    assert points and reported == points
    assert any(h.rule_id == "EG018" for h in r.hits)


def test_figures_inside_the_chart_workbook_still_resolve_to_its_own_notes(deck, tmp_path):
    """The workbook's own figure cells (Edit Data) resolve to the notes below them: no EG025 there."""
    edited, n = _without_visible_notes(deck, tmp_path / "no-notes.pptx")
    (r,) = check([edited])
    assert not [h for h in r.hits if h.location.startswith(f"slide {n}, chart 1 data")]
