"""Painting the PDF briefing's planned blocks: what a page's plan (layout.document) holds, drawn as
it holds it. Nothing here wraps, cuts or places text; it draws the lines the pager wrapped, at the
positions the plan gave, in the styles pdf_layout names. Widths are measured only to right-align a
line that is already decided (a figure, a header over a figure column).
"""
from __future__ import annotations

from ..layout.document import BoundCell, ChartBlock, KpiBlock, Para, TableBlock, TextBlock
from ..wording import marks_words
from .pdf_chart import AXIS_H, BAR_FILL, BAR_THICK
from ..layout.pager import LayoutError
from .pdf_layout import (BODY, BOX_PAD, CAPTION, CELL, CONTENTS_INDENT, DERIVED_FILL, GREY, HEAD_FILL, INK, KPI_EDGE,
                         KPI_FILL, KPI_PAD, LEAD_FONT, LEGEND, NOTE, NOTE_GAP, NOTE_GUTTER, NOTE_MARK, NOTES, NOTES_TOP,
                         PAD_X, PAD_Y, PARA_GAP, PROSE, RULE, SHARED, SMALL, ZEBRA)
from .pdf_tables import cell_styles
from .pdf_text import NARROW, NARROW_OBLIQUE, SANS_BOLD, Metrics, Style, TextRuns


def paint_table(canv, block: TableBlock, height: float, metrics: Metrics) -> None:
    """A page's share of a table with its top at ``height`` (the flowable's own coordinates): the
    caption and shared conditions, the header band, zebra rows and derived cells' shading, the
    rules, then the text in reading order, each figure as its BoundCell shows it on this page."""
    lines = block.lines
    if lines is None or len(lines.cells) != len(block.rows):
        raise LayoutError(f"{block.name}: a table share without its planned lines")
    head_style, cell_style = cell_styles(block.body_pt)[::-1]
    table_w = sum(block.widths)
    y = height
    y_caption = []
    for line in lines.caption:
        y -= CAPTION.leading
        y_caption.append((y + (CAPTION.leading - CAPTION.size) * 0.5, line))
    if y_caption:
        y -= 3.0
    y_shared = []
    label = lines.run_in
    for k, line in enumerate(lines.shared):
        lead = max(SHARED.leading, CAPTION.leading) if label and k == 0 else SHARED.leading
        y -= lead
        y_shared.append((y + (SHARED.leading - SHARED.size) * 0.5, line))
    if lines.shared:
        y -= 4.0
    head_top = y
    body_top = y - block.header_h
    # shapes first (one path block): header band, zebra rows, derived cells, rules
    t = TextRuns(canv)
    fills = {HEAD_FILL: [f"0 {body_top:.2f} {table_w:.2f} {block.header_h:.2f} re"], ZEBRA: [], DERIVED_FILL: []}
    lefts = [sum(block.widths[:c]) for c in range(len(block.widths))]
    y = body_top
    for i, (row, h) in enumerate(zip(block.rows, block.row_heights)):
        if i % 2:
            fills[ZEBRA].append(f"0 {y - h:.2f} {table_w:.2f} {h:.2f} re")
        for c in block.derived_columns:
            if lines.cells[i][c] is None:
                fills[DERIVED_FILL].append(f"{lefts[c]:.2f} {y - h:.2f} {block.widths[c]:.2f} {h:.2f} re")
        y -= h
    bottom = y
    for colour, rects in fills.items():
        if rects:
            t.path(f"{colour.red:.3f} {colour.green:.3f} {colour.blue:.3f} rg\n" + "\n".join(rects) + "\nf")
    t.path(f"{RULE.red:.3f} {RULE.green:.3f} {RULE.blue:.3f} RG 0.6 w\n" + "\n".join(
        f"0 {ly:.2f} m {table_w:.2f} {ly:.2f} l" for ly in (head_top, body_top, bottom)) + "\nS")
    # text, in reading order: caption, shared conditions, header, then each row left to right
    t.colour(INK)
    t.font(CAPTION.font, CAPTION.size)
    for ty, line in y_caption:
        t.text(0, ty, line)
    if label and y_shared:  # the label run in, on the shared conditions' first baseline
        t.text(0, y_shared[0][0], label)
    if y_shared:
        t.colour(GREY)
        t.font(SHARED.font, SHARED.size)
        for k, (ty, line) in enumerate(y_shared):
            t.text(lines.run_in_indent if k == 0 else 0, ty, line)
        t.colour(INK)
    t.font(head_style.font, head_style.size)
    lift = (cell_style.leading - cell_style.size) * 0.5 + 0.6
    right = set(block.figure_columns)
    head_width = metrics(head_style).width
    x = 0.0
    for c, (head_lines, w) in enumerate(zip(lines.head, block.widths)):
        ly = head_top - PAD_Y
        for line in head_lines:
            ly -= head_style.leading
            t.text(x + w - PAD_X - head_width(line) if c in right else x + PAD_X, ly + lift, line)
        x += w
    derived = set(block.derived_columns)
    width_of = metrics(cell_style).width
    current = None
    y = body_top
    for i, (row, h) in enumerate(zip(block.rows, block.row_heights)):
        x = 0.0
        for c, w in enumerate(block.widths):
            cell_lines = lines.cells[i][c]
            ly = y - PAD_Y - cell_style.leading + lift
            if cell_lines is None:
                planned = row[c]
                if not isinstance(planned, BoundCell):
                    raise LayoutError(f"{block.name}: row {block.first + i + 1}, column {c + 1} is a figure the plan "
                                      "does not hold")
                text = planned.shown_text
                want = NARROW_OBLIQUE if c in derived else NARROW
                if current != want:
                    t.font(want, cell_style.size)
                    current = want
                t.text(x + w - PAD_X - width_of(text), ly, text)
            else:
                if current != NARROW:
                    t.font(NARROW, cell_style.size)
                    current = NARROW
                if c in right:
                    for line in cell_lines:
                        t.text(x + w - PAD_X - width_of(line), ly, line)
                        ly -= cell_style.leading
                else:
                    t.lines(x + PAD_X, ly, cell_lines, cell_style.leading)
            x += w
        y -= h
    if block.footer:
        t.font(SMALL.font, SMALL.size)
        t.colour(GREY)
        [line] = block.footer  # planned: this share's "continues" line
        t.text(0, bottom - SMALL.leading, line.text)
    t.close()


