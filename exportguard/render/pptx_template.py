"""Slide templates: the default template exportguard ships, and what an export takes from any
template (its layouts, the room they leave for content, its theme fonts, its slide size).

    python -m exportguard.render.pptx_template exportguard/data/templates/default.pptx   # (re)build the default

The default is python-pptx's own default presentation made 16:9, with four layouts (Title Slide,
Title and Content, Title Only, Blank), left-aligned 28 pt titles, Calibri theme fonts and the
Office 2013+ colours. A package installed without its data/templates folder builds the same
template in memory.
"""
from __future__ import annotations

import io
import re
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

from ..errors import ExportguardError
from .pptx_layout import Box, pt
from .ooxml import as_document, template_bytes

DEFAULT_PATH = Path(__file__).resolve().parents[1] / "data" / "templates" / "default.pptx"
WIDE = (12_192_000, 6_858_000)  # 13.333" x 7.5"
KEEP_LAYOUTS = ("Title Slide", "Title and Content", "Title Only", "Blank")
THEME_NAME = "exportguard"
THEME_FONT = "Calibri"
THEME_COLOURS = {"dk1": "000000", "lt1": "FFFFFF", "dk2": "44546A", "lt2": "E7E6E6", "accent1": "4472C4",
                 "accent2": "ED7D31", "accent3": "A5A5A5", "accent4": "FFC000", "accent5": "5B9BD5",
                 "accent6": "70AD47", "hlink": "0563C1", "folHlink": "954F72"}
A = "http://schemas.openxmlformats.org/drawingml/2006/main"
P = "http://schemas.openxmlformats.org/presentationml/2006/main"
P14 = "http://schemas.microsoft.com/office/powerpoint/2010/main"
PRESENTATION_CT = "application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"
TEMPLATE_CT = "application/vnd.openxmlformats-officedocument.presentationml.template.main+xml"
MAX_TEMPLATE_BYTES = 200 * 2**20
TITLE_GAP = 9.0  # pt between the title placeholder and the content
MIN_AREA_SHARE = 0.3  # the content area must be at least this share of the slide's height


# -- the default template ----------------------------------------------------------------------------

