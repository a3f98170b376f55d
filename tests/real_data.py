"""Real MLPerf data for the test modules: present, or a failure under CI, or a skip that says why.

conftest.py skips ``real_data`` tests when the data is missing, even under CI; a module that calls
``require_real_data`` at import turns that into a failure when CI=true, so a CI run can never pass
by skipping the tests that matter.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import IN_CI


def require_real_data(path: Path, skip_module: bool = True) -> bool:
    """True when ``path`` exists. Otherwise: under CI the run fails; elsewhere the calling module is
    skipped with the reason, or (``skip_module=False``) False is returned for the caller's own marks."""
    if path.exists():
        return True
    message = f"real MLPerf data not found at {path} (set EXPORTGUARD_SHARED to the folder holding mlperf/)"
    if IN_CI:
        pytest.fail(f"CI=true and {message}: the real-data tests must run in CI", pytrace=False)
    if skip_module:
        pytest.skip(message, allow_module_level=True)
    return False