def paint_notes(canv, block: TextBlock, height: float, metrics: Metrics) -> None:
    """A page's notes area, top at ``height``: a rule, then '[a] note' for each of the block's
    paragraphs, in its lines, in columns filled top down and left to right where the page is wide
    (the columns and where each starts as planned: layout.pager.balance)."""
    width = block.frame.width
    canv.saveState()
    canv.setStrokeColor(RULE)
    canv.setLineWidth(0.5)
    top = height - NOTES_TOP + 3.0
    canv.line(0, top + 2.5, min(width, 160.0), top + 2.5)
    canv.restoreState()
    step = NOTES.column_width(width, block.columns) + block.column_gap
    t = TextRuns(canv)
    t.colour(INK)
    lift = (NOTE.leading - NOTE.size) * 0.5 + 0.5
    x, y = 0.0, top
    for k, para in enumerate(block.paras):
        if k in block.column_starts:
            x, y = x + step, top
        if not para.lines:
            raise LayoutError(f"{block.name}: note [{para.mark}] without its planned lines")
        t.font(NOTE_MARK.font, NOTE_MARK.size)
        t.text(x, y - NOTE.leading + lift, marks_words([para.mark]))
        t.font(NOTE.font, NOTE.size)
        t.lines(x + NOTE_GUTTER, y - NOTE.leading + lift, para.lines, NOTE.leading)
        y -= len(para.lines) * NOTE.leading + NOTE_GAP
    t.close()


_HEAD_STYLES = {"caption": (CAPTION, INK), "shared": (SHARED, GREY), "small": (LEGEND, GREY)}


def paint_chart(canv, block: ChartBlock, height: float, metrics: Metrics) -> None:
    from reportlab.graphics import renderPDF

    renderPDF.draw(chart_drawing(block, height), canv, 0, 0)


