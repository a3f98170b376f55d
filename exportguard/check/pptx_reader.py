"""PPTX: every text a person sees on a slide, read from the package through the safe-open layer.

Slides in presentation order, each a scope (``slide 3``); in each, the shape tree in z-order:
text boxes, placeholders (title, subtitle, body), shapes with text, grouped shapes (recursively),
tables (cell by cell), charts (title, axis titles, series names, data labels as displayed, and the
chart's data: its embedded workbook, read as a workbook inside the slide's scope, or the cached
values when there is none). The speaker notes are a scope of their own (``slide 3, speaker
notes``): a note there is not on the slide a reader sees.

Locations: ``slide 3, title``, ``slide 3, text box 'TextBox 2'``, ``slide 3, group 'Group 4',
shape 'Rectangle 1'``, ``slide 3, table 2, row 4, column 3`` (rows and columns count from 1, the
header row included), ``slide 3, chart 1, point 2`` (a chart's only series; ``slide 3, chart 1,
series 2, point 2`` when it has several; a person reads the series name and category beside it),
``slide 3, chart 1 data, Sheet 'Sheet1'!B3``, ``slide 3, speaker notes``.

The first row of a table is its header; a column whose header names a throughput unit, and a
chart series whose name (or value axis title, or chart title) names one, make their numbers
figures; so does a row's first cell when it names one (a label and its values to the right).

What else a reader sees on a slide, and so what is read with it:
- the shapes of its layout and master that are not placeholders (a text on every slide), unless
  the slide or layout hides them (``showMasterSp="0"``): ``slide 3, layout 'Title Only', text box
  'Footer'``, ``slide 3, master, shape 'Logo'``;
- the alternative text of pictures, shapes, tables and charts (``slide 3, picture 'Picture 4'
  (alt text)``): what a screen reader says and a hover shows;
- a headline tile made of two shapes, a number and beside or under it a caption that names a unit
  ('101,527' over 'tokens/s', '~420k' over 'tokens/s on Llama 2 70B'): the number is a figure in the
  caption's unit; a tile number without such a caption takes the unit the slide's title names;
- the slide's title, as what every text on the slide stands under: a title that names a price
  ('API pricing') makes the amounts per token count under it prices, not figures;
- a chart without its embedded workbook (LibreOffice saves charts so): its category labels, from the
  chart's own cache.
"""
from __future__ import annotations

from ..detect import header_unit, other_quantity, row_units, tile_number
from .evaluate import stands_under
from .numfmt import format_number
from .safety import NotInspectable, SafeZip, parse_tree
from .xlsx_reader import main_part, read as read_workbook, relationships

P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
C = "{http://schemas.openxmlformats.org/drawingml/2006/chart}"
R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
_TABLE_URI = "http://schemas.openxmlformats.org/drawingml/2006/table"
_CHART_URI = "http://schemas.openxmlformats.org/drawingml/2006/chart"
_NOTES_SKIP = {"sldImg", "sldNum", "hdr", "ftr", "dt"}


def text_of(body) -> str:
    """A text body's paragraphs joined by newlines (runs, fields and line breaks in order)."""
    if body is None:
        return ""
    paras = []
    for p in body.iter(f"{A}p"):
        parts = []
        for el in p:
            if el.tag in (f"{A}r", f"{A}fld"):
                t = el.find(f"{A}t")
                if t is not None and t.text:
                    parts.append(t.text)
            elif el.tag == f"{A}br":
                parts.append("\n")
        paras.append("".join(parts))
    return "\n".join(paras).strip("\n")


class _Within:
    """The evaluator, for the items of a container on the slide (a chart's embedded workbook): each
    item is said to be ``within`` it, so that its notes resolve only the figures inside it (EG025)."""

    def __init__(self, sink, within: str):
        self._sink, self._within = sink, within

    def item(self, *args, **kwargs) -> None:
        kwargs.setdefault("within", self._within)
        self._sink.item(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._sink, name)


