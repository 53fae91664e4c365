"""The house in order (issue 27): layers that only point down, a receipts layer without pandas or
Jinja, modules and functions of a size a reader takes in."""
from __future__ import annotations

import ast
import json
import re
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


def test_no_private_name_is_used_across_modules():
    """A module's `_name` is its own: no other module of site_gen imports it (`from m import _x`) or
    reaches it through the module (`m._x`). What another module needs is public, named for its job."""
    known = graph.modules()
    found = []
    for name, path in sorted(known.items()):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases: dict[str, str] = {}  # a name bound to another module of site_gen -> that module
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("site_gen"):
                for a in node.names:
                    if f"{node.module}.{a.name}" in known:
                        aliases[a.asname or a.name] = f"{node.module}.{a.name}"
                    elif a.name.startswith("_") and not a.name.startswith("__"):
                        found.append(f"{name}:{node.lineno}: from {node.module} import {a.name}")
            elif isinstance(node, ast.Import):
                aliases.update({a.asname: a.name for a in node.names if a.asname and a.name in known})
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                    and aliases[node.value.id] != name and node.attr.startswith("_") and not node.attr.startswith("__")):
                found.append(f"{name}:{node.lineno}: {node.value.id}.{node.attr}")
    assert found == []


def _named_sections() -> tuple[set[str], set[str]]:
    """(the sections' receipt parts, those and their page keys) as central code would name them."""
    from site_gen.sections import all_sections

    parts = {s.name for s in all_sections() if s.name}
    parts |= {p.replace("_", "-") for p in parts}
    # A page key that is also a report-wide word ("checkpoints": the receipt's report part) is no name.
    return parts, parts | {s.key for s in all_sections() if s.key != "checkpoints"}


def test_central_code_names_no_section():
    """Central code iterates the registry: no module of the core, receipts, analysis, views or build
    layers reads a section's part or page by its name (`r.section("versions")`, `link(t, "versions")`),
    and no template of the theme names one in its code (`selectattr('speed', …)`) or its prose; a
    section's own files are its package's (sections/). The starter project's receipt is data."""
    parts, named = _named_sections()
    found = []
    for path in graph.sources():
        rel = path.relative_to(graph.PACKAGE)
        if rel.parts[0] not in ("core", "receipts", "analysis", "render", "building") or rel.name == "starter.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            args: list = []
            if isinstance(node, ast.Call):
                called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                args = node.args if called in ("section", "of", "get", "link", "url", "section_of", "target") else []
            elif isinstance(node, ast.Subscript):
                args = [node.slice]
            elif isinstance(node, ast.Compare):
                args = [node.left, *node.comparators]
            found += [f"{rel}:{node.lineno}: {ast.unparse(node)}" for a in args
                      if isinstance(a, ast.Constant) and a.value in named]
    for path in sorted((graph.PACKAGE / "templates").rglob("*.html")):
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"\{[{%](.*?)[%}]\}", text, re.S):
            found += [f"templates/{path.name}: {m.group(0)}" for n in named
                      if re.search(rf"(['\"]){re.escape(n)}\1|\bcells\.{re.escape(n)}\b", m.group(1))]
        prose = re.sub(r"<[^>]*>", " ", re.sub(r"\{[{%#].*?[%}#]\}", " ", text, flags=re.S))
        found += [f"templates/{path.name}: …{prose[max(0, m.start() - 30):m.end() + 30]}…" for n in parts
                  for m in re.finditer(rf"\b{re.escape(n)}\b", prose)]
    assert found == []


# Folder names that common tools take for build output, caches or environments and skip (GitHub's
# Python .gitignore template, MkDocs' and Sphinx's output, editors' and linters' defaults).
NOT_SOURCE = {"build", "dist", "sdist", "wheels", "eggs", ".eggs", "develop-eggs", "downloads", "lib", "lib64", "parts",
              "var", "target", "instance", "site", "_build", "htmlcov", "env", "venv", "ENV", "node_modules", "out"}


def test_no_package_folder_is_named_as_build_output():
    """A stranger's tools (a .gitignore from a template, an editor's search, a linter's defaults) read
    every folder of the package as source."""
    folders = {p.name for p in graph.PACKAGE.rglob("*") if p.is_dir() and p.name != "__pycache__"}
    assert "building" in folders and not folders & NOT_SOURCE, sorted(folders & NOT_SOURCE)
