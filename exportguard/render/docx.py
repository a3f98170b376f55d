"""Word briefings (docs/docx.md): the report as real Word structure, every figure bound by a native
footnote.

Sections in report order under numbered headings: a table is a native table whose header row repeats
on every page, its shared conditions as its caption above it; a chart is a picture of its bars (alt
text: every bar's figure with its mark) over the table of its figures; a headline is a styled
paragraph; text is paragraphs. Every figure is one run, "101,527 tok/s ±5.4% [a]", followed by a
footnote reference whose footnote ("[a] Result 5.1-0061, verified.") Word keeps on the figure's page
and carries with the figure when it is copied, within Word or into another Word document. Marks are
lettered per table (render/walk.py), so a table's [a] means one note wherever its pages fall.

The short caveat heads every page, the trademark legend and the page number close it; the full
caveat and the Sources table end the document. The manifest is a custom XML part, its digest a
custom property (as in a deck; check/manifests.py reads them). Word lays out the pages itself when
the file is opened, so figure locations name tables, rows and columns, and headline paragraphs
(embedding.docx_table_cell, docx_paragraph), never pages.
"""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Sequence

from .. import __version__
from ..clock import resolve as resolve_clock
from ..embedding import (DOCX_DIGEST_PROPERTY, DOCX_MANIFEST_NS, DOCX_SCHEMA_PROPERTY, docx_chart_bar, docx_paragraph,
                         docx_table_cell)
from ..escaping import word_text
from ..layout import compose, paper
from ..report import BesideSection, BoundFigure, BoundTable, ChartSection, KpiSection, Report, TableSection, TextSection
from ..wording import BESIDE_RULE, TIE_RULE, both_shapes_title, note_line, shape_line
from .docx_adapter import CellText, Look, Run, WordFile
from .walk import FigureCell, Lettering, TablePart, Walk, walk

MARGIN = 54.0  # points (3/4 inch) on every side
TABLE_PT = 8.5  # a table's text
SMALL_PT = 8.0  # header, footer, legend, the Sources table
CELL_PAD = 2 * 2.85 + 1.0  # a cell's left and right margins (57 twips each) and a little air
KEEP_TOGETHER = 15  # rows: a table this short is kept on one page
MIN_COLUMN = 24.0  # points: no column narrower
LONG_WORD = 16  # characters (at half an em each): a longer word in a text column may break inside


def _text_pt(text: str, size: float, bold: bool = False) -> float:
    from .xlsx_layout import text_pt  # Calibri's advance widths (the default document's font)

    return text_pt(text, size, bold)


def column_widths(header: Sequence[str], rows: Sequence[Sequence[str]], figures: Sequence[bool], room: float,
                  size: float = TABLE_PT, least_only: bool = False) -> list[float]:
    """Widths (points) that fit ``room``: each column as wide as its widest line where the table fits;
    else every column at least its longest word (a figure column its value and unit, and its band
    and marks: a figure breaks only before its band; a header's words only where the body's fit
    without them), then the figure columns widened to hold each figure on one line, then the rest
    shared in proportion to what each column would still take. ``least_only``: the least widths."""
    n = len(header)
    natural, least, heads = [MIN_COLUMN] * n, [MIN_COLUMN] * n, [MIN_COLUMN] * n
    for k in range(n):
        for line in header[k].split("\n"):
            natural[k] = max(natural[k], _text_pt(line, size, True) + CELL_PAD)
            heads[k] = max([heads[k]] + [_text_pt(word, size, True) + CELL_PAD for word in line.split()])
        for row in rows:
            for line in row[k].split("\n"):
                natural[k] = max(natural[k], _text_pt(line, size) + CELL_PAD)
                if figures[k]:
                    value, _, band = line.partition(" ±")
                    least[k] = max(least[k], max(_text_pt(value, size), _text_pt("±" + band, size)) + CELL_PAD)
                else:  # a word longer than LONG_WORD characters' room breaks inside (a system's folder-like name)
                    least[k] = max([least[k]] + [min(_text_pt(word, size), LONG_WORD * size / 2) + CELL_PAD
                                                 for word in line.split()])
    with_heads = [max(a, b) for a, b in zip(least, heads)]
    if sum(with_heads) <= room or least_only:
        least = with_heads
    if least_only:
        return least
    if sum(natural) <= room:
        return natural
    if sum(least) >= room:
        return [w * room / sum(least) for w in least]
    widths = list(least)
    for want in (lambda k: figures[k], lambda k: True):  # figures on one line first, then the rest
        spare = room - sum(widths)
        short = {k: natural[k] - widths[k] for k in range(n) if want(k) and natural[k] > widths[k]}
        total = sum(short.values())
        if spare <= 0 or not total:
            continue
        for k, gap in short.items():
            widths[k] += gap * min(1.0, spare / total)
    return widths


