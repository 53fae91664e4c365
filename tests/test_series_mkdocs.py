"""The nightly series inside MkDocs (issue 55): a project of the ten illustrative nights built with
`mkdocs build` (the sitegen plugin) in MkDocs' default theme and in Material for MkDocs, and with
`sitegen build`. The dashboard block names each series' change on its newest report's row in the
same words as `sitegen build`'s (one code path: building/assembly.py `rows_of`); the `series`
block draws each figure with its table and a sentence per change that says what `sitegen history
--changes --format json` says, its levels recomputed here with numpy from the receipts' figures."""
from __future__ import annotations

import html
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from conftest import ROOT, sitegen_here

pytestmark = pytest.mark.slow  # the whole file: left out of the quick loop (tests/run.sh --quick)

NIGHTLY = sorted((ROOT / "data").glob("vllm-nightly-*"))
SERIES = "vllm-nightly-illustrative"
STEP_AT = 6   # data/construct_series.py: nights 7 to 10 are made slower

DASHBOARD = "# Nightly\n\n```sitegen\nblock: dashboard\n```\n"
TONIGHT = f"# Tonight\n\nEvery figure of the series:\n\n```sitegen\nblock: series\nseries: {SERIES}\n```\n"
THEMES = {"mkdocs": "", "material": "theme:\n  name: material\n  features: [navigation.instant]\n"}


def _project(root: Path, theme: str) -> Path:
    for f in NIGHTLY:
        shutil.copytree(f, root / "data" / f.name)
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "index.md").write_text(DASHBOARD)
    (root / "docs" / "tonight.md").write_text(TONIGHT)
    (root / "mkdocs.yml").write_text(f"site_name: Nightly\n{THEMES[theme]}plugins:\n  - sitegen:\n      data_dir: data\n")
    return root


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Each theme's `mkdocs build --strict` (two processes at once), `sitegen build` of the same
    project, and `sitegen history --changes --format json` of its receipts."""
    if importlib.util.find_spec("material") is None and not os.environ.get("CI"):
        pytest.skip("mkdocs-material not installed (pip install -e '.[test]')")
    root = tmp_path_factory.mktemp("series-mkdocs")
    runs = {}
    for theme in THEMES:
        project = _project(root / theme, theme)
        runs[theme] = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", "mkdocs.yml", "-d", "site"], cwd=project,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    own = root / "mkdocs"
    done = sitegen_here("build", "-q", "-f", "mkdocs.yml", "-d", str(root / "sitegen-site"), "--no-cache", cwd=own)
    assert done.returncode == 0, done.stderr
    printed = sitegen_here("history", "--changes", "--format", "json", "--fail-on", "never", "--no-cache",
                           "-f", "mkdocs.yml", cwd=own)
    assert printed.returncode == 0, printed.stderr
    for theme, run in runs.items():
        _, err = run.communicate(timeout=600)
        assert run.returncode == 0, f"{theme}: {err}"
    sites = {"sitegen": root / "sitegen-site", **{theme: root / theme / "site" for theme in THEMES}}
    return sites, json.loads(printed.stdout)


def _stated(folder: Path, key: str) -> float:
    receipt = json.loads((folder / "SUMMARY.json").read_text())
    (point,) = receipt["serving"]["sides"]["candidate"]["load_points"]
    (repeat,) = point["repeats"]
    return next(s["value"] for s in repeat["stated"] if s["key"] == key)


def _levels(values: np.ndarray, at: int) -> tuple[float, float, str]:
    """The geometric means before and after `at`, and the change with Student's t interval on the
    logarithms (pooled variance), as the pages word it: "+11.7% [+10.5, +13.0]"."""
    a, b = np.log(values[:at]), np.log(values[at:])
    dof = a.size + b.size - 2
    sp = np.sqrt(((a.size - 1) * a.var(ddof=1) + (b.size - 1) * b.var(ddof=1)) / dof)
    half = stats.t.ppf(0.975, dof) * sp * np.sqrt(1 / a.size + 1 / b.size)
    d = b.mean() - a.mean()
    words = "{:+.1f}% [{:+.1f}, {:+.1f}]".format(*(100 * np.expm1(x) for x in (d, d - half, d + half))).replace("-", "\u2212")
    return float(np.exp(a.mean())), float(np.exp(b.mean())), words


def _rows(page: Path) -> dict[str, list[str]]:
    """Each dashboard row's report (from its link) -> the change lines the row names."""
    out = {}
    for row in re.findall(r'<tr><th scope="row".*?</th>', page.read_text(), re.S):
        link = re.search(r'href="([^"]+)"', row).group(1).removesuffix("index.html").rstrip("/")
        out[link.rsplit("/", 1)[-1]] = [html.unescape(x) for x in
                                        re.findall(r'<span class="sub series-change">(.*?)</span>', row)]
    return out


def test_the_hosted_dashboard_names_each_change_as_sitegen_build_does(built):
    sites, _ = built
    reference = _rows(sites["sitegen"] / "index.html")
    assert len(reference) == 10 and reference["vllm-nightly-10"]
    expected = _levels(np.array([_stated(f, "median_tpot_ms") for f in NIGHTLY]), STEP_AT)[2]
    assert f"median TPOT at sharegpt · 4 req/s: changed at night07 (2025-05-07): {expected}" in reference["vllm-nightly-10"]
    assert all(not lines for rid, lines in reference.items() if rid != "vllm-nightly-10")
    for theme in THEMES:
        assert _rows(sites[theme] / "index.html") == reference, theme


