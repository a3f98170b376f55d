"""The checker's rules over what a reader finds, with the guard's rule IDs (exportguard/rules.py).

Readers feed an ``Evaluator`` in reading order: ``scope(name)`` opens a slide, a sheet, a page or
a whole file, and ``item(...)`` gives one text a person can see there (a cell as displayed, a
paragraph, a table cell, a comment, a line) with its location. For each item the evaluator finds
figures with the one detector (exportguard.detect), notes (``[a] ...`` at the start of a line or
after a sentence), and condition words; when the scope ends it resolves each figure's marks and
applies the rules:

- EG001 bare-figure: no band and no mark; or a band without a mark; or a mark that resolves to no
  note in the same scope (the message says where a note with that mark does stand, if anywhere);
  or notes that name no scenario or no shape.
- EG002 missing-band: marks but no band (and no words for why there is none).
- EG005 missing-citation-field: an MLPerf figure whose notes (with the conditions the scope states
  for all its figures, e.g. a table note) lack a citation field; or a document that names MLPerf
  without the trademark legend.
- EG006 unverified-not-labelled, EG007 derived-not-labelled, EG011 mlperf-without-mark (the first
  mention in the document).
- An own measurement (a figure labelled "own measurement", or whose note opens with
  wording.OWN_NOTE_MARK) is held to its own citation fields instead of MLPerf's (EG005: who measured,
  when, tool, system, shape, load, source) and must be labelled as one on both sides (EG022), so that an
  own figure never passes as an MLPerf one and an MLPerf note never covers an own figure.

A mark resolves, in this order, to the note with that mark in the same block (a table, a CSV
row, a cell's own comment, a Markdown section), else the first such note after the figure, else
the last one before it, within the scope.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from .. import lazy_re
from ..detect import MARK, Detected, column_figure, find_figures, without_prices
from ..figure_forms import HIDDEN, REORDERING
from ..rules import Finding, finding
from ..wording import OWN_FIELDS, OWN_NOTE_MARK, marks_words

EMBEDDED = "embedded"  # the kind the observer hears for text inside a container (never seen on the page)

# Field tests run on every note and on every text that states conditions: each is a substring test
# (C speed) on the lowered text, confirmed by a pattern that starts with a literal where one is needed.
SCENARIO = lazy_re.compile(r"(?<![A-Za-z])(?:Offline|Server|Interactive|SingleStream|MultiStream)(?![a-z])")
_SHAPE_WORDS = ("tokens/sample", "tokens per sample", "token/sample", "tok/sample", "tokens / sample", "dataset",
                "openorca", "cnn/dailymail", "cnn dailymail", "cnn/daily mail", "longbench", "output tokens",
                "max output", "maximum output", "output length", "generation length", "generation shape", " isl ",
                " osl ", "input length", "input tokens", "max. output")
_VERSION = lazy_re.compile(r"v\d+\.\d+")
_INFERENCE_VERSION = lazy_re.compile(r"inference:?\s+(?:datacenter\s+|edge\s+)?v?\d+\.\d+")
_DIVISION = lazy_re.compile(r"(?:closed|open)(?=[\s,;.:)])")
_BENCHMARK = lazy_re.compile(r"llama|mixtral|gpt-?j|gpt-?oss|deepseek|qwen|whisper|stable-diffusion|sdxl|dlrm|bert|"
                             r"resnet|retinanet|rgat|3d-unet")
# a result ID ("5.1-0073"), also broken after its hyphen where a line ends: a PDF that LibreOffice made of
# a deck breaks "Result 5.1-" / "0073" as the slide wraps it, and text extraction keeps the break
_RESULT_ID = lazy_re.compile(r"\d\.\d{1,2}-\s?\d{3,5}(?!\d)")
# A source as people write it: any URL, or a host with or without a path and with or without a scheme
# ('https://mlcommons.org/...', 'www.mlcommons.org', 'github.com/mlcommons/inference_results_v5.1').
_HOST = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_SOURCE = lazy_re.compile(r"\b(?:https?|ftp)://\S|\bwww\.\S|\b" + _HOST + r"(?:\." + _HOST + r")*\.(?:[a-z]{2,24}/\S"
                          r"|(?:com|org|net|io|ai|dev|gov|edu|int|info|app|cloud|tech|eu|uk|de|fr|ch|jp|cn|kr|in|"
                          r"us)\b)")
_RETRIEVED = lazy_re.compile(r"(?:retrieved|accessed|as of)[^.;]{0,20}?(?:\d{4}-\d{2}-\d{2}|\d{1,2}\s+[a-z]+\s+\d{4}|"
                             r"[a-z]+\s+\d{1,2},?\s+\d{4})")


def _has_any(low: str, words) -> bool:
    return any(w in low for w in words)


CITATION = {  # field -> test(text, lowered text)
    "suite": lambda t, low: "mlperf" in low and re.search(r"mlperf\S{0,6}\s+inference", low) is not None,
    "version": lambda t, low: (_VERSION.search(low) is not None or
                               ("inference" in low and _INFERENCE_VERSION.search(low) is not None)),
    "division": lambda t, low: _DIVISION.search(low) is not None,
    "benchmark": lambda t, low: _BENCHMARK.search(low) is not None,
    "scenario": lambda t, low: SCENARIO.search(t) is not None,
    "result ID": lambda t, low: (_RESULT_ID.search(t) is not None or "result id pending" in low or
                                 ("result id" in low and "no mlperf" in low)),
    "verified status": lambda t, low: "verified" in low,
    "source": lambda t, low: "source" in low or _SOURCE.search(low) is not None,
    "retrieval date": lambda t, low: (_has_any(low, ("retrieved", "accessed", "as of")) and
                                      _RETRIEVED.search(low) is not None),
}
CONDITION_FIELDS = tuple(CITATION) + ("shape",)
_ALL_FIELDS = frozenset(CONDITION_FIELDS)
_SHAPE_FIELDS = frozenset(("scenario", "shape"))
SHARED_TEXTS = 20_000  # distinct texts per scope kept as possible table-wide conditions...
SHARED_CHARS = 16 << 20  # ...and their characters (a big text file's paragraphs are not all kept)
# Figures kept for findings in one file: past them, a bare figure (no mark, so nothing to resolve) is
# counted and summed up in one finding, so that a file of millions of bare numbers under a throughput
# heading is checked in bounded memory (each kept figure and its finding take about 1 KB). exportguard's
# own 100,000-figure workbook, one finding per row, stays well under it.
MAX_LISTED = 200_000
UNVERIFIED = lazy_re.compile(r"\bunverified\b|\bnot\s+verified\b", re.IGNORECASE)
DERIVED_BASIS = lazy_re.compile(r"\bderived\b", re.IGNORECASE)
MLPERF = lazy_re.compile(r"MLPerf")
MLPERF_UNMARKED = lazy_re.compile(r"MLPerf(?!\s*(?:®|&reg;|\(R\)|\u00ae))(?!\s+name\b)(?!\s+logo\b)")
LEGEND = lazy_re.compile(r"trademarks?\s+of\s+MLCommons", re.IGNORECASE)
LEGEND_TEXT = lazy_re.compile(r"The\s+MLPerf\S{0,6}\s+name\s+and\s+logo.*?for\s+more\s+information\.?",
                              re.IGNORECASE | re.DOTALL)
NOTE_START = lazy_re.compile(r"(?:^[ \t]*(?:[-*•·][ \t]+)?|(?<=[.;)][ \t]))\[(" + MARK + r")\][ \t]+(?=\S)",
                             re.MULTILINE)
_NOTE_END = lazy_re.compile(r"\n[ \t]*\n")
_LINE = lazy_re.compile(r"\bline \d+")
_FIELD_CACHE: dict[str, frozenset] = {}
DOCUMENT = "document"  # the scope of a file without slides, sheets or pages (CSV, Markdown)


_OWN_MARK = OWN_NOTE_MARK.lower()
_OWN_LABELS = {name: label.lower() for name, label in OWN_FIELDS.items()}
_OWN_FIELD_NAMES = frozenset(OWN_FIELDS)


def own_fields_in(text: str) -> frozenset:
    """The own-measurement citation fields a text names, under the labels exportguard writes them with."""
    low = text.lower()
    return frozenset(name for name, label in _OWN_LABELS.items() if label in low)


def fields_in(text: str) -> frozenset:
    """The citation and condition fields a text names."""
    got = _FIELD_CACHE.get(text)
    if got is None:
        low = text.lower()
        got = frozenset([name for name, test in CITATION.items() if test(text, low)] +
                        (["shape"] if _has_any(low, _SHAPE_WORDS) else []))
        if len(_FIELD_CACHE) < 50_000 and len(text) < 500:
            _FIELD_CACHE[text] = got
    return got


_DETECT_CACHE: dict[str, list[Detected]] = {}


def detect(text: str) -> list[Detected]:
    got = _DETECT_CACHE.get(text)
    if got is None:
        got = find_figures(text)
        if len(_DETECT_CACHE) < 50_000 and len(text) < 2000:
            _DETECT_CACHE[text] = got
    return got


@dataclass(frozen=True)
class Hit(Finding):
    """One finding of the checker: a Finding (rule, where, what) and where else it belongs."""

    scope: str = ""  # the slide, sheet, page or file
    line: int | None = None  # for text formats: the line in the file
    key: str = ""  # the location in the manifest's syntax
    exported: str | None = None  # tamper findings: what was exported...
    now: str | None = None  # ...and what the artifact shows now


def hit(rule_name: str, location: str, message: str, **extra) -> Hit:
    f = finding(rule_name, location, message)
    return Hit(f.rule_id, f.location, f.message, **extra)


@dataclass(slots=True)
class Figure:
    d: Detected
    key: str
    where: str
    block: str
    seq: int
    kind: str
    line: int | None
    item_mlperf: bool
    column: bool  # found through its column's header unit (or a label, a tile's caption)
    value: float | None  # the number the item holds (a numeric cell)
    within: str = ""  # the container a reader opens to see it (a chart's embedded workbook), "" on the page


@dataclass(slots=True)
class Note:
    text: str
    seq: int
    block: str
    kind: str
    _fields: frozenset | None = None

    @property
    def fields(self) -> frozenset:
        if self._fields is None:
            self._fields = fields_in(self.text)
        return self._fields


class _Marks:
    """The notes of one mark in a scope, indexed by block and by position."""

    __slots__ = ("by_block", "seqs", "notes")

    def __init__(self):
        self.by_block: dict[str, Note] = {}
        self.seqs: list[int] = []
        self.notes: list[Note] = []

    def add(self, note: Note) -> None:
        self.by_block.setdefault(note.block, note)
        self.seqs.append(note.seq)
        self.notes.append(note)

    def resolve(self, fig: Figure) -> Note:
        if fig.block and fig.block in self.by_block:
            return self.by_block[fig.block]
        i = bisect.bisect_left(self.seqs, fig.seq)
        return self.notes[i] if i < len(self.notes) else self.notes[-1]


@dataclass
class Scope:
    name: str
    figures: list[Figure] = field(default_factory=list)
    marks: dict[str, _Marks] = field(default_factory=dict)  # the notes a reader of the scope sees
    # notes inside a container on the scope (a chart's embedded workbook): (container, mark) -> notes;
    # they resolve the marks of figures in that container only, never those on the slide
    inside: dict[tuple[str, str], _Marks] = field(default_factory=dict)
    shared_texts: set = field(default_factory=set)  # texts that may state conditions for the whole scope
    shared_chars: int = 0
    mlperf: bool = False
    _shared: frozenset | None = None

    @property
    def shared(self) -> frozenset:
        """Condition fields the scope states for all its figures (a table note, a title)."""
        if self._shared is None:
            self._shared = frozenset().union(*(fields_in(t) for t in self.shared_texts))
        return self._shared


def parse_notes(text: str, figures: list[Detected]) -> list[tuple[str, str]]:
    """(mark, note text) for each note in a text: a mark at the start of a line (after a bullet)
    or after a sentence, outside any figure's binding."""
    return [(mark, body) for mark, body, _start, _end in note_spans(text, figures)]


