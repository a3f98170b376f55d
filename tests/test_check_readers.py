"""What the readers take for what a reader sees, and what they leave out (issue 18): the masters a
slide hides, a tile's caption that is not its number's, a formula in a price column, and the prolog
of any part of a package."""
from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from exportguard.check.engine import check
from tests.corpus.documents import inject_prolog, pptx, with_prolog, xlsx


def hits(path: Path) -> list:
    (report,) = check([path], isolate=False)
    assert report.status != "not-inspected", report.reason
    return report.hits


def test_a_slide_that_hides_its_masters_shapes_shows_no_master_text(tmp_path):
    deck = pptx(tmp_path / "m.pptx", [[("text", "Results", 0.5, 0.3, 9, 0.8)], [("text", "More", 0.5, 0.3, 9, 0.8)]],
                master="Our cluster: 101.5k tok/s")
    assert [h.location for h in hits(deck)] == ["slide 1, master, text box 'TextBox 2'",
                                                "slide 2, master, text box 'TextBox 2'"]
    hidden = tmp_path / "hidden.pptx"
    with zipfile.ZipFile(deck) as zin, zipfile.ZipFile(hidden, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "ppt/slides/slide2.xml":
                data = data.replace(b"<p:sld ", b'<p:sld showMasterSp="0" ', 1)
            zout.writestr(info, data)
    assert [h.location for h in hits(hidden)] == ["slide 1, master, text box 'TextBox 2'"]


def test_a_number_beside_a_caption_that_is_another_numbers_is_not_its_figure(tmp_path):
    deck = pptx(tmp_path / "t.pptx", [[("text", "102,909", 0.5, 1.5, 3, 1), ("text", "tokens/s", 0.5, 2.5, 3, 0.5),
                                       ("text", "8", 0.5, 3.1, 3, 1)]])
    assert [h.message.split(" (")[0] for h in hits(deck)] == ["'102,909'"]


def test_a_formula_without_its_value_is_reported_only_where_a_figure_would_show(tmp_path):
    book = xlsx(tmp_path / "f.xlsx", {"S": [["System", "Throughput (tok/s)", "Price ($/hr)", "GPUs"],
                                            ["B200", "=D2*12863.6", "=D2*3.29", 8], [], ["Total GPUs", "=SUM(D2:D2)"]]})
    found = hits(book)
    assert [(h.rule_id, h.location) for h in found] == [("EG023", "Sheet 'S'!B2")]
    assert found[0].severity == "warning" and "could not read the value" in found[0].message


@pytest.mark.parametrize("part,declaration", [
    ("[Content_Types].xml", b'<!DOCTYPE Types [<!ENTITY e SYSTEM "http://example.com/x">]>'),
    ("_rels/.rels", b"<!DOCTYPE r>"),
    ("docProps/app.xml", b'<!DOCTYPE p [<!ENTITY a "a">]>'),
])
def test_a_dtd_in_any_part_of_a_workbook_is_not_inspected(tmp_path, part, declaration):
    book = xlsx(tmp_path / "b.xlsx", {"S": [["System", "Throughput"], ["B200", "101,527 tok/s ±5.4% [a]"]]})
    bad = inject_prolog(book, tmp_path / "bad.xlsx", part, declaration + b"\n")
    (report,) = check([bad], isolate=False)
    assert report.status == "not-inspected" and repr(part) in report.reason and "DTD" in report.reason


def test_a_dtd_behind_a_long_comment_or_in_utf16_is_found(tmp_path):
    book = xlsx(tmp_path / "b.xlsx", {"S": [["x"]]})
    comment = b"<!-- " + b"x" * 20_000 + b" -->\n<!DOCTYPE Types>\n"
    (report,) = check([inject_prolog(book, tmp_path / "long.xlsx", "[Content_Types].xml", comment)], isolate=False)
    assert report.status == "not-inspected"
    utf16 = tmp_path / "utf16.xlsx"
    with zipfile.ZipFile(book) as zin, zipfile.ZipFile(utf16, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "docProps/core.xml":
                text = with_prolog(data, b"<!DOCTYPE cp>\n").decode("utf-8").replace('encoding="UTF-8"', 'encoding="UTF-16"')
                data = text.encode("utf-16")
            zout.writestr(info, data)
    (report,) = check([utf16], isolate=False)
    assert report.status == "not-inspected" and "docProps/core.xml" in report.reason


def test_a_source_written_as_host_and_path_satisfies_the_citation_rule(tmp_path):
    from exportguard.check.evaluate import fields_in

    assert "source" in fields_in("Retrieved 2026-11-29 from github.com/mlcommons/inference_results_v5.1.")
    assert "source" in fields_in("see mlcommons.org/benchmarks/inference-datacenter")
    assert "source" not in fields_in("MLPerf Inference v5.1/closed, llama3.1-8b, result 5.1-0042.")
