"""PDF briefing export (issue 10): every page carries the notes of its own figures.

Read back page by page with pdftotext (poppler-utils) and pypdf; checked with ``qpdf --check``. The
cases that need poppler or qpdf skip when they are missing, except under CI (CI=true), where that
is a failure. The example briefing (examples/briefing.toml on the real v5.1 data) is rendered to
one PNG per page in $EXPORTGUARD_ARTIFACTS/pdf (else a temporary folder) for a person to look at.
"""
from __future__ import annotations

import dataclasses
import re
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exportguard import manifest as manifest_mod
from exportguard.caveat import FULL, SHORT, TRADEMARK_LEGEND
from exportguard.check.manifests import ManifestNotFound, read_manifest
from exportguard.guard import GuardError, bind_table, kpi
from exportguard.render import export
from exportguard.report import Report, TableSection, TextSection
from exportguard.spec import build_report, load_spec, parse_spec
from exportguard.wording import TIE_RULE
from tests.conftest import IN_CI, REPO
from tests.office import artifacts, tool
from tests.pdf_pages import (FULL_SPEC, LOCATION, assert_bound_page_by_page, entries_by_page, pages_text, qpdf_check,
                             squash)

pytestmark = pytest.mark.real_data

NOTE_START = re.compile(r"^\s*\[([a-z]+)\]\s")
OFFLINE_70B = dict(round="v5.1", division="closed", model="llama2-70b", accuracy_track="99", scenario="Offline")


def replicated(store, n: int, names=None):
    """n results of one real cohort, each copy its own system (so its own note), as the bench does."""
    real = store.results(**OFFLINE_70B)
    out = []
    for k in range(n):
        r = real[k % len(real)]
        i = r.conditions.identity
        identity = dataclasses.replace(i, system_id=f"{i.system_id}-copy{k}",
                                       system_name=names[k] if names else f"{i.system_name} #{k}")
        out.append(dataclasses.replace(r, conditions=dataclasses.replace(r.conditions, identity=identity)))
    return out


# -- fixtures --------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def briefing(v51_store, tmp_path_factory):
    report = build_report(v51_store, load_spec(REPO / "examples" / "briefing.toml"))
    [path] = export(report, [tmp_path_factory.mktemp("pdf_briefing") / "briefing.pdf"])
    return report, path


@pytest.fixture(scope="module")
def full(v51_store, tmp_path_factory):
    report = build_report(v51_store, parse_spec(FULL_SPEC, name="full.toml"))
    [path] = export(report, [tmp_path_factory.mktemp("pdf_full") / "full.pdf"])
    return report, path


@pytest.fixture(scope="module")
def long_table(v51_store, tmp_path_factory):
    results = replicated(v51_store, 60)
    table = bind_table(results, title="60 replicated results", slack=v51_store.cohort_slack(results[0].cohort_key))
    report = Report("A table over many pages", "tests", (TableSection(table.title, table),), SHORT, FULL,
                    TRADEMARK_LEGEND)
    [path] = export(report, [tmp_path_factory.mktemp("pdf_long") / "long.pdf"])
    return report, path


# -- the example briefing --------------------------------------------------------------------------

def test_example_briefing_binds_every_figure_on_its_page(briefing):
    report, path = briefing
    manifest = read_manifest(path)
    assert manifest_mod.verify(manifest) == []
    assert manifest["format"] == "pdf"
    figures = [f for _, f in report.figures()]
    assert len(manifest["figures"]) == len(figures) == 15
    assert len({e["location"] for e in manifest["figures"]}) == len(figures)
    pages = assert_bound_page_by_page(path, manifest)
    assert any(re.search(r"\d[\d,]* tok/s ±\d+(\.\d+)?% \[a\]", p) for p in pages)
    qpdf_check(path)


def test_example_briefing_pages_as_png_for_a_person(briefing, tmp_path):
    _, path = briefing
    folder = artifacts("pdf", tmp_path)
    for old in folder.glob("briefing-*.png"):
        old.unlink()
    subprocess.run([tool("pdftoppm"), "-png", "-r", "80", str(path), str(folder / "briefing")], check=True,
                   timeout=120)
    pngs = sorted(folder.glob("briefing-*.png"))
    assert len(pngs) == len(pages_text(path)) >= 4
    assert all(p.stat().st_size > 5000 for p in pngs)


