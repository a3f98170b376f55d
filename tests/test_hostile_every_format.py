"""Issue 33, item 3: hostile source names through every export format (.pptx, .xlsx, .pdf, .docx, .csv, .md)
at once. Every fresh artifact is checked clean by `exportguard check`, and nothing raw reaches any part
of it: no control character, bidi override or isolate, zero-width character, BOM or lone surrogate (read
in every XML part of the OOXML packages, numeric character references included, in the PDF's text,
metadata and attachments, and in the CSV, the Markdown and their manifests), no formula (an XLSX <f>
element, a text cell or CSV value starting with a formula character unescaped), no live Markdown
link, image or HTML, no link to an address that came from the name.

The names go into three real llama2-70b-99 Offline v5.1 rows (submitter, system and framework) and,
in the "titles" place, into the report, section and table titles as well. A name the guard refuses
(a title that reads like a figure) is skipped and counted; the fixed cases are not all refused.
"""
from __future__ import annotations

import csv
import dataclasses
import json
import re
import tempfile
import zipfile
from pathlib import Path
from typing import NamedTuple

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from openpyxl import load_workbook
from pypdf import PdfReader

from exportguard.caveat import FULL, SHORT, TRADEMARK_LEGEND
from exportguard.check.engine import check
from exportguard.check.manifests import MD_POINTER
from exportguard.errors import ExportguardError
from exportguard.guard import bind_table
from exportguard.ingest import ingest_path
from exportguard.model import cohort_slack
from exportguard.render import export
from exportguard.report import Report, TableSection
from exportguard.store import open_store
from tests.conftest import TREE_V51

pytestmark = pytest.mark.real_data

HOSTILE = {
    "img-onerror": "<img src=x onerror=alert(1)>",
    "md-link": "[click](http://attacker.example)",
    "md-image": "![x](http://attacker.example/p.png)",
    "glued-scheme": "0HTTP://attacker.example awww.attacker.example",  # cmark-gfm links from the scheme on
    "html-comment": "<!-- hide everything",
    "table-row": "| a | b |",
    "hyperlink": "=HYPERLINK(\"http://attacker.example\",\"y\")",
    "plus": "+1+1",
    "minus": "-2+3",
    "at-sum": "@SUM(A1:A2)",
    "pct-0A": "%0A",
    "leading-tab": "\tcmd|' /C calc'!A0",
    "bidi-digits": "\u202e101,527\u202c",
    "isolates": "\u2066isolate\u2069 \u2067rtl\u2069",
    "zero-width-digits": "101\u200d,5\u200b27 zw\u200c\u200e\u200f",
    "nul": "nul\x00byte",
    "esc": "esc\x1b[2J\x1b[31mred\x1b]8;;http://attacker.example\x07link\x1b]8;;\x07",
    "bell": "bell\x07\x08\x0b\x0c",
    "c1-csi": "c1\x9b31m\x85next\x7f",
    "lone-surrogate": "\ud800lone \udfff",
    "bom": "\ufeffbom",
    "crlf": "line\r\nbreak",
    "cr": "carriage\rreturn",
    "lf": "line\nfeed\n# heading\n> quote",
    "line-separator": "line\u2028sep\u2029para",
    "100kB": "x" * 100_000,
}
PLACES = ("sources", "titles")  # the name in the rows' source fields; in the titles as well
FORMATS = ("pptx", "xlsx", "pdf", "docx", "csv", "md")
CHECK_FORMAT = {"pptx": "pptx", "xlsx": "xlsx", "pdf": "pdf", "docx": "docx", "csv": "csv", "md": "markdown"}

# What a reader's screen, a viewer or a terminal would act on or hide (the brief's list, and sanitize.py's
# C1 controls, DEL, U+061C and the other invisible format characters); \t \n \r are the files' own.
DANGER = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff"
                    "\ud800-\udfff]")
_CHAR_REF = re.compile(r"&#(x[0-9a-fA-F]+|[0-9]+);")
FORMULA_START = ("=", "+", "-", "@")
_BINARY_PART = (".jpeg", ".jpg", ".png", ".gif", ".emf", ".wmf", ".bin")  # the templates' images, printer settings
# What exportguard's own Markdown makes: any other tag in the rendered HTML came from data.
OUR_TAGS = {"h1", "h2", "p", "blockquote", "table", "thead", "tbody", "tr", "th", "td", "ul", "li", "em", "strong", "sub"}

def _raw(text: str, at: int) -> str:
    return repr(text[max(0, at - 40): at + 40])


