"""Notes that say each thing once, on the real v5.1 results: a table note states what its rows share
(cohort conditions, results repository and retrieval date, a load or correction common to all,
what 'unverified' and 'pending' mean), each row's note only what differs, and Note.detail keeps the
whole per-row footnote. The checker's own field tests (check/evaluate.py) read the result: every
figure's note with its table note still names every MLCommons citation field."""
from __future__ import annotations

import dataclasses
import statistics

import pytest

from exportguard.caveat import FULL, SHORT, TRADEMARK_LEGEND, UNVERIFIED_SENTENCE
from exportguard.check.evaluate import CITATION, fields_in, own_fields_in
from exportguard.citation import OWN_FIELDS, Shared, names_accelerator, row_note
from exportguard.guard import DEFAULT_COLUMNS, bind_table, default_columns, kpi, validate
from exportguard.ingest import ingest_path
from exportguard.report import Report, TableSection
from exportguard.store import open_store
from tests.conftest import SHARED

pytestmark = pytest.mark.real_data
REPO = "github.com/mlcommons/inference_results_v5.1"


def _cohorts(store):
    return [c for c in store.cohorts(round="v5.1") if c.results]


def _bound(cohort, results=None, **kw):
    results = cohort.results if results is None else results
    return bind_table(results, title="t", slack=cohort.slack, columns=DEFAULT_COLUMNS, **kw)


def _errors(table):
    report = Report("t", "test", (TableSection("t", table),), SHORT, FULL, TRADEMARK_LEGEND)
    return {f.rule_id for f in validate(report) if f.rule_id != "EG020"}


def _figures(table):
    return [f for _, _, f in table.figures()]


def _unverified(result):
    return result.with_conditions(identity=dataclasses.replace(result.conditions.identity, verified="unverified"))


def _moved(result, url):
    return result.with_conditions(provenance=dataclasses.replace(result.conditions.provenance, source_url=url))


def test_every_v51_table_states_repository_and_date_once_and_its_rows_leave_them_out(v51_store):
    for cohort in _cohorts(v51_store):
        table = _bound(cohort)
        note = table.table_note.text
        date = cohort.results[0].conditions.provenance.retrieved_on
        assert note.startswith(f"Sources retrieved {date} from {REPO}. MLPerf® Inference: Datacenter v5.1, ")
        for fig in _figures(table):
            c, text, detail = fig.note.citation, fig.note.text, fig.note.detail
            framework = fig.result.conditions.configuration.framework
            assert c.source not in text and "github.com" not in text and framework not in text, text
            assert c.source in detail and f"retrieved {c.retrieved_on}" in detail and f"; {framework}." in detail
            # a published measured tokens per sample shows its value; its basis is in the detail
            basis = fig.result.conditions.shape.tokens_per_sample_basis
            if basis in ("accuracy log", "summary table"):
                assert f"tokens/sample ({basis})" not in text and f"tokens/sample ({basis})" in detail, text
            # the checker's own field tests: the note with its table note names every citation field
            assert set(CITATION) <= fields_in(text) | fields_in(note), (cohort.key.label(), text)
            # and what only differs from row to row stands in the row itself
            assert {"result ID", "verified status"} <= fields_in(text)
        assert _errors(table) == set()


def test_row_notes_are_at_most_two_thirds_of_their_whole_footnote_on_the_v51_cohorts(v51_store):
    shown, whole = [], []
    for cohort in _cohorts(v51_store):
        for fig in _figures(_bound(cohort)):
            shown.append(len(fig.note.text))
            whole.append(len(fig.note.full))
    assert statistics.mean(shown) <= 2 / 3 * statistics.mean(whole), (statistics.mean(shown), statistics.mean(whole))


def test_a_row_on_its_own_gives_its_source_and_the_full_unverified_sentence(v51_store):
    r = _unverified(_cohorts(v51_store)[0].results[0])
    note = row_note(r)  # nothing shared: no table note beside it says anything for it
    assert f"unverified. {UNVERIFIED_SENTENCE}" in note.text
    assert f"Source {r.conditions.provenance.source_url}, retrieved {r.conditions.provenance.retrieved_on}." in note.text
    assert r.conditions.configuration.framework not in note.text and r.conditions.configuration.framework in note.detail


def test_unverified_rows_say_so_and_the_table_note_gives_the_sentence_once(v51_store):
    cohort = next(c for c in _cohorts(v51_store) if len(c.results) >= 3)
    rows = sorted(cohort.results, key=lambda r: -r.value)[:3]
    rows = [_unverified(rows[0]), rows[1], _unverified(rows[2])]
    table = _bound(cohort, rows)
    assert table.table_note.text.count(UNVERIFIED_SENTENCE) == 1
    for fig in _figures(table):
        assert UNVERIFIED_SENTENCE not in fig.note.text
        assert (", unverified." in fig.note.text) == (not fig.verified)
        assert (UNVERIFIED_SENTENCE in fig.note.detail) == (not fig.verified)
    assert _errors(table) == set()
    verified_only = _bound(cohort, rows[1:2])
    assert UNVERIFIED_SENTENCE not in verified_only.table_note.text


