"""The guard's rules on real v5.1 results: each rule fires when broken and stays quiet otherwise."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from exportguard.caveat import FULL, SHORT, TRADEMARK_LEGEND
from exportguard.guard import (DEFAULT_COLUMNS, GuardError, PriceTable, bind_table, is_tie, kpi, rank_spans,
                               validate)
from exportguard.ingest import ingest_path
from exportguard.citation import Note
from exportguard.model import Slack, estimate_slack, group_by_cohort
from exportguard.render.walk import Lettering
from exportguard.render.xlsx import number_format
from exportguard.report import BoundFigure, RankSpan, Report, TableSection, TextSection
from exportguard.rules import RULES
from exportguard.store import open_store

pytestmark = [pytest.mark.real_data, pytest.mark.quick]


@pytest.fixture(scope="module")
def store(v51_store):
    return v51_store


@pytest.fixture(scope="module")
def offline(store):
    return store.results(round="v5.1", division="closed", benchmark="llama2-70b-99", scenario="Offline")


@pytest.fixture(scope="module")
def slack(store, offline):
    return store.cohort_slack(offline[0].cohort_key)


def _one(results, submitter, system_id):
    return next(r for r in results if r.conditions.identity.submitter == submitter
                and r.conditions.identity.system_id == system_id)


def _report(*sections, caveat=SHORT):
    return Report("t", "test", tuple(sections), caveat, FULL, TRADEMARK_LEGEND)


def _table(results, slack, columns=DEFAULT_COLUMNS, **kw):
    return bind_table(results, title="t", slack=slack, columns=columns, **kw)


def _rules(findings):
    """The rules found, less EG020: the Offline cohort spans 4 to 48 accelerators, so every table of
    it carries that warning (its own tests check it)."""
    return {f.rule_id for f in findings if f.rule_id != "EG020"}


def _at(findings):
    return [(f.rule_id, f.location) for f in findings if f.rule_id != "EG020"]


# -- ties ------------------------------------------------------------------------------------------

def test_real_tie_nvidia_b200_and_dell_xe9680l_b200_is_a_tie_within_slack(offline, slack):
    nvidia = _one(offline, "NVIDIA", "B200-SXM-180GBx8_TRT")
    dell = _one(offline, "Dell", "XE9680L_B200_SXM_180GBx8_TRT")
    amd = _one(offline, "AMD", "8xMI300X_2xEPYC_9575F")
    assert (round(nvidia.value), round(dell.value), round(amd.value)) == (101527, 101253, 27804)
    assert is_tie(nvidia.value, dell.value, slack) and not is_tie(nvidia.value, amd.value, slack)
    table = _table([amd, dell, nvidia], slack)
    ranks = [row[0] for row in table.rows]
    assert ranks == ["1 (tie 1-2)", "2 (tie 1-2)", "3"]
    assert [(s.position, s.tie_from, s.tie_to) for s in table.ranks] == [(1, 1, 2), (2, 1, 2), (3, 3, 3)]


def test_ties_do_not_chain_beyond_the_slack(offline, slack):
    """The run from 102,909 down to 92,158 tok/s: ranks 3 and 12 are 11.7 % apart, more than the
    cohort's 10.8 % slack, so no rank may join them (guard.rank_groups chained them once)."""
    table = _table(offline, slack)
    values = [row[-1].magnitude for row in table.rows]
    assert (round(values[2]), round(values[11])) == (102909, 92158)
    assert values[2] / values[11] > 1 + slack.fraction
    assert table.rows[2][0] == "3 (tie 3-11)" and table.rows[11][0] == "12 (tie 7-12)"
    assert_ties_hold_pairwise(values, [(s.tie_from, s.tie_to) for s in table.ranks], slack)
    assert [row[0] for row in table.rows] == [s.words() for s in table.ranks]


def assert_ties_hold_pairwise(values, spans, slack):
    """Every pair (i, j): j is in i's span exactly when their ratio is within 1 + slack."""
    assert len(values) == len(spans)
    for i, (lo, hi) in enumerate(spans):
        for j in range(len(values)):
            within = max(values[i], values[j]) <= min(values[i], values[j]) * (1 + slack.fraction)
            assert (lo <= j + 1 <= hi) == within, (i + 1, j + 1, values[i], values[j], (lo, hi))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(min_value=1.0, max_value=1e6, allow_nan=False), min_size=1, max_size=40),
       st.floats(min_value=0.001, max_value=0.5))
