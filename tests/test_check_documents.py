"""exportguard check on documents made the way a person makes them (python-pptx, openpyxl,
reportlab, a text editor): bare figures are flagged with the right rule and a location a person
can find; bound and cited figures pass; documents with other numbers only are clean."""
from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from exportguard.caveat import TRADEMARK_LEGEND
from exportguard.check.engine import check, exit_code
from tests.documents import (BOUND, NOTE, pdf_paragraphs, pptx_bound, pptx_other_numbers, pptx_person,
                             xlsx_bound, xlsx_other_numbers, xlsx_person)

pytestmark = pytest.mark.quick


def run(*paths) -> dict:
    """The checker in this process (no worker), findings by file name."""
    reports = check(paths, isolate=False)
    return {Path(r.path).name: r for r in reports}


def where(report, rule: str) -> list[str]:
    return [h.location for h in report.hits if h.rule_id == rule]


# -- person-made documents: flagged with the right rule and location ----------------------------------

@pytest.fixture(scope="module")
def person_docs(tmp_path_factory):
    d = tmp_path_factory.mktemp("person")
    pptx_person(d / "deck.pptx")
    xlsx_person(d / "sheet.xlsx")
    pdf_paragraphs(d / "brief.pdf", [["Our tests: Vendor X reached 101,527 tokens per second on llama2-70b, ahead of "
                                      "everyone, as the MLPerf results confirm."]])
    pdf_paragraphs(d / "split.pdf", [[BOUND], [NOTE, TRADEMARK_LEGEND]])
    with open(d / "table.csv", "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([["system", "throughput_tok_s", "Throughput (tok/s)"], ["A", "x", "101527"],
                                 ["B", "y", "99,000 ±5.4%"]])
    (d / "notes.md").write_text("# Results\n\n| System | Throughput (tok/s) |\n|---|---:|\n| A | 101,527 |\n\n"
                                "We measured 55 samples/s [b] on the small model.\n", encoding="utf-8")
    return d, run(d)


def test_a_text_box_quoting_a_figure_is_a_bare_figure(person_docs):
    _, found = person_docs
    deck = found["deck.pptx"]
    (hit,) = [h for h in deck.hits if h.location.startswith("slide 1, text box")]
    assert hit.rule_id == "EG001" and "'101.5k tok/s'" in hit.message and "no band and no footnote mark" in hit.message


def test_a_table_column_of_plain_numbers_under_tok_s_is_flagged_cell_by_cell(person_docs):
    _, found = person_docs
    assert where(found["deck.pptx"], "EG001")[1:3] == ["slide 2, table 1, row 2, column 2",
                                                       "slide 2, table 1, row 3, column 2"]
    sheet = found["sheet.xlsx"]
    assert {"Sheet 'Results'!B2", "Sheet 'Results'!B3"} <= set(where(sheet, "EG001"))
    assert any("'101527' (a number under a 'tok/s' heading)" in h.message for h in sheet.hits)


def test_a_cell_shows_what_its_number_format_says_and_comments_are_read(person_docs):
    _, found = person_docs
    sheet = found["sheet.xlsx"]
    locations = where(sheet, "EG001")
    assert "Sheet 'Results'!D1" in locations  # a text cell quoting a figure
    assert "Sheet 'Formats'!B2" in locations  # 88000 shown as '88,000 tok/s' by its format
    assert "Sheet 'Formats'!A2 (comment)" in locations
    assert any("'88,000 tok/s'" in h.message for h in sheet.hits)


def test_a_chart_whose_data_labels_show_figures_is_flagged_with_its_series_and_data(person_docs):
    _, found = person_docs
    locs = where(found["deck.pptx"], "EG001")
    assert "slide 3, chart 1, point 1 (series 1 'Throughput (tok/s)', data label, category 'A')" in locs
    assert "slide 3, chart 1, point 2 (series 1 'Throughput (tok/s)', data label, category 'B')" in locs
    # the chart's embedded workbook holds the same numbers under the same heading
    assert "slide 3, chart 1 data, Sheet 'Sheet1'!B2" in locs


