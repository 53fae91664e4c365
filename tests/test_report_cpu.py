"""The shortcuts that cut a report's CPU in a cold build give what the general path gives."""
from __future__ import annotations

import sys

import pytest

from conftest import ROOT
from site_gen.cli import main
from site_gen.render import sitenav
from site_gen.render.where import HISTORY_URL

sys.path.insert(0, str(ROOT / "benchmarks"))
from build import make_site  # noqa: E402  (the benchmark's project: copies of the example report)


def _nav(history_placed: bool) -> list[dict]:
    """A site's navigation as the builder makes it: its own entries, every report's, History."""
    guide = {"title": "Guide", "url": "guide/index.html", "report": None,
             "children": [{"title": "Start ☃", "url": "guide/index.html", "report": None},
                          {"title": "History", "url": HISTORY_URL, "report": None, "history": True}]
             if history_placed else [{"title": "Start ☃", "url": "guide/index.html", "report": None}]}
    reports = [{"title": f"Report <{i}>", "url": f"reports/r{i}/index.html", "report": f"r{i}"} for i in range(5)]
    return [{"title": "Home", "url": "index.html", "report": None}, *reports[:2], guide, *reports[2:],
            {"title": "Out", "url": "https://example.org/&", "report": None, "external": True},
            {"title": "History", "url": HISTORY_URL, "report": None}]


@pytest.mark.parametrize("placed", [False, True])
@pytest.mark.parametrize("url", ["reports/r1/speed.html", "guide/index.html", HISTORY_URL, "index.html"])
def test_a_page_shows_of_the_site_entries_alone_what_it_shows_of_the_whole_nav(placed, url):
    nav = _nav(placed)
    assert sitenav.shown([item for item in nav if not item.get("report")], url) == sitenav.shown(nav, url)


@pytest.mark.slow
def test_a_cold_build_renders_report_pages_with_the_site_entries_only(tmp_path, monkeypatch):
    """Each of a report's pages passes over the navigation's entries: given every report's, a site
    of n reports costs n² steps."""
    import site_gen.building.builder as builder
    import site_gen.building.workers as workers

    make_site(tmp_path / "p", 3)
    seen: list[list[dict]] = []
    render = workers.render_page

    def recording(page, config, site_nav, assets):
        seen.append(site_nav)
        return render(page, config, site_nav, assets)

    monkeypatch.setattr(builder, "workers_for", lambda *a, **k: 0)  # in this process, where it is watched
    monkeypatch.setattr(workers, "render_page", recording)
    assert main(["build", "-q", "-f", str(tmp_path / "p" / "mkdocs.yml"), "-d", str(tmp_path / "site"), "--no-cache"]) == 0
    assert len(seen) == 3 * 9
    assert all(site_nav and not any(item.get("report") for item in site_nav) for site_nav in seen)


def test_a_csv_column_read_in_one_search_finds_what_a_search_of_each_cell_finds():
    """csv._csv_cells searches a column's texts joined by \\n: a formula or a break is found there
    exactly when one cell holds it."""
    import random

    from site_gen.render.csv import _BREAKS, _FORMULA, _UNQUOTED_BREAK

    pieces = ["", " ", "\t", "\r", "\u00a0", "=1+2", "+", "-3", "@x", "a", "née", "☃", "<b>&", "nan", *_BREAKS]
    rng = random.Random(57)
    checked = {True: 0, False: 0}
    for _ in range(4000):
        cells = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 4))) for _ in range(rng.randint(0, 5))]
        for rule in (_FORMULA, _UNQUOTED_BREAK):
            each = any(rule.search(v) for v in cells)
            assert (rule.search("\n".join(cells)) is not None) == each, (rule.pattern, cells)
            checked[each] += 1
    assert min(checked.values()) > 1000  # both answers met often
