"""XlsxWriter in constant_memory mode writing exactly what the exportguard workbook holds: the same
sheets, cells (text as strings, numbers as numbers), cell formats (named style, number format, quote
prefix), merged ranges, comments (with their sizes), column widths, frozen panes, autofilters, print
titles, page set-up, header and footer, and the very hidden manifest sheet. No guard, no layout, no
manifest building: the cells are read from a stream made once, untimed, from the reference workbook
(``extract``), one row at a time, so the baseline holds no more than XlsxWriter itself does (the
comments, which XlsxWriter keeps until the end)."""
from __future__ import annotations

import pickle
import re
import zipfile
from pathlib import Path

_NS = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
_CELL = re.compile(r"([A-Z]+)([0-9]+)")


def _col(letters: str) -> int:
    n = 0
    for ch in letters:
        n = n * 26 + ord(ch) - 64
    return n - 1


def _ref(ref: str) -> tuple[int, int]:
    m = _CELL.fullmatch(ref)
    return int(m.group(2)) - 1, _col(m.group(1))


def extract(workbook: Path, out: Path) -> None:
    """The workbook's content as a pickle stream: the styles, then per sheet its settings, merges and
    comments, then its rows, then None."""
    from lxml import etree

    with zipfile.ZipFile(workbook) as z, out.open("wb") as f:
        styles = etree.fromstring(z.read("xl/styles.xml"))
        codes = {int(e.get("numFmtId")): e.get("formatCode") for e in styles.iter(f"{_NS}numFmt")}
        builtin = {0: None, 1: "0", 2: "0.00", 3: "#,##0", 4: "#,##0.00", 49: "@"}
        names = {int(e.get("xfId")): e.get("name")[3:] for e in styles.iter(f"{_NS}cellStyle") if e.get("name") != "Normal"}
        xfs = {}
        for i, xf in enumerate(styles.find(f"{_NS}cellXfs")):
            fmt = int(xf.get("numFmtId", 0))
            xfs[i] = (names.get(int(xf.get("xfId", 0))), codes.get(fmt, builtin.get(fmt)), xf.get("quotePrefix") == "1")
        pickle.dump({i: _format(*xf) for i, xf in xfs.items()}, f)
        book = etree.fromstring(z.read("xl/workbook.xml"))
        # print titles ("'S'!$A:$C,'S'!$1:$9": columns, then rows) and print areas, by sheet
        titles = {int(d.get("localSheetId")): [part.split("!")[1].replace("$", "") for part in d.text.split(",")]
                  for d in book.iter(f"{_NS}definedName") if d.get("name") == "_xlnm.Print_Titles"}
        areas = {int(d.get("localSheetId")): d.text.split("!")[1].replace("$", "")
                 for d in book.iter(f"{_NS}definedName") if d.get("name") == "_xlnm.Print_Area"}
        rels = etree.fromstring(z.read("xl/_rels/workbook.xml.rels"))
        targets = {r.get("Id"): "xl/" + r.get("Target") for r in rels}
        for k, s in enumerate(book.iter(f"{_NS}sheet")):
            part = targets[s.get(_R)]
            root = etree.fromstring(z.read(part))
            pane = root.find(f".//{_NS}pane")
            setup = root.find(f"{_NS}pageSetup")
            margins = root.find(f"{_NS}pageMargins")
            hf = root.find(f"{_NS}headerFooter")
            meta = dict(name=s.get("name"), state=s.get("state", "visible"),
                        widths=[float(c.get("width")) for c in root.iter(f"{_NS}col")],
                        freeze=int(float(pane.get("ySplit"))) if pane is not None else 0,
                        autofilter=getattr(root.find(f"{_NS}autoFilter"), "attrib", {}).get("ref"),
                        title_rows=next((t for t in titles.get(k, ()) if t[0].isdigit()), None),
                        title_cols=next((t for t in titles.get(k, ()) if t[0].isalpha()), None),
                        area=areas.get(k), landscape=setup.get("orientation") == "landscape",
                        scale=int(setup.get("scale", 0)) or None, paper=int(setup.get("paperSize", 0)) or None,
                        col_breaks=[int(b.get("id")) for b in root.iter(f"{_NS}brk")
                                    if b.getparent().tag == f"{_NS}colBreaks"],
                        row_breaks=[int(b.get("id")) for b in root.iter(f"{_NS}brk")
                                    if b.getparent().tag == f"{_NS}rowBreaks"],
                        margins={a: float(margins.get(a)) for a in ("left", "right", "top", "bottom", "header", "footer")},
                        header=hf.findtext(f"{_NS}oddHeader") or "", footer=hf.findtext(f"{_NS}oddFooter") or "")
            merges = {}
            for m in root.iter(f"{_NS}mergeCell"):
                a, b = m.get("ref").split(":")
                (r1, c1), (r2, c2) = _ref(a), _ref(b)
                merges[(r1, c1)] = (r2, c2)
            comments = {}
            rels_name = part.replace("worksheets/", "worksheets/_rels/") + ".rels"
            if rels_name in z.namelist():
                for r in etree.fromstring(z.read(rels_name)):
                    target = "xl/" + r.get("Target").replace("../", "")
                    if r.get("Type").endswith("/comments"):
                        for c in etree.fromstring(z.read(target)).iter(f"{_NS}comment"):
                            comments[_ref(c.get("ref"))] = "".join(c.itertext())
                    elif r.get("Type").endswith("/vmlDrawing"):
                        sizes = [(int(w), int(h)) for w, h in re.findall(rb"width:(\d+)px;height:(\d+)px", z.read(target))]
            if comments:
                comments = {ref: (text, size) for (ref, text), size in zip(comments.items(), sizes)}
            pickle.dump((meta, merges, comments), f)
            for row in root.find(f"{_NS}sheetData"):
                r = int(row.get("r")) - 1
                cells = []
                for c in row:
                    _, col = _ref(c.get("r"))
                    s_ = int(c.get("s", 0))
                    if c.get("t") == "inlineStr":
                        cells.append((col, "".join(c.find(f"{_NS}is").itertext()), s_))
                    elif c.find(f"{_NS}v") is not None:
                        cells.append((col, float(c.findtext(f"{_NS}v")), s_))
                    else:
                        cells.append((col, None, s_))
                pickle.dump((r, float(row.get("ht")) if row.get("customHeight") else None, cells), f)
            pickle.dump(None, f)


