"""PPTX painter: executive decks whose every figure carries its binding (docs/pptx.md).

Planned, then painted: ``render`` opens the template, has render/pptx_plan.py plan the whole deck
(``plan_deck``: a layout.document.Document, one Unit per slide, every text, size, frame, letter and
location decided), builds the manifest from the plan's placements before anything is drawn, then
``paint`` translates each Unit into python-pptx calls: a slide of the unit's layout, its title at the
planned size, its tables (XML from pptx_xml.table_xml), bar charts (data labels, error bars and
their bound number formats, the embedded workbook), text boxes and speaker notes. The painter
decides nothing: it does not escape, fit, split or letter; the number-format codes of a chart's
points are derived from each BoundCell's figure and letters, and cell styles (header, odd rows,
figures right-aligned, derived figures in italics) from the block's sizes and the cells' kinds.
The manifest is then embedded as a custom XML part of the package (read back by
exportguard.check.manifests) and its digest as a custom property.

XML that python-pptx has no API for comes from pptx_xml; templates from pptx_template; python-pptx
internals we adapt (part names, chart elements) from pptx_adapter. The escaping every planned text
went through is escaping.slide_text (its limits by place in pptx_text).
"""
from __future__ import annotations

from pathlib import Path

from pptx.chart.data import CategoryChartData
from pptx.enum.chart import XL_CHART_TYPE, XL_LABEL_POSITION
from pptx.dml.color import RGBColor
from pptx.enum.dml import MSO_THEME_COLOR
from pptx.enum.text import MSO_AUTO_SIZE, MSO_ANCHOR
from pptx.util import Emu, Pt

from .. import embedding as emb, manifest as manifest_mod
from ..clock import resolve as resolve_clock
from ..escaping import number_format, slide_text
from ..layout import document as ld
from ..report import Report
from ..wording import marks_words
from . import pptx_layout as lay
from . import pptx_xml as px
from . import pptx_adapter as pa
from .package import save as save_package
from .pptx_adapter import adapt
from .pptx_plan import SUBTITLE, _without_shape, plan_deck  # noqa: F401  (_without_shape: tests read titles with it)
from .pptx_template import Template, open_template
from .pptx_text import CELL_LIMIT, HEADLINE_LIMIT, NOTE_LIMIT  # noqa: F401 (limits: tests read them here)


BAR_COLOUR = MSO_THEME_COLOR.ACCENT_1  # one colour for every bar: a colour shared by chained neighbours would
# state ties that do not hold pairwise; the rank words in the category labels say which ranks are tied
_ANCHORS = {"top": MSO_ANCHOR.TOP, "middle": MSO_ANCHOR.MIDDLE, "bottom": MSO_ANCHOR.BOTTOM}
A_NS = "{http://schemas.openxmlformats.org/drawingml/2006/main}"


def _emu(frame: ld.Frame) -> tuple[int, int, int, int]:
    return lay.emu(frame.left), lay.emu(frame.top), lay.emu(frame.width), lay.emu(frame.height)


