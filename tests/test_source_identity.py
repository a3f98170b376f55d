"""A source is known by its resolved real path and its content digest: ingesting it again, under
any spelling of its path, adds nothing anywhere in the store."""
from __future__ import annotations

import os

import pytest

from exportguard.ingest import ingest_path
from exportguard.store import ingest_runs_table, quarantine_table, result_sources_table, results_table
from tests.bad_sources import csv_with_bad_row, png_named_csv, summary_with_bad_row, tree_with_invalid_result
from tests.conftest import MLPERF
from tests.real_data import require_real_data

pytestmark = pytest.mark.real_data
require_real_data(MLPERF)

TABLES = (results_table, result_sources_table, quarantine_table, ingest_runs_table)


def _counts(store) -> dict[str, int]:
    return {t.name: store.count(t) for t in TABLES}


def _spellings(path, tmp_path, monkeypatch):
    """The same source named four more ways: relative, through ../, through a symlink, and through a
    symlinked folder with ./ in it."""
    monkeypatch.chdir(path.parent)
    link = tmp_path / "elsewhere" / "link-to-source"
    link.parent.mkdir()
    link.symlink_to(path)
    folder_link = tmp_path / "folder-link"
    folder_link.symlink_to(path.parent)
    return [path.name, f"../{path.parent.name}/{path.name}", str(link), f"{folder_link}/./{path.name}"]


@pytest.mark.parametrize("make", [summary_with_bad_row, tree_with_invalid_result, csv_with_bad_row,
                                  png_named_csv], ids=["summary", "tree", "csv", "png_named_csv"])
def test_reingest_under_any_spelling_of_the_path_adds_nothing_anywhere(store, tmp_path, monkeypatch, make):
    path, _ = make(tmp_path)
    first = ingest_path(store, path.resolve())
    after_first = _counts(store)
    quarantined = store.quarantined()
    assert first.quarantined == 1 and after_first["quarantine"] == 1 and after_first["ingest_runs"] == 1

    for spelling in _spellings(path, tmp_path, monkeypatch):
        again = ingest_path(store, spelling)
        assert again.source.path == first.source.path == str(path.resolve()), spelling
        assert (again.quarantined, again.added, again.new_quarantine_rows, again.recorded) == (1, 0, 0, False)
        assert _counts(store) == after_first, spelling
    assert store.quarantined() == quarantined
