"""The figure detector shared by the guard and the checker: what counts as a throughput figure, and
what binding it carries."""
from __future__ import annotations

import pytest

from exportguard.caveat import FULL, SHORT, TRADEMARK_LEGEND
from exportguard.detect import find_figures

FIGURES = {
    "101,527 tok/s ±5.4% [a]": (101527.0, "±5.4%", ("a",), ()),
    "Vendor X: 101.5k tok/s": (101500.0, "", (), ()),
    "we got 3.2M tokens per second!": (3.2e6, "", (), ()),
    "throughput 5000 samples/s": (5000.0, "", (), ()),
    "12 queries/s": (12.0, "", (), ()),
    "12,691 tok/s per accelerator ±5.4% [a][b] derived": (12691.0, "±5.4%", ("a", "b"), ("derived",)),
    "96,045 tok/s, low edge of ±5.4% [a]": (96045.0, "±5.4%", ("a",), ()),
    "27,804 tok/s (slack not estimable: 1 result) [a] unverified":
        (27804.0, "(slack not estimable: 1 result)", ("a",), ("unverified",)),
    "122,269 tok/s (slack not estimable) [a]": (122269.0, "(slack not estimable)", ("a",), ()),  # the reason: its note's
}


@pytest.mark.parametrize("text", FIGURES)
def test_a_figure_and_its_binding_are_found(text):
    (d,) = find_figures(text)
    assert (d.value, d.band, d.marks, d.labels) == FIGURES[text]
    assert d.bound == bool(d.band and d.marks)


@pytest.mark.parametrize("text", ["target 45.2 QPS", "tokens per sample 272.6 to 302.0", "273.4 tokens/sample",
                                  "reference max output 1,024 tokens", "runs of at least 600 s", "v5.1", "5.1-0042",
                                  "$3.29/hr", "p99 TTFT 450 ms"])
def test_conditions_and_other_numbers_are_not_figures(text):
    assert find_figures(text) == []


def test_the_caveat_and_legend_hold_no_figure():
    for text in (SHORT, TRADEMARK_LEGEND, *FULL):
        assert find_figures(text) == [], text


# -- figures as people write them (issue 18): the value read, the unit, what the figure is of ------------

PEOPLE = {
    "147k TPS": [(147000.0, "TPS", "")],
    "16,099 tok/s/GPU": [(16099.0, "tok/s", "per accelerator")],
    "2,600 TPS/GPU": [(2600.0, "TPS", "per accelerator")],
    "~66k output tokens/s": [(66000.0, "output tokens/s", "")],
    "98.65 tokens/sec/user": [(98.65, "tokens/sec", "per user")],
    "45,3 Samples/s": [(45.3, "Samples/s", "")],
    "1,2 Mio. Token/s": [(1.2e6, "Token/s", "")],
    "101.527 Token/s": [(101527.0, "Token/s", "")],  # German: the dot groups thousands
    "101.527 tok/s": [(101.527, "tok/s", "")],  # English: a decimal point
    "1.234,5 Token/s": [(1234.5, "Token/s", "")],
    "101\u202f253 tok/s": [(101253.0, "tok/s", "")],
    "101\u2009253 tok/s": [(101253.0, "tok/s", "")],
    "Débit : 101 527 tokens/s": [(101527.0, "tokens/s", "")],  # French text: a space groups thousands
    "120–155 tokens/sec": [(120.0, "tokens/sec", ""), (155.0, "tokens/sec", "")],
    "from 98,000 to 101,527 tok/s": [(98000.0, "tok/s", ""), (101527.0, "tok/s", "")],
    "169,600 tokens/dollar": [(169600.0, "tokens/dollar", "tokens per dollar")],
    "$0.07/M tokens": [(0.07, "/M tokens", "cost per million tokens")],
    "0,19 € pro Mio. Token": [(0.19, "€ pro Mio. Token", "cost per million tokens")],
    "Output token throughput (tok/s):         778.89": [(778.89, "tok/s", "")],
    '"output_throughput": 778.89, "mean_ttft_ms": 83.73': [(778.89, "throughput", "")],
    "│ Request Throughput (requests/sec) │     3.05 │      N/A │": [(3.05, "requests/sec", "")],
    "request_output_throughput_token_per_s\n    p50 = 96.9\n    mean = 96.6": [(96.9, "token per s", ""),
                                                                               (96.6, "token per s", "")],
    "Offline throughput (samples/s):\n- H200: 118.5\n- H100: 84.2": [(118.5, "samples/s", ""), (84.2, "samples/s", "")],
    "In samples/second, H200 achieves 118.5 (40% faster than H100's 84.2).": [(118.5, "samples/second", ""),
                                                                              (84.2, "samples/second", "")],
    "B200 reached 31,712 tokens/second in Offline, up from 21,806 on H100.": [(31712.0, "tokens/second", ""),
                                                                              (21806.0, "tokens/second", "")],
    "|    | system | tokens_per_second |\n|---:|:---|---:|\n|  0 | B200 | 102909.0 |": [
        (102909.0, "tokens per second", "")],
}


