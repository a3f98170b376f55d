"""The store's filters on both backends: names and choices in any case, the accelerator by part of
its name (its LIKE wildcards matched as themselves), the accelerator count, and the stored values a
no-match message offers."""
from __future__ import annotations

import pytest

from exportguard.ingest import ingest_path
from tests.conftest import TREE_V51

pytestmark = pytest.mark.real_data


@pytest.fixture
def filled(store):
    ingest_path(store, TREE_V51)
    return store


def _accelerators(results):
    return {r.conditions.configuration.accelerator for r in results}


def test_names_and_choices_match_in_any_case(filled):
    exact = filled.results(model="llama2-70b", scenario="Offline", division="closed")
    assert exact
    assert filled.results(model="LLAMA2-70B", scenario="offline", division="CLOSED") == exact
    assert filled.results(submitter="nvidia") == filled.results(submitter="NVIDIA") != []
    assert filled.results(scenario="Offlin") == []


def test_the_accelerator_by_part_of_its_name_and_its_wildcards_as_themselves(filled):
    mi300x = filled.results(accelerator="mi300x")
    assert mi300x and all("mi300x" in name.lower() for name in _accelerators(mi300x))
    assert filled.results(accelerator=("mi300x", "b200")) and \
        _accelerators(filled.results(accelerator=("mi300x", "b200"))) == _accelerators(mi300x) | _accelerators(
            filled.results(accelerator="b200"))
    for wildcard in ("%", "_", "MI300X_", "\\"):
        assert filled.results(accelerator=wildcard) == [], wildcard


def test_the_accelerator_count_is_the_system_total(filled):
    eight = filled.results(accelerator_count=8)
    assert eight and {r.conditions.configuration.accelerators_total for r in eight} == {8}
    assert filled.results(accelerator_count=(8, 9999)) == eight
    assert filled.results(accelerator_count=9999) == []


def test_stored_values_are_the_distinct_values_among_the_selected(filled):
    scenarios = filled.stored_values("scenario")
    assert scenarios == sorted(set(scenarios)) and set(scenarios) <= {"Offline", "Server", "Interactive"}
    amd = filled.stored_values("accelerator", submitter="amd")
    assert amd and all("AMD" in name for name in amd)
    assert set(filled.stored_values("accelerator_count", accelerator="mi300x")) == {
        r.conditions.configuration.accelerators_total for r in filled.results(accelerator="mi300x")}
    with pytest.raises(ValueError):
        filled.stored_values("mlperf")



def test_a_value_no_backend_can_hold_matches_nothing_and_raises_nothing(filled):
    assert filled.results(accelerator="b200\x00") == []
    assert filled.results(submitter=("NVIDIA", "x\x00")) == filled.results(submitter="NVIDIA")
    assert filled.results(accelerator_count=10 ** 30) == []
    assert filled.stored_values("submitter", scenario="\x00") == []
