"""exportguard check on exportguard's own artifacts, from the real v5.1 data: every export checks
clean (XLSX numeric and --text-cells, CSV, Markdown, PowerPoint, PDF, from the example specs and a
split export of all v5.1 closed results), so does each workbook and deck after a LibreOffice round
trip, and edits after export are reported: the old and the new value, a stripped number format,
band or mark, a removed note row, an added figure, a removed caveat, an edited or re-signed
manifest."""
from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from exportguard.check.engine import check, exit_code
from exportguard.check.manifests import read_manifest
from exportguard.render import export
from exportguard.spec import build_report, load_spec, spec_from_filters
from tests.office import convert

pytestmark = pytest.mark.real_data
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SPECS = ("vendor-comparison", "executive-deck", "briefing")
FORMATS = ("xlsx", "csv", "md", "pptx", "pdf", "docx")


@pytest.fixture(scope="module")
def artifacts(v51_store, tmp_path_factory):
    """Every kind of artifact exportguard exports today, from the example specs and a split export."""
    out = tmp_path_factory.mktemp("artifacts")
    reports = {name: build_report(v51_store, load_spec(EXAMPLES / f"{name}.toml")) for name in SPECS}
    reports["v51-closed"] = build_report(v51_store, spec_from_filters({"round": ("v5.1",), "division": ("closed",)},
                                                                      split_by_cohort=True))
    for name, report in reports.items():
        # vendor-comparison's twelve columns do not fit a slide: refused for .pptx (test_pptx_truthful)
        export(report, [out / f"{name}.{ext}" for ext in FORMATS if not (name == "vendor-comparison" and ext == "pptx")])
        export(report, [out / f"{name}-text-cells.xlsx"], text_cells=True)
    return out


def _by_name(reports):
    return {Path(r.path).name: r for r in reports}


def test_every_artifact_exportguard_exports_checks_clean(artifacts):
    reports = check([artifacts])  # each file in its worker, as the CLI does
    assert len(reports) == (len(FORMATS) + 1) * len(SPECS + ("v51-closed",)) - 1  # no vendor-comparison.pptx
    assert {r.format for r in reports} == {"xlsx", "csv", "markdown", "pptx", "pdf", "docx"}
    for r in reports:
        assert r.status == "clean", (r.path, r.reason, [str(h) for h in r.hits[:5]])
        manifest = read_manifest(Path(r.path))
        assert r.manifest["digest_ok"] and r.manifest["figures"] == len(manifest["figures"]) > 0
        assert r.manifest["moved"] == 0 and r.manifest["edited"] == 0
        assert r.figures > 0
    assert exit_code(reports) == 0
    # the CSV's manifest sidecar is not itself a document to check
    assert not any(r.path.endswith(".manifest.json") for r in reports)


def _round_trip(paths: list[Path], outdir: Path, to: str = "xlsx") -> list[Path]:
    return convert(paths, outdir, to)


def test_workbooks_check_clean_after_a_libreoffice_round_trip(artifacts, tmp_path):
    sources = [artifacts / "vendor-comparison.xlsx", artifacts / "vendor-comparison-text-cells.xlsx",
               artifacts / "executive-deck.xlsx"]
    converted = _round_trip(sources, tmp_path)
    reports = check(converted)
    for r in reports:
        # LibreOffice rewrites the package (shared strings, its own styles, the manifest sheet 'hidden'
        # instead of 'veryHidden', '_x005F_' escapes): what a reader sees and the manifest survive
        assert r.status == "clean", (r.path, r.reason, [str(h) for h in r.hits[:5]])
        assert r.manifest["digest_ok"] and r.manifest["edited"] == 0


def test_word_files_check_clean_after_a_libreoffice_round_trip(artifacts, tmp_path):
    names = ["briefing.docx", "executive-deck.docx", "vendor-comparison.docx"]
    originals = {Path(r.path).name: r for r in check([artifacts / n for n in names])}
    converted = _round_trip([artifacts / n for n in names], tmp_path, "docx")
    for r in check(converted):
        # LibreOffice rewrites the package (its own styles, footnote IDs from 2, the custom XML part
        # and the custom properties kept): the footnotes, what a reader sees and the manifest survive
        original = originals[Path(r.path).name]
        assert r.status == "clean", (r.path, r.reason, [str(h) for h in r.hits[:5]])
        assert r.manifest["digest_ok"] and r.manifest["edited"] == 0 and r.manifest["moved"] == 0
        assert r.manifest["figures"] == original.manifest["figures"] > 0
    with zipfile.ZipFile(converted[0]) as z:
        assert "docProps/custom.xml" in z.namelist() and "word/footnotes.xml" in z.namelist()


