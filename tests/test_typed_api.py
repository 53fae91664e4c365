"""The API takes and returns typed values: a build returns a `BuildResult` (a site found built too,
said by `reused`), and `sitegen import` hands the importers a frozen options dataclass of their
format (site_gen/importers/options.py), never the command line's argparse Namespace."""
from __future__ import annotations

import ast
import dataclasses
import inspect
import typing

import pytest

from conftest import ROOT
from site_gen import api
from site_gen.importers import FORMATS
from site_gen.importers.options import FORMAT_OPTIONS, ImportOptions, LedgerOptions, ServingOptions


def test_a_build_returns_a_build_result():
    for fn in (api.build, api.build_files):
        assert typing.get_type_hints(fn)["return"] is api.BuildResult, fn.__name__
    assert typing.get_type_hints(api.import_receipt)["return"] is api.ImportResult
    assert {f.name for f in dataclasses.fields(api.BuildResult)} >= {"files", "pages", "reports", "warnings", "seconds", "reused"}


def test_each_format_has_its_options_and_they_are_frozen():
    assert set(FORMAT_OPTIONS) == set(FORMATS)
    given = {"format": "ledger", "output": "data/x", "sources": ["ledger"], "comparison": "c1", "baseline": ["a"],
             "label_baseline": "not the ledger's", "setup": [["s1", "f.json"]], "quiet": True, "run": print}
    ledger = api.import_options("ledger", given)
    assert type(ledger) is LedgerOptions
    assert (ledger.sources, ledger.comparison, ledger.baseline, ledger.candidate) == (("ledger",), "c1", ("a",), None)
    assert not hasattr(ledger, "label_baseline") and not hasattr(ledger, "quiet")  # not a ledger's option
    with pytest.raises(dataclasses.FrozenInstanceError):
        ledger.baseline = ("b",)  # type: ignore[misc]
    serving = api.import_options("vllm-bench", {**given, "format": "vllm-bench"})
    assert type(serving) is ServingOptions and serving.setup == (("s1", "f.json"),) and serving.side("baseline") == ("a",)
    assert serving.label_baseline == "not the ledger's" and not hasattr(serving, "comparison")


def test_no_namespace_travels_below_the_command_line():
    """Every importer's entry point takes its format's options, and no module below the front ends
    reads an argparse Namespace (`args.x`), asks for one, or sets an attribute on what it was given."""
    import importlib

    for fmt, module in FORMATS.items():
        m = importlib.import_module(module)
        entry = getattr(m, "run_and_write", None) or m.run
        hint = typing.get_type_hints(entry)[next(iter(inspect.signature(entry).parameters))]
        assert issubclass(FORMAT_OPTIONS[fmt], hint) and issubclass(hint, ImportOptions), (fmt, hint)
    found = []
    for path in sorted((ROOT / "site_gen").rglob("*.py")):
        rel = path.relative_to(ROOT / "site_gen")
        if rel.parts[0] in ("cli", "_compiled") or rel.name == "mkdocs_plugin.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "args" \
                    and node.attr not in ("get", "items", "keys", "values", "pop", "setdefault", "update", "copy"):
                found.append(f"{rel}:{node.lineno}: args.{node.attr}")
            if isinstance(node, ast.Name) and node.id == "Namespace" or isinstance(node, ast.Attribute) and node.attr == "Namespace":
                found.append(f"{rel}:{node.lineno}: Namespace")
    assert found == []
