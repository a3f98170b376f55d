"""The formats exportguard writes and reads: one record each, and the one place a format is named.

render/ asks a record which module paints its files, whether the manifest travels inside the file or
beside it, which section kinds and export options the format takes; check/ asks it which suffixes it
reads, how its reader opens a file, where the manifest lies and how a manifest location reads.
Adding a format is one record here, a painter under render/ and a reader under check/
(docs/architecture.md, "Adding a format").

Nothing is imported here: a record names its modules (``module:function``, relative to the
exportguard package) and ``load`` imports one only when a file of that format is written or read,
so `exportguard --help` and a check of CSV files import no office library.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path

SECTION_KINDS = ("table", "chart", "kpi", "text", "beside")  # what a report holds (spec.py's kinds)

# How a manifest location reads (check/tamper.py words and scopes each):
CELL = "cell"  # Sheet1!D7: every figure addressable by its cell
DOCUMENT_LINE = "document"  # a text file's line and column; the whole file is one scope
SHAPE = "shape"  # slide 3, table 2, row 4, column 3: a table cell exactly, a chart's label by its text
PAGE = "page"  # page 2: found by its text on the page (a PDF addresses no table cell)
FLOW = "flow"  # table 2, row 4, column 3 / paragraph 12 of a Word file's body: one scope (Word pages it when opened)


@dataclass(frozen=True)
class Format:
    name: str  # as a manifest and a check report name it: "xlsx", "markdown"
    suffix: str  # what an export writes
    painter: str  # the module whose render(report, path, **options) writes a file and returns its manifest
    reader: str  # the checker's reader: (SafeZip, sink) for a package, else (path, sink, limits)
    manifest: str  # check/manifests.py's reader of the manifest a file of this format carries
    locations: str  # how a manifest location reads (CELL, DOCUMENT_LINE, SHAPE, PAGE)
    also_reads: tuple[str, ...] = ()  # further suffixes the checker reads as this format
    embeds_manifest: bool = True  # False: the manifest is a file beside it (embedding.SIDECAR)
    package: bool = False  # an Office package: the reader gets the file opened through check/safety.SafeZip
    lines: bool = False  # a finding's line is a line of the file (not of a page's extracted text)
    options: tuple[str, ...] = ()  # the export options it takes (api.export refuses any other)
    section_kinds: tuple[str, ...] = SECTION_KINDS
    preload: tuple[str, ...] = ()  # modules the checker imports once before forking its workers
    prepare: str | None = None  # called with the checker's limits in the worker before the file is opened
    templates: tuple[str, ...] = ()  # the suffixes of the templates it takes (the export option "template")

    @property
    def suffixes(self) -> tuple[str, ...]:
        return (self.suffix, *self.also_reads)

    def load_painter(self):
        return _module(self.painter)

    def load_reader(self):
        return load(self.reader)

    def load_manifest_reader(self):
        return load(self.manifest)

    def load_prepare(self):
        return load(self.prepare)


FORMATS: tuple[Format, ...] = (
    Format("xlsx", ".xlsx", ".render.xlsx", ".check.xlsx_reader:read", ".check.manifests:xlsx_manifest", CELL,
           also_reads=(".xlsm",), package=True, options=("text_cells", "page_size", "orientation")),
    Format("pptx", ".pptx", ".render.pptx", ".check.pptx_reader:read", ".check.manifests:pptx_manifest", SHAPE,
           package=True, options=("template",),
           templates=(".pptx", ".potx")),
    Format("pdf", ".pdf", ".render.pdf", ".check.pdf_reader:read", ".check.manifests:pdf_manifest", PAGE,
           options=("page_size", "orientation"), preload=("pypdf",), prepare=".check.safety:configure_pypdf"),
    Format("docx", ".docx", ".render.docx", ".check.docx_reader:read", ".check.manifests:docx_manifest", FLOW,
           also_reads=(".docm",), package=True, options=("page_size", "orientation", "template"),
           templates=(".docx", ".dotx")),
    Format("csv", ".csv", ".render.csv_out", ".check.text_reader:read_csv", ".check.manifests:csv_manifest",
           DOCUMENT_LINE, embeds_manifest=False, lines=True),
    Format("markdown", ".md", ".render.markdown", ".check.text_reader:read_markdown",
           ".check.manifests:markdown_manifest", DOCUMENT_LINE, also_reads=(".markdown",),
           embeds_manifest=False, lines=True),
)
BY_NAME = {f.name: f for f in FORMATS}
BY_SUFFIX = {suffix: f for f in FORMATS for suffix in f.suffixes}
WRITTEN = {f.suffix: f for f in FORMATS}  # the suffixes an export writes


def of_path(path: str | Path) -> Format | None:
    """The format the checker reads ``path`` as, by its suffix; None for one it does not read."""
    return BY_SUFFIX.get(Path(path).suffix.lower())


def written_as(path: str | Path) -> Format | None:
    """The format an export writes to ``path``; None for a suffix no export writes."""
    return WRITTEN.get(Path(path).suffix.lower())


def template_for(fmt: Format, template: str | Path | None) -> str | Path | None:
    """The template a target of ``fmt`` takes from an export's one template option: one whose suffix is
    the format's (a .docx template is a Word file's, never a deck's); a suffix no format names goes to
    every format that takes a template, whose painter then says what it is not."""
    if template is None or "template" not in fmt.options:
        return None
    suffix = Path(template).suffix.lower()
    if suffix in fmt.templates or not any(suffix in f.templates for f in FORMATS):
        return template
    return None


def load(ref: str):
    """``.check.xlsx_reader:read`` -> that function, its module imported now."""
    module, _, name = ref.partition(":")
    return getattr(_module(module), name)


def _module(ref: str):
    return importlib.import_module(ref, __package__)
