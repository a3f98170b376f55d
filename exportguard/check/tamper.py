"""An exportguard artifact against its manifest: is every figure still where it was exported, with
its binding, and was anything added?

The manifest (docs/manifest.md) records, for each figure, its ``location``, what the artifact
showed there (``shown`` = text and, for a numeric cell, the number; ``shown_sha256``), its marks
and the notes they resolve to. ``ManifestCheck`` watches what the reader finds (it is the
evaluator's observer) and, at the end, compares:

- the item at each manifest location: the same text and number (at a spreadsheet's 15 significant
  digits) as ``shown`` -> intact (``shown_sha256`` itself is checked against ``shown``); the same figure found at
  another location of the same scope -> moved (sorted, rows inserted: not an edit); otherwise
  edited (EG017: ``exported 101527, now 111527``), its binding stripped (EG018: a number format,
  band, mark or unit removed), or removed (EG017);
- each manifest note: still standing, in visible text (not only in a cell comment), on the
  figure's slide, sheet or page (EG018 when a footer row or note was removed);
- the one-line caveat: still on each slide, sheet or page that shows figures (EG010);
- figures in the artifact that the manifest does not list (EG019: added after export), band edges
  and copies of a listed figure (a sort column, a cell comment) excepted.

A format plugs in by the location kind its record names (exportguard/formats.py), whose syntax
(``SYNTAX``, from the patterns in exportguard/embedding.py that the renderers write by) says how a
location names its scope and how a person reads it. XLSX, CSV and Markdown readers emit items at exactly the manifest's locations
(a Word file's reader: its body's paragraphs and table cells);
a format whose reader cannot address every location (a PDF's table cell) still gets the
scope-level comparison, because a figure that is not found at its location is looked for by its
shown text in its scope.
"""
from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass
from typing import Callable

from ..detect import defuse, find_figures
from ..embedding import DOCX_EXACT, PDF_SCOPE, PPTX_CELL, PPTX_SCOPE, xlsx_sheet_of
from ..formats import BY_NAME, CELL, DOCUMENT_LINE, FLOW, PAGE, SHAPE
from ..manifest import shown_digest
from ..sanitize import visible
from ..wording import marks_words
from .evaluate import DOCUMENT, EMBEDDED, Figure, Hit, hit, on

# Texts that do not stand where a reader sees them: a cell's comment, text inside a chart's workbook.
_UNSEEN = ("comment", EMBEDDED)


def _xlsx_scope(location: str) -> str:
    return f"Sheet '{xlsx_sheet_of(location)}'"


def _prefix_scope(rx: re.Pattern) -> Callable[[str], str]:
    def scope(location: str) -> str:
        m = rx.match(location)
        return m.group(1) if m else DOCUMENT

    return scope


@dataclass(frozen=True)
class Syntax:
    scope_of: Callable[[str], str]  # a manifest location -> the reader's scope name
    where: Callable[[str], str]  # a manifest location -> what a person reads
    exact: Callable[[str], bool] = lambda loc: True  # the reader emits an item at exactly this location
    by_text: bool = False  # some locations are not addressable: keep each scope's text to look in


# By the location kind a format's record names (exportguard/formats.py).
SYNTAX = {
    CELL: Syntax(_xlsx_scope, lambda loc: "Sheet " + loc),
    DOCUMENT_LINE: Syntax(lambda loc: DOCUMENT, lambda loc: loc),
    SHAPE: Syntax(_prefix_scope(PPTX_SCOPE), lambda loc: loc, lambda loc: bool(PPTX_CELL.fullmatch(loc)), True),
    PAGE: Syntax(_prefix_scope(PDF_SCOPE), lambda loc: loc, lambda loc: False, True),
    # a Word file is one scope; its body's paragraphs and table cells are exact, a chart picture's bar
    # is found by its text (the picture's alt text)
    FLOW: Syntax(lambda loc: DOCUMENT, lambda loc: loc, lambda loc: bool(DOCX_EXACT.fullmatch(loc)), True),
}


def syntax_of(fmt: str) -> Syntax:
    """How the locations of a format's manifest read (a format the registry does not know: as a text file's)."""
    record = BY_NAME.get(fmt)
    return SYNTAX[record.locations if record else DOCUMENT_LINE]