def chart_drawing(block: ChartBlock, height: float):
    """A page's share of a bar chart as a reportlab Drawing, ``height`` points tall: its head's lines,
    each bar from zero with its band's whisker and its planned text (the BoundCell of the bar: the
    marks of this page), a bar without a figure with the words that say why, the axis and its words."""
    from reportlab.graphics.shapes import Drawing, Line, Rect, String

    lines = block.lines
    if lines is None or len(lines.heights) != len(block.bars):
        raise LayoutError(f"{block.name}: a chart share without its planned lines")
    d = Drawing(block.frame.width, height)
    y = height
    for kind, head in lines.head:
        style, colour = _HEAD_STYLES[kind]
        for line in head:
            y -= style.leading
            d.add(String(0, y + (style.leading - style.size) * 0.5, line, fontName=style.font, fontSize=style.size,
                         fillColor=colour))
    y -= 6.0
    top = y
    x0, plot_w = block.plot.left, block.plot.width
    scale = plot_w / block.axis_max
    band = block.band or 0.0
    for n, (bar, rank, labels, h) in enumerate(zip(block.bars, lines.ranks, lines.labels, lines.heights)):
        mid = y - h / 2
        ly = mid + (len(labels) * CELL.leading) / 2
        d.add(String(2.0, mid - CELL.size * 0.35, rank, fontName=NARROW, fontSize=CELL.size, fillColor=INK))
        for line in labels:
            ly -= CELL.leading
            d.add(String(lines.rank_width, ly + (CELL.leading - CELL.size) * 0.5 + 0.6, line, fontName=NARROW,
                         fontSize=CELL.size, fillColor=INK))
        if isinstance(bar.cell, BoundCell):
            v = bar.cell.figure.magnitude
            d.add(Rect(x0, mid - BAR_THICK / 2, v * scale, BAR_THICK, fillColor=BAR_FILL, strokeColor=None))
            end = v * scale
            if band:
                lo, hi = x0 + v * (1 - band) * scale, x0 + v * (1 + band) * scale
                for shape in (Line(lo, mid, hi, mid), Line(lo, mid - 3.5, lo, mid + 3.5),
                              Line(hi, mid - 3.5, hi, mid + 3.5)):
                    shape.strokeColor, shape.strokeWidth = INK, 0.8
                    d.add(shape)
                end = hi - x0
            font = NARROW_OBLIQUE if bar.cell.figure.derivation else NARROW
            d.add(String(x0 + end + 4.0, mid - CELL.size * 0.35, bar.cell.shown_text, fontName=font,
                         fontSize=CELL.size, fillColor=INK))
        elif bar.cell is None or not isinstance(bar.cell, str):
            raise LayoutError(f"{block.name}: bar {n + 1} holds neither a planned figure nor words")
        else:
            d.add(String(x0 + 2.0, mid - CELL.size * 0.35, bar.cell, fontName=NARROW_OBLIQUE,
                         fontSize=CELL.size, fillColor=GREY))
        y -= h
    axis = Line(x0, y - 2.0, x0 + plot_w, y - 2.0)
    axis.strokeColor, axis.strokeWidth = RULE, 0.8
    d.add(axis)
    zero = Line(x0, top, x0, y - 2.0)
    zero.strokeColor, zero.strokeWidth = RULE, 0.8
    d.add(zero)
    d.add(String(x0, y - 2.0 - SMALL.leading, lines.axis_words, fontName=SMALL.font, fontSize=SMALL.size,
                 fillColor=GREY))
    if lines.continues:
        d.add(String(0, y - AXIS_H - SMALL.leading + 2.0, lines.continues, fontName=SMALL.font, fontSize=SMALL.size,
                     fillColor=GREY))
    return d


def _prose(t: TextRuns, para: Para, x: float, y: float, metrics: Metrics) -> float:
    """A planned paragraph's lines from ``y`` down (its run-in words in bold); returns where it ends."""
    if para.style not in PROSE:
        raise LayoutError(f"a paragraph in no style of the briefing's ({para.style!r})")
    style, colour = PROSE[para.style]
    t.colour(colour)
    for k, line in enumerate(para.lines):
        y -= style.leading
        base = y + (style.leading - style.size) * 0.5 + 0.8
        if k == 0 and para.lead and line.startswith(para.lead):
            lead = Style(LEAD_FONT, style.size, style.leading)
            t.font(lead.font, lead.size)
            t.text(x, base, para.lead)
            t.font(style.font, style.size)
            t.text(x + metrics(lead).width(para.lead), base, line[len(para.lead):])
        else:
            t.font(style.font, style.size)
            t.text(x, base, line)
    return y


def paint_prose(canv, block: TextBlock, height: float, metrics: Metrics) -> None:
    """Paragraphs, each in its planned lines and style, from the top of the block down."""
    t = TextRuns(canv)
    y = height
    for k, para in enumerate(block.paras):
        y = _prose(t, para, 0.0, y - (PARA_GAP if k else 0.0), metrics)
    t.close()


def _tinted(canv, width: float, height: float, edge: float, radius: float = 0.0) -> None:
    """The tinted, edged box a headline or the title page's caveat stands in."""
    canv.saveState()
    canv.setFillColor(KPI_FILL)
    canv.setStrokeColor(KPI_EDGE)
    canv.setLineWidth(edge)
    if radius:
        canv.roundRect(0, 0, width, height, radius, stroke=1, fill=1)
    else:
        canv.rect(0, 0, width, height, stroke=1, fill=1)
    canv.restoreState()


def paint_box(canv, block: TextBlock, height: float, metrics: Metrics) -> None:
    """Paragraphs in a tinted box (the caveat on the title page), as planned."""
    _tinted(canv, block.frame.width, height, 0.6)
    t = TextRuns(canv)
    y = height - BOX_PAD
    for k, para in enumerate(block.paras):
        y = _prose(t, para, BOX_PAD, y - (PARA_GAP if k else 0.0), metrics)
    t.close()


