"""The public API checks its arguments as the command line's options are checked (issue 31, item 5):
a wrong type or value raises ArgumentError naming the argument and what it takes, never a
TypeError, AttributeError or UnicodeEncodeError from deep inside, and never a silent acceptance.
``system=`` is checked key by key by the --system TOML's own check, with the same messages."""
from __future__ import annotations

import math

import pytest

import exportguard as eg
from exportguard.api import describe_system
from exportguard.errors import SourceError
from exportguard.ingest.own_system import load_system
from tests.conftest import SUMMARY_V51

pytestmark = pytest.mark.real_data

OFFLINE_70B = dict(round="v5.1", division="closed", model="llama2-70b", track="99", scenario="Offline")


@pytest.fixture
def empty_store(tmp_path):
    with eg.open_store(f"sqlite:///{tmp_path / 'store.db'}") as s:
        yield s


@pytest.fixture(scope="module")
def report(v51_store):
    return eg.build_report(v51_store, **OFFLINE_70B, accelerator_count=8)


def refused(call, *words: str) -> str:
    with pytest.raises(eg.ArgumentError) as raised:
        call()
    message = str(raised.value)
    assert "\n" not in message, message
    for word in words:
        assert word in message, (word, message)
    return message


# -- system=: the --system TOML's check ------------------------------------------------------

BAD_SYSTEMS = [  # (key, value, its TOML spelling, words the message holds)
    ("nodes", "two", '"two"', ["nodes", "whole number 1 or more", "'two'"]),
    ("accelerators_per_node", 8.5, "8.5", ["accelerators_per_node", "whole number 0 or more", "8.5"]),
    ("nodes", True, "true", ["nodes", "whole number", "True"]),
    ("accelerators_per_node", -1, "-1", ["accelerators_per_node", "0 or more"]),
    ("nodes", 0, "0", ["nodes", "1 or more"]),
    ("measured_by", 123, "123", ["measured_by", "non-empty text"]),
    ("framework", "  ", '"  "', ["framework", "non-empty text"]),
    ("server_settings", "a\x00b", '"a\\u0000b"', ["server_settings", "NUL"]),
    ("gpus", 8, "8", ["unknown key", "accelerators_per_node"]),
]


@pytest.mark.parametrize("key, value, _toml, words", BAD_SYSTEMS, ids=[f"{b[0]}={b[1]!r}" for b in BAD_SYSTEMS])
def test_a_bad_system_mapping_is_refused_key_by_key(empty_store, key, value, _toml, words):
    refused(lambda: eg.ingest_sources(empty_store, SUMMARY_V51, system={key: value}), "system=", repr(key), *words)
    assert empty_store.count() == 0  # refused before anything was read or stored


@pytest.mark.parametrize("key, value, toml, _words", BAD_SYSTEMS, ids=[f"{b[0]}={b[1]!r}" for b in BAD_SYSTEMS])
def test_a_system_mapping_and_the_same_toml_say_the_same(tmp_path, key, value, toml, _words):
    path = tmp_path / "lab.toml"
    path.write_text(f'system_name = "lab-1"\n{key} = {toml}\n')
    with pytest.raises(SourceError) as from_file:
        load_system(path)
    with pytest.raises(eg.ArgumentError) as from_mapping:
        describe_system({"system_name": "lab-1", key: value})
    assert str(path) in str(from_file.value) and "line 2" in str(from_file.value)  # the file names the file
    assert str(from_mapping.value) == f"system=, key {key!r}: {from_file.value.message}"


def test_stated_fields_and_a_description_object_are_checked_as_the_toml():
    refused(lambda: describe_system(nodes="two"), "nodes", "whole number 1 or more")
    refused(lambda: describe_system(None, accelerators_per_node=8.5), "accelerators_per_node", "8.5")
    from exportguard.ingest.own_system import SystemDescription

    refused(lambda: describe_system(SystemDescription(nodes=True)), "system=", "nodes")
    good = describe_system({"system_name": " lab-1 ", "nodes": 2, "accelerator": None})
    assert (good.system_name, good.nodes, good.accelerator) == ("lab-1", 2, None)  # stripped, as the TOML's


# -- types a call cannot use ----------------------------------------------------------------

