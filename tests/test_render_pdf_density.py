"""Issue 16's PDF targets on the real v5.1 data, measured on the briefing's own page plan
(pdf_layout.density; bench/density.py prints the full table): one orientation per document, notes
at 8 pt or more, table text at 8.5 pt or more wherever the page can hold a table's figures at that
size, on A4 and Letter; --page-size and --orientation give the page asked for."""
from __future__ import annotations

import pytest

from exportguard.render import pdf
from exportguard.render.pdf_layout import density, geometry
from exportguard.spec import build_report, load_spec, parse_spec, spec_from_filters
from tests.test_render_pdf import REPO

pytestmark = pytest.mark.real_data
COHORTS = [dict(round="v5.1", division="closed", model=m, accuracy_track=t, scenario=s)
           for m, t, s in (("llama2-70b", "99", "Offline"), ("llama3.1-405b", "99", "Server"),
                           ("llama3.1-8b", "99", "Interactive"))]


def _reports(store):
    yield "briefing", build_report(store, load_spec(REPO / "examples" / "briefing.toml"))
    yield "deck", build_report(store, load_spec(REPO / "examples" / "executive-deck.toml"))
    for f in COHORTS:
        yield f["model"] + " " + f["scenario"], build_report(store, spec_from_filters(f, False))


@pytest.mark.parametrize("size", ["a4", "letter"])
def test_type_sizes_and_one_orientation_on_the_real_data(v51_store, tmp_path, size):
    for name, report in _reports(v51_store):
        _, pages = pdf.render_planned(report, tmp_path / f"{name}.pdf", page_size=size)
        d = density(pages)
        assert len(d["orientations"]) == 1, (name, d["orientations"])
        assert d["notes_pt"] >= 8.0
        assert d["table_pt"] is None or d["table_pt"] >= 8.5 or name.startswith("llama3.1-8b"), (name, size, d)
        page = pages[-1].geometry
        assert {round(p.geometry.page_w) for p in pages} == {round(page.page_w)}
        assert round(min(page.page_w, page.page_h)) == {"a4": 595, "letter": 612}[size]
        if d["rows"] >= 15 and d["rows_per_page"] is not None:
            print(f"{name} {size}: {d['rows_per_page']} rows on its fullest-page minimum")


def test_page_size_and_orientation_are_honoured(v51_store, tmp_path):
    report = build_report(v51_store, spec_from_filters(COHORTS[0], False))
    for size, orientation in (("letter", "portrait"), ("a4", "landscape")):
        _, pages = pdf.render_planned(report, tmp_path / f"{size}-{orientation}.pdf", page_size=size,
                                      orientation=orientation)
        want = geometry(size, orientation)
        assert {p.geometry for p in pages} == {want}


def test_a_spec_names_its_page_and_a_bad_value_is_a_one_line_error():
    spec = parse_spec('title = "t"\n[[section]]\nkind = "text"\ntitle = "x"\ntext = "y"\n'
                      '[outputs]\npage_size = "letter"\norientation = "landscape"\n')
    assert (spec.page_size, spec.orientation) == ("letter", "landscape")
    from exportguard.spec import SpecError

    with pytest.raises(SpecError) as e:
        parse_spec('title = "t"\n[[section]]\nkind = "text"\ntitle = "x"\ntext = "y"\n[outputs]\npage_size = "a3"\n')
    assert "page_size" in str(e.value) and "\n" not in str(e.value)

