"""Figures on built pages lead back to their receipt value or to how they were computed."""
from __future__ import annotations

import json
import re

import pytest

from conftest import ROOT
from htmlutil import NS, cell_text, parse

REPORT = "reports/cuteafd-v4.0.0"
NUMBER = re.compile(r"[+\u2212-]?\d[\d,]*(?:\.\d+)?")


def resolve(data, path: str):
    node = data
    for key, index in re.findall(r"\.(\w+)|\[(\d+)\]", path.lstrip("$")):
        node = node[int(index)] if index else node[key]
    return node


def numbers(text: str) -> list[float]:
    return [float(n.replace(",", "").replace("\u2212", "-")) for n in NUMBER.findall(text)]


def decimals(text: str) -> int:
    found = re.search(r"\.(\d+)", text)
    return len(found.group(1)) if found else 0


@pytest.fixture(scope="module")
def receipt():
    return json.loads((ROOT / "data/cuteafd-v4.0.0/SUMMARY.json").read_text())


def spans(site, name):
    doc = parse(site / REPORT / name)
    return [el for el in doc.iter(f"{NS}span") if "fig" in (el.get("class") or "").split()]


def test_measured_figures_match_their_receipt_field(example_site, receipt):
    checked = 0
    for el in spans(example_site, "index.html"):
        path = el.get("data-source")
        if not path:
            continue
        shown = cell_text(el)
        if path.endswith(".cold_s and .warm_s"):
            record = resolve(receipt, path.split(".cold_s")[0])
            values = [record["cold_s"], record["warm_s"]]
        else:
            value = resolve(receipt, path)
            values = value if isinstance(value, list) else [value]
        got = numbers(shown)
        assert len(got) == len(values), (path, shown)
        tolerance = 0.5 * 10 ** -decimals(shown) + 1e-12
        for g, v in zip(got, values):
            assert abs(g - v) <= tolerance, (path, shown, v)
        assert "SUMMARY.json " + path in el.get("title")
        checked += 1
    assert checked >= 30


def test_computed_counts_follow_their_rule(example_site, receipt):
    band = 0.08
    found = 0
    for el in spans(example_site, "index.html"):
        how = el.get("data-computed") or ""
        m = re.match(r"(\d+) (faster|level|slower): (\d+) (aggregate|clean decode) cells of (\S+),", how)
        if not m:
            continue
        n, verdict, total, metric, checkpoint = m.groups()
        metric = "decode" if metric == "clean decode" else metric
        ratios = [c["candidate"]["rate"] / c["baseline"]["rate"] for c in receipt["speed"]["cells"]
                  if c["checkpoint"] == checkpoint and c["metric"] == metric]
        recount = {"faster": sum(r > 1 + band + 1e-9 for r in ratios), "slower": sum(r < 1 - band - 1e-9 for r in ratios)}
        recount["level"] = len(ratios) - recount["faster"] - recount["slower"]
        assert int(total) == len(ratios)
        assert int(n) == recount[verdict] == int(cell_text(el)), how
        found += 1
    assert found == 12  # 2 checkpoints x 2 metrics x 3 verdicts


def test_numbers_page_lists_every_figure_with_source(example_site):
    doc = parse(example_site / REPORT / "numbers.html")
    table = [t for t in doc.iter(f"{NS}table") if t.get("id") == "provenance-table"][0]
    rows = [[cell_text(c) for c in tr] for tr in table.iter(f"{NS}tr")][1:]
    rows = [r for r in rows if len(r) == 2]  # a figure and its source (a section's heading row has one cell)
    sources = {r[1] for r in rows}
    assert any(s.startswith("$.precision.results[2].difference") for s in sources)
    assert any(s.startswith("computed: 19 faster: 22 aggregate cells of K3.25") for s in sources)
    shown = {r[0] for r in rows}
    assert {"+0.0036", "5,799,424", "1.22x", "51,343", "47.5K", "1.40–1.63x"} <= shown


def test_pages_end_with_receipt_hash_and_version(example_site):
    import hashlib
    import site_gen

    digest = hashlib.sha256((ROOT / "data/cuteafd-v4.0.0/SUMMARY.json").read_bytes()).hexdigest()
    for page in (example_site / REPORT).glob("*.html"):
        html = page.read_text()
        assert digest in html and f"sitegen {site_gen.__version__}" in html, page.name


def test_a_dense_figure_hovers_how_and_lists_where_it_was_read_from():
    """A dense figure's title is its few words of how; its source (the Numbers page's row, a full
    title) adds what it was read from; a record's round trip keeps both; Parts keep each figure's own."""
    from site_gen.building import environment
    from site_gen.render.provenance import Fig, Parts, collect

    f = Fig("56.4", how="p50 of 200 measured TTFTs (numpy linear percentile)", detail="in $.serving.x.ttft_ms", dense=True)
    html = f.__html__()
    assert 'title="computed: p50 of 200 measured TTFTs (numpy linear percentile)"' in html and "$.serving" not in html
    assert "tabindex" not in html
    assert f.source == "computed: p50 of 200 measured TTFTs (numpy linear percentile); in $.serving.x.ttft_ms"
    back = json.loads(json.dumps(environment._encode({"f": f})), object_hook=environment._decoded)["f"]
    assert (back.text, back.how, back.detail) == (f.text, f.how, f.detail)
    both = Parts([Fig("1", how="a"), " of ", Fig("2", how="b")])
    assert str(both) == "1 of 2" and both.__html__().count('class="fig"') == 2
    found: list = []
    collect({"x": both}, found)
    assert [g.text for g in found] == ["1", "2"]