TABLE_SIZES = (TABLE_PT, 8.0, 7.5, 7.0)  # a wide table's text, largest first: no smaller


def fitted_widths(header: Sequence[str], rows: Sequence[Sequence[str]], figures: Sequence[bool], room: float
                  ) -> tuple[list[float], float]:
    """Column widths and the largest text size (TABLE_SIZES) at which every column holds its longest
    word; at the smallest, the widths are shared in proportion."""
    for size in TABLE_SIZES:
        widths = column_widths(header, rows, figures, room, size)
        if sum(widths) <= room * 1.001 and not _cut(header, rows, figures, widths, size):
            return widths, size
    return widths, TABLE_SIZES[-1]


def _cut(header, rows, figures, widths, size) -> bool:
    """Some column narrower than its longest word (the widths were shared in proportion)."""
    least = column_widths(header, rows, figures, 1e9, size, least_only=True)
    return any(w + 0.01 < m for w, m in zip(widths, least))


def _shared_notes(part: TablePart) -> frozenset:
    """The notes that figures in more than one row of the part resolve to."""
    rows_of: dict = defaultdict(set)
    for r, _, fig in part.figures():
        for note in part.lettering.notes_of(fig):
            rows_of[note].add(r)
    return frozenset(note for note, rows in rows_of.items() if len(rows) > 1)


def needs_landscape(report: Report, page_size: str) -> bool:
    """A table whose columns do not fit a portrait page's width at their longest words."""
    room = paper.size(page_size)[0] - 2 * MARGIN
    for section in report.sections:
        for table in _tables_of(section):
            header = [word_text(c.header) for c in table.columns]
            rows = [[_plain(cell) for cell in row] for row in table.rows[:200]]
            figures = [c.holds_figures for c in table.columns]
            # the natural widths (unbounded room): more than a portrait page holds, with a little to spare
            if sum(column_widths(header, rows, figures, 1e9, TABLE_PT)) > room * 1.15:
                return True
    return False


def _tables_of(section) -> list[BoundTable]:
    if isinstance(section, (TableSection, ChartSection)):
        return [section.table]
    if isinstance(section, BesideSection):
        return list(section.tables())
    return []


def _plain(cell) -> str:
    return word_text(cell.text("[a]") if isinstance(cell, BoundFigure) else cell, figure=isinstance(cell, BoundFigure))


