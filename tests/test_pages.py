"""The example site's pages, parsed as HTML: what a reader sees, where the seed report shows it."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from conftest import ROOT, SEED_TOOL, need_seed_tool
from htmlutil import NS, find_id, parse, tables, text

REPORT = "reports/cuteafd-v4.0.0"


@pytest.fixture(scope="module")
def overview(example_site):
    return parse(example_site / REPORT / "index.html")


def test_seed_figures_all_found(example_site):
    need_seed_tool()
    result = subprocess.run([sys.executable, str(SEED_TOOL), str(example_site)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout
    assert "61 of 61 found" in result.stdout


def test_precision_rows_show_measured_difference(overview):
    t = tables(overview)["precision-table"]
    pb = [r for r in t if r and r[0] == "KL, P-B generated, top-20"][0]
    # The receipt's paired difference (+0.0036), not 0.0477 - 0.0444.
    assert pb[1:] == ["0.0444", "0.0477", "+0.0036", "[+0.0020, +0.0051]", "resolved", "further"]
    top1 = [r for r in t if r and r[0] == "Top-1 agreement, P-A"]
    assert top1[0][3] == "\u22120.35 pts" and top1[1][4] == "[\u22120.72, \u22120.37]"
    groups = [r[0] for r in t if len(r) == 1]
    assert groups == ["K3.25", "K4"]


def test_speed_summary_counts_ranges_ttft(overview):
    t = tables(overview)["speed-summary"]
    assert t[0] == ["Summary", "K3.25", "K4"]
    by_label = {r[0]: r[1:] for r in t[1:]}
    assert by_label["Speed cells, aggregate of 22"] == ["▲ 19 faster · ● 3 level · ▼ 0 slower", "▲ 22 faster · ● 0 level · ▼ 0 slower"]
    assert by_label["Decode, one stream"] == ["1.06–1.46x", "1.07–1.42x"]
    assert by_label["Time to first token 128K input; CuteAFD vs vLLM fork"] == ["19.8 s vs 34.9 s", "20.0 s vs 36.3 s"]


def test_memory_and_reference(overview):
    t = tables(overview)["memory-table"]
    assert t[2] == ["KV pool, CuteAFD v4.0.0 tokens", "5,799,424 1.22x", "1,931,264 1.40x"]
    assert t[3][1:] == ["348 / 349 s", "292 / 313 s"]
    assert "K4 on CuteAFD v3.0.1 held 447,488 tokens; v4.0.0 holds 4.3x that." in text(overview)


def test_long_outputs_columns_are_complete_arms(overview):
    t = tables(overview)["long-outputs-table"]
    assert t[0][1:] == ["K4 vLLM (10-27)", "K4 CuteAFD v4 r1", "K4 CuteAFD v4 r2", "K4-Core-K6 v4 r1", "K4-Core-K6 v4 r2"]
    assert t[2] == ["Finished within 32K", "12", "17", "18", "11", "13"]
    assert t[5][1:] == ["51,343", "39,377", "35,407", "46,417", "41,913"]
    assert "At 8K, 139 of 144 capped replies (6 arms) were still thinking" in text(overview)


def test_lede_figures_come_from_data_and_checks_pass(overview):
    lede = [el for el in overview.iter(f"{NS}div") if el.get("class") == "lede"][0]
    assert "faster or level in every speed cell" in text(lede)
    assert "holds 1.2–1.4x the context" in text(lede)
    spans = [el for el in lede.iter(f"{NS}span") if el.get("class") in ("fig", "check")]
    assert len(spans) >= 4 and all(el.get("title") for el in spans)
    assert not list(lede.iter(f"{NS}mark")), "a checked statement failed on the example data"


def test_missing_engine_is_said_not_nan(example_site):
    for page in (example_site / REPORT).glob("*.html"):
        assert not re.search(r">\s*(nan|NaN|None)\s*<", page.read_text()), page.name
    doc = parse(example_site / REPORT / "checkpoints.html")
    section = find_id(doc, "checkpoint-k4-core-k6")
    assert section is not None
    body = text(doc)
    assert "Not run on tpurtell's vLLM fork: v0.9.2 does not run it." in body


def test_every_section_page_in_nav_and_marked_current(example_site):
    for name in ("index", "precision", "speed", "memory", "long-outputs", "versions", "tool-calling", "checkpoints", "numbers"):
        doc = parse(example_site / REPORT / f"{name}.html")
        nav = [el for el in doc.iter(f"{NS}nav") if el.get("class") == "sidenav"][0]
        links = [(a.get("href"), a.get("aria-current")) for a in nav.iter(f"{NS}a")]
        assert len(links) == 9
        assert [h for h, cur in links if cur == "page"] == [f"{name}.html"]


def test_links_are_relative(example_site):
    for page in example_site.rglob("*.html"):
        for href in re.findall(r'(?:href|src)="([^"]+)"', page.read_text()):
            assert not href.startswith("/"), (page, href)
            assert "://" not in href or href.startswith(("http://", "https://", "data:")), (page, href)


def test_downloads_summary_and_csv(example_site):
    receipt = example_site / REPORT / "SUMMARY.json"
    assert receipt.read_bytes() == (ROOT / "data/cuteafd-v4.0.0/SUMMARY.json").read_bytes()
    csv = (example_site / REPORT / "csv/speed-counts.csv").read_text().splitlines()
    assert csv[0].startswith("checkpoint,metric,faster,level,slower,cells")
    assert "K4,aggregate,22,0,0,22" in csv


def test_script_only_on_chart_pages_and_served_locally(example_site):
    speed = (example_site / REPORT / "speed.html").read_text()
    scripts = re.findall(r'<script src="([^"]+)"', speed)
    # The page script (tooltips, scroll hints) and the chart, drawn with no library.
    assert len(scripts) == 2 and "/page." in scripts[0] and "/sitegen." in scripts[1]
    assert all(not s.startswith("http") for s in scripts)
    for s in scripts:
        assert (example_site / REPORT / s).resolve().is_file()
    overview = (example_site / REPORT / "index.html").read_text()
    assert re.findall(r'<script src="([^"]+)"', overview) == scripts[:1]  # no chart, no chart script


def test_speed_chart_spec_has_fixed_scale_and_band(example_site):
    doc = parse(example_site / REPORT / "speed.html")
    spec = json.loads(next(e for e in doc.iter() if e.get("data-figure") == "figure-k4").get("data-spec"))
    assert spec["layout"]["xaxis"]["range"] == [0.8, 1.8]
    band = [s for s in spec["layout"]["shapes"] if s.get("meta") == "band"][0]
    assert (band["x0"], band["x1"]) == pytest.approx((0.92, 1.08))
    points = sum(len(t["x"]) for t in spec["data"])
    assert points == 44
    caption = list(find_id(doc, "chart-k4").iter(f"{NS}figcaption"))[0]
    assert "22 of 22 aggregate cells faster" in text(caption) and "aggregate, 32K–128K input: 1.38–1.66x" in text(caption)


def test_speed_cell_bars_match_verdicts(example_site):
    doc = parse(example_site / REPORT / "speed.html")
    table = find_id(doc, "cells-k3-25-decode")
    svgs = [el for el in table.iter() if str(el.tag).endswith("}svg") and "ratio-bar" in el.get("class", "")]
    assert len(svgs) == 22
    classes = [s.get("class") for s in svgs]
    assert classes.count("ratio-bar v-level") == 7 and classes.count("ratio-bar v-faster") == 15
    labels = [s.get("aria-label") for s in svgs]
    assert "0.98x, level" in labels


def test_clipped_ratio_is_marked(tmp_path):
    from site_gen.render import charts

    bar = charts.ratio_bar(2.4, "faster", (0.8, 1.8), 0.08)
    assert bar["clipped_high"] and not bar["clipped_low"] and bar["at"] == bar["width"]
    assert "beyond the scale" in bar["label"]
    low = charts.ratio_bar(0.5, "slower", (0.8, 1.8), 0.08)
    assert low["clipped_low"] and not low["clipped_high"] and low["bar_x"] == 0


def test_stable_anchors(overview):
    for ident in ("what-was-tested", "precision", "speed", "memory-and-startup", "long-outputs", "versions",
                  "tool-calling", "not-covered", "numbers", "precision-table", "speed-summary"):
        assert find_id(overview, ident) is not None, ident


def test_precision_page_says_when_sides_come_from_different_days(example_site):
    import json as _json

    receipt = _json.loads((ROOT / "data/cuteafd-v4.0.0/SUMMARY.json").read_text())
    paired = [r for r in receipt["precision"]["results"] if "baseline" in r and "candidate" in r]
    differ = sum(r["baseline"]["date"] != r["candidate"]["date"] for r in paired)
    assert differ > 0
    body = text(parse(example_site / REPORT / "precision.html"))
    assert f"In {differ} of {len(paired)} pairs the two receipts are from different days" in body
