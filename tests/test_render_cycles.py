"""Rendering a page leaves nothing to the cyclic garbage collector: Jinja's contexts (the page's and
those of templates imported `with context`) are emptied once it is rendered, so the page's figures
are freed at once rather than piling up until a collection scans them all."""
from __future__ import annotations

import gc
from collections import Counter
from pathlib import Path

from site_gen.analysis.report import analyse
from site_gen.core.config import load_config
from site_gen.receipts.load import load_report
from site_gen.render.assets import theme_assets
from site_gen.render.pages import ReportPages, render_page
from site_gen.render.provenance import Fig

ROOT = Path(__file__).resolve().parent.parent


def _garbage(make) -> Counter:
    """The types of the objects that `make()` left in reference cycles."""
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        make()
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        found = Counter(type(o).__name__ for o in gc.garbage)
        found["Fig"] = sum(isinstance(o, Fig) for o in gc.garbage)
        return found
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if enabled:
            gc.enable()


def test_rendering_a_reports_pages_leaves_no_cycles():
    config = load_config(ROOT / "mkdocs.yml")
    a = analyse(load_report(ROOT / "data" / "cuteafd-v4.0.0", ROOT / "data"))
    nav = [{"title": "Home", "url": "index.html"}, {"title": "Guide", "url": "guide.html",
                                                   "children": [{"title": "One", "url": "one.html"}]}]
    pages = ReportPages(a, config, nav).pages()
    assets = {k: v[0] for k, v in theme_assets(config).items()}
    assert len(pages) > 5
    html: list[bytes] = []
    found = _garbage(lambda: html.extend(render_page(p, config, nav, assets) for p in pages))
    assert all(html)
    # Before: ~1,300 figures, ~8 Jinja contexts and their macros, and the navigation's closures a report.
    assert found["Fig"] == 0
    assert found["Context"] == 0 and found["Macro"] == 0
    assert found["function"] == 0, found
