"""Issue 32, item 7: the smaller things a user meets: a figure that prints as its bound text, one short
scale warning per export, result IDs as MLCommons writes them, help for every option, a workbook whose
marks mean one thing, a walkthrough that runs where exportguard is installed, a README that is current."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from exportguard.cli import main
from exportguard.commands import BY_NAME
from tests.conftest import SUMMARY_V51

pytestmark = pytest.mark.real_data

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def cli(sqlite_url):
    def invoke(*args):
        result = CliRunner().invoke(main, ["--db", sqlite_url, *args], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result

    invoke("ingest", str(SUMMARY_V51))
    return invoke


def test_a_bound_figure_prints_as_its_bound_text(v51_store):
    from exportguard.spec import build_report, parse_spec

    report = build_report(v51_store, parse_spec((ROOT / "examples" / "executive-deck.toml").read_text("utf-8")))
    _, fig = next(iter(report.figures()))
    assert str(fig) == fig.text()
    assert len(repr(fig)) < 200 and fig.text() in repr(fig) and fig.result.conditions.identity.result_id in repr(fig)


def test_an_export_warns_of_its_scales_once_and_in_short(cli, tmp_path):
    out = cli("export", "--spec", str(ROOT / "examples" / "executive-deck.toml"), "--to", str(tmp_path / "deck.md"))
    lines = [line for line in out.stderr.splitlines() if "EG020" in line]
    assert len(lines) == 1 and len(lines[0]) < 320, lines
    assert "sections 1, 2 and 4" in lines[0] and "--accelerator-count N" in lines[0]  # 3: per accelerator
    assert "5 sections" in out.stdout


def test_one_section_is_one_section(cli, tmp_path):
    out = cli("export", "--model", "llama2-70b", "--track", "99", "--scenario", "Offline", "--division", "closed",
              "--limit", "3", "--to", str(tmp_path / "top.md"))
    assert "in 1 section," in out.stdout and "1 sections" not in out.stdout


def test_list_json_gives_the_result_id_as_mlcommons_writes_it(cli):
    records = json.loads(cli("list", "--json", "--submitter", "nvidia").stdout)
    assert records and all(re.fullmatch(r"\d+\.\d+-\d{4}", r["result_id"]) for r in records), records[0]["result_id"]
    assert all(r["result_id_state"] == "official" for r in records)


@pytest.mark.parametrize("command, option", [("list", "--availability"), ("list", "--verified"),
                                             ("export", "--availability"), ("quarantine", "--json")])
def test_every_option_says_what_it_does(command, option):
    (param,) = [p for p in BY_NAME[command].params if option in p.opts]
    assert param.help and len(param.help) > 20, option
    assert param.help in " ".join(CliRunner().invoke(main, [command, "--help"], terminal_width=400).output.split())


def test_the_pptx_analysis_numbers_its_sections_in_order():
    numbers = [int(m) for m in re.findall(r"^## (\d+)\.", (ROOT / "docs" / "pptx.md").read_text("utf-8"), re.M)]
    assert numbers == list(range(1, len(numbers) + 1)), numbers


def test_the_walkthrough_needs_no_checkout():
    import nbformat

    nb = nbformat.read(ROOT / "examples" / "api-walkthrough.ipynb", as_version=4)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert "pyproject.toml" not in code and "shared" not in code.lower()
    assert 'files("exportguard")' in code and '"examples"' in code


def test_the_readme_is_current_about_beside_and_the_scale_statement():
    readme = (ROOT / "README.md").read_text("utf-8")
    flat = " ".join(readme.split())
    assert "PDF and XLSX refuse it" not in flat and "not yet." not in flat
    assert "CSV, Markdown, PPTX, PDF, Word and XLSX draw it" in flat
    assert "Every format shows the statement" in flat


def test_marks_mean_one_thing_in_a_workbook(v51_store):
    """The demo's workbook holds more tables than its formats can give each row a mark of its own:
    then every table has the one table mark, not row marks on one sheet and a table mark on the next."""
    from exportguard.render import xlsx_formats as fmts
    from exportguard.render.xlsx import plan_formats
    from exportguard.spec import build_report, parse_spec

    spec = (ROOT / "exportguard" / "data" / "demo.toml").read_text("utf-8")
    plan = plan_formats(build_report(v51_store, parse_spec(spec)))
    table_modes = {plan.mode(k) for k, u in plan.units.items() if fmts.TABLE in u.costs}
    assert len(table_modes) == 1, plan.modes
