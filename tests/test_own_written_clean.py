"""Issue 35, item 7: everything exportguard writes about own runs passes its own guard and checker,
for every load form of the six tools and the CSV (closed loop, rates, caps, bursts, an infinite rate,
ramp-ups, sweep points) and for hostile names (markup, formula starts, bidi, zero-width, 100 kB):
each set of runs is ingested, exported split by cohort to all five formats, and checked clean."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from exportguard.check.engine import check
from exportguard.ingest import ingest_path
from exportguard.ingest.own_system import SystemDescription
from exportguard.render import export
from exportguard.spec import build_report, parse_spec
from exportguard.store import open_store
from tests.conftest import SHARED

OWN = SHARED / "own-traffic"
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "own-traffic"
VLLM = OWN / "vllm/concurrency8_isl550_osl250/own-traffic-infqps-concurrency8-mock-llm-20261201-094403.json"
pytestmark = pytest.mark.real_data

# vLLM's load settings, one per load form it can write (rate, burstiness, cap, ramp-up)
VLLM_LOADS = [
    {"request_rate": "inf", "max_concurrency": 8},  # closed loop
    {"request_rate": "inf", "max_concurrency": 1},  # one in flight
    {"request_rate": "inf", "max_concurrency": None},  # burst
    {"request_rate": 4.0, "burstiness": 1.0, "max_concurrency": None},  # Poisson
    {"request_rate": 4.4, "burstiness": 1.0, "max_concurrency": 32},  # Poisson with a cap
    {"request_rate": 0.3, "burstiness": 0.5, "max_concurrency": 16},  # Gamma with a cap
    {"request_rate": 1000.0, "burstiness": 12.5, "max_concurrency": 1000},  # large numbers
    {"request_rate": 4.0, "ramp_up_strategy": "linear", "ramp_up_start_rps": 1, "ramp_up_end_rps": 8,
     "max_concurrency": 64},  # other (a ramp-up)
]

HOSTILE = {
    "plain": "mock-llm",
    "markup": "![t](http://evil.example/x.png) <b>x</b> | a | b |",
    "formula": "\uff1d1+1",  # a full-width equals sign
    "formula_ascii": "=HYPERLINK(\"http://x\",\"y\")",
    "bidi": "mock\u202ellm-ecnerefer\u202c \u2067RTL\u2069",
    "zero_width": "mo\u200dck\u200c-l\u200blm",
    "long": "llama-" + "very-long-name-" * 7000,  # ~100 kB
}

SPEC = """
title = "Own runs, every load form"

