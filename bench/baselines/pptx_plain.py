"""Baseline for the pptx case of bench/run.py: a plain python-pptx script that writes the same visible content
as an exportguard deck, from a JSON description of it (slides, titles, table cells with the same
footer rows of notes merged across each table, text boxes, speaker notes), with python-pptx's public
API only: ``cell.text``, ``cell.merge``, ``text_frame.text``. No binding, no layout from metrics, no
escaping, no charts, no manifest: what "writing the cells" costs by itself.

    python bench/baselines/pptx_plain.py content.json out.pptx     # prints {"seconds": ..., "maxrss_mb": ...}
"""
from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path


def deck_content(path: Path) -> dict:
    """What a deck shows, for the baseline to write again: titles, tables, text boxes, notes."""
    from pptx import Presentation

    prs = Presentation(path)
    slides = []
    for n, slide in enumerate(prs.slides):
        spec = {"kind": "title" if n == 0 else "content", "title": "", "tables": [], "boxes": [], "notes": ""}
        for shape in slide.shapes:
            box = [shape.left, shape.top, shape.width, shape.height]
            if shape.is_placeholder and shape.placeholder_format.type.name in ("TITLE", "CENTER_TITLE"):
                spec["title"] = shape.text_frame.text
            elif shape.has_table:
                t = shape.table
                rows = []
                for row in t.rows:
                    merged = len(t.columns) > 1 and row.cells[0]._tc.get("gridSpan") == str(len(t.columns))
                    rows.append([row.height, [c.text for c in row.cells][:1 if merged else None], merged])
                spec["tables"].append({"box": box, "widths": [c.width for c in t.columns], "rows": rows,
                                       "name": shape.name})
            elif shape.has_text_frame:
                spec["boxes"].append({"box": box, "paragraphs": [p.text for p in shape.text_frame.paragraphs]})
        if slide.has_notes_slide:
            spec["notes"] = slide.notes_slide.notes_text_frame.text
        slides.append(spec)
    return {"width": prs.slide_width, "height": prs.slide_height, "slides": slides}


def write(content: dict, out: str) -> None:
    from pptx import Presentation
    from pptx.util import Emu

    prs = Presentation()
    prs.slide_width, prs.slide_height = Emu(content["width"]), Emu(content["height"])
    title_slide, title_only = prs.slide_layouts[0], prs.slide_layouts[5]
    for spec in content["slides"]:
        slide = prs.slides.add_slide(title_slide if spec["kind"] == "title" else title_only)
        slide.shapes.title.text = spec["title"]
        for table in spec["tables"]:
            left, top, width, height = table["box"]
            shape = slide.shapes.add_table(len(table["rows"]), len(table["widths"]), Emu(left), Emu(top), Emu(width),
                                           Emu(height))
            t = shape.table
            for c, w in enumerate(table["widths"]):
                t.columns[c].width = Emu(w)
            for r, (h, cells, merged) in enumerate(table["rows"]):
                t.rows[r].height = Emu(h)
                if merged:
                    t.cell(r, 0).text = cells[0]
                    t.cell(r, 0).merge(t.cell(r, len(table["widths"]) - 1))
                else:
                    for c, text in enumerate(cells):
                        t.cell(r, c).text = text
        for box in spec["boxes"]:
            left, top, width, height = box["box"]
            tf = slide.shapes.add_textbox(Emu(left), Emu(top), Emu(width), Emu(height)).text_frame
            tf.word_wrap = True
            tf.text = "\n".join(box["paragraphs"])
        slide.notes_slide.notes_text_frame.text = spec["notes"]
    prs.save(out)


def main(argv: list[str]) -> None:
    with open(argv[0], encoding="utf-8") as f:
        content = json.load(f)
    t0 = time.perf_counter()
    write(content, argv[1])
    seconds = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    try:  # VmHWM starts afresh at exec; ru_maxrss keeps the forking parent's high-water mark
        with open("/proc/self/status", encoding="ascii") as f:
            rss = next(int(line.split()[1]) / 1024 for line in f if line.startswith("VmHWM:"))
    except (OSError, StopIteration):
        pass
    print(json.dumps({"seconds": seconds, "maxrss_mb": rss}))


if __name__ == "__main__":
    main(sys.argv[1:])
