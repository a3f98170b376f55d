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