def test_a_deck_after_a_libreoffice_round_trip(artifacts, tmp_path):
    (original,) = check([artifacts / "executive-deck.pptx"])
    (converted,) = _round_trip([artifacts / "executive-deck.pptx"], tmp_path, "pptx")
    (r,) = check([converted])
    # What LibreOffice does, precisely: it keeps the custom XML part that holds the manifest but
    # relates it from the package root (target "../customXml/item1.xml") instead of the presentation
    # part, keeps the custom properties (docProps/custom.xml, with the manifest's digest), and drops
    # the charts' embedded workbooks (their data labels stay). The checker finds the manifest there,
    # so the deck is still compared with what was exported, and what a reader sees still checks bound.
    assert original.manifest is not None and r.manifest is not None
    assert r.manifest["digest_ok"] and r.manifest["figures"] == original.manifest["figures"]
    assert r.status == "clean", [str(h) for h in r.hits[:5]]
    with zipfile.ZipFile(artifacts / "executive-deck.pptx") as z:
        embedded = [n for n in z.namelist() if n.startswith("ppt/embeddings/")]
    with zipfile.ZipFile(converted) as z:
        assert not any(n.startswith("ppt/embeddings/") and n.endswith(".xlsx") for n in z.namelist())
        assert "customXml/item1.xml" in z.namelist() and "docProps/custom.xml" in z.namelist()
        assert "customXml" not in z.read("ppt/_rels/presentation.xml.rels").decode()
    assert embedded and original.figures > r.figures  # the workbooks' figure cells went with them


def test_an_edit_after_a_libreoffice_round_trip_is_still_found(artifacts, tmp_path):
    (converted,) = _round_trip([artifacts / "executive-deck.pptx"], tmp_path, "pptx")
    entry, number, bumped = _bump_table_figure(converted)
    (r,) = check([converted])
    (hit,) = [h for h in r.hits if h.rule_id == "EG017"]
    assert hit.location == entry["location"] and hit.message.startswith(f"exported {number}, now {bumped}")


def test_an_edit_in_a_workbook_after_a_libreoffice_round_trip_is_still_found(artifacts, tmp_path):
    """LibreOffice keeps the workbook's manifest sheet (hidden instead of veryHidden): an edit made
    after the round trip is still told from the exported figure."""
    (converted,) = _round_trip([artifacts / "vendor-comparison.xlsx"], tmp_path)
    wb, ws, cell, entry = _figure_cell(converted)
    old = cell.value
    cell.value = 111527
    wb.save(converted)
    (r,) = check([converted])
    (hit,) = [h for h in r.hits if h.rule_id == "EG017"]
    assert hit.location == f"Sheet {entry['location']}" and (hit.exported, hit.now) == (f"{old:.10g}", "111527")


def test_a_deck_whose_manifest_part_was_removed_says_so(artifacts, tmp_path):
    """The digest in docProps/custom.xml (which LibreOffice keeps) tells that the deck carried a
    manifest: removing the custom XML part is reported, not taken for a deck made by someone else."""
    stripped = tmp_path / "stripped.pptx"
    with zipfile.ZipFile(artifacts / "executive-deck.pptx") as src, zipfile.ZipFile(stripped, "w") as dst:
        for info in src.infolist():
            blob = src.read(info)
            if info.filename == "ppt/_rels/presentation.xml.rels":
                blob = re.sub(rb'<Relationship [^>]*relationships/customXml"[^>]*/>', b"", blob)
            if not info.filename.startswith("customXml/"):
                dst.writestr(info, blob)
    (r,) = check([stripped])
    (hit,) = [h for h in r.hits if h.rule_id == "EG016"]
    assert "exportguard-manifest-sha256" in hit.message and "no manifest" in hit.message


# -- tampering -------------------------------------------------------------------------------------

def _copy(src: Path, dst: Path) -> Path:
    shutil.copy(src, dst)
    side = src.with_name(src.name + ".manifest.json")
    if side.exists():
        shutil.copy(side, dst.with_name(dst.name + ".manifest.json"))
    return dst


