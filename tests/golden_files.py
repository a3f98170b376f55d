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


GOLDEN = Path(__file__).resolve().parent / "golden"
FONTS = GOLDEN / "fonts.txt"  # the font files the golden decks and briefings were measured with


def measuring_fonts() -> str:
    """The font files a deck (its template's theme fonts) and a briefing measure their text with on
    this machine: a golden plan holds only where the same ones are installed."""
    from exportguard.render import pdf_text, pptx_layout
    from exportguard.render.pptx_template import open_template

    template = open_template()
    deck = sorted({pptx_layout.Metrics(f).measured_with for f in (template.body_font, template.title_font)})
    briefing = sorted({pdf_text.font_file(name).name for name in pdf_text._FACES})
    return f"deck: {', '.join(deck)}\nbriefing: {', '.join(briefing)}\n"


def assert_fonts(request) -> None:
    """The fonts this machine measures with are the golden files' (a machine without them would show
    every measured golden as changed, and regenerating there would pin its fallback fonts)."""
    fonts = measuring_fonts()
    if regenerate(request):
        FONTS.write_text(fonts, encoding="utf-8", newline="")
    made_with = FONTS.read_text(encoding="utf-8")
    assert fonts == made_with, (
        f"the golden decks and briefings were measured with\n{made_with}and this machine measures with\n{fonts}"
        "Install the fonts .ci/run installs (fonts-crosextra-carlito fonts-dejavu-core) instead of regenerating")


def assert_golden(text: str, path: Path, request, what: str, measured: bool = False) -> None:
    """``text`` is the golden file at ``path`` (written first when regenerating: regenerate); where it
    was ``measured`` with fonts (a deck's or a briefing's layout), the fonts are checked first."""
    if measured:
        assert_fonts(request)
    if regenerate(request):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="")
    assert path.is_file(), f"{path} is missing: run with EXPORTGUARD_REGEN_GOLDEN=1 to write it (see the docstring)"
    assert text == path.read_text(encoding="utf-8"), (
        f"{what} differs from {path}; if the change is meant, regenerate (EXPORTGUARD_REGEN_GOLDEN=1) and review "
        f"`git diff {path.parent.relative_to(REPO)}/`")
