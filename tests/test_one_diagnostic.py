"""One Diagnostic type from the build cache to the preview's terminal (site_gen/core/diagnostics.py):
every warning a build returns keeps its file, place and message, whether the build made it, took
it from the store, or found the whole site already built; the cache's own trouble is said in the
same records; the preview hands each new warning to its front end as such, never as text with a
prefix to parse back off."""
from __future__ import annotations

import json
import os
import shutil

import pytest

from conftest import ROOT
from site_gen import api
from site_gen.building import cache
from site_gen.building.results import BuildResult
from site_gen.core.config import load_config
from site_gen.core.diagnostics import Diagnostic

LINKED, OTHER = "cuteafd-v4.0.0", "cuteafd-v3.0.1"


def warned_project(tmp_path):
    """Two reports of the example: one whose lede states a check its data contradicts (a warning of
    its pages), the other with an unknown field in its receipt (a warning of its loading)."""
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(ROOT / "mkdocs.yml", project / "mkdocs.yml")
    for rid in (LINKED, OTHER):
        shutil.copytree(ROOT / "data" / rid, project / "data" / rid, ignore=shutil.ignore_patterns("*.py"))
    shutil.copytree(ROOT / "docs", project / "docs")
    lede = project / "data" / LINKED / "lede.md"
    lede.write_text(lede.read_text().replace("{{ check looped_replies == 0 :", "{{ check looped_replies != 0 :"))
    unknown(project, "x_first")
    return project


def unknown(project, field: str) -> None:
    receipt = project / "data" / OTHER / "SUMMARY.json"
    data = json.loads(receipt.read_text())
    data["report"][field] = 1
    receipt.write_text(json.dumps(data))


def parts(result) -> list[tuple]:
    assert result.warnings and all(type(w) is Diagnostic for w in result.warnings), result.warnings
    return [(w.message, w.file, w.where) for w in result.warnings]


def test_a_warning_keeps_its_parts_through_the_store_and_a_site_found_built(tmp_path):
    project = warned_project(tmp_path)
    config = load_config(project / "mkdocs.yml", tmp_path / "site")
    cache.configure(tmp_path / "cache")
    try:
        cold = api.build(config, reuse=True)
        unknown(project, "x_second")  # the other report changes: the first's files come from the store
        config = load_config(project / "mkdocs.yml", tmp_path / "site")
        warm = api.build(config, reuse=True)
        found = api.build(config, reuse=True)  # nothing changed: the site is found built
    finally:
        cache.configure()
    assert isinstance(found, BuildResult) and not cold.reused and not warm.reused and found.reused
    page = [p for p in parts(cold) if "is contradicted by the data" in p[0]]
    assert len(page) == 1 and page[0][1] == str(project / "data" / LINKED / "lede.md") and page[0][2].startswith("line ")
    assert page[0] in parts(warm)
    assert parts(found) == parts(warm)
    assert [p for p in parts(warm) if "x_" in p[0]] == [
        ("unknown field 'x_first', 'x_second' (ignored; an error under --strict)", str(project / "data" / OTHER / "SUMMARY.json"),
         "$.report")]


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="folder ownership and modes are POSIX")
def test_the_cache_says_its_trouble_as_diagnostics_naming_the_folder(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    cache.configure(shared)
    try:
        assert cache.folder() is None
        notes = api.cache_notes()
    finally:
        cache.configure()
    assert len(notes) == 1 and type(notes[0]) is Diagnostic
    assert notes[0].file == str(shared) and notes[0].message == "the build cache is off: it may be written by others (mode 0777)"


def test_the_preview_hands_each_new_warning_to_its_front_end_as_a_diagnostic(tmp_path):
    from site_gen.preview.serve import Preview

    project = warned_project(tmp_path)
    lines: list[str] = []
    warned: list = []
    preview = Preview(project / "mkdocs.yml", dev_addr="127.0.0.1:0", out=lines.append, err=lines.append,
                      warn=warned.append)
    preview.start()
    preview.stop()
    assert warned and all(type(w) is Diagnostic for w in warned)
    assert {w.file for w in warned} == {str(project / "data" / LINKED / "lede.md"), str(project / "data" / OTHER / "SUMMARY.json")}
    assert not any("WARNING" in line for line in lines), lines  # nothing said as text to parse back
