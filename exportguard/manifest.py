"""The manifest every artifact embeds: each figure's location, value, unit, cohort, conditions,
band and marks, with a sha256 digest over them and, when EXPORTGUARD_SIGNING_KEY is set, an
HMAC-SHA256. The schema is documented in docs/manifest.md; the checker reads it back.
"""
from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import os
from collections.abc import Mapping, Sequence
import functools
from array import array
from typing import Iterator, Protocol

from . import __version__
from .clock import Clock, resolve as resolve_clock
from .embedding import SIGNING_KEY_ENV
from .memo import ByIdentity
from .model import CohortKey, Conditions, fields_of
from .report import BoundFigure, Report
from .scratch import spooled_file
from .wording import band_words, marks_words

SCHEMA = "exportguard-manifest/3"
# Schema 2 stated every condition in every figure entry; 3 states each distinct condition part once
# (top-level "conditions", "cohort_keys") and each entry refers to it. Both verify alike.
SCHEMAS = ("exportguard-manifest/2", SCHEMA)
# The export run that wrote the artifact: {"run": 32 hex digits, "members": [the files written with
# it, relative to its folder]} (docs/manifest.md); absent from manifests written before run ids.
EXPORT_KEY = "export"


_SHOWN_ENCODER = json.JSONEncoder(ensure_ascii=False)  # json.dumps(..., ensure_ascii=False), made once


def shown_digest(text: str, value: float | None) -> str:
    """sha256 over what an artifact shows at a figure's location: its text and, where the artifact
    holds a number there (a spreadsheet cell), that number. The checker recomputes it."""
    return hashlib.sha256(_SHOWN_ENCODER.encode([text, value]).encode("utf-8")).hexdigest()


class Placement(Protocol):
    """What the manifest reads of a figure's placement (render/walk.py's Placement): the manifest
    is built from any such record, without importing the renderers that make them."""

    location: str
    figure: BoundFigure
    shown_text: str
    shown_value: float | None
    letters: tuple[str, ...]
    notes: tuple[str, ...]


class Shared:
    """The condition parts and cohort keys the figure entries share, each stated once: a figure
    entry refers to them by position (``condition_refs``, ``cohort_ref``). Parts are interned by
    value (they are frozen dataclasses), in order of first appearance."""

    def __init__(self):
        # spooled: a table of identities has as many entries as the manifest has figures
        self.conditions: dict[str, Spool] = {part: Spool() for part in _CONDITION_PARTS}
        self.cohort_keys = Spool()
        self._index: dict[str, dict] = {kind: {} for kind in (*_CONDITION_PARTS, "cohort")}
        # The figures of one result, and the results of one store read, share their part objects:
        # a part seen before is found by identity, without hashing its fields again.
        self._seen = {kind: ByIdentity() for kind in (*_CONDITION_PARTS, "cohort")}
        self._words = ByIdentity()

    def ref(self, kind: str, value, as_dict) -> int:
        return self._seen[kind].get(value, lambda v: self._ref(kind, v, as_dict))

    def _ref(self, kind: str, value, as_dict) -> int:
        table = self.cohort_keys if kind == "cohort" else self.conditions[kind]
        try:  # hashed once: a part's hash is worked out field by field
            i = self._index[kind].setdefault(value, len(table))
        except TypeError:  # a part holding an unhashable value: interned by its canonical text
            i = self._index[kind].setdefault(_canonical(as_dict(value)), len(table))
        if i == len(table):
            table.append(as_dict(value))
        return i

    def words(self, value, write) -> str:
        """``write(value)`` (a band's words, a cohort's label), once per object of one manifest."""
        return self._words.get(value, write)


