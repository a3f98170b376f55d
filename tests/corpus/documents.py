"""The person-made documents of the corpus, built the way people make them: python-pptx, openpyxl,
reportlab, and plain text for Markdown and CSV. Each builder writes its files into a folder and
returns them as Docs with what a careful reviewer flags in each (tests/corpus/__init__.py).

The figures are real: v5.1 results as MLCommons published them (llama2-70b-99 Offline, llama3.1-8b
Server) and the console summaries of the load-test runs in shared/own-traffic, printed the way
each tool prints them.
"""
from __future__ import annotations

import csv
import io
import zipfile
from pathlib import Path

from exportguard.caveat import TRADEMARK_LEGEND

from . import Doc, Expect, figure

LEGEND = TRADEMARK_LEGEND
# a note as people write one: the source as a host and path, without a scheme
NOTE = ("[a] Lenovo ThinkSystem SR680a V3, 8x B200-SXM-180GB. MLPerf® Inference: Datacenter v5.1, Closed division, "
        "llama2-70b-99 Offline, result 5.1-0061, verified; 273.3 tokens/sample, OpenOrca. Retrieved 2026-11-29 from "
        "github.com/mlcommons/inference_results_v5.1.")
BOUND = "102,909 tok/s ±5.4% [a]"

# -- what the load-test tools print (values of the runs in shared/own-traffic) -----------------------

VLLM = """============ Serving Benchmark Result ============
Successful requests:                     64
Maximum request concurrency:             8
Benchmark duration (s):                  20.54
Total input tokens:                      35205
Total generated tokens:                  16000
Request throughput (req/s):              3.12
Output token throughput (tok/s):         778.89
Peak output token throughput (tok/s):    809.00
Peak concurrent requests:                16.00
Total Token throughput (tok/s):          2492.69
---------------Time to First Token----------------
Mean TTFT (ms):                          83.73
Median TTFT (ms):                        83.70
P99 TTFT (ms):                           99.29
-----Time per Output Token (excl. 1st token)------
Mean TPOT (ms):                          9.95
Median TPOT (ms):                        9.94
P99 TPOT (ms):                           10.16
---------------Inter-token Latency----------------
Mean ITL (ms):                           9.95
Median ITL (ms):                         9.97
P99 ITL (ms):                            13.06
=================================================="""
VLLM_FIGURES = ["3.12", "778.89", "809.00", "2492.69"]

VLLM_POISSON = """============ Serving Benchmark Result ============
Successful requests:                     60
Request rate configured (RPS):           4.00
Benchmark duration (s):                  17.52
Total input tokens:                      33006
Total generated tokens:                  15000
Request throughput (req/s):              3.42
Output token throughput (tok/s):         856.78
Total Token throughput (tok/s):          2741.82
---------------Time to First Token----------------
Mean TTFT (ms):                          85.91
P99 TTFT (ms):                           108.04
=================================================="""
VLLM_POISSON_FIGURES = ["3.42", "856.78", "2741.82"]

SGLANG = """============ Serving Benchmark Result ============
Backend:                                 sglang-oai
Traffic request rate:                    4.0
Max request concurrency:                 not set
Successful requests:                     60
Benchmark duration (s):                  17.43
Total input tokens:                      33000
Total generated tokens:                  15000
Total generated tokens (retokenized):    15000
Request throughput (req/s):              3.44
Input token throughput (tok/s):          1893.10
Output token throughput (tok/s):         860.50
Total token throughput (tok/s):          2753.60
Concurrency:                             9.19
----------------End-to-End Latency----------------
Mean E2E Latency (ms):                   2669.45
Median E2E Latency (ms):                 2692.76
---------------Time to First Token----------------
Mean TTFT (ms):                          89.33
Median TTFT (ms):                        88.65
P99 TTFT (ms):                           110.21
=================================================="""
SGLANG_FIGURES = ["3.44", "1893.10", "860.50", "2753.60"]

