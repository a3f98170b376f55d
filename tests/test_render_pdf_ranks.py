"""Issue 17 in the PDF briefing: every rank statement the PDF shows, read back from its text, is true
for every pair it covers (guard.is_tie against the whole stored cohort the section ranked among);
the tie rule stands on every page that shows a rank, the not-ranked sentence on every page that
shows "not ranked", every guard notice on every page of its comparison; the PDF checks clean."""
from __future__ import annotations

import re

import pytest

from exportguard.check.engine import check
from exportguard.render import export
from exportguard.report import BesideSection, ChartSection, KpiSection, TableSection
from exportguard.spec import build_report, load_spec, parse_spec
from exportguard.wording import NOT_RANKED_SENTENCE, TIE_RULE
from tests.conftest import REPO
from tests.pdf_pages import FULL_SPEC, pages_text, read_back_every_rank, squash

pytestmark = pytest.mark.real_data

# one v5.1 cohort with a single result: its slack is not estimable, so nothing is ranked
NOT_RANKED_SPEC = '''
title = "A cohort of one"
[[section]]
kind = "table"
title = "llama3.1-405b Interactive, open division"
filters = { round = "v5.1", division = "open", model = "llama3.1-405b", scenario = "Interactive" }
'''


def notices_on_their_pages(report, folder) -> int:
    """Render with the page plan, and find each guard notice on every page that shows a share of its
    comparison (the plan says which section each page's items belong to)."""
    from exportguard.render import pdf

    path = folder / "planned.pdf"
    _, plan = pdf.render_planned(report, path)
    pages = pages_text(path)
    shown = 0
    for page in plan:
        for item in page.items:
            of = getattr(item.payload, "of", None)  # which table, chart or headline, and its section
            if of is None:
                continue
            section = report.sections[of.section - 1]
            notices = section.notices if isinstance(section, KpiSection) else \
                [x for t in (section.tables() if isinstance(section, BesideSection) else (section.table,))
                 for x in t.notices]
            for x in notices:
                assert squash(x.text) in squash(pages[page.number - 1]), f"page {page.number}: {x.rule_id} missing"
                shown += 1
    return shown


@pytest.fixture(scope="module")
def exported(v51_store, tmp_path_factory):
    out = tmp_path_factory.mktemp("pdf_ranks")
    reports = {"briefing": build_report(v51_store, load_spec(REPO / "examples" / "briefing.toml")),
               "full": build_report(v51_store, parse_spec(FULL_SPEC, name="full.toml")),
               "deck": build_report(v51_store, load_spec(REPO / "examples" / "executive-deck.toml")),
               "one": build_report(v51_store, parse_spec(NOT_RANKED_SPEC, name="one.toml"))}
    return {name: (r, export(r, [out / f"{name}.pdf"])[0]) for name, r in reports.items()}


@pytest.mark.parametrize("name", ["briefing", "full", "deck", "one"])
def test_every_rank_statement_in_the_pdf_holds_for_every_pair(v51_store, exported, name):
    report, path = exported[name]
    extra = {"availability": "available"} if name == "deck" else {}
    pairs = read_back_every_rank(v51_store, report, path, extra)
    print(f"{name}: {pairs} pairs checked")
    if name != "one":
        assert pairs > 0
    [result] = check([path])
    assert result.status == "clean", [str(h) for h in result.hits[:5]]


def test_the_briefing_ranks_read_back_are_the_guards_spans_with_ties(exported):
    report, path = exported["briefing"]
    text = "\n".join(pages_text(path))
    spans = [span.words() for s in report.sections if hasattr(s, "table") for span in s.table.ranks]
    assert any("(tie " in w for w in spans), "the briefing has ties to state"
    for words in spans:
        assert re.search(rf"(?m)^\s*{re.escape(words)}\s", text), f"{words!r} not shown whole on one line"
    assert not re.search(r"~\d+-\d+", text) and "bars of one colour" not in text
    assert squash("a lead smaller than the slack is a tie") not in squash(text)
    assert squash(TIE_RULE) in squash(pages_text(path)[0]), "the title page's 'how to read' states the tie rule"


def test_a_cohort_of_one_says_not_ranked_with_its_sentence(exported):
    report, path = exported["one"]
    [section] = report.sections
    assert [s.words() for s in section.table.ranks] == ["not ranked"]
    page = [p for p in pages_text(path) if "not ranked" in p][0]
    assert squash(NOT_RANKED_SENTENCE) in squash(page)


def test_every_notice_is_on_each_page_of_its_comparison(exported, tmp_path):
    shown = 0
    for name in ("briefing", "full", "deck"):
        report, _ = exported[name]
        (tmp_path / name).mkdir()
        shown += notices_on_their_pages(report, tmp_path / name)
    assert shown > 0, "the real data has comparisons of different scales (EG020)"
