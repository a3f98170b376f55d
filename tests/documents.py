"""Documents made the way a person makes them (python-pptx, openpyxl, reportlab), for the checker's
tests: a deck and a workbook quoting bare figures (``*_person``), the same bound and cited as the design asks
(``*_bound``), others whose numbers are no throughputs (``*_other_numbers``), and a PDF of paragraphs.
NOTE and BOUND are the note and the bound figure the bound documents carry.

(The scored corpus of person-made documents, with what a reviewer flags in each, is tests/corpus/.)
"""
from __future__ import annotations

from pathlib import Path

from exportguard.caveat import TRADEMARK_LEGEND

NOTE = ("[a] Vendor X, 8x B200-SXM-180GB. MLPerf® Inference: Datacenter v5.1, Closed division, llama2-70b-99 "
        "Offline, result 5.1-0042, verified. 273.3 tokens/sample, OpenOrca. Source https://mlcommons.org/benchmarks/"
        "inference-datacenter/, retrieved 2025-09-09.")
BOUND = "101,527 tok/s ±5.4% [a]"


def pptx_person(path: Path) -> Path:
    from pptx import Presentation
    from pptx.chart.data import CategoryChartData
    from pptx.enum.chart import XL_CHART_TYPE
    from pptx.util import Inches

    prs = Presentation()
    s1 = prs.slides.add_slide(prs.slide_layouts[5])
    s1.shapes.title.text = "LLM inference results"
    s1.shapes.add_textbox(Inches(1), Inches(2), Inches(6), Inches(1)).text_frame.text = "Vendor X: 101.5k tok/s"
    s2 = prs.slides.add_slide(prs.slide_layouts[5])
    s2.shapes.title.text = "Comparison"
    table = s2.shapes.add_table(3, 2, Inches(1), Inches(2), Inches(6), Inches(2)).table
    for (r, c), text in {(0, 0): "System", (0, 1): "Throughput (tok/s)", (1, 0): "A", (1, 1): "101,527",
                         (2, 0): "B", (2, 1): "99,000"}.items():
        table.cell(r, c).text = text
    s3 = prs.slides.add_slide(prs.slide_layouts[5])
    s3.shapes.title.text = "Chart"
    data = CategoryChartData()
    data.categories = ["A", "B"]
    data.add_series("Throughput (tok/s)", (101527, 99000))
    chart = s3.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(2), Inches(6), Inches(4), data).chart
    chart.plots[0].has_data_labels = True
    chart.plots[0].data_labels.show_value = True
    s4 = prs.slides.add_slide(prs.slide_layouts[5])
    s4.shapes.title.text = "Offline"
    s4.shapes.add_textbox(Inches(1), Inches(2), Inches(6), Inches(1)).text_frame.text = "Vendor Y: 98,000 tok/s ±5.4% [a]"
    s5 = prs.slides.add_slide(prs.slide_layouts[5])
    s5.shapes.title.text = "Notes"
    s5.shapes.add_textbox(Inches(1), Inches(2), Inches(6), Inches(1)).text_frame.text = (
        "[a] Vendor Y, 8x B200, llama2-70b Offline, 273 tokens/sample")
    s5.notes_slide.notes_text_frame.text = "Say: about 120 tok/s per user"
    # grouped shapes
    s6 = prs.slides.add_slide(prs.slide_layouts[6])
    group = s6.shapes.add_group_shape()
    group.shapes.add_textbox(Inches(1), Inches(1), Inches(4), Inches(1)).text_frame.text = "Inside a group: 3.2M tokens per second"
    prs.save(path)
    return path


