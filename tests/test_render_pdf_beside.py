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
from exportguard.wording import BOTH_SHAPES
from tests.own_runs import BESIDE, OWN_ONLY
from tests.pdf_pages import (assert_bound_page_by_page, entries_by_page, pages_raw, pages_text, qpdf_check,
                             read_back_every_rank, squash)

pytestmark = pytest.mark.real_data


@pytest.fixture(scope="module")
def beside_pdf(mixed, tmp_path_factory):
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
    page = squash("".join(pages_raw(path)[shown[0] - 1:shown[-1] + 1]))  # in drawing order: panels side by side
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


def test_the_beside_pdf_checks_clean_and_its_ranks_hold(mixed, beside_pdf):
    report, path = beside_pdf
    [result] = check([path])
    assert result.status == "clean", [str(h) for h in result.hits[:5]]
    assert read_back_every_rank(mixed, report, path, {}) > 0


def test_an_own_chart_says_its_band_comes_from_repeated_runs(mixed, tmp_path):
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


# A beside section whose panels hold their columns side by side at the full type size: the panels
# stand left (MLPerf) and right (your runs, both shapes stacked), the shape panel under them on the
# same page. The default columns (9 a panel) need about 500 + 600 points at 8.6 pt, more than a
# landscape A4 frame's 762: those panels are stacked instead (the test above).
SIDE_BY_SIDE = BESIDE.replace("limit = 4", 'limit = 12\ncolumns = ["rank", "submitter", "system", "accelerators", "throughput"]\n'
                                          'own_columns = ["shape", "throughput"]')


