"""What the CSV and Markdown baselines share: the words a user sees beside the rows (table note,
scale notice, row notes, ranks with their ties) written by hand with f-strings for the one cohort the
bench exports (v5.1 llama2-70b-99 Offline, verified results from one repository), and the manifest
beside the file, built as plain dicts and written with the json module, with the digest over the
same canonical JSON exportguard digests. tests/test_bench_baselines.py holds the files each side
writes to be the same, byte for byte, so that the bench compares the same visible work."""
from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
import os

from exportguard.caveat import FULL, SHORT, TRADEMARK_LEGEND  # the project's words, not work
from plain import mark  # the marks every baseline letters alike

__all__ = ["FULL", "SHORT", "TRADEMARK_LEGEND", "Table", "mark", "number", "write_manifest"]

_PARTS = ("identity", "benchmark", "shape", "load", "configuration", "provenance", "run")
_ENCODE = json.JSONEncoder(sort_keys=True, separators=(",", ":")).encode




def number(value: float) -> str:
    """Thousands separated, no decimals, half away from zero (as a spreadsheet rounds)."""
    whole = int(value + 0.5)
    return f"{whole:,}"


class Table:
    """The rows highest first, and what a reader sees with them, computed once per table."""

    def __init__(self, rows, slack):
        self.rows = sorted(rows, key=lambda r: -r.value)
        self.slack = slack
        half = slack.fraction / 2
        self.half = half
        self.pct = f"±{half * 100:.1f}%"
        first = self.rows[0]
        i, b, s = first.conditions.identity, first.conditions.benchmark, first.conditions.shape
        url = first.conditions.provenance.source_url
        repo = url[:url.find(f"/{i.division}/")]
        self.shape = (f"{s.dataset} ({s.dataset_samples:,} samples), reference max output "
                      f"{s.reference_max_output_tokens:,} tokens")
        self.load = "Offline: every query issued at once and drained (closed-loop), no latency bound; runs of at least 600 s"
        self.table_note = (
            f"Sources retrieved {first.conditions.provenance.retrieved_on} from "
            f"{repo.replace('https://', '').replace('/tree/main', '')}. "
            f"MLPerf® Inference: Datacenter {i.round}, {i.division.capitalize()} division; benchmark {b.benchmark}, "
            f"{b.scenario} scenario. Shape: {self.shape}. Load: {self.load}. Band {self.pct}: half the cohort's shape "
            f"slack of {slack.fraction * 100:.1f}% (tokens per sample {slack.tps_min:.1f} to {slack.tps_max:.1f} over "
            f"{slack.with_tps} verified results).")
        totals = [r.conditions.configuration.accelerators_total for r in self.rows]
        nodes = [r.conditions.configuration.nodes for r in self.rows]
        self.notice = (f"Different scales: systems of {min(totals):,} to {max(totals):,} accelerators in "
                       f"{min(nodes):,} to {max(nodes):,} nodes; a total throughput reflects a system's size as well "
                       "as its hardware, so compare one scale, or per accelerator (derived).")
        self.warning = (f"{self.notice} For one scale: --accelerator-count N (list, cohorts, export) or "
                        "accelerator_count = N in a spec's filters; per accelerator: --derived per_accelerator or "
                        "derived = [\"per_accelerator\"] in the section.")
        self.cohort = first.cohort_key
        self.cohort_label = (f"MLPerf® {self.cohort.round} {self.cohort.division} {self.cohort.benchmark} "
                             f"{self.cohort.scenario} ({self.cohort.unit})")
        self.ranks = self._ranks([r.value for r in self.rows], 1 + slack.fraction)

    @staticmethod
    def _ranks(values, within):
        """(position, first tied, last tied) of each value, high to low: ties are the figures whose
        ratio to it is within 1 + slack (contiguous in sorted values)."""
        out, lo, hi, n = [], 0, 0, len(values)
        for k, v in enumerate(values):
            while values[lo] > v * within:
                lo += 1
            hi = max(hi, k)
            while hi + 1 < n and v <= values[hi + 1] * within:
                hi += 1
            out.append((k + 1, lo + 1, hi + 1))
        return out

    @staticmethod
    def rank_words(position, lo, hi) -> str:
        return str(position) if lo == hi else f"{position} (tie {lo}-{hi})"

    @staticmethod
    def notes(r) -> tuple[str, str]:
        """A row's note as shown (what differs from row to row), and its whole footnote."""
        i, c, s, p = (r.conditions.identity, r.conditions.configuration, r.conditions.shape,
                      r.conditions.provenance)
        scale = f"{c.accelerators_total} x {c.accelerator} on {c.nodes} node{'s' if c.nodes != 1 else ''}"
        tps = f"{s.tokens_per_sample:.1f} tokens/sample ({s.tokens_per_sample_basis})"
        corrected = f" Corrected: {'; '.join(r.corrections)}." if r.corrections else ""
        head = f"{i.submitter}, {i.system_name}. Result {i.result_id}, verified. "
        # the table's cells show submitter, system, accelerators and tokens per sample: the note shown
        # beside them leaves them out
        return (f"Result {i.result_id}, verified.{corrected}",
                f"{head}{scale}; {c.framework}. {tps}.{corrected} Source {p.source_url}, retrieved {p.retrieved_on}.")