def figure_entry(p: Placement, shared: Shared | None = None) -> dict:
    """A figure's manifest entry. With ``shared`` (schema 3) its conditions and cohort key are
    references into the manifest's shared tables; without, they are stated in the entry (schema 2's
    form, which ``entries`` gives back for any manifest)."""
    fig = p.figure
    c = fig.result.conditions
    words = shared.words if shared is not None else (lambda value, write: write(value))
    if shared is not None:
        refs = {"condition_refs": {part: shared.ref(part, getattr(c, part), _part_dict) for part in _CONDITION_PARTS},
                "cohort_ref": shared.ref("cohort", fig.cohort, _cohort_fields)}
    else:
        refs = {"cohort_key": _cohort_fields(fig.cohort),
                # Shallow copies of flat dataclasses: asdict's deep recursion costs more than the export itself.
                "conditions": {part: _part_dict(getattr(c, part)) for part in _CONDITION_PARTS}}
    return {
        "location": p.location,
        "shown": {"text": p.shown_text, "value": p.shown_value},
        "shown_sha256": shown_digest(p.shown_text, p.shown_value),
        "text": fig.text(marks_words(p.letters)),
        "value": fig.magnitude,
        "unit": fig.unit_text,
        "official_value": fig.result.value,
        "official_unit": fig.result.unit,
        "derived": None if fig.derivation is None else {"label": fig.derivation.label,
                                                         "basis": fig.derivation.note.text},
        "band": fig.slack.band_fraction,
        "band_text": words(fig.slack, band_words),
        "marks": list(p.letters),
        "notes": list(p.notes),
        "note_details": [n.full for n in fig.notes],  # each mark's whole footnote (citation.Note.full)
        "verified": fig.verified,
        "cohort": words(fig.cohort, CohortKey.label),
        **refs,
    }


_CONDITION_PARTS = tuple(f.name for f in dataclasses.fields(Conditions))


def _part_dict(part) -> dict:
    return fields_of(part)


@functools.lru_cache(maxsize=1024)
def _cohort_fields(key: CohortKey) -> dict:
    return dataclasses.asdict(key)


def entries(manifest: Mapping) -> Iterator[dict]:
    """The figure entries with their conditions and cohort key stated in each (``conditions``,
    ``cohort_key``), whichever schema the manifest has: what a reader of one entry wants."""
    conditions = manifest.get("conditions") or {}
    cohorts = manifest.get("cohort_keys") or []
    for e in manifest.get("figures") or ():
        refs = e.get("condition_refs") if isinstance(e, dict) else None
        if isinstance(refs, dict):
            out = {k: v for k, v in e.items() if k not in ("condition_refs", "cohort_ref")}
            out["conditions"] = {part: conditions[part][i] for part, i in refs.items()}
            out["cohort_key"] = cohorts[e["cohort_ref"]]
            e = out
        yield e


_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def _canonical(value) -> str:
    """The one JSON form of the manifest: sorted keys, no spaces, ASCII only (any character a
    format cannot hold travels escaped). It is what artifacts embed and what the digest covers."""
    return _ENCODER.encode(value)


class Spool(Sequence):
    """JSON values kept as their canonical texts, one a line, in a spool file (on disk past a few MB)
    rather than as Python objects: what a manifest holds once per figure (its entries, the shared
    tables of per-result condition parts). Reading an item parses it back from its text."""

    def __init__(self):
        self._spool = spooled_file(1 << 20)
        self._offsets = array("q")  # 8 bytes an item, not a Python int each
        self._batch: list[bytes] = []
        self._at = self._size = 0

    def add_text(self, data: bytes) -> None:
        self._offsets.append(self._at)
        self._batch.append(data)
        self._at += len(data) + 1
        self._size += len(data)
        if self._size > 1 << 20:  # written a megabyte at a time
            self.flush()

    def append(self, value) -> None:
        self.add_text(_canonical(value).encode("ascii"))

    def flush(self) -> None:
        if self._batch:
            self._spool.seek(0, os.SEEK_END)
            self._spool.write(b"\n".join(self._batch) + b"\n")
            self._batch, self._size = [], 0

    def texts(self) -> Iterator[str]:
        self.flush()
        self._spool.seek(0)
        for line in self._spool:
            yield line.rstrip(b"\n").decode("ascii")

    def __len__(self):
        return len(self._offsets)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        self.flush()
        self._spool.seek(self._offsets[i])
        return json.loads(self._spool.readline().decode("ascii"))

    def __iter__(self):
        return (json.loads(text) for text in self.texts())

    def __eq__(self, other):
        return isinstance(other, Sequence) and len(self) == len(other) and all(a == b for a, b in zip(self, other))

    def __deepcopy__(self, memo):
        return list(self)  # a copy to edit (tests edit a manifest to see the digest catch it)