def test_title_page_header_footer_metadata_outline(briefing):
    from pypdf import PdfReader

    report, path = briefing
    pages = pages_text(path)
    total = len(pages)
    for n, page in enumerate(pages, 1):
        assert f"Page {n} of {total}" in page
        assert squash(SHORT)[:80] in squash(page), f"page {n} lacks the one-line caveat"
        if n > 1:
            assert squash(report.title)[:40] in squash(page), f"page {n} lacks the running header"
    title_page = squash(pages[0])
    assert squash(report.title) in title_page and "Contents" in pages[0]
    assert squash(TRADEMARK_LEGEND) in title_page and "exportguard-manifest.json" in pages[0]
    reader = PdfReader(str(path))
    meta = reader.metadata
    assert meta.title == report.title
    assert "MLPerf" in meta.subject and meta.creator.startswith("exportguard")
    assert "MLPerf" in reader.metadata.get("/Keywords") and "llama2-70b-99 Offline" in reader.metadata.get("/Keywords")
    outline = [o.title for o in reader.outline]
    assert outline[:len(report.sections)] == [f"{n}. {s.title}" for n, s in enumerate(report.sections, 1)]
    assert outline[-2].startswith("Caveat") and outline[-1].startswith("Sources")
    assert reader.trailer["/Root"]["/PageMode"] == "/UseOutlines"
    fonts = {str(f.get_object()["/BaseFont"]) for page in reader.pages
             for f in page["/Resources"]["/Font"].values()}
    from exportguard.render.pdf_text import font_file

    if "DejaVu" in font_file("EG-Sans").name or IN_CI:  # CI installs fonts-dejavu-core
        assert any("DejaVuSans" in f for f in fonts) and all("DejaVu" in f for f in fonts), fonts
    else:
        assert all("Vera" in f for f in fonts), fonts  # reportlab's own faces, embedded all the same


def test_caveat_and_sources_appendix(briefing):
    report, path = briefing
    pages = pages_text(path)
    flat = squash("".join(pages))
    for paragraph in FULL:
        assert squash(paragraph) in flat
    first = [n for n, p in enumerate(pages) if "Sources: one citation per result shown" in p][-1]
    sources = "\n".join(pages[first:])
    for _, fig in report.figures():
        i = fig.result.conditions.identity
        assert i.result_id in sources
    assert "exportguard-manifest.json" in sources


# -- every kind of section -------------------------------------------------------------------------

def test_every_kind_of_section(full):
    report, path = full
    manifest = read_manifest(path)
    assert manifest_mod.verify(manifest) == []
    assert len(manifest["figures"]) == sum(1 for _ in report.figures())
    kinds = {LOCATION.match(e["location"]).group(2).split()[0] for e in manifest["figures"]}
    assert kinds == {"table", "chart", "headline"}
    pages = assert_bound_page_by_page(path, manifest)
    qpdf_check(path)
    # the headline states its scenario and shape inline, on its page
    [head] = [e for e in manifest["figures"] if "headline" in e["location"]]
    page = pages[int(LOCATION.match(head["location"]).group(1)) - 1]
    kpi_section = report.sections[0]
    assert squash(kpi_section.inline_conditions) in squash(page)
    assert "tokens/sample" in kpi_section.inline_conditions and "Offline" in kpi_section.inline_conditions
    # derived figures say so
    derived = [e for e in manifest["figures"] if e["derived"]]
    assert derived and all("derived" in e["shown"]["text"] for e in derived)
    # the chart's caption carries cohort and shape; its bars are labelled with bound figures
    chart_pages = {int(LOCATION.match(e["location"]).group(1)) for e in manifest["figures"] if "chart" in e["location"]}
    for n in chart_pages:
        flat = squash(pages[n - 1])
        assert squash("MLPerf® v5.1 closed llama2-70b-99 Server (tokens/s)") in flat
        assert squash("OpenOrca, max 1,024 output tokens") in flat
        assert "whisker" in pages[n - 1] and squash(TIE_RULE) in flat
    # free text with markup stays text
    flat = squash("".join(pages))
    assert squash('A <b>markup</b> attempt & an <img src="x.png"/> stay text.') in flat


