"""The notebook display of a selection (exportguard/notebook.py) on what the public tests cannot
store: a name the guard refuses, and a table longer than a notebook cell shows."""
from __future__ import annotations

import dataclasses

import pytest

import exportguard as eg
from exportguard import notebook
from tests.conftest import SUMMARY_V51

pytestmark = pytest.mark.real_data


@pytest.fixture(scope="module")
def selection(tmp_path_factory):
    with eg.open_store(f"sqlite:///{tmp_path_factory.mktemp('display') / 's.db'}") as store:
        eg.ingest_sources(store, SUMMARY_V51)
        return eg.select(store, round="v5.1", division="closed", model="llama2-70b", track="99", scenario="Offline")


def test_a_name_that_reads_like_a_figure_is_shown_as_the_guards_refusal(selection):
    cohort = selection.cohorts[0]
    first = cohort.results[0]
    named = first.with_conditions(identity=dataclasses.replace(first.conditions.identity,
                                                               system_name="999,999 tok/s ±0.1% [a]"))
    hostile = dataclasses.replace(selection, cohorts=(dataclasses.replace(cohort, results=(named, *cohort.results[1:])),))
    page = hostile._repr_html_()
    assert "Refused by the guard" in page and "EG001" in page and "<table>" not in page
    assert "<table>" in selection._repr_html_()


def test_a_long_table_shows_its_first_rows_and_says_how_many_it_holds(selection, monkeypatch):
    monkeypatch.setattr(notebook, "MAX_ROWS", 5)
    page = selection._repr_html_()
    total = len(selection)
    assert page.count("<tr><td>") == 5
    assert f"Showing the first 5 of {total} rows" in page
    notes = page.split("</table>", 1)[1]
    assert "[e] " in notes and "[f] " not in notes  # the notes of the rows shown, lettered on their own


def test_every_section_kind_shows_bound_with_only_the_displays_tags(tmp_path):
    from html.parser import HTMLParser
    from importlib import resources

    from tests.conftest import TREE_V51

    data = resources.files("exportguard").joinpath("data")
    tags = set()

    class Tags(HTMLParser):
        def handle_starttag(self, tag, attrs):
            tags.add(tag)

    with eg.open_store(f"sqlite:///{tmp_path / 's.db'}") as store, \
            resources.as_file(data.joinpath("examples", "own-traffic")) as own:
        eg.ingest_sources(store, TREE_V51, SUMMARY_V51, *sorted(own.glob("*.json")))
        beside = eg.build_report(store, {"title": "Beside", "section": [{
            "kind": "beside", "title": "Ours beside MLPerf",
            "mlperf": {"round": "v5.1", "division": "closed", "model": "llama2-70b", "track": "99",
                       "scenario": "Server", "accelerator_count": 8},
            "own": {"mlperf": False}}]})
        with resources.as_file(data.joinpath("demo-deck.toml")) as spec:
            deck = eg.build_report(store, spec)
    page = beside._repr_html_()
    assert "Ours beside MLPerf: both shapes" in page and "own measurement" in page
    assert "Beside, never one comparison" in page and "±" in page
    kinds = [s.kind for s in deck.report.sections]
    assert {"kpi", "chart", "table", "text"} <= set(kinds)
    deck_page = deck._repr_html_()
    for section in deck.report.sections:
        assert notebook.esc(section.title) in deck_page
    Tags().feed(page + deck_page)
    assert tags <= set(notebook.TAGS)
