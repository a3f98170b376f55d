"""Deterministic output: the same report and clock give byte-identical artifacts in every format,
and golden files pin what a small report looks like.

Golden files live under tests/golden/: a small report built from real v5.1 results (a headline, a
three-bar chart, a three-row table) exported at a fixed clock, as CSV and Markdown text and the
significant XML (canonical, indented) of the deck's first slides and the workbook's first sheet;
and the example executive deck (examples/executive-deck.toml, real v5.1 data) in every format, in
text form: every text a person can see, with where it is, as the checker's readers find it
(tests/golden/examples/).
When a change to a renderer is meant to change them, regenerate and review the diff:

    EXPORTGUARD_REGEN_GOLDEN=1 .venv/bin/python -m pytest -q tests/test_deterministic.py
    git diff tests/golden/

(``--regen-golden`` does the same, see conftest.py.) Under CI=true regeneration is refused, so a
golden test can only pass by matching.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import re
import time
import zipfile
from pathlib import Path

import pytest

from exportguard.check.manifests import read_manifest
from exportguard.clock import Clock, from_env
from exportguard.errors import ExportguardError
from exportguard.manifest import verify
from exportguard.render import export
from exportguard.render.package import entry_order, is_normalised
from exportguard.spec import build_report, load_spec, parse_spec
from tests.conftest import REPO
from tests.golden_files import EPOCH, SMALL_SPEC, assert_golden

pytestmark = pytest.mark.real_data
GOLDEN = Path(__file__).resolve().parent / "golden"
FORMATS = ("pptx", "xlsx", "pdf", "docx", "csv", "md")


def _digests(files) -> dict[str, str]:
    return {f.name: hashlib.sha256(f.read_bytes()).hexdigest() for f in files}


@pytest.fixture(scope="module")
def deck_report(v51_store):
    return build_report(v51_store, load_spec(REPO / "examples" / "executive-deck.toml"))


@pytest.fixture(scope="module")
def small_report(fixed_store):
    return build_report(fixed_store, parse_spec(SMALL_SPEC, name="golden.toml"))


def test_two_exports_with_source_date_epoch_are_byte_identical_in_every_format(deck_report, tmp_path, monkeypatch):
    """No format forces a difference: the deck's zip entries and core dates, its chart workbooks,
    the workbook, the PDF (reportlab's invariant mode, dates from the clock), CSV, Markdown and the
    sidecar manifests are the same bytes. The second export runs seconds later, in another folder."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(EPOCH))
    runs = []
    for name in ("first", "second"):
        folder = tmp_path / name
        files = export(deck_report, [folder / f"deck.{ext}" for ext in FORMATS])
        runs.append(_digests(files))
        time.sleep(2.1)  # past a ZIP timestamp's two-second resolution
    assert set(runs[0]) == {f"deck.{e}" for e in FORMATS} | {"deck.csv.manifest.json", "deck.md.manifest.json"}
    assert runs[0] == runs[1]


def test_the_clock_is_what_every_format_states(deck_report, tmp_path, monkeypatch):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    clock = Clock.from_epoch(EPOCH + 3601)  # an odd second: ZIP entries take the even one below
    files = export(deck_report, [tmp_path / f"deck.{ext}" for ext in FORMATS], clock=clock)
    by_ext = {f.name.split(".", 1)[1]: f for f in files}
    for ext in FORMATS:
        manifest = read_manifest(by_ext[ext])
        assert manifest["generated_at"] == "2025-09-09T01:00:01+00:00" and verify(manifest) == []
    for ext in ("pptx", "xlsx", "docx"):
        assert is_normalised(by_ext[ext], clock)
        with zipfile.ZipFile(by_ext[ext]) as z:
            assert z.namelist()[0] == "[Content_Types].xml"
            core = z.read("docProps/core.xml").decode()
            assert core.count("2025-09-09T01:00:01Z") == 2, core  # created and modified
            for name in z.namelist():
                if name.endswith(".xlsx"):  # a chart's embedded workbook
                    inner = zipfile.ZipFile(__import__("io").BytesIO(z.read(name)))
                    assert [i.date_time for i in inner.infolist()] == [clock.zip_time()] * len(inner.infolist())
    pdf = by_ext["pdf"].read_bytes()
    assert pdf.count(b"(D:20250909010001+00'00')") == 2  # CreationDate and ModDate
    assert b"Date: 2025-09-09" in zipfile.ZipFile(by_ext["pptx"]).read("ppt/slides/slide1.xml")


def test_another_clock_changes_only_the_dates(small_report, tmp_path, monkeypatch):
    """An export at another instant differs from the first exactly where the clock is stated."""
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    a = export(small_report, [tmp_path / "a" / "r.csv", tmp_path / "a" / "r.md"], clock=Clock.from_epoch(EPOCH))
    b = export(small_report, [tmp_path / "b" / "r.csv", tmp_path / "b" / "r.md"], clock=Clock.from_epoch(EPOCH + 86400))
    for x, y in zip(a, b):
        left = x.read_text().replace("2025-09-09T00:00:00+00:00", "CLOCK").replace("2025-09-09", "DATE")
        right = y.read_text().replace("2025-09-10T00:00:00+00:00", "CLOCK").replace("2025-09-10", "DATE")
        if x.name.endswith(".manifest.json"):  # the digest covers generated_at, and the run id comes from the clock
            left, right = (re.sub(r'"digest":\{[^}]*\}|"run":"[0-9a-f]{32}"', "", t) for t in (left, right))
        assert left == right, x.name


def test_source_date_epoch_is_read_and_a_bad_value_named():
    assert from_env({"SOURCE_DATE_EPOCH": str(EPOCH)}) == Clock.from_epoch(EPOCH, "SOURCE_DATE_EPOCH")
    now = from_env({})
    assert now.source == "now" and abs(now.at - dt.datetime.now(dt.timezone.utc)).total_seconds() < 5
    for bad in ("yesterday", "-5", "1.5", "9" * 30):
        with pytest.raises(ExportguardError, match="SOURCE_DATE_EPOCH"):
            from_env({"SOURCE_DATE_EPOCH": bad})
    assert Clock.from_epoch(0).zip_time() == (1980, 1, 1, 0, 0, 0)  # before what a ZIP entry can hold


def test_a_bad_source_date_epoch_is_one_line_from_the_cli(v51_store, tmp_path):
    from click.testing import CliRunner

    from exportguard.cli import main

    result = CliRunner().invoke(main, ["--db", v51_store.url, "export", "--round", "v5.1", "--division", "closed",
                                       "--model", "llama2-70b", "--track", "99", "--scenario", "Offline",
                                       "--to", str(tmp_path / "x.csv")], env={"SOURCE_DATE_EPOCH": "soon"})
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert "SOURCE_DATE_EPOCH='soon': not a whole number of seconds" in result.output
    assert not (tmp_path / "x.csv").exists()


def test_package_entry_order():
    names = ["xl/workbook.xml", "_rels/.rels", "docProps/app.xml", "[Content_Types].xml", "xl/styles.xml"]
    assert entry_order(names) == ["[Content_Types].xml", "_rels/.rels", "docProps/app.xml", "xl/styles.xml",
                                  "xl/workbook.xml"]


# -- golden files --------------------------------------------------------------------------------

def _significant_xml(blob: bytes) -> str:
    """A part as canonical XML (C14N 2.0: attributes sorted, namespaces as used), indented one
    element a line, so that a diff shows what changed."""
    from lxml import etree

    root = etree.fromstring(blob)
    etree.indent(root, space=" ")
    return etree.tostring(root, method="c14n2").decode("utf-8") + "\n"


@pytest.fixture(scope="module")
def golden_export(small_report, tmp_path_factory):
    folder = tmp_path_factory.mktemp("golden")
    files = export(small_report, [folder / f"golden.{ext}" for ext in ("csv", "md", "pptx", "xlsx", "docx")],
                   clock=Clock.from_epoch(EPOCH))
    return {f.name: f for f in files}


def _golden_texts(files) -> dict[str, str]:
    out = {"golden.csv": files["golden.csv"].read_text(encoding="utf-8-sig"),
           "golden.md": files["golden.md"].read_text(encoding="utf-8")}
    with zipfile.ZipFile(files["golden.pptx"]) as z:
        for part in ("ppt/slides/slide1.xml", "ppt/slides/slide2.xml", "ppt/slides/slide3.xml"):
            out["golden.pptx." + part.replace("/", "_")] = _significant_xml(z.read(part))
    with zipfile.ZipFile(files["golden.xlsx"]) as z:
        out["golden.xlsx.xl_worksheets_sheet1.xml"] = _significant_xml(z.read("xl/worksheets/sheet1.xml"))
    with zipfile.ZipFile(files["golden.docx"]) as z:
        for part in ("word/document.xml", "word/footnotes.xml"):
            out["golden.docx." + part.replace("/", "_")] = _significant_xml(z.read(part))
    return out


@pytest.mark.parametrize("name", ["golden.csv", "golden.md", "golden.pptx.ppt_slides_slide1.xml",
                                  "golden.pptx.ppt_slides_slide2.xml", "golden.pptx.ppt_slides_slide3.xml",
                                  "golden.xlsx.xl_worksheets_sheet1.xml", "golden.docx.word_document.xml",
                                  "golden.docx.word_footnotes.xml"])
def test_golden_file(name, golden_export, request):
    assert_golden(_golden_texts(golden_export)[name], GOLDEN / name, request, name, measured=name.startswith("golden.pptx"))


def test_a_selection_is_dated_by_the_export_clock(monkeypatch):
    """A selection's report (list, the notebook's table) takes its date from SOURCE_DATE_EPOCH as an
    export does, never from the machine's calendar alone."""
    from exportguard.api import Selection

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1757376000")  # 2025-09-09
    assert Selection(()).report.generated_on == "2025-09-09"


# -- the example deck in every format, in text form ---------------------------------------------------

class _TextForm:
    """A checker sink that keeps every text it is fed, with its location, one line each."""

    def __init__(self):
        self.lines: list[str] = []

    def scope(self, name: str) -> None:
        self.lines.append(f"== {name}")

    def item(self, key: str, where: str, text: str, value=None, **_kw) -> None:
        self.lines.append(f"{where}: {text}" if value is None else f"{where}: {text}  [value {value!r}]")

    def __getattr__(self, name):  # the sink's other calls (notes, manifests) are not text a person sees
        return lambda *a, **k: None


def text_form(path: Path) -> str:
    from exportguard.check.engine import _format, read

    from tests.conftest import SHARED

    sink = _TextForm()
    read(path, _format(path), sink)
    # The Sources sheet names the file each row was read from; where the data sits differs per
    # machine (a CI clone is not a developer's checkout), so the golden text names it as <shared>.
    roots = {str(SHARED), str(SHARED.resolve())}
    text = "\n".join(sink.lines) + "\n"
    for root in sorted(roots, key=len, reverse=True):
        text = text.replace(root, "<shared>")
    return text


@pytest.fixture(scope="module")
def example_export(fixed_store, tmp_path_factory):
    report = build_report(fixed_store, load_spec(REPO / "examples" / "executive-deck.toml"))
    folder = tmp_path_factory.mktemp("golden_examples")
    files = export(report, [folder / f"executive-deck.{ext}" for ext in FORMATS], clock=Clock.from_epoch(EPOCH))
    return {f.name: f for f in files if not f.name.endswith(".json")}


@pytest.mark.parametrize("ext", FORMATS)
def test_golden_text_of_the_example_deck(ext, example_export, request):
    assert_golden(text_form(example_export[f"executive-deck.{ext}"]), GOLDEN / "examples" / f"executive-deck.{ext}.txt",
                  request, f"the text of executive-deck.{ext}", measured=ext in ("pptx", "pdf"))
