"""exportguard check as a gate, tried for real: a pre-commit hook in a git repository of documents,
and the CI step that docs/check.md documents, each against a clean and a dirty document."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.documents import pptx_person, xlsx_bound

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
EXPORTGUARD = BIN / "exportguard"


def _git(repo: Path, *args) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, timeout=60)


@pytest.fixture
def docs_repo(tmp_path):
    """A git repository with a clean workbook and a dirty deck."""
    repo = tmp_path / "decks"
    repo.mkdir()
    for args in (("init", "-q"), ("config", "user.email", "t@example.com"), ("config", "user.name", "t"),
                 ("config", "commit.gpgsign", "false")):
        assert _git(repo, *args).returncode == 0
    xlsx_bound(repo / "clean.xlsx")
    pptx_person(repo / "dirty.pptx")
    return repo


def _env(tmp_path) -> dict:
    env = dict(os.environ)
    env["PRE_COMMIT_HOME"] = str(tmp_path / "pre-commit-home")
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env.pop("EXPORTGUARD_SIGNING_KEY", None)
    return env


def _hook() -> dict:
    (hook,) = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text("utf-8"))
    return hook


def test_the_hook_definition():
    hook = _hook()
    assert hook["id"] == "exportguard-check" and hook["entry"] == "exportguard check"
    assert hook["language"] == "python"
    pattern = re.compile(hook["files"])
    assert all(pattern.search(n) for n in ("a.pptx", "b/c.xlsx", "d.pdf"))
    assert not any(pattern.search(n) for n in ("a.txt", "b.py", "deck.pptx.bak"))


def test_pre_commit_runs_the_hook_and_refuses_a_commit_of_a_dirty_deck(docs_repo, tmp_path):
    """The hook as .pre-commit-hooks.yaml defines it (entry, files, types), run by pre-commit with the
    exportguard installed here (language: system): a network-free install of language: python is not
    possible on these machines (see test_pre_commit_try_repo_installs_the_hook)."""
    hook = _hook()
    local = {**{k: hook[k] for k in ("id", "name", "files", "types", "require_serial") if k in hook},
             "entry": hook["entry"].replace("exportguard", str(EXPORTGUARD), 1), "language": "system"}
    (docs_repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump({"repos": [{"repo": "local", "hooks": [local]}]}),
                                                      "utf-8")
    env = _env(tmp_path)
    assert _git(docs_repo, "add", ".").returncode == 0
    run = subprocess.run([str(BIN / "pre-commit"), "run", "--all-files"], cwd=docs_repo, env=env, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "Failed" in run.stdout and "exit code: 1" in run.stdout
    assert re.search(r"dirty\.pptx: 10 findings", run.stdout) and "clean.xlsx: clean" in run.stdout
    assert "slide 1, text box" in run.stdout and "EG001 bare-figure" in run.stdout

    # as the git hook: the commit with the dirty deck is refused, the one without it goes through
    assert subprocess.run([str(BIN / "pre-commit"), "install"], cwd=docs_repo, env=env, capture_output=True,
                          timeout=120).returncode == 0
    refused = subprocess.run(["git", "commit", "-q", "-m", "decks"], cwd=docs_repo, env=env, capture_output=True,
                             text=True, timeout=300)
    assert refused.returncode != 0 and "dirty.pptx" in refused.stdout + refused.stderr
    assert _git(docs_repo, "rm", "-q", "--cached", "dirty.pptx").returncode == 0
    (docs_repo / "dirty.pptx").unlink()
    done = subprocess.run(["git", "commit", "-q", "-m", "clean decks"], cwd=docs_repo, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Passed" in done.stdout + done.stderr


def test_pre_commit_try_repo_installs_the_hook(docs_repo, tmp_path):
    """The real hook, as a repository of decks uses it: pre-commit pip-installs exportguard (and its
    dependencies, from the package index) into the hook's own environment."""
    assert _git(REPO, "ls-files", "--error-unmatch", ".pre-commit-hooks.yaml").returncode == 0
    assert _git(docs_repo, "add", ".").returncode == 0
    run = subprocess.run([str(BIN / "pre-commit"), "try-repo", str(REPO), "exportguard-check", "--all-files"],
                         cwd=docs_repo, env=_env(tmp_path), capture_output=True, text=True, timeout=900)
    assert run.returncode == 1, run.stdout + run.stderr
    assert re.search(r"dirty\.pptx: 10 findings", run.stdout) and "clean.xlsx: clean" in run.stdout


def _ci_lines() -> list[str]:
    text = (REPO / "docs" / "check.md").read_text("utf-8")
    section = text[text.index("## As a CI step"):text.index("## As a pre-commit hook")]
    block = section[section.index("```yaml"):]
    block = block[:block.index("```", 3)]
    return [line.strip() for line in block.splitlines() if line.strip().startswith(("exportguard check", "exit "))]


def test_the_documented_ci_step(docs_repo, tmp_path):
    lines = _ci_lines()
    assert lines[0].startswith("exportguard check --format sarif --output exportguard.sarif decks/")
    script = "\n".join(lines)
    work = tmp_path / "job"
    work.mkdir()
    shutil.copytree(docs_repo, work / "decks", ignore=shutil.ignore_patterns(".git"))
    dirty = subprocess.run(["bash", "-c", script], cwd=work, env=_env(tmp_path), capture_output=True, text=True,
                           timeout=300)
    assert dirty.returncode == 1, dirty.stdout + dirty.stderr
    assert re.search(r"dirty\.pptx: 10 findings", dirty.stdout) and "clean.xlsx" not in dirty.stdout  # --quiet
    sarif = json.loads((work / "exportguard.sarif").read_text("utf-8"))
    assert {r["ruleId"] for r in sarif["runs"][0]["results"]} == {"EG001"}
    (work / "decks" / "dirty.pptx").unlink()
    clean = subprocess.run(["bash", "-c", script], cwd=work, env=_env(tmp_path), capture_output=True, text=True,
                           timeout=300)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert json.loads((work / "exportguard.sarif").read_text("utf-8"))["runs"][0]["results"] == []
