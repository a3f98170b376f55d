"""The `exportguard check` command line: rules, --ignore, exit codes, the JSON schema, SARIF 2.1.0
(validated against the fields the standard requires), the progress bar, and the units it rests on
(number formats as displayed, the detector's column headings, notes)."""
from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from exportguard.check.evaluate import fields_in, parse_notes
from exportguard.check.numfmt import format_number
from exportguard.detect import column_figure, find_figures, header_unit
from exportguard.rules import RULES
from tests.documents import pptx_person, xlsx_bound


def cli(*args, cwd=None, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "exportguard", "check", *map(str, args)], capture_output=True,
                          text=True, timeout=300, cwd=cwd, env=env)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    pptx_person(d / "dirty.pptx")
    xlsx_bound(d / "clean.xlsx")
    (d / "broken.xlsx").write_bytes(b"PK\x03\x04 not really")
    (d / "notes.txt").write_text("not a document the checker reads", "utf-8")
    return d


def test_rules_lists_every_rule_with_its_id():
    out = cli("--rules")
    assert out.returncode == 0
    lines = out.stdout.splitlines()
    assert [line.split(" ")[0] for line in lines] == list(RULES)
    assert lines[16].startswith("EG017 edited-figure (error): Figure edited since export.")


def test_exit_codes_clean_findings_and_not_inspectable(folder):
    assert cli(folder / "clean.xlsx").returncode == 0
    assert cli(folder / "dirty.pptx").returncode == 1
    out = cli(folder)  # the folder: .txt files are skipped, the broken workbook could not be inspected
    assert out.returncode == 2
    assert "broken.xlsx: could not inspect: not a readable zip archive" in out.stdout
    assert "notes.txt" not in out.stdout
    named = cli(folder / "notes.txt")  # named explicitly: said, not skipped
    assert named.returncode == 2 and "could not inspect: not a format the checker reads" in named.stdout
    assert cli().returncode == 2 and "give at least one file" in cli().stderr


def test_ignore_by_id_or_name(folder):
    assert cli("--ignore", "EG001", folder / "dirty.pptx").returncode == 0
    out = cli("--ignore", "bare-figure", "--ignore", "EG011", folder / "dirty.pptx")
    assert out.returncode == 0 and "clean" in out.stdout
    bad = cli("--ignore", "EG999", folder / "dirty.pptx")
    assert bad.returncode == 2 and "unknown rule 'EG999'" in bad.stderr


def test_json_schema(folder):
    out = cli("--format", "json", folder)
    data = json.loads(out.stdout)
    assert data["schema"] == "exportguard-check/1" and data["exit_code"] == out.returncode == 2
    assert set(data["summary"]) == {"files", "clean", "with_findings", "not_inspected", "errors", "warnings", "figures"}
    files = {Path(f["path"]).name: f for f in data["files"]}
    assert set(files) == {"dirty.pptx", "clean.xlsx", "broken.xlsx"}
    for f in files.values():
        assert set(f) == {"path", "format", "status", "reason", "figures", "manifest", "seconds", "peak_rss_mb",
                          "findings"}
        assert f["status"] in ("clean", "findings", "not-inspected")
    for finding in files["dirty.pptx"]["findings"]:
        assert set(finding) == {"rule", "name", "severity", "location", "scope", "line", "manifest_location",
                                "message", "exported", "now"}
        assert RULES[finding["rule"]].name == finding["name"]
    assert files["broken.xlsx"]["reason"].startswith("not a readable zip archive")