def paint_headline(canv, block: KpiBlock, height: float, metrics: Metrics) -> None:
    """A headline box: its label, the figure as its BoundCell shows it on this page in large type,
    then its planned paragraphs (scenario and shape inline, who measured it, what it shares)."""
    if not isinstance(block.cell, BoundCell):
        raise LayoutError(f"{block.name}: its figure is a figure the plan does not hold")
    figure, *paras = block.paras
    _tinted(canv, block.frame.width, height, 0.8, radius=4)
    t = TextRuns(canv)
    y = height - KPI_PAD - SMALL.leading
    t.colour(GREY)
    t.font(SMALL.font, SMALL.size)
    t.text(KPI_PAD, y + 1.5, block.name)
    y -= 2.0 + figure.size * 1.25
    t.colour(INK)
    t.font(SANS_BOLD, figure.size)
    t.text(KPI_PAD, y + figure.size * 0.3, block.cell.shown_text)
    y -= 4.0
    for k, para in enumerate(paras):
        y = _prose(t, para, KPI_PAD, y - (PARA_GAP if k else 0.0), metrics)
    t.close()


def paint_heading(canv, block: TextBlock, height: float, metrics: Metrics) -> None:
    """A section's heading in its planned lines, and the outline entry (bookmark) it starts."""
    if block.outline:
        canv.bookmarkPage(block.outline)
        canv.addOutlineEntry(block.paras[0].text, block.outline, level=0)
    paint_prose(canv, block, height, metrics)


def paint_contents(canv, block: TextBlock, height: float, metrics: Metrics) -> None:
    """The title page's contents: its caption, then each entry's lines (continuation lines
    indented) with the page the entry starts on right-aligned on its first line."""
    caption, *entries = block.paras
    t = TextRuns(canv)
    t.colour(INK)
    t.font(CAPTION.font, CAPTION.size)
    y = height - CAPTION.leading
    t.text(0, y + 2.0, caption.text)
    y -= 4.0
    t.font(BODY.font, BODY.size)
    width = metrics(BODY).width
    for entry in entries:
        for k, line in enumerate(entry.lines):
            y -= BODY.leading
            t.text(0 if k == 0 else CONTENTS_INDENT, y + 3.0, line)
            if k == 0 and entry.tail:
                t.text(block.frame.width - width(entry.tail), y + 3.0, entry.tail)
    t.close()


def _rule(t: TextRuns, y: float, width: float) -> None:
    t.path(f"{RULE.red:.3f} {RULE.green:.3f} {RULE.blue:.3f} RG 0.5 w\n0 {y:.2f} m {width:.2f} {y:.2f} l\nS")


def paint_running_header(canv, block: TextBlock, height: float, metrics: Metrics) -> None:
    """The running header: the document's title on one line (as planned), over a rule."""
    t = TextRuns(canv)
    style, colour = PROSE["running header"]
    t.colour(colour)
    t.font(style.font, style.size)
    t.text(0, 5.0, block.paras[0].lines[0])
    _rule(t, 0.0, block.frame.width)
    t.close()


def paint_footer(canv, block: TextBlock, height: float, metrics: Metrics) -> None:
    """The footer: a rule, the one-line caveat in its planned lines, the page number right-aligned on
    the first of them."""
    [para] = block.paras
    t = TextRuns(canv)
    _rule(t, height, block.frame.width)
    style, colour = PROSE["footer"]
    t.colour(colour)
    t.font(style.font, style.size)
    for k, line in enumerate(para.lines):
        t.text(0, height - (k + 1) * style.leading, line)
    number = PROSE["running header"][0]
    t.colour(INK)
    t.font(number.font, number.size)
    t.text(block.frame.width - metrics(number).width(para.tail), height - style.leading, para.tail)
    t.close()


def painter_of(block):
    """The painter of a planned block: by its class, and a text block by its role (its name)."""
    if isinstance(block, TableBlock):
        return paint_table
    if isinstance(block, ChartBlock):
        return paint_chart
    if isinstance(block, KpiBlock):
        return paint_headline
    if isinstance(block, TextBlock) and block.name in _TEXT_PAINTERS:
        return _TEXT_PAINTERS[block.name]
    raise LayoutError(f"no painter for a planned {type(block).__name__} {getattr(block, 'name', '')!r}")


def _nothing(canv, block, height: float, metrics: Metrics) -> None:
    """A planned space: room kept above a table's next column part."""


_TEXT_PAINTERS = {"Notes": paint_notes, "paragraph": paint_prose, "box": paint_box, "heading": paint_heading,
                  "contents": paint_contents, "space": _nothing, "running header": paint_running_header,
                  "footer": paint_footer}
