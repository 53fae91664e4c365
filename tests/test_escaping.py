"""Receipt strings stay text wherever they go: MkDocs themes' navigation and titles (in Chromium),
CSV cells a spreadsheet opens, and the markdown `sitegen summary` writes for a pull-request comment."""
from __future__ import annotations

import csv
import importlib.util
import io
import json
import os
from pathlib import Path

import pytest

from conftest import ROOT

IMG = "<img src=x onerror=window.__xss=1>"
SCRIPT = "<script>window.__xss=1</script>"
SMALL = ROOT / "data" / "cuteafd-v3.0.1"


def hostile_receipt() -> dict:
    """The small example receipt with script in its title, engine names, notes and labels."""
    doc = json.loads((SMALL / "SUMMARY.json").read_text(encoding="utf-8"))
    r = doc["report"]
    r["title"] = f"Title {IMG} {SCRIPT}"
    r["engines"]["candidate"]["name"] = f"Cand {SCRIPT}"
    r["engines"]["baseline"]["name"] = f"Base {IMG}"
    r["engines"]["baseline"]["long_name"] = f"Long {SCRIPT}"
    r["engines"]["candidate"]["version"] = f"3 {IMG}"
    r["hardware"] = f"Hardware {IMG}"
    r["tested"][0]["label"] = f"Label {SCRIPT}"
    r["checkpoints"][0]["description"] = f"Checkpoint {IMG}"
    r["not_covered"] = [f"Not covered {SCRIPT}"]
    doc["precision"]["note"] = f"Note {IMG} {SCRIPT}"
    doc["precision"]["reference"] = f"Ref {IMG}"
    doc["precision"]["measures"][0]["label"] = f"Measure {SCRIPT}"
    # A versions page, whose title is made of the two versions.
    doc["versions"] = json.loads((ROOT / "data" / "cuteafd-v4.0.0" / "SUMMARY.json").read_text(encoding="utf-8"))["versions"]
    doc["versions"]["previous"]["version"] = f"2 {SCRIPT}"
    return doc


def hostile_project(root: Path, theme: str) -> Path:
    report = root / "data" / "hostile"
    report.mkdir(parents=True)
    (report / "SUMMARY.json").write_text(json.dumps(hostile_receipt(), ensure_ascii=False), encoding="utf-8")
    (root / "docs").mkdir()
    (root / "docs" / "about.md").write_text("# About\n\nA page of the author's.\n", encoding="utf-8")
    # No highlight.js or web fonts from a CDN: the test stays offline and fast.
    offline = "highlightjs: false" if theme == "mkdocs" else "font: false"
    (root / "mkdocs.yml").write_text(f"site_name: Hostile\ntheme:\n  name: {theme}\n  {offline}\n"
                                     "plugins:\n  - sitegen\n", encoding="utf-8")
    return root


def mkdocs_build(root: Path) -> Path:
    """`mkdocs build` in this process (a fresh process costs a second of imports)."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    site = root / "site"
    build(load_config(config_file=str(root / "mkdocs.yml"), site_dir=str(site)))
    return site


# What ran, and what a receipt created: judged in Python.
INSPECT = """() => ({
  xss: window.__xss,
  handlers: [...document.querySelectorAll('*')].flatMap(el => [...el.attributes]
      .filter(a => a.name.startsWith('on')).map(a => el.tagName + ' ' + a.name)),
  scripts: [...document.querySelectorAll('script')].filter(s => s.textContent.includes('__xss')).length,
  text: document.documentElement.textContent,
  nav: [...document.querySelectorAll('.navbar a, .md-nav a, .md-nav label')].map(el => el.textContent.trim()),
})"""


@pytest.mark.parametrize("theme", ["mkdocs", "material"])
def test_plugin_site_runs_no_receipt_script_and_shows_it_as_text(tmp_path, page, theme):
    if theme == "material" and importlib.util.find_spec("material") is None:
        if os.environ.get("CI"):
            pytest.fail("mkdocs-material is not installed; the test extras install it")
        pytest.skip("mkdocs-material not installed (pip install -e '.[test]')")
    site = mkdocs_build(hostile_project(tmp_path, theme))
    pages = sorted(site.rglob("*.html"))
    assert len(pages) >= 5
    page.route("http*://**", lambda route: route.abort())
    text = ""
    for path in pages:
        where = f"{theme}: {path.relative_to(site)}"
        page.goto(path.as_uri(), wait_until="load")  # an image's error event fires before load
        found = page.evaluate(INSPECT)
        assert found["xss"] is None, f"{where}: a receipt's script ran"
        assert found["handlers"] == [] and found["scripts"] == 0, f"{where}: {found['handlers']}"
        text += found["text"]
        if path.name != "404.html":
            # The report's title names its section of the navigation, literally, on every page.
            assert any(f"Title {IMG} {SCRIPT}" in t for t in found["nav"]), f"{where}: {found['nav']}"
    for shown in (f"Cand {SCRIPT}", f"Base {IMG}", f"Hardware {IMG}", f"Label {SCRIPT}", f"Checkpoint {IMG}",
                  f"Not covered {SCRIPT}"):
        assert shown in text, shown
    page.goto((site / "reports" / "hostile" / "versions.html").as_uri())
    assert page.title().startswith(f"v3 {IMG} against v2 {SCRIPT}")
