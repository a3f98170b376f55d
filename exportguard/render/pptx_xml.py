"""The XML python-pptx has no API for (docs/pptx.md): table cells written directly, chart error
bars, data label offsets and per-point number formats, the plot area's manual layout, alt text,
the embedded chart workbook with bound number formats, and the manifest as a custom XML part
(written here; the checker reads it back, through its safety layer: check/manifests.py).
"""
from __future__ import annotations

import functools
import io
from dataclasses import dataclass
from typing import Iterable, Sequence

from lxml import etree

from ..embedding import PPTX_CUSTOM_XML_ITEM, PPTX_CUSTOM_XML_PROPS, PPTX_MANIFEST_NS as MANIFEST_NS, \
    PPTX_MANIFEST_TAG as MANIFEST_TAG
from ..errors import ExportguardError
from .ooxml import (CT_CUSTOM_XML_PROPS, RT_CUSTOM_XML, RT_CUSTOM_XML_PROPS, custom_properties, datastore_item,
                    manifest_xml, safe_parse)

A = "http://schemas.openxmlformats.org/drawingml/2006/main"
C = "http://schemas.openxmlformats.org/drawingml/2006/chart"
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


def _a(tag: str) -> str:
    return f"{{{A}}}{tag}"


def _c(tag: str) -> str:
    return f"{{{C}}}{tag}"


# -- table cells --------------------------------------------------------------------------------------

def scheme_fill(parent, scheme: str, lum_mod: int | None = None, lum_off: int | None = None):
    """``<a:solidFill><a:schemeClr val=scheme>[lumMod][lumOff]</a:schemeClr></a:solidFill>``."""
    fill = etree.SubElement(parent, _a("solidFill"))
    clr = etree.SubElement(fill, _a("schemeClr"), val=scheme)
    if lum_mod is not None:
        etree.SubElement(clr, _a("lumMod"), val=str(lum_mod))
    if lum_off is not None:
        etree.SubElement(clr, _a("lumOff"), val=str(lum_off))
    return fill


@dataclass(frozen=True)
class CellStyle:
    """How a table cell's one paragraph is set. ``fill`` is (scheme colour, lumMod, lumOff) or
    ("none",); ``color`` a scheme colour for the text; ``line`` the exact line spacing in points
    (the line height the layout assumed); ``pad_y`` the top and bottom insets in points."""

    size: float
    line: float
    bold: bool = False
    italic: bool = False
    align: str | None = None
    color: str | None = None
    fill: tuple | None = None
    anchor: str | None = None
    pad_y: float | None = None


@functools.lru_cache(maxsize=256)
def _cell_parts(style: CellStyle) -> tuple[str, str, str]:
    """(paragraph properties, run properties, cell properties) as XML text."""
    algn = f' algn="{style.align}"' if style.align else ""
    ppr = f'<a:pPr{algn}><a:lnSpc><a:spcPts val="{int(round(style.line * 100))}"/></a:lnSpc></a:pPr>'
    colour = f'<a:solidFill><a:schemeClr val="{style.color}"/></a:solidFill>' if style.color else ""
    flags = (' b="1"' if style.bold else "") + (' i="1"' if style.italic else "")
    rpr = f'<a:rPr lang="en-US" sz="{int(round(style.size * 100))}"{flags} dirty="0">{colour}</a:rPr>'
    attrs = ""
    if style.pad_y is not None:
        pad = int(round(style.pad_y * 12700))
        attrs += f' marT="{pad}" marB="{pad}"'
    if style.anchor:
        attrs += f' anchor="{style.anchor}"'
    fill = ""
    if style.fill:
        if style.fill[0] == "none":
            fill = "<a:noFill/>"
        else:
            mods = "".join(f'<a:{tag} val="{v}"/>' for tag, v in zip(("lumMod", "lumOff"), style.fill[1:]))
            fill = f'<a:solidFill><a:schemeClr val="{style.fill[0]}">{mods}</a:schemeClr></a:solidFill>'
    return ppr, rpr, f"<a:tcPr{attrs}>{fill}</a:tcPr>"


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def table_xml(widths_emu: Sequence[int], rows: Sequence[tuple[int, Sequence[tuple[str, CellStyle]] | tuple[str, CellStyle], bool]],
              style_id: str = "{5C22544A-7EE6-4342-B048-85BDC9FD1C3A}") -> str:
    """An ``a:tbl``: ``rows`` are (height in EMU, cells, merged); a merged row has one (text, style)
    spread over every column (``gridSpan`` on its first cell, ``hMerge`` on the others), as
    python-pptx's ``_Cell.merge`` writes it. Written as text and parsed once: a table of a thousand
    cells costs one parse instead of thousands of element proxies."""
    n = len(widths_emu)
    out = [f'<a:tbl xmlns:a="{A}"><a:tblPr firstRow="1"><a:tableStyleId>{style_id}</a:tableStyleId></a:tblPr><a:tblGrid>']
    out += [f'<a:gridCol w="{w}"/>' for w in widths_emu]
    out.append("</a:tblGrid>")
    for height, cells, merged in rows:
        out.append(f'<a:tr h="{height}">')
        if merged:
            cells = [cells] + [("", cells[1])] * (n - 1)
        for i, (text, style) in enumerate(cells):
            ppr, rpr, tcpr = _cell_parts(style)
            span = "" if not merged else (f' gridSpan="{n}"' if i == 0 else ' hMerge="1"')
            run = f"<a:r>{rpr}<a:t>{_esc(text)}</a:t></a:r>" if text else \
                f'<a:endParaRPr lang="en-US" sz="{int(round(style.size * 100))}" dirty="0"/>'
            out.append(f"<a:tc{span}><a:txBody><a:bodyPr/><a:lstStyle/><a:p>{ppr}{run}</a:p></a:txBody>{tcpr}</a:tc>")
        out.append("</a:tr>")
    out.append("</a:tbl>")
    return "".join(out)


