"""Titles that hold (issue 32 item 4): a "top N" over rows no band can rank reads "N highest" and
says why; a derived tokens/sample above the reference maximum says so; auto titles keep a benchmark
and its track together; an own-runs-only export is titled so that the checker passes it."""
from __future__ import annotations

from importlib import resources

import pytest
from click.testing import CliRunner

from exportguard.check.engine import check
from exportguard.cli import main
from exportguard.model import TPS_DERIVED, Shape
from exportguard.report import TableSection
from exportguard.spec import build_report, parse_spec, spec_from_filters
from exportguard.wording import tps_cell

pytestmark = pytest.mark.real_data


def test_a_top_n_section_whose_rows_are_not_ranked_is_titled_n_highest_and_says_why(v51_store):
    text = resources.files("exportguard").joinpath("data/demo-briefing.toml").read_text("utf-8")
    report = build_report(v51_store, parse_spec(text, name="demo-briefing.toml"))
    tables = [s for s in report.sections if isinstance(s, TableSection)]
    unranked = [s for s in tables if not s.table.slack.estimable]
    assert unranked
    for s in unranked:
        assert "top 5" not in s.title.lower() and "5 highest" in s.title, s.title
        assert "not ranked: slack not estimable" in s.title, s.title
    assert any("top 5" in s.title for s in tables if s.table.slack.estimable)


def test_a_derived_tokens_per_sample_above_the_reference_maximum_says_so():
    above = Shape(129.0, TPS_DERIVED, 128, "CNN/DailyMail", 13368)
    assert tps_cell(above) == "129.0 (derived from the token and sample rates, above the 128-token reference maximum)"
    below = Shape(127.0, TPS_DERIVED, 128, "CNN/DailyMail", 13368)
    assert "above" not in tps_cell(below)


def test_an_auto_title_keeps_the_benchmark_and_its_track_together():
    spec = spec_from_filters({"round": "v5.1", "model": "llama2-70b", "accuracy_track": "99", "scenario": "Offline"},
                             False)
    assert "llama2-70b-99" in spec.title and "llama2-70b 99" not in spec.title


def test_an_own_runs_only_export_is_titled_so_that_the_checker_passes_it(tmp_path):
    db = f"sqlite:///{tmp_path / 'store.db'}"
    runner = CliRunner()
    assert runner.invoke(main, ["--db", db, "demo", "--out", str(tmp_path / "demo")]).exit_code == 0
    out = runner.invoke(main, ["--db", db, "export", "--non-mlperf", "--to", str(tmp_path / "own.md")])
    assert out.exit_code == 0, out.output
    title = (tmp_path / "own.md").read_text("utf-8").split("\n", 1)[0]
    assert "non-MLPerf" not in title, title
    findings = [h for r in check([tmp_path / "own.md"]) for h in r.hits]
    assert not [h for h in findings if h.rule_id == "EG011"], findings
