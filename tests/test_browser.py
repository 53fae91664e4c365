"""The example site in Chromium: pages load with no console error, the chart draws, themes apply."""
from __future__ import annotations

REPORT = "reports/cuteafd-v4.0.0"


def test_overview_loads_without_errors(example_site, page):
    page.goto((example_site / REPORT / "index.html").as_uri())
    assert page.locator("h1").inner_text() == "CuteAFD v4.0.0 against tpurtell's vLLM fork"
    assert page.locator("#precision-table tbody tr").count() == 10
    assert page.errors == []


def test_speed_page_draws_plotly_chart(example_site, page):
    page.goto((example_site / REPORT / "speed.html").as_uri())
    page.wait_for_selector("#chart-k4 .plotly.ready .main-svg", timeout=20000)
    # Plotly drew one point per cell and metric.
    assert page.locator("#chart-k4 .scatterlayer .point").count() == 44
    # The text fallback hides once the chart is drawn.
    assert not page.locator("#chart-k4 .chart-fallback").is_visible()
    assert page.errors == []


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
