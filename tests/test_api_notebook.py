"""examples/api-walkthrough.ipynb runs in a real Jupyter kernel (nbclient + ipykernel, in the test
extra): it ingests the v5.1 data that ships inside the package (no checkout needed), shows a bound table, exports a deck and a workbook and checks
them, through the public API only."""
from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import exportguard

pytestmark = [pytest.mark.real_data, pytest.mark.slow]

NOTEBOOK = Path(__file__).resolve().parents[1] / "examples" / "api-walkthrough.ipynb"


def _code_cells(nb) -> list[str]:
    return [c.source for c in nb.cells if c.cell_type == "code"]


def test_the_notebook_uses_only_the_public_api():
    import nbformat

    nb = nbformat.read(NOTEBOOK, as_version=4)
    used = set()
    for source in _code_cells(nb):
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    assert alias.name == "exportguard" or alias.name.split(".")[0] in sys.stdlib_module_names, alias.name
            elif isinstance(node, ast.ImportFrom):
                assert node.module.split(".")[0] in sys.stdlib_module_names, node.module  # nothing of exportguard's
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "eg":
                used.add(node.attr)
    assert used and used <= set(exportguard.__all__), used - set(exportguard.__all__)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")  # kept without outputs


def test_the_notebook_runs_and_shows_exports_and_checks(tmp_path):
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(NOTEBOOK, as_version=4)
    # run in a folder outside any checkout: the notebook must find its data in the installed package
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [c.outputs for c in nb.cells if c.cell_type == "code"]
    for cell_outputs in outputs:
        assert not [o for o in cell_outputs if o.output_type == "error"]
    text = "\n".join(o.get("text", "") for cell in outputs for o in cell if o.output_type == "stream")
    html = [o.data["text/html"] for cell in outputs for o in cell
            if o.output_type == "execute_result" and "text/html" in o.data]
    assert "(mlperf_tree): 33 read = 33 added" in text
    assert "(mlperf_summary): 373 read = 318 added + 33 enriched" in text
    selection, frame, report = html  # the bound table, the DataFrame, the report
    assert "±5.4% [a]</td>" in selection and "[a] " in selection and "Caveat" in selection
    assert "band_low" in frame and "result_id" in frame
    assert "Highest Offline throughput" in report and "Server, top 10" in report
    assert "EG003 mixed-cohort" in text
    assert "deck.pptx: clean" in text and "figures.xlsx: clean" in text
    assert "2 files: 0 with findings (0 errors, 0 warnings), 2 clean" in text
    assert "EG001 error line 3" in text