def test_rank_spans_hold_pairwise_for_any_values(values, fraction):
    slack = Slack(fraction, 100.0, 100.0 * (1 + fraction), 2, 2)
    values = sorted(values, reverse=True)
    spans = rank_spans(values, slack)
    assert [s.position for s in spans] == list(range(1, len(values) + 1))
    assert_ties_hold_pairwise(values, [(s.tie_from, s.tie_to) for s in spans], slack)


def test_a_top_n_table_ranks_among_all_it_was_cut_from(offline, slack):
    """A top 8 whose 8th row is tied with the 12th says so: the cut falls inside a tie."""
    table = _table(offline, slack, limit=8)
    assert len(table.rows) == 8 and table.rows[7][0] == "8 (tie 3-12)"
    assert {f.rule_id for f in validate(_report(TableSection("t", table)))} == {"EG020"}  # 48, 32 and 8 accelerators


def _lettered(table):
    return Lettering([fig for _, _, fig in table.figures()])


def test_ranking_without_an_estimable_slack_orders_by_value_and_says_why_once(store):
    """llama3.1-8b Offline has tokens/sample for too few results: no band, so no rank numbers."""
    rows = store.results(round="v5.1", division="closed", model="llama3.1-8b", scenario="Offline")
    not_estimable = store.cohort_slack(rows[0].cohort_key)
    assert not not_estimable.estimable
    table = _table(rows, not_estimable)
    assert {row[0] for row in table.rows} == {"not ranked"}
    assert all(not s.ranked for s in table.ranks)
    values = [row[-1].magnitude for row in table.rows]
    assert values == sorted(values, reverse=True)
    assert table.table_note.text.count("Not ranked") == 1 and "slack not estimable" in table.table_note.text
    assert {f.rule_id for f in validate(_report(TableSection("t", table)))} <= {"EG020"}
    ordinal = tuple((str(i + 1), *row[1:]) for i, row in enumerate(table.rows))
    assert "EG004" in {f.rule_id for f in validate(_report(TableSection("t", replace(table, rows=ordinal))))}


# -- binding ---------------------------------------------------------------------------------------

def test_a_bound_figure_prints_unit_band_and_mark_together(offline, slack):
    nvidia = _one(offline, "NVIDIA", "B200-SXM-180GBx8_TRT")
    table = _table([nvidia], slack)
    fig = table.rows[0][-1]
    letters = _lettered(table)
    assert letters.text(fig) == "101,527 tok/s ±5.4% [a]"
    assert fig.text() == "101,527 tok/s ±5.4%"  # the terminal's form: the same, without the mark
    assert number_format(fig, fig.binding(letters.marks(fig))) == '#,##0" tok/s ±5.4% [a]"'
    (mark, note), = letters.notes()
    assert mark == "a" and "Result 5.1-0069" in note.text and note.citation.result_id == "5.1-0069"


def test_marks_are_letters_in_order_of_appearance_and_identical_notes_share_one(offline, slack):
    table = _table(offline[:30], slack, columns=(*DEFAULT_COLUMNS, "per_accelerator"))
    letters = _lettered(table)
    marks = [m for m, _ in letters.notes()]
    assert marks[:3] == ["a", "b", "c"] and len(set(marks)) == len(marks)
    derived_marks = {letters.letters(row[-1])[-1] for row in table.rows if isinstance(row[-1], BoundFigure)}
    assert derived_marks == {"b"}  # one basis note for every per-accelerator figure, lettered where first seen


def test_unverified_figure_says_so_and_its_note_has_the_required_sentence(store, slack):
    import dataclasses

    r = store.results(benchmark="llama2-70b-99", scenario="Offline", submitter="AMD")[0]
    pending = r.with_conditions(identity=dataclasses.replace(r.conditions.identity, result_id="",
                                                             result_id_state="pending", verified="unverified"))
    table = _table([pending], slack)
    fig = table.rows[0][-1]
    assert _lettered(table).text(fig) == f"{fig.text()[:-len(' unverified')]} [a] unverified"
    # the row's note says "unverified"; its table note gives the required sentence once for every such row
    assert "unverified" in fig.note.text and not fig.note.citation.verified
    assert "Result not verified by MLCommons Association." in table.table_note.text
    assert "Result not verified by MLCommons Association." in fig.note.detail
    assert validate(_report(TableSection("t", table))) == []
    bare = dataclasses.replace(table, table_note=dataclasses.replace(
        table.table_note, text=table.table_note.text.replace("Result not verified by MLCommons Association.", "")))
    assert [f.rule_id for f in validate(_report(TableSection("t", bare)))] == ["EG006"]