def assert_nothing_raw(text: str, where: str) -> None:
    m = DANGER.search(text)
    assert m is None, f"{where}: raw {m.group()!r} in {_raw(text, m.start())}"


def _expand_refs(xml: str) -> str:
    """An XML part with its numeric character references (&#x202E;, &#27;) as the characters they stand for."""
    if "&#" not in xml:
        return xml
    return _CHAR_REF.sub(lambda m: chr(int(m.group(1)[1:], 16) if m.group(1)[0] == "x" else int(m.group(1))), xml)


def _urls(name: str) -> list[str]:
    return re.findall(r"https?://[^\s\"')\]\x07\x1b]+", name)


# -- the report ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def rows():
    with tempfile.TemporaryDirectory() as folder, open_store(f"sqlite:///{folder}/s.db") as s:
        ingest_path(s, TREE_V51)
        found = s.results(benchmark="llama2-70b-99", scenario="Offline")[:3]
    assert len(found) == 3
    return found


def _named(r, name):
    i = dataclasses.replace(r.conditions.identity, submitter=name, system_name=name)
    c = dataclasses.replace(r.conditions.configuration, framework=name)
    return r.with_conditions(identity=i, configuration=c)


def _report(rows, name: str, place: str) -> Report:
    def title(words: str) -> str:  # the name first: a title cell starting with it is the riskier one
        return f"{name} {words}" if place == "titles" else words

    table = bind_table([_named(rows[0], name), *rows[1:]], title=title("Hostile table"), slack=cohort_slack(rows),
                       columns=("rank", "submitter", "system", "accelerators", "software", "throughput"))
    return Report(title("Hostile report"), "test", (TableSection(title("Hostile section"), table),), SHORT, FULL,
                  TRADEMARK_LEGEND)


class Exported(NamedTuple):
    folder: Path
    reports: dict  # check format -> FileReport

    def path(self, fmt: str) -> Path:
        return self.folder / f"h.{fmt}"


def export_and_check(rows, name: str, place: str, folder: Path, formats=FORMATS) -> Exported | None:
    """Every format in one export call, then `exportguard check` over the folder (each file in its
    worker, as the CLI does); None where the guard refuses the report."""
    try:
        export(_report(rows, name, place), [folder / f"h.{fmt}" for fmt in formats])
    except ExportguardError:  # GuardError among them: a title that reads like a figure
        return None
    reports = {r.format: r for r in check([folder])}
    assert set(reports) == {CHECK_FORMAT[f] for f in formats}, sorted(reports)
    return Exported(folder, reports)


@pytest.fixture(scope="module")
def exports(rows, tmp_path_factory):
    """(case or name, place) -> Exported or None, each exported and checked once for all its formats."""
    done: dict[tuple[str, str], Exported | None] = {}

    def get(case: str, place: str, name: str | None = None) -> Exported | None:
        if (case, place) not in done:
            folder = tmp_path_factory.mktemp(f"hostile-{place}")
            done[case, place] = export_and_check(rows, HOSTILE[case] if name is None else name, place, folder)
        return done[case, place]

    return get


@pytest.fixture(scope="module")
def baselines(exports):
    """The Markdown's line structure for a plain name, per place: a hostile name may change no line's kind."""
    out = {}
    for place in PLACES:
        plain = exports("plain", place, name="Plain Name")
        assert plain is not None
        out[place] = _md_structure(plain.path("md").read_text(encoding="utf-8"))
    return out


# -- what each format may hold ------------------------------------------------------------------------

def check_ooxml(path: Path, name: str) -> None:
    """Every part of the package: no raw dangerous character (as text or as a character reference), no
    link to an address from the name."""
    urls = _urls(name)
    with zipfile.ZipFile(path) as z:
        for part in z.namelist():
            data = z.read(part)
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                assert part.lower().endswith(_BINARY_PART), f"{path.name}:{part} is neither UTF-8 text nor an image"
                continue
            assert_nothing_raw(_expand_refs(text), f"{path.name}:{part}")
            if part.endswith(".rels"):
                for url in urls:
                    assert url not in text, f"{path.name}:{part} links to {url!r}, which came from the name"


