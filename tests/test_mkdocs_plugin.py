"""The same small site built both ways — `sitegen build` and `mkdocs build --strict` with the sitegen
plugin — shows the same figures: in author pages' blocks and sentences, and on the report pages."""
from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, SEED_TOOL, mkdocs_here, need_seed_tool, sitegen_here
from htmlutil import NS, cell_text, parse, tables, text

REPORT = "cuteafd-v4.0.0"

CONFIG = """site_name: Small benchmarks
site_description: Two ways to build one site.
docs_dir: docs
plugins:
  - sitegen:
      data_dir: data
      noise_band: 0.08
      ratio_scale: [0.8, 1.8]
"""

GUIDE = """---
report: cuteafd-v4.0.0
---
# Guide

Across every cell it is {{ speed_verdict }}; on K4 one-stream decode is {{ speed_range checkpoint=K4 }},
the KV pool {{ kv_ratio checkpoint=K4 }} and {{ speed_count checkpoint=K4 verdict=faster }} cells are faster.
{{ check speed_count verdict=slower == 0 : No speed cell is slower }},
{{ check precision_unresolved == 0 : every precision gap is resolved }},
{{ check looped_replies == 0 : no reply looped }} and
{{ check startup_max engine=candidate < 100 : startup is under 100 s }}.

```sitegen
block: speed-summary
checkpoint: K4
```

```sitegen
block: speed-cells      # every K4 cell with its ratio bar
checkpoint: K4
chart: true
```

{{ block precision-table headline=true }}

```sitegen
block: long-outputs
```

```sitegen
block: memory-table
```

```sitegen
block: versions
```

~~~sitegen
block: tool-calling
~~~

Back to [the start](index.md). Written as code, a figure stays as typed: `{{ speed_verdict }}`.
"""

INDEX = """# Small benchmarks

{{ engine report=cuteafd-v4.0.0 }} against {{ engine report=cuteafd-v4.0.0 role=baseline }}: see the [guide](guide.md).
"""


