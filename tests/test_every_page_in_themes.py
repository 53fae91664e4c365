"""Every page of the example, reached as a reader reaches it inside MkDocs themes (issue 56, item 1):
the repository's own project (its docs pages and every example report) built with Material for
MkDocs and its instant navigation, and with MkDocs' default theme; a link clicked to each page in
turn, then back through the whole history and forward again. Each time: no console error or failed
request, the page's own content (its title, its heading and every id of its file), its charts drawn.
In Material every step is a swap (instant navigation), never a page load.

Material's instant navigation works only for pages under the site_url's own path and port, so the
sites are served at that path by a small server started before the build (as in
test_mkdocs_material.py). Its instant loader writes back the `href` of every element with one in
each page it swaps in: an SVG element's `href` is read-only (SVGAnimatedString), so a page holding
`<use href>` stopped the swap with "Cannot set property href of #<SVGUseElement>" and left the
old page up under the new address (test_no_element_has_a_read_only_href_or_src).
"""
from __future__ import annotations

import html
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
import yaml
from conftest import ROOT

pytestmark = pytest.mark.slow  # the whole file: left out of the quick loop (tests/run.sh --quick)

THEMES = ("material", "default")
T_OUT = 15000  # ms a step may take to arrive (a loaded 2-core host); a step that does not ends the walk
THEME = {
    "material": {"name": "material", "font": False, "features": ["navigation.instant"],
                 "palette": [{"scheme": "default", "toggle": {"icon": "material/brightness-7", "name": "Dark"}},
                             {"scheme": "slate", "toggle": {"icon": "material/brightness-4", "name": "Light"}}]},
    "default": {"name": "mkdocs", "highlightjs": False},  # no CDN: the test runs offline
}


class _Sites(http.server.SimpleHTTPRequestHandler):
    """Serves each built site under its own path prefix (`/material/`, `/default/`), nothing else."""

    root: Path

    def translate_path(self, path: str) -> str:
        path = path.split("?", 1)[0].split("#", 1)[0]
        prefix, _, rest = path.lstrip("/").partition("/")
        if prefix not in THEMES:
            return str(self.root / "-")  # a 404
        return str(self.root / prefix / "site" / rest)

    def log_message(self, *args) -> None:
        pass


def project_config(theme: str, port: int) -> str:
    """The repository's mkdocs.yml (its sitegen options as they are), in `theme`, with search."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    config["site_url"] = f"http://127.0.0.1:{port}/{theme}/"
    config["theme"] = THEME[theme]
    config["plugins"] = ["search", *config["plugins"]]
    if theme == "default":
        # MkDocs' own navigation, as a site without a `nav:` has it: every report in a "Reports" menu
        # (the repository's nav leaves them to the home page's table).
        config.pop("nav", None)
        config.pop("not_in_nav", None)
    return yaml.safe_dump(config, allow_unicode=True, sort_keys=False)


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    """The repository's project built in each theme (two processes at once), served; yields
    {theme: (base URL, site folder)}."""
    if importlib.util.find_spec("material") is None:
        if os.environ.get("CI"):
            pytest.fail("mkdocs-material is not installed; the test extras install it")
        pytest.skip("mkdocs-material not installed (pip install -e '.[test]')")
    root = tmp_path_factory.mktemp("every-page")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), type("Handler", (_Sites,), {"root": root}))
    port = server.server_address[1]
    runs = {}
    for theme in THEMES:
        project = root / theme
        shutil.copytree(ROOT / "docs", project / "docs")
        shutil.copytree(ROOT / "data", project / "data", ignore=shutil.ignore_patterns("*.py"))
        (project / "mkdocs.yml").write_text(project_config(theme, port))
        runs[theme] = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", "mkdocs.yml", "-d", "site"], cwd=project,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    for theme, run in runs.items():
        _, err = run.communicate(timeout=300)
        assert run.returncode == 0, f"{theme}: {err}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield {theme: (f"http://127.0.0.1:{port}/{theme}/", root / theme / "site") for theme in THEMES}
    server.shutdown()
    server.server_close()


def report_pages(site: Path) -> list[str]:
    """Every page of every report, in its report's order (as a reader clicks through one report,
    then the next): each report's overview first."""
    out = []
    for folder in sorted((site / "reports").iterdir()):
        pages = sorted(p.name for p in folder.glob("*.html"))
        out += [f"reports/{folder.name}/{name}" for name in sorted(pages, key=lambda n: (n != "index.html", n))]
    return out