def pptx_bound(path: Path) -> Path:
    """A slide as the design asks: the figure with band and mark, its note on the same slide, the
    chart's labels and data carrying the binding through their number format, and the legend."""
    from pptx import Presentation
    from pptx.chart.data import CategoryChartData
    from pptx.enum.chart import XL_CHART_TYPE
    from pptx.util import Inches

    prs = Presentation()
    s = prs.slides.add_slide(prs.slide_layouts[5])
    s.shapes.title.text = "Vendor X leads llama2-70b-99 Offline (MLPerf® Inference v5.1)"
    s.shapes.add_textbox(Inches(1), Inches(1.5), Inches(6), Inches(1)).text_frame.text = f"Vendor X: {BOUND}"
    fmt = '#,##0" tok/s ±5.4% [a]"'
    data = CategoryChartData(number_format=fmt)
    data.categories = ["Vendor X"]
    data.add_series("Throughput (tok/s)", (101527,))
    chart = s.shapes.add_chart(XL_CHART_TYPE.BAR_CLUSTERED, Inches(1), Inches(2.5), Inches(6), Inches(3), data).chart
    chart.plots[0].has_data_labels = True
    chart.plots[0].data_labels.number_format = fmt
    chart.plots[0].data_labels.number_format_is_linked = False
    chart.plots[0].data_labels.show_value = True
    box = s.shapes.add_textbox(Inches(1), Inches(6), Inches(8), Inches(1)).text_frame
    box.text = NOTE
    box.add_paragraph().text = TRADEMARK_LEGEND
    prs.save(path)
    return path


def pptx_other_numbers(path: Path) -> Path:
    from pptx import Presentation
    from pptx.util import Inches

    prs = Presentation()
    s = prs.slides.add_slide(prs.slide_layouts[5])
    s.shapes.title.text = "Budget 2025: 12 nodes, 96 GPUs"
    t = s.shapes.add_table(3, 3, Inches(1), Inches(2), Inches(6), Inches(2)).table
    for (r, c), text in {(0, 0): "Item", (0, 1): "Cost (USD)", (0, 2): "p99 TTFT (ms)", (1, 0): "GPU hour",
                         (1, 1): "4.50", (1, 2): "450", (2, 0): "Target QPS", (2, 1): "12,000", (2, 2): "45.2"}.items():
        t.cell(r, c).text = text
    s.notes_slide.notes_text_frame.text = "Renewal due 2025-09-09; latency 2,000 ms at most; 1,024 output tokens."
    prs.save(path)
    return path


def xlsx_person(path: Path) -> Path:
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Results"
    ws.append(["System", "tok/s"])
    ws.append(["A", 101527])
    ws.append(["B", 99000])
    ws["D1"] = "Best: 101.5k tok/s"
    other = wb.create_sheet("Formats")
    other.append(["Vendor", "Result"])
    other.append(["C", 88000])
    other["B2"].number_format = '#,##0" tok/s"'  # a number whose format shows a unit and nothing else
    from openpyxl.comments import Comment

    other["A2"].comment = Comment("Measured at 88,000 tokens/s on our cluster", "analyst")
    wb.save(path)
    return path


def xlsx_bound(path: Path) -> Path:
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "llama2-70b-99 Offline"
    ws.append(["System", "Throughput"])
    ws.append(["Vendor X", 101527.4])
    ws["B2"].number_format = '#,##0" tok/s ±5.4% [a]"'
    ws.append([])
    ws.append([NOTE])
    ws.append([TRADEMARK_LEGEND])
    wb.save(path)
    return path


def xlsx_other_numbers(path: Path) -> Path:
    import datetime as dt

    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["Item", "Price (USD)", "Latency p99 (ms)", "Count", "Date"])
    ws.append(["GPU hour", 4.5, 450, 12, dt.date(2025, 9, 9)])
    ws.append(["Support", 1200, 2000, 3, dt.date(2025, 10, 1)])
    ws["B2"].number_format = '"$"#,##0.00'
    wb.save(path)
    return path


def pdf_paragraphs(path: Path, paragraphs: list[list[str]]) -> Path:
    """One page per list of paragraphs."""
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate

    style = getSampleStyleSheet()["Normal"]
    story = []
    for n, page in enumerate(paragraphs):
        if n:
            story.append(PageBreak())
        story += [Paragraph(p.replace("&", "&amp;").replace("<", "&lt;"), style) for p in page]
    SimpleDocTemplate(str(path), pagesize=A4).build(story)
    return path