@pytest.mark.parametrize("text", PEOPLE)
def test_figures_as_people_write_them(text):
    assert [(d.value, d.unit, d.qualifier) for d in find_figures(text)] == PEOPLE[text]


@pytest.mark.parametrize("text,figures", [
    ("$3.29/hr per GPU", []), ("TTFT 450 ms", []), ("24,576 samples", []), ("8 GPUs", []), ("141 GB", []),
    ("900 GB/s", []), ("400 Gb/s", []), ("3.3x faster", []), ("40 % faster", []), ("2025-09-09", []), ("v5.1", []),
    ("in 2025", []), ("vLLM 0.9.2, CUDA 12.8", []), ("Request rate configured (RPS):  4.00", []),
    ("Mean TTFT (ms):   83.73", []), ("Throughput (GB/s): 900", []), ("Throughput: 40% higher", []),
    ("Throughput rose 3.3x on 8 GPUs", []), ("llama2-70b-99 Offline", []),
    ("Successful requests:  64\nRequest throughput (req/s):  3.12", [3.12]),  # the count is no figure
    ("Llama 2 70B (tokens/s) 38\nCaveat: what these figures tell 37", []),  # a table of contents
    ("8 528 tok/s", [528.0]),
    ("Own runs: closed loop; ~550 in / 250 out tokens per request (tokens/s)", []),  # a shape class
    ("Own runs (tokens/s): target rate 4 per second; ~550\nin / 4,010 out tokens per request", []),
    ("3. vLLM runs: Own runs: closed loop, 8 requests in flight; ~550 in\n/ 250 out tokens per request (tokens/s)", []),
    # a contents line as pypdf reads it: the page number after the first line's last word
    ("3. vLLM runs: Own runs: closed loop, 8 requests in flight; ~550 in 3\n/ 250 out tokens per request (tokens/s)", []),
    ("Band ±0.5%: half the run-to-run spread of 0.9% (output tokens/s of 3 repeated runs, from 774.0 to 781.2).", []),  # an extracted table's two columns in an English text, not 8,528
])
def test_other_numbers_are_not_figures(text, figures):
    assert [d.value for d in find_figures(text)] == figures


@pytest.mark.parametrize("header,unit", [
    ("tokens_per_second", "tokens per second"), ("tok_per_s", "tok per s"), ("samples_per_second", "samples per second"),
    ("output_throughput", "throughput"), ("throughput_tok_s", "tok/s"), ("Tok/s/GPU", "Tok/s/GPU"), ("TPS", "TPS"),
    ("Cost ($/M tokens)", "$/M tokens"), ("Tokens per $", "Tokens per $"), ("usd_per_1m_tokens", "usd per 1m tokens"),
    ("Request Throughput (per sec)", "throughput"), ("Durchsatz (Token/s)", "Token/s"),
    ("Target QPS", None), ("p99 TTFT (ms)", None), ("Tokens/sample", None), ("Throughput (GB/s)", None),
    ("inter_token_latency_s", None), ("max_concurrent_requests", None), ("Price (USD)", None), ("Debit", None),
])
def test_headings_people_and_tools_write(header, unit):
    from exportguard.detect import header_unit

    assert header_unit(header) == unit


@pytest.mark.parametrize("text", ["Throughput (tok/s): 1764.14", "In tokens/s, B200 reached 102,909.",
                                  "999,999 tok/s ±0.1% [a]", "$0.07/M tokens [b]", "Offline (samples/s):\n- A: 118.5"])
