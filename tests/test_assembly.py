"""One assembly (site_gen/building/assembly.py) for every front end: build, check, summary and the MkDocs
plugin see the same reports, in the same order, refused for the same reasons."""
from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

import site_gen
from site_gen.building.assembly import assemble
from site_gen.cli import main
from site_gen.building.starter import receipt
from site_gen.core.config import load_config

CONFIG = "site_name: Assembly\nplugins:\n  - sitegen:\n      data_dir: data\n"


def project(tmp_path: Path, reports: dict[str, dict]) -> Path:
    (tmp_path / "mkdocs.yml").write_text(CONFIG)
    for rid, report in reports.items():
        doc = receipt()
        doc["report"].update(report)
        (tmp_path / "data" / rid).mkdir(parents=True)
        (tmp_path / "data" / rid / "SUMMARY.json").write_text(json.dumps(doc))
    return tmp_path


def test_every_front_end_refuses_a_circle_of_reruns_alike(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(project(tmp_path, {"a": {"supersedes": "b"}, "b": {"supersedes": "a"}}))
    said = {}
    for command in ("check", "summary"):
        assert main([command]) == 1
        said[command] = capsys.readouterr().err
    assert said["check"] == said["summary"]
    assert "$.report.supersedes: supersedes 'b', and the reruns go round in a circle: a → b → a" in said["summary"]


def test_reports_come_newest_first(tmp_path):
    root = project(tmp_path, {"old": {"date": "2026-01-01"}, "new": {"date": "2026-02-01"}, "same-day": {"date": "2026-02-01"}})
    site = assemble(load_config(root / "mkdocs.yml"))
    assert [a.report.id for a in site.analyses] == ["same-day", "new", "old"]
    from site_gen.building.assembly import dashboard_rows, settle
    from site_gen.building.environment import collect

    assert [row["id"] for row in dashboard_rows(settle([collect(a) for a in site.analyses]))] == ["same-day", "new", "old"]


def test_the_plugin_uses_no_private_name_of_sitegen():
    tree = ast.parse((Path(site_gen.__file__).parent / "mkdocs_plugin.py").read_text())
    private = [alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("site_gen")
               for alias in node.names if alias.name.startswith("_")]
    modules = {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))
               for alias in node.names}
    reached = [f"{node.value.id}.{node.attr}" for node in ast.walk(tree) if isinstance(node, ast.Attribute)
               and isinstance(node.value, ast.Name) and node.value.id in modules and node.attr.startswith("_")]
    assert private == [] and reached == []


def test_a_rebuild_after_a_lede_edit_refuses_what_a_fresh_build_refuses(tmp_path):
    from site_gen.building.builder import Builder, build_files
    from site_gen.core.errors import SitegenError

    root = project(tmp_path, {"r": {"lede": "lede.md"}})
    (root / "mkdocs.yml").write_text(CONFIG + "      max_receipt_mb: 0.02\n")
    lede = root / "data" / "r" / "lede.md"
    lede.write_text("A short lede.\n")
    config = load_config(root / "mkdocs.yml")
    builder = Builder(config, watched=True)
    builder.build()
    lede.write_text("A long lede. " * 3000)  # 39 KB, above the 0.02 MB limit
    builder.changed([lede])
    with pytest.raises(SitegenError) as fresh:
        build_files(config)
    with pytest.raises(SitegenError) as rebuilt:
        builder.build()
    assert str(rebuilt.value) == str(fresh.value) and "0.02" in str(fresh.value)
