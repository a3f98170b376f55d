"""A second set of person-made documents per class, written after the detector was built from the
first (documents.py), so that the score is not only on texts it was tuned on."""
from __future__ import annotations

from pathlib import Path

from . import Doc, Expect, figure
from .documents import BOUND, LEGEND, NOTE, csv_file, md, pdf, pptx, xlsx

# AIPerf 0.13's profile_export_aiperf.csv (concurrency8_isl550_osl250), three of its rows as written
AIPERF_CSV = [
    ["Metric", "avg", "min", "max", "sum", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "std"],
    ["Active Decode Throughput (tokens/sec)", "762.93", "0.00", "21178.34", "", "", "", "", "", "790.56", "",
     "847.58", "865.16", "927.65", "129.12"],
    ["Credit-to-Start Latency (ms)", "3.84", "0.36", "14.65", "245.63", "0.43", "0.55", "1.08", "1.75", "3.12", "5.28",
     "7.20", "8.03", "14.29", "2.81"],
    ["Effective Concurrency", "7.94", "0.00", "8.00", "", "", "", "", "", "8.00", "", "8.00", "8.00", "8.00", "0.49"],
]

GUIDELLM = """Benchmarks Stats:
| Benchmark    | Per Second | Concurrency | Out Tok/sec | Tot Tok/sec | TTFT mean (ms) |
|--------------|------------|-------------|-------------|-------------|----------------|
| poisson@3.00 | 2.97       | 7.8         | 954.1       | 3006.2      | 97.4           |
| concurrent@8 | 0.17       | 8.0         | 719.8       | 812.0       | 90.2           |"""


def label_first(d: Path) -> list[Doc]:
    return [
        Doc(md(d / "guidellm-console.md", f"guidellm 0.8, two profiles:\n\n```\n{GUIDELLM}\n```\n"), "label-first",
            [figure("954.1"), figure("3006.2"), figure("719.8"), figure("812.0")]),
        Doc(pptx(d / "kpi-table.pptx", [[("text", "Staging endpoint, 8 concurrent", 0.5, 0.3, 9, 0.8),
                                         ("table", [["KPI", "Result"], ["Output tokens/s", "778.9"],
                                                    ["Mean TTFT (ms)", "83.7"], ["Requests", "64"]])]]),
            "label-first", [figure("778.9")]),
        Doc(pdf(d / "one-line.pdf", [("p", "Output token throughput (tok/s): 860.50"),
                                     ("p", "Mean TTFT (ms): 89.33")]), "label-first", [figure("860.50")]),
        Doc(xlsx(d / "json-keys.xlsx", {"run": [["output_throughput", 778.89], ["total_token_throughput", 2492.69],
                                                ["mean_ttft_ms", 83.73], ["completed", 64]]}), "label-first",
            [figure("778.89"), figure("2492.69")]),
        Doc(csv_file(d / "profile_export_aiperf.csv", AIPERF_CSV), "label-first",
            [figure(v) for v in ("762.93", "0.00", "21178.34", "790.56", "847.58", "865.16", "927.65", "129.12")]),
        Doc(md(d / "json-pasted.md", "The result file says:\n\n```json\n{\"output_throughput\": 778.89, "
               "\"total_token_throughput\": 2492.69, \"mean_ttft_ms\": 83.73, \"completed\": 64}\n```\n"),
            "label-first", [figure("778.89"), figure("2492.69")]),
    ]


def units(d: Path) -> list[Doc]:
    return [
        Doc(pptx(d / "rack-scale.pptx", [[("text", "Rack scale", 0.5, 0.3, 9, 0.8),
                                          ("text", "Up to 3.2M tok/s per rack, 2,600 TPS/GPU on Llama 3.1 8B, and "
                                                   "900 tokens/s/chip on the edge part.", 0.5, 1.5, 9, 1.5)]]), "units",
            [figure("3.2M tok/s"), figure("2,600 TPS/GPU"), figure("900 tokens/s/chip")]),
        Doc(md(d / "homelab.md", "Quick numbers from my box: we hit ~4,000 tok/sec batched, 1.1k toks/s single "
               "stream, and llama.cpp printed `81.03 tokens per second` for eval.\n"), "units",
            [figure("4,000 tok/sec"), figure("1.1k toks/s"), figure("81.03 tokens per second")]),
        Doc(csv_file(d / "bench.csv", [["config", "throughput (tok/sec)", "req_per_sec", "p99_latency_ms"],
                                       ["tp8", "12500", "41.7", "1800"], ["tp4", "7100", "23.9", "1650"]]), "units",
            [figure("12500"), figure("41.7"), figure("7100"), figure("23.9")]),
        Doc(xlsx(d / "accel.xlsx", {"Accel": [["Accelerator", "Tok/s/accelerator", "TPS"], ["MI355X", 11630, 93045],
                                              ["B200", 12864, 102909]]}), "units",
            [figure("11630"), figure("93045"), figure("12864"), figure("102909")]),
        Doc(pdf(d / "per-gpu.pdf", [("p", "It sustains an output throughput of 12.5k tokens per second per GPU.")]),
            "units", [figure("12.5k tokens per second per GPU")]),
    ]


