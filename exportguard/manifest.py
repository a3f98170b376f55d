"""The manifest every artifact embeds: each figure's location, value, unit, cohort, conditions,
band and marks, with a sha256 digest over them and, when EXPORTGUARD_SIGNING_KEY is set, an
HMAC-SHA256. The schema is documented in docs/manifest.md; the checker reads it back.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import hmac
import json
import os
from collections.abc import Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Iterator

from . import __version__
from .model import Conditions
from .report import Report
from .wording import band_words, marks_words

if TYPE_CHECKING:
    from .render.walk import Placement

SCHEMA = "exportguard-manifest/2"
SIGNING_KEY_ENV = "EXPORTGUARD_SIGNING_KEY"


def shown_digest(text: str, value: float | None) -> str:
    """sha256 over what an artifact shows at a figure's location: its text and, where the artifact
    holds a number there (a spreadsheet cell), that number. The checker recomputes it."""
    return hashlib.sha256(json.dumps([text, value], ensure_ascii=False).encode("utf-8")).hexdigest()


def figure_entry(p: Placement) -> dict:
    fig = p.figure
    c = fig.result.conditions
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
        "band_text": band_words(fig.slack),
        "marks": list(p.letters),
        "notes": list(p.notes),
        "verified": fig.verified,
        "cohort": fig.cohort.label(),
        "cohort_key": dataclasses.asdict(fig.cohort),
        # Shallow copies of flat dataclasses: asdict's deep recursion costs more than the export itself.
        "conditions": {part: dict(vars(getattr(c, part))) for part in _CONDITION_PARTS},
    }


_CONDITION_PARTS = tuple(f.name for f in dataclasses.fields(Conditions))


class Figures(Sequence):
    """The manifest's figure entries, computed when read rather than held: a 100,000-figure export
    keeps only its placements (references into the report), not 100,000 entry dicts."""

    def __init__(self, placements: Sequence[Placement]):
        self._placements = placements

    def __len__(self):
        return len(self._placements)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [figure_entry(p) for p in self._placements[i]]
        return figure_entry(self._placements[i])

    def __iter__(self):
        return (figure_entry(p) for p in self._placements)

    def __eq__(self, other):
        return isinstance(other, Sequence) and len(self) == len(other) and all(a == b for a, b in zip(self, other))


def json_pieces(manifest: Mapping, canonical_form: bool = False) -> Iterator[str]:
    """The manifest as JSON text, piece by piece (figures one at a time). The canonical form (sorted
    keys, no spaces, no digest or hmac) is what the digest and the signature are computed over."""
    items = sorted(_signed_part(manifest).items()) if canonical_form else manifest.items()
    dump = partial(json.dumps, sort_keys=canonical_form, separators=(",", ":"), ensure_ascii=not canonical_form)
    yield "{"
    for n, (key, value) in enumerate(items):
        yield ("," if n else "") + json.dumps(key) + ":"
        if key == "figures":
            yield "["
            for m, entry in enumerate(value):
                yield ("," if m else "") + dump(entry)
            yield "]"
        else:
            yield dump(value)
    yield "}"


def _digests(manifest: Mapping, key: bytes | None) -> tuple[str, str | None]:
    sha = hashlib.sha256()
    mac = hmac.new(key, digestmod=hashlib.sha256) if key else None
    for piece in json_pieces(manifest, canonical_form=True):
        data = piece.encode("utf-8")
        sha.update(data)
        if mac:
            mac.update(data)
    return sha.hexdigest(), (mac.hexdigest() if mac else None)


def _signed_part(manifest: Mapping) -> dict:
    return {k: v for k, v in manifest.items() if k not in ("digest", "hmac")}


def build(report: Report, placements: Sequence[Placement], artifact_format: str,
          key: bytes | None = None) -> dict:
    if key is None and os.environ.get(SIGNING_KEY_ENV):
        key = os.environ[SIGNING_KEY_ENV].encode("utf-8")
    manifest = {
        "schema": SCHEMA,
        "tool": f"exportguard {__version__}",
        "format": artifact_format,
        "title": report.title,
        "generated_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "caveat_short": report.caveat_short,
        "warnings": [{"rule": w.rule_id, "location": w.location, "message": w.message} for w in report.warnings],
        "figures": Figures(list(placements)),
    }
    digest, mac = _digests(manifest, key)
    manifest["digest"] = {"algorithm": "sha256", "value": digest}
    if mac:
        manifest["hmac"] = {"algorithm": "HMAC-SHA256", "value": mac}
    return manifest


def verify(manifest: dict, key: bytes | None = None) -> list[str]:
    """Problems with a manifest read back from an artifact: [] when it is intact (and, with a key,
    signed by it)."""
    problems = []
    if manifest.get("schema") != SCHEMA:
        problems.append(f"unknown manifest schema {manifest.get('schema')!r}")
    digest, mac = _digests(manifest, key)
    if manifest.get("digest", {}).get("value") != digest:
        problems.append("manifest digest does not match its content: the manifest was edited")
    if key is not None and not hmac.compare_digest(manifest.get("hmac", {}).get("value", ""), mac):
        problems.append("manifest signature does not match the signing key")
    return problems


def dumps(manifest: Mapping) -> str:
    return "".join(json_pieces(manifest))
