"""The python-pptx adapter (render/pptx_adapter.py, issue 21 item 5): slides, notes slides, charts and
their workbooks get the part names and slide IDs python-pptx would give them, without rescanning the
package for each new one."""
from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from pptx import Presentation
from pptx.chart.data import CategoryChartData
from pptx.enum.chart import XL_CHART_TYPE
from pptx.util import Inches

from exportguard.render import export
from exportguard.render.pptx_adapter import adapt
from exportguard.render.pptx_template import DEFAULT_PATH, open_template
from exportguard.spec import build_report, load_spec

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _fill(prs, add_slide, n: int) -> bytes:
    """``n`` slides, each with speaker notes, every third with a chart; the saved package."""
    layout = prs.slide_layouts[-1]
    for k in range(n):
        slide = add_slide(layout)
        slide.notes_slide.notes_text_frame.text = f"slide {k + 1}"
        if k % 3 == 0:
            data = CategoryChartData()
            data.categories = ["a", "b"]
            data.add_series("s", (1.0, 2.0))
            slide.shapes.add_chart(XL_CHART_TYPE.BAR_CLUSTERED, 0, 0, Inches(4), Inches(3), data)
    out = io.BytesIO()
    prs.save(out)
    return out.getvalue()


def _parts(blob: bytes) -> tuple[list[str], list[str]]:
    with zipfile.ZipFile(io.BytesIO(blob)) as z:
        names = z.namelist()
    prs = Presentation(io.BytesIO(blob))
    return sorted(names), [s.slide_id for s in prs.slides]


def test_the_adapter_names_parts_and_numbers_slides_as_python_pptx_does():
    plain = Presentation(str(DEFAULT_PATH))
    adapted = Presentation(str(DEFAULT_PATH))
    names, ids = _parts(_fill(plain, plain.slides.add_slide, 40))
    names2, ids2 = _parts(_fill(adapted, adapt(adapted).add_slide, 40))
    assert names == names2 and ids == ids2
    assert ids == list(range(256, 296)) and "ppt/notesSlides/notesSlide40.xml" in names
    assert "ppt/charts/chart14.xml" in names and "ppt/embeddings/Microsoft_Excel_Sheet14.xlsx" in names


def test_the_package_is_scanned_once_per_kind_of_part_not_per_slide():
    counts = {}
    for n in (20, 80):
        prs = Presentation(str(DEFAULT_PATH))
        slides = adapt(prs)
        package = prs.part.package
        scans = [0]
        walk = package.iter_parts

        def counted():
            scans[0] += 1
            return walk()

        package.iter_parts = counted
        _fill_without_saving(prs, slides.add_slide, n)
        counts[n] = scans[0]
    # one scan per name template: notes slides, charts, workbooks, and the theme of the notes master
    assert counts[20] == counts[80] <= 4


def _fill_without_saving(prs, add_slide, n):
    layout = prs.slide_layouts[-1]
    for k in range(n):
        slide = add_slide(layout)
        slide.notes_slide.notes_text_frame.text = str(k)
        data = CategoryChartData()
        data.categories = ["a"]
        data.add_series("s", (1.0,))
        slide.shapes.add_chart(XL_CHART_TYPE.BAR_CLUSTERED, 0, 0, Inches(2), Inches(2), data)


@pytest.mark.real_data
def test_a_deck_used_as_a_template_gets_names_that_never_clash(v51_store, tmp_path):
    """A template that holds slides, notes, charts and workbooks of its own (an exported deck): its
    slides are removed and the new parts are named past whatever it still holds."""
    report = build_report(v51_store, load_spec(EXAMPLES / "executive-deck.toml"))
    [first] = export(report, [tmp_path / "first.pptx"])
    [second] = export(report, [tmp_path / "second.pptx"], template=first)
    with zipfile.ZipFile(second) as z:
        names = z.namelist()
    assert len(names) == len(set(names))
    assert len(Presentation(second).slides) == len(Presentation(first).slides)
    template = open_template(first)
    assert len(template.prs.slides) == 0
