"""Golden files (tests/golden/): what the tests pin, compared with its file, and what the golden tests
share: the fixed clock (EPOCH) and the small report's spec (SMALL_SPEC); the store they are built from,
ingested with a fixed retrieval date, is conftest.py's ``fixed_store``.

Regenerating (EXPORTGUARD_REGEN_GOLDEN=1 or ``--regen-golden``) writes the files first; under CI=true it is
refused, so a golden test can only pass by matching. tests/test_deterministic.py says how to review a change.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import IN_CI, REPO

EPOCH = 1757376000  # 2025-09-09T00:00:00Z

SMALL_SPEC = '''
title = "Golden: a small MLPerf v5.1 report"
audience = "tests"

[filters]
round = "v5.1"
division = "closed"
availability = "available"

[[section]]
kind = "kpi"
title = "Highest llama2-70b Offline throughput"
filters = { model = "llama2-70b", track = "99", scenario = "Offline" }
pick = "top"

[[section]]
kind = "chart"
title = "Top 3 systems, llama2-70b-99 Offline"
filters = { model = "llama2-70b", track = "99", scenario = "Offline" }
columns = ["rank", "submitter", "system", "accelerators", "throughput"]
limit = 3

[[section]]
kind = "table"
title = "Top 3 systems, llama2-70b-99 Server"
filters = { model = "llama2-70b", track = "99", scenario = "Server" }
columns = ["rank", "submitter", "system", "accelerators", "throughput"]
limit = 3
'''


def regenerate(request) -> bool:
    wanted = os.environ.get("EXPORTGUARD_REGEN_GOLDEN") == "1" or request.config.getoption("--regen-golden", False)
    if wanted and IN_CI:
        pytest.fail("golden files are not regenerated under CI=true: regenerate locally and commit them")
    return wanted


def assert_golden(text: str, path: Path, request, what: str) -> None:
    """``text`` is the golden file at ``path`` (written first when regenerating: regenerate)."""
    if regenerate(request):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="")
    assert path.is_file(), f"{path} is missing: run with EXPORTGUARD_REGEN_GOLDEN=1 to write it (see the docstring)"
    assert text == path.read_text(encoding="utf-8"), (
        f"{what} differs from {path}; if the change is meant, regenerate (EXPORTGUARD_REGEN_GOLDEN=1) and review "
        f"`git diff {path.parent.relative_to(REPO)}/`")
