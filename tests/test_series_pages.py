"""The nightly series on the site's pages (issue 55): the dashboard row of a series' newest report
names its change ("changed at night07 (2025-05-07): -8.5% [-9.5, -7.5]"), checked against levels
computed here from the receipts' own stated figures."""
from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import numpy as np
from scipy import stats

from site_gen.cli import main as sitegen

ROOT = Path(__file__).resolve().parent.parent
NIGHTLY = sorted((ROOT / "data").glob("vllm-nightly-*"))
STEP_AT = 6   # data/construct_series.py: nights 7 to 10 are made slower


def _project(tmp: Path, folders: list[Path], docs: dict[str, str] | None = None) -> Path:
    for f in folders:
        shutil.copytree(f, tmp / "data" / f.name)
    (tmp / "mkdocs.yml").write_text("site_name: Nightly\nplugins:\n  - sitegen:\n      data_dir: data\n")
    for name, text in (docs or {}).items():
        (tmp / "docs").mkdir(exist_ok=True)
        (tmp / "docs" / name).write_text(text)
    return tmp / "mkdocs.yml"


def _stated(folder: Path, key: str) -> float:
    receipt = json.loads((folder / "SUMMARY.json").read_text())
    (point,) = receipt["serving"]["sides"]["candidate"]["load_points"]
    (repeat,) = point["repeats"]
    return next(s["value"] for s in repeat["stated"] if s["key"] == key)


def _change(values: np.ndarray) -> str:
    """The change of the geometric mean from nights 1-6 to nights 7-10 and Student's t interval on
    the logarithms, as the dashboard words it (percent, one decimal)."""
    a, b = np.log(values[:STEP_AT]), np.log(values[STEP_AT:])
    dof = a.size + b.size - 2
    sp = np.sqrt(((a.size - 1) * a.var(ddof=1) + (b.size - 1) * b.var(ddof=1)) / dof)
    half = stats.t.ppf(0.975, dof) * sp * np.sqrt(1 / a.size + 1 / b.size)
    d = b.mean() - a.mean()
    return "{:+.1f}% [{:+.1f}, {:+.1f}]".format(*(100 * np.expm1(x) for x in (d, d - half, d + half)))


def _rows(site: Path) -> dict[str, list[str]]:
    """Each dashboard row's report link -> its change lines."""
    page = (site / "index.html").read_text()
    out = {}
    for row in re.findall(r"<tr><th scope=\"row\".*?</th>", page, re.S):
        link = re.search(r'href="([^"]+)"', row).group(1)
        out[link.split("/")[-2]] = [html.unescape(x) for x in re.findall(r'<span class="sub series-change">(.*?)</span>', row)]
    return out


def test_the_dashboard_row_of_the_newest_night_names_each_change(tmp_path):
    config = _project(tmp_path / "p", NIGHTLY)
    assert sitegen(["build", "-q", "-f", str(config), "-d", str(tmp_path / "site"), "--no-cache"]) == 0
    rows = _rows(tmp_path / "site")
    assert len(rows) == 10 and all(not lines for rid, lines in rows.items() if rid != "vllm-nightly-10")
    lines = rows["vllm-nightly-10"]
    for figure, key in (("output throughput", "output_throughput"), ("median TPOT", "median_tpot_ms"),
                        ("p99 TPOT", "p99_tpot_ms")):
        expected = _change(np.array([_stated(f, key) for f in NIGHTLY]))
        line = next(x for x in lines if x.startswith(figure + " "))
        assert line.endswith(f": changed at night07 (2025-05-07): {expected}"), line
