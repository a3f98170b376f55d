"""Broken input for the ingest, made from the real MLCommons v5.1 publications (shared/mlperf): a copy of a
real submitter tree (its results/ and systems/ folders), a slice of the real summary table, CSV rows in
exportguard's own format written from real summary rows, and sources with exactly one thing broken; with
the assertions the ingest tests make of every report (the counts reconcile, a message a person can act on).

They read the real files: a module that uses them calls tests/real_data.py's require_real_data first.
"""
from __future__ import annotations

import csv
import io
import json
import os
import shutil
import struct
import zlib
from functools import cache
from pathlib import Path

from exportguard.ingest import IngestReport, csv_rows
from tests.conftest import SUMMARY_V51, TREE_V51

SYSTEM = "8xMI300X_2xEPYC_9575F"
SCENARIO = f"results/{SYSTEM}/llama2-70b-99/Offline"  # the scenario folder the tree cases break
PERF = "performance/run_1/mlperf_log_summary.txt"
ACCURACY = "accuracy/accuracy.txt"
BAD = 1  # index of the row the summary and CSV cases break; its neighbours must still be stored


def assert_reconciles(report: IngestReport, rows_in_input: int) -> None:
    assert report.reconciles, report.summary_line()
    assert report.rows_read == rows_in_input, report.summary_line()


def assert_actionable(message: str, *fragments: str) -> None:
    """A sentence a person can act on: words, not a traceback or a bare code, naming what is wrong."""
    assert len(message.split()) >= 4, message
    assert "Traceback" not in message and "Error(" not in message, message
    for fragment in fragments:
        assert fragment in message, (fragment, message)


def stored_locators(store) -> set[str]:
    return {r.conditions.provenance.source_locator for r in store.results()}


def only_quarantined(store) -> dict:
    (q,) = store.quarantined()
    return q


# The summary table: four real LLM rows (AMD's 8xMI300X, result 5.1-0001) and one real row of a
# benchmark that is not an LLM one (skipped by rule, counted).
@cache
def _summary() -> tuple:
    return tuple(json.loads(SUMMARY_V51.read_text()))


def summary_slice() -> list[dict]:
    rows = _summary()
    llm = [r for r in rows if r["Location"].startswith(f"closed/AMD/results/{SYSTEM}/llama2-70b")][:4]
    other = next(r for r in rows if r["Category"] == "closed" and r["Model"].startswith("resnet"))
    assert [r["Scenario"] for r in llm] == ["Interactive", "Offline", "Server", "Interactive"]
    return [dict(r) for r in llm] + [dict(other)]


def write_summary(tmp_path: Path, rows, name: str = "v5.1_summary_results.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(rows, indent=1))
    return path


def summary_locator(path: Path, index: int) -> str:
    return f"{path} row {index + 1}"


# Submission trees: real submitter folders copied below tmp_path/v5.1/closed/.
def copy_submitter(tmp_path: Path, submitter: str = "AMD", top: str | None = "v5.1") -> Path:
    """Copy results/ and systems/ of a real submitter; returns the copy (the shared files are read-only,
    so contents are copied, not modes)."""
    src = TREE_V51 / "closed" / submitter
    dst = (tmp_path / top if top else tmp_path) / "closed" / submitter
    for part in ("results", "systems"):
        for folder, _, files in os.walk(src / part):
            target = dst / Path(folder).relative_to(src)
            target.mkdir(parents=True, exist_ok=True)
            for f in files:
                shutil.copyfile(Path(folder) / f, target / f)
    return dst


def scenario_locators(sub: Path) -> set[str]:
    """Each scenario folder of a copied submitter: one input row each, named as the ingest names it."""
    return {str(p.relative_to(sub.parent.parent)) for p in sub.glob("results/*/*/*") if p.is_dir()}


def replace_once(path: Path, old: bytes, new: bytes) -> None:
    data = path.read_bytes()
    assert data.count(old) == 1, (old, path)
    path.write_bytes(data.replace(old, new))


# CSV in exportguard's documented format, written from real summary rows.
def mlperf_row(r: dict) -> dict:
    """A real llama2-70b summary row as a row of exportguard's CSV."""
    model, _, track = r["Model"].rpartition("-")
    return {"mlperf": "yes", "submitter": r["Submitter"], "system_name": r["System"], "model": model,
            "accuracy_track": track, "scenario": r["Scenario"], "value": str(r["Performance_Result"]),
            "unit": "tokens/s", "accelerator": r["Accelerator"], "accelerators_per_node": str(r["a#"]),
            "nodes": str(r["Nodes"]), "framework": r["Software"], "source_url": r["Details"],
            "round": r["version"], "division": r["Category"], "availability": r["Availability"],
            "system_id": r["Platform"]}


def csv_slice() -> list[dict]:
    interactive, offline, server = summary_slice()[:3]

    # An in-house re-run of the same system, an own run (not an MLPerf result): it states the load it ran and
    # its measured shape, and no MLPerf scenario, round or bounds.
    own = mlperf_row(server) | {"mlperf": "no", "submitter": "AMD (in-house re-run)", "round": "", "division": "",
                                "availability": "", "accuracy_track": "", "scenario": "", "system_id": "",
                                "dataset": "OpenOrca", "tool": "vllm bench serve", "load": "Poisson",
                                "request_rate": "80", "mean_input_tokens": "620.4", "mean_output_tokens": "294.1"}
    return [mlperf_row(offline), own, mlperf_row(interactive)]


def csv_text(rows: list[dict], extra_cells: dict[int, list[str]] | None = None) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(csv_rows.COLUMNS)
    for i, row in enumerate(rows):
        w.writerow([row.get(c, "") for c in csv_rows.COLUMNS] + (extra_cells or {}).get(i, []))
    return buf.getvalue()


def write_csv(tmp_path: Path, rows: list[dict], extra_cells: dict[int, list[str]] | None = None,
              name: str = "results.csv") -> Path:
    path = tmp_path / name
    path.write_text(csv_text(rows, extra_cells))
    return path


def csv_locator(path: Path, index: int) -> str:
    return f"{path} line {index + 2}"  # line 1 is the header


def tiny_png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00")) + chunk(b"IEND", b""))


def log_says(old: bytes, new: bytes):
    """A change to a scenario folder: ``old`` replaced by ``new`` (once) in its performance log."""
    return lambda scenario: replace_once(scenario / PERF, old, new)


# -- sources with one thing broken, each with the rows it holds

def summary_with_bad_row(tmp_path):
    rows = summary_slice()
    rows[BAD]["Performance_Result"] = "fast"
    return write_summary(tmp_path, rows), len(rows)


def tree_with_invalid_result(tmp_path):
    sub = copy_submitter(tmp_path)
    log_says(b"Result is : VALID", b"Result is : INVALID")(sub / SCENARIO)
    return tmp_path / "v5.1", len(scenario_locators(sub))


def csv_with_bad_row(tmp_path):
    rows = csv_slice()
    rows[BAD]["unit"] = "tok/sec"
    return write_csv(tmp_path, rows), len(rows)


def png_named_csv(tmp_path):
    path = tmp_path / "results.csv"
    path.write_bytes(tiny_png())
    return path, 1