# AIPerf 0.13's console, its last table, as profile_export_console.txt holds it
AIPERF = """                                                NVIDIA AIPerf | LLM Metrics
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━┓
┃                                        Metric ┃      avg ┃      min ┃      max ┃      p99 ┃      p90 ┃      p50 ┃   std ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━┩
│                      Time to First Token (ms) │    82.84 │    64.56 │    97.78 │    97.36 │    92.87 │    83.47 │  7.93 │
│                          Request Latency (ms) │ 2,607.52 │ 2,537.09 │ 2,732.90 │ 2,696.57 │ 2,656.71 │ 2,605.58 │ 40.69 │
│                      Inter Token Latency (ms) │    10.14 │     9.85 │    10.59 │    10.49 │    10.33 │    10.13 │  0.15 │
│              Output Token Throughput Per User │    98.65 │    94.40 │   101.55 │   101.25 │   100.63 │    98.67 │  1.50 │
│                             (tokens/sec/user) │          │          │          │          │          │          │       │
│ E2E Output Token Throughput (tokens/sec/user) │    95.90 │    91.48 │    98.54 │    98.52 │    97.82 │    95.95 │  1.49 │
│               Output Sequence Length (tokens) │   250.00 │   250.00 │   250.00 │   250.00 │   250.00 │   250.00 │  0.00 │
│                Input Sequence Length (tokens) │   544.69 │   410.00 │   670.00 │   661.81 │   612.10 │   543.00 │ 52.44 │
│          Output Token Throughput (tokens/sec) │   761.31 │      N/A │      N/A │      N/A │      N/A │      N/A │   N/A │
│           Input Token Throughput (tokens/sec) │ 1,658.70 │      N/A │      N/A │      N/A │      N/A │      N/A │   N/A │
│             Request Throughput (requests/sec) │     3.05 │      N/A │      N/A │      N/A │      N/A │      N/A │   N/A │
│          Completed Requests (Success + Error) │    64.00 │      N/A │      N/A │      N/A │      N/A │      N/A │   N/A │
│                                    (requests) │          │          │          │          │          │          │       │
│                      Request Count (requests) │    64.00 │      N/A │      N/A │      N/A │      N/A │      N/A │   N/A │
└───────────────────────────────────────────────┴──────────┴──────────┴──────────┴──────────┴──────────┴──────────┴───────┘"""
AIPERF_FIGURES = ["98.65", "94.40", "101.55", "101.25", "100.63", "98.67", "1.50",
                  "95.90", "91.48", "98.54", "98.52", "97.82", "95.95", "1.49", "761.31", "1,658.70", "3.05"]

LLMPERF = """Results for token benchmark for mock-llm queried with the openai api.

ttft_s
    p25 = 0.07950352649982051
    p50 = 0.08559293549978975
    p99 = 0.1551168155699816
    mean = 0.0895615993332702
request_output_throughput_token_per_s
    p25 = 96.21939710844461
    p50 = 96.8996719319944
    p99 = 98.93081576733017
    mean = 96.58711562743763
    min = 90.95658867123144
    max = 99.07092624800939
number_output_tokens
    p50 = 250.0
    mean = 250.0

Number Of Errored Requests: 0
Overall Output Throughput: 504.6217343855546
Number Of Completed Requests: 48
Completed Requests Per Minute: 121.10921625253311"""
LLMPERF_FIGURES = ["96.21939710844461", "96.8996719319944", "98.93081576733017", "96.58711562743763",
                   "90.95658867123144", "99.07092624800939", "504.6217343855546"]

# GenAI-Perf 0.0.16's profile_export_genai_perf.csv (concurrency4_isl550_osl250_small), as written
GENAI_PERF_CSV = """Metric,avg,min,max,p99,p95,p90,p75,p50,p25,p10,p5,p1
Time To First Token (ms),79.77,72.66,87.55,87.40,86.83,86.11,82.59,79.76,76.84,73.10,72.88,72.71
Request Latency (ms),"2,398.98","2,370.18","2,416.64","2,416.03","2,413.58","2,410.51","2,404.82","2,402.94","2,393.85","2,386.52","2,378.35","2,371.82"
Inter Token Latency (ms),9.31,9.22,9.39,9.39,9.39,9.38,9.34,9.30,9.29,9.27,9.25,9.23
Output Token Throughput Per User (tokens/sec/user),107.37,106.47,108.41,108.36,108.15,107.90,107.61,107.49,107.04,106.58,106.53,106.48
Output Sequence Length (tokens),250.00,250.00,250.00,250.00,250.00,250.00,250.00,250.00,250.00,250.00,250.00,250.00

Metric,Value
Output Token Throughput (tokens/sec),415.00
Request Throughput (per sec),1.66
Request Count (count),8.00
"""
GENAI_PERF_FIGURES = ["107.37", "106.47", "108.41", "108.36", "108.15", "107.90", "107.61", "107.49", "107.04",
                      "106.58", "106.53", "106.48", "415.00", "1.66"]


# -- writers -------------------------------------------------------------------------------------

def md(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def csv_file(path: Path, rows, delimiter: str = ",") -> Path:
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f, delimiter=delimiter).writerows(rows)
    return path


