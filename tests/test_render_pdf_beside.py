"""Issue 20 item 5 in the PDF briefing: an MLPerf cohort and the user's own runs (the real files of
shared/own-traffic) beside each other, never in one comparison: two panels on one page, each with
its own caption, band rule, ranks and notes, and the shape panel with both shapes in numbers; an own
chart's legend says where its band comes from. Every export checks clean."""
from __future__ import annotations

import pytest

from exportguard.check.engine import check
from exportguard.check.manifests import read_manifest
from exportguard.render import export
from exportguard.spec import build_report, parse_spec
from tests.test_own_report import BESIDE, OWN_ONLY, mixed  # noqa: F401 - the store of real own-traffic files
from tests.test_render_pdf import assert_bound_page_by_page, entries_by_page, pages_text, qpdf_check, squash
from tests.test_render_pdf_ranks import read_back_every_rank

pytestmark = pytest.mark.real_data


@pytest.fixture(scope="module")
def beside_pdf(mixed, tmp_path_factory):  # noqa: F811
    report = build_report(mixed, parse_spec(BESIDE))
    [path] = export(report, [tmp_path_factory.mktemp("pdf_beside") / "beside.pdf"])
    return report, path


def test_a_beside_section_draws_both_panels_and_the_shape_panel_together(beside_pdf):
    report, path = beside_pdf
    [section] = report.sections
    manifest = read_manifest(path)
    assert len(manifest["figures"]) == sum(1 for _ in report.figures())
    pages = assert_bound_page_by_page(path, manifest)  # each figure's notes on its own page, marks unique
    shown = sorted(entries_by_page(manifest))  # both panels on one page, or on two facing ones
    assert len(shown) <= 2 and shown == list(range(shown[0], shown[0] + len(shown)))
    page = squash("".join(pages[shown[0] - 1:shown[-1] + 1]))
    assert squash(f"MLPerf panel: {section.mlperf.cohort.label()}") in page
    for table in section.own:
        assert squash(f"Your runs panel: {table.cohort.label()}") in page
    # each panel its own band rule: MLPerf's shape slack, the runs' "single run: no band"
    assert squash(section.mlperf.table_note.text) in page and "halfthecohort'sshapeslack" in page
    for table in section.own:
        assert squash(table.table_note.text) in page
    assert squash("(single run: no band)") in page
    # the shape panel, right after the panels: both shapes in numbers, their loads, and why
    # throughput does not transfer (read in drawing order: each cell's lines together)
    import subprocess

    raw = subprocess.run(["pdftotext", "-raw", "-f", str(shown[0]), "-l", str(shown[-1] + 1), str(path), "-"],
                         capture_output=True, text=True, check=True).stdout
    for row in (section.shape.mlperf, *section.shape.own):
        assert squash(row.shape) in squash(raw) and squash(row.load) in squash(raw)
    assert squash(section.shape.sentence) in squash(raw) and squash("Beside, never one comparison") in page
    qpdf_check(path)


def test_the_beside_pdf_checks_clean_and_its_ranks_hold(mixed, beside_pdf):  # noqa: F811
    report, path = beside_pdf
    [result] = check([path])
    assert result.status == "clean", [str(h) for h in result.hits[:5]]
    assert read_back_every_rank(mixed, report, path, {}) > 0


def test_an_own_chart_says_its_band_comes_from_repeated_runs(mixed, tmp_path):  # noqa: F811
    report = build_report(mixed, parse_spec(OWN_ONLY))
    [path] = export(report, [tmp_path / "own.pdf"])
    [result] = check([path])
    assert result.status == "clean", [str(h) for h in result.hits[:5]]
    manifest = read_manifest(path)
    chart_pages = {int(e["location"].split(",")[0].split()[1]) for e in manifest["figures"] if "chart" in e["location"]}
    assert chart_pages
    for n in chart_pages:
        flat = squash(pages_text(path)[n - 1])
        assert squash("Each whisker is the figure's band. Band ±0.5%: half the run-to-run spread") in flat
        assert "3repeatedrunsofoneconfiguration" in flat and "shapeslack" not in flat
