"""A rank is the row's rank in its whole stored cohort, whatever filter or limit chose the rows shown
(DESIGN invariant 4, issue 32 item 1): in `list`, `list --json`, the API and every export format,
with the cohort's size where the rows shown are not its first ones, and a table note that says
which rows are shown."""
from __future__ import annotations

import csv
import json
from dataclasses import replace

import pytest
from click.testing import CliRunner

from exportguard.api import select
from exportguard.cli import main
from exportguard.guard import validate
from exportguard.report import TableSection
from exportguard.spec import build_report, spec_from_filters

pytestmark = pytest.mark.real_data
COHORT = ["--round", "v5.1", "--division", "closed", "--model", "llama2-70b", "--track", "99", "--scenario", "Offline"]


def _records(store, *args):
    out = CliRunner().invoke(main, ["--db", store.url, "list", *COHORT, *args, "--json"])
    assert out.exit_code == 0, out.output
    return json.loads(out.output)


def _whole_ranks(store) -> dict[str, str]:
    """Each result's rank words in the unfiltered cohort, by its figure and conditions."""
    return {_key(r): r["rank"] for r in _records(store)}


def _key(rec) -> str:
    i = rec["conditions"]["identity"]
    return f"{i['submitter']}|{i['system_id']}"


def test_list_json_ranks_a_filtered_row_in_its_whole_cohort(v51_store):
    whole = _whole_ranks(v51_store)
    assert len(whole) == 47
    nvidia = _records(v51_store, "--submitter", "NVIDIA")
    assert 0 < len(nvidia) < 47
    for rec in nvidia:
        assert rec["rank"] == f"{whole[_key(rec)]} of 47", rec["rank"]
        assert rec["cohort_results"] == 47
    dgx = next(r for r in nvidia if r["conditions"]["identity"]["system_id"] == "B200-SXM-180GBx8_TRT")
    assert dgx["rank"] == "7 (tie 3-12) of 47" and (dgx["rank_from"], dgx["rank_to"], dgx["position"]) == (3, 12, 7)


def test_list_text_ranks_a_filtered_row_in_its_whole_cohort(v51_store):
    out = CliRunner().invoke(main, ["--db", v51_store.url, "list", *COHORT, "--accelerator", "h200"]).output
    assert "showing" in out
    cisco = [line for line in out.split("\n") if "Cisco" in line and "16 x" in line]
    assert cisco and all(not line.strip().startswith("1 ") for line in cisco), cisco
    assert all(" of 47 " in line for line in cisco), cisco


def test_api_select_report_ranks_in_the_whole_cohort_and_its_note_says_which_rows(v51_store):
    whole = {r["figure"]: r["rank"] for r in _records(v51_store)}
    selection = select(v51_store, round="v5.1", division="closed", model="llama2-70b", track="99",
                       scenario="Offline", submitter="NVIDIA")
    (section,) = selection.report.sections
    table = section.table
    for row in table.rows:
        fig = next(c for c in row if not isinstance(c, str))
        assert row[0] == f"{whole[fig.text()]} of 47"
    assert "of the cohort's 47 results" in table.table_note.text
    assert "submitter NVIDIA" in table.table_note.text
    assert not [f for f in validate(selection.report) if f.severity == "error"]


def test_an_export_with_a_filter_ranks_in_the_whole_cohort_in_csv_and_markdown(v51_store, tmp_path):
    whole = _whole_ranks(v51_store)
    out = CliRunner().invoke(main, ["--db", v51_store.url, "export", *COHORT, "--submitter", "NVIDIA",
                                    "--to", str(tmp_path / "r.csv"), "--to", str(tmp_path / "r.md")])
    assert out.exit_code == 0, out.output
    md = (tmp_path / "r.md").read_text("utf-8")
    assert "| 7 (tie 3-12) of 47 |" in md and "| 1 |" not in md
    rows = list(csv.DictReader((tmp_path / "r.csv").read_text("utf-8-sig").splitlines()))
    ranks = [r["rank"] for r in rows]
    assert ranks and all(r.endswith(" of 47") for r in ranks), ranks
    assert sorted(ranks) == sorted(f"{v} of 47" for k, v in whole.items() if k.startswith("NVIDIA|"))


def test_a_spec_filter_and_a_limit_rank_in_the_whole_cohort(v51_store):
    spec = spec_from_filters({"round": "v5.1", "division": "closed", "model": "llama2-70b", "accuracy_track": "99",
                              "scenario": "Offline", "accelerator": "h200"}, False)
    spec = replace(spec, sections=(replace(spec.sections[0], limit=3),))
    report = build_report(v51_store, spec)
    section = report.sections[0]
    assert isinstance(section, TableSection)
    assert [row[0] for row in section.table.rows][0] != "1"
    assert all(row[0].endswith(" of 47") for row in section.table.rows)
    assert "3 of the cohort's 47 results" in section.table.table_note.text
    assert not [f for f in validate(report) if f.severity == "error"]


def test_a_table_that_shows_its_cohorts_first_rows_needs_no_size(v51_store):
    """A top N of the whole cohort ranks 1..N as before: its note says it shows the N highest."""
    spec = spec_from_filters({"round": "v5.1", "division": "closed", "model": "llama2-70b", "accuracy_track": "99",
                              "scenario": "Offline"}, False)
    spec = replace(spec, sections=(replace(spec.sections[0], limit=8),))
    table = build_report(v51_store, spec).sections[0].table
    assert table.rows[0][0] == "1" and table.rows[7][0] == "8 (tie 3-12)"
    assert "the 8 highest of the cohort's 47 results" in table.table_note.text
