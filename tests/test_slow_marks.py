"""The quick loop (`tests/run.sh --quick`, `-m "not slow"`) leaves out what each test file marks slow
itself, `@pytest.mark.slow` on a test or `pytestmark = pytest.mark.slow` for the whole file: no list
elsewhere decides it, and a browser test is never in the quick loop."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

TESTS = ROOT / "tests"
BROWSER_FIXTURES = {"browser", "page"}


def _is_slow_mark(node: ast.expr) -> bool:
    return ast.unparse(node) in ("pytest.mark.slow", "slow")


def marked_slow() -> dict[str, set[str]]:
    """Each test file's tests its own source marks slow (all of them for a file marked whole)."""
    out: dict[str, set[str]] = {}
    for path in sorted(TESTS.glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        whole = any(isinstance(n, ast.Assign) and any(getattr(t, "id", None) == "pytestmark" for t in n.targets)
                    and any(_is_slow_mark(e) for e in (n.value.elts if isinstance(n.value, (ast.List, ast.Tuple)) else [n.value]))
                    for n in tree.body)
        tests = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test_")]
        out[path.name] = {n.name for n in tests if whole or any(_is_slow_mark(d) for d in n.decorator_list)}
    return out


def test_every_browser_test_is_marked_slow_in_its_own_file():
    """A test that drives Chromium (the `browser` or `page` fixture) says so where it is written."""
    slow = marked_slow()
    unmarked = []
    for path in sorted(TESTS.glob("test_*.py")):
        for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test_")
                    and BROWSER_FIXTURES & {a.arg for a in n.args.args} and n.name not in slow[path.name]):
                unmarked.append(f"{path.name}::{n.name}")
    assert unmarked == []


def test_no_hook_marks_tests_slow_from_outside_their_file():
    """conftest.py sorts the files (longest first), and marks nothing."""
    tree = ast.parse((TESTS / "conftest.py").read_text(encoding="utf-8"))
    calls = [ast.unparse(n) for n in ast.walk(tree) if isinstance(n, ast.Call) and ast.unparse(n.func).endswith("add_marker")]
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    assert calls == [] and not {"SLOW_FILES", "SLOW_TESTS"} & names


@pytest.mark.slow
def test_the_quick_loop_leaves_out_exactly_what_the_files_mark_slow():
    """pytest's own selection (`-m slow`) against the marks read from the sources: the same tests."""
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", "slow", "-p", "no:xdist",
                          "-p", "no:cacheprovider", str(TESTS)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    selected: dict[str, set[str]] = {}
    for line in out.stdout.splitlines():
        if "::" in line:
            file, _, rest = line.partition("::")
            name = rest.split("::")[-1].split("[")[0]
            selected.setdefault(Path(file).name, set()).add(name)
    written = {f: names for f, names in marked_slow().items() if names}
    assert selected == written
    assert sum(map(len, selected.values())) > 50  # (the files' marks were read at all)
