"""Verified data is defined only by verified data: a user-supplied row with the key of a published
result never takes its ID or lends it conditions, and unverified rows never widen a verified band."""
from __future__ import annotations

import csv
from pathlib import Path

import pytest

from exportguard.ingest import ingest_path
from exportguard.wording import band_words
from tests.conftest import SUMMARY_V51

pytestmark = pytest.mark.real_data
TEMPLATE = Path(__file__).resolve().parents[1] / "templates" / "results.csv"
KEY = dict(round="v5.1", division="closed", submitter="AMD", system_id="8xMI300X_2xEPYC_9575F",
           benchmark="llama2-70b-99", scenario="Offline")


def _made_up_csv(tmp_path: Path, tokens_per_sample: str = "1000", system_name: str = "AMD made-up box") -> Path:
    """A not-yet-published MLPerf row claiming the key of AMD's published 5.1-0001, with its own
    system, accelerator and an extreme tokens per sample."""
    header = TEMPLATE.read_text().splitlines()[0].split(",")
    row = dict(mlperf="yes", submitter="AMD", system_name=system_name, system_id=KEY["system_id"],
               model="llama2-70b", accuracy_track="99", scenario="Offline", value="40000", unit="tokens/s",
               accelerator="AMD imaginary X1", accelerators_per_node="8", nodes="1", framework="vLLM",
               source_url="https://example.org/our-run", round="v5.1", division="closed", availability="available",
               tokens_per_sample=tokens_per_sample)
    path = tmp_path / "ours.csv"
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerow([row.get(c, "") for c in header])
    return path


@pytest.mark.parametrize("csv_first", [True, False], ids=["csv-then-summary", "summary-then-csv"])
def test_a_user_row_never_becomes_the_published_result(store, tmp_path, csv_first):
    sources = [_made_up_csv(tmp_path), SUMMARY_V51]
    reports = [ingest_path(store, s) for s in (sources if csv_first else sources[::-1])]
    rows = store.results(**{k: v for k, v in KEY.items() if k != "submitter"}, submitter="AMD")
    published = [r for r in rows if r.origin == "mlcommons"]
    ours = [r for r in rows if r.origin == "csv"]
    assert len(published) == 1 and len(ours) == 1
    p, o = published[0], ours[0]
    assert (p.conditions.identity.result_id, p.conditions.identity.verified) == ("5.1-0001", "verified")
    assert p.conditions.configuration.accelerator != "AMD imaginary X1" and p.value != 40000
    assert (o.conditions.identity.result_id_state, o.conditions.identity.verified) == ("pending", "unverified")
    later = reports[1]
    assert later.reconciles and any("value" in a and "accelerator" in a for a in later.apart)


def test_an_unverified_row_never_widens_the_verified_band(store, tmp_path):
    ingest_path(store, SUMMARY_V51)
    key = dict(round="v5.1", division="closed", benchmark="llama2-70b-99", scenario="Offline")
    (before,) = store.cohorts(**key)
    ingest_path(store, _made_up_csv(tmp_path, tokens_per_sample="1000"))
    (after,) = store.cohorts(**key)
    assert after.total == before.total + 1 == 48
    assert after.slack == before.slack and band_words(after.slack) == "±5.4%"
    (verified_only,) = store.cohorts(**key, verified=("verified",))
    assert verified_only.slack == before.slack


def test_a_name_that_reads_like_a_figure_is_quarantined_at_ingest(store, tmp_path):
    report = ingest_path(store, _made_up_csv(tmp_path, system_name="999,999 tok/s ±0.1% [a]"))
    assert (report.added, report.quarantined, report.quarantine_reasons) == (0, 1, {"name_reads_like_a_figure": 1})
    (q,) = store.quarantined()
    assert "system_name" in q["locator"] + q["message"] and "reads like a throughput figure" in q["message"]


FIRST_SOURCE_ONLY = {"id", "ingested_at", "source_kind", "source_path", "source_sha256", "source_locator"}


def _rows_and_notes(folder: Path, order) -> tuple[dict, str]:
    import sqlalchemy as sa

    from exportguard.render import export
    from exportguard.spec import build_report, spec_from_filters
    from exportguard.store import open_store, results_table

    folder.mkdir()
    with open_store(f"sqlite:///{folder / 'store.db'}") as store:
        for source in order:
            ingest_path(store, source, retrieved_on="2025-09-09")
        with store.reading() as conn:
            rows = {tuple(r[k] for k in ("origin", "round", "division", "submitter_key", "system_id", "benchmark",
                                         "scenario")): {k: v for k, v in r.items() if k not in FIRST_SOURCE_ONLY}
                    for r in conn.execute(sa.select(results_table)).mappings()}
        report = build_report(store, spec_from_filters({"round": ("v5.1",)}, split_by_cohort=True))
    md, _sidecar = export(report, [folder / "all.md"])  # the sidecar manifest names each row's first source
    return rows, md.read_text(encoding="utf-8")


def test_two_stores_of_the_same_files_hold_and_export_the_same_whatever_the_ingest_order(tmp_path):
    """The accuracy log is a more precise basis of tokens per sample than the summary table that
    publishes it, and wins whichever comes first; corrections are stored in one order; the
    systems JSON of a tree is kept whether the tree comes first or second."""
    from tests.conftest import TREE_V51

    tree_first, tree_notes = _rows_and_notes(tmp_path / "tree-first", [TREE_V51, SUMMARY_V51])
    summary_first, summary_notes = _rows_and_notes(tmp_path / "summary-first", [SUMMARY_V51, TREE_V51])
    assert tree_first.keys() == summary_first.keys() and len(tree_first) == 351
    differ = {k: sorted(f for f in row if row[f] != summary_first[k][f]) for k, row in tree_first.items()
              if row != summary_first[k]}
    assert differ == {}
    assert tree_notes == summary_notes
    from collections import Counter

    bases = Counter(row["tokens_per_sample_basis"] for row in tree_first.values() if row["raw_system"])
    assert bases == {"accuracy log": 36, "derived: tokens/s / samples/s": 15}  # llama3.1-8b: the summary gives none
