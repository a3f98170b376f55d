"""The lean manifest (schema exportguard-manifest/3): each distinct condition part and cohort key is
stated once, figure entries refer to them; the same information as schema 2, verified alike."""
from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path

import pytest

from exportguard import manifest as manifest_mod
from exportguard.clock import Clock
from exportguard.render import export
from exportguard.spec import build_report, spec_from_filters

pytestmark = pytest.mark.real_data


@pytest.fixture(scope="module")
def exported(v51_store, tmp_path_factory):
    report = build_report(v51_store, spec_from_filters({"round": ("v5.1",), "division": ("closed",)},
                                                       split_by_cohort=True))
    folder = tmp_path_factory.mktemp("lean")
    export(report, [folder / "v51.csv"], clock=Clock.from_epoch(1757376000))
    side = folder / "v51.csv.manifest.json"
    return report, json.loads(side.read_text("utf-8")), side.stat().st_size


def _schema2(manifest: dict) -> dict:
    """The same manifest in schema 2's form (conditions in every entry), digest recomputed."""
    old = {k: v for k, v in manifest.items() if k not in ("conditions", "cohort_keys", "digest", "hmac")}
    old["schema"] = "exportguard-manifest/2"
    old["figures"] = list(manifest_mod.entries(manifest))
    old["digest"] = {"algorithm": "sha256", "value": manifest_mod._digests(old, None)[0]}
    return old


def test_each_entry_resolves_to_its_results_conditions(exported):
    report, manifest, _ = exported
    assert manifest["schema"] == manifest_mod.SCHEMA and manifest_mod.verify(manifest) == []
    figures = [fig for _, fig in report.figures()]
    resolved = list(manifest_mod.entries(manifest))
    assert len(resolved) == len(figures) == len(manifest["figures"]) > 300
    for entry, fig in zip(resolved, figures):
        c = fig.result.conditions
        assert entry["conditions"] == {f.name: dataclasses.asdict(getattr(c, f.name)) for f in dataclasses.fields(c)}
        assert entry["cohort_key"] == dataclasses.asdict(fig.cohort) and entry["cohort"] == fig.cohort.label()
        assert "condition_refs" not in entry and entry["shown"]["text"] == entry["text"]
    # stated once: a benchmark part per cohort, not per figure
    assert len(manifest["conditions"]["benchmark"]) == len(manifest["cohort_keys"]) < len(figures) / 10


def test_the_lean_manifest_is_smaller_and_says_the_same(exported):
    _, manifest, size = exported
    full = len(manifest_mod.dumps(_schema2(manifest)))
    n = len(manifest["figures"])
    print(f"manifest bytes per figure: schema 2 {full / n:,.0f}, schema 3 {size / n:,.0f} ({n} figures)")
    assert size < 0.65 * full


def test_schema_2_manifests_still_verify_and_an_edit_to_a_shared_condition_is_found(exported):
    _, manifest, _ = exported
    assert manifest_mod.verify(_schema2(manifest)) == []
    edited = copy.deepcopy(manifest)
    edited["conditions"]["benchmark"][0]["scenario"] = "Server"
    assert manifest_mod.verify(edited) == ["manifest digest does not match its content: the manifest was edited"]