def _norm(text: str) -> str:
    text = text.replace("&lt;", "<").replace("\\|", "|").replace("\\\\", "\\")
    return " ".join(text.split())


_PREFIX = 64


def _squash(text: str) -> str:
    """Text compared whatever its line breaks (a PDF or a slide wraps a long note anywhere) and in its
    compatibility form (a PDF draws '＝' as '=' where its faces lack the full-width sign)."""
    squashed = "".join(_norm(text).split())
    return squashed if squashed.isascii() else unicodedata.normalize("NFKC", squashed)


def _shown_note(note: str) -> str:
    """A note as a paged format shows source text in it: what reads like a mark or a figure defused
    ('[t]' as '(t)'; detect.defuse, the renderers' own layer), controls and invisible characters shown
    (sanitize.visible). Worked out only for a note not found as the manifest records it."""
    return _squash(defuse(visible(note)))


def _note_stands(want: str, seen) -> bool:
    # a note may run on into the next line of a PDF page or slide: it must begin with the exported note
    if any(n.startswith(want) for n in seen.get(want[:_PREFIX], ())):
        return True
    return len(want) < _PREFIX and any(k.startswith(want) for k in seen)  # a short note that runs on


def _num(v) -> str:
    if v is None:
        return "nothing"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return f"{v:.10g}" if isinstance(v, float) else str(v)


def _short(text: str, n: int = 90) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _same(a, b) -> bool:
    """Two numbers a cell may hold for one exported value: equal to 14 significant digits (openpyxl
    writes 16, LibreOffice 15 to 17; the manifest records the exporter's own float). The manifest's
    shown_sha256 is over that float, so it is checked against the manifest's own ``shown``."""
    if a is None or b is None:
        return a is b
    try:
        return abs(float(a) - float(b)) <= 1e-14 * max(abs(float(a)), abs(float(b)))
    except (TypeError, ValueError):
        return False


@dataclass
class _Entry:
    key: str
    scope: str
    where: str
    text: str
    value: float | None
    sha: str
    marks: list
    notes: list
    figure_text: str


