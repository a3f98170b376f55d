"""The one font finder: where the TrueType files that exportguard measures and draws with are.

- ``installed(family, bold)``: an installed family (a deck's theme font, Calibri), or its
  metric-compatible twin (Carlito), found by fontconfig, else by scanning the usual folders: what a
  deck's layout measures with (render/pptx_layout.py);
- ``face_file(name)``: the faces a PDF briefing embeds and a chart picture is drawn in (DejaVu Sans
  as Debian ships it, else the Bitstream Vera faces reportlab ships): fixed faces, so that the
  same report draws the same on any machine with them (render/pdf_text.py, render/chart_picture.py).

Nothing here imports reportlab or Pillow until a file is looked for.
"""
from __future__ import annotations

import functools
import os
import shutil
import subprocess
from pathlib import Path

ALIASES = {  # metric-compatible twins, tried when a font itself is not installed
    "calibri": ("Carlito",), "cambria": ("Caladea",),
    "arial": ("Liberation Sans", "Arimo"), "helvetica": ("Liberation Sans", "Arimo"),
    "times new roman": ("Liberation Serif", "Tinos"), "courier new": ("Liberation Mono", "Cousine"),
    "arial narrow": ("Liberation Sans Narrow",),
}
FONT_DIRS = ("/usr/share/fonts", "/usr/local/share/fonts", "~/.fonts", "~/.local/share/fonts",
             "/Library/Fonts", "/System/Library/Fonts", "~/Library/Fonts", "C:/Windows/Fonts")

@functools.lru_cache(maxsize=64)
def installed(family: str, bold: bool = False) -> str | None:
    """The installed TrueType/OpenType file of ``family`` (or of its metric-compatible twin)."""
    for name in (family, *ALIASES.get(family.strip().lower(), ())):
        path = _fc_match(name, bold) or _scan(name, bold)
        if path:
            return path
    return None


def _fc_match(family: str, bold: bool) -> str | None:
    exe = shutil.which("fc-match")
    if not exe:
        return None
    pattern = f"{family}:weight=bold" if bold else f"{family}:weight=regular:slant=roman"
    try:
        done = subprocess.run([exe, "-f", "%{family}\n%{style}\n%{file}", pattern], capture_output=True,
                              text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = done.stdout.split("\n")
    if done.returncode or len(lines) < 3:
        return None
    families = {f.strip().lower() for f in lines[0].split(",")}
    if family.strip().lower() not in families:
        return None  # fontconfig answers every question; only an exact family is this font
    if bold and "bold" not in lines[1].lower():
        return None
    return lines[2].strip() or None


@functools.lru_cache(maxsize=1)
def _font_index() -> dict[tuple[str, bool], str]:
    """(family, bold) -> file for fonts in the usual folders: only where fontconfig is missing."""
    from PIL import ImageFont

    index: dict[tuple[str, bool], str] = {}
    for folder in FONT_DIRS:
        root = Path(os.path.expanduser(folder))
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*")):
            if path.suffix.lower() not in (".ttf", ".otf"):
                continue
            try:
                family, style = ImageFont.truetype(str(path), 10).getname()
            except OSError:
                continue
            style = (style or "").lower()
            if "italic" in style or "oblique" in style:
                continue
            index.setdefault(((family or "").lower(), "bold" in style), str(path))
    return index


def _scan(family: str, bold: bool) -> str | None:
    if shutil.which("fc-match"):
        return None  # fontconfig already said no
    return _font_index().get((family.strip().lower(), bold))


DEJAVU_DIRS = ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/dejavu", "/usr/local/share/fonts/dejavu")
# The faces a briefing embeds and a chart picture is drawn in: (registered name, DejaVu file, reportlab's own
# Vera file as the fallback)
BRIEFING_FACES = {
    "EG-Sans": ("DejaVuSans.ttf", "Vera.ttf"),
    "EG-Sans-Bold": ("DejaVuSans-Bold.ttf", "VeraBd.ttf"),
    "EG-Sans-Oblique": ("DejaVuSans-Oblique.ttf", "VeraIt.ttf"),
    "EG-Sans-BoldOblique": ("DejaVuSans-BoldOblique.ttf", "VeraBI.ttf"),
    "EG-Narrow": ("DejaVuSansCondensed.ttf", "Vera.ttf"),
    "EG-Narrow-Bold": ("DejaVuSansCondensed-Bold.ttf", "VeraBd.ttf"),
    "EG-Narrow-Oblique": ("DejaVuSansCondensed-Oblique.ttf", "VeraIt.ttf"),
    "EG-Narrow-BoldOblique": ("DejaVuSansCondensed-BoldOblique.ttf", "VeraBI.ttf"),
}
def face_file(name: str) -> Path:
    """The TrueType file behind a registered name: DejaVu as Debian ships it (fonts-dejavu-core),
    else the Bitstream Vera faces reportlab ships (DejaVu's ancestor: ±, ® and ≈ included)."""
    dejavu, vera = BRIEFING_FACES[name]
    folders = [os.environ["EXPORTGUARD_PDF_FONT_DIR"]] if os.environ.get("EXPORTGUARD_PDF_FONT_DIR") else []
    for folder in folders + list(DEJAVU_DIRS):
        path = Path(folder) / dejavu
        if path.is_file():
            return path
    import reportlab

    return Path(reportlab.__file__).parent / "fonts" / vera
