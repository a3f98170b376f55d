"""A beside section in a deck (issue 20, item 5): an MLPerf cohort's panel and the own runs' panel
side by side on each slide, never one comparison, each table with its own note (its band rule) and
the notes of its marks, marks lettered across both panels; the shape panel that states both shapes
in numbers; notes at 9 pt or more; and decks that check clean, also after LibreOffice saved them.
The data: the real v5.1 summary and every own-traffic file in shared/own-traffic."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from pptx import Presentation

from exportguard.caveat import TRADEMARK_LEGEND
from exportguard.check.engine import check
from exportguard.check.manifests import read_manifest
from exportguard.errors import ExportguardError
from exportguard.manifest import entries as manifest_entries
from exportguard.ingest import ingest_path
from exportguard.render import export
from exportguard.report import BesideSection
from exportguard.spec import build_report, parse_spec
from exportguard.store import open_store
from exportguard.wording import TIE_RULE
from tests.conftest import SHARED, SUMMARY_V51, notes_in
from tests.office import convert

pytestmark = pytest.mark.real_data
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
NOTE_LINE = re.compile(r"^\[([a-z]+)\] ")
MARKS = re.compile(r"\[([a-z]+)\]")
SPEC = """
title = "Where we stand"

[[section]]
kind = "beside"
title = "MLPerf® v5.1 llama2-70b-99 Offline beside our runs"
mlperf = {{ round = "v5.1", division = "closed", model = "llama2-70b", track = "99", scenario = "Offline" }}
own = {{ tool = "vllm bench serve", scenario = "closed loop", model = "mock-llm" }}
{columns}
limit = 4
"""
LEAN = ('columns = ["rank", "submitter", "system", "accelerators", "throughput"]\n'
        'own_columns = ["system", "shape", "throughput"]')


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("beside")
    s = open_store(f"sqlite:///{folder / 'store.db'}")
    ingest_path(s, SUMMARY_V51)
    for path in sorted((SHARED / "own-traffic").rglob("*.json*")):
        ingest_path(s, path)
    yield s
    s.close()


@pytest.fixture(scope="module")
def decks(store, tmp_path_factory):
    """name -> (section, deck): the section's default columns, and the columns an executive would pick."""
    folder = tmp_path_factory.mktemp("beside_decks")
    out = {}
    for name, columns in (("default", ""), ("lean", LEAN)):
        report = build_report(store, parse_spec(SPEC.format(columns=columns)))
        [section] = report.sections
        assert isinstance(section, BesideSection) and len(section.own) == 2
        [path] = export(report, [folder / f"beside-{name}.pptx"])
        out[name] = (section, path)
    return out


def _section_slides(prs, section):
    return [(n, slide) for n, slide in enumerate(prs.slides, 1)
            if slide.shapes.title is not None and slide.shapes.title.text.startswith(section.title)]


def _footer(table) -> list[str]:
    n = len(table.columns)
    return [row.cells[0].text for row in table.rows if n == 1 or row.cells[0]._tc.get("gridSpan") == str(n)]


def _sizes(table, footer: bool) -> set[float]:
    """The run sizes (pt) of the table's body rows (footer False) or of its footer rows."""
    n = len(table.columns)
    out = set()
    for r, row in enumerate(table.rows):
        merged = n == 1 or row.cells[0]._tc.get("gridSpan") == str(n)
        if r == 0 or merged != footer:
            continue
        out |= {int(rpr.get("sz")) / 100 for rpr in row._tr.iter(f"{A}rPr") if rpr.get("sz")}
    return out


def _overlap(a, b) -> bool:
    return a.left < b.left + b.width and b.left < a.left + a.width and a.top < b.top + b.height and \
        b.top < a.top + a.height


