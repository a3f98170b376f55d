"""The CSV a competent engineer would write by hand with the csv module: one row per figure with
the same 37 columns exportguard writes (figure text with unit, band and mark, its number, band
edges and rank with its ties, its note, the scale notice, the conditions, the table note, the caveat
and legend), with a byte-order mark, and the same manifest beside it (plain_sidecar). No guard and
no formula escaping: the bench's rows hold nothing a spreadsheet would run."""
from __future__ import annotations

import csv

from plain_sidecar import SHORT, TRADEMARK_LEGEND, Table, mark, number, write_manifest

HEADER = ("section", "table", "figure", "value", "unit", "band", "band_low", "band_high", "marks", "notes", "rank",
          "rank_from", "rank_to", "notices", "verified", "derived", "submitter", "system", "accelerator",
          "accelerators_total", "nodes", "round", "division", "availability", "benchmark", "scenario", "result_id",
          "result_id_state", "tokens_per_sample", "tokens_per_sample_basis", "shape", "load", "citation", "source_url",
          "retrieved_on", "caveat", "trademark_legend")


def run(rows, slack, path) -> None:
    t = Table(rows, slack)
    title = f"{len(rows):,} results, llama2-70b-99 Offline"
    pct, half, placed = t.pct, t.half, []
    with open(path, "w", newline="", encoding="utf-8-sig") as f:
        w = csv.writer(f)
        w.writerow(HEADER)
        for k, (r, (position, lo, hi)) in enumerate(zip(t.rows, t.ranks)):
            ident, conf, shape, p = (r.conditions.identity, r.conditions.configuration, r.conditions.shape,
                                     r.conditions.provenance)
            m = mark(k)
            note, detail = t.notes(r)
            text = f"{number(r.value)} tok/s {pct} [{m}]"
            w.writerow((1, title, text, repr(r.value), "tok/s", pct, repr(r.value * (1 - half)),
                        repr(r.value * (1 + half)), m, f"[{m}] {note}", t.rank_words(position, lo, hi), lo, hi,
                        t.notice, ident.verified, "", ident.submitter, ident.system_name, conf.accelerator,
                        conf.accelerators_total, conf.nodes, ident.round, ident.division, ident.availability,
                        r.conditions.benchmark.benchmark, r.conditions.benchmark.scenario, ident.result_id,
                        ident.result_id_state, repr(shape.tokens_per_sample), shape.tokens_per_sample_basis, t.shape,
                        t.load, t.table_note, p.source_url, p.retrieved_on, SHORT, TRADEMARK_LEGEND))
            placed.append((f"row {k + 2}, column 3", r, text, r.value, m, note, detail))
    write_manifest(f"{path}.manifest.json", t, "csv", placed)
