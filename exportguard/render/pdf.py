"""PDF briefings (docs/pdf.md): planned, then painted.

``render_document`` plans the briefing (render/pdf_planner.py: the pager fills the pages, and the
pages become one frozen layout.document.Document), builds the manifest from that plan, and only
then paints it (``paint``): each page's blocks at their frames, each by its painter
(render/pdf_paint.py) from the block alone, every figure's text read from its BoundCell and every
line as the pager wrapped it; then the manifest is attached (pdf_manifest.py). Nothing is measured,
re-flowed or lettered while painting, so no note can drift away from its figure.
"""
from __future__ import annotations

import gc
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .. import __version__
from ..clock import Clock, resolve as resolve_clock
from ..layout.document import Document
from ..layout.pager import Page
from ..manifest import build as build_manifest
from ..report import ChartSection, Report, TableSection
from .pdf_layout import BODY
from .pdf_manifest import attach
from .pdf_paint import painter_of
from .pdf_planner import lean_where_denser, plan_briefing
from .pdf_text import SANS, Metrics, clean
from .reportlab_adapter import deflate_pages, document_of


def render(report: Report, path, **options) -> dict:
    """Write the briefing to ``path``; return the manifest attached to it. Options meant for other
    formats are ignored."""
    return render_document(report, path, **options).manifest


@dataclass(frozen=True)
class Rendered:
    manifest: dict  # attached to the PDF
    pages: list[Page]  # the pager's pages (pdf_tables.density reads them)
    document: Document  # the frozen plan that was painted


def render_planned(report: Report, path, page_size: str | None = None, orientation: str | None = None,
                   clock=None, **_options) -> tuple[dict, list[Page]]:
    """``render``, also returning the page plan that was drawn (for pdf_tables.density)."""
    done = render_document(report, path, page_size, orientation, clock)
    return done.manifest, done.pages


def render_document(report: Report, path, page_size: str | None = None, orientation: str | None = None,
                    clock=None, **_options) -> Rendered:
    """``render``, also returning the pager's pages and the frozen plan (layout.document.Document)
    that was painted. The page is A4, portrait unless a table needs a landscape page's width, unless
    ``page_size`` ("a4", "letter") or ``orientation`` ("portrait", "landscape") say otherwise (the
    CLI's --page-size and --orientation, a spec's outputs.page_size and orientation)."""
    clock = resolve_clock(clock)
    with _no_cyclic_gc():
        report = lean_where_denser(report, page_size or "a4", orientation)
        planned = plan_briefing(report, page_size or "a4", orientation)
        # the manifest from the plan, before anything is drawn
        manifest = build_manifest(report, list(planned.plan.placements()), "pdf", None, clock)
        paint(planned.plan, Path(path), manifest, clock, report)
        return Rendered(manifest, planned.pager.pages, planned.plan)


def paint(plan: Document, path: Path, manifest: dict, clock: Clock, report: Report) -> None:
    """Paint the plan straight onto the canvas, page by page, each block at its planned frame by its
    painter; then attach the manifest. ``report`` gives only the file's metadata (title, subject,
    keywords)."""
    from reportlab.pdfgen.canvas import Canvas

    title = clean(report.title, 300, one_line=True)
    keywords = ["MLPerf", "MLPerf Inference", "LLM", "throughput", "exportguard"]
    keywords += sorted({clean(s.table.cohort.label(), 200, one_line=True) for s in report.sections
                        if isinstance(s, (TableSection, ChartSection))})
    canv = Canvas(str(path), pagesize=(plan.width, plan.height), pageCompression=1, lang="en",
                  initialFontName=SANS, initialFontSize=9.5, initialLeading=BODY.leading,
                  invariant=1)  # no wall clock, no random ID: the same report gives the same bytes
    canv.setDateFormatter(lambda *_: clock.pdf_date())  # CreationDate and ModDate: the export's clock
    canv.setTitle(title)
    canv.setAuthor("exportguard")
    canv.setSubject(clean(f"MLPerf Inference LLM throughput briefing for {report.audience or 'a general audience'}: "
                          "every figure bound to its conditions, band and citation", 400, one_line=True))
    canv.setKeywords(keywords)
    canv.setCreator(f"exportguard {__version__}")
    canv.setDisplayDocTitle(True) if hasattr(canv, "setDisplayDocTitle") else None
    metrics = Metrics()  # only to right-align lines already decided
    for unit in plan.units:
        page_w, page_h = unit.width or plan.width, unit.height or plan.height
        canv.setPageSize((page_w, page_h))
        for block in unit.blocks:
            f = block.frame
            canv.saveState()
            canv.translate(f.left, page_h - f.bottom)
            painter_of(block)(canv, block, f.height, metrics)
            canv.restoreState()
        canv.showPage()
    attach(document_of(canv), manifest)
    canv.showOutline()
    deflate_pages(canv)
    canv.save()


@contextmanager
def _no_cyclic_gc():
    """Python's cyclic collector pauses the render again and again as a long table's rows and
    notes pile up (about a tenth of the time for 20,000 rows), and finds little: the render makes
    almost no reference cycles. It is off while the PDF is written and back on after."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
