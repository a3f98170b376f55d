"""A bar chart as a picture (PNG, drawn with Pillow), for a format that shows a chart as an image
(a Word file): one horizontal bar per result, highest first, from zero to the figure, a whisker
over the figure's band, and beside each bar its rank words, who it is, and the figure's bound text
(value, unit, band, marks) exactly as the table under the chart shows it. The value axis has no
bare scale numbers: every number drawn is a bound figure. The same bars as the PDF's charts
(render/pdf_chart.py draws them with reportlab); the picture's alt text lists them (``alt_text``).

The picture is the same bytes for the same bars (no timestamps; Pillow's PNG writer is
deterministic), drawn in DejaVu Sans (fonts.face_file, the briefing's face) at 150 dots per inch.
"""
from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Sequence

DPI = 150
_PX = DPI / 72.0  # pixels per point
FONT_PT = 8.0
PITCH_PT = 15.0  # a bar's row
BAR_PT = 8.5
BAR_FILL = (47, 95, 143)
WHISKER = (30, 30, 30)
TEXT = (20, 20, 20)
MUTED = (90, 90, 90)


@dataclass(frozen=True)
class PictureBar:
    rank: str  # the guard's words ("3 (tie 2-5)"), or "" where the chart shows no rank
    who: str  # "NVIDIA, DGX B200 (8x B200-SXM-180GB, TensorRT)"
    text: str  # the figure as bound, with its marks; or the words that say why there is none
    value: float | None  # where the bar ends (None: no bar)
    band: float  # the band as a fraction of the value (0: no whisker)


def height_pt(bars: Sequence[PictureBar]) -> float:
    return PITCH_PT * len(bars) + 16.0


def draw(bars: Sequence[PictureBar], width_pt: float, axis_words: str) -> bytes:
    """The chart ``width_pt`` points wide, as PNG bytes."""
    from PIL import Image, ImageDraw, ImageFont

    from .fonts import face_file

    font = ImageFont.truetype(str(face_file("EG-Sans")), round(FONT_PT * _PX))
    small = ImageFont.truetype(str(face_file("EG-Sans")), round((FONT_PT - 1) * _PX))
    w, h = round(width_pt * _PX), round(height_pt(bars) * _PX)
    img = Image.new("RGB", (w, h), "white")
    pen = ImageDraw.Draw(img)
    gap = 6 * _PX
    rank_w = max([pen.textlength(b.rank, font=font) for b in bars] + [0.0]) + (gap if any(b.rank for b in bars) else 0)
    who_w = min(0.42 * w, max([pen.textlength(b.who, font=font) for b in bars] + [0.0]) + gap)
    text_w = max([pen.textlength(b.text, font=font) for b in bars] + [40.0]) + gap
    plot_x = rank_w + who_w
    plot_w = max(60 * _PX, w - plot_x - text_w)
    top = max((b.value * (1 + b.band) for b in bars if b.value), default=1.0) or 1.0
    pitch, thick = PITCH_PT * _PX, BAR_PT * _PX
    for k, bar in enumerate(bars):
        y = k * pitch + 2 * _PX
        mid = y + thick / 2
        if bar.rank:
            pen.text((0, mid), bar.rank, font=font, fill=MUTED, anchor="lm")
        pen.text((rank_w, mid), _fit(pen, bar.who, font, who_w - gap), font=font, fill=TEXT, anchor="lm")
        end = plot_x
        if bar.value:
            end = plot_x + plot_w * bar.value / top
            pen.rectangle((plot_x, y, max(plot_x + 1, end), y + thick), fill=BAR_FILL)
            if bar.band:
                lo, hi = (plot_x + plot_w * bar.value * (1 + s * bar.band) / top for s in (-1, 1))
                pen.line((lo, mid, hi, mid), fill=WHISKER, width=max(1, round(0.8 * _PX)))
                for x in (lo, hi):
                    pen.line((x, mid - thick / 3, x, mid + thick / 3), fill=WHISKER, width=max(1, round(0.8 * _PX)))
        pen.text((plot_x + plot_w + gap, mid), bar.text, font=font, fill=TEXT, anchor="lm")
    base = len(bars) * pitch + 2 * _PX
    pen.line((plot_x, 0, plot_x, base), fill=MUTED, width=1)
    pen.text((plot_x, base + 2 * _PX), axis_words, font=small, fill=MUTED, anchor="lt")
    out = io.BytesIO()
    img.save(out, "PNG", optimize=False)
    return out.getvalue()


def _fit(pen, text: str, font, room: float) -> str:
    """The text, cut with an ellipsis to ``room`` pixels (the alt text and the table keep it whole)."""
    if pen.textlength(text, font=font) <= room:
        return text
    while text and pen.textlength(text + "…", font=font) > room:
        text = text[:-1]
    return text.rstrip() + "…"


def alt_text(title: str, bars: Sequence[PictureBar]) -> str:
    """What a screen reader says for the picture: its title, then each bar on a line of its own."""
    lines = [title]
    for k, bar in enumerate(bars, 1):
        rank = f"rank {bar.rank}, " if bar.rank else ""
        lines.append(f"{k}. {rank}{bar.who}: {bar.text}")
    return "\n".join(lines)