def test_chart_bands_are_error_bars_ranks_are_the_guards_and_no_colour_claims_a_tie(full):
    from exportguard.layout.document import Frame
    from exportguard.render.pdf_chart import ChartLayout, ChartOf, ChartShare, Bar
    from exportguard.render.pdf_text import Metrics
    from exportguard.layout.pager import Page
    from exportguard.render.pdf_layout import PORTRAIT
    from exportguard.render.pdf_paint import chart_drawing
    from exportguard.render.pdf_plan import chart_block
    from exportguard.render.pdf_text import register_fonts
    from exportguard.render.walk import Lettering
    from reportlab.graphics.shapes import Line, Rect, String

    register_fonts()
    report, _ = full
    table = report.sections[2].table
    figs = [row[-1] for row in table.rows]
    bars = [Bar(f"bar {k}", span.words(), f) for k, (f, span) in enumerate(zip(figs, table.ranks))]
    chart = ChartLayout(Metrics(), label="Chart 1", title="t", first_caption="c", shared="s", unit="tok/s", bars=bars,
                        slack=table.slack, width=PORTRAIT.frame_w)
    share = ChartShare(chart, 0, len(bars), False, False, Page(1, PORTRAIT), ChartOf(1, 3))
    lettering = Lettering(figs)
    texts = {i: lettering.text(f) for i, f in enumerate(figs)}
    height = chart.head_height(False) + sum(chart.heights) + chart.tail_h
    drawing = chart_drawing(chart_block(share, 1, lettering, Frame(0, 0, chart.width, height)), height)
    shapes = drawing.contents
    rects = [s for s in shapes if isinstance(s, Rect)]
    band = table.slack.band_fraction
    scale = chart.plot_w / chart.vmax
    assert len(rects) == len(figs)
    for rect, fig in zip(rects, figs):
        assert rect.x == pytest.approx(chart.plot_x) and rect.width == pytest.approx(fig.magnitude * scale)
        lo, hi = chart.plot_x + fig.magnitude * (1 - band) * scale, chart.plot_x + fig.magnitude * (1 + band) * scale
        whiskers = [s for s in shapes if isinstance(s, Line) and s.x1 == pytest.approx(lo) and s.x2 == pytest.approx(hi)]
        assert len(whiskers) == 1, "each bar's band is drawn as its error bar"
    labels = {s.text for s in shapes if isinstance(s, String)}
    assert set(texts.values()) <= labels
    assert any(span.tied for span in table.ranks), "the Server cohort has ties to show"
    assert {span.words() for span in table.ranks} <= labels
    assert len({r.fillColor.hexval() for r in rects}) == 1, "a colour would state ties that do not hold pairwise"
    assert "half the cohort's shape slack" in chart.legend() and "repeated runs" not in chart.legend()


# -- a table over several pages --------------------------------------------------------------------

def test_a_long_table_repeats_header_conditions_and_notes_on_every_page(long_table):
    report, path = long_table
    manifest = read_manifest(path)
    assert manifest_mod.verify(manifest) == []
    pages = assert_bound_page_by_page(path, manifest)
    by_page = entries_by_page(manifest)
    table_pages = sorted(by_page)
    assert len(table_pages) >= 3
    rows_seen = 0
    for n in table_pages:
        page = pages[n - 1]
        assert re.search(r"Rank\s+Submitter\s+System", page), f"page {n} lacks the header row"
        assert "Table 1" in page and "Every row:" in page
        assert squash(report.sections[0].table.table_note.text)[:120] in squash(page)
        rows = [int(LOCATION.match(e["location"]).group(4)) for e in by_page[n]]
        assert rows == list(range(1, len(rows) + 1))
        rows_seen += len(rows)
        if n != table_pages[-1]:
            assert "Table 1 continues on the next page" in page
        if n != table_pages[0]:
            assert "Table 1 (continued)" in page
    assert rows_seen == 60
    qpdf_check(path)


def test_pages_planned_never_overflow(v51_store, tmp_path):
    """Rows of every height, notes of every length: no page is over-full and the planned page count
    is the drawn one (the renderer raises otherwise)."""
    from pypdf import PdfReader

    names = [("X" * (k * 7)) + " " + "word " * (k % 9) for k in range(60)]
    results = replicated(v51_store, 60, names)
    table = bind_table(results, title="uneven rows", slack=v51_store.cohort_slack(results[0].cohort_key))
    report = Report("Uneven", "tests", (TableSection(table.title, table),), SHORT, FULL, TRADEMARK_LEGEND)
    [path] = export(report, [tmp_path / "uneven.pdf"])
    manifest = read_manifest(path)
    assert_bound_page_by_page(path, manifest)
    assert len(PdfReader(str(path)).pages) == len(pages_text(path))


