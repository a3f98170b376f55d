"""No source text becomes a formula, markup, a control sequence or a figure in any output: hostile
names through every writer (Markdown, CSV, XLSX, the terminal), as fixed cases and as properties."""
from __future__ import annotations

import csv
import dataclasses
import re
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openpyxl import load_workbook

from exportguard.caveat import FULL, SHORT, TRADEMARK_LEGEND
from exportguard.check.manifests import MD_POINTER
from exportguard.cli import main
from exportguard.guard import GuardError, bind_table
from exportguard.ingest import ingest_path
from exportguard.render import export
from exportguard.report import Report, TableSection
from exportguard.store import open_store
from tests.conftest import TREE_V51

pytestmark = pytest.mark.real_data

HOSTILE = [
    "line\rbreak", "line\nbreak", "tab\there", "nul\x00byte", "bell\x07", "esc\x1b[2J\x1b[31mred",
    "\u202eevil\u202c", "zero\u200bwidth", "\u2066isolate\u2069", "![x](http://attacker.example/p.png)",
    "[click](http://attacker.example)", "<img src=x onerror=alert(1)>", "<!-- hide everything", "-->",
    "| a | b |", "**bold** _it_ `code`", "# heading", "> quote", "=HYPERLINK(\"http://x\",\"y\")", "+1+1",
    "-2+3", "@SUM(A1:A2)", "%0A", "x" * 40_000, "\ufeffbom", "\ud800lone",
]
# Anything a reader's screen, a Markdown viewer or a spreadsheet would act on:
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")


@pytest.fixture(scope="module")
def rows():
    with tempfile.TemporaryDirectory() as folder, open_store(f"sqlite:///{folder}/s.db") as s:
        ingest_path(s, TREE_V51)
        return s.results(benchmark="llama2-70b-99", scenario="Offline")[:3]


def _named(r, name):
    i = dataclasses.replace(r.conditions.identity, submitter=name, system_name=name)
    c = dataclasses.replace(r.conditions.configuration, framework=name)
    return r.with_conditions(identity=i, configuration=c)


def _report(rows, name) -> Report:
    results = [_named(rows[0], name), *rows[1:]]
    from exportguard.model import cohort_slack

    table = bind_table(results, title="Hostile", slack=cohort_slack(rows),
                       columns=("rank", "submitter", "system", "accelerators", "software", "throughput"))
    return Report("Hostile names", "test", (TableSection("Hostile", table),), SHORT, FULL, TRADEMARK_LEGEND)


# What exportguard's own Markdown makes: anything else in the rendered HTML came from data.
OUR_TAGS = {"h1", "h2", "p", "blockquote", "table", "thead", "tbody", "tr", "th", "td", "ul", "li", "em", "strong", "sub"}


def _check_markdown(text: str, name: str | None = None) -> None:
    import cmarkgfm
    from cmarkgfm.cmark import Options

    assert text.endswith(MD_POINTER + "\n")
    body = text[: text.rfind(MD_POINTER)]
    html = cmarkgfm.github_flavored_markdown_to_html(body, options=Options.CMARK_OPT_UNSAFE)
    assert set(re.findall(r"<([a-z0-9]+)", html)) <= OUR_TAGS, set(re.findall(r"<([a-z0-9]+)", html)) - OUR_TAGS
    if name is not None and "\\" not in name:
        assert "\\" not in html  # every escape was one CommonMark resolves: no stray backslash shows
    assert not CONTROL.search(body)
    assert "<" not in body.replace("<sub>", "").replace("</sub>", "")
    assert not re.search(r"(?<!\\)!(?<!\\)\[", body) and not re.search(r"(?<!\\)\]\(", body)
    table = [line for line in body.splitlines() if line.startswith("| ")]
    widths = {len(re.findall(r"(?<!\\)\|", line)) for line in table}
    assert widths == {7}, widths  # 6 columns: no cell boundary came from data
    assert not [line for line in body.splitlines() if line.startswith(("# ", "> ")) and "Hostile" not in line
                and "MLPerf" not in line and not line.startswith("> **Note:** ")]


def _check_csv(path: Path) -> None:
    for row in csv.DictReader(path.open(encoding="utf-8-sig", newline="")):
        for value in row.values():
            assert not value.startswith(("=", "+", "-", "@", "\t", "\r", "|", "%")), value[:40]
            assert not CONTROL.search(value)


def _check_xlsx(path: Path) -> None:
    wb = load_workbook(path)
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                assert c.data_type != "f"
                if isinstance(c.value, str):
                    assert not CONTROL.search(c.value.replace("\n", "")), (ws.title, c.coordinate)
                    assert len(c.value) <= 32_767


@pytest.mark.parametrize("name", HOSTILE, ids=[repr(h[:20]) for h in HOSTILE])
def test_a_hostile_name_goes_out_as_plain_visible_text_everywhere(rows, tmp_path, name):
    paths = export(_report(rows, name), [tmp_path / "h.md", tmp_path / "h.csv", tmp_path / "h.xlsx"])
    _check_markdown((tmp_path / "h.md").read_text(encoding="utf-8"), name)
    _check_csv(tmp_path / "h.csv")
    _check_xlsx(tmp_path / "h.xlsx")


