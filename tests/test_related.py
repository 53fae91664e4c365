"""Links between related reports, decided from the receipts: a versions section's previous engine
and a memory reference link the report of that engine (and it links back to the versions page),
a rerun and the run it supersedes link each other, and receipt markdown `page:REPORT/NAME` links
another report's page; a pending link to a report not in the site is no link."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import html5lib
from htmlutil import NS

from conftest import ROOT
from site_gen.building.builder import build_files
from site_gen.core.config import load_config

SMALL = json.loads((ROOT / "data" / "cuteafd-v3.0.1" / "SUMMARY.json").read_text(encoding="utf-8"))


def receipt(title: str, version: str, date: str, **report) -> dict:
    d = copy.deepcopy(SMALL)
    d["report"].update({"not_covered": [], **report, "title": title, "date": date})
    d["report"]["engines"]["candidate"]["version"] = version
    return d


def site(root: Path, reports: dict[str, dict]) -> Path:
    """A project of `reports` (id -> receipt); returns its mkdocs.yml."""
    (root / "mkdocs.yml").write_text("site_name: Related\nplugins:\n  - sitegen:\n      data_dir: data\n")
    for rid, d in reports.items():
        (root / "data" / rid).mkdir(parents=True, exist_ok=True)
        (root / "data" / rid / "SUMMARY.json").write_text(json.dumps(d), encoding="utf-8")
    return root / "mkdocs.yml"


def newer(previous: str = "3.0.1", **report) -> dict:
    """A report of the next version whose versions section and memory reference name `previous`."""
    d = receipt("Next <b>version</b>", "4.0.0", "2026-11-22", **report)
    d["versions"] = {"previous": {"name": "CuteAFD", "version": previous}}
    d["memory"]["references"] = [{"checkpoint": "K4", "name": "CuteAFD", "version": previous, "kv_pool_tokens": 1000}]
    return d


def parse(data: bytes):
    return html5lib.parse(data, treebuilder="etree", namespaceHTMLElements=True)


def links(files: dict[str, bytes], url: str) -> dict[str, str]:
    """href -> link text of a page's main content."""
    doc = parse(files[url])
    main = next(e for e in doc.iter(f"{NS}main"))
    return {a.get("href"): "".join(a.itertext()) for a in main.iter(f"{NS}a") if a.get("href")}


def test_versions_and_memory_link_the_previous_versions_report_and_it_links_back(tmp_path):
    files = build_files(load_config(site(tmp_path, {"old": receipt("First & <i>only</i>", "3.0.1", "2026-11-20"),
                                                     "new": newer()}))).files
    assert links(files, "reports/new/versions.html")["../old/index.html"] == "First & <i>only</i>"  # text, escaped
    assert b"First &amp; &lt;i&gt;only&lt;/i&gt;" in files["reports/new/versions.html"]
    assert links(files, "reports/new/memory.html")["../old/index.html"] == "CuteAFD v3.0.1"
    overview = links(files, "reports/new/index.html")
    assert overview["../old/index.html"] in ("CuteAFD v3.0.1", "First & <i>only</i>")
    back = links(files, "reports/old/index.html")
    assert back["../new/versions.html"] == "CuteAFD v4.0.0 against CuteAFD v3.0.1"


def test_no_link_when_the_previous_version_has_no_report_here(tmp_path):
    files = build_files(load_config(site(tmp_path, {"old": receipt("First", "3.0.1", "2026-11-20"),
                                                     "new": newer(previous="2.9")}))).files
    assert not any("../old/" in href for href in links(files, "reports/new/versions.html"))
    assert not any("../new/" in href for href in links(files, "reports/old/index.html"))


def test_a_rerun_and_the_run_it_supersedes_link_each_other(tmp_path):
    files = build_files(load_config(site(tmp_path, {
        "first": receipt("First run", "3.0.1", "2026-11-20"),
        "again": receipt("Second run", "3.0.1", "2026-11-21", supersedes="first")}))).files
    assert links(files, "reports/first/index.html")["../again/index.html"] == "Second run"
    assert "supersedes this report" in files["reports/first/index.html"].decode()
    assert links(files, "reports/again/index.html")["../first/index.html"] == "First run"


def test_receipt_markdown_links_a_page_of_another_report(tmp_path):
    notes = ["see the [next report](page:new/)", "its [versions](page:new/versions)",
             "[gone](page:nowhere/)", "[no such page](page:new/tool-calling)", "[own](page:old/precision)"]
    files = build_files(load_config(site(tmp_path, {"old": receipt("First", "3.0.1", "2026-11-20", not_covered=notes),
                                                     "new": newer()}))).files
    found = links(files, "reports/old/index.html")
    assert found["../new/index.html"] == "next report" and found["../new/versions.html"] == "versions"
    assert found["precision.html"] == "own"
    doc = parse(files["reports/old/index.html"])
    broken = sorted("".join(a.itertext()) for a in doc.iter(f"{NS}a") if a.get("class") == "broken-link")
    assert broken == ["gone", "no such page"]


def test_forked_workers_give_the_links_an_in_process_build_gives(tmp_path, forked_builds):
    """Workers render each report without the others: a report that links another is made again."""
    from test_scale import in_memory, tree

    from site_gen.building.builder import build

    reports = {f"r{i}": receipt(f"Run {i}", f"1.{i}", f"2026-11-{10 + i:02d}") for i in range(forked_builds - 2)}
    config = load_config(site(tmp_path, {**reports, "old": receipt("First", "3.0.1", "2026-11-20",
                                                                     not_covered=["[next](page:new/)"]), "new": newer()}))
    expected = in_memory(config)
    assert b'href="../new/index.html"' in expected["reports/old/index.html"]
    build(config)  # workers write straight to the site
    assert tree(config.site_dir) == expected
