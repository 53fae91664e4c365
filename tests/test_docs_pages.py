"""Author pages in docs_dir under `sitegen build`: markdown with report blocks, figures and checked
statements; navigation, links, the home page; errors that name the page and the line."""
from __future__ import annotations

import posixpath
import shutil
from pathlib import Path

import pytest

from conftest import ROOT
from htmlutil import NS, cell_text, find_id, tables, text

import html5lib

from site_gen.building.builder import build_files
from site_gen.core.config import load_config
from site_gen.core.diagnostics import refuse
from site_gen.core.errors import SitegenError

REPORT = "cuteafd-v4.0.0"
CONFIG = "site_name: Docs test\ndocs_dir: docs\nplugins:\n  - sitegen:\n      data_dir: data\n"


def project(tmp_path: Path, docs: dict[str, str | bytes], reports=(REPORT,)) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "mkdocs.yml").write_text(CONFIG)
    for name in reports:
        shutil.copytree(ROOT / "data" / REPORT, tmp_path / "data" / name)
    for name, body in docs.items():
        path = tmp_path / "docs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(body if isinstance(body, bytes) else body.encode())
    return tmp_path


def build(tmp_path: Path, docs: dict[str, str | bytes], *, strict: bool = False, reports=(REPORT,)):
    result = build_files(load_config(project(tmp_path, docs, reports) / "mkdocs.yml"))
    if strict:  # as the command line decides it, once the build is done
        refuse(result.warnings)
    return result


def doc(result, path: str):
    return html5lib.parse(result.files[path], treebuilder="etree", namespaceHTMLElements=True)


def error(tmp_path, docs, **kw) -> str:
    with pytest.raises(SitegenError) as exc:
        build(tmp_path, docs, **kw)
    return str(exc.value)


def test_markdown_page_in_site_theme_and_nav(tmp_path):
    result = build(tmp_path, {"guide.md": "# The `guide`\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n!!! note\n    Careful.\n\n"
                                          "Text[^1]\n{: #para }\n\n[^1]: A footnote.\n\n<div class=\"raw\">raw HTML</div>\n"})
    page = doc(result, "guide.html")
    assert text(find_id(page, "main")).startswith("The guide")
    assert [el.text for el in page.iter(f"{NS}title")] == ["The guide · Docs test"]
    assert any(el.get("class") == "admonition note" for el in page.iter(f"{NS}div"))
    assert any(el.get("class") == "raw" for el in page.iter(f"{NS}div"))  # author markdown is trusted
    assert find_id(page, "para") is not None and any(el.get("class") == "footnote" for el in page.iter(f"{NS}div"))
    assert list(page.iter(f"{NS}td"))[0].text == "1"
    # The page is in the site navigation of every page, report pages included.
    overview = doc(result, f"reports/{REPORT}/index.html")
    nav = [el for el in overview.iter(f"{NS}nav") if el.get("class") == "sitenav"][0]
    assert [(a.get("href"), cell_text(a)) for a in nav.iter(f"{NS}a")] == [("../../guide.html", "The guide")]


def test_an_authors_table_scrolls_in_a_box_of_its_own(tmp_path):
    """A wide table of a docs page scrolls inside its box (which page.js names and makes focusable, as
    the report pages' tables), not the page; one in a list item too."""
    table = "| a | b |\n|---|---|\n| 1 | 2 |\n"
    page = doc(build(tmp_path, {"a.md": f"# A\n\n{table}\n- item\n\n    {table.replace(chr(10), chr(10) + '    ')}\n"}), "a.html")
    tables_seen = list(page.iter(f"{NS}table"))
    wraps = [el for el in page.iter(f"{NS}div") if el.get("class") == "table-wrap"]
    assert len(tables_seen) == 2 and [list(w) for w in wraps] == [[t] for t in tables_seen]


def test_code_keeps_braces_and_receipt_markdown_stays_untrusted(tmp_path):
    result = build(tmp_path, {"a.md": "Inline `{{ speed_verdict }}` and\n\n```text\n{{ check x == 0 : y }}\n```\n\n"
                                      "Real: {{ speed_verdict }}.\n"})
    page = text(doc(result, "a.html"))
    assert "Inline {{ speed_verdict }} and" in page and "{{ check x == 0 : y }}" in page
    assert "Real: faster or level in every speed cell." in page