def locales(d: Path) -> list[Doc]:
    return [
        Doc(pptx(d / "debit-fr.pptx", [[("text", "Résultats", 0.5, 0.3, 9, 0.8),
                                        ("text", "Débit : 101\u00a0527 tokens/s\nPetit modèle : 45,3 échantillons/s",
                                         0.5, 1.5, 9, 1.5)]]), "locales",
            [figure("101\u00a0527 tokens/s"), figure("45,3 échantillons/s")]),
        Doc(md(d / "durchsatz-de.md", "Der Cluster erreicht einen Durchsatz von rund 1,2 Mio. Token pro Sekunde, "
               "einzelne Knoten liegen zwischen 120 und 155 Token/s pro Nutzer.\n"), "locales",
            [figure("1,2 Mio. Token pro Sekunde"), figure("120"), figure("155 Token/s")]),
        Doc(csv_file(d / "export-fr.csv", [["Système", "Débit (tokens/s)", "GPU"], ["B200 x8", "101 527,3", "8"],
                                           ["H200 x8", "63 915", "8"]], delimiter=";"), "locales",
            [figure("101 527,3"), figure("63 915")]),
        Doc(pdf(d / "spitze-de.pdf", [("p", "Spitzenwert: 147.000 Token/s auf dem GB200-System.")]), "locales",
            [figure("147.000 Token/s")]),
    ]


def unit_once(d: Path) -> list[Doc]:
    return [
        Doc(pptx(d / "leaders.pptx", [[("text", "Leaders", 0.5, 0.3, 9, 0.8),
                                       ("text", "Throughput in tokens per second: GB200 NVL72 leads with 1,234,567, "
                                                "followed by B200 at 102,909.", 0.5, 1.5, 9, 1.5)]]), "unit-once",
            [figure("1,234,567"), figure("102,909")]),
        Doc(md(d / "caption-table.md", "Llama 2 70B results (tokens/s):\n\n| System | Offline | Server |\n|---|---:|---:|\n"
               "| B200 x8 | 102,909 | 98,443 |\n| H200 x8 | 63,915 | 57,104 |\n"), "unit-once",
            [figure("102,909"), figure("98,443"), figure("63,915"), figure("57,104")]),
        Doc(pdf(d / "two-line-heading.pdf", [("table", [["System", "Throughput\n(tok/s)", "GPUs"],
                                                        ["B200 x8", "102,909", "8"], ["H200 x8", "63,915", "8"]])]),
            "unit-once", [figure("102,909"), figure("63,915")]),
        Doc(xlsx(d / "merged-header.xlsx", {"Results": [["System", "Throughput (tok/s)", None],
                                                        [None, "Offline", "Server"], ["B200 x8", 102909, 98443],
                                                        ["H200 x8", 63915, 57104]]}), "unit-once",
            [figure("102909"), figure("98443"), figure("63915"), figure("57104")]),
    ]


def derived_cost(d: Path) -> list[Doc]:
    return [
        Doc(pptx(d / "cost-kpis.pptx", [[("text", "Economics", 0.5, 0.3, 9, 0.8),
                                         ("text", "Cost per million tokens: $0.12\nTokens per dollar: 8.3M", 0.5, 1.5, 9,
                                          1.5)]]), "derived-cost", [figure("$0.12"), figure("8.3M")]),
        Doc(md(d / "api-compare.md", "Self-hosted works out to USD 0.05 / 1M tokens, about 2.3 cents per million "
               "tokens cheaper than the API.\n"), "derived-cost",
            [figure("USD 0.05 / 1M tokens"), figure("2.3 cents per million tokens")]),
        Doc(xlsx(d / "cost-column.xlsx", {"Cost": [["System", "$ per 1M output tokens"], ["B200 x8", 0.07],
                                                   ["H100 x8", 0.16]]}), "derived-cost", [figure("0.07"), figure("0.16")]),
        Doc(csv_file(d / "tokens-per-dollar.csv", [["system", "tokens_per_dollar"], ["b200x8", "14100000"]]),
            "derived-cost", [figure("14100000")]),
        Doc(pdf(d / "kosten-de.pdf", [("p", "Geschätzte Kosten: 0,19 € pro Mio. Token.")]), "derived-cost",
            [figure("0,19 € pro Mio. Token")]),
    ]


