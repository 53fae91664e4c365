"""No injection: a site built from a receipt whose every free-text field is a payload (tests/payloads.py)
runs none of them in Chromium, shows them as text, and keeps CSV cells from starting a formula."""
from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest

from conftest import sitegen_here
from payloads import FORMULAS, PAYLOADS, payload_project

URL_ATTRS = ["href", "src", "action", "formaction", "xlink:href", "data", "srcdoc", "poster", "background", "ping",
             "srcset", "codebase", "cite", "longdesc", "manifest", "dynsrc", "lowsrc"]
# `details` but sitegen's own: the one-line "About the data" note and page.js's "On this page" list.
FORBIDDEN_TAGS = ["iframe", "frame", "object", "embed", "applet", "base", "form", "math",
                  "details:not(.about-data):not(#on-this-page > details)", "animate", "set",
                  "foreignObject", "link[rel=import]"]

INIT = """
window.__pwned = [];
window.pwn = function (n) { window.__pwned.push(n); };
"""

# Everything a page shows or holds that could run: gathered in the page, judged in Python.
INSPECT = """
() => {
  const out = {handlers: [], urls: [], tags: [], scripts: [], styles: []};
  for (const el of document.querySelectorAll("*")) {
    for (const a of el.attributes) {
      if (a.name.toLowerCase().startsWith("on")) out.handlers.push(el.tagName + " " + a.name + "=" + a.value);
    }
    for (const name of %s) {
      const v = el.getAttribute(name) ?? el.getAttributeNS("http://www.w3.org/1999/xlink", name.replace("xlink:", ""));
      if (v !== null) out.urls.push(v);
    }
  }
  for (const sel of %s) {
    for (const el of document.querySelectorAll(sel)) out.tags.push(el.outerHTML.slice(0, 120));
  }
  for (const s of document.querySelectorAll("script")) {
    out.scripts.push({src: s.getAttribute("src"), type: s.getAttribute("type"), id: s.id, inHead: !!s.closest("head")});
  }
  for (const s of document.querySelectorAll("style")) out.styles.push(!!s.closest("head"));
  return out;
}
""" % (URL_ATTRS, FORBIDDEN_TAGS)  # noqa: UP031 (JavaScript: its braces would need doubling in an f-string)

# Hover, focus and click every mark of every chart: hover labels must stay text.
POKE = """
() => {
  let n = 0;
  for (const chart of document.querySelectorAll("[data-figure]")) {
    for (const el of chart.querySelectorAll("circle, path, rect, polygon, text, g, button")) {
      if (n++ > 400) return n;
      const box = el.getBoundingClientRect();
      const init = {bubbles: true, clientX: box.x + box.width / 2, clientY: box.y + box.height / 2};
      for (const type of ["pointerover", "pointerenter", "mouseover", "mouseenter", "pointermove", "mousemove", "focus", "click"]) {
        el.dispatchEvent(type.startsWith("pointer") ? new PointerEvent(type, init) : new MouseEvent(type, init));
      }
    }
  }
  return n;
}
"""


@pytest.fixture(scope="module")
def payload_site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("payloads")
    payload_project(root)
    result = sitegen_here("build", cwd=root)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    return root / "site"


def html_pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def dangerous_url(value: str) -> bool:
    """A URL that runs script when followed or loaded (an image as a data: URL cannot)."""
    squeezed = re.sub(r"[\x00-\x20]", "", value).lower()
    if squeezed.startswith("data:image/"):
        return False
    return squeezed.startswith(("javascript:", "vbscript:", "data:")) or ",javascript:" in squeezed


def judge(page, where: str) -> None:
    """Fails if anything ran or could run on the page."""
    found = page.evaluate(INSPECT)
    pwned = page.evaluate("window.__pwned")
    assert pwned == [], f"{where}: payloads ran: {pwned}"
    assert found["handlers"] == [], f"{where}: event handler attributes: {found['handlers'][:5]}"
    assert [u for u in found["urls"] if dangerous_url(u)] == [], f"{where}: script URLs"
    assert found["tags"] == [], f"{where}: elements a receipt must not create: {found['tags'][:5]}"
    for s in found["scripts"]:
        # Chart data is an attribute; the one inline script sitegen writes is the 404 page's way home
        # (it can load no file).
        home = where == "404.html" and s["id"] == "sitegen-404-home" and not s["src"]
        assert (s["src"] and "assets/" in s["src"]) or home, f"{where}: script {s}"
    assert all(found["styles"]), f"{where}: a <style> outside <head>"