def test_rows_from_different_repositories_each_carry_their_own_source(v51_store):
    cohort = next(c for c in _cohorts(v51_store) if len(c.results) >= 2)
    a, b = sorted(cohort.results, key=lambda r: -r.value)[:2]
    b = _moved(b, "https://example.org/mirror/results/run-7")
    table = _bound(cohort, [a, b])
    assert "Sources retrieved" not in table.table_note.text and "example.org" not in table.table_note.text
    for fig in _figures(table):
        assert f"Source {fig.note.citation.source}, retrieved {fig.note.citation.retrieved_on}." in fig.note.text
    assert _errors(table) == set()


def test_a_table_note_without_its_source_sentence_is_refused_by_the_guard(v51_store):
    table = _bound(_cohorts(v51_store)[0])
    note = table.table_note
    cut = note.text[note.text.index(" MLPerf® Inference") + 1:]
    assert cut.startswith("MLPerf") and "retrieved" not in cut
    assert "EG005" in _errors(dataclasses.replace(table, table_note=dataclasses.replace(note, text=cut)))


def test_a_load_or_correction_shared_by_every_row_is_stated_once(v51_store):
    cohort = next(c for c in _cohorts(v51_store) if c.key.benchmark == "llama3.1-8b" and c.key.scenario == "Interactive")
    table = _bound(cohort)
    shared = table.table_note.shared
    assert shared.corrections, "every row of this cohort has the unit correction"
    assert f"Corrected in every row: {'; '.join(shared.corrections)}." in table.table_note.text
    for fig in _figures(table):
        assert shared.corrections[0] not in fig.note.text and shared.corrections[0] in fig.note.detail
    # a single row keeps its correction: there is no other row to share it with
    (one,) = _figures(_bound(cohort, cohort.results[:1]))
    assert shared.corrections[0] in one.note.text


def test_a_row_load_every_row_shares_moves_to_the_table_note(v51_store):
    cohort = next(c for c in _cohorts(v51_store) if c.key.scenario == "Server")
    silent = [r for r in cohort.results if not r.conditions.load.target_qps][:3]
    assert len(silent) == 3
    table = _bound(cohort, silent)
    assert table.table_note.shared.row_load == "target QPS not published by the source"
    assert "runs of at least 600 s; target QPS not published by the source." in table.table_note.text
    assert all("QPS" not in f.note.text and "QPS" in f.note.detail for f in _figures(table))
    assert Shared.of(silent[:1]).row_load is None  # one row: its load is its own


def test_one_availability_no_column_shows_is_stated_once_by_the_table_note(v51_store):
    """A table without an Availability column (a lean or beside table) says once what category its
    rows share; beside a column that shows it, or when the rows differ (the guard then keeps the
    column), it says nothing of it."""
    from exportguard.guard import lean_table

    cohort = next(c for c in _cohorts(v51_store) if c.key.benchmark == "llama2-70b-99" and c.key.scenario == "Offline"
                  and c.key.division == "closed")
    available = [r for r in cohort.results if r.conditions.identity.availability == "available"]
    assert len(available) >= 3, "v5.1's closed systems are all available"
    r = available[2]  # a preview system among them, as other rounds have
    preview = [dataclasses.replace(r, conditions=dataclasses.replace(
        r.conditions, identity=dataclasses.replace(r.conditions.identity, availability="preview")))]
    sentence = "Every system is available."
    lean = lean_table(_bound(cohort, available[:3]))
    assert "availability" not in [c.key for c in lean.columns] and sentence in lean.table_note.text
    assert "Every system" not in _bound(cohort, available[:3]).table_note.text  # its column shows it
    mixed = lean_table(_bound(cohort, available[:2] + preview[:1]))
    assert "availability" in [c.key for c in mixed.columns] and "Every system" not in mixed.table_note.text
    everyone = lean_table(_bound(cohort, preview + [dataclasses.replace(preview[0], value=preview[0].value * 0.9)]))
    assert "Every system is in preview (not yet available)." in everyone.table_note.text
    from exportguard.citation import Shared
    assert Shared.of(available[:1]).availability == "The system is available."  # a headline's one system


def test_a_headline_and_its_table_note_give_every_citation_field_together(v51_store):
    cohort = next(c for c in _cohorts(v51_store) if c.key.scenario == "Server")
    section = kpi(cohort.results, cohort.slack, "Top")
    text = section.figure.note.text
    assert set(CITATION) <= fields_in(text) | fields_in(section.table_note.text)
    assert section.figure.note.citation.source not in text


@pytest.fixture(scope="module")
def own_store(tmp_path_factory):
    s = open_store(f"sqlite:///{tmp_path_factory.mktemp('own') / 'store.db'}")
    for path in sorted((SHARED / "own-traffic").rglob("*.json*")):
        ingest_path(s, path)
    yield s
    s.close()