class Figures(Spool):
    """The manifest's figure entries, each serialised once, as it is hashed: a 100,000-figure export
    neither holds 100,000 entry dicts nor encodes any of them twice. Entries are taken in as their
    figures are placed (``add``), so that a renderer need not keep its placements either."""

    def __init__(self, placements: Sequence[Placement], digests: Sequence, shared: Shared | None = None):
        super().__init__()
        self._digests, self._shared = digests, shared
        for p in placements:
            self.add(p)
        self.flush()

    def add(self, p: Placement) -> None:
        data = _canonical(figure_entry(p, self._shared)).encode("ascii")
        _take_in(self._digests, data)
        self.add_text(data)


def json_pieces(manifest: Mapping) -> Iterator[str]:
    """The manifest as JSON text, piece by piece (figures one at a time), in its canonical form."""
    yield "{"
    for n, key in enumerate(sorted(manifest)):
        yield ("," if n else "") + json.dumps(key) + ":"
        value = manifest[key]
        if key == "figures":
            yield "["
            texts = value.texts() if isinstance(value, Spool) else (_canonical(e) for e in value)
            for m, text in enumerate(texts):
                yield ("," if m else "") + text
            yield "]"
        else:
            yield from _canonical_pieces(value)
    yield "}"


def _canonical_pieces(value) -> Iterator[str]:
    """``_canonical(value)`` in pieces, the same text: a table of entries (the shared conditions, one
    entry per distinct identity, so as many as the figures) one entry at a time, never as one string."""
    if isinstance(value, Spool):
        yield "["
        for m, text in enumerate(value.texts()):
            yield ("," if m else "") + text
        yield "]"
        return
    if not (isinstance(value, dict) and all(isinstance(k, str) for k in value)):
        yield _canonical(value)
        return
    yield "{"
    for n, key in enumerate(sorted(value)):
        yield ("," if n else "") + json.dumps(key) + ":"
        items = value[key]
        if isinstance(items, Spool):
            yield from _canonical_pieces(items)
        elif isinstance(items, list):
            yield "["
            for m, item in enumerate(items):
                yield ("," if m else "") + _canonical(item)
            yield "]"
        else:
            yield _canonical(items)
    yield "}"


def _digests(manifest: Mapping, key: bytes | None, figures_done: Sequence = ()) -> tuple[str, str | None]:
    """sha256 (and HMAC) over the canonical JSON of every key but digest and hmac, in sorted key
    order: each key, its value, and the figures as their canonical texts each followed by a comma.
    ``figures_done`` are digests that have already taken in the figures (Figures hashes as it spools)."""
    sha = figures_done[0] if figures_done else hashlib.sha256()
    mac = (figures_done[1] if len(figures_done) > 1 else hmac.new(key, digestmod=hashlib.sha256)) if key else None
    digests = [d for d in (sha, mac) if d is not None]
    if not figures_done:
        for entry in manifest.get("figures", ()):
            _take_in(digests, _canonical(entry).encode("ascii"))
    for k in sorted(_signed_part(manifest)):
        if k == "figures":
            continue
        pieces = [json.dumps(k) + ":"]
        for piece in _canonical_pieces(manifest[k]):
            pieces.append(piece)
            if len(pieces) >= 1024:  # hashed a thousand entries at a time
                data = "".join(pieces).encode("ascii")
                for d in digests:
                    d.update(data)
                pieces = []
        data = "".join(pieces).encode("ascii")
        for d in digests:
            d.update(data)
    return sha.hexdigest(), (mac.hexdigest() if mac else None)