def test_derived_figures_are_labelled_with_basis_and_shape(offline, slack):
    nvidia = _one(offline, "NVIDIA", "B200-SXM-180GBx8_TRT")
    prices = PriceTable("USD", "test prices", {}, {"NVIDIA B200-SXM-180GB": 6.0})
    table = _table([nvidia], slack, columns=("throughput", "per_accelerator", "cost_per_million_tokens"), prices=prices)
    per_acc, cost = table.rows[0][1], table.rows[0][2]
    letters = _lettered(table)
    assert letters.text(per_acc) == "12,691 tok/s per accelerator ±5.4% [a][b] derived"
    assert cost.magnitude == pytest.approx(48.0 / (nvidia.value * 3600) * 1e6)
    assert letters.text(cost) == "0.1313 USD per 1M tokens ±5.4% [a][c] derived"
    basis = cost.derivation.note
    assert "not an MLPerf metric" in basis.text and "llama2-70b-99 Offline" in basis.text
    assert (basis.basis_of, basis.shape_of) == ("cost per million tokens", "llama2-70b-99")


# -- every rule: triggered, and quiet --------------------------------------------------------------

def test_the_rule_registry_has_stable_ids_titles_and_descriptions():
    assert list(RULES) == [f"EG{n:03d}" for n in range(1, 28)]
    assert all(r.title and r.description and r.severity in ("error", "warning") for r in RULES.values())


@pytest.mark.parametrize("rule_id", list(RULES))
def test_each_rule_is_quiet_on_a_clean_report(offline, slack, rule_id):
    """A report with ties, an unverified figure, derived figures, a headline and text breaks no rule
    (its systems all have 8 accelerators: EG020 warns of a comparison across scales)."""
    import dataclasses

    eight = [r for r in offline if r.conditions.configuration.accelerators_total == 8]
    r = eight[-1]
    pending = r.with_conditions(identity=dataclasses.replace(r.conditions.identity, result_id="",
                                                             result_id_state="pending", verified="unverified"))
    prices = PriceTable("USD", "test prices", {}, {"NVIDIA B200-SXM-180GB": 6.0})
    table = _table([*eight[:-1], pending], slack,
                   columns=(*DEFAULT_COLUMNS, "per_accelerator", "cost_per_million_tokens"), prices=prices)
    head = kpi(eight, slack, "Top")
    text = TextSection("About", ("MLPerf® results under fixed conditions.",))
    assert rule_id not in {f.rule_id for f in validate(_report(TableSection("t", table), head, text))}


def test_EG001_a_figure_whose_note_carries_no_citation(offline, slack):
    table = _table(offline[:3], slack)
    fig = table.rows[1][-1]
    bare = replace(fig, note=Note("a note with no citation fields"))
    broken = replace(table, rows=(table.rows[0], (*table.rows[1][:-1], bare), table.rows[2]))
    findings = validate(_report(TableSection("t", broken)))
    assert _at(findings) == [("EG001", "section 1 (t), row 2, column 9")]


def test_EG002_a_zero_band(offline):
    zero = Slack(0.0, 300.0, 300.0, 2, 2)
    table = _table(offline[:2], zero)
    assert "EG002" in _rules(validate(_report(TableSection("t", table))))


def test_EG003_two_cohorts_in_one_table_are_refused_with_the_way_out(store, slack):
    mixed = store.results(round="v5.1", division="closed", model=("llama2-70b", "llama3.1-8b"), scenario="Offline")
    with pytest.raises(GuardError) as e:
        _table(mixed, slack)
    (f,) = e.value.findings
    assert f.rule_id == "EG003" and "llama3.1-8b" in f.message
    lines = f.message.split("\n")
    cohorts = group_by_cohort(mixed)
    assert lines[0] == f"{len(cohorts)} cohorts in one comparison:" and len(cohorts) > 2
    assert lines[1:-1] == [f"    {key.label()}: {len(rows)} results" for key, rows in cohorts]
    assert "    MLPerf® v5.1 closed llama3.1-8b Offline (tokens/s): 24 results" in lines
    differ = [k for k in ("model", "accuracy_track") if len({getattr(key, k) for key, _ in cohorts}) > 1]
    assert differ == ["model", "accuracy_track"]
    assert lines[-1] == ("  Way out: one table per cohort (--split-by-cohort; split_by_cohort = true in the section), or "
                         "narrow the filters to one model, accuracy track (--model, --track; model, track in the "
                         "spec's filters).")