def url_of(base: str, path: str) -> str:
    """The address a theme links a page by: a folder's index.html as the folder, a docs page
    `x.md` as `x/` (use_directory_urls)."""
    if path.endswith("/index.html"):
        return base + path[: -len("index.html")]
    return base + path


TITLE = re.compile(r"<title>(.*?)</title>", re.DOTALL)
H1 = re.compile(r"<h1\b[^>]*>(.*?)</h1>", re.DOTALL)
ID = re.compile(r"""\sid=["']?([^"'\s>]+)""")
TAG = re.compile(r"<[^>]+>")


class Expected:
    """What a page's own file says it holds: its title, its first heading's text, every id in it."""

    def __init__(self, file: Path):
        text = file.read_text(encoding="utf-8")
        body = text[text.index("<body"):]
        body = re.sub(r"<script\b.*?</script>", "", body, flags=re.DOTALL)
        self.title = html.unescape(TITLE.search(text).group(1)).strip()
        heading = H1.search(body)
        assert heading, f"{file}: no heading"
        # (Without its permalink mark: Material's "¶" is the heading's own link.)
        self.h1 = " ".join(html.unescape(TAG.sub("", re.sub(r'<a class="headerlink".*?</a>', "", heading.group(1)))).split())
        self.ids = sorted({html.unescape(i) for i in ID.findall(body)})


SITEMAP = "performance.getEntriesByType('resource').some(r => r.name.endsWith('/sitemap.xml'))"
SEEN = r"""([title, h1, ids]) => {
  const heading = document.querySelector('article h1, [role=main] h1');
  const copy = heading && heading.cloneNode(true);
  if (copy) copy.querySelectorAll('.headerlink').forEach(a => a.remove());
  const missing = ids.filter(i => !document.getElementById(i));
  return {title: document.title, h1: copy ? copy.textContent.replace(/\s+/g, ' ').trim() : null,
          missing: missing.slice(0, 5), nmissing: missing.length,
          charts: document.querySelectorAll('[data-figure]').length,
          drawn: document.querySelectorAll('[data-figure].ready svg.chart-svg').length};
}"""
# Marks the page's content as the one left: a page swapped in comes without it. (Not in a theme that
# loads each page: a page it takes from the back-forward cache comes back with its mark.)
LEAVING = "() => { const c = document.querySelector('article, [role=main]'); if (c) c.dataset.left = '1'; }"
ARRIVED = "() => { const c = document.querySelector('article, [role=main]'); return !!c && !c.dataset.left; }"
# Arrived, and every chart of the page drawn: one wait for both (each wait is a round trip, and it polls
# once a frame).
ARRIVED_AND_DRAWN = (f"() => ({ARRIVED})() && [...document.querySelectorAll('[data-figure]')]"
                     ".every(h => h.classList.contains('ready'))")