def _figure_cell(path: Path, n: int = 0):
    """(workbook, sheet, cell, manifest entry) of the n-th figure of the first table sheet."""
    from openpyxl import load_workbook

    entry = [e for e in read_manifest(path)["figures"] if "Offline'!" in e["location"]][n]
    sheet, coord = entry["location"].rsplit("!", 1)
    wb = load_workbook(path)
    ws = wb[sheet.strip("'")]
    return wb, ws, ws[coord], entry


def test_a_value_edited_in_a_workbook_is_reported_with_old_and_new_value(artifacts, tmp_path):
    path = _copy(artifacts / "vendor-comparison.xlsx", tmp_path / "edited.xlsx")
    wb, ws, cell, entry = _figure_cell(path)
    old = cell.value
    cell.value = 111527
    wb.save(path)
    (r,) = check([path])
    (hit,) = r.hits
    assert hit.rule_id == "EG017"
    assert str(hit) == (f"Sheet 'llama2-70b-99 Offline'!{cell.coordinate}: EG017 edited-figure (error): exported "
                        f"{old:.10g}, now 111527 (shown '111,527 {entry['unit']} ±5.4% [{entry['marks'][0]}]')")
    assert (hit.exported, hit.now) == (f"{old:.10g}", "111527")
    assert exit_code([r]) == 1


def test_a_stripped_number_format_and_a_removed_note_row_are_reported(artifacts, tmp_path):
    path = _copy(artifacts / "vendor-comparison.xlsx", tmp_path / "stripped.xlsx")
    wb, ws, cell, entry = _figure_cell(path)
    cell.number_format = "#,##0"
    mark = entry["marks"][0]
    # the note, and each copy a sheet printed in strips repeats in every strip's columns
    removed = [c for row in ws.iter_rows() for c in row if isinstance(c.value, str) and c.value.startswith(f"[{mark}] ")]
    assert removed
    for c in removed:
        c.value = None
    wb.save(path)
    (r,) = check([path])
    rules = {(h.rule_id, h.location) for h in r.hits}
    at = f"Sheet 'llama2-70b-99 Offline'!{cell.coordinate}"
    assert ("EG018", at) in rules and ("EG001", at) in rules  # the bare number is flagged as well
    strip = next(h for h in r.hits if h.rule_id == "EG018" and h.location == at)
    assert "the number format changed" in strip.message and "(unit 'tok/s', band and marks removed)" in strip.message
    note = next(h for h in r.hits if h.rule_id == "EG018" and h.location == "Sheet 'llama2-70b-99 Offline'")
    assert f"note [{mark}] of {at}" in note.message and "no longer stands on Sheet 'llama2-70b-99 Offline'" in note.message


def test_a_figure_added_after_export_and_a_removed_caveat_are_reported(artifacts, tmp_path):
    path = _copy(artifacts / "executive-deck.xlsx", tmp_path / "added.xlsx")
    wb, ws, cell, entry = _figure_cell(path)
    ws["A30"] = "Our own run: 250,000 tok/s ±5.4% [a]"
    for row in ws.iter_rows(max_row=5):
        for c in row:
            if isinstance(c.value, str) and c.value.startswith("MLPerf® figures hold only"):
                c.value = None
    wb.save(path)
    (r,) = check([path])
    assert [(h.rule_id, h.location) for h in r.hits] == [
        ("EG010", "Sheet 'llama2-70b-99 Offline'"), ("EG019", "Sheet 'llama2-70b-99 Offline'!A30")]
    assert "'250,000 tok/s ±5.4% [a]' is not in the artifact's manifest" in r.hits[1].message


def test_sorting_a_table_moves_figures_without_editing_them(artifacts, tmp_path):
    path = _copy(artifacts / "executive-deck.xlsx", tmp_path / "sorted.xlsx")
    wb, ws, cell, entry = _figure_cell(path)
    first, second = cell.row, cell.row + 1
    for col in range(1, ws.max_column + 1):  # swap two rows with their number formats
        a, b = ws.cell(first, col), ws.cell(second, col)
        a.value, b.value = b.value, a.value
        a.number_format, b.number_format = b.number_format, a.number_format
    wb.save(path)
    (r,) = check([path])
    assert r.hits == [] and r.manifest["moved"] >= 2


