"""Issue 17 in the PDF briefing: every rank statement the PDF shows, read back from its text, is true
for every pair it covers (guard.is_tie against the whole stored cohort the section ranked among);
the tie rule stands on every page that shows a rank, the not-ranked sentence on every page that
shows "not ranked", every guard notice on every page of its comparison; the PDF checks clean."""
from __future__ import annotations

import re

import pytest

from exportguard.check.engine import check
from exportguard.check.manifests import read_manifest
from exportguard.guard import is_tie
from exportguard.render import export
from exportguard.report import BesideSection, ChartSection, KpiSection, TableSection
from exportguard.spec import build_report, load_spec, parse_spec
from exportguard.wording import NOT_RANKED_SENTENCE, TIE_RULE
from tests.test_render_pdf import FULL_SPEC, LOCATION, REPO, pages_raw, pages_text, squash

pytestmark = pytest.mark.real_data

# a rank cell as the PDF shows it, first on its row's line: "3", "3 (tie 2-11)", "not ranked"
RANK = re.compile(r"^\s*(?:(\d+)(?: \(tie (\d+)-(\d+)\))?|(not ranked))\s")
# one v5.1 cohort with a single result: its slack is not estimable, so nothing is ranked
NOT_RANKED_SPEC = '''
title = "A cohort of one"
[[section]]
kind = "table"
title = "llama3.1-405b Interactive, open division"
filters = { round = "v5.1", division = "open", model = "llama3.1-405b", scenario = "Interactive" }
'''


def _ranked_among(store, cohort, extra: dict):
    """The figures the guard ranked a table's rows among: the whole stored cohort within the spec's
    other filters (``extra``), highest first."""
    k = cohort
    results = store.results(round=k.round, division=k.division, model=k.model, accuracy_track=k.accuracy_track,
                            scenario=k.scenario, **extra)
    return sorted((r.value for r in results if r.cohort_key == k), reverse=True)


def read_back_every_rank(store, report, path, extra: dict) -> int:
    """Read every rank statement off the PDF's pages (the first words of the line that shows a
    figure of the column ranked by) and check it against is_tie for every pair it covers: the
    figure and each other figure it was ranked among. Returns the pairs checked."""
    pages, raw = pages_text(path), pages_raw(path)
    manifest = read_manifest(path)
    slack = {}
    for s in report.sections:
        for t in (s.tables() if isinstance(s, BesideSection) else (s.table,) if hasattr(s, "table") else ()):
            slack[t.cohort.label()] = (t.cohort, t.slack)
    pairs = statements = 0
    for entry in manifest["figures"]:
        if entry["derived"] or "headline" in entry["location"]:
            continue
        p = int(LOCATION.match(entry["location"]).group(1))
        page = pages[p - 1]
        lines = [x for x in page.splitlines() if entry["shown"]["text"] in x]
        assert lines, f"{entry['location']}: {entry['shown']['text']!r} not on one line"
        m = RANK.match(lines[0])
        if m is None:
            continue  # a table or chart without ranks
        statements += 1
        flat = squash(raw[p - 1])  # in drawing order: a shared conditions block reads whole beside another panel
        if m.group(4):
            assert squash(NOT_RANKED_SENTENCE) in flat, f"page {p}: 'not ranked' without its sentence"
            continue
        assert squash(TIE_RULE) in flat, f"page {p}: a rank without the tie rule"
        position = int(m.group(1))
        lo, hi = (int(m.group(2)), int(m.group(3))) if m.group(2) else (position, position)
        assert lo <= position <= hi
        cohort, table_slack = slack[entry["cohort"]]
        values = _ranked_among(store, cohort, extra)
        assert values[position - 1] == pytest.approx(entry["value"]), (p, position, entry["value"])
        for k, other in enumerate(values, 1):
            if k != position:
                pairs += 1
                assert is_tie(entry["value"], other, table_slack) == (lo <= k <= hi), \
                    f"page {p}: rank {m.group(0).strip()!r} of {entry['value']} against rank {k} ({other})"
    assert statements, "no rank statement read back"
    return pairs


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
