"""The suite's own layout: no test module imports another test module, and the helper modules that
assert are registered for pytest's assertion rewriting.

What tests share lives in helper modules named for what they hold (tests/conftest.py, tests/documents.py,
tests/bad_sources.py, tests/office.py, ...), so running one test file never runs, or depends on, another's
module-level set-up, and a test module can be renamed or removed without breaking its neighbours.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

pytestmark = pytest.mark.quick


def _is_test_module(dotted: str) -> bool:
    """A module of the suite (tests.*, relative, or a top-level test_*) whose name has a part test_*."""
    parts = dotted.split(".")
    in_suite = parts[0] in ("tests", "") or parts[0].startswith("test_")
    return in_suite and any(part.startswith("test_") for part in parts)


def imports_of_test_modules(path: Path, root: Path = TESTS.parent) -> list[str]:
    """'file:line: what' for each import in ``path`` that names a module test_* (absolute, relative, or
    'from tests import test_x'), wherever it stands (module level or inside a function)."""
    found = []
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    where = path.relative_to(root)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            names = [module] if _is_test_module(module) else [
                f"{module}{'' if module.endswith('.') else '.'}{alias.name}" for alias in node.names]
        else:
            continue
        named = [name for name in names if _is_test_module(name)]
        if named:
            found.append((node.lineno, f"{where}:{node.lineno}: imports {', '.join(named)}"))
    return [line for _, line in sorted(found)]


def test_no_test_module_imports_another():
    files = sorted(TESTS.rglob("*.py"))
    assert files, f"no Python files under {TESTS}"
    found = [line for path in files for line in imports_of_test_modules(path)]
    assert not found, ("test modules import other test modules; move what they share into a helper module "
                       "under tests/ (not named test_*):\n" + "\n".join(found))


def test_every_helper_module_that_asserts_is_registered_for_assert_rewriting():
    """A helper's plain ``assert`` says what differed only when conftest.py registers the module
    (pytest.register_assert_rewrite) before it is imported; test modules and conftest.py are rewritten anyway."""
    registered: set[str] = set()
    for node in ast.walk(ast.parse((TESTS / "conftest.py").read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "register_assert_rewrite":
            registered |= {arg.value for arg in node.args if isinstance(arg, ast.Constant)}
    missing = []
    for path in sorted(TESTS.rglob("*.py")):
        if path.name.startswith("test_") or path.name == "conftest.py":
            continue
        if not any(isinstance(node, ast.Assert) for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))):
            continue
        parts = path.relative_to(TESTS.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        if not any(name == r or name.startswith(r + ".") for r in registered):
            missing.append(f"{path.relative_to(TESTS.parent)} ({name})")
    assert not missing, ("helper modules with plain asserts that tests/conftest.py does not pass to "
                         "pytest.register_assert_rewrite:\n" + "\n".join(missing))


def test_the_check_sees_each_form(tmp_path):
    """The check itself: each way of importing a test module is seen, and helper imports are not."""
    (tmp_path / "tests").mkdir()
    sample = tmp_path / "tests" / "sample.py"
    sample.write_text(
        "from tests.test_a import x\n"
        "import tests.test_b\n"
        "from .test_c import y\n"
        "from tests import test_d\n"
        "from . import test_e, office\n"
        "def f():\n"
        "    from tests.test_f import z\n"
        "from tests.documents import pptx_person\n"
        "from tests.conftest import SHARED\n"
        "import test_g\n"
        "from exportguard.cli import test_mode\n",
        encoding="utf-8")
    found = imports_of_test_modules(sample, root=tmp_path)
    assert [line.split(":")[1] for line in found] == ["1", "2", "3", "4", "5", "7", "10"], found
