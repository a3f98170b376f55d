"""The CSV a competent engineer would write by hand with the csv module: one row per figure with
the same 27 columns exportguard writes (figure text with unit, band and mark, its note, the
conditions, the citation, the caveat and legend). No guard, no formula escaping, no manifest."""
from __future__ import annotations

import csv

from plain import LEGEND, SHORT, mark

HEADER = ("section", "table", "figure", "unit", "band", "marks", "notes", "verified", "derived", "submitter",
          "system", "accelerator", "accelerators_total", "round", "division", "availability", "benchmark",
          "scenario", "result_id", "tokens_per_sample", "shape", "load", "citation", "source_url", "retrieved_on",
          "caveat", "trademark_legend")



def run(rows, slack, path) -> None:
    pct = f"±{slack.fraction / 2 * 100:.1f}%"
    table_note = ("MLPerf Inference: Datacenter v5.1, Closed division; benchmark llama2-70b-99, Offline scenario. "
                  f"Shape: OpenOrca (24,576 samples), reference max output 1,024 tokens. Band {pct}.")
    with open(path, "w", newline="", encoding="utf-8") as f:
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
            w.writerow((1, "Results", f"{r.value:,.0f} tok/s {pct} [{m}]", "tok/s", pct, m, note, ident.verified, "",
                        ident.submitter, ident.system_name, conf.accelerator, conf.accelerators_total, ident.round,
                        ident.division, ident.availability, "llama2-70b-99", "Offline", f"result {ident.result_id}",
                        f"{shape.tokens_per_sample:.1f} tokens/sample", "OpenOrca (24,576 samples)",
                        "Offline: closed-loop, no latency bound", table_note, p.source_url, p.retrieved_on, SHORT,
                        LEGEND))
