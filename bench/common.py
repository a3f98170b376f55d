"""What every benchmark case shares: the real v5.1 data, a store holding it, and N replicated
results (each copy its own system, so each row keeps its own note and mark, as distinct results
would), saved once per run so that both sides of a case start from the same rows."""
from __future__ import annotations

import dataclasses
import os
import pickle
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("EXPORTGUARD_SHARED", REPO.parent / "shared"))
SUMMARY = SHARED / "mlperf" / "summaries" / "v5.1_summary_results.json"
TREE = SHARED / "mlperf" / "submissions" / "v5.1"
COHORT = dict(round="v5.1", division="closed", model="llama2-70b", accuracy_track="99", scenario="Offline")


def real_store(work: Path) -> str:
    """An SQLite store of the real v5.1 summary and tree (made once per run)."""
    url = f"sqlite:///{work / 'real.db'}"
    if not (work / "real.db").exists():
        from exportguard.ingest import ingest_path
        from exportguard.store import open_store

        with open_store(url) as store:
            ingest_path(store, SUMMARY)
            ingest_path(store, TREE)
    return url


def example_reports(store):
    """(spec file name, report) for each example spec (the price table is not one)."""
    from exportguard.spec import build_report, load_spec

    for spec in sorted((REPO / "examples").glob("*.toml")):
        if not spec.name.startswith("prices"):
            yield spec.name, build_report(store, load_spec(spec))


def cohort_reports(store, limit: int | None = None):
    """(cohort label, report) for an ad-hoc export of each v5.1 cohort (the first ``limit`` only)."""
    from exportguard.spec import build_report, spec_from_filters

    for n, cohort in enumerate(store.cohorts(round="v5.1")):
        if limit is not None and n >= limit:
            return
        k = cohort.key
        filters = dict(round=k.round, division=k.division, model=k.model, accuracy_track=k.accuracy_track,
                       scenario=k.scenario)
        yield k.label(), build_report(store, spec_from_filters(filters, False))


def rows_file(work: Path, n: int) -> Path:
    """N results of the v5.1 llama2-70b-99 Offline cohort, replicated, with the cohort's slack."""
    path = work / f"rows-{n}.pickle"
    if not path.exists():
        from exportguard.store import open_store

        with open_store(real_store(work)) as store:
            real = store.results(**COHORT)
            slack = store.cohort_slack(real[0].cohort_key)
        copies = []
        for k in range(n):
            r = real[k % len(real)]
            i = r.conditions.identity
            identity = dataclasses.replace(i, system_id=f"{i.system_id}-copy{k}", system_name=f"{i.system_name} #{k}")
            copies.append(dataclasses.replace(r, conditions=dataclasses.replace(r.conditions, identity=identity)))
        path.write_bytes(pickle.dumps((copies, slack)))
    return path


def load_rows(work: Path, n: int):
    return pickle.loads(rows_file(work, n).read_bytes())