[[section]]
kind = "table"
title = "Our load tests"
filters = { mlperf = false }
split_by_cohort = true
"""


def _vllm_files(folder: Path, name: str) -> list[Path]:
    base = json.loads(VLLM.read_text())
    out = []
    for n, load in enumerate(VLLM_LOADS):
        record = {k: v for k, v in base.items() if k not in ("burstiness", "max_concurrency")}
        record.update(load)
        record["model_id"] = name[:64]  # the store's model column holds 64 characters (longer: store_refused)
        record["label"] = f"{name} run {n}"
        record["date"] = f"202612{n + 1:02d}-0944{n:02d}"
        path = folder / f"vllm-{n}.json"
        path.write_text(json.dumps(record, ensure_ascii=False))
        out.append(path)
    return out


def _every_tool_file() -> list[Path]:
    files = sorted(p for p in OWN.rglob("*") if p.is_file() and "tools" not in p.parts and p.suffix != ".md")
    return files + sorted(FIXTURES.glob("*.json"))


# Exports the checker still refuses, each an expected failure: none. (Issue 37 closed the last one: a source
# file named "openai-4.0qps-...-094331.json", broken over two lines of a PDF note, read as a 'qps' column over
# the number 094331; a number inside a file name is no figure.)
RENDERER_OPEN: set[tuple[str, str]] = set()
# The real files of every tool, described by a system of plain names, and of names of 50 kB: many own cohorts,
# each a table whose rows show the long names in narrow columns (the PDF once laid a row out 43 lines tall, a
# page with its table's head and notes: LayoutError). A long name is cut, with a marker, in cells, notes and
# titles; the citation never is.
EVERY_TOOL = {"every_tool": "mock-llm", "long_many_cohorts": HOSTILE["long"]}
CASES = list(HOSTILE) + list(EVERY_TOOL)


@pytest.mark.parametrize("name", CASES)
def test_every_load_form_and_hostile_name_exports_clean_in_all_five_formats(tmp_path, name):
    hostile = EVERY_TOOL.get(name) or HOSTILE[name]
    store = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    system = SystemDescription(measured_by=hostile[:50_000], system_name=f"sys {hostile}"[:50_000],
                               accelerator="NVIDIA H100-SXM-80GB", accelerators_per_node=8, nodes=1,
                               framework=f"vLLM {hostile}"[:50_000], server_settings="--max-num-seqs 256")
    try:
        if name not in EVERY_TOOL:
            reports = [ingest_path(store, p, system=system) for p in _vllm_files(tmp_path, hostile)]
            assert all(r.added == 1 for r in reports), [r.quarantine_reasons for r in reports]
        else:  # the real files of every tool: their loads, sweep points, caps, constant rates, trace
            for p in _every_tool_file():
                assert ingest_path(store, p, system=system).quarantined == 0, p
        report = build_report(store, parse_spec(SPEC))
        out = tmp_path / "out"
        paths = export(report, [out / f"runs.{ext}" for ext in ("md", "csv", "xlsx", "pptx", "pdf")])
        assert len([p for p in paths if p.suffix != ".json"]) == 5
        found = check([out])
        assert {r.format for r in found} == {"xlsx", "csv", "markdown", "pptx", "pdf"}
        dirty = {Path(r.path).name: [str(h) for h in r.hits[:3]] for r in found if r.status != "clean"}
        assert not {f: hits for f, hits in dirty.items() if (name, f) not in RENDERER_OPEN}, dirty
        if name == "long_many_cohorts":
            _assert_cut_visibly_citation_whole(out / "runs.pdf", len(system.measured_by))
        if dirty:
            pytest.xfail(f"known, outside the ingest: {dirty}")
    finally:
        store.close()


def _assert_cut_visibly_citation_whole(pdf: Path, name_length: int) -> None:
    """The PDF shows the long names cut, each marker counting from the stored name (not from the cut
    before it), and every figure's note keeps its citation: run date, tool, source and ingest date."""
    import re

    from pypdf import PdfReader

    from exportguard.check.manifests import read_manifest

    text = " ".join(" ".join((page.extract_text() or "").split()) for page in PdfReader(pdf).pages)
    counts = [int(n.replace(",", "")) for n in re.findall(r"\[([\d,]+) more characters cut\]", text)]
    assert counts and min(counts) > name_length - 400, sorted(set(counts))[:5]
    notes = [n for f in read_manifest(pdf)["figures"] for n in f["notes"]]
    assert notes and all(re.search(r"Run on: .+ Tool: .+Source: \S+, ingested \d{4}-\d{2}-\d{2}\.$", n)
                         for n in notes), notes[:1]


def test_a_load_setting_never_reads_as_a_throughput_in_a_title():
    """Every load form's words, in the title exportguard makes of an own cohort ("... (tokens/s)")."""
    from exportguard.detect import find_figures
    from exportguard.wording import own_load_words

    rated = (("Poisson", None), ("Gamma", 0.5), ("Gamma", 12.5), ("Gamma", 1000.0), ("constant rate", None))
    forms = [("closed loop", c, None, None) for c in (1, 8, 1000)] + \
        [(kind, cap, rate, b) for kind, b in rated for cap in (None, 1, 32, 1000) for rate in (0.3, 4.4, 1000.0, 1e6)] + \
        [("burst", None, None, None), ("trace replay", 8, None, None), ("other", 64, None, None),
         ("other", None, None, None)]
    for kind, cap, rate, b in forms:
        title = (f"Own runs: mock-llm; vllm bench serve; {own_load_words(kind, cap, rate, b)}; "
                 "~557 in / 250 out tokens per request (tokens/s)")
        assert find_figures(title) == [], title