def pptx(path: Path, slides, master: str | None = None, layout: str | None = None) -> Path:
    """``slides``: a list of slides, each a list of (kind, ...) shapes: ("text", text, x, y, w, h),
    ("table", rows), ("group", [("text", ...), ...]), ("picture", alt text), ("notes", text). A text on
    the master or on the layout the slides use: ``master``, ``layout``."""
    from pptx import Presentation
    from pptx.util import Inches

    prs = Presentation()
    layout_used = prs.slide_layouts[6]
    for k, shapes in enumerate(slides):
        slide = prs.slides.add_slide(layout_used)
        for shape in shapes:
            _pptx_shape(slide.shapes, slide, shape, Inches)
        if k == 0:
            for text, target in ((master, prs.slide_masters[0]), (layout, layout_used)):
                if text:
                    box = slide.shapes.add_textbox(Inches(0.3), Inches(6.9), Inches(9), Inches(0.4))
                    box.text_frame.text = text
                    target.shapes._spTree.append(box._element)  # moved onto the master or layout
    prs.save(path)
    return path


def _pptx_shape(shapes, slide, shape, Inches) -> None:
    kind = shape[0]
    if kind == "text":
        _, text, x, y, w, h = shape
        shapes.add_textbox(Inches(x), Inches(y), Inches(w), Inches(h)).text_frame.text = text
    elif kind == "table":
        rows = shape[1]
        table = shapes.add_table(len(rows), len(rows[0]), Inches(0.5), Inches(1.5), Inches(9),
                                 Inches(0.4 * len(rows))).table
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                table.cell(r, c).text = text
    elif kind == "group":
        group = shapes.add_group_shape()
        for inner in shape[1]:
            _pptx_shape(group.shapes, slide, inner, Inches)
    elif kind == "picture":
        pic = shapes.add_picture(io.BytesIO(_PNG), Inches(1), Inches(1), Inches(4), Inches(3))
        pic._element.nvPicPr.cNvPr.set("descr", shape[1])
    elif kind == "notes":
        slide.notes_slide.notes_text_frame.text = shape[1]
    elif kind == "chart":
        from pptx.chart.data import CategoryChartData
        from pptx.enum.chart import XL_CHART_TYPE

        _, title, categories, series = shape
        data = CategoryChartData()
        data.categories = categories
        for name, values in series:
            data.add_series(name, values)
        chart = shapes.add_chart(XL_CHART_TYPE.BAR_CLUSTERED, Inches(1), Inches(1.5), Inches(8), Inches(4), data).chart
        chart.has_title = True
        chart.chart_title.text_frame.text = title


_PNG = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002"
                     "00015f2a3b9d0000000049454e44ae426082")


def xlsx(path: Path, sheets: dict, formats: dict | None = None) -> Path:
    """``sheets``: name -> rows (lists of cell values; a str starting with '=' is a formula, which
    openpyxl saves without a calculated value, as it does)."""
    import openpyxl

    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for name, rows in sheets.items():
        ws = wb.create_sheet(name)
        for row in rows:
            ws.append(row)
    for (sheet, ref), code in (formats or {}).items():
        wb[sheet][ref].number_format = code
    wb.save(path)
    return path


def pdf(path: Path, story) -> Path:
    """``story``: ("p", text), ("pre", text) (monospaced, as a pasted console), ("table", rows), ("h", text)."""
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import Paragraph, Preformatted, SimpleDocTemplate, Table

    styles = getSampleStyleSheet()
    flow = []
    for kind, content in story:
        if kind == "p":
            flow.append(Paragraph(content.replace("&", "&amp;").replace("<", "&lt;"), styles["Normal"]))
        elif kind == "h":
            flow.append(Paragraph(content.replace("&", "&amp;"), styles["Heading2"]))
        elif kind == "pre":
            flow.append(Preformatted(content, styles["Code"]))
        elif kind == "table":
            flow.append(Table(content))
    SimpleDocTemplate(str(path), pagesize=A4).build(flow)
    return path


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def _two_columns(console: str) -> list[list]:
    """A console summary pasted into a sheet or table: label in one column, value in the next."""
    rows = []
    for line in console.splitlines():
        if ":" in line and not line.startswith(("=", "-")):
            label, _, value = line.partition(":")
            value = value.strip()
            try:
                rows.append([label.strip() + ":", float(value)])
            except ValueError:
                rows.append([label.strip() + ":", value])
    return rows


def _figures(values) -> list[Expect]:
    return [figure(v) for v in values]


# -- the classes ---------------------------------------------------------------------------------