def test_a_figure_whose_note_sits_on_another_slide_does_not_resolve(person_docs):
    _, found = person_docs
    (hit,) = [h for h in found["deck.pptx"].hits if h.location.startswith("slide 4")]
    assert hit.rule_id == "EG001"
    assert "mark [a] resolves to no note on slide 4; a note [a] stands on slide 5" in hit.message


def test_speaker_notes_and_grouped_shapes_are_read(person_docs):
    _, found = person_docs
    locs = where(found["deck.pptx"], "EG001")
    assert "slide 5, speaker notes" in locs
    assert any(loc.startswith("slide 6, group '") and "text box" in loc for loc in locs)


def test_a_pdf_paragraph_quoting_a_figure_is_flagged_by_page_and_line(person_docs):
    _, found = person_docs
    brief = found["brief.pdf"]
    assert where(brief, "EG001") == ["page 1, line 1"]
    assert "'101,527 tokens per second'" in brief.hits[0].message
    # it names MLPerf: without the registered mark (warning) and without the legend
    assert [h.rule_id for h in brief.hits[1:]] == ["EG005", "EG011"]
    assert "trademark legend" in brief.hits[1].message


def test_a_pdf_figure_whose_note_is_on_the_next_page(person_docs):
    _, found = person_docs
    (hit,) = found["split.pdf"].hits
    assert hit.rule_id == "EG001" and hit.location == "page 1, line 1"
    assert "a note [a] stands on page 2" in hit.message


def test_csv_and_markdown_columns_under_a_throughput_heading(person_docs):
    _, found = person_docs
    table = found["table.csv"]
    assert where(table, "EG001") == ["row 2, column 3 ('Throughput (tok/s)'), line 2",
                                     "row 3, column 3 ('Throughput (tok/s)'), line 3"]
    assert [h.rule_id for h in table.hits] == ["EG001", "EG001"]  # '99,000 ±5.4%': a band, no mark
    assert "has a band but no footnote mark" in table.hits[1].message
    notes = found["notes.md"]
    assert where(notes, "EG001")[0] == "line 5 (section 0, table row 1, column 2)"
    assert [h.rule_id for h in notes.hits] == ["EG001", "EG002", "EG001"]  # '55 samples/s [b]': no band, no note
    assert notes.hits[2].location == "line 7" and "mark [b] resolves to no note in the document" in notes.hits[2].message


def test_exit_code_of_a_folder_with_findings_is_1(person_docs):
    d, found = person_docs
    assert exit_code(list(found.values())) == 1


# -- bound documents pass; the rules that look at notes ----------------------------------------------

def test_bound_and_cited_documents_made_by_a_person_are_clean(tmp_path):
    pptx_bound(tmp_path / "bound.pptx")
    xlsx_bound(tmp_path / "bound.xlsx")
    pdf_paragraphs(tmp_path / "bound.pdf", [[f"Vendor X reached {BOUND} on llama2-70b-99 Offline.", NOTE,
                                             TRADEMARK_LEGEND]])
    (tmp_path / "bound.md").write_text(f"# Results\n\nVendor X: {BOUND}\n\n- {NOTE}\n\n{TRADEMARK_LEGEND}\n",
                                       encoding="utf-8")
    found = run(tmp_path)
    for name, report in found.items():
        assert report.hits == [], (name, [str(h) for h in report.hits])
        assert report.figures >= 1, name
    # the chart's labels and its embedded workbook carry the binding through their number format
    assert found["bound.pptx"].figures == 3


def test_documents_with_other_numbers_only_are_clean(tmp_path):
    pptx_other_numbers(tmp_path / "budget.pptx")
    xlsx_other_numbers(tmp_path / "prices.xlsx")
    pdf_paragraphs(tmp_path / "prices.pdf", [["Prices start at 4.50 USD per hour; p99 latency 450 ms; 12 nodes; "
                                              "updated 2025-09-09; target 45.2 QPS; 1,024 output tokens; 273.4 "
                                              "tokens/sample; result 5.1-0042."]])
    (tmp_path / "prices.csv").write_text("item,price_usd,latency_ms,count\nGPU hour,4.50,450,12\n", encoding="utf-8")
    (tmp_path / "prices.md").write_text("| Item | Price (USD) | Target QPS |\n|---|---|---|\n| GPU | 4.50 | 45 |\n",
                                        encoding="utf-8")
    reports = check([tmp_path], isolate=False)
    assert len(reports) == 5
    assert [(Path(r.path).name, r.hits) for r in reports if r.hits] == []
    assert exit_code(reports) == 0


