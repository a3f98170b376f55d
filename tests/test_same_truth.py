"""Every path tells the same truth, on the real v5.1 data: a figure's band is its whole stored
cohort's whatever the filters, and the terminal, JSON, CSV, Markdown and XLSX write it digit for
digit alike (the exports add only the mark)."""
from __future__ import annotations

import csv
import json
import re
from decimal import ROUND_HALF_UP, Decimal

import pytest
from click.testing import CliRunner
from openpyxl import load_workbook

from exportguard.check.manifests import read_manifest
from exportguard.manifest import entries as manifest_entries
from exportguard.citation import row_note, table_note
from exportguard.cli import main
from exportguard.render import export
from exportguard.spec import build_report, parse_spec, spec_from_filters
from exportguard.textviews import cohort_header
from exportguard.wording import band_words, load_text

pytestmark = pytest.mark.real_data
MARKS = re.compile(r" (\[[a-z]+\])+")
LOCATION = re.compile(r"^'((?:[^']|'')+)'!([A-Z]+[0-9]+)$")


@pytest.fixture(scope="module")
def cli(v51_store):
    runner = CliRunner()

    def run(*args):
        result = runner.invoke(main, ["--db", v51_store.url, *args], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.output

    return run


def _key(record) -> tuple:
    i, b = record["conditions"]["identity"], record["conditions"]["benchmark"]
    return i["round"], i["division"], i["submitter_key"], i["system_id"], b["benchmark"], b["scenario"]


@pytest.fixture(scope="module")
def unfiltered(cli):
    records = json.loads(cli("list", "--json"))
    return {_key(r): (r["figure"], r["band_text"], r["cohort_results"]) for r in records}


FILTERS = [("--round", "v5.1"), ("--division", "closed"), ("--division", "open"), ("--model", "llama2-70b"),
           ("--track", "99"), ("--scenario", "Server"), ("--submitter", "NVIDIA"), ("--submitter", "AMD"),
           ("--availability", "available"), ("--verified", "verified")]


@pytest.mark.parametrize("option, value", FILTERS, ids=[f"{o}={v}" for o, v in FILTERS])
def test_no_filter_changes_any_figure_or_band_in_list(cli, unfiltered, option, value):
    records = json.loads(cli("list", "--json", option, value))
    assert records
    for r in records:
        assert (r["figure"], r["band_text"], r["cohort_results"]) == unfiltered[_key(r)]


def test_the_issue_example_keeps_the_cohort_band_and_says_what_it_shows(cli):
    out = cli("list", "--round", "v5.1", "--model", "llama2-70b", "--track", "99", "--scenario", "Offline",
              "--submitter", "NVIDIA")
    assert "llama2-70b-99 Offline (tokens/s): showing 2 of 47 results" in out
    assert "101,527 tok/s ±5.4%" in out and "±0.4%" not in out


def test_filtered_cohorts_print_the_whole_cohorts_band(cli):
    every = {line.split(":")[0]: line.split(";", 1)[1] for line in cli("cohorts").splitlines() if ";" in line}
    for option, value in FILTERS:
        for line in cli("cohorts", option, value).splitlines():
            if ";" in line:
                assert line.split(";", 1)[1] == every[line.split(":")[0]], (option, value, line)


def test_build_report_takes_bands_from_the_store_whatever_a_section_selects(v51_store):
    for submitter in ("NVIDIA", "AMD", "Dell"):
        spec = spec_from_filters({"round": ("v5.1",), "division": ("closed",), "submitter": (submitter,)},
                                 split_by_cohort=True)
        report = build_report(v51_store, spec)
        for section in report.sections:
            whole = v51_store.cohort_slack(section.table.cohort)
            assert section.table.slack == whole
            for _, _, fig in section.table.figures():
                assert fig.slack == whole


def _cell_display(cell) -> str:
    """What a spreadsheet shows for a cell, computed here independently of exportguard's wording:
    the number rounded half away from zero to the format's places, then the format's literal."""
    if cell.data_type == "s":
        return cell.value
    digits, _, literal = cell.number_format.partition('"')
    places = len(digits.split(".")[1]) if "." in digits else 0
    shown = Decimal(repr(cell.value)).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP)
    return f"{shown:,}" + literal[:-1]


