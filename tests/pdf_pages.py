"""A PDF read back page by page, as the PDF tests read it: pdftotext's -layout and -raw readings of each
page (poppler-utils), ``qpdf --check``, the manifest's figures by page, and the two promises read off the
pages: every figure bound on its page with exactly its page's notes (assert_bound_page_by_page), every rank
statement true for every pair it covers (read_back_every_rank). FULL_SPEC is a report of every kind of
section.
"""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from exportguard.check.manifests import read_manifest
from exportguard.guard import is_tie
from exportguard.report import BesideSection
from exportguard.wording import NO_SLACK, NOT_RANKED_SENTENCE, TIE_RULE
from tests.office import pdf_text, tool

# where a PDF manifest says a figure is: its page, and its table cell, chart bar or headline
LOCATION = re.compile(r"^page (\d+), (table (\d+), row (\d+), column (\d+)|chart (\d+), bar (\d+)|headline (\d+))$")
# a rank cell as the PDF shows it, first on its row's line: "3", "3 (tie 2-11)", "not ranked"
RANK = re.compile(r"^\s*(?:(\d+)(?: \(tie (\d+)-(\d+)\))?|(not ranked))\s")

FULL_SPEC = '''
title = "Every kind of section"
audience = "tests"
[filters]
round = "v5.1"
division = "closed"
[[section]]
kind = "kpi"
title = "Highest llama2-70b-99 Offline throughput"
filters = { model = "llama2-70b", track = "99", scenario = "Offline" }
[[section]]
kind = "text"
title = "How to read this"
text = """Each figure carries its unit, band and note mark.

A <b>markup</b> attempt & an <img src="x.png"/> stay text."""
[[section]]
kind = "chart"
title = "llama2-70b-99 Server"
filters = { model = "llama2-70b", track = "99", scenario = "Server" }
limit = 12
[[section]]
kind = "table"
title = "llama2-70b-99 Offline, per accelerator"
filters = { model = "llama2-70b", track = "99", scenario = "Offline" }
derived = ["per_accelerator"]
limit = 12
'''


def pages_text(pdf: Path) -> list[str]:
    """pdftotext -layout, one string per page."""
    pages = pdf_text(pdf).split("\f")
    return pages[:-1] if pages and not pages[-1].strip() else pages


def pages_raw(pdf: Path) -> list[str]:
    """pdftotext -raw, one string per page: the text in drawing order, so that each note of a notes
    area in columns reads whole (the -layout reading puts the columns' lines side by side)."""
    done = subprocess.run([tool("pdftotext"), "-raw", str(pdf), "-"], capture_output=True, text=True, check=True,
                          timeout=120)
    pages = done.stdout.split("\f")
    return pages[:-1] if pages and not pages[-1].strip() else pages


def squash(text: str) -> str:
    """Text without any white space: a note broken over lines (even inside a word) still matches."""
    return re.sub(r"\s+", "", text)


