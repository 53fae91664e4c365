"""The build reads as one sequence of stages in one function (building/builder.py `build_site`):
reports -> settle -> site pages -> write, each a function of the build's frozen context, none
referring back to a builder; every front end's build (publish, preview, plugin) runs it."""
from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from conftest import ROOT, sitegen_here
from site_gen.building import builder

STAGES = ("made_by_workers", "settle", "site_pages", "write")


def test_a_build_runs_the_four_stages_once_each_in_order(tmp_path, monkeypatch):
    ran: list[str] = []
    for name in STAGES:
        real = getattr(builder, name)

        def stage(*args, _name=name, _real=real, **kwargs):
            ran.append(_name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(builder, name, stage)
    project = tmp_path / "project"
    assert sitegen_here("new", "-q", str(project)).returncode == 0
    r = sitegen_here("build", "-q", "-d", str(tmp_path / "site"), "--no-cache", cwd=project)
    assert r.returncode == 0, r.stderr
    assert ran == list(STAGES)
    assert (tmp_path / "site" / "index.html").is_file()


def _calls(function: ast.AST) -> list[str]:
    return [ast.unparse(n.func) for n in ast.walk(function) if isinstance(n, ast.Call)]


def test_every_way_to_build_goes_through_build_site():
    """`build` (publish), `build_files` (in memory) and a live Builder's `build` (the preview, the
    plugin) are each a Builder's build, which is `build_site` and nothing else."""
    tree = ast.parse(Path(builder.__file__).read_text(encoding="utf-8"))
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    for name in ("build", "build_files"):
        assert any(c.startswith("Builder(") and c.endswith(".build") for c in _calls(functions[name])), name
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Builder")
    method = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "build")
    assert _calls(method) == ["build_site"]


def test_no_stage_module_refers_back_to_the_builder():
    """The stages read the context and the store they are given: no module of the build's package
    but builder.py itself (and the public API above it) imports builder or names Builder."""
    found = []
    for path in sorted((ROOT / "site_gen" / "building").glob("*.py")):
        if path.name == "builder.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("builder"):
                found.append(f"{path.name}: from {node.module} import …")
            if isinstance(node, ast.Name) and node.id == "Builder":
                found.append(f"{path.name}: names Builder")
    assert found == []


def test_the_build_context_is_frozen():
    fields = {f.name for f in dataclasses.fields(builder.BuildContext)}
    assert {"config", "records", "store"} <= fields
    context = builder.BuildContext.__new__(builder.BuildContext)
    with pytest.raises(dataclasses.FrozenInstanceError):
        context.records = []  # type: ignore[misc]