def test_EG004_a_lead_inside_slack_shown_as_an_order(offline, slack):
    table = _table(offline, slack)
    ordinal = tuple((str(i + 1), *row[1:]) for i, row in enumerate(table.rows))
    findings = validate(_report(TableSection("t", replace(table, rows=ordinal))))
    assert _rules(findings) == {"EG004"}
    first = findings[0]
    assert first.location == "section 1 (t), row 3"
    assert "102,909 tok/s ±5.4%" in first.message and "'3 (tie 3-11)'" in first.message
    # spans that agree with the cells do not make a lie true: plain ordinals, and a chain beyond the slack
    ordinals = tuple(RankSpan(i + 1, i + 1, i + 1) for i in range(len(table.rows)))
    findings = validate(_report(TableSection("t", replace(table, rows=ordinal, ranks=ordinals))))
    assert _rules(findings) == {"EG004"} and "must read '3 (tie 3-11)'" in findings[0].message
    chained = tuple(RankSpan(i + 1, 3, 12) if 2 <= i <= 11 else s for i, s in enumerate(table.ranks))
    cells = tuple((s.words(), *row[1:]) for s, row in zip(chained, table.rows))
    findings = validate(_report(TableSection("t", replace(table, rows=cells, ranks=chained))))
    assert [f.location for f in findings if f.rule_id == "EG004"][:1] == ["section 1 (t), row 3"]


def test_EG005_a_footnote_whose_fields_miss_division_or_name_another_result(offline, slack):
    table = _table(offline[:2], slack)
    fig = table.rows[0][-1]
    no_division = replace(fig, note=replace(fig.note, citation=replace(fig.note.citation, division="")))
    other_id = replace(fig, note=replace(fig.note, citation=replace(fig.note.citation, result_id="5.1-9999")))
    for broken_fig, words in ((no_division, "lacks: division"), (other_id, "result_id do not match")):
        broken = replace(table, rows=((*table.rows[0][:-1], broken_fig), table.rows[1]))
        findings = validate(_report(TableSection("t", broken)))
        assert _rules(findings) == {"EG005"} and words in findings[0].message


def test_EG005_a_table_note_of_another_cohort(store, offline, slack):
    table = _table(offline[:2], slack)
    server = store.results(round="v5.1", division="closed", benchmark="llama2-70b-99", scenario="Server")
    other = _table(server[:1], slack)
    findings = validate(_report(TableSection("t", replace(table, table_note=other.table_note))))
    assert "EG005" in _rules(findings)


def test_EG006_unverified_without_the_required_sentence(store, slack):
    import dataclasses

    r = store.results(benchmark="llama2-70b-99", scenario="Offline", submitter="AMD")[0]
    pending = r.with_conditions(identity=dataclasses.replace(r.conditions.identity, result_id="",
                                                             result_id_state="pending", verified="unverified"))
    table = _table([pending], slack)
    fig = table.rows[0][-1]
    # the row's note must say "unverified" itself; the sentence may stand in its note or its table note
    silent = replace(fig, note=replace(fig.note, text=fig.note.text.replace("unverified", "")))
    broken = replace(table, rows=((*table.rows[0][:-1], silent),))
    assert _rules(validate(_report(TableSection("t", broken)))) == {"EG006"}
    whole = replace(fig, note=replace(fig.note, text=fig.note.detail))  # the sentence in the row's own note
    no_table_sentence = replace(table, rows=((*table.rows[0][:-1], whole),), table_note=replace(
        table.table_note, text=table.table_note.text.replace("Result not verified by MLCommons Association.", "")))
    assert _rules(validate(_report(TableSection("t", no_table_sentence)))) == set()