class DocxRenderer:
    format = "docx"

    def __init__(self, word: WordFile, room: float):
        self.word = word
        self.room = room  # the text's width on the page, points
        self.shown_on: dict[tuple, list[str]] = defaultdict(list)  # result -> the sections that show it
        # One lettering for the whole document: Word lays out the pages, so two tables' footnotes may
        # stand at the foot of one page, where a mark must name one note (an identical note, one mark).
        self.lettering = Lettering()

    def _part(self, n: int, table: BoundTable) -> TablePart:
        """A whole table, its figures lettered in the document's one lettering."""
        for _, _, fig in table.figures():
            self.lettering.add(fig)
        return TablePart(n, table.title, table, 0, len(table.rows), self.lettering)

    # -- pieces -------------------------------------------------------------------------------------
    def _heading(self, text: str, level: int = 1, new_page: bool = False) -> None:
        self.word.paragraph([Run(word_text(text))], f"Heading {level}", Look(keep_next=True, new_page=new_page))

    def _caption(self, text: str) -> None:
        self.word.paragraph([Run(word_text(text))], "Caption", Look(keep_next=True))

    def _notices(self, notices) -> None:
        for x in notices:
            self.word.paragraph([Run("Note: ", bold=True), Run(word_text(x.text))], None, Look(keep_next=True))

    def _figure_runs(self, fig: BoundFigure, lettering: Lettering, text: str, skip=frozenset(), **look) -> list:
        """The figure's one run, then a footnote reference whose footnote holds the notes its marks
        resolve to, but those in ``skip`` (stated under its table, or in its row's footnote already)."""
        runs: list = [Run(text, **look)]
        lines = [note_line(m, word_text(n.text)) for m, n in zip(lettering.letters(fig), lettering.notes_of(fig))
                 if n not in skip]
        if lines:
            runs.append(self.word.footnote(lines, look.get("size")))
        return runs

    def _shown(self, n: int, figures) -> None:
        """Record that section ``n`` shows the results of these figures (the Sources table says where)."""
        for fig in figures:
            on = self.shown_on[fig.result.natural_key]
            if str(n) not in on:
                on.append(str(n))

    def _table(self, doc: Walk, n: int, part: TablePart, caption: str) -> None:
        """Caption, table, then the notes that more than one row's figures share. A row's own notes are
        the footnote of its first figure that has them (a row's figures share one result, so the
        footnote area holds each row's citation once); a note shared across rows (a derived column's
        basis) stands under the table, where the table's mark for it reads the same in every row."""
        table = part.table
        self._caption(caption)  # the table's notices are in its caption (compose.shared_conditions)
        header = [word_text(c.header) for c in table.columns]
        right = [c.holds_figures for c in table.columns]
        cells = list(part.cells())
        plain = [[word_text(c.text, figure=True) if isinstance(c, FigureCell) else word_text(c) for c in row]
                 for _, row in cells]
        widths, size = fitted_widths(header, plain, right, self.room)
        shared = _shared_notes(part)
        number = self.word.tables + 1
        rows = []
        for k, (r, row) in enumerate(cells):
            out = []
            told = set(shared)  # the notes this row's footnotes hold so far, and those under the table
            for c, cell in enumerate(row):
                if isinstance(cell, FigureCell):
                    text = plain[k][c]
                    doc.place(docx_table_cell(number, r - part.start + 2, c + 1), cell.figure, part.lettering, text)
                    out.append(CellText(tuple(self._figure_runs(cell.figure, part.lettering, text, frozenset(told),
                                                                size=size)), True))
                    told.update(part.lettering.notes_of(cell.figure))
                else:
                    out.append(CellText((Run(plain[k][c]),), right[c]))
            rows.append(out)
        # a short table stays on one page: LibreOffice 7.4 leaves a row whose footnote does not fit below
        # it where it is, carrying the footnote over (docs/docx.md); a table kept whole moves instead
        self.word.table(header, rows, widths, size, right, caption=word_text(part.title),
                        together=len(rows) <= KEEP_TOGETHER)
        for m, note in part.lettering.notes():
            if note in shared:
                self.word.paragraph([Run(note_line(m, word_text(note.text)))], "Footnote Text", Look(space_after=2))
        self.word.paragraph([], None, Look(space_after=4))
        self._shown(n, (fig for _, _, fig in table.figures()))

    # -- the walk -----------------------------------------------------------------------------------
    def front(self, doc: Walk) -> None:
        r = doc.report
        w = self.word
        w.paragraph([Run(word_text(r.title))], "Title")
        w.paragraph([Run(word_text(f"{doc.data_dates()} Generated {r.generated_on or 'on export'} by exportguard "
                                   f"{__version__}.".lstrip()))], "Subtitle")
        w.paragraph([Run(word_text(r.caveat_short), bold=True)], None, Look(boxed=True, space_after=10))
        w.paragraph([Run("How to read the figures. ", bold=True), Run(word_text(
            "Every figure is printed as one piece of text: its value, its unit, its band and a note mark in "
            "brackets. The band is plus or minus half the shape slack of the figure's cohort (the spread of "
            "generation lengths among the results that may be compared with it). "
            f"{TIE_RULE} Each mark is a footnote on the figure's page, with the result's MLCommons citation, its "
            "configuration, shape and load; each mark names one note throughout the document, and a figure copied within "
            "Word, or into another Word document, takes its footnote with it. Each table's caption states what all "
            "its rows share. Figures from different cohorts are never compared. This document carries its "
            "machine-readable manifest as a custom XML part."))], None, Look(space_after=10))

    def table(self, doc: Walk, n: int, section: TableSection | ChartSection) -> None:
        self._heading(f"{n}. {section.title}")
        part = self._part(n, section.table)
        self._table(doc, n, part, f"Table {self.word.tables + 1}. {compose.shared_conditions(section.table)}")

    def chart(self, doc: Walk, n: int, section: ChartSection) -> None:
        """A picture of the bars of each figure column (render/chart_picture.py), as the PDF draws a chart,
        under its caption and what every bar shares, then the notes its bars' marks resolve to (a bar is
        no run of text that a footnote reference could follow; the picture's alt text names every bar's
        figure with its marks)."""
        from .chart_picture import PictureBar, alt_text, draw

        # a chart's section starts a page, as a slide would: LibreOffice 7.4 leaves a heading and caption at
        # a page's foot when the picture after them moves to the next page (keep-with-next notwithstanding)
        self._heading(f"{n}. {section.title}", new_page=True)
        table = section.table
        part = self._part(n, table)
        who_cols = [k for k, col in enumerate(table.columns) if col.key in ("submitter", "system")] or \
                   [k for k, col in enumerate(table.columns) if col.kind == "text"][:2]
        self._caption(compose.shared_conditions(table, table.ranked, "Every bar"))
        for c in [c for c, col in enumerate(table.columns) if col.holds_figures]:
            rows = sorted(range(len(table.rows)), key=lambda r: (not isinstance(table.rows[r][c], BoundFigure),
                          -table.rows[r][c].magnitude if isinstance(table.rows[r][c], BoundFigure) else 0.0))
            ranked = table.ranked and table.columns[c].kind == "figure"  # a rank speaks of the throughput
            bars, figures = [], []
            for r in rows:
                cell = table.rows[r][c]
                who = word_text(", ".join(str(table.rows[r][k]) for k in who_cols), limit=200).replace("\n", " ")
                rank = table.ranks[r].words() if ranked else ""
                if isinstance(cell, BoundFigure):
                    text = word_text(part.lettering.text(cell), figure=True)
                    bars.append(PictureBar(rank, who, text, cell.magnitude, table.slack.band_fraction or 0.0))
                    figures.append((cell, text))
                else:
                    bars.append(PictureBar(rank, who, word_text(cell), None, 0.0))
            number = self.word.pictures + 1
            title = f"Chart {number}. {section.title}: {table.columns[c].header}, highest first"
            self._caption(title)
            unit = figures[0][0].unit_text if figures else table.columns[c].header
            png = draw(bars, self.room, word_text(f"{unit}, from zero; each bar carries its own figure"))
            self.word.picture(png, self.room, word_text(title), alt_text(word_text(title), bars))
            for k, (fig, text) in enumerate(figures, 1):
                doc.place(docx_chart_bar(number, k), fig, part.lettering, text)
        used = {note for _, _, fig in table.figures() for note in part.lettering.notes_of(fig)}
        for m, note in part.lettering.notes():
            if note in used:
                self.word.paragraph([Run(note_line(m, word_text(note.text)))], "Footnote Text", Look(space_after=2))
        self._shown(n, (fig for _, _, fig in table.figures()))

    def kpi(self, doc: Walk, n: int, section: KpiSection) -> None:
        self._heading(f"{n}. {section.title}")
        lettering = self.lettering
        lettering.add(section.figure)
        text = word_text(lettering.text(section.figure), figure=True)
        runs = self._figure_runs(section.figure, lettering, text, bold=True, size=22)
        at = self.word.paragraph(runs, None, Look(keep_next=True, space_after=2))
        doc.place(docx_paragraph(at), section.figure, lettering, text)
        self.word.paragraph([Run(word_text(section.inline_conditions))], None, Look(keep_next=True))
        self._caption(f"Every figure here: {section.table_note.text}")
        self._notices(section.notices)
        self._shown(n, [section.figure])

    def text(self, doc: Walk, n: int, section: TextSection) -> None:
        self._heading(f"{n}. {section.title}")
        for p in section.paragraphs:
            self.word.paragraph([Run(word_text(p))])

    def beside(self, doc: Walk, n: int, section: BesideSection) -> None:
        """Two panels, each its own table with its own caption (marks lettered across both), never one
        comparison; then both shapes in numbers."""
        self._heading(f"{n}. {section.title}")
        mlperf, *own = (self._part(n, t) for t in section.tables())
        for part in (mlperf, *own):
            self._heading(part.title, 2)
            self._table(doc, n, part, f"Table {self.word.tables + 1}. {compose.shared_conditions(part.table)}")
            self.word.paragraph([Run(word_text(BESIDE_RULE), italic=True)])
        self._heading(both_shapes_title(section.title), 2)
        for row in (section.shape.mlperf, *section.shape.own):
            self.word.paragraph([Run(word_text(shape_line(row.label, row.shape, row.load)))], None,
                                Look(indent=12, space_after=2))
        self.word.paragraph([Run(word_text(section.shape.sentence))])

    def back(self, doc: Walk) -> dict:
        r = doc.report
        self._heading("Caveat: what these figures tell, and what they do not")
        for p in r.caveat_full:
            self.word.paragraph([Run(word_text(p))])
        self.word.paragraph([Run(word_text(r.legend), size=SMALL_PT)])
        results = doc.sources()
        if results:
            shown = {key: ", ".join(on) for key, on in self.shown_on.items()}
            table = compose.sources(results, shown, "Shown in section")
            headers, joined = table.joined()
            self._heading(compose.SOURCES_TITLE)
            if table.said():
                self._caption(table.said())
            rows = [[word_text(v) for v in joined(values)] for values in table.rows()]
            widths = column_widths([word_text(h) for h in headers], rows, [False] * len(headers), self.room, SMALL_PT + 0.5)
            self.word.table([word_text(h) for h in headers], ([CellText((Run(v),)) for v in row] for row in rows),
                            widths, SMALL_PT + 0.5, [False] * len(headers), caption=compose.SOURCES_TITLE)
        return doc.manifest()