def note_spans(text: str, figures: list[Detected]) -> list[tuple[str, str, int, int]]:
    """(mark, note text, start, end) for each note in a text."""
    starts = []
    for m in NOTE_START.finditer(text):
        if any(d.start <= m.start(1) - 1 < d.end for d in figures):
            continue
        starts.append(m)
    out = []
    for i, m in enumerate(starts):
        stop = starts[i + 1].start() if i + 1 < len(starts) else len(text)
        body = text[m.end():stop]
        gap = _NOTE_END.search(body)
        if gap:
            body = body[:gap.start()]
        out.append((m.group(1), " ".join(body.split()), m.start(), m.end() + len(body)))
    return out


def outside(text: str, spans) -> str:
    """The text with the given (start, end) spans cut out: what an item states besides its figures
    and notes (a table note on a PDF page, a heading in speaker notes)."""
    out, last = [], 0
    for start, end in sorted(spans):
        if start > last:
            out.append(text[last:start])
        last = max(last, end)
    out.append(text[last:])
    return "\n".join(part for part in out if part.strip())


def stands_under(*contexts: str) -> str:
    """What a text stands under, nearest first ('Input price ($/1M tokens) | API pricing'): a reader's
    ``about`` for Evaluator.item."""
    return " | ".join(c for c in contexts if c)


