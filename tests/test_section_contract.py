"""A section's analysis and view are typed parts (site_gen/sections/contract.py): a misspelled hook,
or one defined but left out of the part, is refused when the section is registered, never silently
ignored; central code reads the hooks as attributes, not by names in strings."""
from __future__ import annotations

import ast
import sys
import textwrap
from dataclasses import fields

import pytest
from conftest import ROOT

from site_gen import sections
from site_gen.analysis.parts import analysis_part
from site_gen.render.parts import view_part
from site_gen.sections.contract import MODULE_NAMES, AnalysisPart, ViewPart

DECLARATION = """
from site_gen.sections.base import Section

SECTION = Section(key="{key}", title="Typo", package=__name__, name="{key}", order=99)
"""
ANALYSIS = """
from site_gen.sections.contract import AnalysisPart

def analyse(a, part):
    return part

PART = AnalysisPart(analyse=analyse)
"""


def package(tmp_path, monkeypatch, key: str, view: str):
    """A section package `key` on sys.path, with the given view module."""
    folder = tmp_path / key
    folder.mkdir()
    (folder / "__init__.py").write_text(DECLARATION.format(key=key))
    (folder / "analysis.py").write_text(ANALYSIS)
    (folder / "view.py").write_text(textwrap.dedent(view))
    monkeypatch.syspath_prepend(str(tmp_path))
    __import__(key)
    return sys.modules[key].SECTION


def registered_keys() -> list[str]:
    return [s.key for s in sections.all_sections()]


def test_a_misspelled_hook_is_refused_with_the_hooks_there_are():
    def headline(a):
        return []

    with pytest.raises(TypeError) as err:
        ViewPart(view=lambda a: {}, headline=headline)
    message = str(err.value)
    assert "unknown hook 'headline'" in message and "did you mean 'headlines'?" in message
    assert "summary_rows" in message  # the hooks there are
    with pytest.raises(TypeError, match="unknown hook 'histroy' \\(did you mean 'history'\\?\\)"):
        AnalysisPart(analyse=lambda a, part: None, histroy={})


def test_registering_a_section_with_a_misspelled_hook_fails(tmp_path, monkeypatch):
    before = registered_keys()
    section = package(tmp_path, monkeypatch, "typo_hook", """
        from site_gen.sections.contract import ViewPart

        def view(a):
            return {}

        def headline(a):
            return [("Typo", "one line", "level")]

        PART = ViewPart(view=view, headline=headline)
    """)
    with pytest.raises(TypeError, match="unknown hook 'headline' \\(did you mean 'headlines'\\?\\)"):
        sections.register(section)
    assert registered_keys() == before  # not registered


def test_a_hook_defined_but_not_declared_is_refused(tmp_path, monkeypatch):
    """The case a string look-up missed both ways: a hook added beside the part and forgotten in it."""
    section = package(tmp_path, monkeypatch, "undeclared_hook", """
        from site_gen.sections.contract import ViewPart

        def view(a):
            return {}

        def headlines(a):
            return [("Typo", "one line", "level")]

        PART = ViewPart(view=view)
    """)
    with pytest.raises(TypeError, match="defines headlines but its ViewPart does not declare it"):
        sections.register(section)
    assert "undeclared-hook" not in registered_keys() and section.key not in registered_keys()


def test_a_view_module_without_a_part_is_refused(tmp_path, monkeypatch):
    section = package(tmp_path, monkeypatch, "no_part", """
        def view(a):
            return {}
    """)
    with pytest.raises(TypeError, match="no_part.view declares no ViewPart"):
        sections.register(section)


def test_a_well_declared_section_registers_and_its_hooks_are_read(tmp_path, monkeypatch):
    section = package(tmp_path, monkeypatch, "fine_hooks", """
        from site_gen.sections.contract import ViewPart

        def view(a):
            return {}

        def headlines(a):
            return [("Fine", "one line", "level")]

        PART = ViewPart(view=view, headlines=headlines)
    """)
    sections.register(section)
    try:
        assert view_part(section).headlines(None) == [("Fine", "one line", "level")]
        assert analysis_part(section).analyse(None, {"x": 1}) == {"x": 1}
        assert view_part(section).csv is None  # a hook left out adds nothing
    finally:
        sections.unregister(section.key)


def test_every_section_declares_its_parts():
    for s in sections.all_sections():
        assert view_part(s).view is not None, s.key
        if s.name is not None:
            assert analysis_part(s) is not None, s.key


def test_no_hook_is_looked_up_by_a_name_in_a_string():
    """Central code (analysis, render, build) reads a section's hooks as typed attributes: no
    `getattr(module, "HOOK")` of a hook's name, and no `parts.hook(section, "name")`."""
    names = {f.name for kind in (AnalysisPart, ViewPart) for f in fields(kind)} | set(MODULE_NAMES.values())
    found = []
    for folder in ("analysis", "render", "building"):
        for path in sorted((ROOT / "site_gen" / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.Call):
                    continue
                called = ast.unparse(node.func)
                named = [a.value for a in node.args[1:2] if isinstance(a, ast.Constant)]
                of = ast.unparse(node.args[0]) if node.args else ""
                if named and named[0] in names and (called in ("hook", "parts.hook") or called == "getattr" and (
                        named[0].isupper() or any(w in of for w in ("module", "view_of", "analysis_of")))):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}")
    assert found == []