def build_default(width_in: float = 13.333, font: str = THEME_FONT, layouts: tuple[str, ...] = KEEP_LAYOUTS,
                  height_in: float = 7.5) -> bytes:
    """The default template, as the bytes of a .pptx file. The arguments make variants for tests
    and benchmarks (a 4:3 slide is ``width_in=10``, A3 landscape ``width_in=16.54, height_in=11.69``;
    ``font`` is the theme's major and minor typeface; ``layouts`` are the layouts kept)."""
    from pptx import Presentation
    from pptx.util import Emu, Inches

    prs = Presentation()
    for layout in list(prs.slide_layouts):
        if layout.name not in layouts:
            prs.slide_layouts.remove(layout)
    prs.slide_width, prs.slide_height = Inches(width_in), Inches(height_in)
    if abs(width_in - 13.333) < 0.01:
        prs.slide_width = Emu(WIDE[0])
    if abs(height_in - 7.5) < 0.01:
        prs.slide_height = Emu(WIDE[1])
    master = prs.slide_master
    inner = width_in - 1.0
    foot = height_in - 0.55
    geometry = {
        "TITLE": (0.5, 0.3, inner, 0.95), "BODY": (0.5, 1.4, inner, height_in - 2.3),
        "DATE": (0.5, foot, inner * 0.227, 0.38), "FOOTER": (0.5 + inner * 0.311, foot, inner * 0.378, 0.38),
        "SLIDE_NUMBER": (0.5 + inner * 0.773, foot, inner * 0.227, 0.38),
    }
    for ph in master.placeholders:
        box = geometry.get(ph.placeholder_format.type.name)
        if box:
            ph.left, ph.top, ph.width, ph.height = (Inches(v) for v in box)
    for layout in prs.slide_layouts:
        for ph in layout.placeholders:
            kind = ph.placeholder_format.type.name
            if kind == "CENTER_TITLE":
                ph.left, ph.top, ph.width, ph.height = Inches(0.9), Inches(2.1), Inches(width_in - 1.8), Inches(1.6)
            elif kind == "SUBTITLE":
                ph.left, ph.top, ph.width, ph.height = Inches(0.9), Inches(3.85), Inches(width_in - 1.8), Inches(2.3)
            elif ph.element.spPr.find(f"{{{A}}}xfrm") is not None and kind in geometry:
                ph.left, ph.top, ph.width, ph.height = (Inches(v) for v in geometry[kind])
    styles = master.element.find(f"{{{P}}}txStyles")
    title_style = styles.find(f"{{{P}}}titleStyle/{{{A}}}lvl1pPr")
    title_style.set("algn", "l")
    title_style.find(f"{{{A}}}defRPr").set("sz", "2800")
    for level, size in zip(range(1, 10), (2000, 1800, 1600, 1400, 1400, 1400, 1400, 1400, 1400)):
        lvl = styles.find(f"{{{P}}}bodyStyle/{{{A}}}lvl{level}pPr")
        if lvl is not None and lvl.find(f"{{{A}}}defRPr") is not None:
            lvl.find(f"{{{A}}}defRPr").set("sz", str(size))
    for layout in prs.slide_layouts:  # the title slide's subtitle: left-aligned, no grey
        for ph in layout.placeholders:
            if ph.placeholder_format.type.name == "SUBTITLE":
                for lvl in ph.element.iter(f"{{{A}}}lvl1pPr"):
                    lvl.set("algn", "l")
    props = prs.core_properties
    props.title, props.author, props.subject = "exportguard default template", "exportguard", ""
    props.last_modified_by, props.comments = "exportguard", "exportguard's default slide template"
    props.revision = 1
    out = io.BytesIO()
    prs.save(out)
    return _restyle_theme(out.getvalue(), font)


def _restyle_theme(data: bytes, font: str = THEME_FONT) -> bytes:
    """Rewrite ppt/theme/theme1.xml: name, colours and fonts (python-pptx has no theme API)."""
    from lxml import etree

    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            blob = src.read(info)
            if re.fullmatch(r"ppt/theme/theme\d+\.xml", info.filename):
                root = etree.fromstring(blob, _safe_parser())
                root.set("name", THEME_NAME)
                scheme = root.find(f"{{{A}}}themeElements/{{{A}}}clrScheme")
                scheme.set("name", THEME_NAME)
                for key, rgb in THEME_COLOURS.items():
                    slot = scheme.find(f"{{{A}}}{key}")
                    for child in list(slot):
                        slot.remove(child)
                    etree.SubElement(slot, f"{{{A}}}srgbClr", val=rgb)
                fonts = root.find(f"{{{A}}}themeElements/{{{A}}}fontScheme")
                fonts.set("name", THEME_NAME)
                for which in ("majorFont", "minorFont"):
                    fonts.find(f"{{{A}}}{which}/{{{A}}}latin").set("typeface", font)
                blob = etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)
            info.date_time = (2025, 1, 1, 0, 0, 0)
            dst.writestr(info, blob)
    return out.getvalue()


def _safe_parser():
    from lxml import etree

    return etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, load_dtd=False)


# -- opening a template --------------------------------------------------------------------------------

@dataclass
class Template:
    """A presentation to add slides to, with what the renderer needs to know about it."""

    prs: object  # pptx.Presentation
    name: str  # the file, for messages
    content_layout: object
    title_layout: object
    slide: Box  # the whole slide, in points
    title_box: Box  # the content layout's title placeholder
    area: Box  # room for content, under the title
    title_font: str
    body_font: str
    title_pt: float  # the layout's own title size
    title_slide_boxes: tuple[Box | None, Box | None]  # title and subtitle of the title layout
    footer_band: Box | None = None  # where the content layout's footer placeholders stand, under the area


