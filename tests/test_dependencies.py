"""Issue 16 item 6: every library exportguard imports is a declared dependency, the rendering and
reading libraries have an upper bound, and the installed versions (what the tests run on) are
inside the declared ranges."""
from __future__ import annotations

import ast
import sys
import tomllib
from importlib.metadata import packages_distributions, version
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[1]
BOUNDED = {"openpyxl", "python-pptx", "python-docx", "reportlab", "lxml", "pillow", "pypdf", "defusedxml", "xlsxwriter"}


def _declared(extras: tuple[str, ...] = ()) -> dict[str, Requirement]:
    """The dependencies, and those of the named extras (a library only some calls need)."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    specs = project["dependencies"] + [r for e in extras for r in project["optional-dependencies"][e]]
    return {canonicalize_name(r.name): r for r in map(Requirement, specs)}


def _imported_top_level() -> set[str]:
    names = set()
    for path in (REPO / "exportguard").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return {n for n in names if n not in sys.stdlib_module_names and n != "exportguard"}


def test_every_imported_library_is_declared():
    declared = _declared(extras=("pandas",))  # to_pandas() imports it where it is called
    dists = packages_distributions()
    missing = {m: dists.get(m) for m in _imported_top_level()
               if not any(canonicalize_name(d) in declared for d in dists.get(m, []))}
    assert missing == {}, f"imported but not declared in pyproject.toml: {missing}"


def test_rendering_and_reading_libraries_are_bounded_above_and_installed_inside_the_bounds():
    declared = _declared()
    for name in BOUNDED:
        spec = declared[name].specifier
        assert any(s.operator in ("<", "<=", "~=", "==") for s in spec), f"{name} has no upper bound: {spec}"
    outside = {n: version(n) for n, r in declared.items() if not r.specifier.contains(version(n), prereleases=True)}
    assert outside == {}, f"installed outside the declared range: {outside}"