def _take_in(digests: Sequence, figure: bytes) -> None:
    """A figure entry's canonical text, followed by a comma, into each digest."""
    for d in digests:
        d.update(figure)
        d.update(b",")


def _signed_part(manifest: Mapping) -> dict:
    return {k: v for k, v in manifest.items() if k not in ("digest", "hmac")}


class Builder:
    """A manifest built as the artifact is written: each figure's entry taken in when the figure is
    placed (``place``), the rest at the end (``finish``). ``build`` is the same for placements kept
    in a list."""

    def __init__(self, artifact_format: str, key: bytes | None = None):
        if key is None and os.environ.get(SIGNING_KEY_ENV):
            key = os.environ[SIGNING_KEY_ENV].encode("utf-8")
        self.artifact_format, self.key = artifact_format, key
        self.digests = [hashlib.sha256()] + ([hmac.new(key, digestmod=hashlib.sha256)] if key else [])
        self.shared = Shared()
        self.figures = Figures((), self.digests, self.shared)

    def place(self, p: Placement) -> None:
        self.figures.add(p)

    def finish(self, report: Report, clock: Clock | None = None) -> dict:
        """The manifest of one artifact. ``clock`` is the export's (exportguard/clock.py; default
        SOURCE_DATE_EPOCH, else now): nothing else here depends on when or where it runs."""
        self.figures.flush()
        manifest = {
            "schema": SCHEMA,
            "tool": f"exportguard {__version__}",
            "format": self.artifact_format,
            "title": report.title,
            "generated_at": resolve_clock(clock).iso(),
            "caveat_short": report.caveat_short,
            "warnings": [{"rule": w.rule_id, "location": w.location, "message": w.message} for w in report.warnings],
            **({EXPORT_KEY: {"run": report.export.run, "members": list(report.export.members)}}
               if report.export is not None else {}),
            "figures": self.figures,
            "conditions": self.shared.conditions,  # each distinct condition part once; entries refer to them
            "cohort_keys": self.shared.cohort_keys,
        }
        digest, mac = _digests(manifest, self.key, self.digests)
        manifest["digest"] = {"algorithm": "sha256", "value": digest}
        if mac:
            manifest["hmac"] = {"algorithm": "HMAC-SHA256", "value": mac}
        return manifest


def build(report: Report, placements: Sequence[Placement], artifact_format: str,
          key: bytes | None = None, clock: Clock | None = None) -> dict:
    """The manifest of one artifact from its placements (Builder, for placements in a list)."""
    builder = Builder(artifact_format, key)
    for p in placements:
        builder.place(p)
    return builder.finish(report, clock)


def verify(manifest: dict, key: bytes | None = None) -> list[str]:
    """Problems with a manifest read back from an artifact: [] when it is intact (and, with a key,
    signed by it)."""
    problems = []
    if manifest.get("schema") not in SCHEMAS:
        problems.append(f"unknown manifest schema {manifest.get('schema')!r}")
    digest, mac = _digests(manifest, key)
    if manifest.get("digest", {}).get("value") != digest:
        problems.append("manifest digest does not match its content: the manifest was edited")
    if key is not None and not hmac.compare_digest(manifest.get("hmac", {}).get("value", ""), mac):
        problems.append("manifest signature does not match the signing key")
    return problems


def dumps(manifest: Mapping) -> str:
    return "".join(json_pieces(manifest))


def write(manifest: Mapping, f, escape=None) -> None:
    """Stream the manifest's JSON to a text file, never holding it whole; ``escape`` is applied to
    each piece (a piece is a whole JSON value or punctuation, so no escaped pattern spans two)."""
    for piece in json_pieces(manifest):
        f.write(escape(piece) if escape else piece)