def test_a_sitegen_fence_inside_another_fence_is_shown_as_typed(tmp_path):
    """A page that shows how a block is written (the guide's own pages do) keeps it as code; the block
    after it is drawn."""
    shown = "```sitegen\nblock: memory-table\n```"
    body = (f"````markdown\n{shown}\n````\n\n~~~text\n{shown}\n~~~\n\n"
            "```sitegen\nblock: speed-summary\ncheckpoint: K4\n```\n")
    result = build(tmp_path, {"a.md": body})
    page = doc(result, "a.html")
    codes = ["".join(el.itertext()) for el in page.iter(f"{NS}code")]
    assert codes == [shown + "\n", shown + "\n"]
    assert set(tables(page)) == {"speed-summary"}
    # An unclosed fence of code runs to the end of the page: nothing after it is a block.
    page = doc(build(tmp_path / "b", {"a.md": "```text\nopen\n\n```sitegen\nblock: memory-table\n"}), "a.html")
    assert tables(page) == {}


def test_blocks_fenced_and_directive_with_ids_made_unique(tmp_path):
    body = ("```sitegen\nblock: speed-summary\n```\n\n{{ block speed-summary checkpoint=K3.25 }}\n\n"
            "```sitegen\nblock: speed-summary\ncheckpoint: K4\nid: k4-only\n```\n")
    t = tables(doc(build(tmp_path, {"a.md": body}), "a.html"))
    assert t["speed-summary"][0] == ["Summary", "K3.25", "K4"]
    assert t["speed-summary-2"][0] == ["Summary", "K3.25"] and t["k4-only"][0] == ["Summary", "K4"]


def test_blocks_of_several_kinds_compile_the_macro_imports_once(tmp_path, monkeypatch):
    from site_gen.render import blocks
    from site_gen.render.environment import _Environment
    compiled = []
    original = _Environment.from_string

    def counting(self, source, *args, **kwargs):
        compiled.append(source)
        return original(self, source, *args, **kwargs)
    monkeypatch.setattr(_Environment, "from_string", counting)
    blocks._compiled.cache_clear()  # what an earlier test of this process compiled
    body = "{{ block memory-table }}\n\n{{ block versions }}\n\n{{ block speed-summary }}\n\n{{ block memory-table id=again }}\n"
    result = build(tmp_path, {"a.md": body})
    imports = [c for c in compiled if "import" in c and "with context" in c]
    assert len(imports) == 1, imports  # one template imports the macros; each block's own is included in it
    assert sorted(c for c in compiled if c not in imports) == sorted(
        blocks.all_blocks()[n].template for n in ("memory-table", "versions", "speed-summary"))
    page = tables(doc(result, "a.html"))  # each block shows what its report page shows
    for block, on in (("memory-table", "memory"), ("versions-table", "versions"), ("speed-summary", "speed")):
        assert page[block] == tables(doc(result, f"reports/{REPORT}/{on}.html"))[block], block
    assert page["again"] == page["memory-table"]


def test_speed_cells_one_metric_with_chart(tmp_path):
    result = build(tmp_path, {"a.md": "```sitegen\nblock: speed-cells\ncheckpoint: K4\nmetric: decode\nchart: yes\n```\n"})
    page = doc(result, "a.html")
    assert set(tables(page)) == {"cells-k4-decode"}
    assert any(e.get("data-figure") == "figure-cells-k4" for e in page.iter())
    speed = tables(doc(result, f"reports/{REPORT}/speed.html"))
    assert tables(page)["cells-k4-decode"] == speed["cells-k4-decode"]
    assert b"sitegen." in result.files["a.html"].split(b"<script src=")[-1]


def test_precision_one_checkpoint_and_headline(tmp_path):
    result = build(tmp_path, {"a.md": "{{ block precision-table checkpoint=K4 }}\n\n{{ block precision-table headline=true }}\n"})
    page = doc(result, "a.html")
    one, whole = tables(page)["precision-table"], tables(page)["precision-table-2"]
    assert [r[0] for r in one if len(r) == 1] == ["K4"] and [r[0] for r in whole if len(r) == 1] == ["K3.25", "K4"]
    assert "every gap is resolved" in text(page)
    assert "headline summarises every checkpoint" in error(tmp_path / "x", {"b.md": "{{ block precision-table checkpoint=K4 headline=true }}\n"})