def mkdocs(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """`mkdocs ARGS` as a user runs it (its command line, messages and exit code), in this process."""
    return mkdocs_here(*args, cwd=cwd)


def make_project(root: Path, docs: dict[str, str], config: str = CONFIG) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "mkdocs.yml").write_text(config)
    shutil.copytree(ROOT / "data" / REPORT, root / "data" / REPORT)
    for name, body in docs.items():
        path = root / "docs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)
    return root


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The small site: (sitegen output, mkdocs output)."""
    root = make_project(tmp_path_factory.mktemp("small"), {"index.md": INDEX, "guide.md": GUIDE,
                                                           "all-reports.md": "# All reports\n\n{{ block dashboard }}\n"})
    sg = sitegen_here("build", "--strict", "-q", "-d", str(root / "out-sitegen"), cwd=root)
    assert sg.returncode == 0, sg.stderr
    mk = mkdocs("build", "--strict", "-d", str(root / "out-mkdocs"), cwd=root)
    assert mk.returncode == 0, mk.stderr
    return root / "out-sitegen", root / "out-mkdocs"


def figures(doc) -> dict:
    """What a reader gets from the receipts on a page: inline figures and statements, block tables."""
    inline = []
    for el in doc.iter(f"{NS}span"):
        if el.get("class") == "sitegen-inline":
            inner = [c for c in el if c.tag in (f"{NS}span", f"{NS}mark")][0]
            inline.append((inner.get("class"), cell_text(inner), inner.get("title")))
    blocks = {}
    for el in doc.iter(f"{NS}div"):
        if "sitegen-block" in (el.get("class") or "").split():
            key = (el.get("data-block"), el.get("data-report"))
            # (The plugin spaces table cells apart for the search index: spaces are no figure.)
            blocks[key] = (tables(el), "".join(cell_text(el).split()))
    return {"inline": inline, "blocks": blocks}


@pytest.mark.slow
def test_author_page_figures_are_the_same_both_ways(built):
    sg, mk = built
    a, b = figures(parse(sg / "guide.html")), figures(parse(mk / "guide" / "index.html"))
    assert a == b
    assert [i[1] for i in a["inline"]][:4] == ["faster or level in every speed cell", "1.07–1.42x", "1.40x", "41"]
    assert all(cls == "check" for cls, _, _ in a["inline"][4:8])
    names = sorted(k[0] for k in a["blocks"])
    assert names == sorted(["speed-summary", "speed-cells", "precision-table", "long-outputs", "memory-table",
                            "versions", "tool-calling"])


def test_blocks_match_the_report_pages(built):
    sg, _ = built
    guide = parse(sg / "guide.html")
    overview = tables(parse(sg / "reports" / REPORT / "index.html"))
    speed = tables(parse(sg / "reports" / REPORT / "speed.html"))
    t = tables(guide)
    # One checkpoint's column of the speed summary, the same cells as the report's K4 column.
    assert t["speed-summary"][0] == ["Summary", "K4"]
    assert [r[:1] + r[2:] for r in overview["speed-summary"]] == t["speed-summary"]
    assert t["cells-k4-aggregate"] == speed["cells-k4-aggregate"]
    assert t["cells-k4-decode"] == speed["cells-k4-decode"]
    assert t["precision-table"] == overview["precision-table"]
    assert t["long-outputs-table"] == overview["long-outputs-table"]
    assert t["memory-table"] == overview["memory-table"]
    # Code stays code.
    assert "{{ speed_verdict }}" in text(guide)


@pytest.mark.slow
def test_report_pages_are_the_same_both_ways(built):
    sg, mk = built
    pages = sorted(p.relative_to(sg) for p in (sg / "reports" / REPORT).glob("*.html"))
    assert len(pages) >= 8
    for page in pages:
        a, b = parse(sg / page), parse(mk / page)
        assert tables(a) == tables(b), page
        main_a = list(a.iter(f"{NS}main"))[0]
        assert "".join(text(main_a).split()) in "".join(text(b).split()), page  # (cells spaced apart for search)
    for data in ("SUMMARY.json", "csv/precision.csv"):
        assert (mk / "reports" / REPORT / data).read_bytes() == (sg / "reports" / REPORT / data).read_bytes()


def test_the_table_of_reports_is_the_same_both_ways_and_the_hosts_home_stays_as_written(built):
    sg, mk = built
    # `sitegen build`: docs/index.md's text, then the table of reports (its home page is sitegen's).
    home = tables(parse(sg / "index.html"))["reports"]
    assert len(home) == 2
    # Inside MkDocs the host's home page is the author's: the table only where a block places it.
    assert "reports" not in tables(parse(mk / "index.html"))
    assert "Small benchmarks" in text(parse(mk / "index.html"))
    assert tables(parse(sg / "all-reports.html"))["reports"] == tables(parse(mk / "all-reports" / "index.html"))["reports"] == home


def script_names(page: Path) -> list[str]:
    return [s.split('"')[0] for s in page.read_text().split('<script src="')[1:]]


def test_one_page_script_on_every_mkdocs_page_names_the_others_beside_it(built):
    sg, mk = built
    # sitegen's own pages link the chart script where a chart is.
    for page in (sg / "guide.html", sg / "reports" / REPORT / "speed.html"):
        assert len([s for s in script_names(page) if "/sitegen." in s]) == 1, page
    # Inside MkDocs one small script on every page, the 404 page too: it loads the chart drawer
    # and the dashboard's sort where the content needs them (tests/test_mkdocs_themes.py reads
    # which it loads in a browser); no page links them itself.
    pages = sorted(mk.rglob("*.html"))
    assert mk / "404.html" in pages and len(pages) > 10
    for page in pages:
        ours = [s for s in script_names(page) if re.search(r"(^|/)assets/[^/]+\.js$", s)]  # (not the theme's own)
        assert len(ours) == 1 and ours[0].rsplit("/", 1)[-1].startswith("page."), (page, ours)
        # (The 404 page, served at any address, names it from the site's root.)
        script = (mk / ours[0].lstrip("/") if ours[0].startswith("/") else page.parent / ours[0]).resolve()
        assert script.is_file(), page
    named = json.loads(re.match(r"window\.sitegenAssets = (\{.*\});\n", script.read_text())[1])
    assert set(named) == {"charts", "dashboard"} and len(named["charts"]) == 1
    for name in [*named["charts"], named["dashboard"]]:
        assert (script.parent / name).is_file(), name


def test_default_theme_keeps_sitegen_look(built):
    _, mk = built
    assert '<p class="illustrative" id="illustrative"><strong>About the data:</strong>' in (
        mk / "reports" / REPORT / "index.html").read_text()
    assert ".md-typeset" not in next((mk / "assets").glob("sitegen-embed.*.css")).read_text()


def test_links_inside_blocks_work_from_mkdocs_pages(built):
    _, mk = built
    doc = parse(mk / "guide" / "index.html")
    blocks = [el for el in doc.iter(f"{NS}div") if "sitegen-block" in (el.get("class") or "").split()]
    hrefs = {a.get("href") for b in blocks for a in b.iter(f"{NS}a") if a.get("href")}
    assert any("reports/" in h for h in hrefs)
    for href in hrefs:
        assert (mk / "guide" / href.split("#")[0]).resolve().is_file(), href


def test_nav_titles_reports_in_sitegen_order(built):
    _, mk = built
    html = (mk / "reports" / REPORT / "speed.html").read_text()
    assert any(f"CuteAFD v4.0.0 against tpurtell{quote}s vLLM fork" in html for quote in ("&#39;", "&#x27;", "'"))
    assert html.index(">Overview<") < html.index(">Precision<") < html.index(">Speed<") < html.index(">Numbers<")


BAD_PAGES = {  # body after "# Bad", a blank line, "Intro." and a blank line; the line of the error; its words
    "unknown block": ("```sitegen\nreport: cuteafd-v4.0.0\nblock: speed-sumary\n```\n", 7,
                      "unknown block 'speed-sumary' (did you mean 'speed-summary'?)"),
    "unknown report": ("```sitegen\nreport: cuteafd-v9\nblock: speed-summary\n```\n", 6, "unknown report 'cuteafd-v9'"),
    "unknown option": ("```sitegen\nblock: speed-summary\ncheckpint: K4\n```\n", 7, "unknown option 'checkpint'"),
    "unknown checkpoint": ("{{ block speed-cells checkpoint=K9 }}\n", 5, "checkpoint 'K9' has no speed comparison"),
    "unknown figure": ("Text {{ kv_ratio_rnge }} here.\n", 5, "unknown figure 'kv_ratio_rnge'"),
    "unknown figure option": ("Text\nand {{ kv_ratio checkpoint=K4 engine=x }} here.\n", 6, "figure 'kv_ratio'"),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(BAD_PAGES))
@pytest.mark.parametrize("front_matter", [False, True])
def test_bad_block_names_page_and_line_both_ways(tmp_path, case, front_matter):
    body, line, message = BAD_PAGES[case]
    page = "# Bad\n\nIntro.\n\n" + body
    if front_matter:
        page, line = "---\ntitle: Bad page\n---\n" + page, line + 3
    root = make_project(tmp_path, {"bad.md": page})
    sg = sitegen_here("build", "-d", str(tmp_path / "a"), cwd=root)
    assert sg.returncode == 1, sg.stderr
    error = [line for line in sg.stderr.splitlines() if line.startswith("Error")]
    assert len(error) == 1 and "Traceback" not in sg.stderr, sg.stderr
    assert f"bad.md: line {line}: " in error[0] and message in error[0], error[0]
    mk = mkdocs("build", "-d", str(tmp_path / "b"), cwd=root)
    assert mk.returncode != 0
    assert f"bad.md: line {line}: " in mk.stderr and message in mk.stderr, mk.stderr


CONTRADICTED = "# Claims\n\nEvery cell is slower: {{ check speed_count verdict=faster == 0 : no cell is faster }}.\n"


def test_contradicted_statement_fails_strict_both_ways(tmp_path):
    root = make_project(tmp_path, {"claims.md": CONTRADICTED})
    sg = sitegen_here("build", "--strict", "-d", str(tmp_path / "a"), cwd=root)
    assert sg.returncode == 1 and "claims.md: line 3: " in sg.stderr and "no cell is faster" in sg.stderr, sg.stderr
    assert not (tmp_path / "a").exists()
    mk = mkdocs("build", "--strict", "-d", str(tmp_path / "b"), cwd=root)
    assert mk.returncode != 0
    assert "claims.md: line 3: " in mk.stderr and "contradicted by the data" in mk.stderr, mk.stderr


def test_contradicted_statement_is_marked_and_warned_without_strict(tmp_path):
    root = make_project(tmp_path, {"claims.md": CONTRADICTED})
    sg = sitegen_here("build", "-d", str(tmp_path / "a"), cwd=root)
    assert sg.returncode == 0, sg.stderr
    assert "WARNING" in sg.stderr and "claims.md: line 3: " in sg.stderr
    mk = mkdocs("build", "-d", str(tmp_path / "b"), cwd=root)
    assert mk.returncode == 0, mk.stderr
    assert "WARNING" in mk.stderr and "claims.md: line 3: " in mk.stderr
    for page in (tmp_path / "a" / "claims.html", tmp_path / "b" / "claims" / "index.html"):
        marks = [el for el in parse(page).iter(f"{NS}mark") if el.get("class") == "check-failed"]
        assert len(marks) == 1 and "contradicted by the receipts" in cell_text(marks[0]), page


def test_plugin_options_are_checked_like_sitegen(tmp_path):
    root = make_project(tmp_path, {"index.md": "# Home\n"}, CONFIG.replace("noise_band: 0.08", "noise_band: 2"))
    mk = mkdocs("build", "-d", str(tmp_path / "b"), cwd=root)
    assert mk.returncode != 0 and "noise_band" in mk.stderr and "between 0.0 and 1.0" in mk.stderr, mk.stderr


def test_no_index_gets_a_home_with_the_reports_table(tmp_path):
    root = make_project(tmp_path, {"guide.md": "# Guide\n"})
    mk = mkdocs("build", "--strict", "-d", str(tmp_path / "b"), cwd=root)
    assert mk.returncode == 0, mk.stderr
    assert tables(parse(tmp_path / "b" / "index.html"))["reports"][1][0].startswith("CuteAFD v4.0.0")


@pytest.mark.slow
def test_repository_config_builds_with_mkdocs_and_shows_every_seed_figure(tmp_path):
    site = tmp_path / "site"
    mk = mkdocs("build", "--strict", "-d", str(site), cwd=ROOT)
    assert mk.returncode == 0, mk.stderr
    need_seed_tool()
    result = subprocess.run([sys.executable, str(SEED_TOOL), str(site)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout
    assert "61 of 61 found" in result.stdout


@pytest.mark.slow
def test_material_theme(tmp_path):
    if importlib.util.find_spec("material") is None:
        if os.environ.get("CI"):
            pytest.fail("mkdocs-material is not installed; the test extras install it")
        pytest.skip("mkdocs-material not installed (pip install -e '.[test]')")
    root = make_project(tmp_path, {"index.md": INDEX, "guide.md": GUIDE}, CONFIG + "theme:\n  name: material\n")
    mk = mkdocs("build", "--strict", "-d", str(tmp_path / "b"), cwd=root)
    assert mk.returncode == 0, mk.stderr
    sg = sitegen_here("build", "-q", "-d", str(tmp_path / "a"), cwd=root)
    assert sg.returncode == 0, sg.stderr
    assert figures(parse(tmp_path / "a" / "guide.html")) == figures(parse(tmp_path / "b" / "guide" / "index.html"))
    speed = "reports/" + REPORT + "/speed.html"
    assert tables(parse(tmp_path / "a" / speed)) == tables(parse(tmp_path / "b" / speed))
    html = (tmp_path / "b" / speed).read_text()
    assert "md-content" in html and "sitegen-embed." in html


def test_serve_dirty_reuses_reports_and_refreshes_figures_in_docs_pages(tmp_path, monkeypatch):
    """`mkdocs serve --dirty` as MkDocs runs it: one plugin instance (its on_startup keeps it), a new
    config and a dirty build after each save. A receipt edit shows in the docs page that embeds the
    figure, though its markdown did not change; a rebuild with no receipt changed analyses nothing;
    an edit undone shows too (the persistent cache's records of the first build)."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    monkeypatch.setenv("NO_MKDOCS_2_WARNING", "1")
    root = make_project(tmp_path, {"index.md": INDEX, "other.md": "# Other\n\nNo figures.\n",
                                   "kv.md": "# KV\n\nThe KV pool is {{ kv_ratio checkpoint=K4 }}.\n"})
    site = tmp_path / "site"

    def rebuild(first: bool = False):
        config = load_config(str(root / "mkdocs.yml"), site_dir=str(site))
        if first:
            config.plugins.on_startup(command="serve", dirty=True)
        build(config, dirty=True)
        return config.plugins["sitegen"]

    def kv() -> str:
        return list((site / "kv" / "index.html").read_text().split("sitegen-inline")[1:])[0].split("</span>")[0]

    plugin = rebuild(first=True)
    record = plugin.environment[0]
    assert "1.40x" in kv()
    assert rebuild() is plugin and plugin.environment[0] is record  # nothing changed: nothing analysed again
    receipt = root / "data" / REPORT / "SUMMARY.json"
    original = receipt.read_bytes()
    data = json.loads(receipt.read_text())
    pool = {m["engine"]: m for m in data["memory"]["kv_pool"] if m["checkpoint"] == "K4"}
    pool["candidate"]["tokens"] = round(pool["baseline"]["tokens"] * 1.7)
    receipt.write_text(json.dumps(data))
    other = (site / "other" / "index.html").stat().st_mtime_ns
    assert rebuild() is plugin and plugin.environment[0] is not record
    assert "1.70x" in kv()
    assert (site / "other" / "index.html").stat().st_mtime_ns == other  # a page without figures is left alone
    receipt.write_bytes(original)  # back to receipts an earlier build had: its reports and pages from the cache
    assert rebuild() is plugin and "1.40x" in kv()


NO_REPORTS = """import logging, sys
logging.basicConfig(level=logging.INFO)
from mkdocs.commands.build import build
from mkdocs.config import load_config
build(load_config("mkdocs.yml", site_dir="site"))
print(sorted(m for m in ("pandas", "plotly", "jsonschema", "site_gen.render.pages") if m in sys.modules))
"""


def test_site_without_reports_builds_and_imports_nothing_heavy(tmp_path):
    """The plugin's fixed cost: a docs site whose data folder has no report yet builds as MkDocs
    would, without pandas, plotly or the schema validator (benchmarks/mkdocs_plugin.py times it)."""
    root = make_project(tmp_path, {"index.md": "# Home\n\nText.\n", "about.md": "# About\n"})
    shutil.rmtree(root / "data" / REPORT)
    run = subprocess.run([sys.executable, "-c", NO_REPORTS], cwd=root, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert run.returncode == 0, run.stderr
    assert run.stdout.split("\n")[-2] == "[]", run.stdout
    assert (root / "site" / "about" / "index.html").is_file() and not (root / "site" / "reports").exists()
    assert "no reports in" in run.stderr


WARM = """import sys
from mkdocs.commands.build import build
from mkdocs.config import load_config
build(load_config("mkdocs.yml", site_dir="warm"))
print(sorted(m for m in ("pandas", "site_gen.analysis.report", "site_gen.render.pages") if m in sys.modules))
"""
KV = "# KV\n\nThe KV pool is {{ kv_ratio checkpoint=K4 }}.\n\n```sitegen\nblock: memory-table\n```\n"


def _build_here(root: Path, site: Path) -> None:
    """`mkdocs build` in this process, with a new plugin as a new process has (MkDocs keeps a plugin
    that has on_startup, and so its memory, for every later build of the process)."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.config.defaults import MkDocsConfig

    dict(MkDocsConfig._schema)["plugins"].plugin_cache.pop("sitegen", None)
    build(load_config(str(root / "mkdocs.yml"), site_dir=str(site)))


def _files(site: Path) -> dict[str, bytes]:
    """A built site's files, less the theme's build time stamp."""
    return {p.relative_to(site).as_posix(): re.sub(rb"Build Date UTC : [^\n<]*", b"", p.read_bytes())
            for p in sorted(site.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def cached_project(tmp_path_factory):
    """A one-report site (home page with the reports' table, a page of figures and a block) built once
    in this process, with a cache folder of its own: (project, its site, the cache folder). Tests
    that change the project or the cache put them back as they found them."""
    tmp = tmp_path_factory.mktemp("cached")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NO_MKDOCS_2_WARNING", "1")
        mp.setenv("XDG_CACHE_HOME", str(tmp / "cache"))
        root = make_project(tmp / "p", {"index.md": INDEX, "kv.md": KV})
        _build_here(root, root / "first")
        yield root, root / "first", tmp / "cache" / "sitegen"


def test_a_build_with_nothing_changed_takes_the_reports_from_the_cache_without_pandas(cached_project):
    """The plugin's fixed cost (benchmarks/mkdocs_plugin.py times it): a later `mkdocs build` of
    unchanged receipts and docs renders no report page and imports no pandas, and writes the
    same site."""
    root, first, _ = cached_project
    run = subprocess.run([sys.executable, "-c", WARM], cwd=root, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split("\n")[-2] == "[]", run.stdout
    assert _files(root / "warm") == _files(first)


def test_a_damaged_or_foreign_cache_entry_is_made_again(cached_project):
    """An entry whose bytes fail their checksum, or whose checksum holds over a shape the plugin does
    not read (an older sitegen's, a hand edit), is not used: the build makes it again, the same."""
    from site_gen.building import cache
    root, first, where = cached_project
    kinds = ("mkdocs-report", "mkdocs-reports", "mkdocs-pages")
    entries = {kind: sorted(p for p in (where / kind).rglob("*") if p.is_file()) for kind in kinds}
    assert [len(entries[k]) for k in kinds] == [1, 1, 2]  # the report; the list of reports; index.md and kv.md
    for paths in entries.values():
        for path in paths:
            blob = bytearray(path.read_bytes())
            blob[-1] ^= 0xFF
            path.write_bytes(bytes(blob))
    _build_here(root, root / "damaged")
    assert _files(root / "damaged") == _files(first)
    foreign = {"mkdocs-report": cache.pack({"record": {"id": 1}}, {}), "mkdocs-reports": b'{"reports": [1]}',
               "mkdocs-pages": json.dumps({"markdown": 1, "used": [], "used_all": False}).encode()}
    # The reports' list first left whole, so that the entries it names are read; then it alone foreign.
    for round_kinds in (("mkdocs-report", "mkdocs-pages"), ("mkdocs-reports",)):
        cache.configure(where)
        try:
            for kind in round_kinds:
                for path in entries[kind]:
                    cache.write(kind, path.name, foreign[kind])
        finally:
            cache.configure()
        _build_here(root, root / "foreign")
        assert _files(root / "foreign") == _files(first)
        assert all(cache.read(kind, p.name) not in (None, foreign[kind]) for kind, paths in entries.items() for p in paths)


def test_a_custom_dir_edit_is_never_served_from_the_cache(cached_project):
    """A template the custom_dir overrides is part of every report page's cache entry's name: after
    an edit to it, a new build renders the report pages with the edited template."""
    root, _, _ = cached_project
    (root / "theme").mkdir()
    (root / "mkdocs.yml").write_text(CONFIG + "      custom_dir: theme\n")
    overview = root / "site" / "reports" / REPORT / "index.html"
    try:
        for mark in ("first-edit", "second-edit"):
            (root / "theme" / "_illustrative.html").write_text(f'<p class="{mark}">Illustrative.</p>\n')
            _build_here(root, root / "site")
            assert f'class="{mark}"' in overview.read_text()
    finally:
        (root / "mkdocs.yml").write_text(CONFIG)


def test_page_links_of_a_docs_page_reach_the_report_pages_in_mkdocs_too(tmp_path):
    """`page:` links (the page's report, another report's page, an overview, an anchor) lead where
    they lead under `sitegen build`, from a page at MkDocs' directory URL; one to no page is no link."""
    import html5lib

    body = ("---\nreport: cuteafd-v4.0.0\n---\n# Links\n\n[speed](page:speed) [overview](page:overview) "
            "[other](page:cuteafd-v4.0.0/memory#memory-table) [its overview](page:cuteafd-v4.0.0/) [none](page:no-such/)\n")
    root = make_project(tmp_path / "p", {"index.md": "# Home\n", "guide/links.md": body})
    mk = mkdocs("build", "--strict", "-d", str(tmp_path / "b"), cwd=root)
    assert mk.returncode == 0, mk.stderr
    page = tmp_path / "b" / "guide" / "links" / "index.html"
    doc = html5lib.parse(page.read_bytes(), treebuilder="etree", namespaceHTMLElements=False)
    found = {"".join(a.itertext()): (a.get("href"), a.get("class")) for a in doc.iter("a")
             if "".join(a.itertext()) in ("speed", "overview", "other", "its overview", "none")}
    assert found == {"speed": ("../../reports/cuteafd-v4.0.0/speed.html", None),
                     "overview": ("../../reports/cuteafd-v4.0.0/", None),
                     "other": ("../../reports/cuteafd-v4.0.0/memory.html#memory-table", None),
                     "its overview": ("../../reports/cuteafd-v4.0.0/", None),
                     "none": (None, "broken-link")}
    for href, _ in found.values():
        if href:
            path = href.split("#")[0]
            assert (page.parent / (path + "index.html" if path.endswith("/") else path)).is_file(), href
    sg = sitegen_here("build", "-q", "-d", str(tmp_path / "a"), cwd=root)  # the same targets in sitegen's own site
    assert sg.returncode == 0, sg.stderr
    plain = (tmp_path / "a" / "guide" / "links.html").read_text()
    assert 'href="../reports/cuteafd-v4.0.0/speed.html"' in plain and 'href="../reports/cuteafd-v4.0.0/memory.html#memory-table"' in plain
