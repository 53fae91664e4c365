"""The plugin inside Material for MkDocs as a reader meets it: instant navigation (content swapped in
place, never a page load), charts in content tabs and collapsed admonitions, the dashboard's sort,
search entries and the History page; built with MkDocs and with ProperDocs.

Material's instant navigation works only for pages under the site_url's own path and port (anything
else falls back to full page loads, which would hide every fault of a swapped page), so the sites
are served at that path by a small server started before the build, whose port goes into site_url.
"""
from __future__ import annotations

import http.server
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from conftest import ROOT, sitegen_here
from htmlutil import NS, find_id, parse, tables

pytestmark = pytest.mark.slow  # the whole file: left out of the quick loop (tests/run.sh --quick)

BUILDERS = ("mkdocs", "properdocs")
REPORT = "cuteafd-v4.0.0"

CONFIG = """site_name: Material check
site_url: http://127.0.0.1:{port}/{prefix}/
docs_dir: docs
theme:
  name: material
  font: false            # no web fonts: the test runs offline
  features: [navigation.instant, content.tabs.link]
markdown_extensions:
  - admonition
  - attr_list
  - pymdownx.details
  - pymdownx.superfences
  - pymdownx.tabbed:
      alternate_style: true
  - toc:
      permalink: true
plugins:
  - search
  - sitegen:
      data_dir: data
      noise_band: 0.08
      ratio_scale: [0.8, 1.8]
"""

# The host's home page shows the table of reports where its author places it.
INDEX = """# Material check

Read [the guide](guide.md).

```sitegen
block: dashboard
```
"""

# A chart in a tab that is closed at load and one in a collapsed admonition: both hidden when drawn.
GUIDE = """---
report: cuteafd-v4.0.0
---
# Guide

Back [home](index.md), or on to [the speed page](reports/cuteafd-v4.0.0/speed.md).

=== "Summary"

    The K4 cells are {{ speed_range checkpoint=K4 }}.

=== "Chart"

    ```sitegen
    block: speed-cells
    checkpoint: K4
    chart: true
    ```

??? note "K3.25 in detail"

    ```sitegen
    block: speed-cells
    checkpoint: K3.25
    chart: true
    ```

```sitegen
block: dashboard
```
"""


class _Sites(http.server.SimpleHTTPRequestHandler):
    """Serves each built site under its own path prefix (`/mkdocs/`, `/properdocs/`), nothing else."""

    root: Path

    def translate_path(self, path: str) -> str:
        path = path.split("?", 1)[0].split("#", 1)[0]
        prefix, _, rest = path.lstrip("/").partition("/")
        if prefix not in BUILDERS:
            return str(self.root / "-")  # a 404
        return str(self.root / prefix / "site" / rest)

    def log_message(self, *args) -> None:
        pass


