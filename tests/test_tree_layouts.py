"""Submission-tree layouts of other rounds, rebuilt from real v5.1 files."""
from __future__ import annotations

import shutil

import pytest

from exportguard.ingest import ingest_path
from tests.conftest import MLPERF, TREE_V51
from tests.real_data import require_real_data

pytestmark = pytest.mark.real_data
require_real_data(MLPERF)

NVIDIA = TREE_V51 / "closed" / "NVIDIA"
SYSTEM = "B200-SXM-180GBx8_TRT"


def _copy_system(dst_submitter):
    (dst_submitter / "systems").mkdir(parents=True)
    shutil.copy(NVIDIA / "systems" / f"{SYSTEM}.json", dst_submitter / "systems")


def _copy_scenario(bench: str, scenario: str, dst):
    shutil.copytree(NVIDIA / "results" / SYSTEM / bench / scenario, dst)


def test_v60_layout_with_measurements_inside_the_scenario_folder(store, tmp_path):
    sub = tmp_path / "v6.0" / "closed" / "NVIDIA"
    _copy_system(sub)
    for scenario in ("Offline", "Server", "Interactive"):
        dst = sub / "results" / SYSTEM / "llama2-70b-99" / scenario
        _copy_scenario("llama2-70b-99", scenario, dst)
        shutil.copy(NVIDIA / "measurements" / SYSTEM / "llama2-70b-99" / scenario / "user.conf", dst)
        (dst / "measurements.json").write_text("{}")
        (dst / "TEST06").mkdir()
    report = ingest_path(store, tmp_path / "v6.0")
    assert (report.added, report.rows_read) == (3, 3)
    assert {r.conditions.identity.round for r in store.results()} == {"v6.0"}


def test_v50_interactive_benchmark_folder_is_the_interactive_scenario(store, tmp_path):
    sub = tmp_path / "v5.0" / "closed" / "NVIDIA"
    _copy_system(sub)
    _copy_scenario("llama2-70b-99", "Interactive", sub / "results" / SYSTEM / "llama2-70b-interactive-99" / "Server")
    _copy_scenario("llama2-70b-99", "Server", sub / "results" / SYSTEM / "llama2-70b-99" / "Server")
    report = ingest_path(store, tmp_path / "v5.0")
    assert report.added == 2
    interactive, = store.results(scenario="Interactive")
    assert interactive.conditions.benchmark.benchmark == "llama2-70b-99"
    assert interactive.conditions.load.ttft_bound_ms == 450 and interactive.conditions.load.tpot_bound_ms == 40
    server, = store.results(scenario="Server")
    assert server.conditions.load.ttft_bound_ms == 2000


def test_llama3_1_folder_spelling_and_lowercase_scenarios(store, tmp_path):
    sub = tmp_path / "v5.1" / "open" / "NVIDIA"
    _copy_system(sub)
    _copy_scenario("llama3.1-8b", "Offline", sub / "results" / SYSTEM / "llama3_1-8b" / "offline")
    report = ingest_path(store, tmp_path / "v5.1")
    assert report.added == 1
    (r,) = store.results()
    assert (r.conditions.benchmark.benchmark, r.conditions.benchmark.scenario) == ("llama3.1-8b", "Offline")