@pytest.mark.parametrize("call, words", [
    (lambda s, r, p: eg.open_store(123), ["url=123", "text"]),
    (lambda s, r, p: eg.open_store(p / "store.db"), ["url=", "sqlite:///"]),
    (lambda s, r, p: eg.ingest_sources(s, None), ["paths=None", "path"]),
    (lambda s, r, p: eg.ingest_sources(123, SUMMARY_V51), ["store=123", "open_store"]),
    (lambda s, r, p: eg.export(r, None), ["targets=None", "path"]),
    (lambda s, r, p: eg.export(r, 42), ["targets=42", "path"]),
    (lambda s, r, p: eg.select(s, submitter="\udcff"), ["submitter=", "not valid text"]),
    (lambda s, r, p: eg.select(s, model="llama\x00"), ["model=", "NUL"]),
    (lambda s, r, p: eg.select(123), ["store=123", "open_store"]),
    (lambda s, r, p: eg.check_documents(None), ["paths=None", "path"]),
    (lambda s, r, p: eg.check_documents(""), ["paths=''", "empty"]),
], ids=["open_store-int", "open_store-path", "ingest-None", "ingest-store-int", "export-None", "export-int",
        "select-surrogate", "select-NUL", "select-store-int", "check-None", "check-empty"])
def test_a_wrong_type_is_an_argument_error_naming_the_argument(v51_store, report, tmp_path, call, words):
    refused(lambda: call(v51_store, report, tmp_path), *words)


# -- build_report ---------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, words", [
    (dict(title=123), ["title=123", "text"]),
    (dict(split_by_cohort="no"), ["split_by_cohort='no'", "True or False"]),
    (dict(split_by_cohort=1), ["split_by_cohort=1", "True or False"]),
    (dict(columns=5), ["columns=5", "text or a list"]),
    (dict(derived=5), ["derived=5", "text or a list"]),
    (dict(prices=5), ["prices=5", "path"]),
], ids=["title", "split-text", "split-int", "columns", "derived", "prices"])
def test_build_report_checks_its_arguments(v51_store, kwargs, words):
    refused(lambda: eg.build_report(v51_store, **OFFLINE_70B, **kwargs), *words)


# -- export: options the targets' formats take ----------------------------------------------

@pytest.mark.parametrize("target, options, words", [
    ("x.pdf", dict(colour="red"), ["colour='red'", "not an export option", ".pdf: page_size, orientation"]),
    ("x.md", dict(page_size="a4"), ["page_size='a4'", ".md: none", "an option of .xlsx, .pdf and .docx"]),
    ("x.csv", dict(orientation="landscape"), ["orientation='landscape'", ".csv: none", "an option of .xlsx, .pdf and .docx"]),
    ("x.pptx", dict(page_size="letter"), ["page_size", ".pptx: template"]),
    ("x.md", dict(template="deck.pptx"), ["template=", "an option of .pptx and .docx"]),
    ("x.csv", dict(text_cells=True), ["text_cells=True", "an option of .xlsx"]),
    ("x.pdf", dict(page_size="a5"), ["page_size='a5'", "a4, letter"]),
    ("x.pdf", dict(orientation=90), ["orientation=90", "portrait, landscape"]),
    ("x.xlsx", dict(text_cells=1), ["text_cells=1", "True or False"]),
    ("x.md", dict(force="yes"), ["force='yes'", "True or False"]),
    ("x.md", dict(wait_s=-1), ["wait_s=-1", "0 or more"]),
    ("x.md", dict(wait_s=math.nan), ["wait_s=nan", "finite"]),
    ("x.md", dict(tell="print"), ["tell='print'", "callable"]),
], ids=["unknown-pdf", "page_size-md", "orientation-csv", "page_size-pptx", "template-md", "text_cells-csv",
        "page_size-a5", "orientation-int", "text_cells-int", "force-text", "wait-negative", "wait-nan", "tell-text"])
def test_export_refuses_options_no_target_takes_and_bad_values(report, tmp_path, target, options, words):
    refused(lambda: eg.export(report, tmp_path / target, **options), *words)
    assert not list(tmp_path.iterdir())  # refused before anything was written


def test_a_specs_paper_settings_never_refuse_a_markdown_export(v51_store, tmp_path):
    spec = {"title": "Paper", "outputs": {"page_size": "letter", "orientation": "landscape"},
            "filters": {"round": "v5.1", "division": "closed"},
            "section": [{"kind": "table", "title": "Offline", "filters": {
                "model": "llama2-70b", "track": "99", "scenario": "Offline", "accelerator_count": 8}}]}
    report = eg.build_report(v51_store, spec)
    written = eg.export(report, tmp_path / "paper.md", tmp_path / "paper.pdf", page_size="A4")
    assert (tmp_path / "paper.md").is_file() and tmp_path / "paper.pdf" in written
    # a workbook prints on the spec's paper, held as it says, unless the call says otherwise
    from openpyxl import load_workbook

    eg.export(report, tmp_path / "spec.xlsx")
    eg.export(report, tmp_path / "call.xlsx", page_size="a4", orientation="landscape")
    for name, paper, held in (("spec.xlsx", 1, "landscape"), ("call.xlsx", 9, "landscape")):
        for ws in load_workbook(tmp_path / name).worksheets:
            assert (ws.page_setup.paperSize, ws.page_setup.orientation) == (paper, held), (name, ws.title)