def label_first(d: Path) -> list[Doc]:
    tbl = _two_columns(VLLM)
    return [
        Doc(md(d / "vllm-run-notes.md", f"# Our serving run, 8 concurrent requests\n\nWe ran `vllm bench serve` "
               f"against the staging endpoint:\n\n```\n{VLLM}\n```\n"), "label-first", _figures(VLLM_FIGURES)),
        Doc(md(d / "sglang-poisson.md", f"## SGLang at Poisson 4 req/s\n\n```text\n{SGLANG}\n```\n\nThroughput: "
               "1.2k tok/s on the second try.\n"), "label-first", _figures(SGLANG_FIGURES + ["1.2k tok/s"])),
        Doc(md(d / "llmperf-summary.md", f"llmperf, 8 clients:\n\n```\n{LLMPERF}\n```\n"), "label-first",
            _figures(LLMPERF_FIGURES)),
        Doc(pptx(d / "load-test-readout.pptx", [
            [("text", "Load test readout: vLLM, 8 in flight", 0.5, 0.3, 9, 0.8), ("text", VLLM, 0.5, 1.2, 9, 5.5)],
            [("text", "AIPerf, same endpoint", 0.5, 0.3, 9, 0.8), ("text", AIPERF, 0.3, 1.2, 9.4, 5.5)],
            [("text", "GenAI-Perf summary", 0.5, 0.3, 9, 0.8),
             ("table", [["Metric", "Value"], ["Output Token Throughput (tokens/sec)", "415.00"],
                        ["Request Throughput (per sec)", "1.66"], ["Request Count (count)", "8.00"]])],
        ]), "label-first", _figures(VLLM_FIGURES + AIPERF_FIGURES + ["415.00", "1.66"])),
        Doc(pdf(d / "serving-appendix.pdf", [("h", "Appendix: serving benchmark output"), ("pre", VLLM_POISSON),
                                            ("p", "And SGLang on the same node:"), ("pre", SGLANG)]),
            "label-first", _figures(VLLM_POISSON_FIGURES + SGLANG_FIGURES)),
        Doc(csv_file(d / "profile_export_genai_perf.csv", _rows(GENAI_PERF_CSV)), "label-first",
            _figures(GENAI_PERF_FIGURES)),
        Doc(xlsx(d / "vllm-pasted.xlsx", {"vLLM run": [["vLLM bench serve, 8 concurrent"], *tbl]}), "label-first",
            _figures(["3.12", "778.89", "809", "2492.69"])),
        Doc(xlsx(d / "genai-perf.xlsx", {"profile_export_genai_perf": [
            [float(c) if c.replace(".", "").replace(",", "").isdigit() and "," not in c else c for c in row]
            for row in _rows(GENAI_PERF_CSV)]}), "label-first",
            _figures([v.rstrip("0").rstrip(".") if "." in v else v for v in GENAI_PERF_FIGURES])),
    ]


def units(d: Path) -> list[Doc]:
    return [
        Doc(pptx(d / "vendor-slide-tps.pptx", [
            [("text", "Llama 3.1 8B, Server: 128,794 TPS on one 8-GPU node", 0.5, 0.3, 9, 0.8),
             ("text", "That is 16,099 tok/s/GPU, and ~66k output tokens/s on the 4-GPU box.", 0.5, 1.5, 9, 1)],
            [("text", "What we measured", 0.5, 0.3, 9, 0.8),
             ("table", [["System", "GPUs", "generated tok/s", "tok/s per GPU"], ["XE9680L", "8", "128,787", "16,098"],
                        ["SR780a V3", "8", "128,689", "16,086"]])],
        ]), "units", [figure("128,794 TPS"), figure("16,099 tok/s/GPU"), figure("66k output tokens/s"),
                      figure("128,787"), figure("16,098"), figure("128,689"), figure("16,086")]),
        Doc(md(d / "pandas-results.md", "Results exported from our notebook (`df.to_markdown()`):\n\n"
               "|    | system            |   gpus |   tokens_per_second |   tok_per_s_per_gpu |\n"
               "|---:|:------------------|-------:|--------------------:|--------------------:|\n"
               "|  0 | B200-SXM-180GBx8  |      8 |            102909.0 |             12863.6 |\n"
               "|  1 | H100-SXM-80GBx32  |     32 |            124879.0 |              3902.5 |\n\n"
               "Peak was 147k TPS.\n"), "units",
            [figure("102909.0"), figure("12863.6"), figure("124879.0"), figure("3902.5"), figure("147k TPS")]),
        Doc(csv_file(d / "sweep_results.csv", [["run", "concurrency", "output_throughput", "samples_per_second",
                                                "mean_ttft_ms"], ["c8", "8", "778.89", "3.12", "83.73"],
                                               ["c16", "16", "1301.4", "5.21", "97.10"]]), "units",
            [figure("778.89"), figure("3.12"), figure("1301.4"), figure("5.21")]),
        Doc(xlsx(d / "per-gpu.xlsx", {"Results": [["System", "Accelerators", "Output tokens/s", "tokens/sec/GPU"],
                                                  ["DGX B200", 8, 101527, 12690.9], ["XE9685L", 8, 102131, 12766.4]]}),
            "units", [figure("101527"), figure("12690.9"), figure("102131"), figure("12766.4")]),
        Doc(pdf(d / "blog-per-gpu.pdf", [("p", "On Llama 2 70B the eight-GPU B200 system generated 102,909 "
                                                "output tokens/s, roughly 12,864 tokens/sec/GPU; the 4-GPU H200 "
                                                "NVL box managed ~27.8k generated tok/s.")]), "units",
            [figure("102,909 output tokens/s"), figure("12,864 tokens/sec/GPU"), figure("27.8k generated tok/s")]),
    ]


