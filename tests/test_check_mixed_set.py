"""Mixed export sets (EG026): files that one export wrote together but that carry different export
run ids (an export interrupted between putting its files in place, or one file replaced by another
export) are one finding per pair, naming both files, both short run ids and the way out."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import exportguard as eg
from exportguard.check.engine import CLEAN, FINDINGS, NOT_INSPECTED, FileReport, check, mixed_sets

RUN_A, RUN_B = "a" * 32, "b" * 32
OFFLINE_70B = dict(model="llama2-70b", track="99", division="closed")


def readable(path: Path, run: str | None, members=("r.md", "r.xlsx", "r.md.manifest.json")) -> FileReport:
    r = FileReport(str(path), path.suffix.lstrip("."), manifest={"present": True, "readable": True})
    r.export = None if run is None else {"run": run, "members": list(members)}
    return r


def eg026(reports) -> list:
    return [(r.path, h) for r in reports for h in r.hits if h.rule_id == "EG026"]


# -- the cross-file pass, on reports with hand-made export info ---------------------------------------

def test_members_of_two_runs_are_one_finding_per_pair(tmp_path):
    md, xlsx = readable(tmp_path / "r.md", RUN_A), readable(tmp_path / "r.xlsx", RUN_B)
    reports = [xlsx, md]
    mixed_sets(reports)
    found = eg026(reports)
    assert len(found) == 1, found  # both list each other: one finding, not two
    path, h = found[0]
    assert path == str(tmp_path / "r.md")  # on the pair's first path, whatever the order given
    assert str(tmp_path / "r.md") in h.message and str(tmp_path / "r.xlsx") in h.message
    assert "aaaaaaaa" in h.message and "bbbbbbbb" in h.message
    assert f"run `exportguard recover {tmp_path}`, then export again" in h.message
    assert h.location == str(tmp_path / "r.md") and h.severity == "error"
    assert md.status == FINDINGS and xlsx.status == CLEAN


def test_one_run_an_older_manifest_and_files_not_checked(tmp_path):
    same = [readable(tmp_path / "r.md", RUN_A), readable(tmp_path / "r.xlsx", RUN_A)]
    mixed_sets(same)
    assert not eg026(same)
    older = [readable(tmp_path / "r.md", RUN_A), readable(tmp_path / "r.xlsx", None)]
    mixed_sets(older)
    assert [p for p, _ in eg026(older)] == [str(tmp_path / "r.md")]
    assert "no export run id: an older export" in eg026(older)[0][1].message
    alone = [readable(tmp_path / "r.md", RUN_A)]  # r.xlsx is listed but was not given: nothing to compare
    mixed_sets(alone)
    assert not eg026(alone)


def test_reports_not_inspected_or_without_manifest_are_left_out(tmp_path):
    broken = FileReport(str(tmp_path / "r.xlsx"), "xlsx", NOT_INSPECTED, "damaged")
    anyone = FileReport(str(tmp_path / "r.pptx"), "pptx")  # no manifest: no export to belong to
    reports = [readable(tmp_path / "r.md", RUN_A, members=("r.md", "r.xlsx", "r.pptx")), broken, anyone]
    mixed_sets(reports)
    assert not eg026(reports)


@pytest.mark.parametrize("member", ["../r.xlsx", "/etc/r.xlsx", "sub/../r.xlsx", "", "r.xlsx\x00", "..\\r.xlsx"])
def test_member_names_are_untrusted(tmp_path, member):
    (tmp_path / "in").mkdir()
    md = readable(tmp_path / "in" / "r.md", RUN_A, members=(member,))
    xlsx = readable(tmp_path / "r.xlsx", RUN_B)  # outside the folder of r.md
    reports = [md, xlsx]
    mixed_sets(reports)
    assert not eg026(reports)


def test_a_member_reached_through_a_symlink_out_of_the_folder_is_ignored(tmp_path):
    (tmp_path / "in").mkdir()
    (tmp_path / "r.xlsx").write_bytes(b"")
    (tmp_path / "in" / "link.xlsx").symlink_to(tmp_path / "r.xlsx")
    reports = [readable(tmp_path / "in" / "r.md", RUN_A, members=("link.xlsx",)), readable(tmp_path / "r.xlsx", RUN_B)]
    mixed_sets(reports)
    assert not eg026(reports)


def test_ignoring_the_rule_drops_the_pass(tmp_path):
    reports = [readable(tmp_path / "r.md", RUN_A), readable(tmp_path / "r.xlsx", RUN_B)]
    mixed_sets(reports, {"EG026"})
    assert not eg026(reports)


def test_a_sidecar_manifest_given_by_name_is_checked_with_its_file(tmp_path):
    (tmp_path / "r.md").write_text("# A report\n\nNo figures here.\n", encoding="utf-8")
    (tmp_path / "r.md.manifest.json").write_text("{}", encoding="utf-8")
    reports = check([tmp_path / "r.md", tmp_path / "r.md.manifest.json"], isolate=False)
    sidecar = next(r for r in reports if r.path.endswith(".manifest.json"))
    assert sidecar.status == CLEAN and sidecar.note == "the manifest of r.md, checked with it"
    from exportguard.check.output import text

    assert f"{sidecar.path}: the manifest of r.md, checked with it" in text(reports)


# -- real exports ---------------------------------------------------------------------------------------

def _run_of(path: Path) -> str:
    import json

    return json.loads(path.read_text(encoding="utf-8"))["export"]["run"]


@pytest.fixture(scope="module")
def two_runs(v51_store, tmp_path_factory):
    """One folder exported twice (Offline, then Server) as r.md + r.csv + r.xlsx; the first run's files
    are kept aside."""
    base = tmp_path_factory.mktemp("mixed")
    folder, first = base / "set", base / "first"
    folder.mkdir()
    targets = [folder / n for n in ("r.md", "r.csv", "r.xlsx")]
    eg.export(eg.build_report(v51_store, scenario="Offline", **OFFLINE_70B), *targets)
    shutil.copytree(folder, first)
    eg.export(eg.build_report(v51_store, scenario="Server", **OFFLINE_70B), *targets)
    return folder, first


def test_a_consistent_set_has_no_mixed_set_finding(two_runs):
    folder, first = two_runs
    for d in (folder, first):
        reports = check([d])
        assert all(r.status != NOT_INSPECTED for r in reports), [(r.path, r.reason) for r in reports]
        assert not eg026(reports)


def test_a_member_replaced_by_another_run_is_a_mixed_set(two_runs, tmp_path):
    folder, first = two_runs
    runs = (_run_of(first / "r.md.manifest.json"), _run_of(folder / "r.md.manifest.json"))
    assert runs[0] != runs[1]
    mixed = tmp_path / "mixed"
    shutil.copytree(folder, mixed)
    shutil.copy2(first / "r.xlsx", mixed / "r.xlsx")  # the workbook of the first run, beside the second's files
    reports = check([mixed])
    found = eg026(reports)
    assert len(found) == 2, found  # r.csv with r.xlsx, r.md with r.xlsx; r.csv and r.md agree
    for path, h in found:
        assert str(mixed / "r.xlsx") in h.message and path in h.message
        assert f"export run {runs[0][:8]}" in h.message and f"export run {runs[1][:8]}" in h.message
        assert f"exportguard recover {mixed}" in h.message
    assert {p for p, _ in found} == {str(mixed / "r.csv"), str(mixed / "r.md")}
    assert eg.check_documents(mixed).exit_code == 1
    # the same files given one by one, the sidecars with them (`check folder/*`)
    by_name = check(sorted(mixed.iterdir()))
    assert sorted(p for p, _ in eg026(by_name)) == sorted(p for p, _ in found)
    assert all(r.status != NOT_INSPECTED for r in by_name), [(r.path, r.reason) for r in by_name]