def validate_sarif(doc: dict) -> None:
    """The fields SARIF 2.1.0 requires (sarif-schema-2.1.0.json: sarifLog, run, tool, toolComponent,
    reportingDescriptor, result, message, location, physicalLocation, artifactLocation, region,
    invocation, notification), and their types."""
    assert doc["version"] == "2.1.0"
    assert isinstance(doc.get("$schema", ""), str)
    assert isinstance(doc["runs"], list) and doc["runs"]
    for run in doc["runs"]:
        driver = run["tool"]["driver"]
        assert isinstance(driver["name"], str) and driver["name"]
        ids = [r["id"] for r in driver.get("rules", [])]
        assert len(ids) == len(set(ids))
        for r in driver["rules"]:
            assert isinstance(r["id"], str) and isinstance(r["shortDescription"]["text"], str)
            assert r["defaultConfiguration"]["level"] in ("none", "note", "warning", "error")
        for res in run["results"]:
            assert isinstance(res["message"]["text"], str) and res["message"]["text"]
            assert res["ruleId"] in ids and ids[res["ruleIndex"]] == res["ruleId"]
            assert res["level"] in ("none", "note", "warning", "error")
            for loc in res["locations"]:
                phys = loc["physicalLocation"]
                assert isinstance(phys["artifactLocation"]["uri"], str)
                if "region" in phys:
                    assert isinstance(phys["region"]["startLine"], int) and phys["region"]["startLine"] >= 1
                for logical in loc.get("logicalLocations", []):
                    assert isinstance(logical["name"], str)
            assert all(isinstance(v, str) for v in res.get("partialFingerprints", {}).values())
        for inv in run.get("invocations", []):
            assert isinstance(inv["executionSuccessful"], bool)
            for n in inv.get("toolExecutionNotifications", []):
                assert isinstance(n["message"]["text"], str) and n["level"] in ("none", "note", "warning", "error")
        for art in run.get("artifacts", []):
            assert isinstance(art["location"]["uri"], str)


def test_sarif_output_is_valid_and_complete(folder, tmp_path):
    out = cli("--format", "sarif", "--output", tmp_path / "r.sarif", folder, cwd=folder)
    assert out.returncode == 2 and out.stdout == ""
    doc = json.loads((tmp_path / "r.sarif").read_text("utf-8"))
    validate_sarif(doc)
    run = doc["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == list(RULES)
    results = run["results"]
    assert results and {r["ruleId"] for r in results} == {"EG001"}
    first = results[0]
    assert first["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "dirty.pptx"
    assert first["locations"][0]["logicalLocations"][0]["name"] == "slide 1, text box 'TextBox 2'"
    assert first["message"]["text"].startswith("slide 1, text box 'TextBox 2': '101.5k tok/s'")
    inv = run["invocations"][0]
    assert inv["executionSuccessful"] is False
    assert inv["toolExecutionNotifications"][0]["message"]["text"].startswith("could not inspect: not a readable zip")


def test_sarif_regions_for_text_files(tmp_path):
    (tmp_path / "x.md").write_text("# T\n\nWe saw 5,000 tok/s.\n", "utf-8")
    doc = json.loads(cli("--format", "sarif", tmp_path / "x.md", cwd=tmp_path).stdout)
    validate_sarif(doc)
    (res,) = doc["runs"][0]["results"]
    assert res["locations"][0]["physicalLocation"]["region"] == {"startLine": 3}


def test_progress_bar_on_a_terminal_only(tmp_path):
    for k in range(4):
        (tmp_path / f"f{k}.csv").write_text("a,b\n1,2\n", "utf-8")
    env = dict(os.environ, EXPORTGUARD_PROGRESS_AFTER="0")
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen([sys.executable, "-m", "exportguard", "check", str(tmp_path)], stdout=subprocess.PIPE,
                                stderr=slave, env=env)
        out, _ = proc.communicate(timeout=120)
        os.close(slave)
        seen = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(master)
    assert proc.returncode == 0
    assert b"] 1/4 " in seen and b"[" in seen
    assert b"\r" in seen and b"f3.csv" in seen
    piped = subprocess.run([sys.executable, "-m", "exportguard", "check", str(tmp_path)], capture_output=True, env=env,
                           timeout=120)
    assert piped.stderr == b""  # not a terminal: no bar


# -- units ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("value,code,shown", [
    (101527.38, '#,##0" tok/s ±5.4% [a]"', "101,527 tok/s ±5.4% [a]"),
    (101527.5, '#,##0" tok/s ±5.4% [a]"', "101,528 tok/s ±5.4% [a]"),  # half away from zero
    (0.21214, '0.0000" USD per 1M tokens ±5.4% [a][c] derived"', "0.2121 USD per 1M tokens ±5.4% [a][c] derived"),
    (96045.2, '#,##0" tok/s, low edge of ±5.4% [a]"', "96,045 tok/s, low edge of ±5.4% [a]"),
    (101527, "General", "101527"), (1.5, "General", "1.5"), (1234.5, "#,##0.00", "1,234.50"), (0.5, "0%", "50%"),
    (-3, "#,##0 ;(#,##0)", "(3)"), (12345678, "0.00E+00", "1.23E+07"), (101527, '0.0,"k tok/s"', "101.5k tok/s"),
    (101527.5, r"#,##0\ \t\o\k\/\s", "101,528 tok/s"), (12.5, "[$€-407]#,##0.00", "€12.50"), (5, "[Red]0.0", "5.0"),
    (0, '0;-0;"zero"', "zero"), (45000, "yyyy-mm-dd", "2023-03-15"), (3.14159, "#.##", "3.14"),
])
def test_cells_are_read_as_displayed(value, code, shown):
    assert format_number(value, code) == shown