def replace_table(graphic_frame, tbl_xml: str) -> None:
    """Put ``tbl_xml`` in place of the table python-pptx wrote into ``graphic_frame``."""
    from pptx.oxml import parse_xml

    old = graphic_frame.element.graphic.graphicData.tbl
    old.getparent().replace(old, parse_xml(tbl_xml))


def set_alt_text(shape, text: str, title: str = "") -> None:
    """``p:cNvPr/@descr`` (and ``@title``) of a shape or graphic frame."""
    el = shape.element
    for nv in el.iter("{http://schemas.openxmlformats.org/presentationml/2006/main}cNvPr"):
        nv.set("descr", text)
        if title:
            nv.set("title", title)
        return


# -- charts ---------------------------------------------------------------------------------------------

def _num_ref(formula: str, values: Sequence[float], format_code: str):
    ref = etree.Element(_c("numRef"))
    etree.SubElement(ref, _c("f")).text = formula
    cache = etree.SubElement(ref, _c("numCache"))
    etree.SubElement(cache, _c("formatCode")).text = format_code
    etree.SubElement(cache, _c("ptCount"), val=str(len(values)))
    for i, v in enumerate(values):
        pt = etree.SubElement(cache, _c("pt"), idx=str(i))
        etree.SubElement(pt, _c("v")).text = repr(float(v))
    return ref


def add_error_bars(ser, plus_ref: str, minus_ref: str, amounts: Sequence[float], format_code: str) -> None:
    """Custom plus and minus error bars on a bar series, before its ``c:cat`` (schema order)."""
    bars = etree.Element(_c("errBars"))
    etree.SubElement(bars, _c("errBarType"), val="both")
    etree.SubElement(bars, _c("errValType"), val="cust")
    etree.SubElement(bars, _c("noEndCap"), val="0")
    for tag, ref in (("plus", plus_ref), ("minus", minus_ref)):
        etree.SubElement(bars, _c(tag)).append(_num_ref(ref, amounts, format_code))
    sppr = etree.SubElement(bars, _c("spPr"))
    line = etree.SubElement(sppr, _a("ln"), w="15875")
    scheme_fill(line, "tx1", 75000, 25000)
    anchor = ser.find(_c("cat"))
    if anchor is None:
        anchor = ser.find(_c("val"))
    anchor.addprevious(bars)


def error_bar_amounts(ser) -> list[float] | None:
    """The plus amounts of a series' custom error bars (for reading back)."""
    bars = ser.find(_c("errBars"))
    if bars is None:
        return None
    return [float(v.text) for v in bars.find(_c("plus")).iter(_c("v"))]


def set_point_formats(ser, series_code: str, point_codes: Sequence[str]) -> None:
    """The values' cache: a format code for the series and one per point (``c:pt/@formatCode``)."""
    cache = ser.find(f"{_c('val')}/{_c('numRef')}/{_c('numCache')}")
    if cache is None:
        return
    code = cache.find(_c("formatCode"))
    if code is None:
        code = etree.Element(_c("formatCode"))
        cache.insert(0, code)
    code.text = series_code
    for pt, fmt in zip(cache.findall(_c("pt")), point_codes):
        pt.set("formatCode", fmt)


