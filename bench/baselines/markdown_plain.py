"""The Markdown a competent engineer would write by hand: title, caveat, the table note and the
scale notice, one table line per result with the figure's unit, band and mark and its rank with its
ties, the notes list, the legend, the full caveat, and the same manifest beside the file
(plain_sidecar). No guard; source text escaped with one translate table (CELL)."""
from __future__ import annotations

from plain_sidecar import FULL, SHORT, TRADEMARK_LEGEND, Table, mark, number, write_manifest

POINTER = "<!-- exportguard manifest: beside this file, as <this file's name>.manifest.json -->"
LEGEND = TRADEMARK_LEGEND.replace("www.", "www\\.")  # else GFM links it
# Source text in a table cell or a note: what would end a cell or start a link, code or emphasis.
CELL = str.maketrans({c: "\\" + c for c in "\\`*[]~|"})


def run(rows, slack, path) -> None:
    t = Table(rows, slack)
    pct = t.pct
    lines = ["# Results", "", f"> {SHORT}", "", f"## {len(rows):,} results, llama2-70b-99 Offline", "",
             f"*{t.table_note.replace('<', '&lt;')}*", "", f"> **Note:** {t.notice}", "",
             "| Rank | Submitter | System | Accelerator | Accelerators | Availability | Result ID | Tokens/sample "
             "| Throughput |", "|---|---|---|---|---|---|---|---|---:|"]
    notes, placed = [], []
    for k, (r, (position, lo, hi)) in enumerate(zip(t.rows, t.ranks)):
        ident, conf, shape = r.conditions.identity, r.conditions.configuration, r.conditions.shape
        m = mark(k)
        note, detail = t.notes(r)
        text = f"{number(r.value)} tok/s {pct} [{m}]"
        scale = (str(conf.accelerators_total) if conf.nodes == 1 else
                 f"{conf.accelerators_total} ({conf.nodes} nodes x {conf.accelerators_per_node})")
        lines.append(f"| {t.rank_words(position, lo, hi)} | {ident.submitter.translate(CELL)} | "
                     f"{ident.system_name.translate(CELL)} | {conf.accelerator.translate(CELL)} | {scale} | "
                     f"{ident.availability} | {ident.result_id} | "
                     f"{shape.tokens_per_sample:.1f} ({shape.tokens_per_sample_basis}) | {text} |")
        notes.append(f"- [{m}] {note.translate(CELL)}")
        placed.append((f"section 1, table row {k + 1}, column 9", r, text, None, m, note, detail))
    lines += ["", *notes, "", f"<sub>{LEGEND}</sub>", "", "## Caveat", "", *(p + "\n" for p in FULL), LEGEND, "",
              POINTER, ""]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    write_manifest(f"{path}.manifest.json", t, "markdown", placed)