def _run_id(when: dt.datetime, members: list[str], table: Table) -> str:
    """The export run id for a fixed clock, as exportguard works it out (render.run_id): the instant,
    the title, the files' names and each figure shown."""
    sha = hashlib.sha256(json.dumps([when.replace(microsecond=0).isoformat(), "Results", members]).encode())
    for r in table.rows:
        i = r.conditions.identity
        sha.update(f"{r.value!r}|tok/s|{i.result_id}|{i.submitter}|{i.system_name}\n".encode("utf-8", "surrogatepass"))
    return sha.hexdigest()[:32]


def write_manifest(path, table: Table, fmt: str, placed) -> None:
    """The manifest beside the file: ``placed`` is (location, result, shown text, shown value, mark,
    note, detail) per figure; each condition part is stated once and referred to by position."""
    conditions = {part: [] for part in _PARTS}
    index = {part: {} for part in _PARTS}
    half, pct, cohort = table.half, table.pct, table.cohort_label
    sha = hashlib.sha256()
    entries = []
    for location, r, shown, value, m, note, detail in placed:
        c = r.conditions
        refs = {}
        for part in _PARTS:
            got = getattr(c, part)
            k = index[part].get(got)
            if k is None:
                k = index[part][got] = len(conditions[part])
                conditions[part].append({f.name: getattr(got, f.name) for f in dataclasses.fields(got)})
            refs[part] = k
        text = f"{number(r.value)} tok/s {pct} [{m}]"
        entry = _ENCODE({"band": half, "band_text": pct, "cohort": cohort, "cohort_ref": 0, "condition_refs": refs,
                         "derived": None, "location": location, "marks": [m], "note_details": [detail],
                         "notes": [note], "official_unit": r.unit, "official_value": r.value,
                         "shown": {"text": shown, "value": value},
                         "shown_sha256": hashlib.sha256(json.dumps([shown, value], ensure_ascii=False)
                                                        .encode()).hexdigest(),
                         "text": text, "unit": "tok/s", "value": r.value, "verified": True})
        sha.update(entry.encode() + b",")
        entries.append(entry)
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    when = dt.datetime.fromtimestamp(int(epoch), dt.timezone.utc) if epoch else dt.datetime.now(dt.timezone.utc)
    name = os.path.basename(path)
    members = [name[:-len(".manifest.json")], name]  # the file and this manifest: one export run
    rest = {"export": {"members": members, "run": _run_id(when, members, table) if epoch else os.urandom(16).hex()},
            "caveat_short": SHORT, "cohort_keys": [dataclasses.asdict(table.cohort)], "conditions": conditions,
            "format": fmt, "generated_at": when.replace(microsecond=0).isoformat(), "schema": "exportguard-manifest/3",
            "title": "Results", "tool": f"exportguard {__import__('exportguard').__version__}",
            "warnings": [{"location": f"section 1 ({len(table.rows):,} results, llama2-70b-99 Offline)",
                          "message": table.warning, "rule": "EG020"}]}
    pieces = {k: _ENCODE(v) for k, v in rest.items()}
    for k in sorted(pieces):
        sha.update(f'"{k}":{pieces[k]}'.encode())
    pieces["digest"] = _ENCODE({"algorithm": "sha256", "value": sha.hexdigest()})
    pieces["figures"] = "[" + ",".join(entries) + "]"
    with open(path, "w", encoding="utf-8") as f:
        f.write("{" + ",".join(f'"{k}":{pieces[k]}' for k in sorted(pieces)) + "}\n")
