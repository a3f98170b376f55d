"""Issue 32, item 3: a deck that shows scale honestly. Bar labels name their parts in one order on
every bar, a note is never split across the notes box's two columns, and the example and demo decks
show the per-accelerator view beside the total, derived and labelled."""
from __future__ import annotations

from pathlib import Path

import pytest

from exportguard.render import pptx_layout as lay

pytestmark = pytest.mark.real_data

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("width", [120, 200, 320, 900])
def test_a_bar_label_names_its_parts_in_one_order_whatever_its_width(width):
    """Stacked or run on, the label reads rank and submitter, then the system, then the other columns:
    'Accelerators: 32' never stands before the system on one bar and after it on the next."""
    m = lay.Metrics("DejaVu Sans")
    head, system, tail = "2 · Cisco", "HPF HGX System (32xH100-SXM-80GB, TensorRT)", "Accelerators: 32 (4 nodes x 8)"
    text = " ".join(lay.chart_category_lines(m, (head, system, tail), 10, width))
    assert text.index("Cisco") < text.index("HPF") < text.index("Accelerators"), text


@pytest.mark.parametrize("spec_path", ["examples/executive-deck.toml", "exportguard/data/demo-deck.toml"])
def test_the_decks_show_the_per_accelerator_view_beside_the_total(v51_store, spec_path):
    """Their Top 8 spans 8 to 48 accelerators: the next chart shows the same systems per accelerator,
    derived and labelled so, in the same order."""
    from exportguard.report import ChartSection
    from exportguard.spec import build_report, parse_spec

    report = build_report(v51_store, parse_spec((ROOT / spec_path).read_text("utf-8"), name=Path(spec_path).name))
    charts = [s for s in report.sections if isinstance(s, ChartSection)]
    total, per = charts[:2]
    assert [c.key for c in per.table.columns][-1] == "per_accelerator"
    assert "per accelerator (derived)" in per.title
    def systems(table):
        return [f.result.natural_key for _, _, f in table.figures()]

    assert systems(total.table) == systems(per.table) and len(systems(per.table)) == 8
    texts = [f.text() for _, _, f in per.table.figures()]
    assert texts and all("per accelerator" in t and "derived" in t for t in texts), texts
