"""Warnings and errors are one kind of record, printed the same way; programming errors stay bugs."""
from __future__ import annotations

import json
import pickle

import pytest

from conftest import one_error_line, sitegen_here
from site_gen.analysis import figures
from site_gen.core.diagnostics import IGNORED, Diagnostic, refuse
from site_gen.core.errors import SitegenError


@pytest.fixture
def project(small_project):
    """Where a warning is said does not depend on the number of reports: two of the example's
    (conftest.FEW_REPORTS), whose builds take a fifth of the example's."""
    return small_project


REPORT = "cuteafd-v4.0.0"


@pytest.mark.slow
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
    d = Diagnostic("no reply looped", "/nowhere/docs/p.md", "line 3")
    assert (d.file, d.where, d.message) == ("/nowhere/docs/p.md", "line 3", "no reply looped")
    assert d == str(SitegenError("no reply looped", "/nowhere/docs/p.md", "line 3"))
    assert pickle.loads(pickle.dumps(d)).where == "line 3"


def test_strict_refuses_the_first_warning_as_its_error_and_counts_the_others():
    """--strict is the front end's: `refuse` raises the first warning (what it left out no longer
    "ignored") and says how many more there are; no warning, nothing raised."""
    refuse([])
    with pytest.raises(SitegenError) as one:
        refuse([Diagnostic("no reply looped", "/nowhere/docs/p.md", "line 3")])
    assert str(one.value) == str(SitegenError("no reply looped", "/nowhere/docs/p.md", "line 3"))
    with pytest.raises(SitegenError) as three:
        refuse([Diagnostic("unknown field 'x'" + IGNORED, "/r/SUMMARY.json", "$.report"), Diagnostic("a"), Diagnostic("b")])
    assert three.value.message == "unknown field 'x' (and 2 more warnings; warnings are errors under --strict)"
    assert (three.value.file, three.value.where) == ("/r/SUMMARY.json", "$.report")


@pytest.mark.slow
def test_strict_writes_nothing_and_leaves_the_previous_site(project):
    """A build under --strict that finds a warning refuses before anything is put in place."""
    site = project / "out"
    assert sitegen_here("build", "-q", "-d", str(site), cwd=project).returncode == 0
    before = {p: p.read_bytes() for p in site.rglob("*") if p.is_file()}
    summary = project / "data" / REPORT / "SUMMARY.json"
    receipt = json.loads(summary.read_text())
    receipt["report"]["colour"] = "blue"
    receipt["report"]["title"] = "Changed"
    summary.write_text(json.dumps(receipt))
    refused = sitegen_here("build", "-q", "--strict", "-d", str(site), cwd=project)
    one_error_line(refused.returncode, refused.stderr, "unknown field 'colour'")
    assert {p: p.read_bytes() for p in site.rglob("*") if p.is_file()} == before


def test_a_type_error_inside_a_figure_is_a_bug_not_bad_input(monkeypatch):
    def broken(a, **args):
        raise TypeError("a bug in a figure")
    name = next(iter(figures.registry()))
    monkeypatch.setitem(figures.REGISTRY, name, (broken, *figures.REGISTRY[name][1:]))
    monkeypatch.setattr(figures, "arguments", lambda n: {})
    with pytest.raises(TypeError, match="a bug in a figure"):
        figures.resolve(None, name, {})
