"""What an ingest tells the user: non-zero when a source stored nothing, one line saying why, and
messages that name only options that exist; what plausibility refuses at the top; and no stored
value, whatever its size, makes a command print a traceback."""
from __future__ import annotations

import ast
import json
import re
from decimal import Decimal
from pathlib import Path

import click
import pytest
import sqlalchemy as sa
from click.testing import CliRunner

import exportguard
from exportguard.cli import main
from exportguard.commands import BY_NAME
from exportguard.ingest import ingest_path
from exportguard.store import open_store, results_table
from exportguard.wording import number
from tests.bad_sources import csv_slice, summary_slice, write_csv, write_summary
from tests.conftest import MLPERF, SHARED, SUMMARY_V51, TREE_V51
from tests.real_data import require_real_data

pytestmark = pytest.mark.real_data
require_real_data(MLPERF)
OWN_TRAFFIC = SHARED / "own-traffic"
require_real_data(OWN_TRAFFIC)

FIXTURE_TREE = Path(__file__).parent / "fixtures" / "mlperf" / "submissions" / "v5.1"


def _ingest(url, *paths):
    return CliRunner().invoke(main, ["--db", url, "ingest", *map(str, paths)])


def _error_lines(result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.strip()]


# --------------------------------------------------------------------------- an ingest that stores nothing


def _unknown_json(tmp_path):
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"throughput": 1000, "model": "x"}))
    return path, ["[not_a_summary_table]", "exportguard reads", "load-test tool", "vLLM bench serve"]


def _aiperf_csv(tmp_path):
    # the tool's CSV export of the run whose JSON exportguard reads: skipped by rule, pointing to the JSON
    return next(OWN_TRAFFIC.glob("aiperf/*/profile_export_aiperf.csv")), [
        "1 skipped by rule", "CSV export", "profile_export_*.json"]


def _csv_of_another_tool(tmp_path):
    path = tmp_path / "results.csv"
    path.write_text("name,score\na,1\n")
    return path, ["[missing_column]", "none of exportguard's columns", "templates/results.csv", "load-test tool"]


def _aiperf_folder(tmp_path):
    # a folder of tool output holding no result file (issue 35: a folder is read file by file, not as a tree)
    folder = tmp_path / "aiperf-run"
    folder.mkdir()
    (folder / "profile_export.jsonl").write_bytes(next(OWN_TRAFFIC.glob("aiperf/*/profile_export.jsonl")).read_bytes())
    return folder / "profile_export.jsonl", ["1 skipped by rule", "per-request records"]


def _only_other_benchmarks(tmp_path):
    rows = [r for r in json.loads(SUMMARY_V51.read_text()) if r["Model"].startswith("resnet")][:5]
    return write_summary(tmp_path, rows), ["of 5 rows, 5 skipped by rule (5 not an LLM benchmark)"]


def _every_row_bad(tmp_path):
    rows = csv_slice()
    for r in rows:
        r["unit"] = "tok/sec"
    return write_csv(tmp_path, rows), [f"of {len(rows)} rows, {len(rows)} quarantined ({len(rows)} unknown_unit)"]


def _header_only(tmp_path):
    path = tmp_path / "results.csv"
    path.write_text((Path(exportguard.__file__).parents[1] / "templates" / "results.csv").read_text().splitlines()[0]
                    + "\n")
    return path, ["the source holds no result rows"]


@pytest.mark.parametrize("make", [_unknown_json, _aiperf_csv, _csv_of_another_tool, _aiperf_folder,
                                  _only_other_benchmarks, _every_row_bad, _header_only])
def test_an_ingest_that_stores_nothing_exits_non_zero_and_says_why_in_one_line(sqlite_url, tmp_path, make):
    path, words = make(tmp_path)
    for attempt in ("first", "again"):  # the same on a re-ingest: it still stores nothing
        result = _ingest(sqlite_url, path)
        assert result.exit_code == 1, (attempt, result.output)
        (line,) = _error_lines(result)
        assert line.startswith(f"Error: {Path(path).resolve()}: nothing stored: "), line
        for w in words:
            assert w in line, (w, line)


