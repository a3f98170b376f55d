"""Where an artifact carries its binding, in one place: the names and forms the renderers write and
the checker reads back. Renderers (exportguard/render) and the checker (exportguard/check) both
import this module and never each other, so a name cannot drift between writer and reader.

- manifest carriers: the sidecar suffix (CSV, Markdown), the Markdown pointer line, the workbook's
  manifest sheet, the deck's custom XML namespace and part names, the deck's custom property that
  repeats the manifest's digest (docs/pptx.md: it survives a LibreOffice re-save), the PDF's
  attachment name;
- CSV's figure and value columns;
- the location syntax of each format: the functions that write a location and the patterns that
  read one back (docs/manifest.md, ``location``).
"""
from __future__ import annotations

import re

# The environment variable holding the key that signs a manifest (HMAC) and that checks a signature.
SIGNING_KEY_ENV = "EXPORTGUARD_SIGNING_KEY"

# -- sidecars and text formats -------------------------------------------------------------------
SIDECAR = ".manifest.json"  # beside a CSV, and beside a Markdown file (which keeps only a pointer to it)
MD_OPEN, MD_CLOSE = "<!-- exportguard-manifest\n", "\nexportguard-manifest -->"  # older Markdown exports
# The closing line of exportguard's Markdown now: a comment (not shown when rendered) saying where the manifest is.
MD_POINTER = "<!-- exportguard manifest: beside this file, as <this file's name>.manifest.json -->"
# exportguard's CSV: the column of each figure's text, and the column of the number it shows (the
# checker pairs them, so an edited number is found like an edited text)
CSV_FIGURE_HEADER, CSV_VALUE_HEADER = "figure", "value"

# -- XLSX ------------------------------------------------------------------------------------------
XLSX_MANIFEST_SHEET = "exportguard_manifest"  # very hidden; the manifest's JSON in column A, in chunks

# -- PPTX ------------------------------------------------------------------------------------------
PPTX_MANIFEST_NS = "urn:exportguard:manifest"
PPTX_MANIFEST_TAG = f"{{{PPTX_MANIFEST_NS}}}manifest"
PPTX_CUSTOM_XML_ITEM = "/customXml/item{n}.xml"
PPTX_CUSTOM_XML_PROPS = "/customXml/itemProps{n}.xml"
# docProps/custom.xml: the manifest's digest, which LibreOffice keeps on a re-save (it drops the
# custom XML part); with the manifest beside the deck (SIDECAR) an edit after a round trip is found.
PPTX_DIGEST_PROPERTY = "exportguard-manifest-sha256"
PPTX_SCHEMA_PROPERTY = "exportguard-manifest-schema"

# -- DOCX ------------------------------------------------------------------------------------------
# A Word file carries its manifest as a deck does: a custom XML part in the deck's namespace, related
# from the main document part, and its digest in docProps/custom.xml under the deck's property names.
DOCX_MANIFEST_NS, DOCX_DIGEST_PROPERTY, DOCX_SCHEMA_PROPERTY = PPTX_MANIFEST_NS, PPTX_DIGEST_PROPERTY, PPTX_SCHEMA_PROPERTY
# A figure's footnote reference is a custom mark (w:customMarkFollows): the mark text "[a]" follows it
# in the run after, and the footnote's own paragraphs open with the same "[a]" (wording.note_line), so
# the figure reads "101,527 tok/s ±5.4% [a]" pasted as plain text, as in every other format. A
# footnote made by Word's numbering ("1") is read as the mark DOCX_FOOTNOTE_MARK + its letters.
DOCX_FOOTNOTE_MARK = "fn"  # a numbered footnote n read as the mark [fn<mark_name(n - 1)>]: [fna], [fnb], ...

# -- PDF -------------------------------------------------------------------------------------------
PDF_MANIFEST_NAME = "exportguard-manifest.json"
PDF_MAX_MANIFEST_BYTES = 1 << 30  # what a reader will inflate at most


# -- location syntax -----------------------------------------------------------------------------
# Each format's figure locations, as renderers write them; the checker reads a location's scope
# (the slide, page or sheet whose notes must stand beside it) with the patterns below.

def pptx_table_cell(slide: int, table: int, row: int, column: int) -> str:
    return f"slide {slide}, table {table}, row {row}, column {column}"


def pptx_chart_point(slide: int, chart: int, point: int) -> str:
    return f"slide {slide}, chart {chart}, point {point}"


def pptx_headline(slide: int) -> str:
    return f"slide {slide}, headline"


def pdf_table_cell(page: int, table: int, row: int, column: int) -> str:
    return f"page {page}, table {table}, row {row}, column {column}"


def pdf_chart_bar(page: int, chart: int, bar: int) -> str:
    return f"page {page}, chart {chart}, bar {bar}"


def pdf_headline(page: int, number: int) -> str:
    return f"page {page}, headline {number}"


def docx_table_cell(table: int, row: int, column: int) -> str:
    """A Word file's body table (counted from 1 in body order, nested tables not counted), its row and
    column (from 1, the header row included; a merged cell at its first column)."""
    return f"table {table}, row {row}, column {column}"


def docx_paragraph(paragraph: int) -> str:
    """A paragraph of a Word file's body, counted from 1 over the body's own paragraphs (those in
    tables not counted): where a headline figure stands."""
    return f"paragraph {paragraph}"


def docx_chart_bar(chart: int, bar: int) -> str:
    """A bar of a chart picture (counted from 1 in body order), read from the picture's alt text."""
    return f"chart {chart}, bar {bar}"


def xlsx_cell(sheet: str, coordinate: str) -> str:
    """``'Sheet name'!B7``: the sheet quoted as a formula would quote it."""
    return "'" + sheet.replace("'", "''") + "'!" + coordinate


def csv_cell(row: int, column: int) -> str:
    return f"row {row}, column {column}"


def md_table_cell(section: int, row: int, column: int) -> str:
    return f"section {section}, table row {row}, column {column}"


def md_headline(section) -> str:
    return f"section {section}, headline"


PPTX_SCOPE = re.compile(r"(slide \d+)")  # a location's slide: its notes stand there
# the locations whose item the deck reader addresses exactly (the rest, a headline, is found by text)
PPTX_CELL = re.compile(r"slide \d+, (?:table \d+, row \d+, column \d+|chart \d+, (?:series \d+, )?point \d+)")
PPTX_CHART_POINT = re.compile(r"(slide \d+), chart (\d+), (?:series \d+, )?point \d+")
PDF_SCOPE = re.compile(r"(page \d+)")
# the Word locations the reader addresses exactly (a chart's bar is found by its text in the alt text)
DOCX_EXACT = re.compile(r"table \d+, row \d+, column \d+|paragraph \d+")


def xlsx_sheet_of(location: str) -> str:
    """The sheet name of ``'Sheet name'!B7`` (or ``Sheet!B7``)."""
    sheet = location[:location.rfind("!")]
    if sheet.startswith("'") and sheet.endswith("'"):
        sheet = sheet[1:-1].replace("''", "'")
    return sheet


# Custom number formats a workbook may define and still open in every application: Excel loads at most
# about 200 to 250 (Office's implementation notes say 206), LibreOffice keeps the first 9,856 and drops
# the rest silently. exportguard's workbooks stay within it (render/xlsx_formats.py); the checker reports
# any workbook over it (rule EG024).
CUSTOM_FORMAT_BUDGET = 200
