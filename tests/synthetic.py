"""A small report of every section kind that needs neither the real corpus nor installed fonts: the
fast net's fixture for the paged formats' plans (issue 33 item 5).

``SYNTHETIC_ROWS`` are rows of exportguard's CSV format: five llama2-70b-99 Offline figures (the
published v5.1 values and tokens per sample of MangoBoost, Cisco, Lenovo, Lambda and Supermicro, as
user-supplied rows) and three repeated runs of one own configuration. ``synthetic_report`` ingests
them into a fresh SQLite store and builds ``SYNTHETIC_SPEC``: a headline, a chart, a table, a text
section and a beside section. ``stub_metrics`` measures every character at one fixed width in both
paged formats, so that a plan depends on the code alone, not on the machine's fonts.
"""
from __future__ import annotations

import csv
import io
from pathlib import Path

from exportguard.ingest import ingest_path
from exportguard.ingest.csv_rows import COLUMNS
from exportguard.spec import build_report, parse_spec
from exportguard.store import open_store
from tests.own_runs import BASE

_MLPERF = dict(mlperf="yes", model="llama2-70b", scenario="Offline", unit="tokens/s", round="v5.1", division="closed",
               availability="available", accuracy_track="99", retrieved_on="2025-09-09",
               source_url="https://github.com/mlcommons/inference_results_v5.1")
SYNTHETIC_ROWS = [
    dict(_MLPERF, submitter="MangoBoost", system_name="MangoBoost Heterogeneous Cluster", value="169197.0",
         accelerator="AMD Instinct MI300X 192GB HBM3", accelerators_per_node="8", nodes="6", framework="LLMBoost",
         tokens_per_sample="300.9"),
    dict(_MLPERF, submitter="Cisco", system_name="HPE HGX System", value="124879.0", accelerator="NVIDIA H100-SXM-80GB",
         accelerators_per_node="8", nodes="4", framework="TensorRT", tokens_per_sample="293.0"),
    dict(_MLPERF, submitter="Lenovo", system_name="ThinkSystem SR680a V3", value="102909.0",
         accelerator="NVIDIA B200-SXM-180GB", accelerators_per_node="8", nodes="1", framework="TensorRT",
         tokens_per_sample="273.3"),
    dict(_MLPERF, submitter="Lambda", system_name="NVIDIA DGX B200", value="102725.0",
         accelerator="NVIDIA B200-SXM-180GB", accelerators_per_node="8", nodes="1", framework="TensorRT",
         tokens_per_sample="275.6"),
    dict(_MLPERF, submitter="Supermicro", system_name="SYS-422GS-NBRT-LCC", value="102498.0",
         accelerator="NVIDIA B200-SXM-180GB", accelerators_per_node="8", nodes="1", framework="TensorRT",
         tokens_per_sample="273.3"),
    dict(BASE, value="778.9", run_id="run-1"),  # three repeated runs of one own configuration
    dict(BASE, value="781.2", run_id="run-2"),
    dict(BASE, value="776.4", run_id="run-3"),
]

SYNTHETIC_SPEC = '''
title = "Synthetic: every section kind"
audience = "tests"

[[section]]
kind = "kpi"
title = "Highest llama2-70b Offline throughput"
filters = { mlperf = true, model = "llama2-70b", scenario = "Offline" }
pick = "top"

[[section]]
kind = "chart"
title = "llama2-70b-99 Offline"
filters = { mlperf = true, model = "llama2-70b", scenario = "Offline" }
columns = ["rank", "submitter", "system", "accelerators", "throughput"]

[[section]]
kind = "table"
title = "llama2-70b-99 Offline, every row"
filters = { mlperf = true, model = "llama2-70b", scenario = "Offline" }

[[section]]
kind = "text"
title = "How to read this"
text = "Each figure carries its band and a mark that resolves to its note on the same page or slide."

[[section]]
kind = "beside"
title = "MLPerf llama2-70b-99 Offline beside our runs"
mlperf = { mlperf = true, model = "llama2-70b", scenario = "Offline" }
own = { tool = "vllm bench serve", model = "llama-3.1-70b" }
'''


def synthetic_csv(folder: Path) -> Path:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in SYNTHETIC_ROWS:
        writer.writerow([row.get(c, "") for c in COLUMNS])
    path = folder / "synthetic.csv"
    path.write_text(buf.getvalue(), encoding="utf-8")
    return path


INGESTED_AT = "2025-09-09T00:00:00+00:00"  # the store records when it ingested a file; notes cite it


def synthetic_report(folder: Path):
    """The report of SYNTHETIC_SPEC over SYNTHETIC_ROWS, from a fresh store in ``folder``, ingested at a
    fixed instant and retrieval date (the defaults are the wall clock and the file's date)."""
    from unittest import mock

    with open_store(f"sqlite:///{folder / 'synthetic.db'}") as store:
        with mock.patch("exportguard.ingest.now_iso", return_value=INGESTED_AT):
            ingest_path(store, synthetic_csv(folder), retrieved_on="2025-09-09")
        return build_report(store, parse_spec(SYNTHETIC_SPEC, name="synthetic.toml"))


class _EveryCharacter(dict):
    """Every character at one width (thousandths of an em), every one of them covered."""

    def __contains__(self, ch) -> bool:
        return True

    def __missing__(self, ch: str) -> float:
        return 550.0


def stub_metrics(monkeypatch) -> None:
    """Measure text in the deck and the briefing with fixed widths, as if no font were installed for
    the deck (pptx_layout's average widths) and every briefing face were monospaced."""
    from exportguard.render import pdf_text, pptx_layout

    monkeypatch.setattr(pptx_layout, "font_file", lambda family, bold=False: None)
    monkeypatch.setattr(pdf_text, "_char_widths", lambda font_name: _EveryCharacter())