def locales(d: Path) -> list[Doc]:
    return [
        Doc(pptx(d / "ergebnisse-de.pptx", [
            [("text", "MLPerf® Inference v5.1: Ergebnisse im Überblick", 0.5, 0.3, 9, 0.8),
             ("text", "Llama 2 70B Offline: 101.527 Token/s mit acht B200-GPUs.\nKleines Modell: 45,3 Samples/s pro "
                      "Beschleuniger.\nCluster gesamt: 1,2 Mio. Token/s.", 0.5, 1.3, 9, 2),
             ("text", LEGEND, 0.5, 6.5, 9, 0.8)],
        ]), "locales", [figure("101.527 Token/s"), figure("45,3 Samples/s"), figure("1,2 Mio. Token/s")]),
        Doc(pdf(d / "resultats-fr.pdf", [("p", "Sur Llama 2 70B, le serveur à huit B200 atteint 101\u202f253 tok/s, "
                                                "et le système MI355X 98\u00a0725 tokens/s."),
                                         ("p", "Débit mesuré entre 120–155 tokens/sec par utilisateur.")]), "locales",
            # a PDF shows the narrow no-break spaces as spaces: the text a reader copies
            [figure("101 253 tok/s"), figure("98 725 tokens/s"), figure("120"), figure("155 tokens/sec")]),
        Doc(md(d / "bereiche.md", "# Durchsatz\n\nUnsere Messungen: 120–155 tokens/sec pro Nutzer, im Mittel "
               "1.234,5 Token/s; in Paris 98\u2009725 tok/s.\n"), "locales",
            [figure("120"), figure("155 tokens/sec"), figure("1.234,5 Token/s"), figure("98\u2009725 tok/s")]),
        Doc(xlsx(d / "auswertung.xlsx", {"Auswertung": [["System", "Ergebnis"], ["B200 x8", "101.527 Token/s"],
                                                        ["MI355X x8", "93.045 Token/s"]]}), "locales",
            [figure("101.527 Token/s"), figure("93.045 Token/s")]),
        Doc(csv_file(d / "export-excel-de.csv", [["System", "Durchsatz (Token/s)", "GPUs"], ["B200 x8", "101.527", "8"],
                                                 ["H200 x8", "63.915,4", "8"]], delimiter=";"), "locales",
            [figure("101.527"), figure("63.915,4")]),
    ]


def unit_once(d: Path) -> list[Doc]:
    sentence = ("Llama 2 70B Offline results, in tokens/second: the B200 system achieves 102,909 (about 2x the "
                "H100 system's 52,070).")
    return [
        Doc(pptx(d / "briefing-sentence.pptx", [
            [("text", "Generational gain", 0.5, 0.3, 9, 0.8), ("text", sentence, 0.5, 1.5, 9, 1.5),
             ("text", "B200 reached 31,712 tokens/second per node in Offline, up from 21,806 on H100.", 0.5, 3.2, 9, 1)],
        ]), "unit-once", [figure("102,909"), figure("52,070"), figure("31,712 tokens/second"), figure("21,806")]),
        Doc(md(d / "blog-unit-once.md", f"{sentence}\n\nOn the small model the B200 node served 128,794 and the "
               "H200 node 64,102 tokens/s.\n"), "unit-once",
            [figure("102,909"), figure("52,070"), figure("128,794"), figure("64,102 tokens/s")]),
        Doc(pdf(d / "pdf-table-columns.pdf", [("h", "Offline results"),
                                             ("table", [["System", "GPUs", "Tokens/sample", "Throughput (tok/s)"],
                                                        ["ThinkSystem SR680a V3", "8", "273.3", "102,909"],
                                                        ["DGX B200", "8", "275.6", "102,725"],
                                                        ["HPF HGX System", "32", "293.0", "124,879"]])]),
            "unit-once", [figure("102,909"), figure("102,725"), figure("124,879")]),
        Doc(pdf(d / "pdf-sentence.pdf", [("p", sentence)]), "unit-once", [figure("102,909"), figure("52,070")]),
        Doc(pdf(d / "pdf-heading-list.pdf", [("p", "Offline throughput (samples/s):"), ("p", "H200: 118.5"),
                                            ("p", "H100: 84.2")]), "unit-once", [figure("118.5"), figure("84.2")]),
        Doc(xlsx(d / "sheet-sentence.xlsx", {"Summary": [["B200 reached 102,909 tok/s; the H100 system 52,070."]]}),
            "unit-once", [figure("102,909 tok/s"), figure("52,070")]),
    ]


