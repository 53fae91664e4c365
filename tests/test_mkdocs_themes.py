"""sitegen's content inside MkDocs themes as a reader meets it (issue 32, findings 1-7), in the
default MkDocs theme and in Material for MkDocs with instant navigation, each with a hand-written
nav: where a number comes from (tooltips), wide tables that say they scroll, charts on a page
reached from the host's 404 page (and the table of reports' sort), each script loaded only where
content needs it, `charts: plotly` drawn as the SVG drawer draws, the host's own
home page and nav titles left as written, search entries in plain text.

Material's instant navigation works only for pages under the site_url's own path and port, so the
sites are served at that path by a small server started before the build, whose port goes into
site_url (as in test_mkdocs_material.py).
"""
from __future__ import annotations

import http.server
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from conftest import ROOT
from htmlutil import send_404_page

pytestmark = pytest.mark.slow  # the whole file: left out of the quick loop (tests/run.sh --quick)

REPORT = "cuteafd-v4.0.0"
GPQA = "ledger-gpqa-k4-v080-v090"
THEMES = ("default", "material")

THEME = {
    "default": "theme:\n  name: mkdocs\n  highlightjs: false   # no CDN: the test runs offline\n",
    "material": "theme:\n  name: material\n  font: false\n  features: [navigation.instant]\n"
                "  palette:\n    - scheme: default\n      toggle: {icon: material/brightness-7, name: Dark}\n"
                "    - scheme: slate\n      toggle: {icon: material/brightness-4, name: Light}\n",
}
CONFIG = """site_name: Host docs
site_url: http://127.0.0.1:{port}/{prefix}/
docs_dir: docs
{theme}markdown_extensions: [admonition, attr_list, {{toc: {{permalink: true}}}}]
nav:
  - Home: index.md
  - Guide: guide.md
  - All reports: all-reports.md
  - GPQA: reports/{gpqa}/index.md
  - CuteAFD v4.0.0:
    - reports/{report}/index.md
    - reports/{report}/precision.md
    - reports/{report}/speed.md
    - reports/{report}/memory.md
plugins:
  - search
  - sitegen:
      data_dir: data
{charts}"""

INDEX = """# Host home

The host's own words, and a link to [the guide](guide.md).
"""
GUIDE = """---
report: cuteafd-v4.0.0
---
# Guide

The K4 KV pool is {{ kv_ratio checkpoint=K4 }} the baseline's. On to [the precision page](reports/cuteafd-v4.0.0/precision.md)
and [the speed page](reports/cuteafd-v4.0.0/speed.md).
"""


TABLE = """# All reports

```sitegen
block: dashboard
```
"""


class _Sites(http.server.SimpleHTTPRequestHandler):
    """Serves each built site under its own path prefix; a missing path gets the site's 404 page."""

    root: Path

    def translate_path(self, path: str) -> str:
        path = path.split("?", 1)[0].split("#", 1)[0]
        prefix, _, rest = path.lstrip("/").partition("/")
        return str(self.root / prefix / "site" / rest)

    def send_error(self, code, message=None, explain=None):
        prefix = self.path.lstrip("/").partition("/")[0]
        page = self.root / prefix / "site" / "404.html"
        if code != 404 or "/" in prefix or not page.is_file():
            return super().send_error(code, message, explain)
        send_404_page(self, page)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    """Four builds (each theme, with the SVG drawer and with `charts: plotly`), two processes at a
    time, served; yields {name: (base URL, site folder)}."""
    if importlib.util.find_spec("material") is None:
        if os.environ.get("CI"):
            pytest.fail("mkdocs-material is not installed; the test extras install it")
        pytest.skip("mkdocs-material not installed (pip install -e '.[test]')")
    root = tmp_path_factory.mktemp("themes")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), type("Handler", (_Sites,), {"root": root}))
    port = server.server_address[1]
    names = [(theme, charts) for charts in ("svg", "plotly") for theme in THEMES]
    runs = []
    for theme, charts in names:
        name = theme if charts == "svg" else f"{theme}-plotly"
        project = root / name
        (project / "docs").mkdir(parents=True)
        (project / "mkdocs.yml").write_text(CONFIG.format(
            port=port, prefix=name, theme=THEME[theme], report=REPORT, gpqa=GPQA,
            charts="      charts: plotly\n" if charts == "plotly" else ""))
        (project / "docs" / "index.md").write_text(INDEX)
        (project / "docs" / "guide.md").write_text(GUIDE)
        (project / "docs" / "all-reports.md").write_text(TABLE)
        for report in ("cuteafd-v3.0.1", REPORT, GPQA):
            shutil.copytree(ROOT / "data" / report, project / "data" / report)
        runs.append((name, project))
    done = {}
    for i in range(0, len(runs), 2):
        procs = [(name, subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "build", "-q", "-f", "mkdocs.yml", "-d", "site"], cwd=project,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"}))
            for name, project in runs[i:i + 2]]
        for name, proc in procs:
            _, err = proc.communicate(timeout=300)
            assert proc.returncode == 0, f"{name}: {err}"
            done[name] = (f"http://127.0.0.1:{port}/{name}/", root / name / "site")
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield done
    server.shutdown()
    server.server_close()