def open_template(path: str | Path | None = None) -> Template:
    """Open ``path`` (or the default template), remove any slides it holds, and find its layouts.
    Raises ExportguardError naming the file when it is not a presentation or has no usable layout."""
    from pptx import Presentation

    if path is None:
        name = str(DEFAULT_PATH) if DEFAULT_PATH.is_file() else "the default template"
        data = DEFAULT_PATH.read_bytes() if DEFAULT_PATH.is_file() else build_default()
    else:
        name = str(path)
        data = template_bytes(path, MAX_TEMPLATE_BYTES)
    try:
        data = as_document(data, TEMPLATE_CT, PRESENTATION_CT)
        prs = Presentation(io.BytesIO(data))
    except ExportguardError as e:  # not a package, or a zip bomb (ooxml.as_document)
        raise ExportguardError(f"{name}: {e}") from None
    except Exception as e:  # BadZipFile, KeyError, XML errors, python-pptx's ValueError
        raise ExportguardError(f"{name}: cannot open as a PowerPoint presentation or template (.pptx, .potx): "
                               f"{type(e).__name__}: {e}") from None
    _remove_slides(prs)
    from .pptx_xml import drop_manifests

    drop_manifests(prs)
    content, title = _pick_layouts(prs, name)
    slide = Box(0, 0, pt(prs.slide_width), pt(prs.slide_height))
    title_ph = _placeholder(content, ("TITLE", "CENTER_TITLE"))
    title_box = _box(title_ph)
    area = _content_area(prs, content, title_box, slide, name)
    major, minor = theme_fonts(prs)
    title_font = _title_style_font(prs) or major
    ctitle = _placeholder(title, ("CENTER_TITLE", "TITLE"))
    sub = _placeholder(title, ("SUBTITLE",)) if title is not content else None
    return Template(prs, name, content, title, slide, title_box, area, title_font, minor,
                    _title_size(prs, title_ph), (_box(ctitle) if ctitle is not None else None,
                                                 _box(sub) if sub is not None else None),
                    _footer_band(content, area, slide))


def _remove_slides(prs) -> None:
    """Drop every slide a template carries (and its references in PowerPoint 2010 sections)."""
    ids = prs.slides.element  # the p:sldIdLst python-pptx's Slides wraps
    removed = set()
    for sld in list(ids):
        removed.add(sld.get("id"))
        prs.part.drop_rel(sld.rId)
        ids.remove(sld)
    if removed:
        from .pptx_adapter import part_element

        for ref in list(part_element(prs.part).iter(f"{{{P14}}}sldId")):
            if ref.get("id") in removed:
                ref.getparent().remove(ref)


_FOOTERS = {"DATE", "FOOTER", "SLIDE_NUMBER", "HEADER"}


def _kinds(layout) -> list[str]:
    return [ph.placeholder_format.type.name for ph in layout.placeholders]


def _pick_layouts(prs, name: str):
    layouts = [layout for master in prs.slide_masters for layout in master.slide_layouts]
    scored = []
    for i, layout in enumerate(layouts):
        kinds = _kinds(layout)
        if "TITLE" in kinds or "CENTER_TITLE" in kinds:
            others = [k for k in kinds if k not in _FOOTERS and k not in ("TITLE", "CENTER_TITLE")]
            scored.append(("TITLE" not in kinds, len(others), "title only" not in layout.name.lower(), i, layout))
    if not scored:
        listing = ", ".join(f"'{layout.name}'" for layout in layouts) or "none"
        raise ExportguardError(f"{name}: no usable slide layout: exportguard needs a layout with a title "
                               f"placeholder (such as 'Title Only'); the template's layouts: {listing}")
    content = min(scored, key=lambda s: s[:4])[-1]
    titles = [layout for layout in layouts if "CENTER_TITLE" in _kinds(layout)]
    title = next((t for t in titles if "SUBTITLE" in _kinds(t)), titles[0] if titles else content)
    return content, title


