"""The CSV a competent engineer would write by hand with the csv module: one row per figure with
the same 37 columns exportguard writes (figure text with unit, band and mark, its number, band
edges and rank, its note, the conditions, the citation, the caveat and legend), with a byte-order
mark. No guard, no formula escaping, no manifest."""
from __future__ import annotations

import csv

from plain import LEGEND, SHORT, mark

HEADER = ("section", "table", "figure", "value", "unit", "band", "band_low", "band_high", "marks", "notes", "rank",
          "rank_from", "rank_to", "notices", "verified", "derived", "submitter", "system", "accelerator",
          "accelerators_total", "nodes", "round", "division", "availability", "benchmark", "scenario", "result_id",
          "result_id_state", "tokens_per_sample", "tokens_per_sample_basis", "shape", "load", "citation", "source_url",
          "retrieved_on", "caveat", "trademark_legend")


def run(rows, slack, path) -> None:
    pct = f"±{slack.fraction / 2 * 100:.1f}%"
    table_note = ("MLPerf Inference: Datacenter v5.1, Closed division; benchmark llama2-70b-99, Offline scenario. "
                  f"Shape: OpenOrca (24,576 samples), reference max output 1,024 tokens. Band {pct}.")
    half = slack.fraction / 2
    with open(path, "w", newline="", encoding="utf-8-sig") as f:
        w = csv.writer(f)
        w.writerow(HEADER)
        for i, r in enumerate(sorted(rows, key=lambda r: -r.value)):
            ident, conf, shape, p = (r.conditions.identity, r.conditions.configuration, r.conditions.shape,
                                     r.conditions.provenance)
            m = mark(i)
            note = (f"[{m}] {ident.submitter}, {ident.system_name}. MLPerf Inference: Datacenter {ident.round}, "
                    f"Closed division, llama2-70b-99 Offline, result {ident.result_id}, {ident.verified}. "
                    f"{conf.accelerators_total} x {conf.accelerator}; {conf.framework}. "
                    f"{shape.tokens_per_sample:.1f} tokens/sample. source {p.source_url}, retrieved {p.retrieved_on}.")
            w.writerow((1, "Results", f"{r.value:,.0f} tok/s {pct} [{m}]", repr(r.value), "tok/s", pct,
                        repr(r.value * (1 - half)), repr(r.value * (1 + half)), m, note, str(i + 1), i + 1, i + 1, "",
                        ident.verified, "", ident.submitter, ident.system_name, conf.accelerator,
                        conf.accelerators_total, conf.nodes, ident.round, ident.division, ident.availability,
                        "llama2-70b-99", "Offline", ident.result_id, ident.result_id_state,
                        repr(shape.tokens_per_sample), shape.tokens_per_sample_basis, "OpenOrca (24,576 samples)",
                        "Offline: closed-loop, no latency bound", table_note, p.source_url, p.retrieved_on, SHORT,
                        LEGEND))