def test_two_panels_side_by_side_each_with_its_own_note_band_rule_and_notes(decks):
    for name, (section, path) in decks.items():
        prs = Presentation(path)
        slides = _section_slides(prs, section)
        assert slides, name
        mlperf_rows = own_rows = 0
        shape_panels = 0
        for n, slide in slides:
            tables = [s for s in slide.shapes if s.has_table]
            # where the shape panel fits beside neither panel's last rows, the rows spread over one more
            # slide: no slide of the section holds the shape panel alone
            assert tables, f"{name} slide {n}: no table"
            # the MLPerf panel is the leftmost column of tables; the own panel's stand right of all of it
            # (the planner chooses the split between 40/60 and 60/40)
            first = min(t.left for t in tables)
            left = [t for t in tables if t.left == first]
            right = [t for t in tables if t.left != first]
            edge = max(t.left + t.width for t in left)
            assert all(t.left >= edge for t in right), f"{name} slide {n}: a table across the panels' gap"
            assert 0.4 * prs.slide_width <= (edge + min((t.left for t in right), default=edge)) / 2 <= \
                0.6 * prs.slide_width or not right, f"{name} slide {n}: split outside 40/60..60/40"
            headings = [s.text_frame.text for s in slide.shapes if s.name == "Panel heading"]
            assert headings in ([], ["MLPerf® panel", "Your runs: own measurements, unverified"])
            # headings only where they cost no font size (the planner's choice per deck)
            legend = [s.text_frame.text for s in slide.shapes if s.name == "Legend"]
            assert legend == [TRADEMARK_LEGEND]
            letters_seen: list[str] = []
            for side, group in ((0, left), (1, right)):
                for t in sorted(group, key=lambda t: t.top):
                    footer = _footer(t.table)
                    notes = set(notes_in(footer))
                    if side == 0:
                        assert "MLPerf® Inference: Datacenter v5.1" in footer[0] and "Band ±5.4%" in footer[0]
                        assert TIE_RULE in footer[0] and "Different scales:" in footer[0]  # run on after the note
                    else:
                        assert footer[0].startswith("Own measurement (not an MLPerf® result)")
                        assert "No band (single run)" in footer[0]
                    body = [row for row in list(t.table.rows)[1:] if row.cells[0].text not in footer]
                    for row in body:
                        marks = [m for c in row.cells for m in MARKS.findall(c.text)]
                        assert marks and set(marks) <= notes, (name, n, marks, notes)  # resolved in this table
                        if side:
                            assert "own measurement, unverified" in row.cells[len(t.table.columns) - 1].text
                    letters_seen += sorted(notes)
                    mlperf_rows += len(body) * (side == 0)
                    own_rows += len(body) * side
                    # notes and table text at 9 pt or more (the defaults are lean beside panels now)
                    assert min(_sizes(t.table, footer=True)) >= 9, (name, n)
                    assert min(_sizes(t.table, footer=False)) >= 9, (name, n)
            # lettered across both panels, MLPerf's first: no mark twice on a slide
            assert letters_seen == sorted(letters_seen) and len(set(letters_seen)) == len(letters_seen)
            boxes = [s for s in slide.shapes if s.has_table or s.name in ("Shape panel", "Panel note", "Panel heading",
                                                                             "Legend", "Caveat (one line)")]
            for i, a in enumerate(boxes):
                assert a.top + a.height <= prs.slide_height and a.left + a.width <= prs.slide_width
                for b in boxes[i + 1:]:
                    assert not _overlap(a, b), f"{name} slide {n}: {a.name} overlaps {b.name}"
            shape_panels += sum(s.name == "Shape panel" for s in slide.shapes)
        assert mlperf_rows == len(section.mlperf.rows) and own_rows == sum(len(t.rows) for t in section.own)
        assert shape_panels == 1, name


def test_where_the_columns_are_few_the_columns_asked_for_stay_at_9_pt_or_more(decks):
    """Five columns of MLPerf rows beside three of own runs, both asked for: on as few slides as any
    split of the width gives, each panel keeps the columns asked for (never one combined cell), and
    no table text is under 9 pt."""
    section, path = decks["lean"]
    prs = Presentation(path)
    tables = [t for _, slide in _section_slides(prs, section) for t in slide.shapes if t.has_table]
    assert tables and min(min(_sizes(t.table, footer=False)) for t in tables) >= 9
    wanted = [c.header for c in section.own[0].columns]
    own = [t for t in tables if [c.text for c in t.table.rows[0].cells] == wanted]
    assert len(own) == len(section.own)
    asked = [c.header for c in section.mlperf.columns]
    assert [t for t in tables if [c.text for c in t.table.rows[0].cells] == asked]


def test_columns_asked_for_that_do_not_fit_beside_the_other_panel_are_refused(store, tmp_path):
    """Eight MLPerf columns beside four own ones do not fit at 9 pt on any split of the width: the
    export is refused in one line that names the table and the way out, and writes nothing, rather
    than merge the columns asked for into one "Result" cell."""
    wide = ('columns = ["rank", "submitter", "system", "accelerators", "availability", "result_id", "tokens_per_sample",'
            ' "throughput"]\n'
            'own_columns = ["system", "tool", "shape", "throughput"]')
    report = build_report(store, parse_spec(SPEC.format(columns=wide)))
    with pytest.raises(ExportguardError) as refused:
        export(report, [tmp_path / "wide.pptx"])
    message = str(refused.value)
    assert "\n" not in message and "columns asked for stay columns" in message and "Way out: fewer columns" in message
    assert "panel beside the other at 9 / 9 pt" in message, message
    assert not (tmp_path / "wide.pptx").exists()