class _Painter:
    """Adds one slide per Unit to the template's presentation and draws its blocks in order."""

    def __init__(self, template: Template):
        self.t = template
        self.m = lay.Metrics(template.body_font)  # line pitch of a paragraph at its planned size
        self._add_slide = adapt(template.prs).add_slide  # O(1) per slide (python-pptx's looks at every slide)

    def paint(self, document: ld.Document) -> None:
        for unit in document.units:
            self.slide(unit)

    def slide(self, unit: ld.Unit) -> None:
        layout = self.t.title_layout if unit.layout == "title" else self.t.content_layout
        slide = self._add_slide(layout)
        keep = ("TITLE", "CENTER_TITLE") if layout is self.t.content_layout else ("TITLE", "CENTER_TITLE", "SUBTITLE")
        for ph in list(slide.placeholders):
            if ph.placeholder_format.type.name not in keep:
                ph.element.getparent().remove(ph.element)
        if unit.title_pt:
            self._title(slide, unit.title, unit.title_pt)
        for block in unit.blocks:
            match block:
                case ld.TableBlock():
                    self._table(slide, block)
                case ld.ChartBlock():
                    self._chart(slide, block)
                case ld.KpiBlock():
                    self._headline(slide, block)
                case ld.TextBlock():
                    self._text(slide, block)
        slide.notes_slide.notes_text_frame.text = unit.speaker_notes

    def _title(self, slide, text: str, size: float) -> None:
        ph = slide.shapes.title
        if ph is None:
            return
        tf = ph.text_frame
        tf.word_wrap = True
        tf.text = text
        for p in tf.paragraphs:
            for r in p.runs:
                r.font.size = Pt(size)

    # -- text boxes --
    def _text(self, slide, block: ld.TextBlock) -> None:
        if block.placeholder == SUBTITLE:
            sub = next((ph for ph in slide.placeholders if ph.placeholder_format.type.name == "SUBTITLE"), None)
            if sub is not None:
                return self._subtitle(sub, block)
        shape = slide.shapes.add_textbox(*_emu(block.frame))
        shape.name = block.name
        tf = shape.text_frame
        tf.word_wrap = True
        tf.auto_size = MSO_AUTO_SIZE.NONE
        tf.vertical_anchor = _ANCHORS[block.anchor]
        tf.margin_left = tf.margin_right = Emu(lay.emu(lay.CELL_PAD_X))
        tf.margin_top = tf.margin_bottom = Emu(lay.emu(lay.CELL_PAD_Y))
        for i, para in enumerate(block.paras):
            p = tf.paragraphs[0] if i == 0 else tf.add_paragraph()
            p.line_spacing = Pt(round(self.m.line_height(para.size, para.bold), 2))
            p.space_after = Pt(para.space_after)
            p.space_before = Pt(0)
            run = p.add_run()
            run.text = para.text
            run.font.size = Pt(para.size)
            run.font.bold = para.bold
            if para.italic:
                run.font.italic = True
        if block.inset_y is not None:
            tf.margin_top = tf.margin_bottom = Emu(lay.emu(block.inset_y))
        if block.columns > 1:
            # DrawingML bodyPr numCol/spcCol: PowerPoint and LibreOffice 7.2+ flow the text from one column
            # into the next
            body_pr = shape.element.find(".//" + A_NS + "bodyPr")
            body_pr.set("numCol", str(block.columns))
            body_pr.set("spcCol", str(lay.emu(block.column_gap)))
        if block.alt_text:
            px.set_alt_text(shape, block.alt_text)

    def _subtitle(self, sub, block: ld.TextBlock) -> None:
        """The title layout's subtitle placeholder: its own frame and insets, the planned paragraphs."""
        tf = sub.text_frame
        tf.word_wrap = True
        tf.text = ""
        for i, para in enumerate(block.paras):
            p = tf.paragraphs[0] if i == 0 else tf.add_paragraph()
            p.line_spacing = Pt(round(self.m.line_height(para.size), 2))
            p.space_after = Pt(para.space_after)
            p.space_before = Pt(0)
            run = p.add_run()
            run.text = para.text
            run.font.size = Pt(para.size)
            run.font.italic = para.italic

    def _headline(self, slide, block: ld.KpiBlock) -> None:
        self._text(slide, ld.TextBlock(block.name, block.frame, block.paras, alt_text=block.alt_text))

    # -- tables --
    def _table(self, slide, block: ld.TableBlock) -> None:
        style = self._styles(block.body_pt, block.note_pt)
        fig_cols = block.figure_columns
        rows = [(lay.emu(block.header_h), [(h, style["head_fig" if c in fig_cols else "head"])
                                           for c, h in enumerate(block.headers)], False)]
        for i, (h, cells) in enumerate(zip(block.row_heights, block.rows)):
            odd = "_odd" if i % 2 == 1 else ""
            out = []
            for c, cell in enumerate(cells):
                if isinstance(cell, ld.BoundCell):
                    kind = "derived" if cell.figure.derivation is not None else "figure"
                    out.append((cell.shown_text, style[kind + odd]))
                else:
                    out.append((cell, style[("text_r" if c in fig_cols else "text") + odd]))
            rows.append((lay.emu(h), out, False))
        for h, para in zip(block.footer_heights, block.footer):
            rows.append((lay.emu(h), (para.text, style["legend" if para.italic else "note"]), True))
        gf = slide.shapes.add_table(1, len(block.headers), *_emu(block.frame))
        gf.name = block.name
        px.replace_table(gf, px.table_xml([lay.emu(w) for w in block.widths], rows))
        px.set_alt_text(gf, block.alt_text)

    def _styles(self, body: float, note: float) -> dict[str, px.CellStyle]:
        """Cell styles of a table at its sizes (header, body text, figures, odd rows, notes)."""
        lb, lbb, ln = (round(self.m.line_height(body), 2), round(self.m.line_height(body, True), 2),
                       round(self.m.line_height(note), 2))
        even, odd = ("bg1",), ("bg1", 95000)
        pad = lay.ROW_PAD_Y
        out = {
            "head": px.CellStyle(body, lbb, bold=True, color="bg1", fill=("tx2",), anchor="b", pad_y=pad),
            "head_fig": px.CellStyle(body, lbb, bold=True, color="bg1", fill=("tx2",), anchor="b", align="r",
                                     pad_y=pad),
            "note": px.CellStyle(note, ln, fill=even, pad_y=lay.FOOTER_PAD_Y),
            "legend": px.CellStyle(note, ln, italic=True, fill=even, pad_y=lay.FOOTER_PAD_Y),
        }
        for name, kw in (("text", {}), ("text_r", {"align": "r"}), ("figure", {"align": "r"}),
                         ("derived", {"align": "r", "italic": True})):
            out[name] = px.CellStyle(body, lb, fill=even, pad_y=pad, **kw)
            out[name + "_odd"] = px.CellStyle(body, lb, fill=odd, pad_y=pad, **kw)
        return out

    # -- charts --
    def _chart(self, slide, block: ld.ChartBlock) -> None:
        figs = [bar.cell.figure for bar in block.bars]
        shown = [bar.cell.shown_text for bar in block.bars]
        values = [f.magnitude for f in figs]
        band = block.band
        categories = ["\n".join(bar.category) for bar in block.bars]
        value_codes, plus_codes, minus_codes = [], [], []
        for bar, f in zip(block.bars, figs):
            # each point's number format states the figure's binding with the marks it has on this slide
            marks = marks_words(bar.cell.letters)
            value_codes.append(number_format(f.decimals, slide_text(f.binding(marks), figure=True)))
            if band:
                what = number_format(f.decimals, f"{slide_text(f.unit_text, figure=True)} = {block.band_words} band "
                                                 f"of the figure {marks} (error bar)")
                plus_codes.append(what)
                minus_codes.append(what)
            else:
                plus_codes.append(f"no error bar: {block.band_words}")
                minus_codes.append(plus_codes[-1])
        amounts = [v * band for v in values] if band else [None] * len(values)
        blob = px.chart_workbook(
            ["Bar (category)", block.series, "Error bar +", "Error bar -", "Label as shown"],
            [(cat, v, a, a, label) for cat, v, a, label in zip(categories, values, amounts, shown)],
            list(zip(value_codes, plus_codes, minus_codes)), block.chart_notes)
        data = _BoundChartData(blob)
        data.categories = categories
        data.add_series(block.series, values)
        gf = slide.shapes.add_chart(XL_CHART_TYPE.BAR_CLUSTERED, *_emu(block.frame), data)
        gf.name = block.name
        chart = gf.chart
        chart.has_legend = False
        chart.font.size = Pt(block.label_pt)
        chart.has_title = True
        tf = chart.chart_title.text_frame
        tf.text = "\n".join(block.title)
        for p in tf.paragraphs:
            for run in p.runs:
                run.font.size = Pt(block.title_pt)
                run.font.bold = True
        px.title_no_overlay(chart.element)
        cat_ax = chart.category_axis
        cat_ax.reverse_order = True
        cat_ax.has_major_gridlines = False
        cat_ax.tick_labels.font.size = Pt(block.label_pt)
        _value_axis(chart.value_axis, block)
        px.value_axis_at_last_category(chart.element)  # under the lowest bar, not above the first
        bar_plot = chart.plots[0]
        bar_plot.gap_width = 45
        bar_plot.vary_by_categories = False
        ser = bar_plot.series[0]
        ser.format.fill.solid()
        ser.format.fill.fore_color.theme_color = BAR_COLOUR
        for i, bar in enumerate(block.bars):
            label = ser.points[i].data_label
            label.text_frame.text = bar.cell.shown_text
            for r in label.text_frame.paragraphs[0].runs:
                r.font.size = Pt(block.label_pt)
            label.position = XL_LABEL_POSITION.OUTSIDE_END
            px.label_nowrap_and_offset(pa.data_label_element(label), bar.label_offset)
        n_pts = len(figs)
        if band:
            px.add_error_bars(pa.series_element(ser), f"Sheet1!$C$2:$C${n_pts + 1}", f"Sheet1!$D$2:$D${n_pts + 1}",
                              [v * band for v in values],
                              number_format(figs[0].decimals, f"{figs[0].unit_text} = {block.band_words} band"))
        series_code = number_format(figs[0].decimals, slide_text(figs[0].binding(""), figure=True))
        px.set_point_formats(pa.series_element(ser), series_code, value_codes)
        plot, frame = block.plot, block.frame
        px.plot_area_layout(chart.element, plot.left / frame.width, plot.top / frame.height,
                            plot.width / frame.width, plot.height / frame.height)
        if block.axis_title:
            x, y = block.axis_title_at
            px.value_axis_title_layout(chart.element, x / frame.width, y / frame.height)
        px.set_alt_text(gf, block.alt_text, title=block.title[0])