def qpdf_check(pdf: Path) -> None:
    done = subprocess.run([tool("qpdf"), "--check", str(pdf)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "No syntax or stream encoding errors found" in done.stdout


def entries_by_page(manifest: dict) -> dict[int, list[dict]]:
    pages: dict[int, list[dict]] = {}
    for entry in manifest["figures"]:
        m = LOCATION.match(entry["location"])
        assert m, entry["location"]
        pages.setdefault(int(m.group(1)), []).append(entry)
    return pages


# a note in the second of the notes' columns can share its line with one in the first: '...ms. [b] Derived'
NOTE_IN_LINE = re.compile(r"(?:^\s*|(?<=\.) {1,3})\[([a-z]+)\]\s")


def note_marks(page: str) -> list[str]:
    return [m.group(1) for line in page.splitlines() for m in NOTE_IN_LINE.finditer(line)]


def assert_bound_page_by_page(pdf: Path, manifest: dict) -> list[str]:
    """The core promise: every figure's text (value, unit, band, mark) on one line of its page, and
    that page's notes area holds exactly the notes of the figures on it, lettered from [a]."""
    from exportguard.render.pdf_text import clean

    pages, raw = pages_text(pdf), pages_raw(pdf)
    for number, entries in entries_by_page(manifest).items():
        page = pages[number - 1]
        lines = page.splitlines()
        flat = squash(raw[number - 1])
        wanted: dict[str, str] = {}
        for entry in entries:
            shown = entry["shown"]["text"]
            assert shown == entry["text"]
            assert re.fullmatch(r"[\d,.]+ \S.*(±\d+(\.\d+)?%|\(slack not estimable(?:: .*)?\)|\(.*: no band\)).*(\[[a-z]+\])+.*", shown), shown
            # a cohort without an estimable slack: the figure says so, its table note (entry's band_text) why
            assert entry["unit"] in shown and (entry["band_text"] in shown or entry["band"] is None and NO_SLACK in shown)
            assert any(shown in line for line in lines), f"page {number}: {shown!r} is not on one line"
            for mark, note in zip(entry["marks"], entry["notes"]):
                assert f"[{mark}]" in shown
                assert squash(f"[{mark}]{clean(note, 2000)}") in flat, f"page {number}: note [{mark}] of {shown!r} missing"
                assert wanted.setdefault(mark, note) == note, f"page {number}: mark [{mark}] means two notes"
        marks = note_marks(raw[number - 1])
        assert sorted(marks) == sorted(wanted), f"page {number}: notes {marks} for figures marked {sorted(wanted)}"
        assert marks == [mark_name(i) for i in range(len(marks))], f"page {number}: lettered {marks}"
    return pages


def mark_name(i: int) -> str:
    from exportguard.wording import mark_name as name

    return name(i)


def _ranked_among(store, cohort, extra: dict):
    """The figures the guard ranked a table's rows among: the whole stored cohort within the spec's
    other filters (``extra``), highest first."""
    k = cohort
    results = store.results(round=k.round, division=k.division, model=k.model, accuracy_track=k.accuracy_track,
                            scenario=k.scenario, **extra)
    return sorted((r.value for r in results if r.cohort_key == k), reverse=True)


def read_back_every_rank(store, report, path, extra: dict) -> int:
    """Read every rank statement off the PDF's pages (the first words of the line that shows a
    figure of the column ranked by) and check it against is_tie for every pair it covers: the
    figure and each other figure it was ranked among. Returns the pairs checked."""
    pages, raw = pages_text(path), pages_raw(path)
    manifest = read_manifest(path)
    slack = {}
    for s in report.sections:
        for t in (s.tables() if isinstance(s, BesideSection) else (s.table,) if hasattr(s, "table") else ()):
            slack[t.cohort.label()] = (t.cohort, t.slack)
    pairs = statements = 0
    for entry in manifest["figures"]:
        if entry["derived"] or "headline" in entry["location"]:
            continue
        p = int(LOCATION.match(entry["location"]).group(1))
        page = pages[p - 1]
        lines = [x for x in page.splitlines() if entry["shown"]["text"] in x]
        assert lines, f"{entry['location']}: {entry['shown']['text']!r} not on one line"
        m = RANK.match(lines[0])
        if m is None:
            continue  # a table or chart without ranks
        statements += 1
        flat = squash(raw[p - 1])  # in drawing order: a shared conditions block reads whole beside another panel
        if m.group(4):
            assert squash(NOT_RANKED_SENTENCE) in flat, f"page {p}: 'not ranked' without its sentence"
            continue
        assert squash(TIE_RULE) in flat, f"page {p}: a rank without the tie rule"
        position = int(m.group(1))
        lo, hi = (int(m.group(2)), int(m.group(3))) if m.group(2) else (position, position)
        assert lo <= position <= hi
        cohort, table_slack = slack[entry["cohort"]]
        values = _ranked_among(store, cohort, extra)
        assert values[position - 1] == pytest.approx(entry["value"]), (p, position, entry["value"])
        for k, other in enumerate(values, 1):
            if k != position:
                pairs += 1
                assert is_tie(entry["value"], other, table_slack) == (lo <= k <= hi), \
                    f"page {p}: rank {m.group(0).strip()!r} of {entry['value']} against rank {k} ({other})"
    assert statements, "no rank statement read back"
    return pairs