def test_csv_edits_and_stripped_bindings(artifacts, tmp_path):
    path = _copy(artifacts / "executive-deck.csv", tmp_path / "edited.csv")
    rows = list(csv.reader(open(path, newline="", encoding="utf-8")))
    col = rows[0].index("figure")
    old = rows[3][col]
    rows[3][col] = "111,527" + old[old.index(" "):]
    rows[4][col] = rows[4][col].split(" ±")[0]
    notes = rows[0].index("notes")
    removed = rows[5][notes].split("] ", 1)[1]
    rows[5][notes] = ""
    for row in rows[1:]:  # the note gone from the document: from every row that states it (the chart of the
        if len(row) > notes:  # same systems per accelerator does too, beside its derived note)
            row[notes] = row[notes].replace(removed, "")
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(rows)
    (r,) = check([path])
    got = {h.rule_id: h for h in r.hits if h.rule_id != "EG001"}
    assert got["EG017"].location == f"row 4, column {col + 1} ('figure'), line 4"
    assert got["EG017"].message.startswith(f"exported {old.split(' ')[0]}, now 111,527")
    stripped = [h for h in r.hits if h.rule_id == "EG018"]
    assert stripped[0].location.startswith("row 5, column") and "(band ±5.4%, mark [" in stripped[0].message
    assert "no longer stands in the document" in stripped[1].message
    assert any(h.rule_id == "EG001" and h.location.startswith("row 5,") for h in r.hits)


def test_csv_an_edited_value_column_is_an_edited_figure(artifacts, tmp_path):
    """The numeric value column is what people compute with: an edit there is found like an edit of the text."""
    path = _copy(artifacts / "executive-deck.csv", tmp_path / "value-edited.csv")
    rows = list(csv.reader(open(path, newline="", encoding="utf-8-sig")))
    col, value = rows[0].index("figure"), rows[0].index("value")
    exported = float(rows[3][value])
    rows[3][value] = repr(exported * 1.1)
    with open(path, "w", newline="", encoding="utf-8-sig") as f:
        csv.writer(f).writerows(rows)
    (r,) = check([path])
    (hit,) = r.hits
    assert hit.rule_id == "EG017" and hit.location == f"row 4, column {col + 1} ('figure'), line 4"
    assert "now" in hit.message and str(round(exported)) in hit.message


def test_markdown_keeps_its_manifest_beside_it_and_a_pointer_at_its_end(artifacts):
    from exportguard.check.manifests import MD_POINTER

    for name in SPECS:
        text = (artifacts / f"{name}.md").read_text("utf-8")
        assert text.endswith("\n" + MD_POINTER + "\n") and "exportguard-manifest" not in text
        side = artifacts / f"{name}.md.manifest.json"
        assert read_manifest(artifacts / f"{name}.md") == json.loads(side.read_text("utf-8"))
        assert len(text) < side.stat().st_size  # the reader's file is the smaller one


def test_markdown_edits_and_removed_notes(artifacts, tmp_path):
    path = _copy(artifacts / "executive-deck.md", tmp_path / "edited.md")
    lines = path.read_text("utf-8").split("\n")
    row = next(i for i, line in enumerate(lines) if line.startswith("| 2 |"))
    cells = lines[row].split(" | ")
    old = cells[-1].split(" ")[0]
    new = str(int(old[0]) + 1) + old[1:]  # 124,879 -> 224,879
    cells[-1] = new + cells[-1][len(old):]
    lines[row] = " | ".join(cells)
    note = next(i for i, line in enumerate(lines) if line.startswith("- [c] "))
    text = lines[note][len("- [c] "):]  # gone from the document: from every table that lists it (the chart of
    lines = [line for line in lines if not (line.startswith("- [") and line.endswith("] " + text))]  # the same
    # systems per accelerator letters its own notes)
    path.write_text("\n".join(lines), "utf-8")
    (r,) = check([path])
    edit, *note_hits = r.hits  # and the same note of the per-accelerator chart's row, lettered there
    assert edit.rule_id == "EG017" and edit.location == f"line {row + 1} (section 2, table row 2, column 6)"
    assert edit.message.startswith(f"exported {old}, now {new}")
    assert {h.rule_id for h in note_hits} == {"EG018"}
    assert any("note [c] of section 2, table row 3" in h.message for h in note_hits)