class _Slide:
    def __init__(self, z: SafeZip, sink, n: int, part: str):
        self.z, self.sink, self.n, self.part = z, sink, n, part
        self.rels = relationships(z, part)
        self.tables = 0
        self.charts = 0
        self.at = f"slide {n}"
        self.tile_units: dict[int, str] = {}  # id(shape element) -> the unit of its caption beside it
        self.placeholders = True  # a layout's or master's placeholders are not shown on the slide
        self.title = ""  # the slide's title: what its texts stand under (a price list's 'API pricing')

    def emit(self, label: str, text: str, block: str = "", detail: str = "", **kw) -> None:
        """An item at ``slide N, <label>``; ``detail`` adds what a person needs to find it."""
        if text.strip():
            kw["about"] = stands_under(kw.get("about", ""), self.title)
            key = f"{self.at}, {label}"
            self.sink.item(key, key + (f" ({detail})" if detail else ""), text, block=block or key, **kw)

    def shapes(self, tree, prefix: str = "") -> None:
        for el in tree:
            tag = el.tag
            if tag == f"{MC}AlternateContent":
                choice = el.find(f"{MC}Choice")
                chosen = choice if choice is not None else el.find(f"{MC}Fallback")
                if chosen is not None:
                    self.shapes(chosen, prefix)
            elif tag == f"{P}sp":
                self.shape(el, prefix)
            elif tag == f"{P}grpSp":
                group = prefix + f"group '{_name(el, P + 'nvGrpSpPr')}', "
                self.alt_text(el, P + "nvGrpSpPr", group.rstrip(", "))
                self.shapes(el, group)
            elif tag == f"{P}graphicFrame":
                self.frame(el, prefix)
                self.alt_text(el, P + "nvGraphicFramePr", prefix + f"frame '{_name(el, P + 'nvGraphicFramePr')}'")
            elif tag == f"{P}pic":
                self.alt_text(el, P + "nvPicPr", prefix + f"picture '{_name(el, P + 'nvPicPr')}'")

    def alt_text(self, el, nv_tag: str, label: str) -> None:
        """A shape's alternative text: its description and title (p:cNvPr/@descr, @title)."""
        c = el.find(f"{nv_tag}/{P}cNvPr")
        if c is None:
            return
        text = "\n".join(t for t in (c.get("title", ""), c.get("descr", "")) if t.strip())
        if text:
            self.emit(f"{label} (alt text)", text, kind="alt-text")

    def shape(self, sp, prefix: str) -> None:
        name = _name(sp, P + "nvSpPr")
        nv = sp.find(f"{P}nvSpPr")
        ph = nv.find(f"{P}nvPr/{P}ph") if nv is not None else None
        if ph is not None and not self.placeholders:
            return
        is_box = nv is not None and (nv.find(f"{P}cNvSpPr") is not None and
                                     nv.find(f"{P}cNvSpPr").get("txBox") in ("1", "true"))
        kind = ph.get("type", "body") if ph is not None else ""
        if kind in ("title", "ctrTitle"):
            label = "title"
        elif kind == "subTitle":
            label = "subtitle"
        elif ph is not None:
            label = f"placeholder '{name}'"
        elif is_box:
            label = f"text box '{name}'"
        else:
            label = f"shape '{name}'"
        unit = self.tile_units.get(id(sp), "")
        self.emit(prefix + label, text_of(sp.find(f"{P}txBody")), unit=unit,
                  kind="tile" if unit else "text")
        self.alt_text(sp, P + "nvSpPr", prefix + label)

    def frame(self, frame, prefix: str) -> None:
        data = frame.find(f"{A}graphic/{A}graphicData")
        if data is None:
            return
        uri = data.get("uri", "")
        if uri == _TABLE_URI:
            tbl = data.find(f"{A}tbl")
            if tbl is not None:
                self.tables += 1
                self.table(tbl, f"table {self.tables}")
        elif uri == _CHART_URI:
            ref = data.find(f"{C}chart")
            if ref is not None:
                self.charts += 1
                self.chart(ref.get(f"{R}id", ""), self.charts, prefix)

    def table(self, tbl, label: str) -> None:
        block = f"{self.at}, {label}"
        units: dict[int, str] = {}
        heads: dict[int, str] = {}  # column -> its heading's text
        for r, tr in enumerate(tbl.iter(f"{A}tr"), 1):
            c = 0
            cells: list[tuple[int, str]] = []
            for tc in tr.findall(f"{A}tc"):
                c += 1
                col = c
                span = int(tc.get("gridSpan", "1") or 1)
                c += max(span, 1) - 1
                if tc.get("hMerge") in ("1", "true") or tc.get("vMerge") in ("1", "true"):
                    continue
                cells.append((col, text_of(tc.find(f"{A}txBody"))))
            labelled = row_units([t for _, t in cells]) if r > 1 else []
            for k, (col, text) in enumerate(cells):
                if r == 1:
                    heads[col] = text
                    unit = header_unit(text)
                    if unit:
                        units[col] = unit
                    self.emit(f"{label}, row {r}, column {col}", text, block, kind="header")
                else:
                    self.emit(f"{label}, row {r}, column {col}", text, block, unit=units.get(col) or labelled[k],
                              kind="cell", about=heads.get(col, ""))

    def chart(self, rid: str, k: int, prefix: str) -> None:
        rel = self.rels.get(rid)
        label = f"chart {k}"
        if not rel or rel[2] == "External" or not self.z.find(rel[1]):
            return
        part = rel[1]
        root = parse_tree(self.z.read(part), part, self.z.limits)
        block = f"{self.at}, {label}"
        chart = root.find(f"{C}chart")
        if chart is None:
            return
        title = text_of(chart.find(f"{C}title/{C}tx/{C}rich"))
        self.emit(f"{label}, title", title, block)
        plot = chart.find(f"{C}plotArea")
        if plot is None:
            return
        axis_unit = ""
        for ax in plot:
            if ax.tag in (f"{C}valAx", f"{C}catAx", f"{C}dateAx", f"{C}serAx"):
                t = text_of(ax.find(f"{C}title/{C}tx/{C}rich"))
                self.emit(f"{label}, {ax.tag[len(C):]} title", t, block)
                if ax.tag == f"{C}valAx" and not axis_unit:
                    axis_unit = header_unit(t) or ""
        embedded = self._embedded(part, k)
        groups = [g for g in plot if g.tag.endswith("Chart")]
        only = sum(len(g.findall(f"{C}ser")) for g in groups) == 1
        s = 0
        for group in groups:
            group_labels = group.find(f"{C}dLbls")
            for ser in group.findall(f"{C}ser"):
                s += 1
                self.series(ser, s, label, block, group_labels, axis_unit or header_unit(title) or "",
                            cached=embedded is None, only=only)
        if embedded is not None:
            with embedded as inner:  # read in the slide's scope, but as text inside the chart (not on the slide)
                read_workbook(inner, _Within(self.sink, f"{self.at}, {label} data"),
                              scope_prefix=f"{self.at}, {label} data, ", key_prefix=f"{self.at}, {label} data ",
                              own_scopes=False)

    def _embedded(self, chart_part: str, k: int):
        for kind, target, mode in relationships(self.z, chart_part).values():
            if kind.endswith("/package") and mode != "External" and self.z.find(target):
                return self.z.open_archive(target, f"{self.at}, chart {k}, embedded workbook {target.rsplit('/', 1)[-1]!r}")
        return None

    def series(self, ser, s: int, label: str, block: str, group_labels, default_unit: str, cached: bool,
               only: bool = False) -> None:
        name = _cache_text(ser.find(f"{C}tx"))
        at = label if only else f"{label}, series {s}"  # 'chart 1, point 3' for a chart's only series
        named = f"series {s}" + (f" {name!r}" if name else "")
        self.emit(f"{label}, series {s} name", name, block, kind="header")
        unit = header_unit(name) if name else None
        unit = unit or default_unit
        cats = _points(ser.find(f"{C}cat"))[1]
        fmt, values = _points(ser.find(f"{C}val"))
        labels = ser.find(f"{C}dLbls")
        show_all = _flag(labels, "showVal") if labels is not None else _flag(group_labels, "showVal")
        label_fmt = _label_format(labels if labels is not None else group_labels)
        own = {}
        if labels is not None:
            for d in labels.findall(f"{C}dLbl"):
                idx = d.find(f"{C}idx")
                if idx is not None:
                    own[idx.get("val")] = d
        if cached and s == 1:  # a chart without its workbook: its category axis shows these labels
            for idx, cat in cats.items():
                self.emit(f"{label}, category {int(idx) + 1 if idx.isdigit() else idx}", cat, block, kind="category")
        for idx, raw in values.items():
            try:
                value = float(raw)
            except ValueError:
                continue
            shown = format_number(value, label_fmt or fmt or "General")
            d = own.get(idx)
            custom = ""
            show = show_all
            if d is not None:
                if _flag(d, "delete"):
                    continue
                rich = d.find(f"{C}tx/{C}rich")
                if rich is not None:
                    custom = text_of(rich).replace("[VALUE]", shown)
                    show = True
                elif d.find(f"{C}showVal") is not None:
                    show = _flag(d, "showVal")
                own_fmt = _label_format(d)
                if own_fmt:
                    shown = format_number(value, own_fmt)
            point = f"{at}, point {int(idx) + 1}"
            category = f", category {cats[idx]!r}" if idx in cats and len(cats[idx]) <= 40 else ""
            # a label or a bar shows text (the number is the chart's data, read from its workbook)
            if show:
                self.emit(point, custom or shown, block, f"{named}, data label{category}", unit=unit, kind="label")
            elif cached:
                self.emit(point, shown, block, f"{named}, chart data{category}", unit=unit, kind="chart-data")