class ManifestCheck:
    def __init__(self, manifest: dict, fmt: str):
        self.syntax = syntax_of(fmt)
        self.entries: dict[str, _Entry] = {}
        for e in manifest.get("figures") or ():
            if not isinstance(e, dict) or not isinstance(e.get("location"), str):
                continue
            shown = e.get("shown") if isinstance(e.get("shown"), dict) else {}
            loc = e["location"]
            text = shown.get("text") if isinstance(shown.get("text"), str) else str(e.get("text", ""))
            self.entries[loc] = _Entry(loc, self.syntax.scope_of(loc), self.syntax.where(loc), text,
                                       shown.get("value"), str(e.get("shown_sha256", "")), list(e.get("marks") or ()),
                                       [n for n in (e.get("notes") or ()) if isinstance(n, str)], str(e.get("text", "")))
        self.caveat = _squash(manifest.get("caveat_short") or "")
        self.found: dict[str, tuple] = {}  # location -> (text, value, where, line)
        self.caveat_in: set[str] = set()
        self.notes_in: dict[str, dict[str, list[str]]] = defaultdict(dict)  # scope -> first chars -> notes
        self.figures_in: dict[str, list[Figure]] = defaultdict(list)
        self.figure_items: dict[str, dict[str, tuple]] = defaultdict(dict)  # scope -> location -> (text, value)
        self.texts: dict[str, list[str]] = defaultdict(list)  # scope -> its texts, squashed (formats with by_text)
        self.scopes: list[str] = []

    # -- the evaluator's observer ---------------------------------------------------------------
    def scope(self, name: str) -> None:
        self.scopes.append(name)

    def item(self, scope: str, key: str, where: str, text: str, value, kind: str, line) -> None:
        if key in self.entries:
            self.found[key] = (text, value, where, line)
        if self.syntax.by_text and kind not in _UNSEEN:
            self.texts[scope].append(_squash(text))
        if (self.caveat and scope not in self.caveat_in and kind not in _UNSEEN and len(text) >= len(self.caveat)
                and self.caveat in _squash(text)):
            self.caveat_in.add(scope)

    def note(self, scope: str, mark: str, text: str, kind: str) -> None:
        if kind not in _UNSEEN:
            squashed = _squash(text)
            self.notes_in[scope].setdefault(squashed[:_PREFIX], []).append(squashed)

    def figure(self, scope: str, fig: Figure, text: str) -> None:
        self.figures_in[scope].append(fig)
        self.figure_items[scope].setdefault(fig.key, (text, fig.value))

    # -- the comparison ---------------------------------------------------------------------------
    def finish(self) -> list[Hit]:
        hits: list[Hit] = []
        # what each location shows now, as (scope, digest) -> locations; each explains one entry at most
        shows: dict[str, tuple[str, str, float | None]] = {}  # location -> (scope, text, number)
        for key, (text, value, _where, _line) in self.found.items():
            shows[key] = (self.entries[key].scope, text, value)  # the manifest's scope naming
        for scope, items in self.figure_items.items():
            for key, (text, value) in items.items():
                shows.setdefault(key, (scope, text, value))
        intact = {e.key for e in self.entries.values()
                  if e.key in shows and shows[e.key][1] == e.text and _same(shows[e.key][2], e.value)}
        free: dict[tuple[str, str], list[tuple[str, float | None]]] = defaultdict(list)
        for key, (scope, text, value) in shows.items():
            if key not in intact:
                free[(scope, text)].append((key, value))
        exported_at = defaultdict(list)
        for e in self.entries.values():
            exported_at[(e.scope, e.text)].append(e)
        # for locations a reader does not address (a PDF's table cell): each exported text may be found
        # on its slide or page as often as it stands there
        joined = {scope: "\n".join(texts) for scope, texts in self.texts.items()}
        used: dict[tuple[str, str], int] = defaultdict(int)
        moved = 0
        for e in self.entries.values():
            if e.key in intact:
                continue
            spare = free.get((e.scope, e.text), [])
            match = next((i for i, (_k, v) in enumerate(spare) if _same(v, e.value)), None)
            if match is not None:  # moved (a sorted table, an inserted row)
                spare.pop(match)
                moved += 1
                continue
            if not self.syntax.exact(e.key) and e.key not in self.found:
                want = (e.scope, _squash(e.text))
                if want[1] and used[want] < joined.get(e.scope, "").count(want[1]):  # still shown on its page
                    used[want] += 1
                    continue
            hits.append(self._changed(e, self.found.get(e.key), exported_at))
        bad = [e for e in self.entries.values() if e.sha != shown_digest(e.text, e.value)]
        if bad:
            hits.insert(0, hit("manifest-invalid", "manifest", f"shown_sha256 of {len(bad)} figure(s) does not match what "
                               f"the manifest says is shown (first: {bad[0].where})", scope=DOCUMENT))
        hits += self._notes()
        hits += self._caveat()
        hits += self._added()
        self.moved = moved
        return hits

    def _changed(self, e: _Entry, got, exported_at) -> Hit:
        at = dict(scope=e.scope, key=e.key)
        if got is None:
            return hit("edited-figure", e.where, f"exported {e.text!r}, now nothing at this location: the figure was "
                       "removed", exported=e.text, now="", **at)
        text, value, where, line = got
        at["line"] = line
        if where != e.where and line is not None:
            e = _Entry(e.key, e.scope, where, e.text, e.value, e.sha, e.marks, e.notes, e.figure_text)
        other = next((o for o in exported_at.get((e.scope, text), ()) if o.key != e.key and _same(o.value, value)), None)
        if other is not None:
            return hit("edited-figure", e.where, f"exported {e.text!r}; it is no longer in the artifact (this location "
                       f"now shows {text!r}, exported at {other.where})", exported=e.text, now=text, **at)
        old_n, new_n = _lead_number(e.text), _lead_number(text)
        if e.value is not None:  # a numeric cell, or a CSV figure with its value column
            if value is None:
                return hit("edited-figure", e.where, f"exported the number {_num(e.value)} (shown {e.text!r}), now the "
                           f"text {text!r}", exported=_num(e.value), now=text, **at)
            if not _same(value, e.value):
                return hit("edited-figure", e.where, f"exported {_num(e.value)}, now {_num(value)} (shown {text!r})",
                           exported=_num(e.value), now=_num(value), **at)
            if old_n is None or new_n is None or new_n[1] == old_n[1]:
                return hit("stripped-binding", e.where, f"the number format changed: exported it showed {e.text!r}, "
                           f"now {text!r}{_what_went(e.text, text)}", exported=e.text, now=text, **at)
            # the number kept, the text beside it edited (a CSV's figure column): compared as text below
        if new_n is None:
            return hit("edited-figure", e.where, f"exported {e.text!r}, now {text!r}", exported=e.text, now=text, **at)
        if old_n is not None and new_n[1] != old_n[1]:
            return hit("edited-figure", e.where, f"exported {old_n[0]}, now {new_n[0]} (the text reads {text!r})",
                       exported=old_n[0], now=new_n[0], **at)
        return hit("stripped-binding", e.where, f"exported {e.text!r}, now {text!r}{_what_went(e.text, text)}",
                   exported=e.text, now=text, **at)

    def _notes(self) -> list[Hit]:
        missing: dict[tuple[str, str, str], list[_Entry]] = defaultdict(list)
        for e in self.entries.values():
            seen = self.notes_in.get(e.scope, {})
            for mark, note in zip(e.marks, e.notes):
                raw = _squash(note)
                found = _note_stands(raw, seen) or _note_stands(_shown_note(note), seen)
                if not found:
                    missing[(e.scope, mark, note)].append(e)
        hits = []
        for (scope, mark, note), entries in missing.items():
            figs = entries[0].where + (f" and {len(entries) - 1} more" if len(entries) > 1 else "")
            hits.append(hit("stripped-binding", scope, f"note [{mark}] of {figs} no longer stands {on(scope)}: "
                            f"{_short(note)!r} (removed since export)", scope=scope, exported=note, now="",
                            key=entries[0].key))
        return hits

    def _caveat(self) -> list[Hit]:
        if not self.caveat:
            return []
        hits = []
        for scope in sorted({e.scope for e in self.entries.values()}):
            if scope in self.caveat_in or any(s.startswith(scope + ",") and s in self.caveat_in for s in self.scopes):
                continue
            hits.append(hit("caveat-missing", scope, f"the one-line caveat exported {on(scope)} is no longer there: "
                            f"{_short(self.caveat)!r}", scope=scope))
        return hits

    def _added(self) -> list[Hit]:
        """Figures at locations the manifest does not list whose number is none of the exported
        figures' numbers on that scope (a sort column or a cell comment repeats an exported number)."""
        listed: dict[str, set[float]] = defaultdict(set)
        for e in self.entries.values():
            for t in {e.text, e.figure_text}:
                listed[e.scope].update(d.value for d in find_figures(t))
        hits = []
        for scope, figs in self.figures_in.items():
            # a slide's speaker notes may repeat the slide's figures (exportguard's decks do)
            numbers = listed.get(scope, set()) | listed.get(scope.split(", speaker notes")[0], set())
            for fig in figs:
                if fig.key in self.entries or fig.d.band_edge or fig.d.value in numbers:
                    continue
                hits.append(hit("figure-added", fig.where, f"{fig.d.text!r} is not in the artifact's manifest: added "
                                "after export", scope=scope, line=fig.line, key=fig.key, exported="", now=fig.d.text))
        return hits


_LEAD = re.compile(r"(\d{1,3}(?:[,\u00a0\u202f]\d{3})+|\d+)(\.\d+)?")


def _lead_number(text: str) -> tuple[str, float] | None:
    m = _LEAD.search(text)
    if not m:
        return None
    digits = m.group(1).replace(",", "").replace("\u00a0", "").replace("\u202f", "")
    return m.group(0), float(digits + (m.group(2) or ""))


def _what_went(old: str, new: str) -> str:
    before = find_figures(old)
    after = find_figures(new)
    if not before:
        return ""
    b = before[0]
    if not after:
        return f" (unit {b.unit!r}, band and marks removed)"
    a = after[0]
    gone = []
    if b.band and not a.band:
        gone.append(f"band {b.band}")
    lost = [m for m in b.marks if m not in a.marks]
    if lost:
        gone.append("mark " + marks_words(lost))
    gone += [f"label {lab!r}" for lab in b.labels if lab not in a.labels]
    return f" ({', '.join(gone)} removed)" if gone else ""