def test_an_edited_manifest_and_a_signature_from_another_key(v51_store, artifacts, tmp_path, monkeypatch):
    path = _copy(artifacts / "briefing.md", tmp_path / "manifest-edited.md")
    side = path.with_name(path.name + ".manifest.json")
    side.write_text(side.read_text("utf-8").replace('"format":"markdown"', '"format":"md"', 1), "utf-8")
    (r,) = check([path])
    assert [(h.rule_id, h.location) for h in r.hits] == [("EG016", "manifest")]
    assert "the manifest was edited" in r.hits[0].message

    monkeypatch.setenv("EXPORTGUARD_SIGNING_KEY", "team-key")
    report = build_report(v51_store, load_spec(EXAMPLES / "briefing.toml"))
    signed, _side = export(report, [tmp_path / "signed.md"])
    (ok,) = check([signed])
    assert ok.hits == [] and ok.manifest["signed"] and ok.manifest["signature_ok"]
    monkeypatch.setenv("EXPORTGUARD_SIGNING_KEY", "someone-elses-key")
    (bad,) = check([signed])
    assert [h.message for h in bad.hits] == ["manifest signature does not match the signing key"]
    (unsigned,) = check([artifacts / "briefing.md"])
    assert [h.rule_id for h in unsigned.hits] == ["EG016"]  # a key is set: an unsigned manifest is not trusted


def test_json_carries_exported_and_now(artifacts, tmp_path):
    path = _copy(artifacts / "executive-deck.xlsx", tmp_path / "edited.xlsx")
    wb, ws, cell, entry = _figure_cell(path)
    cell.value = 5
    wb.save(path)
    out = subprocess.run([sys.executable, "-m", "exportguard", "check", "--format", "json", str(path)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 1
    (f,) = json.loads(out.stdout)["files"]
    (finding,) = f["findings"]
    assert finding["rule"] == "EG017" and finding["now"] == "5" and finding["manifest_location"] == entry["location"]
    assert f["manifest"]["digest_ok"] is True and f["manifest"]["figures"] == len(read_manifest(path)["figures"]) > 8


def test_a_removed_figure_is_not_masked_by_the_same_text_elsewhere(artifacts, tmp_path):
    """The executive deck shows its top figure twice (the headline and table row 1): removing one is
    still a removal, however the other reads."""
    path = _copy(artifacts / "executive-deck.md", tmp_path / "removed.md")
    text = path.read_text("utf-8")
    headline = next(line for line in text.split("\n") if line.startswith("**"))
    top = headline[2:headline.index("**", 2)]
    lines = text.split("\n")
    row = next(i for i, line in enumerate(lines) if line.startswith("| 1 |") and line.endswith(f"| {top} |"))
    lines[row] = lines[row].replace(f"| {top} |", "| n/a |")
    path.write_text("\n".join(lines), "utf-8")
    (r,) = check([path])
    (hit,) = r.hits
    assert hit.rule_id == "EG017" and hit.location == f"line {row + 1} (section 2, table row 1, column 6)"
    assert hit.message == f"exported {top!r}, now 'n/a'"


def _bump_table_figure(path: Path):
    """Change the first digit of the first table figure the manifest lists (153,076 -> 253,076),
    as a person editing the cell in PowerPoint would; returns (entry, old number, new number)."""
    from pptx import Presentation

    entry = next(e for e in read_manifest(path)["figures"] if ", table " in e["location"])
    slide_no, table_no, row, col = (int(x.split()[-1]) for x in entry["location"].split(", "))
    prs = Presentation(path)
    tables = [s for s in prs.slides[slide_no - 1].shapes if s.has_table]
    cell = tables[table_no - 1].table.cell(row - 1, col - 1)
    old = cell.text
    number = old.split(" ")[0]
    bumped = str(int(number[0]) + 1) + number[1:]
    runs = cell.text_frame.paragraphs[0].runs
    runs[0].text = bumped + old[len(number):]
    for run in runs[1:]:
        run.text = ""
    prs.save(path)
    return entry, number, bumped


def test_a_value_edited_in_an_exported_deck(artifacts, tmp_path):
    path = tmp_path / "edited.pptx"
    shutil.copy(artifacts / "executive-deck.pptx", path)
    entry, number, bumped = _bump_table_figure(path)
    (r,) = check([path])
    (hit,) = [h for h in r.hits if h.rule_id == "EG017"]
    assert hit.location == entry["location"]
    assert hit.message.startswith(f"exported {number}, now {bumped}")