def _need_material() -> None:
    if importlib.util.find_spec("material") is None:
        if os.environ.get("CI"):
            pytest.fail("mkdocs-material is not installed; the test extras install it")
        pytest.skip("mkdocs-material not installed (pip install -e '.[test]')")


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    """Both builds of one Material project (in parallel: two processes), served; yields the base URLs."""
    _need_material()
    root = tmp_path_factory.mktemp("material")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), type("Handler", (_Sites,), {"root": root}))
    port = server.server_address[1]
    runs = {}
    for builder in BUILDERS:
        if builder == "properdocs" and importlib.util.find_spec("properdocs") is None:
            continue
        project = root / builder
        (project / "docs").mkdir(parents=True)
        (project / "mkdocs.yml").write_text(CONFIG.format(port=port, prefix=builder))
        (project / "docs" / "index.md").write_text(INDEX)
        (project / "docs" / "guide.md").write_text(GUIDE)
        for report in ("cuteafd-v3.0.1", REPORT):
            shutil.copytree(ROOT / "data" / report, project / "data" / report)
        runs[builder] = subprocess.Popen(
            [sys.executable, "-m", builder, "build", "--strict", "-q", "-f", "mkdocs.yml", "-d", "site"], cwd=project,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    for builder, run in runs.items():
        _, err = run.communicate(timeout=300)
        assert run.returncode == 0, f"{builder}: {err}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield {b: (f"http://127.0.0.1:{port}/{b}/", root / b / "site") for b in runs}
    server.shutdown()
    server.server_close()


CHARTS = """() => [...document.querySelectorAll('[data-figure]')].map(h => {
  const svg = h.querySelector('svg.chart-svg'), note = h.parentElement.querySelector('.chart-fallback');
  return {ready: h.classList.contains('ready'), host: h.clientWidth, svg: svg ? +svg.getAttribute('width') : 0,
          note: note ? getComputedStyle(note).display : 'none'};
})"""


def charts_drawn(page, count: int) -> list[dict]:
    """Every chart on the page, once drawn at the width of its element."""
    page.wait_for_function(f"() => document.querySelectorAll('[data-figure].ready svg.chart-svg').length === {count}")
    page.wait_for_function(f"() => ({CHARTS})().every(c => c.svg === c.host)")
    charts = page.evaluate(CHARTS)
    assert len(charts) == count
    for c in charts:
        assert c["ready"] and c["host"] > 500 and c["svg"] == c["host"], charts
        assert c["note"] == "none", charts  # the no-JavaScript placeholder is gone
    return charts


def dashboard_sorts(page) -> None:
    page.wait_for_selector("#reports th button.sort")
    page.locator("#reports th button.sort", has_text="Report").click()
    assert page.locator("#reports th").first.get_attribute("aria-sort") == "ascending"
    titles = page.eval_on_selector_all("#reports tbody tr th", "rows => rows.map(r => r.dataset.sort)")
    assert len(titles) == 2 and titles == sorted(titles, key=str.lower)
    assert page.locator("#reports-count").inner_text() == "2 of 2 reports"


def open_hidden_charts(page) -> None:
    page.locator(".tabbed-labels label", has_text="Chart").click()
    page.locator("summary", has_text="K3.25 in detail").click()


@pytest.mark.parametrize("builder", BUILDERS)
def test_instant_navigation_keeps_charts_and_dashboards(sites, browser, builder):
    if builder not in sites:
        if os.environ.get("CI"):
            pytest.fail(f"{builder} is not installed; the test extras install it")
        pytest.skip(f"{builder} is not installed (pip install -e '.[test]')")
    base, _ = sites[builder]
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(base)
        page.evaluate("window.__loaded = 1")  # gone if a click loads a page instead of swapping it
        dashboard_sorts(page)
        page.locator("article a", has_text="the guide").click()
        page.wait_for_url(lambda url: "/guide/" in url)
        # Both charts are hidden: drawn with no width to take, they take it when shown.
        page.wait_for_function("() => document.querySelectorAll('[data-figure].ready').length === 2")
        open_hidden_charts(page)
        charts_drawn(page, 2)
        dashboard_sorts(page)
        # The guide has two charts too: the speed page's are counted once the guide's article is gone
        # (the URL changes first; a table read while the old article is swapped out has no style).
        page.evaluate("document.querySelector('article').dataset.left = '1'")
        page.locator("article a", has_text="the speed page").click()
        page.wait_for_url("**/speed.html")
        page.wait_for_function("() => !document.querySelector('article[data-left]') && !!document.querySelector('article table.data')")
        charts_drawn(page, 2)
        # Tables in Material's type scale and frame (Material's own: 0.64rem of its 20px root).
        table = page.eval_on_selector("table.data", "t => [getComputedStyle(t).fontSize, getComputedStyle(t).borderTopStyle]")
        assert table == ["12.8px", "solid"]
        page.go_back()
        page.wait_for_url(lambda url: "/guide/" in url)
        page.wait_for_function("() => document.querySelectorAll('[data-figure].ready').length === 2")
        open_hidden_charts(page)
        charts_drawn(page, 2)
        page.locator("article a", has_text="home").click()
        page.wait_for_url(base)
        dashboard_sorts(page)
        assert page.evaluate("window.__loaded") == 1, "a click loaded a page: instant navigation was off"
        # Opened as a file, Material's document$ completes at once (no instant navigation there):
        # the page's own load draws it.
        page.goto((sites[builder][1] / "reports" / REPORT / "speed.html").as_uri())
        charts_drawn(page, 2)
    finally:
        context.close()
    assert errors == []


def test_search_entries_name_the_report_and_read_well(sites):
    _, site = sites["mkdocs"]
    docs = json.loads((site / "search" / "search_index.json").read_text())["docs"]
    pages = {d["location"]: d["title"] for d in docs if d["location"].startswith("reports/") and "#" not in d["location"]}
    assert len(pages) >= 10 and len(set(pages.values())) == len(pages)  # no two report pages share a title
    assert pages[f"reports/{REPORT}/"].startswith("Overview — CuteAFD v4.0.0 against")
    assert pages[f"reports/{REPORT}/speed.html"].startswith("Speed — CuteAFD v4.0.0 against")
    assert pages["reports/cuteafd-v3.0.1/"].startswith("Overview — CuteAFD v3.0.1 against")
    for d in docs:
        assert not d["title"].rstrip().endswith(("#", "¶")), d  # no heading permalink in a title
    tested = next(d["text"] for d in docs if d["location"] == f"reports/{REPORT}/#what-was-tested")
    # The table's caption (read aloud, not shown; it repeats the heading) leads, then the cells apart.
    assert tested.removeprefix("What was tested ").startswith("Engine CuteAFD v4.0.0") and " Against tpurtell" in tested
    # The nav keeps the short titles: its report folder says which report.
    doc = parse(site / "reports" / REPORT / "speed.html")
    nav = ["".join(a.itertext()).strip() for a in doc.iter(f"{NS}a") if "md-nav__link" in (a.get("class") or "")]
    assert "Overview" in nav and "Speed" in nav and not [t for t in nav if " — " in t], nav
    assert doc.find(f".//{NS}title").text.startswith("Speed — CuteAFD v4.0.0")


def test_history_page_in_the_automatic_nav(sites, tmp_path):
    _, site = sites["mkdocs"]
    # `sitegen build` of the same reports makes the same History tables.
    for report in ("cuteafd-v3.0.1", REPORT):
        shutil.copytree(ROOT / "data" / report, tmp_path / "data" / report)
    (tmp_path / "mkdocs.yml").write_text("site_name: Same reports\nplugins:\n  - sitegen:\n      data_dir: data\n")
    assert sitegen_here("build", "-q", "-d", "site", cwd=tmp_path).returncode == 0
    assert tables(parse(site / "history.html")) == tables(parse(tmp_path / "site" / "history.html"))
    home = parse(site / "index.html")
    links = {"".join(a.itertext()).strip(): a.get("href") for a in home.iter(f"{NS}a")
             if "md-nav__link" in (a.get("class") or "")}
    assert links.get("History") == "history.html", links


def test_material_look(sites):
    _, site = sites["mkdocs"]
    about = find_id(parse(site / "reports" / REPORT / "index.html"), "illustrative")
    assert about.tag == f"{NS}div" and about.get("class") == "admonition info"
    assert "".join(about.find(f"{NS}p").itertext()) == "About the data"
    css = next((site / "assets").glob("sitegen-embed.*.css")).read_text()
    assert ".md-typeset .sitegen-block table.data {" in css and ".md-typeset .sitegen-block .forest" in css