def _name(el, nv_tag: str) -> str:
    c = el.find(f"{nv_tag}/{P}cNvPr")
    return c.get("name", "") if c is not None else ""


def _flag(el, tag: str) -> bool:
    if el is None:
        return False
    f = el.find(f"{C}{tag}")
    return f is not None and f.get("val", "1") in ("1", "true")


def _label_format(el) -> str:
    if el is None:
        return ""
    nf = el.find(f"{C}numFmt")
    if nf is None or nf.get("sourceLinked") in ("1", "true"):
        return ""
    return nf.get("formatCode", "")


def _cache_text(tx) -> str:
    if tx is None:
        return ""
    v = tx.find(f"{C}v")
    if v is not None and v.text:
        return v.text
    return " ".join(pt.text or "" for pt in tx.iter(f"{C}v")).strip()


def _points(el) -> tuple[str, dict[str, str]]:
    """(format code, {idx: value}) of a series' categories or values, from its cache or literal."""
    if el is None:
        return "", {}
    fmt = ""
    out: dict[str, str] = {}
    for cache in el.iter():
        if cache.tag in (f"{C}numCache", f"{C}strCache", f"{C}numLit", f"{C}strLit"):
            f = cache.find(f"{C}formatCode")
            if f is not None and f.text:
                fmt = f.text
            for pt in cache.findall(f"{C}pt"):
                v = pt.find(f"{C}v")
                if v is not None and v.text is not None:
                    out[pt.get("idx", str(len(out)))] = v.text
            break
    return fmt, out


