"""Exports as files: created like any other file (the user's umask), checked before any rendering,
moved into place all together or not at all, never outside the spec's folder unless asked."""
from __future__ import annotations

import os

import pytest
from click.testing import CliRunner

from exportguard.cli import main
from exportguard.errors import ExportguardError
from exportguard.render import export
from exportguard.spec import SpecError, build_report, load_prices, parse_spec, spec_from_filters

pytestmark = pytest.mark.real_data


@pytest.fixture(scope="module")
def report(v51_store):
    spec = spec_from_filters({"round": ("v5.1",), "division": ("closed",), "benchmark": ("llama2-70b-99",),
                              "scenario": ("Offline",)}, split_by_cohort=False)
    return build_report(v51_store, spec)


def test_exports_get_the_users_umask(report, tmp_path):
    old = os.umask(0o022)
    try:
        paths = export(report, [tmp_path / "a.md", tmp_path / "a.csv", tmp_path / "a.xlsx"])
    finally:
        os.umask(old)
    assert {oct(p.stat().st_mode & 0o777) for p in paths} == {"0o644"}


def test_a_folder_as_second_target_stops_the_export_before_the_first_is_touched(report, tmp_path):
    first = tmp_path / "keep.md"
    first.write_text("the earlier report\n")
    (tmp_path / "folder.csv").mkdir()
    with pytest.raises(ExportguardError, match="is a folder"):
        export(report, [first, tmp_path / "folder.csv"])
    assert first.read_text() == "the earlier report\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder.csv", "keep.md"]  # no .part left


def test_a_read_only_target_is_refused_unless_forced(report, tmp_path):
    target = tmp_path / "frozen.md"
    target.write_text("approved version\n")
    target.chmod(0o444)
    with pytest.raises(ExportguardError, match="read-only"):
        export(report, [target])
    assert target.read_text() == "approved version\n"
    export(report, [target], force=True)
    assert "tok/s" in target.read_text(encoding="utf-8")


def test_a_failed_move_puts_back_what_was_there(report, tmp_path, monkeypatch):
    a, b = tmp_path / "a.md", tmp_path / "b.md"
    a.write_text("old a\n")
    b.write_text("old b\n")
    real_replace = os.replace
    calls = {"n": 0}

    def flaky(src, dst):
        if str(dst) == str(b) and not calls["n"]:  # the new b fails to land; putting back the old one works
            calls["n"] += 1
            raise OSError("disk full (simulated)")
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", flaky)
    with pytest.raises(ExportguardError, match="b.md: could not be put in place: disk full .simulated.*Nothing was replaced"):
        export(report, [a, b])
    monkeypatch.setattr(os, "replace", real_replace)
    assert (a.read_text(), b.read_text()) == ("old a\n", "old b\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.md", "b.md"]


@pytest.mark.parametrize("target", ["../../escape.md", "/tmp/anywhere.md", "out/../../x.md"])
def test_spec_targets_stay_in_the_specs_folder(target):
    with pytest.raises(SpecError, match="leaves the spec's folder"):
        parse_spec(f'title = "t"\n[[section]]\nkind = "text"\ntitle = "x"\ntext = "y"\n[outputs]\ntargets = ["{target}"]\n')


def test_spec_prices_stay_in_the_specs_folder():
    with pytest.raises(SpecError, match="line 7.*leaves the spec's folder"):
        parse_spec('title = "t"\n[[section]]\nkind = "text"\ntitle = "x"\ntext = "y"\n[outputs]\nprices = "/etc/passwd"\n')


@pytest.mark.parametrize("value, words", [("inf", "finite positive"), ("nan", "finite positive"),
                                          ('"6.0"', "finite positive"), ("-1.0", "finite positive"),
                                          ("true", "finite positive")])
def test_a_price_that_is_not_a_finite_positive_number_is_refused(tmp_path, value, words):
    path = tmp_path / "prices.toml"
    path.write_text(f'currency = "USD"\nsource = "test"\n[[price]]\naccelerator = "X"\nper_hour = {value}\n')
    with pytest.raises(SpecError, match=f"line 5.*{words}"):
        load_prices(path)


def test_the_cli_names_a_refused_target(v51_store, tmp_path):
    (tmp_path / "out.md").mkdir()
    result = CliRunner().invoke(main, ["--db", v51_store.url, "export", "--round", "v5.1", "--model", "llama2-70b",
                                       "--track", "99", "--scenario", "Offline", "--division", "closed",
                                       "--to", str(tmp_path / "out.md")])
    assert result.exit_code == 1 and "out.md: is a folder" in result.output