def test_front_matter_names_the_report_when_there_are_several(tmp_path):
    docs = {"a.md": "---\nreport: copy\n---\n# A\n\n{{ kv_ratio checkpoint=K4 }}\n\n{{ block memory-table }}\n"}
    result = build(tmp_path, docs, reports=(REPORT, "copy"))
    page = doc(result, "a.html")
    assert "1.40x" in text(page)
    assert [el.get("data-report") for el in page.iter(f"{NS}div") if el.get("data-block")] == ["copy"]
    message = error(tmp_path / "x", {"b.md": "# B\n\n{{ kv_ratio checkpoint=K4 }}\n"}, reports=(REPORT, "copy"))
    assert "b.md: line 3: figure 'kv_ratio' needs a report" in message and "copy, cuteafd-v4.0.0" in message


def test_home_is_docs_index_with_reports_table_once(tmp_path):
    result = build(tmp_path, {"index.md": "# Welcome\n\nIntro text.\n"})
    page = doc(result, "index.html")
    assert text(page).count("Intro text.") == 1 and "reports" in tables(page)
    placed = build(tmp_path / "b", {"index.md": "# Welcome\n\n```sitegen\nblock: dashboard\n```\n\nAfter the table.\n"})
    html = placed.files["index.html"].decode()
    assert html.count('id="reports"') == 1 and html.index('id="reports"') < html.index("After the table.")


def test_links_between_pages_and_to_report_pages(tmp_path):
    docs = {"index.md": "# Home\n\n[Guide](sub/guide.md#part) and [speed](page:speed).\n",
            "sub/guide.md": "# Guide\n\n[Home](../index.md), [memory](page:cuteafd-v4.0.0/memory), ![pic](pic.png)\n\n"
                            "{{ block memory-table }}\n",
            "sub/pic.png": b"\x89PNG\r\n"}
    result = build(tmp_path, docs)
    home = doc(result, "index.html")
    hrefs = [a.get("href") for a in find_id(home, "main").iter(f"{NS}a")]
    assert "sub/guide.html#part" in hrefs and f"reports/{REPORT}/speed.html" in hrefs
    guide = doc(result, "sub/guide.html")
    hrefs = [a.get("href") for a in find_id(guide, "main").iter(f"{NS}a")]
    assert "../index.html" in hrefs and f"../reports/{REPORT}/memory.html" in hrefs
    assert result.files["sub/pic.png"] == b"\x89PNG\r\n"
    for href in hrefs + ["pic.png"]:
        assert posixpath.normpath(posixpath.join("sub", href.split("#")[0])) in result.files, href


def test_broken_page_link_warns_and_fails_strict(tmp_path):
    docs = {"a.md": "# A\n\n[gone](missing.md)\n"}
    assert any("links to 'missing.md'" in w for w in build(tmp_path, docs).warnings)
    assert "links to 'missing.md'" in error(tmp_path / "s", docs, strict=True)


def test_contradicted_statement_marked_or_fatal(tmp_path):
    docs = {"a.md": "---\ntitle: A\n---\n# A\n\n{{ check startup_max engine=candidate < 50 : starts in under 50 s }}\n"}
    result = build(tmp_path, docs)
    assert any("a.md: line 6: statement 'starts in under 50 s' is contradicted by the data" in w for w in result.warnings)
    marks = list(doc(result, "a.html").iter(f"{NS}mark"))
    assert len(marks) == 1 and "contradicted by the receipts: 90.6 s" in cell_text(marks[0])
    assert "a.md: line 6: statement 'starts in under 50 s'" in error(tmp_path / "s", docs, strict=True)


@pytest.mark.slow
@pytest.mark.parametrize("body, where, message", [
    ("Intro\n\n```sitegen\nblock: speed-summary\n", "line 3", "sitegen block is not closed"),
    ("Text {{ block memory-table }} inline.\n", "line 1", "must stand on a line of its own"),
    ("```sitegen\nblock: memory-table\nid: a\n```\n\n```sitegen\nblock: versions\nid: a\n```\n", "line 8", "id 'a' is already used"),
    ("```sitegen\nblock: memory-table\nblock: versions\n```\n", "line 3", "option 'block' given twice"),
    ("```sitegen\nthis is not an option\n```\n", "line 2", "expected 'key: value'"),
    ("```sitegen\nreport: cuteafd-v4.0.0\n```\n", "line 1", "a sitegen block needs 'block: NAME'"),
    ("```sitegen\nblock: speed-cells\ncheckpoint: K4\nchart: maybe\n```\n", "line 4", "option 'chart' expects true or false"),
    ("```sitegen\nblock: speed-cells\nmetric: both\n```\n", "line 1", "needs 'checkpoint:', one of K3.25, K4"),
    ("```sitegen\nblock: dashboard\nreport: cuteafd-v4.0.0\n```\n", "line 3", "unknown option 'report' for block 'dashboard'"),
    ("{{ check looped_replies == : x }}\n", "line 1", "expected"),
])
def test_input_errors_name_page_and_line(tmp_path, body, where, message):
    out = error(tmp_path, {"p.md": body})
    assert f"p.md: {where}: " in out and message in out, out


