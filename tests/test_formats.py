"""The format registry (exportguard/formats.py) is the one place a format is named: render/ and
check/ read its records, and no other module dispatches on a format's name or suffix."""
from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import exportguard
from exportguard.api import ArgumentError, export as api_export
from exportguard.caveat import FULL, SHORT, TRADEMARK_LEGEND
from exportguard.check.engine import collect
from exportguard.check.manifests import NoManifestReader, read_manifest
from exportguard.check.tamper import syntax_of
from exportguard.errors import ExportguardError
from exportguard.formats import BY_NAME, FORMATS, SECTION_KINDS, of_path, written_as
from exportguard.render import outputs_of, renderer_for
from exportguard.report import Report

pytestmark = pytest.mark.quick

PACKAGE = Path(exportguard.__file__).parent
# Modules that name "csv" as a source of results (ingest, an origin), not as a format written or read.
SOURCES_NOT_FORMATS = ("ingest", "model.py")


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.name)
def test_every_record_names_modules_that_exist_with_the_calls_it_promises(fmt):
    assert list(inspect.signature(fmt.load_painter().render).parameters)[:2] == ["report", "path"]
    params = list(inspect.signature(fmt.load_reader()).parameters)
    assert params[:2] == (["z", "sink"] if fmt.package else ["path", "sink"])
    assert callable(fmt.load_manifest_reader())
    assert set(fmt.section_kinds) <= set(SECTION_KINDS)
    assert of_path(f"x{fmt.suffix.upper()}") is fmt and written_as(f"a/b{fmt.suffix}") is fmt
    assert all(of_path(f"x{s}") is fmt for s in fmt.suffixes)
    assert syntax_of(fmt.name) is not None


def test_names_and_suffixes_are_unique():
    assert len(BY_NAME) == len(FORMATS)
    suffixes = [s for f in FORMATS for s in f.suffixes]
    assert len(suffixes) == len(set(suffixes)) and all(s == s.lower() and s.startswith(".") for s in suffixes)


def test_an_export_writes_a_sidecar_exactly_for_the_formats_that_cannot_embed_their_manifest(tmp_path):
    targets = [tmp_path / f"r{f.suffix}" for f in FORMATS]
    written = outputs_of(targets, [renderer_for(t) for t in targets])
    sidecars = {p.name for p in written} - {t.name for t in targets}
    assert sidecars == {f"r{f.suffix}.manifest.json" for f in FORMATS if not f.embeds_manifest}


def test_a_suffix_no_format_writes_is_refused_naming_the_known_ones(tmp_path):
    with pytest.raises(ExportguardError, match=r"unknown output format '\.docz'; known: \.xlsx, \.pptx"):
        renderer_for(tmp_path / "r.docz")


def test_the_checker_reads_every_suffix_of_the_registry_and_names_them_for_any_other(tmp_path):
    for f in FORMATS:
        for suffix in f.suffixes:
            (tmp_path / f"x{suffix}").write_text("x")
    (tmp_path / "x.odt").write_text("x")
    files, refused = collect([tmp_path / p.name for p in sorted(tmp_path.iterdir())])
    assert sorted(fmt for _, fmt in files) == sorted(f.name for f in FORMATS for _ in f.suffixes)
    [odt] = refused
    assert odt.status == "not-inspected" and all(s in odt.reason for f in FORMATS for s in f.suffixes)
    with pytest.raises(NoManifestReader):
        read_manifest(tmp_path / "x.odt")


def test_an_option_is_checked_against_the_formats_that_take_it(tmp_path):
    takers = [f for f in FORMATS if "page_size" in f.options]
    assert [f.name for f in takers] == ["xlsx", "pdf", "docx"]  # the paper a briefing or a printed workbook is made for
    with pytest.raises(ArgumentError, match=r"page_size='a4': no target of this export takes it \(\.md: none\); "
                                            r"page_size is an option of \.xlsx, \.pdf and \.docx targets"):
        api_export(Report("Options", "test", (), SHORT, FULL, TRADEMARK_LEGEND), tmp_path / "r.md", page_size="a4")
    assert not (tmp_path / "r.md").exists()


def _named_formats(tree: ast.AST, named: set[str]):
    """Comparisons with a format's name or suffix, and tables keyed by two or more of them."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            items = [e for s in sides for e in (s.elts if isinstance(s, (ast.Tuple, ast.List, ast.Set)) else [s])]
            found = [e.value for e in items if isinstance(e, ast.Constant) and e.value in named]
            if found:
                yield node.lineno, found
        elif isinstance(node, ast.Dict):
            keys = [k.value for k in node.keys if isinstance(k, ast.Constant) and k.value in named]
            if len(keys) >= 2:
                yield node.lineno, keys


def test_no_module_but_the_registry_dispatches_on_a_format():
    named = {f.name for f in FORMATS} | {s for f in FORMATS for s in f.suffixes}
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative == "formats.py" or relative.startswith(SOURCES_NOT_FORMATS):
            continue
        found += [f"{relative}:{line}: {names}" for line, names in _named_formats(ast.parse(path.read_text()), named)]
    assert found == []


def test_the_scan_sees_a_dispatch_when_there_is_one():
    named = {"pdf", ".pdf", "xlsx", ".xlsx"}
    tree = ast.parse('if fmt == "pdf":\n    pass\nT = {".pdf": 1, ".xlsx": 2}\nok = {".pdf": 1}\n')
    assert list(_named_formats(tree, named)) == [(1, ["pdf"]), (3, [".pdf", ".xlsx"])]