def label_nowrap_and_offset(dlbl, x_offset: float) -> None:
    """A data label on one line (``a:bodyPr wrap="none"``), moved right by ``x_offset`` of the
    chart width from its default (outside-end) position."""
    for body in dlbl.iter(_a("bodyPr")):
        body.set("wrap", "none")
    layout = dlbl.find(_c("layout"))
    if layout is None:
        layout = etree.Element(_c("layout"))
        dlbl.find(_c("idx")).addnext(layout)
    for child in list(layout):
        layout.remove(child)
    manual = etree.SubElement(layout, _c("manualLayout"))
    etree.SubElement(manual, _c("x"), val=f"{x_offset:.5f}")
    etree.SubElement(manual, _c("y"), val="0")


def value_axis_at_last_category(chart_space) -> None:
    """Put the value axis (its numbers and title) beside the last category: a bar chart whose categories
    run top to bottom (catAx orientation maxMin) otherwise draws it above the first bar. ``c:valAx/c:crosses``
    says where the value axis crosses the category axis (ECMA-376 21.2.2.33); python-pptx writes only the
    category axis's."""
    for ax in chart_space.iter(_c("valAx")):
        crosses = ax.find(_c("crosses"))
        if crosses is None:
            crosses_at = ax.find(_c("crossesAt"))
            if crosses_at is not None:
                ax.remove(crosses_at)
            crosses = etree.SubElement(ax, _c("crosses"))
            ax.find(_c("crossAx")).addnext(crosses)
        crosses.set("val", "max")


def value_axis_title_layout(chart_space, x: float, y: float) -> None:
    """The value axis title's top left corner, as fractions of the chart space (``c:title/c:layout``,
    ``xMode``/``yMode`` edge)."""
    for title in chart_space.iterfind(f"{_c('chart')}/{_c('plotArea')}/{_c('valAx')}/{_c('title')}"):
        old = title.find(_c("layout"))
        if old is not None:
            title.remove(old)
        layout = etree.Element(_c("layout"))
        manual = etree.SubElement(layout, _c("manualLayout"))
        for tag, val in (("xMode", "edge"), ("yMode", "edge"), ("x", f"{x:.4f}"), ("y", f"{y:.4f}")):
            etree.SubElement(manual, _c(tag)).set("val", val)
        tx = title.find(_c("tx"))
        (tx.addnext(layout) if tx is not None else title.insert(0, layout))


def plot_area_layout(chart_space, x: float, y: float, w: float, h: float) -> None:
    """The plot area's inner rectangle, as fractions of the chart space."""
    plot = chart_space.find(f"{_c('chart')}/{_c('plotArea')}")
    old = plot.find(_c("layout"))
    if old is not None:
        plot.remove(old)
    layout = etree.Element(_c("layout"))
    manual = etree.SubElement(layout, _c("manualLayout"))
    etree.SubElement(manual, _c("layoutTarget"), val="inner")
    etree.SubElement(manual, _c("xMode"), val="edge")
    etree.SubElement(manual, _c("yMode"), val="edge")
    for tag, v in (("x", x), ("y", y), ("w", w), ("h", h)):
        etree.SubElement(manual, _c(tag), val=f"{v:.5f}")
    plot.insert(0, layout)


def title_no_overlay(chart_space) -> None:
    title = chart_space.find(f"{_c('chart')}/{_c('title')}")
    if title is not None and title.find(_c("overlay")) is None:
        overlay = etree.SubElement(title, _c("overlay"), val="0")
        sppr = title.find(_c("spPr"))
        if sppr is not None:  # schema order: tx, layout, overlay, spPr, txPr
            sppr.addprevious(overlay)


# -- the embedded chart workbook -------------------------------------------------------------------------

def chart_workbook(headers: Sequence[str], rows: Sequence[tuple], formats: Sequence[tuple[str, str, str]],
                   notes: Iterable[str]) -> bytes:
    """A workbook for "Edit Data": ``rows`` of (category, value, plus, minus, label text) in A2:E,
    each number with its own bound format ``formats[i]`` = (value, plus, minus); then the notes,
    one per row, below. Every text is written as a string (never a formula)."""
    import xlsxwriter

    out = io.BytesIO()
    wb = xlsxwriter.Workbook(out, {"in_memory": True, "strings_to_formulas": False, "strings_to_numbers": False,
                                   "strings_to_urls": False})
    ws = wb.add_worksheet("Sheet1")
    cache: dict[str, object] = {}

    def fmt(code: str, **extra):
        key = code + repr(sorted(extra.items()))
        if key not in cache:
            cache[key] = wb.add_format({"num_format": code, **extra})
        return cache[key]

    bold = wb.add_format({"bold": True, "text_wrap": True, "valign": "top"})
    wrap = wb.add_format({"text_wrap": True, "valign": "top"})
    for c, h in enumerate(headers):
        ws.write_string(0, c, h, bold)
    widths = [len(h) for h in headers]
    for r, (row, codes) in enumerate(zip(rows, formats), 1):
        category, value, plus, minus, label = row
        ws.write_string(r, 0, category, wrap)
        ws.write_number(r, 1, value, fmt(codes[0]))
        if plus is None:
            ws.write_string(r, 2, codes[1])
            ws.write_string(r, 3, codes[2])
        else:
            ws.write_number(r, 2, plus, fmt(codes[1]))
            ws.write_number(r, 3, minus, fmt(codes[2]))
        ws.write_string(r, 4, label)
        for c, text in enumerate((max(category.split("\n"), key=len), codes[0], codes[1], codes[2], label)):
            widths[c] = max(widths[c], min(len(text), 60))
    for c, w in enumerate(widths):
        ws.set_column(c, c, w + 2)
    r = len(rows) + 2
    ws.write_string(r, 0, "Notes", bold)
    for text in notes:
        r += 1
        ws.write_string(r, 0, text)
    wb.close()
    return out.getvalue()


