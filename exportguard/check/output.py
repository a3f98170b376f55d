"""The checker's report: text grouped by file, JSON (schema ``exportguard-check/1``, docs/check.md)
and SARIF 2.1.0 for code-scanning tools."""
from __future__ import annotations

import json
from pathlib import Path

from .. import __version__
from ..formats import BY_NAME
from ..rules import RULES
from .engine import CLEAN, NOT_INSPECTED, FileReport, exit_code

SCHEMA = "exportguard-check/1"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {"error": "error", "warning": "warning"}


def summary(reports: list[FileReport]) -> dict:
    hits = [h for r in reports for h in r.hits]
    return {"files": len(reports), "clean": sum(r.status == CLEAN for r in reports),
            "with_findings": sum(bool(r.hits) for r in reports),
            "not_inspected": sum(r.status == NOT_INSPECTED for r in reports),
            "errors": sum(h.severity == "error" for h in hits), "warnings": sum(h.severity == "warning" for h in hits),
            "figures": sum(r.figures for r in reports)}


def text(reports: list[FileReport], quiet: bool = False) -> str:
    lines = []
    for r in reports:
        if r.status == NOT_INSPECTED:
            lines.append(f"{r.path}: could not inspect: {r.reason}")
            continue
        manifest = _manifest_words(r)
        if r.note and not r.hits:
            if not quiet:
                lines.append(f"{r.path}: {r.note}")
            continue
        if not r.hits:
            if not quiet:
                what = (f"{r.figures} figure{'s' if r.figures != 1 else ''}, each bound" if r.figures
                        else "no throughput figures")
                lines.append(f"{r.path}: clean ({what}{manifest})")
            continue
        errors = sum(h.severity == "error" for h in r.hits)
        warnings = len(r.hits) - errors
        counts = ", ".join(x for x in (f"{errors} error{'s' if errors != 1 else ''}" if errors else "",
                                       f"{warnings} warning{'s' if warnings != 1 else ''}" if warnings else "") if x)
        lines.append(f"{r.path}: {len(r.hits)} finding{'s' if len(r.hits) != 1 else ''} ({counts}){manifest}")
        for h in r.hits:
            lines.append(f"  {h}")
    s = summary(reports)
    lines.append("")
    lines.append(f"{_n(s['files'], 'file')}: {s['with_findings']} with findings ({_n(s['errors'], 'error')}, "
                 f"{_n(s['warnings'], 'warning')}), {s['clean']} clean, {s['not_inspected']} could not be inspected")
    return "\n".join(lines) + "\n"


def _n(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _manifest_words(r: FileReport) -> str:
    m = r.manifest
    if not m:
        return ""
    if not m.get("readable"):
        return "; manifest unreadable"
    signed = ", signature checked" if m.get("signature_checked") and m.get("signature_ok") else ""
    state = "intact" if m.get("digest_ok") else "edited"
    moved = f", {m['moved']} moved" if m.get("moved") else ""
    return f"; manifest {state}{signed}, {m.get('figures', 0)} figures compared{moved}"


def to_json(reports: list[FileReport]) -> dict:
    return {
        "schema": SCHEMA,
        "tool": f"exportguard {__version__}",
        "exit_code": exit_code(reports),
        "summary": summary(reports),
        "files": [{
            "path": r.path,
            "format": r.format,
            "status": r.status,
            "reason": r.reason,
            "figures": r.figures,
            "manifest": r.manifest,
            "seconds": round(r.seconds, 3),
            "peak_rss_mb": round(r.peak_rss_mb, 1),
            "findings": [{
                "rule": h.rule_id,
                "name": h.rule.name,
                "severity": h.severity,
                "location": h.location,
                "scope": h.scope,
                "line": h.line,
                "manifest_location": h.key or None,
                "message": h.message,
                "exported": h.exported,
                "now": h.now,
            } for h in r.hits],
        } for r in reports],
    }


def to_sarif(reports: list[FileReport], base: Path | None = None) -> dict:
    rules = list(RULES.values())
    index = {r.id: i for i, r in enumerate(rules)}
    results, notifications, artifacts = [], [], []
    for r in reports:
        uri = _uri(r.path, base)
        artifacts.append({"location": {"uri": uri}})
        if r.status == NOT_INSPECTED:
            notifications.append({"level": "error", "message": {"text": f"could not inspect: {r.reason}"},
                                  "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri}}}]})
            continue
        for h in r.hits:
            physical = {"artifactLocation": {"uri": uri}}
            if h.line and _lines(r.format):  # a line of a text file (not of a PDF page)
                physical["region"] = {"startLine": h.line}
            results.append({
                "ruleId": h.rule_id,
                "ruleIndex": index[h.rule_id],
                "level": _LEVEL.get(h.severity, "warning"),
                "message": {"text": f"{h.location}: {h.message}"},
                "locations": [{
                    "physicalLocation": physical,
                    "logicalLocations": [{"name": h.location, "fullyQualifiedName": f"{r.path}#{h.location}",
                                          "kind": "element"}],
                }],
                "partialFingerprints": {"exportguardLocation/v1": f"{h.rule_id}:{uri}:{h.key or h.location}"},
                "properties": {k: v for k, v in (("scope", h.scope), ("exported", h.exported), ("now", h.now))
                               if v is not None},
            })
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "exportguard",
                "version": __version__,
                "rules": [{
                    "id": rule.id,
                    "name": rule.name,
                    "shortDescription": {"text": rule.title},
                    "fullDescription": {"text": rule.description},
                    "defaultConfiguration": {"level": _LEVEL.get(rule.severity, "warning")},
                } for rule in rules],
            }},
            "invocations": [{"executionSuccessful": not notifications,
                             "toolExecutionNotifications": notifications}],
            "artifacts": artifacts,
            "results": results,
        }],
    }


def _uri(path: str, base: Path | None) -> str:
    p = Path(path)
    try:
        rel = p.resolve().relative_to((base or Path.cwd()).resolve())
        return rel.as_posix()
    except ValueError:
        return p.resolve().as_uri()


def render(reports: list[FileReport], fmt: str, quiet: bool = False) -> str:
    if fmt == "json":
        return json.dumps(to_json(reports), indent=2, ensure_ascii=False) + "\n"
    if fmt == "sarif":
        return json.dumps(to_sarif(reports), indent=2, ensure_ascii=False) + "\n"
    return text(reports, quiet)


def rules_text() -> str:
    lines = []
    for r in RULES.values():
        lines.append(f"{r.id} {r.name} ({r.severity}): {r.title}. {r.description}")
    return "\n".join(lines) + "\n"


def _lines(fmt: str) -> bool:
    record = BY_NAME.get(fmt)
    return record is not None and record.lines
