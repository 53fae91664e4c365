"""The example site in Chromium: pages load with no console error, the chart draws, themes apply."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow  # the whole file: left out of the quick loop (tests/run.sh --quick)

REPORT = "reports/cuteafd-v4.0.0"


def test_overview_loads_without_errors(example_site, page):
    page.goto((example_site / REPORT / "index.html").as_uri())
    assert page.locator("h1").inner_text() == "CuteAFD v4.0.0 against tpurtell's vLLM fork"
    assert page.locator("#precision-table tbody tr").count() == 10
    assert page.errors == []


def test_speed_page_draws_chart(example_site, page):
    page.goto((example_site / REPORT / "speed.html").as_uri())
    page.wait_for_selector("#chart-k4 [data-figure].ready svg.chart-svg", timeout=20000)
    svg = page.locator("#chart-k4 svg.chart-svg")
    # One point per cell and metric, on the fixed scale, with the noise band.
    assert svg.locator(".point").count() == 44
    assert svg.get_attribute("data-range") == "0.8 1.8"
    axis = svg.locator(".axis-line")
    x0, x1 = float(axis.get_attribute("x1")), float(axis.get_attribute("x2"))
    band = svg.locator("rect.band")
    assert (band.get_attribute("data-x0"), band.get_attribute("data-x1")) == ("0.92", "1.08")
    assert float(band.get_attribute("x")) == pytest.approx(x0 + 0.12 * (x1 - x0), abs=0.01)
    assert float(band.get_attribute("width")) == pytest.approx(0.16 * (x1 - x0), abs=0.01)
    assert float(svg.locator("line.one").get_attribute("x1")) == pytest.approx(x0 + 0.2 * (x1 - x0), abs=0.01)
    # The text fallback hides once the chart is drawn.
    assert not page.locator("#chart-k4 .chart-fallback").is_visible()
    assert page.errors == []


def test_chart_hover_zoom_and_legend(example_site, page):
    page.goto((example_site / REPORT / "speed.html").as_uri())
    page.wait_for_selector("#chart-k4 [data-figure].ready svg.chart-svg", timeout=20000)
    chart = page.locator("#chart-k4")
    chart.scroll_into_view_if_needed()
    # Hover: the cell, its ratio and verdict, the metric.
    chart.locator("svg.chart-svg .m-aggregate .point").first.hover()
    tip = chart.locator(".chart-tip")
    assert tip.is_visible()
    assert "1K in" in tip.inner_text() and "faster" in tip.inner_text() and "aggregate" in tip.inner_text()
    # Drag across the plot: the ratio axis zooms; a double-click returns to the fixed scale.
    box = chart.locator("svg.chart-svg").bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.6, box["y"] + 60)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.85, box["y"] + 80, steps=5)
    page.mouse.up()
    low, high = map(float, chart.locator("svg.chart-svg").get_attribute("data-range").split())
    assert 0.8 < low < high < 1.8
    assert chart.locator(".chart-legend .reset").is_visible()
    assert chart.locator("svg.chart-svg .point").count() < 44
    chart.locator("svg.chart-svg").dblclick(position={"x": box["width"] / 2, "y": 60})
    assert chart.locator("svg.chart-svg").get_attribute("data-range") == "0.8 1.8"
    assert chart.locator("svg.chart-svg .point").count() == 44
    # The legend shows or hides a metric.
    decode = chart.locator(".chart-legend button", has_text="clean decode")
    decode.click()
    assert decode.get_attribute("aria-pressed") == "false"
    assert chart.locator("svg.chart-svg .point").count() == 22
    decode.click()
    assert chart.locator("svg.chart-svg .point").count() == 44
    assert page.errors == []


def test_chart_follows_the_colour_scheme(example_site, browser):
    fills = {}
    for scheme in ("light", "dark"):
        context = browser.new_context(color_scheme=scheme)
        pg = context.new_page()
        pg.goto((example_site / REPORT / "speed.html").as_uri())
        pg.wait_for_selector("#chart-k4 [data-figure].ready svg.chart-svg")
        fills[scheme] = pg.eval_on_selector("#chart-k4 .m-aggregate .point", "e => getComputedStyle(e).fill")
        context.close()
    assert fills["light"] != fills["dark"]


def test_dark_scheme_changes_colours(example_site, browser):
    colours = {}
    for scheme in ("light", "dark"):
        context = browser.new_context(color_scheme=scheme)
        pg = context.new_page()
        pg.goto((example_site / REPORT / "index.html").as_uri())
        colours[scheme] = pg.evaluate("getComputedStyle(document.body).backgroundColor")
        context.close()
    assert colours["light"] == "rgb(255, 255, 255)"
    assert colours["dark"] != colours["light"]


def test_narrow_screen_has_no_page_level_horizontal_scroll(example_site, browser):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    pg = context.new_page()
    for name in ("index", "speed", "precision"):
        pg.goto((example_site / REPORT / f"{name}.html").as_uri())
        overflow = pg.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, name
    context.close()


# Where each heading, table, chart and figure of a page sits, and the page's own size: what a
# difference between two builds of Blink would move.
LAYOUT_JS = r"""() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight,
  ...[...document.querySelectorAll("h1, h2, h3, table, figure, svg, .fig, nav a")].map(e => {
    const r = e.getBoundingClientRect(); return [e.tagName, Math.round(r.left), Math.round(r.top), Math.round(r.width), Math.round(r.height)]; })]"""


def test_debian_chromium_lays_pages_out_as_the_headless_shell_the_tests_drive(example_site, browser):
    """The suite's browser (conftest.CHROMIUM, Debian's chromium-headless-shell) and the browser a
    person opens (Debian's `chromium`) place every heading, table, chart and figure of a report's
    pages at the same pixels, at a phone's width and a desktop's, in both schemes, with no console
    error in either."""
    from conftest import CHROMIUM, CHROMIUM_ARGS, DEBIAN_CHROMIUM, need_browser, watched_page

    need_browser(DEBIAN_CHROMIUM)
    pages = [example_site / "index.html", example_site / "reports" / "cuteafd-v4.0.0" / "speed.html",
             example_site / "reports" / "vllm-tp4pp2-ib-aa" / "latency.html"]
    views = [(1280, "light"), (390, "dark")]

    def layouts(b) -> dict:
        out = {}
        for width, scheme in views:
            context = b.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
            pg = watched_page(context)
            for path in pages:
                pg.goto(path.as_uri())
                pg.wait_for_selector("[data-figure].ready svg", timeout=10000) if pg.locator("[data-figure]").count() else None
                out[path.name, width, scheme] = pg.evaluate(LAYOUT_JS)
            assert pg.errors == [], pg.errors
            context.close()
        return out

    shell = layouts(browser)
    full = browser.browser_type.launch(executable_path=DEBIAN_CHROMIUM, headless=True, args=CHROMIUM_ARGS)
    try:
        person = layouts(full)
    finally:
        full.close()
    assert all(len(v) > 10 for v in shell.values()), {k: len(v) for k, v in shell.items()}
    for key in shell:
        assert person[key] == shell[key], (key, CHROMIUM, [(a, b) for a, b in zip(person[key], shell[key]) if a != b][:5])