def read_chart_workbook(blob: bytes) -> list[tuple[str, object, str | None]]:
    """Every non-empty cell of an embedded chart workbook: (coordinate, value, number format)."""
    from openpyxl import load_workbook

    wb = load_workbook(io.BytesIO(blob))
    out = []
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if cell.value is not None:
                    out.append((f"{ws.title}!{cell.coordinate}", cell.value, cell.number_format))
    return out


# -- the manifest as a custom XML part ---------------------------------------------------------------------

def embed_manifest(prs, pieces: Iterable[str], schema: str) -> str:
    """Add the manifest to the package as ``/customXml/item{N}.xml`` with its properties part,
    related from the presentation part. Returns the item's part name."""
    return add_custom_xml(prs, manifest_xml(pieces, schema), MANIFEST_NS)


def add_custom_xml(prs, blob: bytes, namespace: str) -> str:
    """A custom XML item (and its properties part naming ``namespace``) related from the
    presentation part, at the next free ``/customXml/item{N}.xml``."""
    from pptx.opc.constants import CONTENT_TYPE as CT
    from pptx.opc.package import Part
    from pptx.opc.packuri import PackURI

    package = prs.part.package
    taken = {str(p.partname) for p in package.iter_parts()}
    n = 1
    while PPTX_CUSTOM_XML_ITEM.format(n=n) in taken or PPTX_CUSTOM_XML_PROPS.format(n=n) in taken:
        n += 1
    item = Part(PackURI(PPTX_CUSTOM_XML_ITEM.format(n=n)), CT.XML, package, blob)
    props = Part(PackURI(PPTX_CUSTOM_XML_PROPS.format(n=n)), CT_CUSTOM_XML_PROPS, package,
                 datastore_item(blob, namespace))
    item.relate_to(props, RT_CUSTOM_XML_PROPS)
    prs.part.relate_to(item, RT_CUSTOM_XML)
    return str(item.partname)


def set_custom_properties(prs, values: dict[str, str]) -> None:
    """Text properties in docProps/custom.xml (File > Properties > Custom), added to a template's own
    or in a part of their own. LibreOffice keeps them when it saves the deck (tested), so the
    manifest's digest stated there says, whatever happens to the custom XML part, that the deck
    carried one (exportguard/embedding.py, PPTX_DIGEST_PROPERTY)."""
    from pptx.opc.constants import CONTENT_TYPE as CT, RELATIONSHIP_TYPE as RT
    from pptx.opc.package import Part
    from pptx.opc.packuri import PackURI

    package = prs.part.package
    try:
        part = package.part_related_by(RT.CUSTOM_PROPERTIES)
    except KeyError:
        part = None
    blob = custom_properties(part.blob if part is not None else None, values)
    if part is None:
        package.relate_to(Part(PackURI("/docProps/custom.xml"), CT.OFC_CUSTOM_PROPERTIES, package, blob),
                          RT.CUSTOM_PROPERTIES)
    else:
        from .pptx_adapter import set_blob

        set_blob(part, blob)


def drop_manifests(prs) -> int:
    """Unrelate every exportguard manifest a template carries (a deck used as a template): the
    export writes its own. Other custom XML items are kept. Returns how many were dropped."""
    dropped = 0
    for rel in list(prs.part.rels.values()):
        if rel.reltype != RT_CUSTOM_XML or rel.is_external:
            continue
        try:
            root = safe_parse(rel.target_part.blob, "custom XML item")
        except ExportguardError:
            continue
        if root.tag == MANIFEST_TAG:
            prs.part.drop_rel(rel.rId)
            dropped += 1
    return dropped