def test_docs_cannot_replace_generated_files(tmp_path):
    assert "would replace a file sitegen generates" in error(tmp_path, {f"reports/{REPORT}/index.md": "# X\n"})


@pytest.mark.parametrize("name", ["history.md", "history.html"])
def test_docs_cannot_replace_the_history_page_of_a_site_of_several_reports(tmp_path, name):
    """A page of that name was rendered after the History page, and silently replaced it; a file was
    dropped. A site of one report has no History page: the name is free there."""
    two = (REPORT, "cuteafd-v3.0.1")
    said = error(tmp_path / "two", {name: "# Mine\n"}, reports=two)
    assert f"docs/{name}: would replace a file sitegen generates (history.html)" in said, said
    result = build(tmp_path / "one", {name: "# Mine\n"})
    assert b"Mine" in result.files["history.html"]


def test_report_without_a_section_says_so(tmp_path):
    shutil.copytree(ROOT / "data" / REPORT, tmp_path / "src")
    import json

    data = json.loads((tmp_path / "src" / "SUMMARY.json").read_text())
    del data["tool_calling"]
    (tmp_path / "data" / REPORT).mkdir(parents=True)
    (tmp_path / "data" / REPORT / "SUMMARY.json").write_text(json.dumps(data))
    shutil.copy(tmp_path / "src" / "lede.md", tmp_path / "data" / REPORT / "lede.md")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n\n{{ block tool-calling }}\n")
    (tmp_path / "mkdocs.yml").write_text(CONFIG)
    with pytest.raises(SitegenError) as exc:
        build_files(load_config(tmp_path / "mkdocs.yml"))
    assert "a.md: line 3: report 'cuteafd-v4.0.0' has no tool calling results" in str(exc.value)


@pytest.mark.slow
def test_example_site_pages(example_site):
    """The repository's own docs: the home text's figures come from the receipts, as does every block."""
    home = html5lib.parse((example_site / "index.html").read_bytes(), treebuilder="etree", namespaceHTMLElements=True)
    inline = [el for el in home.iter(f"{NS}span") if el.get("class") == "sitegen-inline"]
    assert len(inline) >= 4 and not list(home.iter(f"{NS}mark"))
    assert "reports" in tables(home)
    highlights = html5lib.parse((example_site / "highlights.html").read_bytes(), treebuilder="etree",
                                namespaceHTMLElements=True)
    assert not list(highlights.iter(f"{NS}mark"))
    assert {"speed-summary", "cells-k4-aggregate", "precision-table", "memory-table", "long-outputs-table"} <= set(tables(highlights))


def test_the_reports_a_docs_page_names_are_found_before_the_build():
    """`DocsPages.named`: the reports a page names as its blocks' or figures' (`report=` of a figure,
    `report:` of its front matter or a block), in the order asked, at most `most` of them. A forked
    build has those sent back analysed; a report named in no page, or only in a `page:` link (the
    guide links every report of the example), is not."""
    from site_gen.render.docs import DocsPages

    config = load_config(ROOT / "mkdocs.yml")
    docs = DocsPages(config, [])
    ids = sorted(p.name for p in config.data_dir.iterdir() if (p / "SUMMARY.json").is_file())
    texts = [p.read_text("utf-8") for p in sorted(config.docs_dir.rglob("*.md"))]
    expected = [rid for rid in ids if any(f"report: {rid}" in t or f"report={rid}" in t for t in texts)]
    assert expected == ["cuteafd-v4.0.0"] and any("page:vllm-tp4pp2-ib-aa/" in t for t in texts)
    assert docs.named(ids) == frozenset(expected)
    assert docs.named(["cuteafd-v3.0.1", "cuteafd-v4.0.0", "nowhere"], most=1) == {"cuteafd-v4.0.0"}
    assert docs.named(ids, most=0) == frozenset()


NAV_PAGES = {"index.md": "# Home\n\nHello.\n", "about.md": "# About us\n\nText.\n", "unlisted.md": "# Unlisted\n\nBuilt.\n",
             "guide/index.md": "# The guide\n\nStart.\n", "guide/b.md": "# Bee\n\nB.\n", "guide/a.md": "# Ay\n\nA.\n"}