# -- the manifest ----------------------------------------------------------------------------------

def test_manifest_reads_back_and_lists_every_figure_with_its_page(v51_store, tmp_path):
    from exportguard.render import pdf

    report = build_report(v51_store, parse_spec(FULL_SPEC, name="full.toml"))
    returned = pdf.render(report, tmp_path / "direct.pdf")
    back = read_manifest(tmp_path / "direct.pdf")
    assert back == returned
    for entry in back["figures"]:
        m = LOCATION.match(entry["location"])
        assert m and int(m.group(1)) >= 2
        assert entry["shown_sha256"] == manifest_mod.shown_digest(entry["shown"]["text"], None)
    from pypdf import PdfReader

    [attachment] = [a for a in PdfReader(str(tmp_path / "direct.pdf")).attachment_list]
    assert attachment.name == "exportguard-manifest.json"
    with pytest.raises(ManifestNotFound):
        from reportlab.pdfgen.canvas import Canvas

        c = Canvas(str(tmp_path / "plain.pdf"))
        c.drawString(72, 720, "101,527 tok/s")
        c.save()
        read_manifest(tmp_path / "plain.pdf")
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4\n garbage")
    with pytest.raises(Exception) as e:
        read_manifest(tmp_path / "broken.pdf")
    assert "cannot read" in str(e.value) or isinstance(e.value, ManifestNotFound)


# -- hostile text ----------------------------------------------------------------------------------

HOSTILE = ['<font color=red>x</font>', '<img src="x"/>', "a & b &amp; c", "999,999 tok/s ±0.1% [a]",
           "right\u202eto-left", "zero\u200bwidth", "bell\x07and\x00nul", "<para>", "x" * 400]


def test_markup_and_figure_lookalikes_in_names_render_as_literal_text(v51_store, tmp_path):
    results = replicated(v51_store, len(HOSTILE), HOSTILE)
    results = [dataclasses.replace(r, conditions=dataclasses.replace(
        r.conditions, identity=dataclasses.replace(r.conditions.identity, submitter=name)))
        for r, name in zip(results, HOSTILE)]
    slack = v51_store.cohort_slack(results[0].cohort_key)
    table = bind_table(results, title="Hostile <b>names</b>", slack=slack)
    sections = (kpi(results[0], slack, "Headline of <font color=red>x</font>"),
                TextSection("Free text", ("<img src=\"y\"/> & <font size=40>big</font>",)),
                TableSection(table.title, table))
    report = Report("Hostile <i>title</i>", "tests", sections, SHORT, FULL, TRADEMARK_LEGEND)
    # the guard refuses source text that reads like a figure before any renderer sees it ...
    with pytest.raises(GuardError, match="EG001"):
        export(report, [tmp_path / "refused.pdf"])
    assert not (tmp_path / "refused.pdf").exists()
    # ... and the PDF renderer, given it all the same, shows it neutralised, never as a figure
    from exportguard.render import pdf

    path = tmp_path / "hostile.pdf"
    returned = pdf.render(report, path)
    manifest = read_manifest(path)
    assert manifest == returned
    assert manifest_mod.verify(manifest) == []
    pages = assert_bound_page_by_page(path, manifest)
    text = "\n".join(pages)
    flat = squash(text)
    for literal in ('<font color=red>x</font>', '<img src="x"/>', "a & b &amp; c", '<img src="y"/> & <font size=40>big</font>',
                    "Hostile <i>title</i>", "Hostile <b>names</b>", "Headline of <font color=red>x</font>", "<para>"):
        assert squash(literal) in flat, literal
    # a name that reads like a figure is not shown as one
    # (its unit quoted; the row's note leaves the name to the row's cells, the sources appendix gives it whole)
    assert "999,999 tok/s" not in text and '999,999 "tok/s"' in text
    assert not [line for line in text.splitlines() if "999,999" in line and re.search(r"\[[a-z]+\]", line.split("999,999")[1][:30])]
    for bad in ("\u202e", "\u200b", "\x07", "\x00"):
        assert bad not in text
    assert "\ufffd" in text  # controls and bidi overrides are shown, not obeyed
    assert squash("more characters cut]") in flat  # an over-long name is cut visibly (in its wrapped cell)
    assert next(manifest_mod.entries(manifest))["conditions"]["identity"]["submitter"] == HOSTILE[0]
    qpdf_check(path)


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_escaping_makes_any_text_safe(text):
    from exportguard.detect import find_figures
    from exportguard.detect import MARK_LIKE
    from exportguard.render.pdf_text import Measure, Style, clean, register_fonts

    register_fonts()
    shown = clean(text, 300)
    assert not re.search("[\x00-\x1f\x7f\u202a-\u202e\u2066-\u2069\u200b\ufeff]", shown)
    assert not find_figures(shown) and not MARK_LIKE.search(shown)
    assert len(shown) <= 300
    # drawn as plain lines (no markup): the lines hold every character of the cleaned text, in order
    one_line = clean(text, 300, one_line=True)
    assert squash("".join(Measure(Style("EG-Sans", 9, 11)).wrap(one_line, 300))) == squash(one_line)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["alpha", "be", "gam/ma", "delta-epsilon_zeta", "x", "NVIDIA", "B200-SXM-180GB,", "(8x",
                                 "±5.4%", "/", "a/b/c/d/e/f/g", "≈", "https://github.com/mlcommons/x_y-z"]), max_size=40),
       st.floats(min_value=1, max_value=400))