def reader_sees(d: Path) -> list[Doc]:
    return [
        Doc(pptx(d / "tiles-side.pptx", [[("text", "At a glance", 0.5, 0.3, 9, 0.8),
                                          ("text", "128,794", 0.5, 1.5, 2.5, 1), ("text", "TPS", 3.1, 1.5, 1.5, 1),
                                          ("text", "Output tok/s", 5, 1.5, 3, 0.5), ("text", "778.9", 5, 2.0, 3, 1)]]),
            "reader-sees", [figure("128,794"), figure("778.9")]),
        Doc(pptx(d / "group-alt.pptx", [[("text", "Results", 0.5, 0.3, 9, 0.8),
                                         ("group", [("picture", "Photo of the rack; it ran at 101,527 tok/s"),
                                                    ("text", "Rack A", 1, 4.2, 3, 0.5)])]]),
            "reader-sees", [figure("101,527 tok/s")]),
        Doc(xlsx(d / "formula-format.xlsx", {"Sheet1": [["System", "Result"], ["B200", "=12863.6*8"]]},
                 {("Sheet1", "B2"): '#,##0" tok/s"'}), "reader-sees", [Expect("EG023", "=12863.6*8")]),
    ]


def clean(d: Path) -> list[Doc]:
    bound = f"ThinkSystem SR680a V3: {BOUND}"
    return [
        Doc(pptx(d / "roadmap.pptx", [[("text", "Roadmap", 0.5, 0.3, 9, 0.8),
                                       ("text", "2024: 4 nodes; 2025: 16 nodes. Budget: $1.2M. Power: 10.2 kW per rack. "
                                                "Latency budget 2,000 ms at 99.9% accuracy. Llama 3.1 405B in FP8, TP=8, "
                                                "batch 256.", 0.5, 1.5, 9, 2)],
                                      [("text", "Specs", 0.5, 0.3, 9, 0.8), ("text", "141", 0.5, 1.5, 2, 1),
                                       ("text", "GB HBM3e", 0.5, 2.5, 2, 0.5), ("text", "900", 3, 1.5, 2, 1),
                                       ("text", "GB/s NVLink", 3, 2.5, 2, 0.5)]]), "clean"),
        Doc(md(d / "latency-report.md", "# Load test, staging\n\nTTFT p50 83 ms, p99 99 ms; TPOT 10 ms. 64 requests, "
               "8 concurrent, input 550 tokens and output 250 tokens per request.\n\n```\n"
               "---------------Time to First Token----------------\nMean TTFT (ms):                          83.73\n"
               "P99 TTFT (ms):                           99.29\n```\n\n| Component | Version |\n|---|---|\n"
               "| vLLM | 0.9.2 |\n| TensorRT-LLM | 0.21.0 |\n| CUDA | 12.8 |\n"), "clean"),
        Doc(xlsx(d / "procurement.xlsx", {"Quote": [["Item", "Qty", "Unit price ($)", "Per hour ($/hr)", "Memory (GB)",
                                                     "Discount"], ["B200 node", 4, 412000, 6.0, 1440, 0.12],
                                                    ["Support", 1, 38000, None, None, 0.0]]},
                 {("Quote", "F2"): "0%", ("Quote", "C2"): '"$"#,##0'}), "clean"),
        Doc(csv_file(d / "aiperf-latency.csv", [AIPERF_CSV[0], AIPERF_CSV[2]]), "clean"),
        Doc(pdf(d / "round-summary.pdf", [("p", "The v5.1 round (published September 2025) added Llama 3.1 8B and "
                                                "DeepSeek-R1; 27 organisations submitted more than 2,000 results. Our "
                                                "cluster of 64 H100 GPUs (8 nodes, 80 GB each) costs $2.10/hr per GPU."),
                                          ("p", bound), ("p", NOTE), ("p", LEGEND)]), "clean"),
        Doc(md(d / "bound-list.md", f"# MLPerf® v5.1\n\n- {bound}\n- {NOTE}\n\n{LEGEND}\n"), "clean"),
    ]


BUILDERS = (label_first, units, locales, unit_once, derived_cost, reader_sees, clean)