def test_terminal_json_csv_markdown_and_xlsx_agree_digit_for_digit(cli, v51_store, tmp_path):
    spec = parse_spec('title = "All llama2-70b-99"\n[[section]]\nkind = "table"\ntitle = "t"\nsplit_by_cohort = true\n'
                      'filters = { round = "v5.1", division = "closed", benchmark = "llama2-70b-99" }\n')
    report = build_report(v51_store, spec)
    terminal = {_key(r): r["figure"] for r in json.loads(cli("list", "--json", "--round", "v5.1", "--division",
                                                             "closed", "--model", "llama2-70b", "--track", "99"))}
    text_lines = cli("list", "--round", "v5.1", "--division", "closed", "--model", "llama2-70b", "--track", "99")
    paths = export(report, [tmp_path / "a.csv", tmp_path / "a.md", tmp_path / "a.xlsx"])
    wb = load_workbook(tmp_path / "a.xlsx")
    for path in (p for p in paths if not p.name.endswith(".manifest.json")):
        entries = list(manifest_entries(read_manifest(path)))
        assert len(entries) == len(terminal) == 114
        for e in entries:
            c = e["conditions"]
            key = (c["identity"]["round"], c["identity"]["division"], c["identity"]["submitter_key"],
                   c["identity"]["system_id"], c["benchmark"]["benchmark"], c["benchmark"]["scenario"])
            shown = e["shown"]["text"]
            if path.suffix == ".xlsx":
                m = LOCATION.match(e["location"])
                shown = _cell_display(wb[m.group(1).replace("''", "'")][m.group(2)])
                assert shown == e["shown"]["text"]
            assert MARKS.sub("", shown) == terminal[key], (path.name, e["location"])
            assert f"  {terminal[key]}" in text_lines
    rows = list(csv.DictReader((tmp_path / "a.csv").open(encoding="utf-8")))
    assert {MARKS.sub("", r["figure"]) for r in rows} == set(terminal.values())


def test_an_exact_half_rounds_away_from_zero_everywhere(cli, v51_store, tmp_path):
    """Google's B200 llama2-70b-99 Offline result is 78,463.5 tok/s: 78,464 in every output."""
    out = cli("list", "--submitter", "Google", "--model", "llama2-70b", "--track", "99", "--scenario", "Offline")
    assert "78,464 tok/s ±5.4%" in out and "78,463 tok/s" not in out
    spec = spec_from_filters({"submitter": ("Google",), "benchmark": ("llama2-70b-99",), "scenario": ("Offline",),
                              "round": ("v5.1",), "division": ("closed",)}, split_by_cohort=False)
    export(build_report(v51_store, spec), [tmp_path / "g.md", tmp_path / "g.xlsx"])
    assert "| 78,464 tok/s ±5.4% [a] |" in (tmp_path / "g.md").read_text(encoding="utf-8")
    entry = next(e for e in read_manifest(tmp_path / "g.xlsx")["figures"] if e["value"] == 78463.5)
    assert entry["shown"] == {"text": "78,464 tok/s ±5.4% [a]", "value": 78463.5}


# -- the wording, pinned directly -------------------------------------------------------------------

def _amd_offline(store):
    return next(r for r in store.results(submitter="AMD", benchmark="llama2-70b-99", scenario="Offline")
                if r.conditions.identity.result_id == "5.1-0001")


def test_a_row_note_gives_every_citation_field_in_words(v51_store):
    note = row_note(_amd_offline(v51_store))  # on its own: no table note beside it gives the source
    assert note.text.startswith("AMD, Supermicro AS-8125GS-TNMR2. Result 5.1-0001, verified. 8 x AMD Instinct MI300X "
                                "192GB HBM3 on 1 node. 301.1 tokens/sample. Source https://github.com/mlcommons/"
                                "inference_results_v5.1/")
    # The store holds the summary and the tree: the run's accuracy log is the more precise basis, whichever came
    # first; a published measured value shows without its basis, which the note's detail names.
    assert "301.1 tokens/sample (accuracy log). Source https://github.com/mlcommons/inference_results_v5.1/" in note.detail
    # the framework is detail: in the row's whole footnote, not in the visible note
    assert "vLLM" not in note.text and "; vLLM" in note.detail and note.full == note.detail
    c = note.citation
    assert (c.suite, c.round, c.division, c.benchmark, c.scenario, c.result_id, c.verified) == \
        ("MLPerf® Inference: Datacenter", "v5.1", "closed", "llama2-70b-99", "Offline", "5.1-0001", True)


def test_a_table_note_states_suite_shape_load_and_the_band_basis(v51_store):
    r = _amd_offline(v51_store)
    note = table_note(r, v51_store.cohort_slack(r.cohort_key))
    assert note.text == (
        "MLPerf® Inference: Datacenter v5.1, Closed division; benchmark llama2-70b-99, Offline scenario. "
        "Shape: OpenOrca (24,576 samples), reference max output 1,024 tokens. Load: Offline: every query issued at "
        "once and drained (closed-loop), no latency bound; runs of at least 600 s. Band ±5.4%: half the cohort's "
        "shape slack of 10.8% (tokens per sample 272.6 to 302.0 over 47 verified results).")


def test_terminal_headers_and_load_words(v51_store):
    (cohort,) = v51_store.cohorts(round="v5.1", division="closed", benchmark="llama2-70b-99", scenario="Server",
                                  submitter="AMD")
    assert cohort_header(cohort) == ("MLPerf® v5.1 closed llama2-70b-99 Server (tokens/s): showing 2 of 45 results; "
                                     "tokens/sample 273.7 to 301.3 over 45 verified of 45, slack 10.1%, band ±5.0%")
    amd = next(r for r in cohort.results if r.conditions.identity.result_id == "5.1-0001")
    assert load_text(amd).startswith("Server: Poisson arrivals at a target rate, p99 time to first token <= 2000 ms, "
                                     "p99 time per output token <= 200 ms; runs of at least 600 s; target ")
    assert band_words(cohort.slack) == "±5.0%"
