"""Decks that cannot fit fall back, not fail (issue 32 item 5): asked-for columns that do not fit a
slide give way to the lean ones, and the slide says which columns it leaves out; --columns works with
--spec; --limit N on export and list."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from pptx import Presentation

from exportguard.cli import main

pytestmark = pytest.mark.real_data
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
COHORT = ["--round", "v5.1", "--division", "closed", "--model", "llama2-70b", "--track", "99", "--scenario", "Offline"]


def _run(store, *args):
    out = CliRunner().invoke(main, ["--db", store.url, *args])
    assert out.exit_code == 0, out.output
    return out.output


def _texts(path):
    return ["\n".join(sh.text_frame.text if sh.has_text_frame else
                      "\n".join(c.text for r in sh.table.rows for c in r.cells) if sh.has_table else ""
                      for sh in s.shapes) for s in Presentation(path).slides]


def test_a_deck_of_columns_too_wide_for_a_slide_falls_back_to_lean_columns_and_says_so(v51_store, tmp_path):
    for name in ("vendor-comparison.toml", "prices.example.toml"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    _run(v51_store, "export", "--spec", str(tmp_path / "vendor-comparison.toml"), "--to", str(tmp_path / "v.pptx"))
    slides = _texts(tmp_path / "v.pptx")
    tables = [t for t in slides if "Rank" in t and "Throughput" in t]
    assert tables
    for text in tables:
        assert "Software" in text and "not shown on this slide" in text, text[:400]


def test_columns_work_with_a_spec_and_override_its_sections(v51_store, tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text((EXAMPLES / "executive-deck.toml").read_text("utf-8"), "utf-8")
    _run(v51_store, "export", "--spec", str(spec), "--columns", "rank,submitter,system,accelerators,throughput",
         "--to", str(tmp_path / "s.md"))
    md = (tmp_path / "s.md").read_text("utf-8")
    assert "| Rank | Submitter | System | Accelerators | Throughput |" in md
    assert "Availability |" not in md


def test_limit_on_list_and_export(v51_store, tmp_path):
    records = json.loads(_run(v51_store, "list", *COHORT, "--limit", "3", "--json"))
    assert [r["rank"] for r in records][:1] == ["1"] and len(records) == 3
    _run(v51_store, "export", *COHORT, "--limit", "3", "--to", str(tmp_path / "t.md"))
    rows = [line for line in (tmp_path / "t.md").read_text("utf-8").split("\n") if line.startswith("| ")
            and "tok/s" in line]
    assert len(rows) == 3
    assert "the 3 highest of the cohort's 47 results" in (tmp_path / "t.md").read_text("utf-8")
