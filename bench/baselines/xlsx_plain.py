"""The XLSX a competent engineer would write by hand with openpyxl (normal mode) for the same
visible content: the table sheet (title, table note, caveat, header, one row per result with the
figure as a number whose format carries unit, band and mark, a comment with its footnote, the two
band edges as numbers with their formats), the notes rows and the legend, a Caveat sheet and a
Sources sheet. No guard, no manifest."""
from __future__ import annotations

from openpyxl import Workbook
from openpyxl.comments import Comment
from openpyxl.styles import Alignment, Font, PatternFill

from plain import LEGEND, SHORT, mark




def run(rows, slack, path) -> None:
    band = slack.fraction / 2
    pct = f"±{band * 100:.1f}%"
    wb = Workbook()
    ws = wb.active
    ws.title = "llama2-70b-99 Offline"
    ws.append([f"{len(rows):,} results, llama2-70b-99 Offline"])
    ws.append([f"MLPerf Inference: Datacenter v5.1, Closed division; benchmark llama2-70b-99, Offline scenario. "
               f"Band {pct}: half the cohort's shape slack."])
    ws.append([SHORT])
    header = ["Rank", "Submitter", "System", "Accelerator", "Accelerators", "Availability", "Result ID", "Verified",
              "Tokens/sample", "Throughput, tok/s", "Band low edge, tok/s", "Band high edge, tok/s"]
    ws.append(header)
    bold, fill = Font(bold=True), PatternFill("solid", fgColor="D9E1F2")
    for c in ws[4]:
        c.font, c.fill = bold, fill
    ordered = sorted(rows, key=lambda r: -r.value)
    notes = []
    row = 4
    for i, r in enumerate(ordered):
        ident, conf, shape = r.conditions.identity, r.conditions.configuration, r.conditions.shape
        m = mark(i)
        note = (f"{ident.submitter}, {ident.system_name}. MLPerf Inference: Datacenter {ident.round}, Closed division, "
                f"{r.conditions.benchmark.benchmark} Offline, result {ident.result_id}, {ident.verified}. "
                f"{conf.accelerators_total} x {conf.accelerator} on {conf.nodes} node; {conf.framework}. "
                f"{shape.tokens_per_sample:.1f} tokens/sample. source {r.conditions.provenance.source_url}, "
                f"retrieved {r.conditions.provenance.retrieved_on}.")
        notes.append(f"[{m}] {note}")
        ws.append([str(i + 1), ident.submitter, ident.system_name, conf.accelerator, str(conf.accelerators_total),
                   ident.availability, ident.result_id, ident.verified, f"{shape.tokens_per_sample:.1f} tokens/sample",
                   r.value, r.value * (1 - band), r.value * (1 + band)])
        row += 1
        figure = ws.cell(row, 10)
        figure.number_format = f'#,##0" tok/s {pct} [{m}]"'
        figure.comment = Comment(f"{r.value:,.0f} tok/s {pct} [{m}]\n\n{note}", "baseline")
        ws.cell(row, 11).number_format = f'#,##0" tok/s, low edge of {pct} [{m}]"'
        ws.cell(row, 12).number_format = f'#,##0" tok/s, high edge of {pct} [{m}]"'
    ws.append([])
    ws.append(["Notes"])
    wrap = Alignment(wrap_text=True, vertical="top")
    row += 2
    for line in notes:
        ws.append([line])
        row += 1
        ws.cell(row, 1).alignment = wrap
    ws.append([LEGEND])
    caveat = wb.create_sheet("Caveat")
    caveat.append(["Caveat"])
    caveat.append([SHORT])
    sources = wb.create_sheet("Sources")
    sources.append(["Result ID", "Suite", "Round", "Division", "Availability", "Submitter", "System", "Benchmark",
                    "Scenario", "Verified", "Retrieved", "Source URL", "Source kind", "Source locator", "Shown on"])
    for r in ordered:
        i, p = r.conditions.identity, r.conditions.provenance
        sources.append([i.result_id, "MLPerf Inference: Datacenter", i.round, i.division, i.availability, i.submitter,
                        i.system_name, r.conditions.benchmark.benchmark, "Offline", i.verified, p.retrieved_on,
                        p.source_url, p.source_kind, p.source_locator, ws.title])
    wb.save(path)
