"""The package's import graph: renderers and the checker never import each other (they share
exportguard/embedding.py), and no exportguard module is part of an import cycle.

Every ``import`` and ``from ... import`` in every module, at module level and inside functions (an
import deferred to a call is still a dependency), is read with ``ast``; relative imports are
resolved against the module's package. Imports under ``if TYPE_CHECKING:`` never run: they count for
the render/check rule (a type-only import still couples the two) but not for cycles (the package's
``__init__`` names its public API that way, for type checkers, while loading it on first use). The
same check by hand:

    .venv/bin/python -m pytest -q tests/test_imports.py
"""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "exportguard"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _type_checking_only(tree: ast.AST) -> set[int]:
    """ids of the import nodes under ``if TYPE_CHECKING:`` (or ``if typing.TYPE_CHECKING:``)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            out |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
    return out


def _imports(name: str, path: Path, known: set[str], type_checking: bool = True) -> set[str]:
    """The exportguard modules ``name`` imports (a package counts as its ``__init__``; ``from pkg
    import mod`` counts as the submodule when it is one)."""
    is_package = path.name == "__init__.py"
    base = name.split(".") if is_package else name.split(".")[:-1]
    out: set[str] = set()
    tree = ast.parse(path.read_text("utf-8"), str(path))
    skip = set() if type_checking else _type_checking_only(tree)
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = base[: len(base) - (node.level - 1)]
                stem = ".".join(anchor + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            targets = [f"{stem}.{a.name}" if f"{stem}.{a.name}" in known else stem for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:  # exportguard.render.pptx.X -> exportguard.render.pptx
                target = target.rpartition(".")[0]
            if target and target != name:
                out.add(target)
    return out


def graph(type_checking: bool = True) -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {name: _imports(name, path, known, type_checking) for name, path in modules.items()}


def _cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return found


def _side(module: str) -> str | None:
    for side in ("exportguard.render", "exportguard.check"):
        if module == side or module.startswith(side + "."):
            return side
    return None


def test_the_graph_sees_the_imports_it_must():
    """The reader itself: a known import of each kind is found (else the tests below prove nothing)."""
    g = graph()
    assert "exportguard.embedding" in g["exportguard.check.manifests"]  # from ..embedding import (...)
    assert "exportguard.embedding" in g["exportguard.render.pptx"]  # from .. import embedding as emb
    assert "exportguard.render.package" in g["exportguard.render.xlsx_writer"]  # from .package import write_parts
    assert "exportguard.manifest" in g["exportguard.render.walk"]  # inside a function
    assert "exportguard.check.safety" in g["exportguard.check.manifests"]
    assert "exportguard.api" in g["exportguard"] and "exportguard.api" not in graph(type_checking=False)["exportguard"]


def test_render_and_check_never_import_each_other():
    crossing = [f"{a} imports {b}" for a, targets in graph().items() for b in sorted(targets)
                if _side(a) and _side(b) and _side(a) != _side(b)]
    assert crossing == []


def test_no_import_cycle_among_exportguard_modules():
    assert _cycles(graph(type_checking=False)) == []


def test_a_cycle_and_a_crossing_would_be_found():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _side("exportguard.render.pptx_xml") != _side("exportguard.check.manifests")
