"""The Word file a competent engineer would write by hand with python-docx: title, caveat, a heading,
the table note and the scale notice as the caption, one table row per result (header row repeated)
with the figure's unit, band and mark and its rank with its ties, a native footnote after each figure
holding its note (python-docx has no footnote API: the reference as raw XML, word/footnotes.xml built
with lxml), the legend, the full caveat, and the same manifest beside the file (plain_sidecar). No
guard, no escaping (the bench's rows hold nothing XML cannot carry)."""
from __future__ import annotations

from plain_sidecar import FULL, SHORT, TRADEMARK_LEGEND, Table, mark, number, write_manifest

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
HEADER = ("Rank", "Submitter", "System", "Accelerator", "Accelerators", "Availability", "Result ID", "Tokens/sample",
          "Throughput")


def run(rows, slack, path) -> None:
    import docx
    from docx.opc.packuri import PackURI
    from docx.opc.part import Part
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn
    from lxml import etree

    t = Table(rows, slack)
    doc = docx.Document()
    doc.add_heading("Results", 0)
    doc.add_paragraph(SHORT)
    doc.add_heading(f"{len(rows):,} results, llama2-70b-99 Offline", 1)
    doc.add_paragraph(f"{t.table_note} {t.notice}", style="Caption")
    table = doc.add_table(rows=1, cols=len(HEADER))
    for cell, text in zip(table.rows[0].cells, HEADER):
        cell.text = text
    table.rows[0]._tr.get_or_add_trPr().append(OxmlElement("w:tblHeader"))
    notes = etree.Element(qn("w:footnotes"), nsmap={"w": W})
    for kind, number_ in (("separator", "-1"), ("continuationSeparator", "0")):
        note = etree.SubElement(notes, qn("w:footnote"), {qn("w:type"): kind, qn("w:id"): number_})
        etree.SubElement(etree.SubElement(etree.SubElement(note, qn("w:p")), qn("w:r")), qn(f"w:{kind}"))
    placed = []
    for k, (r, (position, lo, hi)) in enumerate(zip(t.rows, t.ranks)):
        ident, conf, shape = r.conditions.identity, r.conditions.configuration, r.conditions.shape
        m = mark(k)
        note, detail = t.notes(r)
        text = f"{number(r.value)} tok/s {t.pct} [{m}]"
        scale = (str(conf.accelerators_total) if conf.nodes == 1 else
                 f"{conf.accelerators_total} ({conf.nodes} nodes x {conf.accelerators_per_node})")
        cells = table.add_row().cells
        for cell, value in zip(cells, (t.rank_words(position, lo, hi), ident.submitter, ident.system_name,
                                       conf.accelerator, scale, ident.availability, ident.result_id,
                                       f"{shape.tokens_per_sample:.1f} ({shape.tokens_per_sample_basis})", text)):
            cell.text = value
        ref = OxmlElement("w:r")
        ref.append(OxmlElement("w:footnoteReference"))
        ref[0].set(qn("w:customMarkFollows"), "1")
        ref[0].set(qn("w:id"), str(k + 1))
        cells[-1].paragraphs[0]._p.append(ref)
        fn = etree.SubElement(notes, qn("w:footnote"), {qn("w:id"): str(k + 1)})
        etree.SubElement(etree.SubElement(etree.SubElement(fn, qn("w:p")), qn("w:r")), qn("w:t")).text = f"[{m}] {note}"
        placed.append((f"table 1, row {k + 2}, column 9", r, text, None, m, note, detail))
    doc.add_paragraph(TRADEMARK_LEGEND)
    doc.add_heading("Caveat", 1)
    for p in FULL:
        doc.add_paragraph(p)
    part = Part(PackURI("/word/footnotes.xml"),
                "application/vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml",
                etree.tostring(notes, xml_declaration=True, encoding="UTF-8", standalone=True), doc.part.package)
    doc.part.relate_to(part, "http://schemas.openxmlformats.org/officeDocument/2006/relationships/footnotes")
    doc.save(str(path))
    write_manifest(f"{path}.manifest.json", t, "docx", placed)