def test_defused_text_reads_like_no_figure_and_no_mark(text):
    from exportguard.detect import MARK_LIKE, defuse

    safe = defuse(text)
    assert find_figures(safe) == [] and not MARK_LIKE.search(safe), safe


@pytest.mark.real_data
def test_no_name_in_the_real_mlperf_publications_reads_like_a_figure():
    """Ingest quarantines a name that reads like a figure: a wider detector must not start taking
    real names for figures (every string of the v4.1 and v5.1 summaries and the v5.1 system files)."""
    import json

    from exportguard.detect import reads_like_a_figure
    from tests.conftest import SHARED

    strings: list[str] = []

    def walk(x):
        if isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
        elif isinstance(x, str):
            strings.append(x)

    mlperf = SHARED / "mlperf"
    for path in sorted((mlperf / "summaries").glob("*.json")) + sorted((mlperf / "submissions").rglob("systems/*.json")):
        walk(json.loads(path.read_text(encoding="utf-8")))
    assert len(strings) > 50_000
    assert [s for s in strings if reads_like_a_figure(s)] == []


def test_wrapped_cells_of_a_table_laid_out_as_text_are_no_new_heading():
    """A PDF table read with its layout: the second line of a wrapped cell ('(derived: tokens/s',
    '/ samples/s)') stands between rows; it does not make the next row's tokens per sample a figure."""
    from exportguard.detect import table_figures

    layout = ("System        GPUs   Tokens/sample               Throughput (tok/s)\n"
              "Dell XE9680L  8      129.0                       102,907 tok/s ±5.4% [a]\n"
              "(8x B200)            tokens/sample (derived: tokens/s\n"
              "                     / samples/s)\n"
              "DGX B200      8      129.0                       102,903\n")
    assert [d.text for d in table_figures(layout)] == ["102,903"]


def test_a_rank_with_its_tie_is_no_figure():
    text = "Throughput (tok/s)\n12 (tie\n10-17) Google 19,622 tok/s ±5.8% [a]"
    assert [d.value for d in find_figures(text)] == [19622.0]


def test_a_number_a_page_wrapped_from_its_word_is_no_figure_of_a_unit_nearby():
    """A PDF note wraps anywhere: '1,024' at a line's end, 'tokens)' on the next, after a sentence
    naming QPS, is the reference output length, not a QPS figure. A number that really stands alone
    on its line after such a sentence still is one."""
    text = ("Target 528 QPS, measured p99 TTFT 1,973 ms and TPOT 192.6 ms.\n[b] Derived, not an MLPerf metric: "
            "measured on the llama2-70b-99 Server shape (OpenOrca (24,576 samples), reference max output 1,024\n"
            "tokens) and load of the table note.")
    assert find_figures(text) == []
    alone = "The B200 reached 120,000 tok/s. The H200 reached\n98,000\nand more."
    assert [d.text for d in find_figures(alone)] == ["120,000 tok/s", "98,000"]


def test_a_numbered_heading_under_a_figure_is_not_a_figure_in_its_unit():
    """A PDF page's text runs on from a table's last figure into the next section's heading: the
    section number opening the line ('11. Results: ... (tokens/s)') is no throughput, while a number
    standing alone in the same sentence still is."""
    page = ("not ranked HPE HPE Cray XD670 (8x H200-SXM-141GB) 53,475 tok/s (slack not estimable: tokens/sample "
            "measured for 0 of 8 results) [f]\nnot ranked HPE HPE ProLiant Compute DL380a Gen12 (8x RTX Pro 6000 "
            "Blackwell\nServer Edition)\n36,052 tok/s (slack not estimable: tokens/sample measured for 0 of 8 results) "
            "[g]\nnot ranked Quanta_Cloud_Technology D75E-4U_H200-NVL-141GBx4 21,944 tok/s (slack not estimable: "
            "tokens/sample measured for 0 of 8 results) [h]\n11. Results: MLPerf® v5.1 closed llama3.1-8b Offline "
            "(tokens/s)\nTable 12. Part 1 of 2 of its columns, the other in Table 13.\n")
    assert [d.value for d in find_figures(page)] == [53475.0, 36052.0, 21944.0]
    assert [d.value for d in find_figures("Throughput (tokens/s): H200 reached 11 in our test.")] == [11.0]