def _words(path, page: int) -> list[tuple[float, float, str]]:
    """(x, y, word) of every word pdftotext reads on one page."""
    import re
    import subprocess

    html = subprocess.run(["pdftotext", "-bbox", "-f", str(page), "-l", str(page), str(path), "-"],
                          capture_output=True, text=True, check=True).stdout
    return [(float(x), float(y), w) for x, y, w in
            re.findall(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="[\d.]+" yMax="[\d.]+">([^<]*)</word>', html)]


def _first_x(words, phrase: str) -> tuple[float, float]:
    """Where a phrase (a run of words) starts on the page: (x, y) of its first word."""
    want = phrase.split()
    texts = [w for _, _, w in words]
    for i in range(len(texts) - len(want) + 1):
        if texts[i:i + len(want)] == want:
            return words[i][0], words[i][1]
    raise AssertionError(f"{phrase!r} is not on the page")


@pytest.fixture(scope="module")
def side_pdf(mixed, tmp_path_factory):
    from exportguard.render.pdf import render_planned

    report = build_report(mixed, parse_spec(SIDE_BY_SIDE))
    path = tmp_path_factory.mktemp("pdf_side") / "side.pdf"
    _, pages = render_planned(report, path)
    return report, path, pages


def _raw(path, page: int) -> str:
    """A page's text in drawing order (pdftotext -raw): each panel's lines together, left panel first."""
    import subprocess

    return subprocess.run(["pdftotext", "-raw", "-f", str(page), "-l", str(page), str(path), "-"],
                          capture_output=True, text=True, check=True).stdout


def test_side_by_side_panels_and_the_shape_panel_share_the_sections_first_page(side_pdf):
    """Asserts: the section's first page holds the MLPerf panel (caption, band rule, a figure), the
    own panel (its first cohort's caption, band rule and "single run: no band" figure) and the shape
    panel (every row's shape and load, and its sentence); the MLPerf panel's words lie left of the
    own panel's (x-positions read back with pdftotext -bbox), both panels' captions on one line, the
    shape panel under them from the left margin; an own cohort that does not fit there heads the
    right panel of the next page. Table type stays 8.6 pt, notes 8 pt; every page is landscape."""
    from exportguard.layout import pager
    from exportguard.render import pdf_tables as tab

    report, path, pages = side_pdf
    [section] = report.sections
    first = next(p for p in pages if any(isinstance(i.payload, pager.PairShare) for i in p.items))
    assert {p.geometry.name for p in pages} == {"landscape"}
    text = squash(_raw(path, first.number))
    assert squash(f"MLPerf panel: {section.mlperf.cohort.label()}") in text
    assert squash(section.mlperf.table_note.text) in text and "halfthecohort'sshapeslack" in text
    own = section.own[0]
    assert squash(f"Your runs panel: {own.cohort.label()}") in text and squash(own.table_note.text) in text
    assert "(singlerun:noband)" in text
    for row in (section.shape.mlperf, *section.shape.own):
        assert squash(row.shape) in text and squash(row.load) in text
    assert squash(section.shape.sentence) in text
    words = _words(path, first.number)
    mx, my = _first_x(words, "Table 1. MLPerf panel:")
    ox, oy = _first_x(words, "Table 2. Your runs panel:")
    assert ox > mx + 200 and abs(oy - my) < 1.0, (mx, my, ox, oy)  # right of it, tops level
    mlperf_figures = [x for x, _, w in words if w == "tok/s" and x < ox]
    own_figures = [x for x, _, w in words if w == "tok/s" and x > ox]
    assert mlperf_figures and own_figures
    sx, sy = _first_x(words, f"Table {len(section.own) + 2}. {' '.join(section.title.split()[:3])}")
    assert sy > my and sx == mx  # under the panels (y grows downwards), from the left margin
    for k in range(1, len(section.own)):  # the next own cohorts: in the right panel, this page or the next
        caption = f"Table {k + 2}. Your runs panel:"
        for n in (first.number, first.number + 1):
            try:
                x, _ = _first_x(_words(path, n), caption)
                break
            except AssertionError:
                continue
        else:
            raise AssertionError(f"{caption} is not on page {first.number} or the next")
        assert abs(x - ox) < 1.0
    dens = tab.density(pages)
    assert dens["table_pt"] >= 8.5 and dens["notes_pt"] >= 8.0


def test_side_by_side_marks_resolve_on_their_pages_and_check_clean(mixed, side_pdf):
    """Asserts: every figure is in the manifest, each mark's note stands on the figure's own page
    (and no other note), ranks read back as the guard's, qpdf finds the file sound and
    `exportguard check` reports it clean."""
    report, path, pages = side_pdf
    manifest = read_manifest(path)
    assert len(manifest["figures"]) == sum(1 for _ in report.figures())
    assert_bound_page_by_page(path, manifest)
    # ranks read in drawing order (the -layout reading of read_back_every_rank runs the panels' lines
    # together): on every page with MLPerf rows, each row's rank words and the tie rule
    from exportguard.layout import pager
    from exportguard.wording import TIE_RULE

    table = report.sections[0].mlperf
    read = 0
    for page in pages:
        raw = squash(_raw(path, page.number))
        for share in (s for i in page.items for s in pager.shares_of(i.payload)):
            if getattr(share, "of", None) and share.of.table is table:
                assert squash(TIE_RULE) in raw, page.number
                for r in range(share.start, share.stop):
                    assert squash(f"{table.ranks[r].words()}{table.rows[r][1]}") in raw, (page.number, r)
                    read += 1
    assert read == len(table.rows) and table.ranked
    qpdf_check(path)
    [result] = check([path])
    assert result.status == "clean", [str(h) for h in result.hits[:5]]


def test_side_by_side_rows_that_do_not_fit_continue_side_by_side_with_heads_repeated(mixed, tmp_path):
    """Asserts: with more MLPerf rows than the first page holds, the panel continues on the next
    page under "(continued)" with its shared conditions and header repeated, still placed as a
    pair, and every page's notes are its own figures' (checked clean)."""
    from exportguard.layout import pager
    from exportguard.render import pdf_tables as tab
    from exportguard.render.pdf import render_planned

    report = build_report(mixed, parse_spec(SIDE_BY_SIDE.replace("limit = 12", "limit = 60")))
    path = tmp_path / "long.pdf"
    _, pages = render_planned(report, path)
    pairs = [p for p in pages if any(isinstance(i.payload, pager.PairShare) for i in p.items)]
    assert pairs and pairs[0].number > 1
    later = [p for p in pages[pairs[0].number:] if any(
        getattr(s, "of", None) and s.of.table is report.sections[0].mlperf
        for i in p.items for s in pager.shares_of(i.payload))]
    assert len(later) >= 2  # the MLPerf panel spans pages after the first
    for page in later:
        text = squash(_raw(path, page.number))
        assert "Table1(continued).MLPerfpanel" in text, page.number
        assert squash(report.sections[0].mlperf.table_note.text) in text
    # once the own panel is done, the MLPerf rows go on in the frame's width, not in half a page
    alone = [s for p in later for i in p.items if isinstance(i.payload, tab.TableShare) for s in [i.payload]]
    assert alone and all(s.layout.width == pages[0].geometry.frame_w for s in alone)
    shown = sum(s.stop - s.start for p in pages for i in p.items for s in pager.shares_of(i.payload)
                if getattr(s, "of", None) and s.of.table is report.sections[0].mlperf)
    assert shown == len(report.sections[0].mlperf.rows)  # every row once
    assert_bound_page_by_page(path, read_manifest(path))
    [result] = check([path])
    assert result.status == "clean", [str(h) for h in result.hits[:5]]


@pytest.mark.parametrize("size", ["a4", "letter"])
def test_the_default_beside_section_on_a4_and_letter(mixed, tmp_path, size):
    """Asserts, for the default columns (guard.BESIDE_COLUMNS, OWN_BESIDE_COLUMNS): on A4 landscape
    the MLPerf panel and the first own panel stand side by side (the own panel right of the MLPerf
    one, tops level) on the section's first page with the whole shape panel under them; on Letter,
    whose frame is 50 points narrower, the two panels cannot hold their columns side by side at
    8.6 pt with the system names readable (the own figure with its no-band words and labels alone
    is 261 points), so they are stacked, each the frame's width, the shape panel after them. Either
    way: table text >= 8.5 pt, notes >= 8 pt, one orientation, every figure's notes on its own page,
    and the file checks clean."""
    from exportguard.layout import pager
    from exportguard.render import pdf_tables as tab
    from exportguard.render.pdf import render_planned

    report = build_report(mixed, parse_spec(BESIDE))
    [section] = report.sections
    path = tmp_path / f"beside-{size}.pdf"
    _, pages = render_planned(report, path, page_size=size)
    d = tab.density(pages)
    assert d["table_pt"] >= 8.5 and d["notes_pt"] >= 8.0 and len(d["orientations"]) == 1, d
    shape_page = next(p for p in pages for i in p.items for s in pager.shares_of(i.payload)
                      if isinstance(s, tab.TableShare) and s.of is None and BOTH_SHAPES.lower() in s.layout.title)
    pairs = [p for p in pages if any(isinstance(i.payload, pager.PairShare) for i in p.items)]
    if size == "a4":
        first = pairs[0]
        assert shape_page is first  # the shape panel under the panels, on their first page
        [pair] = [i.payload for i in first.items if isinstance(i.payload, pager.PairShare)]
        left, right = pair.columns
        assert left and right and left[0][0].of.table is section.mlperf and right[0][0].of.table is section.own[0]
        assert left[0][0].start == right[0][0].start == 0
        words = _words(path, first.number)
        mx, my = _first_x(words, "Table 1. MLPerf panel:")
        ox, oy = _first_x(words, "Table 2. Your runs panel:")
        assert ox > mx + 200 and abs(oy - my) < 1.0
    elif not pairs:  # stacked where they cannot stand side by side: each the frame's width
        assert all(s.layout.width == pages[0].geometry.frame_w for p in pages for i in p.items
                   for s in pager.shares_of(i.payload) if isinstance(s, tab.TableShare))
    # (on Letter the own panel, with its columns empty in every row left out (issue 32), may now stand
    # beside the MLPerf one; either way the checks below hold)
    assert_bound_page_by_page(path, read_manifest(path))
    [result] = check([path])
    assert result.status == "clean", [str(h) for h in result.hits[:5]]