def test_a_name_of_forty_thousand_characters_is_shortened_visibly_and_the_citation_survives(rows, tmp_path):
    report = _report(rows, "x" * 40_000)
    row = next(row for row in report.sections[0].table.rows if row[1].startswith("xxx"))
    fig = row[-1]
    # the row's cell shows the name, shortened visibly; the note shown beside it leaves the name to the cell
    assert row[1].endswith("… [39,740 more characters cut]") and "xxx" not in fig.note.text
    # the citation survives: the row's whole footnote ends with its source, the table note gives its repository
    assert "… [39,740 more characters cut]" in fig.note.detail
    assert re.search(r"Source \S+, retrieved \d{4}-\d{2}-\d{2}\.$", fig.note.detail)
    assert re.match(r"Sources retrieved \d{4}-\d{2}-\d{2} from \S+", report.sections[0].table.table_note.text)
    paths = export(report, [tmp_path / "long.xlsx"])
    comments = [c.comment.text for ws in load_workbook(paths[0]).worksheets for row in ws.iter_rows() for c in row
                if c.comment]
    assert comments and all(re.search(r"retrieved \d{4}-\d{2}-\d{2}\b", t) for t in comments)


def test_a_name_cut_again_counts_what_was_cut_from_the_source():
    """A name cut for the report (sanitize.source_text) and again for a narrow cell, a note or a slide
    says how much of the stored name is gone, not only what the last cut took; no cut leaves half a marker."""
    from exportguard.sanitize import shorten, source_text

    name = "llama-" + "very-long-name-" * 3000
    once = source_text(name)
    for limit in (240, 160, 80, 41, 0):
        twice = shorten(once, limit)
        kept, marker = twice.split("… [")
        assert name.startswith(kept) and marker == f"{len(name) - len(kept):,} more characters cut]", (limit, twice)
    within = shorten(f"sys {once} (NVIDIA H100 x8)", 200)  # the marker inside a longer text, cut away with it
    assert within.count("more characters cut]") == 1
    whole = f"sys {name} (NVIDIA H100 x8)"
    assert within.endswith(f"[{len(whole) - len(within.split('… [')[0]):,} more characters cut]")


def test_a_name_that_reads_like_a_figure_is_refused_by_the_guard(rows):
    with pytest.raises(GuardError) as e:
        export(_report(rows, "999,999 tok/s ±0.1% [a]"), ["/nonexistent/never-written.md"])
    assert {f.rule_id for f in e.value.findings} == {"EG001"}


def test_the_terminal_never_receives_a_control_sequence_from_data(tmp_path):
    url = f"sqlite:///{tmp_path / 's.db'}"
    header = (Path(__file__).resolve().parents[1] / "templates" / "results.csv").read_text().splitlines()[0].split(",")
    row = dict(mlperf="no", submitter="esc\x1b[2J\x1b[31mred\u202eevil", system_name="box\x1b[1Afake\x7f",
               model="llama2-70b", value="20000", unit="tokens/s", accelerator="GPU\x07",
               accelerators_per_node="8", nodes="1", framework="vLLM", source_url="file:///lab", dataset="chat",
               tool="vllm bench serve\x1b[0m", load="closed loop", concurrency="8", mean_input_tokens="550",
               mean_output_tokens="250")
    path = tmp_path / "own.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerow([row.get(c, "") for c in header])
    runner = CliRunner()
    assert runner.invoke(main, ["--db", url, "ingest", str(path)]).exit_code == 0
    out = runner.invoke(main, ["--db", url, "list"]).output + runner.invoke(main, ["--db", url, "quarantine"]).output
    assert "20,000 tok/s" in out
    assert not CONTROL.search(out.replace("\n", ""))


NAMES = st.text(alphabet=st.sampled_from(list("ab1 |[]()!<>-=+@#*_`~\\&%\r\n\t\x00\x1b\u202e\u200b\ufeff.,/")),
                min_size=1, max_size=40)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=NAMES)
def test_property_no_name_becomes_markup_formula_or_control_in_markdown_and_csv(rows, name):
    with tempfile.TemporaryDirectory() as folder:
        try:
            export(_report(rows, name), [Path(folder) / "p.md", Path(folder) / "p.csv"])
        except GuardError as e:  # only a name that reads like a figure may be refused, and only so
            assert {f.rule_id for f in e.value.findings} == {"EG001"}
            return
        _check_markdown((Path(folder) / "p.md").read_text(encoding="utf-8"), name)
        _check_csv(Path(folder) / "p.csv")


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=NAMES)
def test_property_no_name_becomes_a_formula_or_control_in_xlsx(rows, name):
    with tempfile.TemporaryDirectory() as folder:
        try:
            (path,) = export(_report(rows, name), [Path(folder) / "p.xlsx"])
        except GuardError as e:
            assert {f.rule_id for f in e.value.findings} == {"EG001"}
            return
        _check_xlsx(path)


_MD_PIECES = list("aw1 9|[]()!<>-=+@#*_`~\\&;%.:/\r\n\t\x00\u202e\u200b\u2028\ufeff\u00a0\u3000") + [
    "www.", "https://", "ftp://", "WWW.", "&amp;", "12.", "3)", " ##", "---"]


@settings(max_examples=500, deadline=None)
@given(text=st.lists(st.sampled_from(_MD_PIECES), max_size=12).map("".join))
def test_markdown_escaping_leaves_only_text_that_needs_none_untouched(text):
    """md_text returns text as it is where its quick test finds nothing to do: exactly what every
    substitution would have returned."""
    from exportguard import escaping

    def full(value):
        everything = escaping._NEEDS_WORK
        escaping._NEEDS_WORK = re.compile("")
        try:
            return escaping.markdown_text.__wrapped__(value)
        finally:
            escaping._NEEDS_WORK = everything

    assert escaping.markdown_text.__wrapped__(text) == full(text)