def _format(key, code, quote) -> dict:
    """XlsxWriter's properties for a cell format: its named style's font, fill, border, alignment."""
    from exportguard.render.xlsx import _STYLES

    props = {}
    if key is not None:
        s = _STYLES[key]
        props = dict(font_name=s.font.name, font_size=s.font.size, bold=s.font.bold, italic=s.font.italic)
        if s.font.color:
            props["font_color"] = "#" + s.font.color
        if s.fill:
            props.update(pattern=1, bg_color="#" + s.fill)
        if s.border:
            props.update(border=1, border_color="#" + s.border)
        if s.alignment:
            a = s.alignment
            props.update({k: v for k, v in (("align", a.horizontal), ("valign", a.vertical)) if v})
            if a.wrap:
                props["text_wrap"] = True
    if code:
        props["num_format"] = code
    if quote:
        props["quote_prefix"] = True
    return props


def run(content: Path, path: Path) -> None:
    import xlsxwriter

    wb = xlsxwriter.Workbook(str(path), {"constant_memory": True, "strings_to_formulas": False,
                                         "strings_to_numbers": False, "strings_to_urls": False})
    with content.open("rb") as f:
        formats = {i: wb.add_format(props) for i, props in pickle.load(f).items()}
        while True:
            try:
                meta, merges, comments = pickle.load(f)
            except EOFError:
                break
            ws = wb.add_worksheet(meta["name"])
            for c, w in enumerate(meta["widths"]):
                ws.set_column(c, c, w)
            if meta["freeze"]:
                ws.freeze_panes(meta["freeze"], 0)
            if meta["landscape"]:
                ws.set_landscape()
            if meta["paper"]:
                ws.set_paper(meta["paper"])
            if meta["scale"]:
                ws.set_print_scale(meta["scale"])
            else:
                ws.fit_to_pages(1, 0)
            if meta["col_breaks"]:
                ws.set_v_pagebreaks(meta["col_breaks"])
            if meta["row_breaks"]:
                ws.set_h_pagebreaks(meta["row_breaks"])
            if meta["title_cols"]:
                ws.repeat_columns(meta["title_cols"])
            if meta["area"]:
                a, b = meta["area"].split(",")[0].split(":")
                ws.print_area(*_ref(a), *_ref(b))
            m = meta["margins"]
            ws.set_margins(m["left"], m["right"], m["top"], m["bottom"])
            ws.set_header(meta["header"], {"margin": m["header"]})
            ws.set_footer(meta["footer"], {"margin": m["footer"]})
            if meta["title_rows"]:
                first, last = meta["title_rows"].split(":")
                ws.repeat_rows(int(first) - 1, int(last) - 1)
            if meta["state"] == "veryHidden":
                ws.very_hidden()
            if meta["autofilter"]:
                a, b = meta["autofilter"].split(":")
                ws.autofilter(*_ref(a), *_ref(b))
            for (r, c), (text, (w, h)) in comments.items():
                ws.write_comment(r, c, text, {"width": w, "height": h, "author": "exportguard"})
            while (row := pickle.load(f)) is not None:
                r, height, cells = row
                if height:
                    ws.set_row(r, height)
                for c, value, xf in cells:
                    fmt = formats[xf]
                    end = merges.get((r, c))
                    if end is not None:
                        ws.merge_range(r, c, end[0], end[1], value if value is not None else "", fmt)
                    elif isinstance(value, str):
                        ws.write_string(r, c, value, fmt)
                    elif value is None:
                        ws.write_blank(r, c, None, fmt)
                    else:
                        ws.write_number(r, c, value, fmt)
    wb.close()
