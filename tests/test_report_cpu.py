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


def _fraction(text: str):
    """The number printed at the start of `text`, exactly (an oracle: fractions, no Decimal)."""
    import re
    from fractions import Fraction

    m = re.search(r"[+\-\u2212]?(?:\d[\d,]*)?\.?\d+(?:[eE][+\-\u2212]?\d+)?", text)
    if not m:
        return None, 0
    number = m.group(0).replace(",", "").replace("\u2212", "-")
    mantissa = number.split("e")[0].split("E")[0]
    return Fraction(number), (len(mantissa.split(".")[1]) if "." in mantissa else 0)


def _half_up(x, shown: int):
    """x rounded to `shown` decimals, a tie away from zero."""
    from fractions import Fraction

    scaled = abs(x) * 10 ** shown
    whole = int(scaled)
    if scaled - whole >= Fraction(1, 2):
        whole += 1
    return (whole if x >= 0 else -whole) / Fraction(10) ** shown


def _agrees_oracle(first: str, second: str, compared: str, scale: str, band: float) -> bool:
    from fractions import Fraction

    (a, _), (b, _), (c, shown) = _fraction(first), _fraction(second), _fraction(compared)
    if a is None or b is None or c is None:
        return True
    if scale == "ratio":
        if a <= 0:
            return False
        edge = Fraction(repr(float(band)))
        side = lambda x: 0 if abs(x - 1) <= edge else (1 if x > 1 else -1)  # noqa: E731
        return _half_up(b / a, shown) == c and side(b / a) == side(c)
    if scale == "relative":
        return a != 0 and _half_up((b / a - 1) * 100, shown) == c
    return _half_up(b - a, shown) == c


def test_agrees_and_pair_read_figures_as_exact_fractions_do():
    """format.agrees (its comparison read once for pair_more's tries) against rounding worked out in
    fractions, on figures near ties and band edges, negative, zero, grouped and suffixed."""
    import random

    from site_gen.render import format as fmt

    rng = random.Random(67)
    texts = ["", "\u2014", "nan", "0", "0.0", "-0.35", "\u22120.35 pts", "1,234.5", "1.081x", "0.92x", "1.08x",
             "+0.4%", "\u22121.25%", "12", "1e-05", "2.5E+3", "0.000050"]
    checked = 0
    for _ in range(3000):
        scale = rng.choice(["ratio", "difference", "relative"])
        band = rng.choice([0.0, 0.08, 0.05, 0.1])
        if rng.random() < 0.3:
            first, second, compared = (rng.choice(texts) for _ in range(3))
        else:
            x = rng.choice([1, 10, 1000, 0.001]) * rng.uniform(0.5, 2)
            y = x * rng.choice([1 + band, 1 - band, 1.0, rng.uniform(0.8, 1.3)])
            digits = rng.randint(0, 4)
            first, second = fmt.grouped(x, digits), fmt.grouped(y, digits)
            if scale == "ratio":
                compared = fmt.speed_ratio(y / x, band)
            elif scale == "relative":
                compared = f"{(y / x - 1) * 100:+.{rng.randint(0, 2)}f}%"
            else:
                compared = fmt.signed(y - x, rng.randint(0, 4))
        assert fmt.agrees(first, second, compared, scale, band) == _agrees_oracle(first, second, compared, scale, band), \
            (first, second, compared, scale, band)
        checked += 1
    assert checked == 3000
    # pair: its figures agree with the comparison (where they can), checked by the oracle.
    for _ in range(500):
        x = rng.uniform(0.001, 5000)
        y = x * rng.uniform(0.85, 1.2)
        compared = fmt.speed_ratio(y / x, 0.08)
        a, b = fmt.pair(x, y, 1, compared, band=0.08)
        assert _agrees_oracle(a, b, compared, "ratio", 0.08), (x, y, a, b, compared)


def test_a_link_into_the_pages_own_folder_is_what_relpath_makes():
    """where._relpath's shortcut for a target in the page's folder or below it (a report's pages
    and CSV files) against posixpath.relpath, with '.', empty and non-ASCII parts."""
    import posixpath
    import random

    from site_gen.render.where import _relpath

    parts = ["reports", "report-0001", "csv", "speed.html", "né ☃.csv", "", ".", "a b", "index.html"]
    rng = random.Random(1)
    for _ in range(5000):
        start = "/".join(rng.choice(parts) for _ in range(rng.randint(1, 3)))
        target = start + "/" + "/".join(rng.choice(parts) for _ in range(rng.randint(1, 3)))
        if target.startswith("/") or start.startswith("/"):
            continue
        assert _relpath(target, start) == posixpath.relpath(target, start), (target, start)


def test_a_bars_band_and_one_are_placed_on_its_scale_as_computed_afresh():
    """charts._marks (kept per scale and band) against the positions worked out for each bar."""
    import random

    from site_gen.render import charts

    def x(v: float, low: float, high: float) -> float:
        return round((min(max(v, low), high) - low) / (high - low) * 200.0, 2)

    rng = random.Random(3)
    for _ in range(2000):
        low = rng.choice([0.8, 0.5, 0.0, 0.95, rng.uniform(0, 1)])
        high = rng.choice([1.8, 1.2, 3.0, 100000.0, low + rng.uniform(0.01, 2)])
        band = rng.choice([0.0, 0.08, 0.05, 0.5, rng.uniform(0, 1)])
        ratio = rng.uniform(low - 0.5, high + 0.5)
        for bar in (charts.ratio_bar(ratio, "level", (low, high), band), charts.range_bar(ratio, ratio + 0.1, (low, high), band)):
            assert bar["one"] == x(1.0, low, high)
            assert bar["band_x"] == x(1.0 - band, low, high)
            assert bar["band_w"] == round(x(1.0 + band, low, high) - x(1.0 - band, low, high), 2)


def test_every_page_of_a_report_names_its_sides_as_views_engines_does():
    """ReportPages makes the report's `engines` once; each page's context has them as made afresh."""
    from site_gen.analysis.report import analyse
    from site_gen.core.config import load_config
    from site_gen.receipts.load import load_report
    from site_gen.render import views
    from site_gen.render.pages import ReportPages

    config = load_config(ROOT / "mkdocs.yml")
    for folder in [f for f in sorted((ROOT / "data").iterdir()) if (f / "SUMMARY.json").is_file()][:3]:
        a = analyse(load_report(folder, ROOT / "data"))
        pages = ReportPages(a, config, []).pages()
        assert len(pages) > 3 and all(p.context["engines"] == views.engines(a) for p in pages), folder.name
