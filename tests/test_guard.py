"""The guard's rules on real v5.1 results: each rule fires when broken and stays quiet otherwise."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from exportguard.caveat import FULL, SHORT, TRADEMARK_LEGEND
from exportguard.guard import DEFAULT_COLUMNS, GuardError, PriceTable, bind_table, kpi, rank_groups, validate
from exportguard.ingest import ingest_path
from exportguard.model import Slack, estimate_slack
from exportguard.report import BoundFigure, Report, TableSection, TextSection
from exportguard.rules import RULES
from exportguard.store import open_store

pytestmark = pytest.mark.real_data


@pytest.fixture(scope="module")
def store(v51_store):
    return v51_store


@pytest.fixture(scope="module")
def offline(store):
    return store.results(round="v5.1", division="closed", benchmark="llama2-70b-99", scenario="Offline")


@pytest.fixture(scope="module")
def slack(offline):
    return estimate_slack(offline)


def _one(results, submitter, system_id):
    return next(r for r in results if r.conditions.identity.submitter == submitter
                and r.conditions.identity.system_id == system_id)


def _report(*sections, caveat=SHORT):
    return Report("t", "test", tuple(sections), caveat, FULL, TRADEMARK_LEGEND)


def _table(results, slack, columns=DEFAULT_COLUMNS, **kw):
    return bind_table(results, title="t", slack=slack, columns=columns, **kw)


def _rules(findings):
    return {f.rule_id for f in findings}


# -- ties ------------------------------------------------------------------------------------------

def test_real_tie_nvidia_b200_and_dell_xe9680l_b200_is_a_tie_within_slack(offline, slack):
    nvidia = _one(offline, "NVIDIA", "B200-SXM-180GBx8_TRT")
    dell = _one(offline, "Dell", "XE9680L_B200_SXM_180GBx8_TRT")
    amd = _one(offline, "AMD", "8xMI300X_2xEPYC_9575F")
    assert (round(nvidia.value), round(dell.value), round(amd.value)) == (101527, 101253, 27804)
    assert rank_groups([nvidia.value, dell.value], slack) == [(0, 1)]
    assert rank_groups([nvidia.value, amd.value], slack) == [(0, 0), (1, 1)]
    assert rank_groups([dell.value, amd.value], slack) == [(0, 0), (1, 1)]
    table = _table([amd, dell, nvidia], slack)
    ranks = [row[0] for row in table.rows]
    assert ranks == ["~1-2 tie within slack", "~1-2 tie within slack", "3"]


def test_ranking_without_an_estimable_slack_says_so(offline):
    one = offline[:1]
    table = _table(one, estimate_slack(one))
    assert table.rows[0][0] == "1 (slack not estimable)"


# -- binding ---------------------------------------------------------------------------------------

def test_a_bound_figure_prints_unit_band_and_mark_together(offline, slack):
    nvidia = _one(offline, "NVIDIA", "B200-SXM-180GBx8_TRT")
    table = _table([nvidia], slack)
    fig = table.rows[0][-1]
    assert fig.text() == "101,527 tok/s ±5.4% [a]"
    assert fig.spreadsheet_cell() == (nvidia.value, '#,##0" tok/s ±5.4% [a]"')
    assert table.notes[0].mark == "a" and "result 5.1-0069" in table.notes[0].text


def test_marks_are_letters_in_order_of_appearance_and_identical_notes_share_one(offline, slack):
    table = _table(offline[:30], slack, columns=(*DEFAULT_COLUMNS, "per_accelerator"))
    marks = [n.mark for n in table.notes]
    assert marks[:3] == ["a", "b", "c"] and len(set(marks)) == len(marks)
    derived_marks = {row[-1].derivation.mark for row in table.rows if isinstance(row[-1], BoundFigure)}
    assert len(derived_marks) == 1  # one basis note for every per-accelerator figure


def test_unverified_figure_says_so_and_its_note_has_the_required_sentence(store, slack):
    import dataclasses

    r = store.results(benchmark="llama2-70b-99", scenario="Offline", submitter="AMD")[0]
    pending = r.with_conditions(identity=dataclasses.replace(r.conditions.identity, result_id="",
                                                             result_id_state="pending", verified="unverified"))
    table = _table([pending], slack)
    assert table.rows[0][-1].text().endswith("unverified")
    assert "Result not verified by MLCommons Association." in table.notes[0].text
    assert validate(_report(TableSection("t", table))) == []


def test_derived_figures_are_labelled_with_basis_and_shape(offline, slack):
    nvidia = _one(offline, "NVIDIA", "B200-SXM-180GBx8_TRT")
    prices = PriceTable("USD", "test prices", {}, {"NVIDIA B200-SXM-180GB": 6.0})
    table = _table([nvidia], slack, columns=("throughput", "per_accelerator", "cost_per_million_tokens"), prices=prices)
    per_acc, cost = table.rows[0][1], table.rows[0][2]
    assert per_acc.text() == "12,691 tok/s per accelerator ±5.4% [a][b] derived"
    assert cost.magnitude == pytest.approx(48.0 / (nvidia.value * 3600) * 1e6)
    assert cost.text().startswith("0.1313 USD per 1M tokens")
    basis = {n.mark: n.text for n in table.notes}
    assert "not an MLPerf metric" in basis[cost.derivation.mark]
    assert "llama2-70b-99 Offline" in basis[cost.derivation.mark]


# -- every rule: triggered, and quiet --------------------------------------------------------------

def test_the_rule_registry_has_stable_ids_titles_and_descriptions():
    assert list(RULES) == [f"EG{n:03d}" for n in range(1, 12)]
    assert all(r.title and r.description and r.severity in ("error", "warning") for r in RULES.values())


@pytest.mark.parametrize("rule_id", list(RULES))
def test_each_rule_is_quiet_on_a_clean_report(offline, slack, rule_id):
    """A report with ties, an unverified figure, derived figures, a headline and text breaks no rule."""
    import dataclasses

    r = offline[-1]
    pending = r.with_conditions(identity=dataclasses.replace(r.conditions.identity, result_id="",
                                                             result_id_state="pending", verified="unverified"))
    prices = PriceTable("USD", "test prices", {}, {"NVIDIA B200-SXM-180GB": 6.0})
    table = _table([*offline[:-1], pending], slack,
                   columns=(*DEFAULT_COLUMNS, "per_accelerator", "cost_per_million_tokens"), prices=prices)
    head = kpi(offline[0], slack, "Top")
    text = TextSection("About", ("MLPerf® results under fixed conditions.",))
    assert rule_id not in _rules(validate(_report(TableSection("t", table), head, text)))


def test_EG001_a_mark_that_resolves_to_nothing(offline, slack):
    table = _table(offline[:3], slack)
    broken = replace(table, notes=table.notes[1:])
    assert "EG001" in _rules(validate(_report(TableSection("t", broken))))


def test_EG002_a_zero_band(offline):
    zero = Slack(0.0, 300.0, 300.0, 2, 2)
    table = _table(offline[:2], zero)
    assert "EG002" in _rules(validate(_report(TableSection("t", table))))


def test_EG003_two_cohorts_in_one_table_are_refused_with_the_way_out(store, slack):
    mixed = store.results(round="v5.1", division="closed", model=("llama2-70b", "llama3.1-8b"), scenario="Offline")
    with pytest.raises(GuardError) as e:
        _table(mixed, slack)
    (f,) = e.value.findings
    assert f.rule_id == "EG003" and "split by cohort" in f.message and "llama3.1-8b" in f.message


def test_EG004_a_lead_inside_slack_shown_as_an_order(offline, slack):
    table = _table(offline, slack)
    ordinal = tuple((str(i + 1), *row[1:]) for i, row in enumerate(table.rows))
    findings = validate(_report(TableSection("t", replace(table, rows=ordinal))))
    assert "EG004" in _rules(findings)
    assert any("101,527 tok/s" in f.message or "tie" not in f.message for f in findings)


def test_EG005_a_footnote_without_suite_and_division(offline, slack):
    table = _table(offline[:2], slack)
    stripped = replace(table, table_note="Shape only.",
                       notes=tuple(replace(n, text=n.text.replace("MLPerf® Inference: Datacenter", "")
                                           .replace("Closed division", "")) for n in table.notes))
    findings = validate(_report(TableSection("t", stripped)))
    assert "EG005" in _rules(findings) and "suite" in findings[0].message


def test_EG006_unverified_without_the_required_sentence(store, slack):
    import dataclasses

    r = store.results(benchmark="llama2-70b-99", scenario="Offline", submitter="AMD")[0]
    pending = r.with_conditions(identity=dataclasses.replace(r.conditions.identity, result_id="",
                                                             result_id_state="pending", verified="unverified"))
    table = _table([pending], slack)
    silent = replace(table, notes=tuple(replace(n, text=n.text.replace("Result not verified", "")) for n in table.notes))
    assert "EG006" in _rules(validate(_report(TableSection("t", silent))))


def test_EG007_derived_without_its_basis(offline, slack):
    table = _table(offline[:2], slack, columns=("accelerators", "throughput", "per_accelerator"))
    basis_mark = table.rows[0][2].derivation.mark
    silent = replace(table, notes=tuple(replace(n, text="per accelerator") if n.mark == basis_mark else n
                                        for n in table.notes))
    assert "EG007" in _rules(validate(_report(TableSection("t", silent))))


def test_EG008_hidden_availability_difference_is_refused_and_shown_when_asked(offline, slack):
    import dataclasses

    a, b = offline[0], offline[1]
    preview = b.with_conditions(identity=dataclasses.replace(b.conditions.identity, availability="preview"))
    with pytest.raises(GuardError) as e:
        _table([a, preview], slack, columns=("submitter", "accelerators", "throughput"))
    assert _rules(e.value.findings) == {"EG008"} and "add column availability" in e.value.findings[0].message
    _table([a, preview], slack, columns=("submitter", "accelerators", "availability", "throughput"))


def test_EG009_mlperf_and_non_mlperf_in_one_comparison(offline, slack, sqlite_url, tmp_path):
    # An own load test in the CSV format, next to the real MLPerf rows.
    template = (Path(__file__).resolve().parents[1] / "templates" / "results.csv").read_text()
    own_test = dict(mlperf="no", submitter="our lab", system_name="8x H200 replica", model="llama2-70b",
                    scenario="Offline", value="20000", unit="tokens/s", accelerator="NVIDIA H200-SXM-141GB",
                    accelerators_per_node="8", nodes="1", framework="vLLM", source_url="file:///lab/run-1",
                    dataset="chat replay", dataset_samples="5000", reference_max_output_tokens="4096",
                    arrival_process="closed-loop drain", min_duration_ms="900000")
    header = template.strip().split(",")
    (tmp_path / "own.csv").write_text(template + ",".join(own_test.get(c, "") for c in header) + "\n")
    with open_store(sqlite_url) as own_store:
        assert ingest_path(own_store, tmp_path / "own.csv").added == 1
        own = own_store.results(mlperf=False)
    with pytest.raises(GuardError) as e:
        _table([offline[0], *own], slack)
    assert "EG009" in _rules(e.value.findings)


def test_EG010_report_without_caveat(offline, slack):
    table = _table(offline[:2], slack)
    assert "EG010" in _rules(validate(_report(TableSection("t", table), caveat="")))


def test_EG011_mlperf_without_the_registered_mark_is_a_warning():
    findings = validate(_report(TextSection("About", ("MLPerf results are fixed-shape.",))))
    assert [(f.rule_id, f.severity) for f in findings] == [("EG011", "warning")]
    assert validate(_report(TextSection("About", ("MLPerf® results are fixed-shape.",)))) == []


def test_the_rule_list_is_documented():
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "docs" / "rules.md").read_text(encoding="utf-8")
    for r in RULES.values():
        assert f"| {r.id} | `{r.name}` | {r.severity} | **{r.title}.**" in doc