def read(z: SafeZip, sink) -> None:
    pres = main_part(z, "ppt/presentation.xml")
    if z.find(pres) is None:
        raise NotInspectable(f"not a presentation: no {pres}")
    root = parse_tree(z.read(pres), pres, z.limits)
    if root.tag != f"{P}presentation":
        raise NotInspectable(f"not a presentation: its main part {pres!r} is a {root.tag.rpartition('}')[2]!r}")
    rels = relationships(z, pres)
    slides = []
    lst = root.find(f"{P}sldIdLst")
    for sid in (lst if lst is not None else ()):
        rel = rels.get(sid.get(f"{R}id", ""))
        if rel and rel[0].endswith("/slide") and z.find(rel[1]):
            slides.append(rel[1])
    layers: dict[str, tuple] = {}  # layout or master part -> (its name, its shape tree, its rels, showMasterSp)
    for n, part in enumerate(slides, 1):
        slide = parse_tree(z.read(part), part, z.limits)
        sink.scope(f"slide {n}")  # a hidden slide (show="0") is read like any other
        reader = _Slide(z, sink, n, part)
        tree = slide.find(f"{P}cSld/{P}spTree")
        behind = _behind(z, reader.rels, slide, layers)
        trees = [t for _, t in behind] + ([tree] if tree is not None else [])
        reader.title = _title(tree) if tree is not None else ""
        reader.tile_units = _tiles(trees, layers=len(behind), title=reader.title)
        reader.placeholders = False
        for prefix, layer in behind:  # the master's and layout's own shapes, behind the slide's
            reader.shapes(layer, prefix)
        reader.placeholders = True
        if tree is not None:
            reader.shapes(tree)
        for kind, target, mode in reader.rels.values():
            if kind.endswith("/notesSlide") and mode != "External" and z.find(target):
                _notes(z, sink, n, target)