def render(report: Report, path, page_size: str | None = None, orientation: str | None = None,
           template: str | Path | None = None, clock=None, **_options) -> dict:
    """Write the briefing to ``path``; return the manifest it carries. The page is A4 (``page_size``
    "a4" or "letter"), portrait unless a table needs a landscape page's width (``orientation`` says
    otherwise); ``template``: a .docx or .dotx whose styles, headers' look and fonts the document
    takes (its body is replaced). Options meant for other formats are ignored."""
    from .. import manifest as manifest_mod

    clock = resolve_clock(clock)
    size = (page_size or paper.DEFAULT_SIZE).lower()
    turn = (orientation or "").lower() or ("landscape" if needs_landscape(report, size) else "portrait")
    width, height = paper.size(size, turn)
    word = WordFile(template)
    word.page(width, height, MARGIN)
    word.header_footer([Run(word_text(report.caveat_short), size=SMALL_PT, color="44546A")],
                       [Run(word_text(report.title), size=SMALL_PT, bold=True)],
                       [Run(word_text(report.legend), size=SMALL_PT - 0.5, color="595959")])
    renderer = DocxRenderer(word, width - 2 * MARGIN)
    manifest = walk(report, renderer, clock)
    keywords = ["MLPerf", "MLPerf Inference", "LLM", "throughput", "exportguard"]
    keywords += sorted({s.table.cohort.label() for s in report.sections if isinstance(s, (TableSection, ChartSection))})
    word.save(Path(path), clock, title=word_text(report.title, limit=300).replace("\n", " "),
              subject=word_text(f"MLPerf Inference LLM throughput briefing for {report.audience or 'a general audience'}: "
                                "every figure bound to its conditions, band and citation", limit=400),
              keywords=word_text("; ".join(keywords), limit=1000).replace("\n", " "),
              manifest_blob=_manifest_blob(manifest, manifest_mod), namespace=DOCX_MANIFEST_NS,
              properties={DOCX_DIGEST_PROPERTY: manifest["digest"]["value"], DOCX_SCHEMA_PROPERTY: manifest_mod.SCHEMA})
    return manifest


def _manifest_blob(manifest: dict, manifest_mod) -> bytes:
    from .ooxml import manifest_xml

    return manifest_xml(manifest_mod.json_pieces(manifest), manifest_mod.SCHEMA)