GRIDLINE_GREY = RGBColor(0xD9, 0xD9, 0xD9)  # light: the bars and their bound labels stay what the eye reads


def _value_axis(val_ax, block: ld.ChartBlock) -> None:
    """The value axis from zero to the planned maximum, a light gridline every ``axis_step``, its
    numbers at AXIS_PT and its title the unit they count in (python-pptx's chart API)."""
    val_ax.visible = True
    val_ax.minimum_scale = 0
    val_ax.maximum_scale = block.axis_max
    if block.axis_step:
        val_ax.major_unit = block.axis_step
    val_ax.has_major_gridlines = True
    line = val_ax.major_gridlines.format.line
    line.color.rgb = GRIDLINE_GREY
    line.width = Pt(0.75)
    val_ax.has_minor_gridlines = False
    val_ax.tick_labels.font.size = Pt(lay.AXIS_PT)
    val_ax.tick_labels.number_format = "#,##0"
    val_ax.tick_labels.number_format_is_linked = False
    val_ax.format.line.color.rgb = GRIDLINE_GREY
    if block.axis_title:
        val_ax.has_title = True
        tf = val_ax.axis_title.text_frame
        tf.text = block.axis_title
        for p in tf.paragraphs:
            for run in p.runs:
                run.font.size = Pt(lay.AXIS_PT)
                run.font.bold = False