class Evaluator:
    """The sink readers feed; ``finish()`` returns the findings."""

    def __init__(self, observer=None):
        self.observer = observer  # tamper.ManifestCheck, or None
        self.hits: list[Hit] = []
        self.figures = 0
        self.scopes: list[str] = []
        self._scope: Scope | None = None
        self._seq = 0
        self._all_marks: dict[str, list[str]] = {}  # mark -> scopes with a note of that mark
        self._first_mention: tuple[str, bool, str, int | None] | None = None
        self._legend = False
        self._mlperf_where: str | None = None
        self._unresolved: list = []  # (index in hits, scope, figure, shown, marks) of marks without a note
        self._kept = 0  # figures kept for findings (MAX_LISTED)
        self._unlisted = 0  # bare figures past MAX_LISTED: counted, not listed

    # -- what readers call ---------------------------------------------------------------------
    def scope(self, name: str) -> None:
        self._close()
        self._scope = Scope(name)
        self.scopes.append(name)
        if self.observer:
            self.observer.scope(name)

    def item(self, key: str, where: str, text: str, value: float | None = None, *, block: str = "",
             unit: str = "", kind: str = "text", line: int | None = None, shown: str | None = None,
             within: str = "", about: str = "") -> None:
        """One text a person sees. ``shown`` is what the file holds there when that differs from
        what a reader sees (a Markdown cell with its escapes): the manifest records that. ``within``
        names the container a reader must open to see it (``slide 3, chart 1 data``: the chart's
        embedded workbook): its notes do not stand on the slide. ``about`` is what the text stands
        under (its column's heading, the slide's title, the section's heading): where it says the
        amounts per token count are prices, they are no figures (detect.without_prices)."""
        if self._scope is None:
            self.scope(DOCUMENT)
        sc = self._scope
        self._seq += 1
        if shown is None:
            shown = text
        if self.observer:
            self.observer.item(sc.name, key, where, shown, value, EMBEDDED if within else kind, line)
        if not text:
            return
        if not text.isascii() and HIDDEN.search(text):  # read as a reader sees it, and say so
            text = self._unhidden(text, where, line)
        figs = detect(text)
        if about and figs:
            figs = without_prices(figs, about)
        column = False
        if not figs and unit:
            d = column_figure(text, unit, f"a number with the caption {unit!r} beside it" if kind == "tile" else "")
            if d is not None:
                figs, column = [d], True
        has_mlperf = "MLPerf" in text and _names_mlperf(text)
        if has_mlperf:
            sc.mlperf = True
            self._mention(text, where, line)
            if self._mlperf_where is None:
                self._mlperf_where = self._first_mention[2] if self._first_mention else where
        if not self._legend and "MLCommons" in text and LEGEND.search(text):
            self._legend = True
        notes = note_spans(text, figs) if "[" in text else []
        for mark, note_text, _start, _end in notes:
            rec = Note(note_text, self._seq, block, kind)
            if within:
                sc.inside.setdefault((within, mark), _Marks()).add(rec)
                if self.observer:
                    self.observer.note(sc.name, mark, note_text, EMBEDDED)
                continue
            marks = sc.marks.get(mark)
            if marks is None:
                marks = sc.marks[mark] = _Marks()
                self._all_marks.setdefault(mark, []).append(sc.name)
            marks.add(rec)
            if self.observer:
                self.observer.note(sc.name, mark, note_text, kind)
        for d in figs:
            at, fig_line = _own_line(where, line, text, d.start)
            fig = Figure(d, key, at, block, self._seq, kind, fig_line, has_mlperf, column, value, within)
            if self.observer:
                self.observer.figure(sc.name, fig, shown)
            if self._kept >= MAX_LISTED and not d.marks:
                self.figures += 1
                self._unlisted += 1  # its finding (EG001, bare) needs no note: counted, not kept
                continue
            self._kept += 1
            sc.figures.append(fig)
        if len(sc.shared_texts) < SHARED_TEXTS:  # read only if a figure's notes lack a field
            rest = text if not figs and not notes else outside(text, [(d.start, d.end) for d in figs] +
                                                                [(n[2], n[3]) for n in notes])
            if self._legend and "trademark" in rest:  # the legend's www.mlcommons.org is no result's source
                rest = LEGEND_TEXT.sub(" ", rest)
            if len(rest) > 4 and sc.shared_chars + len(rest) <= SHARED_CHARS and rest not in sc.shared_texts:
                sc.shared_texts.add(rest)
                sc.shared_chars += len(rest)

    def _unhidden(self, text: str, where: str, line: int | None) -> str:
        """``text`` without the characters that show nothing, and an EG027 finding for each figure
        that held one, or stands after a bidi override or isolate that reorders it on screen."""
        kept = [i for i, ch in enumerate(text) if not HIDDEN.match(ch)]
        seen = "".join(text[i] for i in kept)
        for d in detect(seen):
            start, end = kept[d.start], kept[d.end - 1] + 1
            inside = sorted({_char_name(ch) for ch in HIDDEN.findall(text, start, end)})
            reorders = sorted({_char_name(ch) for ch in REORDERING.findall(text, 0, start)})
            if not inside and not reorders:
                continue
            said = (f"holds {', '.join(inside)}" if inside else "") + (" and " if inside and reorders else "") + \
                (f"stands after {', '.join(reorders)}, which reorders it on screen" if reorders else "")
            at, fig_line = _own_line(where, line, seen, d.start)
            self.hits.append(hit("hidden-characters", at, f"{seen[d.start:d.end]!r} {said}: a reader sees one "
                                 "figure, a copy or a search reads another; remove the characters", scope=self._scope.name,
                                 line=fig_line))
        return seen

    def unread(self, key: str, where: str, message: str) -> None:
        """A place where a reader would see a figure whose value the file does not carry (EG023)."""
        if self._scope is None:
            self.scope(DOCUMENT)
        self.hits.append(hit("unread-value", where, message, scope=self._scope.name, key=key))

    def document(self, rule_name: str, where: str, message: str) -> None:
        """A finding about the file as a whole (a workbook's styles), whatever scope is open."""
        self.hits.append(hit(rule_name, where, message, scope=DOCUMENT))

    def finish(self) -> list[Hit]:
        self._close()
        if self._mlperf_where is not None and not self._legend:
            self.hits.append(hit("missing-citation-field", self._mlperf_where,
                                 "the document names MLPerf but carries no trademark legend (\"MLPerf and the MLPerf "
                                 "logo are trademarks of MLCommons Association ...\")"))
        if self._first_mention and not self._first_mention[1]:
            _, _, where, line = self._first_mention
            self.hits.append(hit("mlperf-without-mark", where, "the first mention of MLPerf in the document reads "
                                 "\"MLPerf\" without the registered mark; write MLPerf®", line=line))
        for i, scope, fig, shown, missing in self._unresolved:
            elsewhere = sorted({s for m in missing for s in self._all_marks.get(m, []) if s != scope})
            where_else = (f"; a note {_marks(missing)} stands on {', '.join(elsewhere[:3])}"
                          f"{' ...' if len(elsewhere) > 3 else ''}, which a reader of {scope} does not see"
                          if elsewhere else "")
            self.hits[i] = hit("bare-figure", fig.where, f"{shown}: mark {_marks(missing)} resolves to no note "
                               f"{on(scope)}{where_else}.", scope=scope, line=fig.line, key=fig.key)
        if self._unlisted:
            self.hits.append(hit("bare-figure", "the rest of the file", f"{self._unlisted:,} more figures without a "
                                 f"footnote mark after the file's first {MAX_LISTED:,} figures, counted here rather "
                                 "than listed one by one.", scope=DOCUMENT))
        if self.observer:
            self.hits += self.observer.finish()
        return self.hits

    # -- rules ---------------------------------------------------------------------------------
    def _mention(self, text: str, where: str, line: int | None) -> None:
        if self._first_mention is not None:
            return
        for m in MLPERF.finditer(text):
            tail = text[m.end():m.end() + 12]
            if re.match(r"\s+(?:name|logo)\b", tail):
                continue  # the trademark legend's own words
            marked = not MLPERF_UNMARKED.match(text, m.start())
            if line is not None and "\n" in text:
                line += text.count("\n", 0, m.start())
                where = _LINE.sub(f"line {line}", where, 1) if _LINE.search(where) else f"{where}, line {line}"
            self._first_mention = (text, marked, where, line)
            return

    def _close(self) -> None:
        sc = self._scope
        if sc is None:
            return
        self._scope = None
        for fig in sc.figures:
            self.figures += 1
            self.hits += self._figure(sc, fig)

    def _figure(self, sc: Scope, fig: Figure) -> list[Hit]:
        d = fig.d
        shown = f"{d.text!r} ({d.context})" if d.context else repr(d.text)
        at = dict(scope=sc.name, line=fig.line, key=fig.key)
        if not d.marks:
            if not d.band:
                return [hit("bare-figure", fig.where, f"{shown} is a throughput figure with no band and no footnote "
                            "mark: nothing tells a reader its scenario, shape or source. Add its band (±x%) and a "
                            f"mark [a] that resolves to a note {_same_scope(sc.name)}.", **at)]
            return [hit("bare-figure", fig.where, f"{shown} has a band but no footnote mark resolving to its "
                        f"scenario, shape and source {_same_scope(sc.name)}.", **at)]
        found: list[Hit] = []
        if not d.band:
            found.append(hit("missing-band", fig.where, f"{shown} shows no shape-slack band (±x%) and no words "
                             "saying why there is none (\"slack not estimable: ...\").", **at))
        notes, missing, unseen = [], [], []
        for mark in d.marks:
            marks = (sc.inside.get((fig.within, mark)) if fig.within else None) or sc.marks.get(mark)
            if marks is not None:
                notes.append(marks.resolve(fig))
            elif not fig.within and any(m == mark for _, m in sc.inside):
                unseen.append(mark)
            else:
                missing.append(mark)
        if unseen:
            inside = sorted({w for w, m in sc.inside if m in unseen})
            found.append(hit("note-not-visible", fig.where, f"{shown}: mark {_marks(unseen)} resolves only to a note "
                             f"inside {', '.join(f'{w} (the embedded workbook)' for w in inside[:2])}, which a reader "
                             f"{on(sc.name)} does not see unless they open it: its note must stand {_same_scope(sc.name)}.",
                             **at))
        if missing:  # said at the end, when every scope's notes are known
            self._unresolved.append((len(self.hits) + len(found), sc.name, fig, shown, missing))
            found.append(None)
        if not notes:
            return found
        note_text = " ".join(n.text for n in notes)
        own_note, own_label = _OWN_MARK in note_text.lower(), "own measurement" in d.labels
        if own_note or own_label:
            found += self._own_figure(sc, fig, shown, note_text, own_note, own_label, at)
            # a band's edge or half-width (a chart's error bar) is a quantity of the figure's band, not the figure
            return found if d.band_edge else found + self._labels(fig, shown, note_text, at)
        known = frozenset().union(*(n.fields for n in notes))
        is_mlperf = fig.item_mlperf or sc.mlperf or ("MLPerf" in note_text and _names_mlperf(note_text))
        if not known >= (_ALL_FIELDS if is_mlperf else _SHAPE_FIELDS):
            known = known | sc.shared
        lacking = [w for w, f in (("scenario (Offline, Server or Interactive)", "scenario"),
                                  ("shape (tokens per sample, dataset or maximum output tokens)", "shape"))
                   if f not in known]
        if lacking:
            found.append(hit("bare-figure", fig.where, f"{shown}: its note {_marks(d.marks)} names no "
                             f"{' and no '.join(lacking)} ({on(sc.name)}).", **at))
        if is_mlperf:
            absent = [f for f in CITATION if f not in known]
            if absent:
                found.append(hit("missing-citation-field", fig.where, f"{shown} is an MLPerf figure, but its note "
                                 f"{_marks(d.marks)} lacks: {', '.join(absent)}.", **at))
        return found + self._labels(fig, shown, note_text, at)

    def _own_figure(self, sc: Scope, fig: Figure, shown: str, note_text: str, own_note: bool, own_label: bool,
                    at: dict) -> list[Hit]:
        d, found = fig.d, []
        if d.band_edge and own_note:
            pass  # an error bar's "±x% band of the figure [a]" carries no labels; its figure does
        elif own_label and not own_note:
            found.append(hit("own-measurement-not-labelled", fig.where, f"{shown} is labelled own measurement, but its "
                             f"note {_marks(d.marks)} is no own measurement's (it does not open with "
                             f"\"{OWN_NOTE_MARK}\").", **at))
        elif own_note and not own_label:
            found.append(hit("own-measurement-not-labelled", fig.where, f"{shown}: its note {_marks(d.marks)} is an own "
                             "measurement's, but the figure does not say \"own measurement\" next to the number: "
                             "copied alone it could pass as an MLPerf figure.", **at))
        low = note_text.lower()
        if CITATION["suite"](note_text, low) or _RESULT_ID.search(note_text):
            found.append(hit("own-measurement-not-labelled", fig.where, f"{shown}: its note {_marks(d.marks)} is an own "
                             "measurement's but cites an MLPerf result (suite or result ID): an own figure never "
                             "carries an MLPerf citation.", **at))
        known = own_fields_in(note_text)
        if not known >= _OWN_FIELD_NAMES:
            known |= frozenset().union(*(own_fields_in(t) for t in sc.shared_texts))
        absent = [name for name in OWN_FIELDS if name not in known]
        if absent:
            found.append(hit("missing-citation-field", fig.where, f"{shown} is an own measurement, but its note "
                             f"{_marks(d.marks)} lacks: {', '.join(absent)}.", **at))
        return found

    def _labels(self, fig: Figure, shown: str, note_text: str, at: dict) -> list[Hit]:
        """EG006 and EG007: the labels next to the number and what its notes say."""
        d, found = fig.d, []
        says_unverified = bool(UNVERIFIED.search(note_text))
        if says_unverified and "unverified" not in d.labels:
            found.append(hit("unverified-not-labelled", fig.where, f"{shown}: its note says the result is not "
                             "verified, but the figure does not say \"unverified\" next to the number.", **at))
        elif "unverified" in d.labels and not says_unverified:
            found.append(hit("unverified-not-labelled", fig.where, f"{shown} is labelled unverified, but its note "
                             "does not say \"Result not verified by MLCommons Association.\"", **at))
        if d.derived and "derived" not in d.labels:
            found.append(hit("derived-not-labelled", fig.where, f"{shown} is a derived figure ({d.qualifier}) "
                             "without the label \"derived\".", **at))
        elif "derived" in d.labels and not DERIVED_BASIS.search(note_text):
            found.append(hit("derived-not-labelled", fig.where, f"{shown} is labelled derived, but no note of its "
                             "marks states the basis it is derived on.", **at))
        return found


