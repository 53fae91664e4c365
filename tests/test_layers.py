"""The house in order (issue 27): layers that only point down, a receipts layer without pandas or
Jinja, modules and functions of a size a reader takes in."""
from __future__ import annotations

import ast
import json
import subprocess
import sys

import imports_graph as graph

from conftest import ROOT


def test_the_import_graph_has_no_cycle_and_no_import_up_the_layers():
    g = graph.imports(graph.modules())
    assert graph.cycles(g) == []
    assert graph.upward(g) == []
    # The graph is read for real: the layers it knows are all populated, and modules import each other.
    layers = {graph.layer(m) for m in g}
    assert set(graph.LAYERS) - {"api"} <= layers, layers
    assert sum(len(v) for v in g.values()) > 200


def test_a_module_importing_a_higher_layer_is_found(tmp_path, monkeypatch):
    """The check itself: a receipts module that imports the views is named."""
    fake = tmp_path / "site_gen"
    (fake / "receipts").mkdir(parents=True)
    (fake / "render").mkdir()
    (fake / "__init__.py").write_text("")
    (fake / "receipts" / "__init__.py").write_text("")
    (fake / "render" / "__init__.py").write_text("")
    (fake / "receipts" / "x.py").write_text("def f():\n    from site_gen.render import y\n")
    (fake / "render" / "y.py").write_text("import site_gen.receipts.x\n")
    monkeypatch.setattr(graph, "PACKAGE", fake)
    g = graph.imports(graph.modules())
    assert graph.upward(g) == [("site_gen.receipts.x", "site_gen.render.y")]
    assert graph.cycles(g) == [["site_gen.receipts.x", "site_gen.render.y"]]


def test_loading_and_validating_receipts_imports_neither_pandas_nor_jinja():
    """The receipts layer (parse, schema, meaning checks, the sections' declarations), in a fresh
    interpreter, on every example receipt."""
    code = ("import sys, json\n"
            "from pathlib import Path\n"
            "from site_gen.receipts.load import load_reports\n"
            "reports = load_reports(Path(sys.argv[1]))\n"
            "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('pandas', 'numpy', 'jinja2', 'markdown', 'plotly'))\n"
            "layers = sorted({m.split('.')[1] for m in sys.modules if m.startswith('site_gen.')})\n"
            "print(json.dumps({'reports': len(reports), 'heavy': heavy, 'layers': layers}))\n")
    out = subprocess.run([sys.executable, "-c", code, str(ROOT / "data")], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["reports"] == len([p for p in (ROOT / "data").iterdir() if (p / "SUMMARY.json").exists()])
    assert got["heavy"] == []
    # (_compiled: the package's generated modules, here the receipt checkers: render/precompiled.py)
    assert set(got["layers"]) <= {"core", "receipts", "schema", "sections", "_compiled"}, got["layers"]


MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60


def test_no_module_over_400_lines_and_no_function_over_60():
    long_modules, long_functions = [], []
    for path in graph.sources():
        text = path.read_text(encoding="utf-8")
        name = path.relative_to(ROOT).as_posix()
        if len(text.splitlines()) > MAX_MODULE_LINES:
            long_modules.append((name, len(text.splitlines())))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long_functions.append((name, node.name, lines))
    assert long_modules == [] and long_functions == []