class _BoundChartData(CategoryChartData):
    """Chart data whose embedded workbook is ours (bound number formats and the notes), written once."""

    def __init__(self, blob: bytes):
        super().__init__(number_format="General")
        self._blob = blob

    @property
    def xlsx_blob(self) -> bytes:
        return self._blob


def paint(document: ld.Document, template: Template) -> None:
    """Add ``document``'s slides to the template's presentation, as planned."""
    _Painter(template).paint(document)


# -- entry point -----------------------------------------------------------------------------------------

def render(report: Report, path, template: str | Path | None = None, clock=None, **_options) -> dict:
    """Write the deck to ``path``; return the manifest embedded in it.

    ``template``: a .pptx or .potx whose masters, layouts, theme fonts and slide size the deck uses
    (default: exportguard/data/templates/default.pptx). Other options are for other formats and are ignored here."""
    t = open_template(template)
    document = plan_deck(report, t)
    clock = resolve_clock(clock)  # the export's instant: package dates and the manifest (render/package.py)
    # the manifest records the plan, before anything is drawn: the painter cannot move a figure
    manifest = manifest_mod.build(report, list(document.placements()), "pptx", None, clock)
    props = t.prs.core_properties
    props.title = document.title
    props.subject = document.subject
    props.last_modified_by = "exportguard"
    props.keywords = "MLPerf; exportguard"
    paint(document, t)
    px.embed_manifest(t.prs, manifest_mod.json_pieces(manifest), manifest_mod.SCHEMA)
    px.set_custom_properties(t.prs, {emb.PPTX_DIGEST_PROPERTY: manifest["digest"]["value"],
                                     emb.PPTX_SCHEMA_PROPERTY: manifest_mod.SCHEMA})  # kept by a re-save
    save_package(t.prs.save, path, clock)
    return manifest