def derived_cost(d: Path) -> list[Doc]:
    return [
        Doc(pptx(d / "tco-slide.pptx", [
            [("text", "Cost efficiency on Llama 2 70B", 0.5, 0.3, 9, 0.8),
             ("text", "At $3.29/hr per GPU the B200 node delivers 169,600 tokens/dollar, or about $0.07/M tokens.",
              0.5, 1.5, 9, 1.5)],
        ]), "derived-cost", [figure("169,600 tokens/dollar"), figure("$0.07/M tokens")]),
        Doc(md(d / "cost-table.md", "| System | Cost ($/M tokens) | Tokens per $ |\n|---|---:|---:|\n"
               "| B200 x8 | 0.07 | 14,100,000 |\n| H100 x8 | 0.16 | 6,250,000 |\n\n"
               "That is 14.1M tokens per $ on B200.\n"), "derived-cost",
            [figure("0.07"), figure("14,100,000"), figure("0.16"), figure("6,250,000"), figure("14.1M tokens per $")]),
        Doc(xlsx(d / "tco.xlsx", {"TCO": [["System", "GPU-hour price", "Tokens per $"], ["B200 x8", 3.29, 14100000],
                                          ["Note: $0.21 per million tokens on the H100 cluster."]]},
                 {("TCO", "B2"): '"$"#,##0.00"/hr"'}), "derived-cost",
            [figure("14100000"), figure("$0.21 per million tokens")]),
        Doc(pdf(d / "cost-brief.pdf", [("p", "Our estimate: ~14.1M tokens per dollar on B200 at $3.29/hr, against "
                                             "0.16 USD per 1M tokens for the H100 cluster.")]), "derived-cost",
            [figure("14.1M tokens per dollar"), figure("0.16 USD per 1M tokens")]),
        Doc(csv_file(d / "cost.csv", [["system", "usd_per_1m_tokens", "gpu_hour_usd"], ["b200x8", "0.07", "3.29"],
                                      ["h100x8", "0.16", "2.10"]]), "derived-cost", [figure("0.07"), figure("0.16")]),
    ]


def reader_sees(d: Path) -> list[Doc]:
    docs = [
        Doc(pptx(d / "master-footer.pptx", [[("text", "Agenda", 0.5, 0.3, 9, 0.8)],
                                            [("text", "Results", 0.5, 0.3, 9, 0.8)]],
                 master="Our cluster: 101.5k tok/s on Llama 2 70B"), "reader-sees",
            [figure("101.5k tok/s"), figure("101.5k tok/s")]),  # on each of the two slides
        Doc(pptx(d / "layout-banner.pptx", [[("text", "Results", 0.5, 0.3, 9, 0.8)]],
                 layout="Headline: 128,794 TPS on Llama 3.1 8B"), "reader-sees", [figure("128,794 TPS")]),
        Doc(pptx(d / "alt-text.pptx", [[("text", "Throughput by system", 0.5, 0.3, 9, 0.8),
                                        ("picture", "Bar chart: B200 at 102,909 tokens/s, H200 at 63,915 tokens/s")]]),
            "reader-sees", [figure("102,909 tokens/s"), figure("63,915 tokens/s")]),
        Doc(pptx(d / "kpi-tiles.pptx", [[("text", "Headline numbers", 0.5, 0.3, 9, 0.8),
                                         ("text", "102,909", 0.5, 1.5, 3, 1), ("text", "tokens/s", 0.5, 2.5, 3, 0.5),
                                         ("group", [("text", "128.8k", 4.5, 1.5, 3, 1),
                                                    ("text", "Output TPS", 4.5, 2.5, 3, 0.5)]),
                                         ("text", "8", 0.5, 4, 1, 1), ("text", "GPUs", 1.6, 4, 2, 1)]]),
            "reader-sees", [figure("102,909"), figure("128.8k")]),
    ]
    chart = pptx(d / "chart-no-workbook.pptx", [[("chart", "Offline results",
                                                   ["B200 (102,909 tok/s)", "H100 (52,070 tok/s)"],
                                                   [("Systems", (1, 2))])]])
    _drop_embedded_workbooks(chart)
    docs.append(Doc(chart, "reader-sees", [figure("102,909 tok/s"), figure("52,070 tok/s")]))
    docs.append(Doc(xlsx(d / "formulas.xlsx", {"Results": [["System", "GPUs", "Throughput (tok/s)", "Price ($/hr)"],
                                                           ["B200 x8", 8, "=B2*12863.6", "=B2*3.29"]],
                                               "KPI": [["Output Token Throughput (tokens/sec)", "=Results!C2"],
                                                       ["Best", '=TEXT(Results!C2,"#,##0")&" tok/s"']]}),
                    "reader-sees", [Expect("EG023", "=B2*12863.6"), Expect("EG023", "=Results!C2"),
                                    Expect("EG023", '=TEXT(Results!C2,"#,##0")&" tok/s"')]))
    return docs