def test_other_sources_are_still_ingested_and_the_exit_says_which_stored_nothing(sqlite_url, tmp_path):
    path, _ = _unknown_json(tmp_path)
    result = _ingest(sqlite_url, path, TREE_V51)
    assert result.exit_code == 1
    assert "51 added" in result.stdout
    (line,) = _error_lines(result)
    assert str(path) in line and "nothing stored" in line
    assert _ingest(sqlite_url, TREE_V51).exit_code == 0  # rows already stored are rows stored


def test_an_ingest_that_stores_rows_exits_zero_even_with_some_quarantined(sqlite_url, tmp_path):
    rows = summary_slice()
    rows[1]["Performance_Result"] = "fast"
    result = _ingest(sqlite_url, write_summary(tmp_path, rows))
    assert result.exit_code == 0 and _error_lines(result) == []


def _option_names() -> set[str]:
    names = {"--help", "--version"}
    for command in [main, *BY_NAME.values(), *BY_NAME["store"].commands.values()]:
        for param in command.params:
            if isinstance(param, click.Option):
                names |= {o for o in (*param.opts, *param.secondary_opts) if o.startswith("--")}
    return names


def _strings(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.lineno, node.value


def test_every_option_a_message_names_exists():
    known = _option_names()
    named = []
    for path in Path(exportguard.__file__).parent.rglob("*.py"):
        for line, text in _strings(ast.parse(path.read_text("utf-8"))):
            named += [(path.name, line, o) for o in re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", text)]
    assert named, "the scan found no option at all"
    assert [n for n in named if n[2] not in known] == []


# --------------------------------------------------------------------------- plausibility at the top


def test_a_throughput_beyond_any_system_is_quarantined_as_implausible(store, tmp_path):
    rows = summary_slice()
    rows[1]["Performance_Result"] = 2.5e9
    rows[2]["Performance_Result"] = 1e9  # the bound itself is not beyond it
    csv_rows = csv_slice()
    csv_rows[0]["value"] = "3000000000"
    ingest_path(store, write_summary(tmp_path, rows))
    ingest_path(store, write_csv(tmp_path, csv_rows))

    reasons = {(q["reason"], q["locator"].rsplit(", ", 1)[-1]) for q in store.quarantined()}
    assert reasons == {("implausible_throughput", "field Performance_Result"), ("implausible_throughput", "column value")}
    for q in store.quarantined():
        assert "no system reaches 1e+09 per second" in q["message"]
    assert any(r.value == 1e9 for r in store.results())


# --------------------------------------------------------------------------- huge stored values


@pytest.mark.parametrize("value", [1e300, 1.7976931348623157e308, float("inf")])
def test_number_writes_any_float(value):
    # The digits the value prints with (its repr), grouped; the default decimal context has only 28.
    expected = "inf" if value == float("inf") else f"{int(Decimal(repr(value))):,}"
    assert number(value) == expected


def test_a_huge_value_written_by_another_tool_prints_without_a_traceback(sqlite_url, tmp_path):
    with open_store(sqlite_url) as store:
        ingest_path(store, FIXTURE_TREE)
        with store.engine.begin() as conn:  # another tool's write: no ingest check stands in the way
            conn.execute(sa.update(results_table).where(results_table.c.submitter == "AMD").values(
                value=1e300, p99_ttft_ms=1e300))
            conn.execute(sa.update(results_table).where(results_table.c.submitter == "Cisco").values(
                tokens_per_sample=1e300))
    runner = CliRunner()
    commands = [["list"], ["list", "--json"], ["cohorts"], ["cohorts", "--json"]]
    commands += [["export", "--to", str(tmp_path / f"out.{ext}")] for ext in ("csv", "md", "xlsx", "pptx", "pdf")]
    for args in commands:
        result = runner.invoke(main, ["--db", sqlite_url, *args])
        assert result.exception is None or isinstance(result.exception, SystemExit), (args, result.exception)
        assert "Traceback" not in result.output, args
        if args[0] != "export":
            assert result.exit_code == 0, args
        if args in (["list"], ["list", "--json"]):
            assert "1,000,000,000,000,000,000" in result.stdout, args