def check_xlsx(path: Path, name: str) -> None:
    check_ooxml(path, name)
    with zipfile.ZipFile(path) as z:
        for part in z.namelist():
            if part.startswith("xl/worksheets/") and part.endswith(".xml"):
                xml = z.read(part).decode("utf-8")
                m = re.search(r"<f[ >/]", xml)
                assert m is None, f"{path.name}:{part} holds a formula: {_raw(xml, m.start())}"
    wb = load_workbook(path)
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                where = f"{path.name} {ws.title!r}!{c.coordinate}"
                assert c.data_type != "f", where
                if isinstance(c.value, str):
                    assert_nothing_raw(c.value, where)
                    assert len(c.value) <= 32_767, where
                    # the writer's escape (render/xlsx.py): a text cell starting with a formula character
                    # has the quotePrefix style, which keeps it text when edited in Excel too
                    if c.value.startswith(FORMULA_START):
                        assert c.quotePrefix, f"{where}: {c.value[:40]!r} starts a formula without quotePrefix"
                if c.comment:
                    assert_nothing_raw(c.comment.text, f"{where} comment")


def check_pptx(path: Path, name: str) -> None:
    check_ooxml(path, name)


def check_pdf(path: Path, name: str) -> None:
    reader = PdfReader(path)
    for n, page in enumerate(reader.pages, 1):
        assert_nothing_raw(page.extract_text(), f"{path.name} page {n} text")
        for annot in page.get("/Annots") or []:
            action = annot.get_object().get("/A")
            uri = str(action.get_object().get("/URI", "")) if action is not None else ""
            assert not any(url in uri for url in _urls(name)), f"{path.name} page {n} links to {uri!r}"
    for key, value in (reader.metadata or {}).items():
        assert_nothing_raw(str(value), f"{path.name} metadata {key}")
    attachments = reader.attachments
    assert attachments, f"{path.name} carries no manifest"
    for title, datas in attachments.items():
        for data in datas:
            assert_nothing_raw(data.decode("utf-8"), f"{path.name} attachment {title}")


def _sidecar(path: Path) -> None:
    sidecar = path.with_name(path.name + ".manifest.json")
    text = sidecar.read_text(encoding="utf-8")
    assert_nothing_raw(text, sidecar.name)
    json.loads(text)


