"""The built site works from anywhere: under a sub-path of a plain static server (here), and from
file:// (tests/test_a11y_layout.py checks the links of every page on the loads it makes anyway).

Chromium starts at the home page and follows every link: each page loads with no failed request,
no HTTP error and no console error; each linked file exists; each #fragment names an element of
its page; every page of the site is reached. The host's 404 page works at any depth.
"""
from __future__ import annotations

import re
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urldefrag, urlsplit

import pytest

from conftest import sitegen_here
from htmlutil import send_404_page

pytestmark = pytest.mark.slow  # the whole file: left out of the quick loop (tests/run.sh --quick)

PREFIX = "/some/prefix/"


class SubPathHandler(SimpleHTTPRequestHandler):
    """Serves `directory` under PREFIX only; anything else, or missing, gets the site's 404.html
    with status 404, as GitHub Pages does."""

    def translate_path(self, path: str) -> str:
        path = urlsplit(path).path
        if not path.startswith(PREFIX):
            return str(Path(self.directory) / ".missing" / "none")
        return super().translate_path("/" + path[len(PREFIX):])

    def send_error(self, code, message=None, explain=None):
        page = Path(self.directory) / "404.html"
        if code != 404 or not page.is_file():
            return super().send_error(code, message, explain)
        send_404_page(self, page)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A plain static file server on 127.0.0.1 serving a site built with site_url at its sub-path."""
    site = tmp_path_factory.mktemp("served") / "site"
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(SubPathHandler, directory=str(site)))
    base = f"http://127.0.0.1:{httpd.server_address[1]}{PREFIX}"
    project = tmp_path_factory.mktemp("project")
    root = Path(__file__).resolve().parent.parent
    import shutil
    shutil.copytree(root / "data", project / "data")
    if (root / "docs").is_dir():
        shutil.copytree(root / "docs", project / "docs")
    config = (root / "mkdocs.yml").read_text()
    config = re.sub(r"(?m)^site_url:.*$", f"site_url: {base}", config)
    (project / "mkdocs.yml").write_text(config if "site_url:" in config else f"site_url: {base}\n" + config)
    result = sitegen_here("build", "-q", "-d", str(site), cwd=project)
    assert result.returncode == 0, result.stderr
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield base, site
    httpd.shutdown()
    httpd.server_close()


def watch(page) -> list[str]:
    """Problems on the page: console errors, page errors, failed requests and HTTP errors."""
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"console: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"failed: {r.url} {r.failure}"))
    page.on("response", lambda r: problems.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None)
    return problems


# A page's charts not drawn (how many), the ids its links may name, and its links (resolved, and as written).
PAGE_JS = """() => [document.querySelectorAll('[data-figure]:not(.ready)').length,
  [...document.querySelectorAll('[id], a[name]')].map(e => e.id || e.getAttribute('name')),
  [...document.querySelectorAll('a[href]')].map(e => [new URL(e.getAttribute('href'), document.baseURI).href, e.getAttribute('href')])]"""


def crawl(context, start: str, base: str, exists) -> set[str]:
    """Visits every page reachable from `start` by links under `base`; returns their site paths."""
    page = context.new_page()
    problems = watch(page)
    todo, ids_of, fragments = [start], {}, {}
    while todo:
        url = todo.pop()
        if url in ids_of:
            continue
        page.goto(url, wait_until="load")
        assert problems == [], (url, problems)
        if page.evaluate("document.querySelectorAll('[data-figure]').length"):  # charts draw (their script loaded and ran)
            page.wait_for_selector("[data-figure].ready svg", timeout=10000)
        not_drawn, ids, links = page.evaluate(PAGE_JS)  # once the charts are drawn: in one call
        assert not_drawn == 0, url
        ids_of[url] = set(ids)
        for href, raw in links:
            target, fragment = urldefrag(href)
            if raw.startswith(("http://", "https://", "mailto:")) and not href.startswith(base):
                continue  # a link off the site: not followed offline
            assert target.startswith(base), f"{url}: link {raw!r} leaves the site ({href})"
            if target.endswith("/"):
                target += "index.html"
            if target.endswith(".html"):
                if fragment:
                    fragments.setdefault(target, set()).add(fragment)
                todo.append(target)
            else:
                assert exists(target), f"{url}: link {raw!r} points to a missing file"
    for target, wanted in fragments.items():
        assert wanted <= ids_of[target], f"{target} lacks {wanted - ids_of[target]}"
    assert problems == []
    page.close()
    return {url[len(base):] or "index.html" for url in ids_of}


def pages_of(site: Path) -> set[str]:
    return {p.relative_to(site).as_posix() for p in site.rglob("*.html") if p.name != "404.html"}


def test_sub_path_of_a_static_server(server, browser):
    base, site = server
    context = browser.new_context()
    request = context.request
    served: dict[str, bool] = {}  # a file many pages link to (a receipt, a CSV table) is fetched once

    def exists(url: str) -> bool:
        if url not in served:
            served[url] = request.get(url).status == 200
        return served[url]

    visited = crawl(context, base, base, exists)
    assert visited >= pages_of(site) and len(visited) >= 10
    context.close()


def test_host_404_page_works_at_any_depth(server, browser):
    base, site = server
    context = browser.new_context()
    page = context.new_page()
    problems = watch(page)
    response = page.goto(base + "reports/no-such-report/deep/page.html")
    assert response.status == 404
    assert page.locator("h1").inner_text() == "Page not found"
    assert [p for p in problems if not p.startswith("console: Failed to load resource")] == \
        [f"HTTP 404: {base}reports/no-such-report/deep/page.html"]  # the page itself, and nothing it loads
    problems.clear()
    # Its links are absolute (from site_url): they lead home from any depth.
    page.locator("main a").first.click()
    page.wait_for_load_state("load")
    assert page.url == base
    assert problems == []
    links = page.context.new_page()
    links.goto(base + "x/y/z")
    hrefs = links.eval_on_selector_all("main a", "els => els.map(e => e.href)")
    assert hrefs and all(h.startswith(base) for h in hrefs)
    for href in hrefs:
        assert context.request.get(href).status == 200, href
    context.close()


def test_404_without_site_url_finds_home_at_any_depth(example_site, browser):
    """Built without site_url, the 404 page's home link is found by the page itself: the nearest
    folder up from the missing address that holds 404.html (without script, the missing page's folder)."""
    assert "/some/prefix" not in (example_site / "404.html").read_text()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(SubPathHandler, directory=str(example_site)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}{PREFIX}"
    context = browser.new_context()
    try:
        page = context.new_page()
        for missing in ("nope.html", "reports/no-such-report/deep/page.html"):
            assert page.goto(base + missing).status == 404
            page.wait_for_function(f"document.getElementById('home').href === {base!r}")
        page.click("#home")
        page.wait_for_load_state("load")
        assert page.url == base and page.locator("h1").count() == 1
        no_script = browser.new_context(java_script_enabled=False)
        page = no_script.new_page()
        page.goto(base + "a/b/c.html")
        assert page.get_attribute("#home", "href") == "./"
        no_script.close()
    finally:
        context.close()
        httpd.shutdown()
