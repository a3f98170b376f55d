"""The bench compares exportguard with hand-written baselines doing the same visible work
(bench/README.md): for CSV and Markdown the baseline's files (the table and the manifest beside
it) must be exportguard's, byte for byte, or a ratio in bench/RESULTS.md compares unlike work."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.real_data


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    sys.path[:0] = [str(REPO / "bench"), str(REPO / "bench" / "baselines")]
    try:
        import cases
    finally:
        del sys.path[:2]
    return cases.CASES, tmp_path_factory.mktemp("bench")


# 500 rows hold every kind of row of the cohort: multi-node systems, corrected names, source text
# that Markdown escapes ('[MAXSUN]'), and ties that span many ranks.
@pytest.mark.parametrize("case, suffix", [("csv", ".csv"), ("markdown", ".md")])
def test_baseline_writes_the_same_files(cases, case, suffix, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1764547200")
    monkeypatch.delenv("EXPORTGUARD_SIGNING_KEY", raising=False)
    table, work = cases
    out = work / case
    out.mkdir()
    data = table[case].prepare(work, 500)
    table[case].exportguard(out, data)
    table[case].baseline(out, data)
    for name in (suffix, suffix + ".manifest.json"):
        ours, plain = (out / f"exportguard{name}").read_bytes(), (out / f"baseline{name}").read_bytes()
        assert len(ours) > 100_000
        if name.endswith(".json"):  # each names its own files, so their export runs differ: the rest may not
            ours, plain = (_without_run(m, who) for m, who in ((ours, "exportguard"), (plain, "baseline")))
        assert ours == plain, f"{name}: the baseline writes other content than exportguard"


def _without_run(manifest: bytes, who: str) -> bytes:
    import json
    import re

    from exportguard.manifest import verify

    assert verify(json.loads(manifest)) == [], f"{who}'s digest is not exportguard's"
    found = re.search(rb'"export":(\{[^}]*\}),', manifest)
    assert found, "the manifest names its export run"
    export = json.loads(found.group(1))
    assert re.fullmatch("[0-9a-f]{32}", export["run"]) and all(m.startswith(who) for m in export["members"])
    return manifest.replace(found.group(1), b"{}").replace(re.search(rb'"digest":\{[^}]*\}', manifest).group(0), b"")