@pytest.fixture
def reader(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" and "favicon" not in m.text else None)
    yield page
    context.close()


CONTENT = "(document.querySelector('article.md-content__inner, [role=main]') || document.body)"


def go(page, url: str) -> None:
    """A link followed as a reader's click follows it: Material swaps the page in (instant
    navigation), the default theme loads it. Returns once the new page's content is in (Material
    changes the address before it swaps the content)."""
    # Material follows a link in place only once it has read the site's sitemap.
    page.wait_for_function("() => !document.getElementById('__config') || "
                           "performance.getEntriesByType('resource').some(r => r.name.endsWith('/sitemap.xml'))")
    page.wait_for_timeout(50)
    page.evaluate(f"""url => {{ {CONTENT}.dataset.left = '1';
                              const a = document.createElement('a'); a.href = url; a.textContent = 'go';
                              (document.querySelector('article, [role=main], main, body')).appendChild(a); a.click(); }}""", url)
    page.wait_for_url(url)
    page.wait_for_function(f"() => !{CONTENT}.dataset.left")
    page.wait_for_load_state("load")


def instant(page, theme: str) -> None:
    """In Material, the pages since the mark were swapped in, never loaded."""
    if theme == "material":
        assert page.evaluate("window.__mark") == 1, "a page was loaded: instant navigation was off"


SCRIPTS = r"""() => performance.getEntriesByType('resource').map(r => r.name)
  .map(n => (n.match(/\/assets\/(page|sitegen|dashboard|plotly-charts|plotly)[.-][0-9a-f.]+(min\.)?js$/) || [])[1]).filter(Boolean)"""
TIP = r"""() => { const t = document.getElementById('sitegen-tip'); if (!t || t.hidden) return null;
  const r = t.getBoundingClientRect(), s = getComputedStyle(t);
  // (A colour laid over the page's as a gradient is the one seen.)
  const bg = s.backgroundImage !== 'none' ? s.backgroundImage.match(/rgba?\([^)]*\)/)[0] : s.backgroundColor;
  return {top: r.top, left: r.left, bottom: r.bottom, position: s.position, bg: bg, fg: s.color,
          size: parseFloat(s.fontSize), text: t.textContent}; }"""


def check_tooltip(page) -> None:
    fig = page.locator("#precision-table .fig").first
    fig.scroll_into_view_if_needed()
    source = fig.get_attribute("title") or fig.get_attribute("data-tip")
    assert source and source.startswith("SUMMARY.json $.precision.results[")
    fig.hover()
    page.wait_for_function("() => { const t = document.getElementById('sitegen-tip'); return t && !t.hidden; }", timeout=5000)
    tip, box = page.evaluate(TIP), fig.bounding_box()
    # Beside the number (below it, or above it near the bottom edge), drawn as a tooltip, in front.
    assert tip["text"] == source and tip["position"] == "fixed", tip
    assert abs(tip["top"] - (box["y"] + box["height"])) < 20 or abs(tip["bottom"] - box["y"]) < 20, (tip, box)
    assert abs(tip["left"] - box["x"]) < 40, (tip, box)
    assert tip["bg"] not in ("rgba(0, 0, 0, 0)", "transparent") and tip["bg"] != tip["fg"], tip
    # Readable: about the size of the number's own text.
    assert tip["size"] >= 0.75 * float(fig.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")), tip
    assert fig.get_attribute("title") is None  # the browser's own tooltip would show beside it
    page.mouse.move(1, 1)


def check_focus(page) -> None:
    """Keyboard focus opens the same tooltip (no empty box drawn by the stylesheet's fallback): on a
    figure in the prose (a table's figures are no tab stops: its "Show sources" toggle shows them all)."""
    focusable = page.locator(".sitegen-block .fig[tabindex]").first
    focusable.focus()
    tip = page.evaluate(TIP)
    assert tip is not None and tip["text"] == (focusable.get_attribute("data-tip") or ""), tip
    assert focusable.evaluate("e => getComputedStyle(e, '::after').content") in ("none", "normal")
    page.keyboard.press("Escape")
    assert page.evaluate(TIP) is None


@pytest.mark.parametrize("theme", THEMES)
def test_1_where_a_number_comes_from_shows_beside_it(sites, reader, theme):
    base, _ = sites[theme]
    reader.goto(base + f"reports/{REPORT}/precision.html")  # a page without a chart
    check_tooltip(reader)
    # Which loads no chart drawer and no dashboard sort.
    assert reader.evaluate(SCRIPTS) == ["page"], reader.evaluate(SCRIPTS)
    reader.goto(base)
    reader.evaluate("window.__mark = 1")
    go(reader, base + f"reports/{REPORT}/precision.html")
    check_tooltip(reader)
    go(reader, base + f"reports/{REPORT}/")  # the overview: figures in its prose
    check_focus(reader)
    instant(reader, theme)
    assert reader.errors == []


WRAPS = """() => [...document.querySelectorAll('.sitegen-block .table-wrap')].filter(w => w.getClientRects().length)
  .map(w => { const h = w.previousElementSibling;
    return {wide: w.scrollWidth > w.clientWidth + 1, scrolls: w.classList.contains('scrolls'), role: w.getAttribute('role'),
            tabindex: w.getAttribute('tabindex'), label: w.getAttribute('aria-label'),
            hint: !!(h && h.classList.contains('scroll-hint') && h.getClientRects().length)}; })"""


def check_wide_tables(page) -> int:
    """Every table wider than its box says so, as on a direct load; how many there are."""
    marked = "w => !w.wide || (w.scrolls && w.role === 'region' && w.tabindex === '0' && w.label && w.hint)"
    try:
        page.wait_for_function(f"() => {{ const ws = ({WRAPS})(); return ws.length && ws.every({marked}); }}", timeout=5000)
    except Exception:
        pytest.fail(f"{page.url}: a wide table does not say it scrolls: {page.evaluate(WRAPS)}")
    return sum(w["wide"] for w in page.evaluate(WRAPS))


@pytest.mark.parametrize("theme", THEMES)
def test_2_wide_tables_say_they_scroll_on_every_page_reached(sites, reader, theme):
    base, _ = sites[theme]
    # Wide enough for tables (below 40rem they fold into cards), narrow enough that some scroll:
    # the report's overview in both themes, the precision page (no chart) and the speed page in
    # the default theme.
    reader.set_viewport_size({"width": 700, "height": 900})
    reader.goto(base)
    reader.evaluate("window.__mark = 1")
    wide = {}
    for name in ("precision.html", "speed.html", ""):
        go(reader, base + f"reports/{REPORT}/{name}")
        wide[name] = check_wide_tables(reader)
    assert wide[""] > 0 and (theme == "material" or wide["precision.html"] > 0), wide
    instant(reader, theme)
    assert reader.errors == []


CHARTS_READY = "() => { const c = [...document.querySelectorAll('[data-figure]')]; return c.length > 0 && c.every(h => h.classList.contains('ready')); }"


@pytest.mark.parametrize("theme", THEMES)
def test_3_charts_draw_on_a_page_reached_from_the_404_page(sites, reader, theme):
    base, _ = sites[theme]
    response = reader.goto(base + "no/such/page/")
    assert response.status == 404
    reader.errors.clear()  # the console's line for the 404 response itself
    reader.evaluate("window.__mark = 1")
    go(reader, base + f"reports/{REPORT}/speed.html")
    reader.wait_for_function(CHARTS_READY, timeout=10000)
    assert reader.locator("[data-figure].ready svg.chart-svg .point").count() > 40
    # On to a page with the table of reports: its sort and filter.
    go(reader, base + "all-reports/")
    reader.wait_for_selector("#reports th button.sort", timeout=10000)
    reader.locator("#reports-filter").fill("gpqa")
    assert reader.locator("#reports-count").inner_text().startswith("1 of ")
    # Each script loaded where content first needed it (in Material, once for every page since 404).
    assert sorted(set(reader.evaluate(SCRIPTS))) == ["dashboard", "page"] + (["sitegen"] if theme == "material" else [])
    instant(reader, theme)
    assert reader.errors == []


PLOTLY = r"""host => {
  const style = getComputedStyle(host), v = n => style.getPropertyValue(n).trim();
  const probe = c => { const e = document.createElement('i'); e.style.color = c; host.appendChild(e);
                       const out = getComputedStyle(e).color; e.remove(); return out; };
  // Plotly draws a translucent colour as the colour and an opacity.
  const paint = (c, o) => { c = probe(c || ''); o = Math.round(parseFloat(o || '1') * 100) / 100; return o < 1 ? c.replace(/^rgb\((.*)\)$/, `rgba($1, ${o})`) : c; };
  const shapes = [...host.querySelectorAll('.layer-below .shapelayer path, .layer-above .shapelayer path')];
  const plot = host.querySelector('.nsewdrag').getBoundingClientRect();
  const bar = host.querySelector('.modebar-container');
  const labels = [...host.querySelectorAll('.ytick text, .xtick text')].map(t => t.getBoundingClientRect());
  const bg = host.querySelector('.main-svg .bg') || host.querySelector('.main-svg');
  return {
    band: probe(v('--band')), bandEdge: probe(v('--band-edge')), fg: probe(v('--fg')), bg: probe(v('--bg')),
    aggregate: probe(v('--series-aggregate')), decode: probe(v('--series-decode')),
    fills: shapes.map(p => paint(p.style.fill, p.style.fillOpacity)),
    strokes: shapes.map(p => paint(p.style.stroke, p.style.strokeOpacity)),
    points: [...host.querySelectorAll('.scatterlayer .trace')].map(t => [...t.querySelectorAll('.point')].map(p => probe(p.style.fill))),
    paper: probe(host.querySelector('.main-svg').style.background || getComputedStyle(host.querySelector('.main-svg')).backgroundColor),
    modebar: bar ? bar.getBoundingClientRect().bottom : null, plotTop: plot.top,
    overLabels: bar ? labels.some(l => { const b = host.querySelector('.modebar').getBoundingClientRect();
      return b.width && l.left < b.right && l.right > b.left && l.top < b.bottom && l.bottom > b.top; }) : false,
  }; }"""


def check_plotly(page) -> None:
    page.wait_for_selector("#chart-k4 [data-figure].ready .main-svg", timeout=30000)
    host = page.locator("#chart-k4 [data-figure]")
    host.hover()  # the mode bar shows on hover
    got = host.evaluate(PLOTLY)
    assert got["band"] in got["fills"], got  # the noise band, in the band's colour
    assert got["fg"] in got["strokes"], got   # the 1.0 line
    assert [set(t) for t in got["points"]] == [{got["aggregate"]}, {got["decode"]}], got
    assert got["paper"] == got["bg"], got
    assert not got["overLabels"] and (got["modebar"] is None or got["modebar"] <= got["plotTop"] + 1), got


@pytest.mark.parametrize("theme", THEMES)
def test_4_plotly_draws_the_svg_drawers_chart_and_loads_only_where_a_chart_is(sites, reader, theme):
    base, site = sites[f"{theme}-plotly"]
    for page in site.rglob("*.html"):
        assert "plotly-" not in page.read_text(), page  # no page links the bundle by itself
    reader.goto(base + f"reports/{REPORT}/precision.html")
    reader.evaluate("window.__mark = 1")
    bundle = "() => performance.getEntriesByType('resource').filter(r => /plotly-[0-9.]+\\.min\\.js/.test(r.name)).length"
    assert reader.evaluate(bundle) == 0
    go(reader, base + f"reports/{REPORT}/speed.html")
    check_plotly(reader)
    assert sorted(set(reader.evaluate(SCRIPTS))) == ["page", "plotly", "plotly-charts"]  # not the SVG drawer
    # Dark: the host theme's own switch (Material's palette, the default theme's colour mode).
    if theme == "material":
        reader.evaluate("() => { document.body.setAttribute('data-md-color-scheme', 'slate'); }")
    else:
        reader.evaluate("() => document.documentElement.setAttribute('data-bs-theme', 'dark')")
    reader.wait_for_function("""() => { const h = document.querySelector('#chart-k4 [data-figure]');
        const s = h.querySelector('.main-svg'); const c = getComputedStyle(h).getPropertyValue('--bg').trim();
        const e = document.createElement('i'); e.style.color = c; h.appendChild(e); const bg = getComputedStyle(e).color; e.remove();
        return (s.style.background || getComputedStyle(s).backgroundColor) === bg && bg !== 'rgb(255, 255, 255)'; }""",
                             timeout=10000)
    check_plotly(reader)
    instant(reader, theme)
    assert reader.errors == []


@pytest.mark.parametrize("theme", THEMES)
def test_5_the_hosts_home_page_stays_as_written(sites, reader, theme):
    base, site = sites[theme]
    reader.goto(base)
    main = reader.locator("article, [role=main]").first
    assert "The host's own words" in main.inner_text()
    assert reader.locator("#reports").count() == 0 and "CuteAFD" not in main.inner_text()
    docs = json.loads((site / "search" / "search_index.json").read_text())["docs"]
    home = [d for d in docs if d["location"] in ("", "#host-home")]
    assert home and not [d for d in home if "CuteAFD" in d["text"] or "tpurtell" in d["text"]], home


@pytest.mark.parametrize("theme", THEMES)
def test_6_hand_written_nav_titles_stay(sites, reader, theme):
    base, _ = sites[theme]
    reader.goto(base + "guide/")
    links = reader.eval_on_selector_all("a.nav-link, a.dropdown-item, .md-nav a.md-nav__link",
                                        "as => as.map(a => [a.textContent.trim(), a.href])")
    to = lambda path: {text for text, href in links if href == base + path}  # noqa: E731
    assert to(f"reports/{GPQA}/") == {"GPQA"}, links  # as the author's nav names it
    # Pages the author's nav lists without a title take sitegen's short ones.
    assert to(f"reports/{REPORT}/speed.html") == {"Speed"}, links
    assert to(f"reports/{REPORT}/") == {"Overview"}, links


SEARCHED = ("precision.html", "speed.html", "memory.html")


@pytest.mark.parametrize("theme", THEMES)
def test_7_search_finds_words_with_an_apostrophe(sites, reader, theme):
    base, site = sites[theme]
    text = (site / "search" / "search_index.json").read_text()
    assert not re.search(r"&#(x27|39);", text)
    docs = json.loads(text)["docs"]
    for name in SEARCHED:
        entries = [d for d in docs if d["location"].startswith(f"reports/{REPORT}/{name}")]
        assert any("tpurtell's" in d["title"] for d in entries), (name, [d["title"] for d in entries][:2])
    # As a reader searches: Material's search box, the default theme's search page.
    if theme == "material":
        reader.goto(base)
        reader.locator("input.md-search__input").click()
        # A query typed while the search worker still reads the index is not run again.
        reader.wait_for_function("() => { const m = document.querySelector('.md-search-result__meta');"
                                 " return m && m.textContent.trim() && !/Initializing/i.test(m.textContent); }", timeout=15000)
        reader.locator("input.md-search__input").press_sequentially("tpurtell's")  # keys, as a reader types
        reader.wait_for_selector(".md-search-result__item", state="attached", timeout=15000)
        # Material lists the first results and more as the list scrolls.
        for _ in range(10):
            count = reader.locator(".md-search-result__item").count()
            reader.evaluate("document.querySelector('.md-search__scrollwrap').scrollTop = 1e6")
            reader.wait_for_timeout(200)
            if reader.locator(".md-search-result__item").count() == count:
                break
        found = reader.eval_on_selector_all(".md-search-result__link", "as => as.map(a => a.getAttribute('href'))")
    else:
        reader.goto(base + "search.html?q=tpurtell%27s")
        reader.wait_for_selector("#mkdocs-search-results a", timeout=15000)
        found = reader.eval_on_selector_all("#mkdocs-search-results a", "as => as.map(a => a.getAttribute('href'))")
    for name in SEARCHED:
        assert any(f"{REPORT}/{name}" in href for href in found), (name, found)
