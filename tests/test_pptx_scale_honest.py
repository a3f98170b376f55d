"""Issue 32, item 3: a deck that shows scale honestly. Bar labels name their parts in one order on
every bar, a note is never split across the notes box's two columns, and the example and demo decks
show the per-accelerator view beside the total, derived and labelled."""
from __future__ import annotations

import re
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


COHORT = 'round = "v5.1", division = "closed", model = "llama2-70b", track = "99", scenario = "Offline"'


def _sections(store, body: str):
    from exportguard.spec import build_report, parse_spec

    return build_report(store, parse_spec(f'title = "t"\n[[section]]\n{body}\n')).sections


def test_a_kpi_per_accelerator_states_the_highest_figure_per_accelerator_derived(v51_store):
    """per_accelerator = true: the headline is the highest figure per accelerator (not the 48-accelerator
    cluster's total), derived and labelled so, naming submitter, system and scale."""
    (head,) = _sections(v51_store, f'kind = "kpi"\ntitle = "Highest llama2-70b Offline"\nper_accelerator = true\n'
                                   f'filters = {{ {COHORT} }}')
    fig = head.figure
    assert fig.derivation is not None and fig.derivation.label == "per accelerator"
    assert "per accelerator" in fig.text() and "derived" in " ".join(n.text for n in fig.notes).lower()
    assert "per accelerator (derived)" in head.title
    total = fig.result.conditions.configuration.accelerators_total
    assert f"on {total} accelerator" in head.title and fig.result.conditions.identity.submitter in head.title
    (lead,) = _sections(v51_store, f'kind = "kpi"\ntitle = "Highest"\nfilters = {{ {COHORT} }}')
    assert lead.figure.result.conditions.configuration.accelerators_total == 48
    assert fig.magnitude > lead.figure.magnitude / 48  # the cluster does not lead per accelerator
    from exportguard.caveat import FULL, SHORT, TRADEMARK_LEGEND
    from exportguard.guard import validate
    from exportguard.report import Report
    assert not [f for f in validate(Report("t", "a", (head,), SHORT, FULL, TRADEMARK_LEGEND))
                if f.severity == "error"]


def test_a_chart_per_accelerator_adds_the_derived_chart_after_the_total(v51_store):
    (chart,) = _sections(v51_store, f'kind = "chart"\ntitle = "Top 8"\nlimit = 8\nper_accelerator = true\n'
                                    f'columns = ["rank", "submitter", "system", "accelerators", "throughput"]\n'
                                    f'filters = {{ {COHORT} }}')
    keys = [c.key for c in chart.table.columns]
    assert keys[-2:] == ["throughput", "per_accelerator"]
    assert chart.table.columns[-1].header.endswith("(derived)")


def test_a_kpi_for_one_scale_says_the_scale_in_its_headline(v51_store):
    (head,) = _sections(v51_store, f'kind = "kpi"\ntitle = "Highest llama2-70b Offline"\n'
                                   f'filters = {{ {COHORT}, accelerator_count = 8 }}')
    assert head.title.startswith("Highest llama2-70b Offline among systems of 8 accelerators: ")
    assert "on 8 accelerators in 1 node (" in head.title


def test_per_accelerator_is_a_true_or_false_of_kpi_and_chart_sections():
    from exportguard.spec import SpecError, parse_spec

    for body in ('kind = "table"\ntitle = "x"\nper_accelerator = true', 'kind = "kpi"\ntitle = "x"\nper_accelerator = 1'):
        with pytest.raises(SpecError, match="per_accelerator"):
            parse_spec(f'title = "t"\n[[section]]\n{body}\n')


def test_a_top_10_chart_of_the_default_columns_labels_its_bars_lean_and_fits_one_16x9_slide(v51_store):
    """No `columns`: each bar is labelled with its rank, submitter and system only; the accelerator, the
    counts, the result ID and tokens per sample are in the bar's note, and ten bars fit one slide."""
    from bench.pptx_density import TOP
    from exportguard.layout.document import ChartBlock
    from exportguard.render.pptx_plan import plan_deck
    from exportguard.render.pptx_template import open_template
    from exportguard.spec import build_report, parse_spec
    from tests.office import theme_font_measured

    theme_font_measured()
    spec = "\n".join(line for line in TOP.format(n=10, kind="chart").splitlines() if not line.startswith("columns"))
    doc = plan_deck(build_report(v51_store, parse_spec(spec)), open_template(None))
    charts = [b for u in doc.units for b in u.blocks if isinstance(b, ChartBlock)]
    assert len(charts) == 1 and len(charts[0].bars) == 10
    for bar in charts[0].bars:
        label = " ".join(bar.category)
        assert "Accelerator" not in label and "Result ID" not in label and "tokens/sample" not in label.lower(), label
        assert "Result 5.1-" in bar.cell.notes[0] and re.search(r" on \d+ nodes?\.", bar.cell.notes[0]), bar.cell.notes
    assert charts[0].axis_title == "Throughput, tok/s" and charts[0].axis_step > 0