def _drop_embedded_workbooks(path: Path) -> None:
    """Save a deck as LibreOffice does: its charts without their embedded workbooks."""
    import re

    src = zipfile.ZipFile(path)
    items = [(i, src.read(i.filename)) for i in src.infolist() if not i.filename.startswith("ppt/embeddings/")]
    src.close()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for info, data in items:
            if info.filename.startswith("ppt/charts/_rels/"):
                data = re.sub(rb"<Relationship [^>]*/package\"[^>]*/>", b"", data)
            elif info.filename.startswith("ppt/charts/chart"):
                data = re.sub(rb"<c:externalData .*?</c:externalData>", b"", data, flags=re.S)
            out.writestr(info, data)


def citations(d: Path) -> list[Doc]:
    bound_md = f"# Results\n\nLenovo's ThinkSystem SR680a V3 reached {BOUND} on llama2-70b-99 Offline.\n\n- {NOTE}\n\n{LEGEND}\n"
    return [
        Doc(md(d / "cited.md", bound_md), "citations"),
        Doc(pdf(d / "cited.pdf", [("p", f"Lenovo's ThinkSystem SR680a V3 reached {BOUND} on llama2-70b-99 Offline."),
                                  ("p", NOTE), ("p", LEGEND)]), "citations"),
        Doc(pptx(d / "cited.pptx", [[("text", "MLPerf® Inference v5.1: Llama 2 70B Offline", 0.5, 0.3, 9, 0.8),
                                     ("text", f"ThinkSystem SR680a V3: {BOUND}", 0.5, 1.5, 9, 1),
                                     ("text", NOTE + "\n" + LEGEND, 0.5, 5, 9, 2)]]), "citations"),
        Doc(xlsx(d / "cited.xlsx", {"Offline": [["System", "Result"], ["ThinkSystem SR680a V3", BOUND], [], [NOTE],
                                                [LEGEND]]}), "citations"),
        Doc(csv_file(d / "cited.csv", [["system", "throughput", "note"], ["ThinkSystem SR680a V3", BOUND, NOTE],
                                       ["", "", LEGEND]]), "citations"),
        Doc(md(d / "no-source.md", bound_md.replace(" Retrieved 2026-11-29 from github.com/mlcommons/"
                                                    "inference_results_v5.1.", " Retrieved 2026-11-29.")),
            "citations", [Expect("EG005", "lacks: source")]),
    ]


def hostile(d: Path) -> list[Doc]:
    base_x = xlsx(d / "_base.xlsx", {"Results": [["System", "Throughput (tok/s)"], ["B200", "101,527 tok/s ±5.4% [a]"]]})
    base_p = pptx(d / "_base.pptx", [[("text", "Results", 0.5, 0.3, 9, 0.8)]])
    chart = pptx(d / "_chart.pptx", [[("chart", "Offline", ["B200"], [("Throughput (tok/s)", (101527,))])]])
    dtd = b'<!DOCTYPE Types [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n'
    docs = [
        Doc(inject_prolog(base_x, d / "content-types-xxe.xlsx", "[Content_Types].xml", dtd), "hostile",
            not_inspectable=True),
        Doc(inject_prolog(base_p, d / "content-types-xxe.pptx", "[Content_Types].xml", dtd), "hostile",
            not_inspectable=True),
        Doc(inject_prolog(base_x, d / "core-props-entities.xlsx", "docProps/core.xml",
                          b'<!DOCTYPE cp [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>\n'),
            "hostile", not_inspectable=True),
        Doc(_inject_nested(chart, d / "embedded-workbook-dtd.pptx", dtd), "hostile", not_inspectable=True),
    ]
    for p in (base_x, base_p, chart):
        p.unlink()
    return docs


