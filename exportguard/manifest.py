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
from typing import Iterable

from . import __version__
from .report import BoundFigure, Report

SCHEMA = "exportguard-manifest/1"
SIGNING_KEY_ENV = "EXPORTGUARD_SIGNING_KEY"


def figure_entry(location: str, fig: BoundFigure) -> dict:
    return {
        "location": location,
        "text": fig.text(),
        "value": fig.magnitude,
        "unit": fig.unit_text,
        "official_value": fig.result.value,
        "official_unit": fig.result.unit,
        "derived": None if fig.derivation is None else {"label": fig.derivation.label, "basis": fig.derivation.basis},
        "band": fig.slack.band_fraction,
        "band_text": fig.slack.band_text(),
        "marks": list(fig.marks),
        "verified": fig.verified,
        "cohort": fig.cohort.label(),
        "cohort_key": dataclasses.asdict(fig.cohort),
        "conditions": dataclasses.asdict(fig.result.conditions),
    }


def canonical(obj) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _signed_part(manifest: dict) -> dict:
    return {k: v for k, v in manifest.items() if k not in ("digest", "hmac")}


def build(report: Report, placements: Iterable[tuple[str, BoundFigure]], artifact_format: str,
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
        "figures": [figure_entry(loc, fig) for loc, fig in placements],
    }
    body = canonical(_signed_part(manifest))
    manifest["digest"] = {"algorithm": "sha256", "value": hashlib.sha256(body).hexdigest()}
    if key:
        manifest["hmac"] = {"algorithm": "HMAC-SHA256", "value": hmac.new(key, body, hashlib.sha256).hexdigest()}
    return manifest


def verify(manifest: dict, key: bytes | None = None) -> list[str]:
    """Problems with a manifest read back from an artifact: [] when it is intact (and, with a key,
    signed by it)."""
    problems = []
    if manifest.get("schema") != SCHEMA:
        problems.append(f"unknown manifest schema {manifest.get('schema')!r}")
    body = canonical(_signed_part(manifest))
    if manifest.get("digest", {}).get("value") != hashlib.sha256(body).hexdigest():
        problems.append("manifest digest does not match its content: the manifest was edited")
    if key is not None:
        mac = manifest.get("hmac", {}).get("value", "")
        if not hmac.compare_digest(mac, hmac.new(key, body, hashlib.sha256).hexdigest()):
            problems.append("manifest signature does not match the signing key")
    return problems


def dumps(manifest: dict) -> str:
    return json.dumps(manifest, indent=1, ensure_ascii=False)