def test_own_notes_keep_every_own_field_and_leave_the_shared_definitions_to_the_table(own_store):
    cohorts = [c for c in own_store.cohorts() if c.results and c.results[0].own]
    assert cohorts
    for cohort in cohorts:
        table = bind_table(cohort.results, title="t", slack=cohort.slack, columns=default_columns(DEFAULT_COLUMNS, True))
        definitions = cohort.results[0].conditions.run.latency_definitions
        assert f"({definitions})" in table.table_note.text
        for fig in _figures(table):
            assert own_fields_in(fig.note.text) == frozenset(OWN_FIELDS), fig.note.text
            assert definitions not in fig.note.text and definitions in fig.note.detail
            # the note shows the file's folder and name (tools name every run's file alike); the local path is
            # the manifest's alone (an artifact speaks to readers: no path of the machine that exported it)
            source = fig.note.citation.source
            assert "/".join(source.split("/")[-2:]) in fig.note.text and source.startswith("file:")
            assert source not in fig.note.detail and source.removeprefix("file:") not in fig.note.detail
            assert len(fig.note.text) < len(fig.note.detail)
        assert _errors(table) == set()


def test_a_retrieval_date_wrapped_onto_the_next_line_still_counts():
    """A PDF table note may wrap between 'retrieved' and its date; the checker reads the two as one."""
    for text in ("Sources retrieved\n2026-12-01 from github.com/mlcommons/inference_results_v5.1.",
                 "Sources retrieved 2026-12-01 from github.com/mlcommons/inference_results_v5.1."):
        assert {"source", "retrieval date"} <= fields_in(text)
    assert "retrieval date" not in fields_in("Sources retrieved. Later: 2026-12-01")  # a sentence ends it


@pytest.mark.parametrize("columns, has, lacks", [
    (("submitter", "system", "accelerator", "accelerators", "throughput"), [], ["accelerator", " x ", " node"]),
    (("submitter", "system", "accelerators", "throughput"), [], [" x ", " node"]),
    (("submitter", "system", "accelerator", "throughput"), [" accelerators on ", " node"], [" x "]),
    # ' x ' with the accelerator's name, unless the system's name gives it: then 'N accelerators on 1 node'
    (("submitter", "system", "throughput"), [" node"], []),
])
def test_a_row_note_gives_the_part_of_its_scale_its_cells_do_not_show(v51_store, columns, has, lacks):
    cohort = next(c for c in _cohorts(v51_store) if c.key.model == "llama2-70b" and c.key.scenario == "Offline")
    # one scale (8 accelerators, 1 node): a table may then leave the count to its notes (EG008)
    results = [r for r in cohort.results if r.conditions.configuration.accelerators_total == 8
               and r.conditions.configuration.nodes == 1]
    table = bind_table(results, title="t", slack=cohort.slack, columns=columns)
    assert len(results) >= 10
    seen = set()
    for fig in _figures(table):
        c = fig.result.conditions.configuration
        [note] = fig.notes
        assert all(w in note.text for w in has) and not any(w in note.text for w in lacks), (columns, note.text)
        if "accelerators" not in columns and "accelerator" not in columns:
            named = names_accelerator(fig.result.conditions.identity.system_name, c.accelerator)
            assert (" accelerators on " in note.text if named else f" x {c.accelerator}" in note.text), note.text
        if "accelerators" in columns and "accelerator" not in columns:
            # the accelerator is named once: by the system's name where it gives the model, else by the note
            named = names_accelerator(fig.result.conditions.identity.system_name, c.accelerator)
            assert (c.accelerator in note.text) != named, (note.text, fig.result.conditions.identity.system_name)
        if "accelerator" in columns and "accelerators" not in columns:
            assert f"{c.accelerators_total} accelerators on {c.nodes} node" in note.text
        assert f"{c.accelerators_total} x {c.accelerator} on {c.nodes} node" in note.detail  # the whole of it stays
        seen.add("ccelerator" in note.text)
    if columns == ("submitter", "system", "accelerators", "throughput"):
        assert seen == {True, False}  # the cohort has systems whose names give their accelerator and some that do not


def test_a_system_name_gives_its_accelerator_only_with_the_whole_model():
    assert names_accelerator("NVIDIA DGX B200 (8x B200-SXM-180GB, TensorRT)", "NVIDIA B200-SXM-180GB")
    assert names_accelerator("Dell PowerEdge XE9680 (8xH200-SXM-141GB, TensorRT)", "NVIDIA H200-SXM-141GB")
    assert not names_accelerator("Dell PowerEdge XE9680 (8x MI300X-192GB)", "AMD Instinct MI300X 192GB HBM3")
    assert not names_accelerator("G894-SD1", "NVIDIA B200-SXM-180GB")
    assert not names_accelerator("NVIDIA DGX B200", "NVIDIA B200-SXM-180GB")  # the memory is part of the model
    assert not names_accelerator("B200 box", "NVIDIA")  # no model words at all
    assert not names_accelerator("anything", "none (CPU only)")