def test_EG007_derived_without_its_basis(offline, slack):
    table = _table(offline[:2], slack, columns=("accelerators", "throughput", "per_accelerator"))
    fig = table.rows[0][2]
    silent = replace(fig, derivation=replace(fig.derivation, note=Note("per accelerator")))
    broken = replace(table, rows=((*table.rows[0][:2], silent), table.rows[1]))
    assert _rules(validate(_report(TableSection("t", broken)))) == {"EG007"}


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
    template = (Path(__file__).resolve().parents[1] / "templates" / "results.csv").read_text().splitlines()[0]
    own_test = dict(mlperf="no", submitter="our lab", system_name="8x H200 replica", model="llama2-70b",
                    value="20000", unit="tokens/s", accelerator="NVIDIA H200-SXM-141GB",
                    accelerators_per_node="8", nodes="1", framework="vLLM", source_url="file:///lab/run-1",
                    dataset="chat replay", tool="vllm bench serve", load="closed loop", concurrency="64",
                    mean_input_tokens="1800", mean_output_tokens="410")
    header = template.split(",")
    (tmp_path / "own.csv").write_text(template + "\n" + ",".join(own_test.get(c, "") for c in header) + "\n")
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


@pytest.mark.parametrize("where", ["title", "paragraph"])
def test_EG001_a_figure_in_free_text_is_refused(where):
    claim = "Our system reached 250,000 tok/s on llama2-70b"
    section = TextSection(claim, ("Plain words.",)) if where == "title" else TextSection("About", (claim,))
    findings = validate(_report(section))
    assert [f.rule_id for f in findings] == ["EG001"] and "250,000 tok/s" in findings[0].message


def test_EG001_a_source_name_that_reads_like_a_figure(offline, slack):
    import dataclasses

    r = offline[0]
    fake = r.with_conditions(identity=dataclasses.replace(r.conditions.identity, system_name="999,999 tok/s ±0.1% [a]"))
    findings = validate(_report(TableSection("t", _table([fake, *offline[1:3]], slack))))
    assert _at(findings) == [("EG001", "section 1 (t), row 1, column 3")]


def test_EG012_an_unknown_column_names_the_known_ones(offline, slack):
    with pytest.raises(GuardError) as e:
        _table(offline[:2], slack, columns=("submitter", "colour", "throughput"))
    assert _rules(e.value.findings) == {"EG012"} and "colour" in e.value.findings[0].message


def test_EG013_an_empty_selection_is_its_own_finding(slack):
    with pytest.raises(GuardError) as e:
        _table([], slack)
    assert _rules(e.value.findings) == {"EG013"}


def test_EG014_cost_without_a_price_table(offline, slack):
    with pytest.raises(GuardError) as e:
        _table(offline[:2], slack, columns=("accelerators", "throughput", "cost_per_million_tokens"))
    assert _rules(e.value.findings) == {"EG014"}


def test_EG015_a_ranking_without_its_figure_column(offline, slack):
    with pytest.raises(GuardError) as e:
        _table(offline[:3], slack, columns=("rank", "submitter", "system", "accelerators", "availability"))
    assert _rules(e.value.findings) == {"EG015"}


def test_the_rule_list_is_documented():
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "docs" / "rules.md").read_text(encoding="utf-8")
    for r in RULES.values():
        assert f"| {r.id} | `{r.name}` | {r.severity} | **{r.title}.**" in doc


def test_a_comparison_with_a_system_of_unknown_scale_says_so_and_never_crashes(offline, slack):
    """An own run whose system was not described has no accelerator count: beside a described one it
    is a comparison across scales, stated as such (sorting None with 8 raised TypeError)."""
    import dataclasses

    r = offline[1]
    unknown = r.with_conditions(configuration=dataclasses.replace(
        r.conditions.configuration, accelerators_total=None, accelerators_per_node=None, nodes=None))
    table = _table([offline[0], unknown], slack)
    assert [n.rule_id for n in table.notices] == ["EG020"] and "unknown" in table.notices[0].text
    found = validate(_report(TableSection("t", table)))
    assert "EG020" in {f.rule_id for f in found} and "EG008" not in {f.rule_id for f in found}
    hidden = dataclasses.replace(table, notices=())
    found = validate(_report(TableSection("t", hidden)))
    assert any(f.rule_id == "EG008" and "unknown number of" in f.message for f in found)
