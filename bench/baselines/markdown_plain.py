"""The Markdown a competent engineer would write by hand: title, caveat, the table note, one table
line per result with the figure's unit, band and mark, the notes list, the legend and the caveat.
No guard, no escaping, no manifest."""
from __future__ import annotations

from plain import LEGEND, SHORT, mark




def run(rows, slack, path) -> None:
    pct = f"±{slack.fraction / 2 * 100:.1f}%"
    lines = ["# Results", "", f"> {SHORT}", "", "## llama2-70b-99 Offline", "",
             f"*MLPerf Inference: Datacenter v5.1, Closed division; llama2-70b-99, Offline. Band {pct}.*", "",
             "| Rank | Submitter | System | Accelerator | Accelerators | Availability | Result ID | Tokens/sample "
             "| Throughput |", "|---|---|---|---|---|---|---|---|---:|"]
    notes = []
    for i, r in enumerate(sorted(rows, key=lambda r: -r.value)):
        ident, conf, shape, p = (r.conditions.identity, r.conditions.configuration, r.conditions.shape,
                                 r.conditions.provenance)
        m = mark(i)
        lines.append(f"| {i + 1} | {ident.submitter} | {ident.system_name} | {conf.accelerator} | "
                     f"{conf.accelerators_total} | {ident.availability} | {ident.result_id} | "
                     f"{shape.tokens_per_sample:.1f} tokens/sample | {r.value:,.0f} tok/s {pct} [{m}] |")
        notes.append(f"- [{m}] {ident.submitter}, {ident.system_name}. MLPerf Inference: Datacenter {ident.round}, "
                     f"Closed division, llama2-70b-99 Offline, result {ident.result_id}, {ident.verified}. "
                     f"{conf.accelerators_total} x {conf.accelerator}; {conf.framework}. source {p.source_url}, "
                     f"retrieved {p.retrieved_on}.")
    lines += ["", *notes, "", f"<sub>{LEGEND}</sub>", "", "## Caveat", "", SHORT, LEGEND, ""]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