class Reader:
    """One browser tab that follows links as a reader does, and judges each page it lands on."""

    def __init__(self, page, theme: str, base: str, site: Path):
        self.page, self.theme, self.base, self.site = page, theme, base, site
        self.expected: dict[str, Expected] = {}
        self.problems: list[str] = []
        self.errors: list[str] = []
        self.axe_runs = 0
        self.sitemap_read = False
        page.on("console", lambda m: self.errors.append(f"console: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))
        # (A request the next click cut short, the default theme's search index loading, is no fault.)
        page.on("requestfailed", lambda r: self.errors.append(f"failed: {r.url} {r.failure}")
                if "ERR_ABORTED" not in (r.failure or "") else None)

    def axe(self, path: str) -> None:
        """axe on the page as the walk left it (arrived, charts drawn), in Material's light and slate
        schemes, its repeated table rows taken out first (test_a11y_layout.SAME_ROWS_JS); then the
        light scheme again. axe and its colour memo are injected once: the window stays."""
        from axe_playwright_python.sync_playwright import Axe
        from test_a11y_layout import AXE_COLOUR_MEMO_JS, SAME_ROWS_JS

        if not self.page.evaluate("typeof window.axe === 'object'"):
            self.page.evaluate(Axe().axe_script)
        self.page.evaluate(AXE_COLOUR_MEMO_JS)
        self.page.evaluate(SAME_ROWS_JS)
        for scheme in ("default", "slate"):
            # Material's own switch: the palette on <body>; its colours change over a transition,
            # each taken to its end at once (axe reads the colours the scheme settles on).
            self.page.evaluate(SCHEME_SETTLED, scheme)
            result = self.page.evaluate("axe.run({include: [['article.md-content__inner']]}, {resultTypes: ['violations']})")
            self.axe_runs += 1
            self.problems += [f"axe {path} {scheme}: {v['impact']} {v['id']}: {[n['target'] for n in v['nodes'][:3]]}"
                              for v in result["violations"]]
        self.page.evaluate(SCHEME_SETTLED, "default")

    def expect(self, path: str) -> Expected:
        if path not in self.expected:
            self.expected[path] = Expected(self.site / (path if path.endswith(".html") else path + "index.html"))
        return self.expected[path]

    def click_to(self, path: str) -> None:
        """A link to `path` clicked in the page's content."""
        if self.theme == "material" and not self.sitemap_read:  # Material follows a link in place once it has read the sitemap
            self.page.wait_for_function(f"() => {SITEMAP}")
            self.sitemap_read = True  # once read, for the walk: its document stays (instant navigation)
        self.leave()
        self.page.evaluate("""url => { const a = document.createElement('a'); a.href = url; a.textContent = 'next';
            document.querySelector('article, [role=main]').appendChild(a); a.click(); }""", url_of(self.base, path))
        self.judge(path, "click")

    def leave(self) -> None:
        if self.theme == "material":
            self.page.evaluate(LEAVING)

    def back_to(self, path: str) -> None:
        self.leave()
        self.page.go_back(wait_until="commit")
        self.judge(path, "back")

    def forward_to(self, path: str) -> None:
        self.leave()
        self.page.go_forward(wait_until="commit")
        self.judge(path, "forward")

    def judge(self, path: str, how: str) -> None:
        where = f"{self.theme} {how} to {path}"
        want = self.expect(path)
        try:
            self.page.wait_for_url(url_of(self.base, path), timeout=T_OUT)
            self.page.wait_for_load_state("load")
            self.page.wait_for_function(ARRIVED_AND_DRAWN, timeout=T_OUT)
        except Exception as exc:  # noqa: BLE001 - the page it stayed on is the finding
            self.problems.append(f"{where}: never arrived ({type(exc).__name__}; at {self.page.url}, "
                                 f"title {self.page.title()!r})")
            self.problems += [f"{where}: {e}" for e in self.errors]
            raise Lost(where) from None
        seen = self.page.evaluate(SEEN, [want.title, want.h1, want.ids])
        if seen["title"] != want.title:
            self.problems.append(f"{where}: title {seen['title']!r}, its file's is {want.title!r}")
        if seen["h1"] != want.h1:
            self.problems.append(f"{where}: heading {seen['h1']!r}, its file's is {want.h1!r}")
        if seen["nmissing"]:
            self.problems.append(f"{where}: {seen['nmissing']} of its file's {len(want.ids)} ids missing, "
                                 f"{seen['missing']}")
        if seen["drawn"] != seen["charts"]:
            self.problems.append(f"{where}: {seen['drawn']} of {seen['charts']} charts drawn")
        self.problems += [f"{where}: {e}" for e in self.errors]
        self.errors.clear()


# In a theme that loads each page, back and forward load it again, from the browser's cache (Playwright
# turns the back-forward cache off): nothing a click did not already show, at a page load's cost each
# (0.24-0.28 s of CPU in the default theme against 0.10-0.13 s for a swap in Material, 2-core host of
# 2026-12-06). There they go back and forward through the two reports with the most kinds of page.
BACK_AND_FORWARD_LOADED = {"cuteafd-v4.0.0", "vllm-tp8-against-tp4pp2-ib"}


class Lost(Exception):
    """The reader is not where the step should have taken it: the steps after it would say nothing."""


@pytest.mark.parametrize("theme", THEMES)
def test_every_page_of_every_report_by_link_then_back_and_forward(sites, browser, theme):
    """In Material, axe-core also finds no violation of any impact in sitegen's content (its article:
    Material's own header, search dialog and footer are Material's), light and slate, on one page of
    each kind (`axe_pages`), checked where the walk first arrives on it by a click (a page loaded
    again to run axe cost a Material page load and axe injected afresh, 16 times)."""
    base, site = sites[theme]
    pages = report_pages(site)
    kinds = {p.rsplit("/", 1)[1] for p in pages}
    assert len(pages) >= 60 and {"latency.html", "load.html", "distributions.html", "speed.html", "numbers.html",
                                 "index.html", "accuracy.html", "gates.html", "tool-calling.html"} <= kinds, kinds
    reports: dict[str, list[str]] = {}
    for p in pages:
        reports.setdefault(p.split("/")[1], []).append(p)
    # Each report in turn, from a page of the site's own: its pages by link, back to where it began, and
    # forward again (a browser keeps 50 steps of a tab's history: a report's are well within it).
    own = ["history.html", "highlights/", "guide/receipts/", ""]
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    # The default theme's search builds its index afresh on every page load (a second of CPU for this
    # site's 1.3 MB): each load gets an index of no pages, as the site's own search configures it.
    index = json.loads((site / "search" / "search_index.json").read_text())
    context.route("**/search/search_index.json", lambda route: route.fulfill(json={"config": index["config"], "docs": []}))
    to_axe = axe_pages(site) if theme == "material" else []
    assert theme != "material" or (len(to_axe) >= 15 and set(to_axe) <= {*pages, *own}), to_axe
    axed: list[str] = []
    try:
        reader = Reader(context.new_page(), theme, base, site)
        reader.page.goto(base)
        reader.judge("", "load")
        reader.page.evaluate("window.__mark = 1")  # gone if a step loads a page instead of swapping it in
        start = ""
        for i, (rid, walk) in enumerate(reports.items()):
            for p in walk:
                reader.click_to(p)
                if p in to_axe and p not in axed:
                    reader.axe(p)
                    axed.append(p)
            if theme == "material" or rid in BACK_AND_FORWARD_LOADED:
                for p in [start, *walk][-2::-1]:
                    reader.back_to(p)
                for p in walk:
                    reader.forward_to(p)
            start = own[i % len(own)]
            reader.click_to(start)
            if start in to_axe and start not in axed:
                reader.axe(start)
                axed.append(start)
        if theme == "material":
            assert reader.page.evaluate("window.__mark") == 1, "a page was loaded: instant navigation was off"
    except Lost:
        pass
    finally:
        context.close()
    assert reader.problems == [], "\n".join(reader.problems[:40])
    assert sorted(axed) == sorted(to_axe) and reader.axe_runs == 2 * len(to_axe), (axed, reader.axe_runs)


READ_ONLY = r"""() => {
  // What Material's instant loader does to each page it swaps in, in strict mode: every [href] and
  // [src] written back to itself.
  'use strict';
  const out = [];
  for (const e of document.querySelectorAll('[href], [src]')) {
    for (const name of ['href', 'src']) {
      if (!e.hasAttribute(name)) continue;
      try { e[name] = e[name]; } catch (err) { out.push(e.tagName + ' ' + name + ': ' + err.message); }
    }
  }
  return out;
}"""


def test_no_element_has_a_read_only_href_or_src(example_site, browser):
    """On every serving page of `sitegen build`'s site (the pages that draw their ratio bars from one
    shared ground), no element holds an href or src that a script cannot write back."""
    context = browser.new_context()
    try:
        page = context.new_page()
        found = {}
        pages = sorted(example_site.glob("reports/*/latency.html")) + [example_site / "reports" / "cuteafd-v4.0.0" / "speed.html"]
        bars = 0
        for file in pages:
            page.goto(file.as_uri())
            found[file.parent.name + "/" + file.name] = page.evaluate(READ_ONLY)
            bars += page.locator("svg.ratio-bar use").count()
    finally:
        context.close()
    assert len(found) >= 4 and bars > 100 and not any(found.values()), found


# The scheme set on <body>, then every CSS transition it started (getAnimations() computes the new
# style first) finished: the page shows the scheme's colours, as it does once its transitions end.
SCHEME_SETTLED = """s => { document.body.setAttribute('data-md-color-scheme', s);
  const running = document.getAnimations().filter(a => a instanceof CSSTransition);
  running.forEach(a => a.finish());
  return running.length; }"""


def axe_pages(site: Path) -> list[str]:
    """The pages axe checks inside Material: the site's History page and one page of each kind of
    report page (from the two reports with the most kinds where they have it, else its first).
    Sitegen's links in running text were told by colour alone (2.3:1 against the text around them
    in the default scheme), and the summary of what differs between the sides was 4.45:1 on
    Material's note tint."""
    by_kind: dict[str, str] = {}
    for p in report_pages(site):
        rich = "/cuteafd-v4.0.0/" in p or "/vllm-tp8-against-tp4pp2-ib/" in p
        if rich or p.rsplit("/", 1)[1] not in by_kind:
            by_kind[p.rsplit("/", 1)[1]] = p
    return ["history.html", *sorted(by_kind.values())]


def receipt_titles() -> dict[str, str]:
    """Each example report's title, as its receipt gives it."""
    return {folder.name: json.loads((folder / "SUMMARY.json").read_text())["report"]["title"]
            for folder in sorted((ROOT / "data").iterdir()) if (folder / "SUMMARY.json").is_file()}


def test_default_theme_search_results_name_their_report(sites):
    """Item 12: MkDocs' own search lists each page and each section under its title alone: "Each
    objective at each load" four times, one per serving report, and "Load" for four pages. Every entry
    of a report page names its report (the receipt's title); the page keeps its short titles where the
    theme shows them (the menu, the page's table of contents), which the report's folder explains."""
    _, site = sites["default"]
    titles = receipt_titles()
    docs = json.loads((site / "search" / "search_index.json").read_text())["docs"]
    entries = [d for d in docs if d["location"].startswith("reports/")]
    assert len(entries) > 250
    unnamed = [(d["location"], d["title"]) for d in entries if titles[d["location"].split("/")[1]] not in d["title"]]
    assert unnamed == [], unnamed[:5]
    objectives = [d["title"] for d in entries if d["title"].startswith("Each objective at each load")]
    assert len(objectives) == len(set(objectives)) >= 3, objectives
    # The theme's own titles are as they were: the page's table of contents and the menu.
    page = (site / "reports" / "vllm-tp8-against-tp4pp2-ib" / "load.html").read_text()
    assert re.search(r'<a href="#objective-table" class="nav-link">Each objective at each load</a>', page)
    assert re.search(r'class="dropdown-item[^"]*"[^>]*>Load</a>', page)


MENU = r"""() => [...document.querySelectorAll('.navbar .dropdown-menu.show')].map(m => {
  const r = m.getBoundingClientRect();
  return {left: r.left, right: r.right, links: [...m.querySelectorAll(':scope > li > a[href]:not([href="#"])')].map(a => a.textContent.trim())};
})"""


def test_default_theme_reaches_every_report_page_on_screen(sites, browser):
    """Item 12: in the default theme a report's pages were reachable only through a "Reports" menu of
    long titles (12 then), each opening its pages beside the menu, past the screen's right edge at 1280 px.
    Now each report page lists its report's pages at its top, and the menu and each report's folder
    stay on the screen at 1280 and 390 px; a page is one click away in either."""
    base, _ = sites["default"]
    titles = receipt_titles()
    context = browser.new_context()
    try:
        page = context.new_page()
        for width in (1280, 390):
            page.set_viewport_size({"width": width, "height": 900 if width > 500 else 844})
            page.goto(base + "reports/vllm-tp8-against-tp4pp2-ib/latency.html")
            strip = page.locator("[role=main] nav.report-pages a")
            assert strip.evaluate_all("as => as.map(a => a.textContent)") == [
                "Overview", "Latency", "Distributions", "Load", "Checkpoints", "Numbers"]
            assert page.locator("nav.report-pages a[aria-current=page]").inner_text() == "Latency"
            if width < 992:
                page.get_by_role("button", name="Toggle navigation").click()
            page.locator("a.dropdown-toggle", has_text="Reports").click()
            folders = page.locator(".navbar .dropdown-menu.show > .dropdown-submenu > a")
            assert sorted(folders.all_inner_texts()) == sorted(titles.values())
            for i in range(folders.count()):
                folders.nth(i).click()
                menus = page.evaluate(MENU)
                assert all(0 <= m["left"] and m["right"] <= width for m in menus), (width, i, menus)
                assert len(menus) == 2 and menus[1]["links"] and "Overview" in menus[1]["links"], menus
            # A page of another report, from the menu: its folder, then the page.
            folders.filter(has_text=titles["vllm-tp4pp2-ib-aa"]).click()
            page.locator(".navbar .dropdown-submenu .dropdown-menu.show a", has_text="Distributions").click()
            page.wait_for_url(base + "reports/vllm-tp4pp2-ib-aa/distributions.html")
        page.goto(base + "reports/vllm-tp8-against-tp4pp2-ib/latency.html")
        page.locator("nav.report-pages a", has_text="Load").click()
        page.wait_for_url(base + "reports/vllm-tp8-against-tp4pp2-ib/load.html")
    finally:
        context.close()


def test_the_serving_tables_fit_material_s_column(sites, browser):
    """Issue 56, item 9: in Material's narrower column (688 px at 1280) the serving pages' tables fit
    with every fold open: the Latency page's Verdict column was cut ("slow", "not r"), and the SGLang
    sweep's load points headed their rows in four lines."""
    base, _ = sites["material"]
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        for rid in ("vllm-tp8-against-tp4pp2-ib", "vllm-tp4pp2-ib-aa", "sglang-llama-3.3-70b-sweep"):
            for name in ("latency.html", "load.html"):
                page.goto(url_of(base, f"reports/{rid}/{name}"))
                page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
                over = page.evaluate("""[...document.querySelectorAll('article table')].filter(t => t.offsetParent !== null
                    && t.scrollWidth > t.parentElement.clientWidth + 1).map(t => (t.closest('figure') || t).id + ' ' + t.scrollWidth)""")
                assert over == [], (rid, name, over)
        page.goto(url_of(base, "reports/sglang-llama-3.3-70b-sweep/latency.html"))
        lines = page.evaluate("""[...document.querySelectorAll('#every-load-point-table tbody th')].map(th => {
            const r = document.createRange(); r.selectNodeContents(th);
            return new Set([...r.getClientRects()].map(b => Math.round(b.top))).size; })""")
        assert lines and max(lines) <= 2, lines
    finally:
        context.close()