NOTE_NO_ID = NOTE.replace(", result 5.1-0042", "").replace(", retrieved 2025-09-09", "")


@pytest.mark.parametrize("text,note,rule,words", [
    (BOUND, NOTE_NO_ID, "EG005", "lacks: result ID, retrieval date"),
    ("101,527 tok/s [a]", NOTE, "EG002", "no shape-slack band"),
    (BOUND, "[a] Vendor X, 8x B200, our own lab.", "EG001", "names no scenario (Offline, Server or Interactive) "
                                                            "and no shape"),
    (BOUND, NOTE.replace("verified.", "unverified. Result not verified by MLCommons Association."), "EG006",
     "does not say \"unverified\""),
    ("12,691 tok/s per accelerator ±5.4% [a]", NOTE, "EG007", "without the label \"derived\""),
    ("12,691 tok/s per accelerator ±5.4% [a] derived", NOTE, "EG007", "no note of its marks states the basis"),
])
def test_rules_that_read_the_note_a_mark_resolves_to(tmp_path, text, note, rule, words):
    (tmp_path / "x.md").write_text(f"{text}\n\n- {note}\n\n{TRADEMARK_LEGEND}\n", encoding="utf-8")
    report = run(tmp_path)["x.md"]
    assert [h.rule_id for h in report.hits] == [rule], [str(h) for h in report.hits]
    assert words in report.hits[0].message


def test_a_result_id_broken_after_its_hyphen_at_a_line_end_still_cites_the_result(tmp_path):
    """As LibreOffice wraps a deck's note in the PDF it makes ("Result 5.1-" / "0042"): the note
    still names its result; without the ID it does not."""
    broken = NOTE.replace("result 5.1-0042", "result 5.1-\n  0042")
    (tmp_path / "x.md").write_text(f"{BOUND}\n\n- {broken}\n\n{TRADEMARK_LEGEND}\n", encoding="utf-8")
    (tmp_path / "y.md").write_text(f"{BOUND}\n\n- {broken.replace('0042', 'the one')}\n\n{TRADEMARK_LEGEND}\n",
                                   encoding="utf-8")
    found = run(tmp_path)
    assert found["x.md"].hits == [], [str(h) for h in found["x.md"].hits]
    assert [h.rule_id for h in found["y.md"].hits] == ["EG005"]


def test_first_mention_of_mlperf_without_the_mark_is_a_warning_and_the_legend_does_not_count(tmp_path):
    (tmp_path / "a.md").write_text(f"MLPerf results are in.\n\n{TRADEMARK_LEGEND}\n", encoding="utf-8")
    (tmp_path / "b.md").write_text(f"MLPerf® results are in; MLPerf again.\n\n{TRADEMARK_LEGEND}\n", encoding="utf-8")
    found = run(tmp_path)
    assert [(h.rule_id, h.location) for h in found["a.md"].hits] == [("EG011", "line 1")]
    assert found["a.md"].hits[0].severity == "warning"
    assert found["b.md"].hits == []


def test_cli_json_on_a_person_made_deck(tmp_path):
    pptx_person(tmp_path / "deck.pptx")
    out = subprocess.run([sys.executable, "-m", "exportguard", "check", "--format", "json", str(tmp_path)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 1, out.stderr
    data = json.loads(out.stdout)
    (f,) = data["files"]
    assert f["status"] == "findings" and f["format"] == "pptx"
    assert {x["rule"] for x in f["findings"]} == {"EG001"}
    assert data["summary"]["errors"] == len(f["findings"])
