"""Issue 16 item 6: the rendering libraries' internals are used in one small adapter module per
library (render/pptx_adapter.py for python-pptx, render/reportlab_adapter.py for reportlab), each
saying why; everywhere else the code stays on the libraries' public ground. Read with ast: any
``x._name`` outside an adapter, where ``x`` is not ``self`` or ``cls``, must be one of our own."""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "exportguard"
# private names of our own classes, reached from a sibling (the spooled workbook's file), and the
# standard library's public underscored names
OURS = {"_spool", "_repr_html_", "_exit"}


def _private_uses(path: Path) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                continue
            if node.attr not in OURS:
                out.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: .{node.attr}")
    return out


def test_library_internals_are_used_only_in_their_adapters():
    found = [use for path in sorted(PACKAGE.rglob("*.py")) if not path.name.endswith("_adapter.py")
             for use in _private_uses(path)]
    assert found == [], found


def test_each_adapter_says_why():
    for name in ("pptx_adapter.py", "reportlab_adapter.py"):
        doc = ast.get_docstring(ast.parse((PACKAGE / "render" / name).read_text(encoding="utf-8")))
        assert doc and "no public" in doc.replace("\n", " "), name
