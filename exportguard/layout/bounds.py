"""What a laid-out document must never do, read off the plan itself: a block outside its slide or
page, two blocks on top of each other, a table whose rows take more room than its frame, text or
notes under the legible floor. The planners aim at these; tests and benchmarks hold them to it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from .document import ChartBlock, Document, Frame, KpiBlock, TableBlock, TextBlock, Unit

SLACK = 0.5  # pt: rounding of positions to a format's unit (EMU, PDF points) is not an overflow


@dataclass(frozen=True, slots=True)
class Floors:
    """The smallest sizes a document may show: a table's text, its notes (footer rows, notes
    blocks), a chart's labels."""

    text: float = 0.0
    notes: float = 0.0
    labels: float = 0.0


def problems(document: Document, floors: Floors = Floors()) -> list[str]:
    """Every way the document breaks its bounds or its floors, one line each; [] when none."""
    return [f"{u.kind} {u.number} ({u.title[:60]}): {p}" for u in document.units
            for p in _unit_problems(document, u, floors)]


def _unit_problems(document: Document, unit: Unit, floors: Floors) -> Iterator[str]:
    page = Frame(0.0, 0.0, document.width, document.height)
    for block in unit.blocks:
        f = block.frame
        if f.left < -SLACK or f.top < -SLACK or f.right > page.right + SLACK or f.bottom > page.bottom + SLACK:
            yield f"{block.kind} {block.name!r} overflows the {unit.kind}: {_box(f)} in {_box(page)}"
    for i, a in enumerate(unit.blocks):
        for b in unit.blocks[i + 1:]:
            if _overlap(a.frame, b.frame):
                yield f"{a.kind} {a.name!r} and {b.kind} {b.name!r} overlap: {_box(a.frame)} and {_box(b.frame)}"
    for block in unit.blocks:
        yield from _block_problems(block, floors)


def _block_problems(block, floors: Floors) -> Iterator[str]:
    if isinstance(block, TableBlock):
        need = block.header_h + sum(block.row_heights) + sum(block.footer_heights)
        if need > block.frame.height + SLACK:
            yield f"table {block.name!r} needs {need:.1f} pt, its frame is {block.frame.height:.1f} pt high"
        if sum(block.widths) > block.frame.width + SLACK:
            yield f"table {block.name!r} is {sum(block.widths):.1f} pt wide in a {block.frame.width:.1f} pt frame"
        if block.rows and block.body_pt < floors.text:
            yield f"table {block.name!r} text at {block.body_pt:g} pt, under {floors.text:g}"
        if block.rows and block.note_pt < floors.notes:  # its footer rows' notes (a "continues" line is not one)
            yield f"table {block.name!r} notes at {block.note_pt:g} pt, under {floors.notes:g}"
    elif isinstance(block, ChartBlock):
        if block.label_pt < floors.labels:
            yield f"chart {block.name!r} labels at {block.label_pt:g} pt, under {floors.labels:g}"
        p, f = block.plot, block.frame
        if p.left < -SLACK or p.top < -SLACK or p.right > f.width + SLACK or p.bottom > f.height + SLACK:
            yield f"chart {block.name!r} plot {_box(p)} outside its frame {f.width:.1f}x{f.height:.1f}"
    elif isinstance(block, KpiBlock) or isinstance(block, TextBlock) and block.name.lower().startswith("notes"):
        # a headline's box holds the figure and its conditions, then its notes
        small = [p for p in (block.paras[2:] if isinstance(block, KpiBlock) else block.paras) if p.size < floors.notes]
        if small:
            yield f"{block.kind} {block.name!r} notes at {min(p.size for p in small):g} pt, under {floors.notes:g}"


def _overlap(a: Frame, b: Frame) -> bool:
    return (min(a.right, b.right) - max(a.left, b.left) > SLACK and
            min(a.bottom, b.bottom) - max(a.top, b.top) > SLACK)


def _box(f: Frame) -> str:
    return f"{f.left:.1f},{f.top:.1f} {f.width:.1f}x{f.height:.1f}"