def inject_prolog(src: Path, dst: Path, part: str, declaration: bytes) -> Path:
    """A copy of a package whose ``part`` declares a DTD right after its XML declaration."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == part:
                data = with_prolog(data, declaration)
            zout.writestr(info, data)
    return dst


def with_prolog(data: bytes, declaration: bytes) -> bytes:
    """An XML part with ``declaration`` (a DTD, a comment) in its prolog, right after its XML declaration."""
    if data.startswith(b"<?xml"):
        end = data.index(b"?>") + 2
        return data[:end] + b"\n" + declaration + data[end:]
    return declaration + data


def _inject_nested(src: Path, dst: Path, declaration: bytes) -> Path:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename.startswith("ppt/embeddings/") and info.filename.endswith(".xlsx"):
                inner = io.BytesIO()
                with zipfile.ZipFile(io.BytesIO(data)) as a, zipfile.ZipFile(inner, "w", zipfile.ZIP_DEFLATED) as b:
                    for i in a.infolist():
                        content = a.read(i.filename)
                        b.writestr(i, with_prolog(content, declaration) if i.filename == "[Content_Types].xml" else content)
                data = inner.getvalue()
            zout.writestr(info, data)
    return dst


CLEAN_TEXT = ("Each node has 8 GPUs with 141 GB of HBM3e and 4.8 TB/s of memory bandwidth, NVLink at 900 GB/s and "
              "400 Gb/s InfiniBand. On-demand instances list at $3.29/hr. Our SLO is a p99 TTFT of 450 ms and a TPOT "
              "of 40 ms. The OpenOrca subset holds 24,576 samples; the B200 is 3.3x faster than the H100 on it, and "
              "40 % faster than the H200. Stack: vLLM 0.9.2, CUDA 12.8, TensorRT-LLM 0.21. Round v5.1 was "
              "published 2025-09-09; in 2025 it had 27 submitters.")


def clean(d: Path) -> list[Doc]:
    bound_text = f"Lenovo's ThinkSystem SR680a V3 reached {BOUND} on llama2-70b-99 Offline."
    return [
        Doc(md(d / "clean-specs.md", f"# Cluster sizing\n\n{CLEAN_TEXT}\n\n| Item | Price (USD) | p99 TTFT (ms) | GPUs |\n"
               "|---|---:|---:|---:|\n| H200 node | 3.29/hr | 450 | 8 |\n"), "clean"),
        Doc(md(d / "clean-bound.md", f"# Results\n\n{bound_text}\n\n- {NOTE}\n\n{LEGEND}\n"), "clean"),
        Doc(csv_file(d / "clean-latency.csv", [["run", "concurrency", "p99_ttft_ms", "p99_tpot_ms", "requests",
                                                "date"], ["c8", "8", "99.29", "10.16", "64", "2026-12-01"]]), "clean"),
        Doc(csv_file(d / "clean-prices.csv", [["instance", "gpus", "memory_gb", "usd_per_hour", "network"],
                                              ["p5e.48xlarge", "8", "141", "3.29", "400 Gb/s"]]), "clean"),
        Doc(pptx(d / "clean-deck.pptx", [
            [("text", "Why B200", 0.5, 0.3, 9, 0.8), ("text", CLEAN_TEXT, 0.5, 1.3, 9, 3),
             ("text", "3.3x", 0.5, 4.5, 2, 1), ("text", "faster than H100", 0.5, 5.5, 2, 0.5)],
            [("text", "Bound result", 0.5, 0.3, 9, 0.8), ("text", bound_text, 0.5, 1.3, 9, 1),
             ("text", NOTE + "\n" + LEGEND, 0.5, 5, 9, 2)],
            [("text", "Specs", 0.5, 0.3, 9, 0.8),
             ("table", [["Item", "Value"], ["HBM per GPU (GB)", "141"], ["NVLink (GB/s)", "900"],
                        ["Price ($/hr)", "3.29"], ["p99 TTFT (ms)", "450"]])],
        ]), "clean"),
        Doc(xlsx(d / "clean-sheet.xlsx", {"Specs": [["Item", "Price (USD/hr)", "Latency p99 (ms)", "GPUs", "Memory (GB)"],
                                                    ["H200 node", 3.29, 450, 8, 141], ["B200 node", 6.0, 380, 8, 180]],
                                          "Notes": [[CLEAN_TEXT]]}), "clean"),
        Doc(xlsx(d / "clean-bound.xlsx", {"Offline": [["System", "Throughput"], ["ThinkSystem SR680a V3", 102909.4], [],
                                                      [NOTE], [LEGEND]]},
                 {("Offline", "B2"): '#,##0" tok/s ±5.4% [a]"'}), "clean"),
        Doc(pdf(d / "clean-brief.pdf", [("h", "Cluster sizing"), ("p", CLEAN_TEXT),
                                        ("table", [["Item", "Price ($/hr)", "p99 TTFT (ms)", "Bandwidth (GB/s)"],
                                                   ["H200 node", "3.29", "450", "900"]])]), "clean"),
        Doc(pdf(d / "clean-bound.pdf", [("p", bound_text), ("p", NOTE), ("p", LEGEND)]), "clean"),
    ]


BUILDERS = (label_first, units, locales, unit_once, derived_cost, reader_sees, citations, hostile, clean)


def build(folder: Path) -> list[Doc]:
    """Every document of the corpus, written into ``folder`` (one subfolder per class and set)."""
    from . import issue37, more

    docs = []
    for builders, suffix in ((BUILDERS, ""), (more.BUILDERS, "-2"), (issue37.BUILDERS, "-3")):
        for builder in builders:
            sub = folder / (builder.__name__.replace("_", "-") + suffix)
            sub.mkdir(parents=True, exist_ok=True)
            docs += builder(sub)
    return docs
