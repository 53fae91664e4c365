"""Warnings and errors are one kind of record, printed the same way; programming errors stay bugs."""
from __future__ import annotations

import json
import pickle

import pytest

from conftest import one_error_line, sitegen_here
from site_gen.analysis import figures
from site_gen.core.diagnostics import Diagnostic, warning
from site_gen.core.errors import SitegenError

REPORT = "cuteafd-v4.0.0"


def test_a_warning_names_its_file_as_the_error_of_the_same_problem_does(project):
    """An unknown field: a warning without --strict, an error with it, at the same relative place."""
    summary = project / "data" / REPORT / "SUMMARY.json"
    receipt = json.loads(summary.read_text())
    receipt["report"]["colour"] = "blue"
    summary.write_text(json.dumps(receipt))
    warned = sitegen_here("check", cwd=project)
    assert warned.returncode == 0, warned.stderr
    line = next(x for x in warned.stderr.splitlines() if "unknown field 'colour'" in x)
    place = f"data/{REPORT}/SUMMARY.json: $.report: unknown field 'colour'"
    assert place in line and str(project) not in line
    refused = sitegen_here("check", "--strict", cwd=project)
    assert place in one_error_line(refused.returncode, refused.stderr)


def test_a_diagnostic_keeps_its_parts_and_crosses_to_a_worker():
    d = warning("no reply looped", "/nowhere/docs/p.md", "line 3", strict=False)
    assert isinstance(d, Diagnostic) and (d.file, d.where, d.message) == ("/nowhere/docs/p.md", "line 3", "no reply looped")
    assert d == str(SitegenError("no reply looped", "/nowhere/docs/p.md", "line 3"))
    assert pickle.loads(pickle.dumps(d)).where == "line 3"
    with pytest.raises(SitegenError) as raised:
        warning("no reply looped", "/nowhere/docs/p.md", "line 3", strict=True)
    assert str(raised.value) == d


def test_a_type_error_inside_a_figure_is_a_bug_not_bad_input(monkeypatch):
    def broken(a, **args):
        raise TypeError("a bug in a figure")
    name = next(iter(figures.registry()))
    monkeypatch.setitem(figures.REGISTRY, name, (broken, *figures.REGISTRY[name][1:]))
    monkeypatch.setattr(figures, "arguments", lambda n: {})
    with pytest.raises(TypeError, match="a bug in a figure"):
        figures.resolve(None, name, {})
