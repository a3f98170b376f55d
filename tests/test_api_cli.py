"""The command line is a thin layer over the public API: each command calls the API's function, with
the same filters, and gives the same figures."""
from __future__ import annotations

import json

import click
import pytest
from click.testing import CliRunner

import exportguard as eg
from exportguard import api, api_check, cli, commands
from tests.conftest import SUMMARY_V51, TREE_V51

pytestmark = pytest.mark.real_data


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('cli') / 'store.db'}"
    result = CliRunner().invoke(cli.main, ["--db", url, "ingest", str(TREE_V51), str(SUMMARY_V51),
                                           "--retrieved", "2025-09-09"])
    assert result.exit_code == 0, result.output
    return url


def _run(url, *args, code=0):
    result = CliRunner().invoke(cli.main, ["--db", url, *args])
    assert result.exit_code == code, result.output
    return result.output


def test_the_command_lines_choices_are_the_apis():
    for option in commands.FILTER_OPTIONS:
        param = option(lambda **_: None).__click_params__[0]
        if isinstance(param.type, click.Choice):
            assert set(param.type.choices) <= set(api.CHOICES[param.name]), param.name
            assert param.name != "scenario" or tuple(param.type.choices) == api.CHOICES["scenario"][:3]
    assert set(commands.FILTER_NAMES) | {"round"} <= set(api.FILTERS)


@pytest.mark.parametrize("args, filters", [
    (["--model", "LLAMA2-70B", "--track", "99", "--scenario", "offline", "--division", "closed"],
     dict(model="LLAMA2-70B", track="99", scenario="offline", division="closed")),
    (["--accelerator", "h200", "--accelerator-count", "8", "--unit", "TOKENS/S"],
     dict(accelerator="h200", accelerator_count=8, unit="TOKENS/S")),
    (["--round", "v5.1", "--submitter", "nvidia", "--verified", "verified", "--mlperf"],
     dict(round="v5.1", submitter="nvidia", verified="verified", mlperf=True)),
])
def test_list_shows_what_select_selects(url, args, filters):
    listed = json.loads(_run(url, "list", "--json", *args))
    with eg.open_store(url, create=False) as store:
        selection = eg.select(store, **filters)
    records = selection.to_records()
    assert listed and len(listed) == len(records)
    assert [(r["figure"], r["conditions"]["identity"]["result_id"]) for r in listed] == \
        [(r["figure"].rsplit(" [", 1)[0], r["result_id"]) for r in records]


def test_an_export_from_the_command_line_and_from_the_api_write_the_same_rows(url, tmp_path):
    _run(url, "export", "--model", "llama2-70b", "--track", "99", "--scenario", "Server", "--division", "closed",
         "--to", str(tmp_path / "cli.csv"))
    with eg.open_store(url, create=False) as store:
        report = eg.build_report(store, model="llama2-70b", track="99", scenario="Server", division="closed")
    eg.export(report, tmp_path / "api.csv")
    assert (tmp_path / "cli.csv").read_bytes() == (tmp_path / "api.csv").read_bytes()


@pytest.mark.parametrize("name, args", [
    ("select", ["list", "--model", "llama2-70b"]),
    ("select", ["cohorts"]),
    ("build_report", ["export", "--model", "llama2-70b", "--track", "99", "--scenario", "Offline", "--division", "closed", "--to", "{tmp}/x.md"]),
    ("export", ["export", "--model", "llama2-70b", "--track", "99", "--scenario", "Offline", "--division", "closed", "--to", "{tmp}/y.md"]),
    ("ingest_sources", ["ingest", str(SUMMARY_V51)]),
    ("open_store", ["quarantine"]),
])
def test_each_command_calls_the_api(url, tmp_path, monkeypatch, name, args):
    calls = []
    real = getattr(api, name)

    def spy(*a, **k):
        calls.append(name)
        return real(*a, **k)

    monkeypatch.setattr(api, name, spy)
    _run(url, *[a.replace("{tmp}", str(tmp_path)) for a in args])
    assert calls, f"{args[0]} did not call api.{name}"


def test_check_calls_the_api_and_keeps_its_exit_codes(url, tmp_path, monkeypatch):
    _run(url, "export", "--model", "llama2-70b", "--track", "99", "--scenario", "Offline", "--division", "closed",
         "--to", str(tmp_path / "figures.md"))
    calls = []
    real = api_check.check_documents  # the checker's calls live apart from the store's (a fast `check`)
    monkeypatch.setattr(api_check, "check_documents", lambda *a, **k: calls.append(a) or real(*a, **k))
    assert "1 file: 0 with findings" in _run(url, "check", str(tmp_path / "figures.md"))
    assert calls == [(str(tmp_path / "figures.md"),)]
    assert "unknown rule 'EG999' (see --rules)" in _run(url, "check", "--ignore", "EG999", str(tmp_path), code=2)


def test_the_command_lines_refusals_keep_their_words_and_codes(url, tmp_path):
    out = _run(url, "export", "--model", "llama2-70b", "--to", str(tmp_path / "x.md"), code=1)
    assert "EG003 mixed-cohort (error)" in out and "Way out" in out
    spec = tmp_path / "s.toml"
    spec.write_text('title = "t"\n[[section]]\nkind = "table"\ntitle = "x"\n')
    assert "give either --spec or filters" in _run(url, "export", "--spec", str(spec), "--model", "x", code=2)
    assert "no output: give --to FILE" in _run(url, "export", "--model", "llama2-70b", code=2)
    assert "is not a date like 2025-09-09" in _run(url, "ingest", str(SUMMARY_V51), "--retrieved", "9/9", code=2)


def test_a_spec_whose_outputs_is_no_table_ends_in_one_line(url, tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text('title = "t"\noutputs = 3\n[[section]]\nkind = "table"\ntitle = "x"\n')
    out = _run(url, "export", "--spec", str(spec), code=1)
    assert "line 2, key 'outputs': outputs must be a table" in out and "Traceback" not in out