def check_csv(path: Path, name: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.startswith("\ufeff")  # the writer's own BOM (for Excel), once, at the start
    assert_nothing_raw(text[1:], path.name)
    table = list(csv.reader(text[1:].splitlines(keepends=True)))
    header = table[0]
    assert len(table) > 3, "the rows are missing"
    for n, row in enumerate(table[1:], 2):
        assert len(row) == len(header), f"{path.name} line {n}: {len(row)} cells, not {len(header)}"
        for column, value in zip(header, row):
            where = f"{path.name} line {n} {column}"
            assert_nothing_raw(value, where)
            # csv_out.safe_text escapes with a leading apostrophe, so nothing unescaped starts so
            assert not value.startswith((*FORMULA_START, "\t", "\r", "\n", "|", "%")), f"{where}: {value[:40]!r}"
            assert "\r" not in value and "\n" not in value, f"{where}: a line break in {value[:60]!r}"
    _sidecar(path)


def _md_body(text: str) -> str:
    assert text.endswith(MD_POINTER + "\n")
    return text[: text.rfind(MD_POINTER)]


def _md_structure(text: str) -> list[str]:
    """Each line's kind: heading level, quote, table row, list item, HTML, blank or paragraph."""
    kinds = []
    for line in _md_body(text).splitlines():
        m = re.match(r"(#{1,6} |> |\| |- |<|$)", line)
        kinds.append(m.group(1) if m else "text")
    return kinds


def check_md(path: Path, name: str, structure: list[str] | None = None) -> None:
    import cmarkgfm
    from cmarkgfm.cmark import Options

    text = path.read_text(encoding="utf-8")
    assert_nothing_raw(text, path.name)
    body = _md_body(text)
    html = cmarkgfm.github_flavored_markdown_to_html(body, options=Options.CMARK_OPT_UNSAFE)
    tags = set(re.findall(r"<([a-z0-9]+)", html))
    assert tags <= OUR_TAGS, f"live markup from data: {tags - OUR_TAGS}"
    assert "<!--" not in html, "a live HTML comment"
    if "\\" not in name:
        assert "\\" not in html  # every escape was one CommonMark resolves: no stray backslash shows
    assert "<" not in body.replace("<sub>", "").replace("</sub>", ""), "a raw '<' in the Markdown"
    assert not re.search(r"(?<!\\)!(?<!\\)\[", body) and not re.search(r"(?<!\\)\]\(", body)
    rows = [line for line in body.splitlines() if line.startswith("| ")]
    assert {len(re.findall(r"(?<!\\)\|", line)) for line in rows} == {7}  # 6 columns: no cell boundary from data
    if structure is not None:
        assert _md_structure(text) == structure, "a name changed the Markdown's lines (a heading, quote, row or list)"
    _sidecar(path)


def shown_text(path: Path, fmt: str) -> str:
    """What a reader of the artifact sees, roughly: the PDF's text, the OOXML parts' XML, the text files."""
    if fmt == "pdf":
        return "\n".join(page.extract_text() for page in PdfReader(path).pages)
    if fmt in ("pptx", "xlsx", "docx"):
        with zipfile.ZipFile(path) as z:
            return "\n".join(z.read(p).decode("utf-8", "replace") for p in z.namelist() if p.endswith(".xml"))
    return path.read_text(encoding="utf-8")


CHECKS = {"pptx": check_pptx, "xlsx": check_xlsx, "pdf": check_pdf, "docx": check_ooxml, "csv": check_csv,
          "md": check_md}


def assert_clean(out: Exported, fmt: str) -> None:
    r = out.reports[CHECK_FORMAT[fmt]]
    assert r.status == "clean" and not r.hits, (
        f"{Path(r.path).name}: {r.status} {r.reason or ''} "
        + "; ".join(f"{h.rule_id} {h.location}: {h.message}" for h in r.hits))


def assert_goes_out_clean(out: Exported, fmt: str, name: str, structure: list[str] | None = None) -> None:
    assert_clean(out, fmt)
    if fmt == "md":
        check_md(out.path(fmt), name, structure)
    else:
        CHECKS[fmt](out.path(fmt), name)


# -- the fixed cases ----------------------------------------------------------------------------------

def _params():
    for case in HOSTILE:
        for place in PLACES:
            for fmt in FORMATS:
                yield pytest.param(case, place, fmt, id=f"{case}-{place}-{fmt}")


@pytest.mark.parametrize("case,place,fmt", list(_params()))
def test_a_hostile_name_goes_out_checked_clean_and_with_nothing_raw(exports, baselines, case, place, fmt):
    out = exports(case, place)
    if out is None:
        pytest.skip("the guard refuses this report (counted in test_the_guard_refuses_few_of_the_fixed_cases)")
    assert_goes_out_clean(out, fmt, HOSTILE[case], baselines[place])
    if DANGER.search(HOSTILE[case]):  # shown, and visibly (sanitize.visible's U+FFFD): not dropped unseen
        assert "\ufffd" in shown_text(out.path(fmt), fmt)


def test_the_guard_refuses_few_of_the_fixed_cases(exports):
    refused = [(case, place) for case in HOSTILE for place in PLACES if exports(case, place) is None]
    assert len(refused) < len(HOSTILE) * len(PLACES), "the guard refused every fixed case: nothing was tested"
    # none of these names reads like a figure, in a row or in a title: the guard has no reason to refuse one
    assert refused == []


# -- properties ---------------------------------------------------------------------------------------

_PIECES = list("ab1 9,.|[]()!<>-=+@#*_`~\\&%\t\r\n\x00\x07\x1b\x7f\x9b\u202a\u202e\u202c\u2066\u2069"
               "\u200b\u200d\ufeff\u2028\ud800") + ["http://attacker.example", "=HYPERLINK(", "<img ", "](", "<!--"]
NAMES = st.one_of(st.text(min_size=1, max_size=60),
                  st.lists(st.sampled_from(_PIECES), min_size=1, max_size=16).map("".join))


def _property(rows, name: str, place: str, formats: tuple[str, ...]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        out = export_and_check(rows, name, place, Path(folder), formats)
        if out is None:
            event("refused by the guard")  # a name or title that reads like a figure (counted in the statistics)
            return
        for fmt in formats:
            assert_goes_out_clean(out, fmt, name)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=NAMES)
def test_property_any_name_goes_out_clean_in_csv_and_markdown_with_titles(rows, name):
    _property(rows, name, "titles", ("csv", "md"))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=NAMES)
def test_property_any_name_goes_out_clean_in_xlsx_with_titles(rows, name):
    _property(rows, name, "titles", ("xlsx",))


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=NAMES)
def test_property_any_name_goes_out_clean_in_pptx_and_pdf_with_titles(rows, name):
    _property(rows, name, "titles", ("pptx", "pdf"))


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=NAMES)
def test_property_any_name_goes_out_clean_in_docx_with_titles(rows, name):
    _property(rows, name, "titles", ("docx",))
