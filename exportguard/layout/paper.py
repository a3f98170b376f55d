"""Paper: the sizes a printed artifact can be made for (a PDF briefing's pages, a workbook's printed
sheets), in points, portrait, and the orientations. One place, so that ``--page-size letter`` means
the same sheet of paper in every format."""
from __future__ import annotations

_MM = 72.0 / 2.54 * 0.1  # a millimetre in points, as reportlab computes it (the PDF's A4 stays the same float)
SIZES: dict[str, tuple[float, float]] = {"a4": (210 * _MM, 297 * _MM), "letter": (612.0, 792.0)}
ORIENTATIONS = ("portrait", "landscape")
DEFAULT_SIZE = "a4"


def size(name: str, orientation: str = "portrait") -> tuple[float, float]:
    """(width, height) in points of a sheet of this paper held this way."""
    w, h = SIZES[name]
    return (h, w) if orientation == "landscape" else (w, h)