# -- check_documents: limits and ignore -----------------------------------------------------

@pytest.mark.parametrize("kwargs, words", [
    (dict(timeout=0), ["timeout=0", "more than 0"]),
    (dict(timeout=-5), ["timeout=-5", "more than 0"]),
    (dict(timeout=math.nan), ["timeout=nan", "finite"]),
    (dict(timeout=math.inf), ["timeout=inf", "finite"]),
    (dict(timeout="10"), ["timeout='10'", "number of seconds"]),
    (dict(timeout=True), ["timeout=True", "number of seconds"]),
    (dict(max_memory=0), ["max_memory=0", "64 or more"]),
    (dict(max_memory=1), ["max_memory=1", "64 or more"]),
    (dict(max_memory=512.5), ["max_memory=512.5", "whole number"]),
    (dict(max_memory=True), ["max_memory=True", "whole number"]),
    (dict(progress=5), ["progress=5", "callable"]),
], ids=["timeout-0", "timeout-negative", "timeout-nan", "timeout-inf", "timeout-text", "timeout-bool",
        "memory-0", "memory-1", "memory-float", "memory-bool", "progress"])
def test_check_documents_refuses_limits_out_of_range(tmp_path, kwargs, words):
    md = tmp_path / "x.md"
    md.write_text("# nothing\n")
    refused(lambda: eg.check_documents(md, **kwargs), *words)


@pytest.mark.parametrize("ignore, words", [
    (5, ["ignore=5", "a text or a list of texts"]),
    ("EG999", ["ignore='EG999'", "unknown rule 'EG999'"]),
    (["EG001", 7], ["ignore=7", "a text"]),
    ({"EG001": True}, ["ignore=", "a text or a list of texts"]),
], ids=["int", "unknown-rule", "list-with-int", "dict"])
def test_ignore_takes_rule_ids_as_a_list_or_one_text(tmp_path, ignore, words):
    md = tmp_path / "x.md"
    md.write_text("# nothing\n")
    refused(lambda: eg.check_documents(md, ignore=ignore), *words)


def test_one_text_is_one_rule_not_its_characters(report, tmp_path):
    [md, _] = eg.export(report, tmp_path / "figures.md")
    first = report.figures()[0].text().split(" ")[0]
    md.write_text(md.read_text(encoding="utf-8").replace(first, "999,999", 1), encoding="utf-8")
    assert any(f.rule_id == "EG017" for f in eg.check_documents(md).findings)
    one = eg.check_documents(md, ignore="EG017")  # read per character, 'E' would be an unknown rule
    assert not any(f.rule_id == "EG017" for f in one.findings)
    assert [f.rule_id for f in one.findings] == [f.rule_id for f in eg.check_documents(md, ignore=["EG017"]).findings]


# -- the rest of the calls ------------------------------------------------------------------

@pytest.mark.parametrize("call, words", [
    (lambda s: eg.open_store(s, wait_s=-1), ["wait_s=-1", "0 or more"]),
    (lambda s: eg.open_store(s, wait_s=math.inf), ["wait_s=inf", "finite"]),
    (lambda s: eg.open_store(s, tell=5), ["tell=5", "callable"]),
    (lambda s: eg.open_store(s, create="no"), ["create='no'", "True or False"]),
    (lambda s: eg.ingest_sources(eg.open_store(s), SUMMARY_V51, retrieved=20250909), ["retrieved=20250909", "date"]),
    (lambda s: eg.ingest_sources(eg.open_store(s), SUMMARY_V51, round="latest"), ["round='latest'", "v5.1"]),
    (lambda s: eg.ingest_sources(eg.open_store(s), SUMMARY_V51, round=5.1), ["round=5.1", "v5.1"]),
    (lambda s: eg.ingest_sources(eg.open_store(s), SUMMARY_V51, on_start="x"), ["on_start='x'", "callable"]),
    (lambda s: eg.ingest_sources(eg.open_store(s), SUMMARY_V51, on_report=1), ["on_report=1", "callable"]),
], ids=["wait-negative", "wait-inf", "tell", "create", "retrieved", "round-word", "round-float", "on_start",
        "on_report"])
def test_every_other_argument_is_checked(tmp_path, call, words):
    refused(lambda: call(f"sqlite:///{tmp_path / 'store.db'}"), *words)


def test_a_date_object_is_a_retrieval_date(empty_store):
    import datetime as dt

    [r] = eg.ingest_sources(empty_store, SUMMARY_V51, retrieved=dt.date(2025, 9, 9))
    assert r.source.retrieved_on == "2025-09-09"
