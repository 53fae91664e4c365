"""The nightly series on the site's pages (issue 55): the dashboard row of a series' newest report
names its change ("changed at night07 (2025-05-07): −8.5% [−9.5, −7.5]"), checked against levels
computed here from the receipts' own stated figures."""
from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import numpy as np
from scipy import stats

import pytest

from site_gen.cli import main as sitegen

pytestmark = pytest.mark.slow  # the whole file: left out of the quick loop (tests/run.sh --quick)

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
    return "{:+.1f}% [{:+.1f}, {:+.1f}]".format(*(100 * np.expm1(x) for x in (d, d - half, d + half))).replace("-", "\u2212")


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


PAGE = """# Tonight

```sitegen
block: series
series: vllm-nightly-illustrative
figure: median TPOT
```
"""


def _table(figure: str) -> list[tuple[str, str, float]]:
    """The block's text equivalent: (link, build, value) of each row of its table."""
    body = figure.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return [(link, name, float(value.split()[0].replace(",", "")))
            for link, name, value in re.findall(r'<tr><th scope="row"><a href="([^"]+)">([^<]+)</a></th><td[^>]*>[^<]*</td>'
                                                r'<td class="num"[^>]*>([^<]+)</td>', body)]


def test_a_docs_page_draws_a_series_block_with_its_chart_and_its_table(tmp_path, capsys):
    config = _project(tmp_path / "p", NIGHTLY, {"index.md": "# Home\n", "tonight.md": PAGE})
    site = tmp_path / "site"
    assert sitegen(["build", "-q", "-f", str(config), "-d", str(site), "--no-cache"]) == 0
    page = next(p for p in site.rglob("*.html") if "<h1" in p.read_text() and "Tonight" in p.read_text()
                and 'data-block="series"' in p.read_text())
    text = page.read_text()
    (figure,) = re.findall(r'<figure class="series-figure".*?</figure>', text, re.S)
    # The chart: one dot per night, and its text alternative names the change.
    svg = re.search(r"<svg.*?</svg>", figure, re.S).group(0)
    values = np.array([_stated(f, "median_tpot_ms") for f in NIGHTLY])
    expected = f"changed at night07 (2025-05-07): {_change(values)}"
    assert svg.count("<circle") == 10 and expected in html.unescape(re.search(r'aria-label="([^"]*)"', svg).group(1))
    # Its text equivalent: every night's median TPOT as the receipt states it, each linking to its report.
    rows = _table(figure)
    assert [name for _, name, _ in rows] == [f"night{i:02d}" for i in range(1, 11)]
    assert np.allclose([v for _, _, v in rows], values, atol=0.006)
    for (link, _, _), folder in zip(rows, NIGHTLY):
        assert (page.parent / link).resolve() == (site / "reports" / folder.name / "index.html").resolve()
    assert expected in html.unescape(figure.split("<ul class=\"series-changes\">", 1)[1])


def test_a_series_block_naming_no_series_says_which_there_are(tmp_path, capsys):
    config = _project(tmp_path / "p", NIGHTLY, {"index.md": "# Home\n",
                                                  "tonight.md": PAGE.replace("figure: median TPOT", "figure: median TPT")})
    assert sitegen(["build", "-q", "-f", str(config), "-d", str(tmp_path / "site"), "--no-cache"]) == 1
    err = capsys.readouterr().err
    assert "tonight.md" in err and "line 6" in err and "no figure 'median TPT'" in err and "did you mean 'median TPOT'" in err


# -- a stated dataset names the workload ------------------------------------------------------------

RUN = (ROOT.parent / "shared" / "real2" / "vllm-bench/llm-k8s/results_serving_meta-llama-Llama-3.3-70B-Instruct/03_tp4_pp2_IB/"
       "serving_meta-llama-Llama-3.3-70B-Instruct_tp4_pp2_sharegpt_qps_04.json")


def _import(tmp: Path, doc: dict, *sets: str) -> tuple[int, Path]:
    src, out = tmp / "run.json", tmp / "data" / "r"
    src.write_text(json.dumps(doc))
    config = _project(tmp, []) if not (tmp / "mkdocs.yml").exists() else tmp / "mkdocs.yml"
    args = ["import", "vllm-bench", "--candidate", str(src), "-f", str(config), "-o", str(out), "-q", "--force"]
    for s in sets:
        args += ["--set-candidate", s]
    return sitegen(args), out / "SUMMARY.json"


def test_a_stated_dataset_names_the_workload_of_a_file_that_records_none(tmp_path, capsys):
    doc = json.loads(RUN.read_text())
    assert "dataset_name" not in doc   # as vLLM's --save-result wrote it: the dataset is in the file name only
    code, receipt = _import(tmp_path, doc, "dataset=sharegpt")
    assert code == 0
    got = json.loads(receipt.read_text())
    (point,) = got["serving"]["sides"]["candidate"]["load_points"]
    assert point["workload"] == "sharegpt"
    assert {"label": "Workloads", "text": "sharegpt"} in got["report"]["tested"]
    # Without it the file's workload is unrecorded, as before.
    code, receipt = _import(tmp_path, doc)
    assert code == 0 and json.loads(receipt.read_text())["serving"]["sides"]["candidate"]["load_points"][0]["workload"] \
        == "unrecorded workload"
    # A stated dataset the file contradicts is refused at the file's field.
    capsys.readouterr()
    code, _ = _import(tmp_path, {**doc, "dataset_name": "random"}, "dataset=sharegpt")
    err = capsys.readouterr().err
    assert code == 1 and "run.json" in err and "$.dataset_name" in err and "'random'" in err
    assert _import(tmp_path, {**doc, "dataset_name": "sharegpt"}, "dataset=sharegpt")[0] == 0
