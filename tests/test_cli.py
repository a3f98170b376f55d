"""The command line as a user meets it: demo, ingest, cohorts, list; no bare numbers anywhere."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from click.testing import CliRunner

from exportguard.cli import main
from exportguard.wording import number
from tests.conftest import SUMMARY_V51, TREE_V51

pytestmark = pytest.mark.real_data


@pytest.fixture
def run(sqlite_url):
    runner = CliRunner()

    def invoke(*args):
        result = runner.invoke(main, ["--db", sqlite_url, *args], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.output

    return invoke


def test_help_lists_every_command_and_builds_none_of_them():
    """`exportguard --help` reads the command list in cli.py; the commands load when one is run."""
    from exportguard import cli
    from exportguard.commands import BY_NAME

    assert sorted(cli.COMMANDS) == sorted(BY_NAME)
    code = ("import sys; from click.testing import CliRunner; from exportguard.cli import main; "
            "out = CliRunner().invoke(main, ['--help']).output; "
            "print('exportguard.commands' in sys.modules, '...' in out.split('Commands:')[1], out.count(chr(10)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[:2] == ["False", "False"], out  # nothing built, no help line cut short
    assert int(out[2]) >= len(BY_NAME) + 8
    for name in BY_NAME:  # each command still answers its own --help, in full
        result = CliRunner().invoke(cli.main, [name, "--help"])
        assert result.exit_code == 0 and f"Usage: main {name}" in result.output, (name, result.output)


def test_help_starts_without_importing_heavy_libraries():
    code = ("import sys, exportguard.cli; heavy = [m for m in ('sqlalchemy', 'openpyxl', 'pptx', 'reportlab') "
            "if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.quick
def test_demo_ingests_the_shipped_real_data_shows_the_cohorts_and_writes_a_bound_report(run, tmp_path):
    out = run("demo", "--out", str(tmp_path))
    assert "v5.1_summary_results.llm.json (mlperf_summary): 373 read = 351 added" in out
    assert "MLPerf® v5.1 closed llama2-70b-99 Offline (tokens/s): 47 results" in out
    assert "slack 10.8%, band ±5.4%" in out
    # an own load test beside the MLPerf data, never in one of its cohorts
    assert "(vllm_bench): 1 read = 1 added" in out
    assert "Own runs: mock-llm; vllm bench serve; closed loop, 8 requests in flight" in out
    assert "779 tok/s (single run: no band) own measurement, unverified" in out
    for name in ("vendor-comparison.xlsx", "vendor-comparison.md", "vendor-comparison.csv", "executive-deck.pptx",
                 "briefing.pdf", "briefing.docx"):
        assert (tmp_path / name).is_file(), name
    again = run("demo", "--out", str(tmp_path))
    assert "0 added" in again and "351 unchanged" in again


@pytest.mark.quick
def test_ingest_prints_a_reconciled_summary_per_source(run):
    out = run("ingest", str(TREE_V51), str(SUMMARY_V51))
    assert "51 read = 51 added" in out
    assert "1448 read = 300 added + 51 enriched + 0 unchanged + 0 changed + 0 quarantined + 1097 skipped by rule" in out
    assert "skipped 1032: not an LLM benchmark" in out


def test_ingest_json_report(run):
    (report,) = json.loads(run("ingest", "--json", str(SUMMARY_V51)))
    assert report["rows_read"] == 1448 and report["added"] == 351 and len(report["sha256"]) == 64


def test_cohorts_say_why_slack_is_not_estimable(run):
    run("ingest", str(SUMMARY_V51))
    out = run("cohorts", "--round", "v5.1", "--division", "open")
    assert "llama3.1-405b Interactive (tokens/s): 1 result; slack not estimable: 1 result" in out
    assert "±0%" not in out and "±0.0%" not in out
    rows = json.loads(run("cohorts", "--json", "--division", "closed"))
    offline = next(r for r in rows if r["cohort"] == "MLPerf® v5.1 closed llama2-70b-99 Offline (tokens/s)")
    assert offline["count"] == 47 and offline["band_text"] == "±5.4%"


NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?![\d.%])")


def test_list_never_prints_a_figure_without_unit_and_band(run):
    run("ingest", str(TREE_V51), str(SUMMARY_V51))
    out = run("list", "--model", "llama2-70b", "--scenario", "Offline")
    figure_lines = [line for line in out.splitlines() if re.search(r"\d tok/s", line)]
    assert len(figure_lines) >= 94
    for line in figure_lines:
        assert re.search(r"[\d,]+ tok/s (±\d+\.\d%|\(slack not estimable(?:: [^)]+)?\))", line), line


def test_list_json_carries_unit_band_and_conditions_with_every_value(run):
    run("ingest", str(SUMMARY_V51))
    records = json.loads(run("list", "--json", "--submitter", "nvidia"))
    assert records
    for r in records:
        assert r["unit"] and r["band_text"] and r["cohort"]
        assert r["figure"].startswith(number(r["value"]) + " ")
        c = r["conditions"]
        assert c["benchmark"]["scenario"] and c["shape"]["dataset"] and c["identity"]["result_id"]


def test_a_bad_store_url_is_a_clear_error(tmp_path):
    result = CliRunner().invoke(main, ["--db", "nosuch://x", "cohorts"])
    assert result.exit_code != 0 and "unsupported database" in result.output


def test_the_csv_template_has_every_documented_column():
    from pathlib import Path

    from exportguard.ingest.csv_rows import COLUMNS

    root = Path(__file__).resolve().parents[1]
    header = (root / "templates" / "results.csv").read_text().splitlines()[0].split(",")
    assert header == list(COLUMNS)
    readme = (root / "README.md").read_text(encoding="utf-8")
    assert all(f"`{c}`" in readme for c in COLUMNS)


def test_db_works_after_the_command_too(sqlite_url):
    runner = CliRunner()
    done = runner.invoke(main, ["ingest", str(TREE_V51), "--db", sqlite_url], catch_exceptions=False)
    assert done.exit_code == 0 and "51 read = 51 added" in done.output
    listed = runner.invoke(main, ["list", "--submitter", "AMD", "--db", sqlite_url], catch_exceptions=False)
    assert listed.exit_code == 0 and "27,804 tok/s" in listed.output


def test_commands_that_read_the_store_import_no_renderer(sqlite_url):
    code = ("import sys; from exportguard.cli import main\n"
            "try:\n    main(['--db', sys.argv[1], 'cohorts'])\nexcept SystemExit:\n    pass\n"
            "print([m for m in ('openpyxl', 'pptx', 'reportlab', 'pypdf', 'PIL') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code, sqlite_url], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"


def test_checking_a_file_builds_no_model_and_opens_no_store(tmp_path):
    """`exportguard check` on a Markdown file: the checker's readers and rules, the escaping they read
    with, and nothing of the store (SQLAlchemy) or the model's classes (a check's start-up time)."""
    doc = tmp_path / "brief.md"
    doc.write_text("Vendor X reaches 101,527 tok/s on our cluster.\n", encoding="utf-8")
    # the command's own imports, then the reading and the rules in this process (the command forks a worker)
    code = ("import sys; import exportguard.cli; from exportguard.api_check import check_documents\n"
            "from exportguard.check.engine import check\n"
            "print([h.rule_id for r in check([sys.argv[1]], isolate=False) for h in r.hits])\n"
            "print([m for m in ('sqlalchemy', 'exportguard.store', 'exportguard.model', 'openpyxl', 'pptx', 'reportlab')"
            " if m in sys.modules])")
    done = subprocess.run([sys.executable, "-c", code, str(doc)], capture_output=True, text=True, timeout=120)
    assert "EG001" in done.stdout, done.stdout + done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"
