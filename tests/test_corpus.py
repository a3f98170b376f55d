"""exportguard check on the corpus of person-made documents (tests/corpus): every class of figure
people write is flagged where a careful reviewer flags it, and the clean documents (other numbers
only, or properly bound) give no finding, in every format the class occurs in.

Each class is its own test, so that a detector or reader change that loses one class fails by name.
"""
from __future__ import annotations

import pytest

from exportguard.check.engine import check
from tests.corpus import CLASSES, score
from tests.corpus.documents import build


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    docs = build(tmp_path_factory.mktemp("corpus"))
    return docs, score(docs, check([d.path for d in docs], isolate=False))


@pytest.mark.parametrize("cls", list(CLASSES))
def test_every_flag_of_the_class_is_found_and_nothing_else(scored, cls):
    docs, scores = scored
    s = scores[cls]
    assert s.files >= 4, f"{cls}: too few documents"
    assert s.misses == [], f"{cls}: recall {s.found}/{s.expected}"
    assert s.false_findings == []


def test_each_class_occurs_in_each_format_it_can():
    """The formats each class is written in (a slide master is PowerPoint's, a formula Excel's)."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        docs = build(Path(tmp))
    formats: dict[str, set] = {}
    for d in docs:
        formats.setdefault(d.cls, set()).add(d.format)
    every = {"pptx", "xlsx", "pdf", "md", "csv"}
    for cls in ("label-first", "units", "locales", "derived-cost", "citations", "clean"):
        assert formats[cls] == every, cls
    assert formats["unit-once"] >= {"pptx", "xlsx", "pdf", "md"}
    assert formats["reader-sees"] == {"pptx", "xlsx"} and formats["hostile"] == {"pptx", "xlsx"}