NAV = ("nav:\n  - Guide:\n      - guide/index.md\n      - Second: guide/b.md\n      - guide/a.md\n"
       "      - Elsewhere: https://example.org/x\n  - History: history.md\n  - about.md\n")


def nav_of(page) -> tuple[list[tuple[str, str, str | None]], list[tuple[str, str, str | None]]]:
    """(the top bar's entries, the side list's) as (href, text, aria-current)."""
    def entries(cls):
        navs = [el for el in page.iter(f"{NS}nav") if el.get("class") == cls]
        return [(a.get("href"), cell_text(a), a.get("aria-current")) for a in navs[0].iter(f"{NS}a")] if navs else []
    return entries("sitenav"), entries("sidenav")


def test_nav_of_the_config_orders_titles_and_groups_the_pages(tmp_path):
    """`nav:` as MkDocs reads it: its order and titles; a section is one top-bar entry leading to its first
    page, and its pages are listed beside each of them; History stands where nav puts it; a page nav
    leaves out is built but not listed."""
    root = project(tmp_path, NAV_PAGES, reports=(REPORT, "cuteafd-v3.0.1"))
    (root / "mkdocs.yml").write_text(CONFIG + NAV)
    result = build_files(load_config(root / "mkdocs.yml"))
    assert result.warnings == []
    top, side = nav_of(doc(result, "guide/b.html"))
    assert top == [("index.html", "Guide", "true"), ("../history.html", "History", None), ("../about.html", "About us", None)]
    assert side == [("index.html", "The guide", None), ("b.html", "Second", "page"), ("a.html", "Ay", None),
                    ("https://example.org/x", "Elsewhere", None)]
    top, side = nav_of(doc(result, "about.html"))
    assert top == [("guide/index.html", "Guide", None), ("history.html", "History", None), ("about.html", "About us", "page")]
    assert side == []  # a page outside every section has no side list
    assert "unlisted.html" in result.files and all("unlisted" not in href for href, _, _ in top)
    top, side = nav_of(doc(result, f"reports/{REPORT}/speed.html"))  # report pages: the same top bar
    assert [t for _, t, _ in top] == ["Guide", "History", "About us"]
    # Without nav: every page but the home page in file order, History after them.
    (root / "mkdocs.yml").write_text(CONFIG)
    top, _ = nav_of(doc(build_files(load_config(root / "mkdocs.yml")), "about.html"))
    assert [t for _, t, _ in top] == ["About us", "Ay", "Bee", "The guide", "Unlisted", "History"]


def test_nav_entries_that_name_no_page_are_warnings_and_a_bad_nav_is_refused(tmp_path):
    root = project(tmp_path, NAV_PAGES)  # one report: no History page
    (root / "mkdocs.yml").write_text(CONFIG + NAV + "  - Gone: gone.md\n  - reports/no-such-report/index.md\n")
    result = build_files(load_config(root / "mkdocs.yml"))
    assert [str(w) for w in result.warnings] == [
        f"{root / 'mkdocs.yml'}: nav[3]: 'gone.md' is not a page of the site (nav names pages by their path inside docs_dir)",
        f"{root / 'mkdocs.yml'}: nav[4]: 'reports/no-such-report/index.md' names no report of the site"]
    with pytest.raises(SitegenError, match="nav\\[3\\]: 'gone.md' is not a page"):
        refuse(result.warnings)  # --strict
    top, _ = nav_of(doc(result, "about.html"))
    assert "History" not in [t for _, t, _ in top]  # named, but a site of one report has none
    for nav, message in (("nav: guide.md\n", "nav: expected a list of pages and sections, got str 'guide.md'"),
                         ("nav:\n  - A: {b: c.md}\n", "nav[0].A: expected a page path or an http(s) URL, got dict"),
                         ("nav:\n  - A: []\n", "nav[0].A: expected a section with at least one page"),
                         ("nav:\n  - A: ../outside.md\n", "nav[0].A: expected a page path inside docs_dir, got '../outside.md'"),
                         ("nav:\n  - A: javascript:alert(1)\n", "nav[0].A: expected an http:// or https:// URL")):
        (root / "mkdocs.yml").write_text(CONFIG + nav)
        with pytest.raises(SitegenError) as exc:
            load_config(root / "mkdocs.yml")
        assert message in str(exc.value), (nav, str(exc.value))
