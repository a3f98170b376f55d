"""Own load-test runs, as the tests share them: the real result files in shared/own-traffic (OWN) with its
README's table of figures (README_TABLE), the older tools' files kept under tests/fixtures/own-traffic,
a CSV of own runs in exportguard's format (own_csv, from BASE: one configuration with all its conditions),
and the report specs that put own runs beside MLPerf (BESIDE) or on sections of their own (OWN_ONLY).
conftest.py's ``mixed`` is a store of the v5.1 summary and all of these.
"""
from __future__ import annotations

import csv
import io
from pathlib import Path

from exportguard.ingest.csv_rows import COLUMNS
from tests.conftest import SHARED

OWN = SHARED / "own-traffic"
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "own-traffic"

# The README's table of figures: file, load kind, out tok/s, total tok/s, mean in, mean out, p99 TTFT ms,
# p99 TPOT ms, duration s, requests ("-": the file has no such figure).
README_TABLE = [
    ("aiperf/concurrency8_isl550_osl250/profile_export_aiperf.json", "closed loop", 761.3, 2420.0, 544.7, 250.0, 97.4, 10.5, 21.0, 64),
    ("aiperf/poisson3_isl550_osl250/profile_export_aiperf.json", "Poisson", 679.5, 2155.6, 543.1, 250.0, 105.4, 10.5, 21.8, 60),
    ("aiperf/concurrency8_isl550_osl4000/profile_export_aiperf.json", "closed loop", 700.2, 792.1, 545.8, 4155.6, 102.9, 10.5, 94.9, 16),
    ("aiperf/poisson0.3_isl550_osl4000/profile_export_aiperf.json", "Poisson", 643.4, 727.9, 545.8, 4155.6, 99.8, 10.4, 100.9, 16),
    ("genai-perf/0.0.16/concurrency8_isl550_osl250/mock-llm-openai-chat-concurrency8/profile_export_genai_perf.json",
     "closed loop", 780.6, None, 543.8, 250.0, 97.3, 10.1, 20.5, 64),
    ("genai-perf/0.0.16/rate3_isl550_osl250/mock-llm-openai-chat-request_rate3.0/profile_export_genai_perf.json",
     "constant rate", 678.8, None, 547.4, 250.0, 97.4, 10.0, 22.1, 60),
    ("genai-perf/0.0.16/concurrency8_isl550_osl4000/mock-llm-openai-chat-concurrency8/profile_export_genai_perf.json",
     "closed loop", 734.4, None, 553.0, 4026.1, 110.3, 10.0, 87.7, 16),
    ("genai-perf/0.0.16/concurrency4_isl550_osl250_small/mock-llm-openai-chat-concurrency4/profile_export_genai_perf.json",
     "closed loop", 415.0, None, 564.8, 250.0, 87.4, 9.4, 4.8, 8),
    ("guidellm/poisson3_isl550_osl250/benchmarks.json", "Poisson", 954.1, 3006.2, 537.7, 250.0, 141.6, 13.6, 15.7, 60),
    ("guidellm/concurrent8_isl550_osl4000/benchmarks.json", "closed loop", 719.8, 812.0, 535.8, 4183.8, 99.4, 10.0, 93.0, 16),
    ("vllm/poisson4_isl550_osl250/openai-4.0qps-mock-llm-20261201-094331.json", "Poisson", 856.8, 2741.8, 550.1, 250.0, 108.0, 11.3, 17.5, 60),
    ("vllm/concurrency8_isl550_osl250/own-traffic-infqps-concurrency8-mock-llm-20261201-094403.json", "closed loop",
     778.9, 2492.7, 550.1, 250.0, 99.3, 10.2, 20.5, 64),
    ("vllm/chat_concurrency8_isl550_osl4000/openai-chat-infqps-concurrency8-mock-llm-20261201-094535.json", "closed loop",
     783.1, 891.6, 555.9, 4011.6, 97.2, 10.0, 82.0, 16),
    ("sglang/poisson4/sglang-oai_poisson4_isl550_osl250.jsonl", "Poisson", 860.5, 2753.6, 550.0, 250.0, 110.2, 10.8, 17.4, 60),
    ("sglang/concurrency8/sglang_concurrency8.jsonl line 1", "closed loop", 779.3, 2493.7, 550.0, 250.0, 102.4, 10.1, 20.5, 64),
    ("sglang/concurrency8/sglang_concurrency8.jsonl line 2", "closed loop", 780.1, 886.4, 522.9, 3838.0, 110.0, 10.0, 78.7, 16),
    ("llmperf/concurrency8_isl550_osl250/mock-llm_550_250_summary.json", "closed loop", 504.6, None, 556.2, 250.0, 155.1, None, 23.8, 48),
    ("llmperf/concurrency8_isl550_osl4000/mock-llm_550_4000_summary.json", "closed loop", 476.9, None, 559.1, 3839.7, 297.9, None, 128.8, 16),
]

BASE = dict(mlperf="no", model="llama-3.1-70b", unit="tokens/s", source_url="https://wiki.example.com/run",
            tool="vllm bench serve", tool_version="0.33.0", load="closed loop", concurrency="8",
            mean_input_tokens="550", mean_output_tokens="250", submitter="perf team", system_name="lab-h100",
            accelerator="NVIDIA H100-SXM-80GB", accelerators_per_node="8", nodes="1", framework="vLLM 0.6.3",
            server_settings="--tp 8", run_date="2026-12-01")


def own_csv(tmp_path: Path, rows: list[dict], name: str = "own.csv") -> Path:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(COLUMNS)
    for row in rows:
        w.writerow([row.get(c, "") for c in COLUMNS])
    path = tmp_path / name
    path.write_text(buf.getvalue())
    return path


BESIDE = """
title = "Where we stand"

[[section]]
kind = "beside"
title = "MLPerf® v5.1 llama2-70b-99 Offline beside our runs"
mlperf = { round = "v5.1", division = "closed", model = "llama2-70b", track = "99", scenario = "Offline" }
own = { tool = "vllm bench serve", scenario = "closed loop", model = "mock-llm" }
limit = 4
"""


OWN_ONLY = """
title = "MLPerf® v5.1 and our load tests, on slides of their own"

[[section]]
kind = "table"
title = "MLPerf® v5.1 llama2-70b-99 Offline"
filters = { round = "v5.1", division = "closed", model = "llama2-70b", track = "99", scenario = "Offline" }
limit = 5

[[section]]
kind = "kpi"
title = "Best repeated run"
filters = { mlperf = false, tool = "vllm bench serve", model = "llama-3.1-70b" }

[[section]]
kind = "table"
title = "vLLM runs"
filters = { mlperf = false, tool = "vllm bench serve" }
split_by_cohort = true

[[section]]
kind = "chart"
title = "Repeated runs"
filters = { mlperf = false, tool = "vllm bench serve", model = "llama-3.1-70b" }
"""