_LEGEND_WORDS = lazy_re.compile(r"MLPerf\S{0,6}\s+(?:name|logo)\b")


def _own_line(where: str, line: int | None, text: str, start: int) -> tuple[str, int | None]:
    """Where a figure at ``start`` of a text stands: in a paragraph, a page, a cell of several lines,
    its own line."""
    if line is None or "\n" not in text:
        return where, line
    own = line + text.count("\n", 0, start)
    return (_LINE.sub(f"line {own}", where, 1) if _LINE.search(where) else f"{where}, line {own}"), own


def _char_name(ch: str) -> str:
    import unicodedata

    return f"U+{ord(ch):04X} {unicodedata.name(ch, 'FORMAT CHARACTER')}"


def _names_mlperf(text: str) -> bool:
    """MLPerf is named other than by the trademark legend's own words ("The MLPerf name and logo")."""
    return text.count("MLPerf") > len(_LEGEND_WORDS.findall(text))


def _marks(marks) -> str:
    return marks_words(marks)


def _kind(scope: str) -> str:
    for word in ("slide", "page", "sheet"):
        if scope.lower().startswith(word):
            return word
    return "document" if scope == DOCUMENT else "page"


def _same_scope(scope: str) -> str:
    return "in the same document" if scope == DOCUMENT else f"on the same {_kind(scope)}"


def on(scope: str) -> str:
    """'on slide 3', "on Sheet 'X'", 'in the document' (a CSV or Markdown file is one scope)."""
    return "in the document" if scope == DOCUMENT else f"on {scope}"
