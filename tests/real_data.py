"""Real MLPerf data for modules that read it at import (to build their parameters from the real
files): present, or a failure under CI, or a skip that says why. conftest.py does the same for
``real_data``-marked tests at collection; this covers what happens before collection ends.
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