def _figures(page: Path) -> dict[str, str]:
    """Each series figure of a page by the figure it draws ("median TPOT")."""
    text = page.read_text()
    return {re.search(r"<figcaption><strong>(.*?)</strong>", f).group(1): f
            for f in re.findall(r'<figure class="series-figure".*?</figure>', text, re.S)}


def _number(text: str) -> float:
    return float(text.split()[0].replace(",", ""))


@pytest.mark.parametrize("theme", THEMES)
def test_the_series_block_draws_what_history_changes_prints(built, theme):
    sites, printed = built
    page = sites[theme] / "tonight" / "index.html"
    figures = _figures(page)
    series = [s for s in printed["series"] if s["declared"] == SERIES]
    assert len(series) >= 3 and set(figures) == {s["figure"] for s in series}
    changed = 0
    for s in series:
        figure = figures[s["figure"]]
        # The chart (a dot per night) and its table: each night's figure, each linking to its report.
        assert figure.count("<circle") == len(s["points"]) == 10
        body = figure.split("<tbody>", 1)[1]
        rows = re.findall(r'<tr><th scope="row"><a href="([^"]+)">([^<]+)</a></th>\s*<td[^>]*>([^<]+)</td>'
                          r'\s*<td class="num"[^>]*>([^<]+)</td>', body)
        assert [(name, date) for _, name, date, _ in rows] == [(p["commit"], p["date"]) for p in s["points"]]
        assert np.allclose([_number(v) for *_, v in rows], [p["value"] for p in s["points"]], rtol=1e-3)
        for (link, *_), p in zip(rows, s["points"]):
            target = (page.parent / link).resolve()
            assert (target if target.suffix else target / "index.html") == (sites[theme] / "reports" / p["report"]
                                                                            / "index.html").resolve()
        # A sentence per change, with its interval, levels and p, as the JSON gives them.
        items = [html.unescape(re.sub(r"<[^>]+>", "", li)).strip()
                 for li in re.findall(r"<li>(.*?)</li>", figure.split('<ul class="series-changes">', 1)[-1]
                                      .split("</ul>", 1)[0], re.S)] if s["changes"] else []
        assert len(items) == len(s["changes"])
        for li, c in zip(items, s["changes"]):
            changed += 1
            glyph = "▼" if c["direction"] == "worse" else "▲"
            assert li.startswith(f"{glyph} {c['status'].capitalize()}, {c['direction']}: {c['text']} (")
            got = re.search(r"([+\u2212][\d.]+)% \[([+\u2212][\d.]+), ([+\u2212][\d.]+)\]", li)
            assert got and np.allclose([float(x.replace("\u2212", "-")) for x in got.groups()],
                                       [100 * c["change"], 100 * c["low"], 100 * c["high"]], atol=0.051)
            before, after = re.search(r"\(([\d,.]+) \S+ → ([\d,.]+) ", li).groups()
            assert np.isclose(_number(before), c["before"], rtol=1e-3) and np.isclose(_number(after), c["after"], rtol=1e-3)
            assert f"p = {c['pvalue']:.2g};" in li and f"{c['points_after']} points on the new level" in li
            assert c["text"] in html.unescape(re.search(r'aria-label="([^"]*)"', figure).group(1))
    assert changed >= 3
    # Independently: median TPOT's levels and change from the receipts' own figures, with numpy.
    tpot = next(s for s in series if s["figure"] == "median TPOT")
    (c,) = tpot["changes"]
    assert c["index"] == STEP_AT and c["report"] == "vllm-nightly-07"
    before, after, words = _levels(np.array([_stated(f, "median_tpot_ms") for f in NIGHTLY]), STEP_AT)
    assert np.isclose(c["before"], before, rtol=1e-9) and np.isclose(c["after"], after, rtol=1e-9)
    li = html.unescape(re.sub(r"<[^>]+>", "", figures["median TPOT"].split('<ul class="series-changes">', 1)[1]))
    assert f"changed at night07 (2025-05-07): {words} ({before:,.2f} ms → {after:,.2f} ms;" in li


def test_the_series_reads_at_a_phones_width_and_from_the_start_in_material(built, browser):
    """In a browser, at 390 and 1280 px: the chart's names of builds are at least 8 px tall and never
    overlap (the newest always named), and Material (which centres a figure's content) leaves the
    series' sentences aligned to the start."""
    sites, _ = built
    for theme in THEMES:
        for width in (390, 1280):
            context = browser.new_context(viewport={"width": width, "height": 900})
            page = context.new_page()
            page.route("http*://**", lambda route: route.abort())  # offline: a theme's web fonts are not fetched
            page.goto((sites[theme] / "tonight" / "index.html").as_uri())
            for figure in page.locator("figure.series-figure").all():
                boxes = [t.bounding_box() for t in figure.locator("text.sc-x").all()]
                names = figure.locator("text.sc-x").all_text_contents()
                assert names[-1] == "night10" and all(b["height"] >= 8 for b in boxes), (theme, width, boxes)
                assert all(a["x"] + a["width"] <= b["x"] for a, b in zip(boxes, boxes[1:])), (theme, width, names, boxes)
                for what in ("figcaption", ".series-changes li"):
                    if not figure.locator(what).count():
                        continue  # a series without a change
                    align = figure.locator(what).first.evaluate("e => getComputedStyle(e).textAlign")
                    assert align in ("start", "left"), (theme, width, what, align)
            context.close()