def _placeholder(layout, kinds):
    for ph in layout.placeholders:
        if ph.placeholder_format.type.name in kinds:
            return ph
    return None


def _box(shape) -> Box:
    return Box(pt(shape.left or 0), pt(shape.top or 0), pt(shape.width or 0), pt(shape.height or 0))


def _content_area(prs, layout, title: Box, slide: Box, name: str) -> Box:
    body = next((ph for ph in layout.slide_master.placeholders if ph.placeholder_format.type.name in ("BODY", "OBJECT")),
                None)
    left, right = title.left, title.right
    if body is not None:
        b = _box(body)
        left, right = max(b.left, 0), min(b.right, slide.width)
    left, right = max(left, 0), min(right, slide.width)
    top = title.bottom + TITLE_GAP
    bottom = slide.height - 0.35 * 72
    footers = [_box(ph) for ph in layout.placeholders if ph.placeholder_format.type.name in _FOOTERS]
    footers = [f for f in footers if f.top > top]
    if footers:
        bottom = min(bottom, min(f.top for f in footers) - 4)
    area = Box(left, top, right - left, bottom - top)
    if area.height < MIN_AREA_SHARE * slide.height or area.width < 0.5 * slide.width:
        raise ExportguardError(f"{name}: no usable slide layout: layout '{layout.name}' leaves "
                               f"{area.width / 72:.1f} x {area.height / 72:.1f} in under its title for content")
    return area


def _footer_band(layout, area: Box, slide: Box) -> Box | None:
    """The band the layout's footer placeholders (date, footer, slide number) take under the content
    area, across the area's width: the template's own place for a line of small print. The renderer
    removes those placeholders from its slides, so the band is free for the one-line caveat."""
    footers = [_box(ph) for ph in layout.placeholders if ph.placeholder_format.type.name in _FOOTERS]
    footers = [f for f in footers if f.top >= area.bottom and f.bottom <= slide.height and f.height > 0]
    if not footers:
        return None
    top, bottom = min(f.top for f in footers), max(f.bottom for f in footers)
    return Box(area.left, top, area.width, bottom - top)


def _theme_root(prs):
    from lxml import etree
    from pptx.opc.constants import RELATIONSHIP_TYPE as RT

    try:
        part = prs.slide_master.part.part_related_by(RT.THEME)
        return etree.fromstring(part.blob, _safe_parser())
    except Exception:
        return None


def theme_fonts(prs) -> tuple[str, str]:
    """(major, minor) latin typefaces of the first master's theme; Calibri where none is named."""
    root = _theme_root(prs)
    found = []
    for which in ("majorFont", "minorFont"):
        el = None if root is None else root.find(f"{{{A}}}themeElements/{{{A}}}fontScheme/{{{A}}}{which}/{{{A}}}latin")
        face = el.get("typeface", "") if el is not None else ""
        found.append(face if face and not face.startswith("+") else THEME_FONT)
    return found[0], found[1]


def _title_style_font(prs) -> str | None:
    el = prs.slide_master.element.find(f"{{{P}}}txStyles/{{{P}}}titleStyle/{{{A}}}lvl1pPr/{{{A}}}defRPr/{{{A}}}latin")
    face = el.get("typeface", "") if el is not None else ""
    return face if face and not face.startswith("+") else None


def _title_size(prs, title_ph) -> float:
    for el in (title_ph.element.find(f".//{{{A}}}lvl1pPr/{{{A}}}defRPr") if title_ph is not None else None,
               prs.slide_master.element.find(f"{{{P}}}txStyles/{{{P}}}titleStyle/{{{A}}}lvl1pPr/{{{A}}}defRPr")):
        if el is not None and el.get("sz"):
            return min(int(el.get("sz")) / 100, 40.0)
    return 32.0


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m exportguard.render.pptx_template OUT.pptx", file=sys.stderr)
        return 2
    Path(argv[0]).write_bytes(build_default())
    print(f"wrote {argv[0]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