def test_line_breaking_keeps_every_character_and_every_line_fits(words, width):
    from exportguard.render.pdf_text import Measure, Style, register_fonts

    register_fonts()
    m = Measure(Style("EG-Narrow", 7.8, 9.6))
    text = " ".join(words)
    lines = m.wrap(text, width)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    assert all(m.width(line) <= width + 1e-6 or len(line) == 1 for line in lines)
    assert all(line and not line.startswith(" ") and not line.endswith(" ") for line in lines)


# -- export mechanics ------------------------------------------------------------------------------

def test_interrupted_export_leaves_nothing_behind(v51_store, tmp_path, monkeypatch):
    from exportguard.render import pdf_paint

    report = build_report(v51_store, parse_spec(FULL_SPEC, name="full.toml"))
    calls = {"n": 0}
    real = pdf_paint.paint_notes

    def failing(*args):
        calls["n"] += 1
        if calls["n"] == 3:
            raise RuntimeError("disk full (simulated)")
        return real(*args)

    monkeypatch.setitem(pdf_paint._TEXT_PAINTERS, "Notes", failing)
    target = tmp_path / "out" / "briefing.pdf"
    with pytest.raises(RuntimeError, match="simulated"):
        export(report, [target])
    assert list(target.parent.iterdir()) == []


def test_help_does_not_import_reportlab_or_pypdf():
    code = ("import sys\nfrom exportguard.cli import main\nimport exportguard.check.manifests\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('reportlab', 'pypdf') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_a_long_cell_in_a_narrow_column_is_cut_to_its_lines_with_the_marker():
    """Characters alone do not bound a row: 240 characters of a hyphenated name in a 43-point column took 43
    lines. A cell takes at most CELL_LINES lines, the rest cut with sanitize.shorten's marker, which still
    counts from the stored name; the plan's cell text is the text drawn."""
    from exportguard.render import pdf_layout as lay
    from exportguard.render import pdf_tables as tab
    from exportguard.render.pdf_text import Metrics, clean, register_fonts
    from exportguard.sanitize import source_text

    register_fonts()
    name = "sys llama-" + "very-long-name-" * 3000
    m = Metrics()(lay.CELL)
    text = clean(source_text(name), lay.CELL_LIMIT)
    assert len(m.wrap(text, 43.0)) > 3 * lay.CELL_LINES  # the cause: 240 characters, over 36 lines
    shown, lines = tab.cell_lines(m.wrap, text, 43.0)
    assert len(lines) <= lay.CELL_LINES and lines == m.wrap(shown, 43.0)
    kept, marker = shown.split("… [")
    assert name.startswith(kept) and marker == f"{len(name) - len(kept):,} more characters cut]"
    assert tab.cell_lines(m.wrap, "NVIDIA H100-SXM-80GB", 43.0)[0] == "NVIDIA H100-SXM-80GB"  # a short cell: whole