def test_the_shape_panel_states_both_shapes_in_numbers(decks):
    for name, (section, path) in decks.items():
        prs = Presentation(path)
        [text] = [s.text_frame.text for _, slide in _section_slides(prs, section) for s in slide.shapes
                  if s.name == "Shape panel"]
        flat = " ".join(text.split())
        assert "272.6 to 302.0 generated tokens per sample" in flat
        assert "mean 250.0 generated" in flat and "mean 4,011.6 generated" in flat
        assert " ".join(section.shape.sentence.split()) in flat
        for row in (section.shape.mlperf, *section.shape.own):
            assert " ".join(row.shape.split()) in flat and " ".join(row.load.split()) in flat


def test_the_manifest_places_every_figure_of_both_panels(decks):
    for name, (section, path) in decks.items():
        manifest = read_manifest(path)
        figures = list(manifest_entries(manifest))  # conditions and cohort key resolved (schema 3)
        assert len(figures) == len(section.mlperf.rows) + sum(len(t.rows) for t in section.own)
        assert {e["cohort_key"]["mlperf"] for e in figures} == {True, False}
        assert any(", table 2, " in e["location"] for e in figures)  # the own table beside the MLPerf one


def test_beside_decks_check_clean_also_after_a_libreoffice_round_trip(decks, tmp_path):
    paths = [path for _, path in decks.values()]
    for r in check(paths):
        assert r.status == "clean", (r.path, [str(h) for h in r.hits[:5]])
        assert r.manifest["digest_ok"] and r.manifest["edited"] == 0
    converted = convert(paths, tmp_path, "pptx")
    for r in check(converted):
        assert r.status == "clean", (r.path, [str(h) for h in r.hits[:5]])
    for src, dst in zip(paths, converted):
        assert len(Presentation(dst).slides) == len(Presentation(src).slides)


def _beside_slides(store, folder: Path) -> list:
    from tests.own_runs import BESIDE

    report = build_report(store, parse_spec(BESIDE))
    [section] = report.sections
    [path] = export(report, [folder / "beside-own-report.pptx"])
    return _section_slides(Presentation(path), section)


def test_the_default_beside_section_takes_two_slides_at_9_pt_notes(store, tmp_path):
    """tests/own_runs.py's BESIDE section (the default, lean columns): two slides (three before the
    row notes left to the cells what they show and ran on in one footer row; four before that for the
    executive's columns), both panels on each, the shape panel on the last."""
    slides = _beside_slides(store, tmp_path)
    assert len(slides) <= 2
    assert sum(any(s.name == "Shape panel" for s in slide.shapes) for _, slide in slides) == 1


# Why not one slide (measured by the planner at 9 pt notes, 16:9, 362 pt of room per panel under the
# headings, beside the legend): the MLPerf panel's four rows need ~70 pt each at half the width (the
# combined "Result" cell of submitter, system and accelerators wraps to four or five lines at 11 pt) and
# its notes ~180 pt; the own panel's two tables ~180 pt each (each run's note is ~420 characters: who,
# when, tool, system, shape, load and latencies, source) and the shape panel ~150 pt. One slide takes about
# two thirds of those words, or 7 pt notes. Strict: it fails once the section fits, so that the marker goes.
@pytest.mark.xfail(strict=True, reason="a stretch beyond issue 20 item 5 (both panels stand on each slide): the default beside section needs two slides at 9 pt notes")
def test_the_default_beside_section_takes_one_slide(store, tmp_path):
    assert len(_beside_slides(store, tmp_path)) == 1


def test_the_default_own_panel_keeps_the_columns_it_shows(decks):
    """The own panel's columns stay columns (at 9 pt or more) where they fit half a slide, rather than
    being combined into one "Result" cell."""
    section, path = decks["default"]
    prs = Presentation(path)
    wanted = [c.header for c in section.own[0].columns]
    own = [t for _, slide in _section_slides(prs, section) for t in slide.shapes
           if t.has_table and t.left > prs.slide_width // 3]
    assert own and all([c.text for c in t.table.rows[0].cells] == wanted for t in own), wanted