def _layer(z: SafeZip, part: str, layers: dict) -> tuple:
    if part not in layers:
        root = parse_tree(z.read(part), part, z.limits)
        c_sld = root.find(f"{P}cSld")
        tree = c_sld.find(f"{P}spTree") if c_sld is not None else None
        layers[part] = (c_sld.get("name", "") if c_sld is not None else "", tree, relationships(z, part),
                        root.get("showMasterSp", "1") not in ("0", "false"))
    return layers[part]


def _behind(z: SafeZip, rels: dict, slide, layers: dict) -> list[tuple[str, object]]:
    """(location prefix, shape tree) of the master and the layout whose shapes a slide shows, in
    drawing order: none when the slide hides them (showMasterSp="0"), the layout's alone when the
    layout hides the master's."""
    if slide.get("showMasterSp", "1") in ("0", "false"):
        return []
    layout = next((t for k, t, mode in rels.values() if k.endswith("/slideLayout") and mode != "External"
                   and z.find(t)), None)
    if layout is None:
        return []
    name, tree, layout_rels, show_master = _layer(z, layout, layers)
    out = []
    if show_master:
        master = next((t for k, t, mode in layout_rels.values() if k.endswith("/slideMaster") and mode != "External"
                       and z.find(t)), None)
        if master is not None:
            m_tree = _layer(z, master, layers)[1]
            if m_tree is not None:
                out.append(("master, ", m_tree))
    if tree is not None:
        out.append((f"layout {name!r}, " if name else "layout, ", tree))
    return out


# -- headline tiles: a number and its unit caption in two shapes side by side ------------------------

_NEAR = 1.0  # how far apart (in the taller shape's heights) a number and its caption may stand


def _title(tree) -> str:
    """The text of a slide's title: its title placeholder, else (a slide made from the blank layout)
    the one-line text box at the top of the slide ('' when there is none)."""
    for sp in tree.iter(f"{P}sp"):
        ph = sp.find(f"{P}nvSpPr/{P}nvPr/{P}ph")
        if ph is not None and ph.get("type") in ("title", "ctrTitle"):
            return " ".join(text_of(sp.find(f"{P}txBody")).split())
    top = None
    for sp, (_x, y, _w, _h) in _placed_shapes(tree):
        text = text_of(sp.find(f"{P}txBody")).strip()
        if text and (top is None or y < top[0]):
            top = (y, text)
    if top is None or "\n" in top[1] or len(top[1]) > 100 or tile_number(top[1]):
        return ""
    return top[1]


def _tiles(trees, layers: int = 0, title: str = "") -> dict[int, str]:
    """id(number shape) -> the unit its caption names, for each shape that holds only a number
    ('101,527', '~420k', '101.5k ±5.4% [a]') with, right under, over or beside it, a shape whose text is
    a unit caption ('tokens/s', 'Output tok/s on Llama 2 70B'). A number without such a caption takes
    the unit its slide's title names ('Cluster throughput (tokens/s)'), unless the text beside it names
    another quantity ('GB HBM3e', 'GPUs'). Positions in slide coordinates (groups transformed); the
    first ``layers`` trees are the master's and layout's, whose placeholders a slide does not show."""
    numbers, captions, others = [], [], []
    for k, tree in enumerate(trees):
        for sp, box in _placed_shapes(tree):
            if k < layers and sp.find(f"{P}nvSpPr/{P}nvPr/{P}ph") is not None:
                continue  # a layout's or master's placeholder is not shown on the slide
            body = sp.find(f"{P}txBody")
            text = text_of(body).strip() if body is not None else ""
            if not text or len(text) > 100:
                continue
            if (text[0].isdigit() or text[0] in "~≈") and tile_number(text):
                numbers.append((sp, box))
                continue
            # a caption may hold digits ('tokens/s on Llama 2 70B'); header_unit refuses a figure
            unit = header_unit(" ".join(text.split()))
            if unit:
                captions.append((unit, box))
            elif other_quantity(text):
                others.append(box)
    if not numbers:
        return {}
    gaps = {(i, j): g for i, (_, a) in enumerate(numbers) for j, (_, b) in enumerate(captions)
            if (g := _gap(a, b)) is not None}
    found = {}
    for (i, j), g in gaps.items():  # a number and a caption that are each other's nearest
        if (g == min(v for (a, _), v in gaps.items() if a == i) and
                g == min(v for (_, b), v in gaps.items() if b == j)):
            found[id(numbers[i][0])] = captions[j][0]
    title_unit = header_unit(title) if title else None
    if title_unit:
        for sp, box in numbers:
            if id(sp) not in found and not any(_gap(box, o) is not None for o in others):
                found[id(sp)] = title_unit
    return found