@pytest.mark.slow
def test_the_judge_sees_a_payload_that_runs(browser, tmp_path):
    """The harness itself: the same page checks catch each kind of payload when it is not escaped."""
    cases = {
        "script": "<script>pwn(1)</script>",
        "handler": "<img src=x onerror=pwn(2)>",
        "url": "<a href=' javascript:pwn(3)'>x</a>",
        "tag": "<iframe></iframe>",
        "inline-script": "<script>var x = 1;</script>",
    }
    context = browser.new_context()
    context.add_init_script(INIT)
    try:
        for name, payload in cases.items():
            path = tmp_path / f"{name}.html"
            path.write_text(f"<!doctype html><html><head><title>t</title></head><body>{payload}</body></html>")
            page = context.new_page()
            page.goto(path.as_uri(), wait_until="load")
            page.wait_for_timeout(50)
            with pytest.raises(AssertionError):
                judge(page, name)
            page.close()
    finally:
        context.close()


@pytest.mark.slow
def test_every_page_of_the_payload_site_runs_nothing(payload_site, browser):
    pages = html_pages(payload_site)
    assert len(pages) >= 8
    context = browser.new_context()
    context.add_init_script(INIT)
    dialogs: list[str] = []
    poked = 0
    try:
        for path in pages:
            page = context.new_page()
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.goto(path.as_uri(), wait_until="load")
            page.wait_for_timeout(50)
            if page.query_selector("[data-figure]"):
                # Charts are drawn by the page's script from their JSON: wait for it, then poke every mark.
                page.wait_for_function("() => [...document.querySelectorAll('[data-figure]')]"
                                       ".every(el => el.querySelector('svg, canvas'))", timeout=10000)
                poked += page.evaluate(POKE)
                page.wait_for_timeout(50)
            judge(page, str(path.relative_to(payload_site)))
            page.close()
    finally:
        context.close()
    assert dialogs == []
    assert poked > 0, "no chart was drawn, so no hover text was tried"


@pytest.mark.slow
def test_payloads_are_shown_as_text(payload_site, page):
    """Escaped, not dropped: the reader sees the receipt's strings literally."""
    page.goto((payload_site / "reports" / "payloads" / "index.html").as_uri())
    text = page.inner_text("body")
    for payload in (PAYLOADS[0], PAYLOADS[1], PAYLOADS[3], "<b onclick=pwn(22)>bold</b> <i>italic</i>"):
        assert payload in text, payload
    assert "Payloads <script>pwn(99)</script>" in page.evaluate("document.title")


@pytest.mark.slow
def test_speed_page_tables_and_chart_hover_show_payload_workloads_as_text(payload_site, page):
    page.goto((payload_site / "reports" / "payloads" / "speed.html").as_uri())
    text = page.inner_text("main")
    assert "<script>pwn(1)</script> w1" in text
    assert FORMULAS[0] + " w0" in text
    html = (payload_site / "reports" / "payloads" / "speed.html").read_text(encoding="utf-8")
    bodies = re.findall(r"data-spec='([^']*)'", html)
    assert bodies
    for body in bodies:
        assert not set("<>&'") & set(body), "markup characters inside embedded JSON"
    # The chart's JSON parses and carries the workload names as data.
    specs = page.evaluate("[...document.querySelectorAll('[data-spec]')].map(s => JSON.parse(s.dataset.spec))")
    labels = " ".join(str(s) for s in specs)
    assert "pwn(1)" in labels


def test_csv_cells_never_start_a_formula(payload_site):
    files = sorted(payload_site.rglob("*.csv"))
    assert files
    seen_payload = False
    for path in files:
        for row in csv.reader(io.StringIO(path.read_text(encoding="utf-8"))):
            for cell in row:
                if cell[:1] in ("=", "+", "-", "@", "\t", "\r"):
                    try:
                        float(cell)
                    except ValueError:
                        pytest.fail(f"{path.name}: cell starts a formula: {cell!r}")
                if cell.startswith("'") and any(cell[1:].startswith(f) for f in FORMULAS):
                    seen_payload = True
    assert seen_payload, "the formula payloads did not reach the CSV files"


def test_author_pages_keep_raw_html_receipt_markdown_does_not(tmp_path):
    """The site's author may write HTML in docs pages; the same HTML in a receipt is shown as text."""
    payload_project(tmp_path)
    (tmp_path / "docs" / "index.md").write_text(
        "# Home\n\n<aside class=\"author-html\" id=\"author-aside\">Written by the author</aside>\n", encoding="utf-8")
    result = sitegen_here("build", "-q", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    home = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert '<aside class="author-html" id="author-aside">Written by the author</aside>' in home
    overview = (tmp_path / "site" / "reports" / "payloads" / "index.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;pwn(1)&lt;/script&gt;" in overview
    assert "<script>pwn(" not in overview


def test_figure_syntax_inside_code_in_a_receipt_is_shown_as_written():
    from site_gen.render.markdown import render

    def no_figures(*args):
        raise AssertionError("a figure inside code must not be evaluated")

    html = render("Write `{{ kv_ratio_range }}` in a lede.", resolve_page=lambda n: None, resolve_figure=no_figures).html
    assert "<code>{{ kv_ratio_range }}</code>" in html
