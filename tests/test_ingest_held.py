"""A source's rows are read whole before the write lock, in bounded memory (ingest/held.py): the
rows past the first ones kept go to a scratch file and come back in order; an ingest that spills
stores exactly what one that does not stores."""
from __future__ import annotations

import errno

import pytest

from exportguard.errors import ExportguardError
from exportguard.ingest import held
from exportguard.ingest.held import Held

pytestmark = pytest.mark.quick


def test_the_rows_come_back_in_order_whether_kept_or_spilled():
    for n in (0, 1, 5, 6, 7, 23, 100):
        rows = [("row", i, {"text": "x" * i}) for i in range(n)]
        assert list(Held(iter(rows), "src", in_memory=6, batch=4)) == rows, n


def test_a_source_within_the_kept_rows_touches_no_disk(monkeypatch):
    monkeypatch.setattr(held, "temporary_file", lambda: pytest.fail("a scratch file for a small source"))
    assert list(Held(range(6), "src", in_memory=6)) == list(range(6))


def test_the_input_is_read_whole_when_held_and_the_file_closed_after():
    seen = []

    def source():
        for i in range(50):
            seen.append(i)
            yield i

    rows = Held(source(), "src", in_memory=10, batch=7)
    assert len(seen) == 50  # read to its end before any row is written (the lock is taken after)
    spill = rows._file
    assert list(rows) == list(range(50))
    assert spill.closed


def test_a_full_scratch_disk_is_one_line_naming_the_source(monkeypatch):
    class Full:
        closed = False

        def write(self, _data):
            raise OSError(errno.ENOSPC, "No space left on device")

        def close(self):
            self.closed = True

    monkeypatch.setattr(held, "temporary_file", Full)
    with pytest.raises(ExportguardError) as e:
        Held(range(100), "results.csv", in_memory=10, batch=5)
    assert str(e.value) == ("results.csv: the rows read could not be held for writing past the first 10: "
                            "No space left on device (ENOSPC) (in the temporary folder)")


def test_an_ingest_that_spills_stores_what_one_that_keeps_all_stores(tmp_path, monkeypatch):
    from exportguard.ingest import ingest_path
    from exportguard.store import open_store
    from tests.conftest import SUMMARY_V51

    def stored(name):
        with open_store(f"sqlite:///{tmp_path / name}") as store:
            report = ingest_path(store, SUMMARY_V51, retrieved_on="2025-09-09")
            rows = sorted((r.natural_key, r.value, r.unit) for r in store.results())
        return (report.rows_read, report.quarantined, report.added), rows

    kept = stored("kept.db")
    monkeypatch.setattr(held, "IN_MEMORY", 7)
    monkeypatch.setattr(held, "SPILL_BATCH", 5)
    spilled = stored("spilled.db")
    assert kept == spilled and kept[0][0] > 100 and len(kept[1]) > 100