def _gap(a, b) -> float | None:
    """The gap between two boxes stacked or side by side, if they are close enough to read as one tile."""
    x, y, w, h = a
    cx, cy, cw, ch = b
    x_overlap = min(x + w, cx + cw) - max(x, cx)
    y_overlap = min(y + h, cy + ch) - max(y, cy)
    if x_overlap > 0.3 * min(w, cw):  # stacked: the caption under or over the number
        gap = max(cy - (y + h), y - (cy + ch), 0)
    elif y_overlap > 0.3 * min(h, ch):  # side by side
        gap = max(cx - (x + w), x - (cx + cw), 0)
    else:
        return None
    return gap if gap <= _NEAR * max(h, ch) else None


def _placed_shapes(tree, transform=(0.0, 0.0, 1.0, 1.0)):
    """(p:sp, (x, y, width, height)) of each text shape in a shape tree that has a position, in slide
    coordinates: a group maps its children's coordinates (chOff, chExt) onto its own (off, ext)."""
    ox, oy, sx, sy = transform
    for el in tree:
        if el.tag == f"{P}sp":
            box = _box(el.find(f"{P}spPr/{A}xfrm"))
            if box:
                x, y, w, h = box
                yield el, (ox + x * sx, oy + y * sy, w * sx, h * sy)
        elif el.tag == f"{P}grpSp":
            xfrm = el.find(f"{P}grpSpPr/{A}xfrm")
            box, child = _box(xfrm), _box(xfrm, "chOff", "chExt") if xfrm is not None else None
            if box and child and child[2] and child[3]:
                gx, gy, gw, gh = box
                cx, cy, cw, ch = child
                k_x, k_y = sx * gw / cw, sy * gh / ch
                yield from _placed_shapes(el, (ox + (gx - cx * gw / cw) * sx, oy + (gy - cy * gh / ch) * sy, k_x, k_y))
            else:
                yield from _placed_shapes(el, transform)
        elif el.tag == f"{MC}AlternateContent":
            chosen = el.find(f"{MC}Choice")
            chosen = chosen if chosen is not None else el.find(f"{MC}Fallback")
            if chosen is not None:
                yield from _placed_shapes(chosen, transform)


def _box(xfrm, off: str = "off", ext: str = "ext"):
    if xfrm is None:
        return None
    o, e = xfrm.find(f"{A}{off}"), xfrm.find(f"{A}{ext}")
    try:
        return float(o.get("x", 0)), float(o.get("y", 0)), float(e.get("cx", 0)), float(e.get("cy", 0))
    except (AttributeError, TypeError, ValueError):
        return None


def _notes(z: SafeZip, sink, n: int, part: str) -> None:
    root = parse_tree(z.read(part), part, z.limits)
    tree = root.find(f"{P}cSld/{P}spTree")
    if tree is None:
        return
    texts = []
    for sp in tree.iter(f"{P}sp"):
        ph = sp.find(f"{P}nvSpPr/{P}nvPr/{P}ph")
        if ph is not None and ph.get("type") in _NOTES_SKIP:
            continue
        t = text_of(sp.find(f"{P}txBody"))
        if t.strip():
            texts.append(t)
    if texts:
        where = f"slide {n}, speaker notes"
        sink.scope(where)
        sink.item(where, where, "\n\n".join(texts), block=where, kind="speaker-notes", line=1)