def test_column_headings_and_cells_under_them():
    assert header_unit("Throughput (tok/s)") == "tok/s" and header_unit("Throughput") == "throughput"
    assert header_unit("QPS") == "QPS" and header_unit("Samples/s") == "Samples/s"
    for not_a_heading in ("Target QPS", "Tokens/sample", "p99 TTFT (ms)", "Latency p99 (ms)", "Rank",
                          "Throughput (GB/s)", "Disk throughput, MB/s", "Throughput in Gbps",
                          "A title that mentions tokens/s but is far too long to be a column heading of any table at "
                          "all, really"):
        assert header_unit(not_a_heading) is None, not_a_heading
    d = column_figure("101,527 ±5.4% [a]", "tok/s")
    assert (d.value, d.band, d.marks, d.unit) == (101527.0, "±5.4%", ("a",), "tok/s")
    assert column_figure("101.5k", "tok/s").value == 101500.0
    for not_a_number in ("n/a", "12 nodes", "5.1-0042", "2025-09-09", "45%", "~3-8 tie within slack"):
        assert column_figure(not_a_number, "tok/s") is None, not_a_number
    assert column_figure("101,527 tok/s", "tok/s") is None  # a figure of its own: find_figures reads it


def test_marks_of_many_letters_and_qualifiers():
    (d,) = find_figures("169,197 tok/s ±5.4% [aaaa]")
    assert d.marks == ("aaaa",) and d.bound
    (edge,) = find_figures("96,045 tok/s, low edge of ±5.4% [a]")
    assert edge.band_edge and edge.qualifier == "low edge"
    (per,) = find_figures("12,691 tok/s per accelerator ±5.4% [a][b] derived")
    assert per.qualifier == "per accelerator" and per.labels == ("derived",) and not per.band_edge


def test_notes_are_read_at_line_starts_and_after_sentences_not_inside_a_figure():
    text = "27,804 tok/s (slack not estimable: 1 result) [a] unverified\n- [a] Vendor, Offline. [b] Derived: basis."
    notes = parse_notes(text, find_figures(text))
    assert notes == [("a", "Vendor, Offline."), ("b", "Derived: basis.")]


def test_a_note_of_an_export_names_every_citation_field():
    note = ("MangoBoost, MangoBoost Heterogeneous Cluster. MLPerf® Inference: Datacenter v5.1, Closed division, "
            "llama2-70b-99 Offline, result 5.1-0065, verified. 300.9 tokens/sample (summary table). source "
            "https://github.com/mlcommons/inference_results_v5.1/tree/main/closed/MangoBoost, retrieved 2026-11-30.")
    assert fields_in(note) == {"suite", "version", "division", "benchmark", "scenario", "result ID", "verified status",
                               "source", "retrieval date", "shape"}
    assert fields_in("closed-loop drain, MangoBoost") == frozenset()


def test_a_folder_without_documents_is_said_and_clean(tmp_path):
    (tmp_path / "readme.txt").write_text("101,527 tok/s", "utf-8")
    out = cli(tmp_path)
    assert out.returncode == 0 and "no PPTX, XLSX, PDF, CSV or Markdown files found" in out.stderr
