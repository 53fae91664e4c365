"""One truth for the serving sections (beside tests/test_one_truth_sections.py): for serving receipts
drawn here (sides of 30 to 200 requests, one to four load points, the candidate 0.7x to 1.3x the
baseline, paired or not, one run or repeated, failed requests and one-token replies), the latency
verdict counts are the same on the Latency page, in `sitegen summary` (JSON, text, markdown), on the
dashboard, in the meta description and in the CSV of every ratio; and, for one run a side, equal
to what numpy computes from the receipt's rows by the guide's recipe (tests/test_serving_pages.py)."""
from __future__ import annotations

import csv
import html
import io
import json
import re

import html5lib
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pytest

import htmlutil
import serving_receipts as sr
from site_gen import api
from test_serving_pages import expected_pair, load_label, shown_metrics

pytestmark = pytest.mark.slow  # the whole file: left out of the quick loop (tests/run.sh --quick)

VERDICTS = ("faster", "level", "slower", "not resolved")
CONFIG = "site_name: Serving truth\nsite_url: https://example.org/t/\nplugins:\n  - sitegen:\n      data_dir: data\n"


def without(c: dict) -> str:
    """`; 4 without an interval` (`all`), or nothing: the cells of a JSON count that have no interval."""
    none = c["no_interval"]["cells"]
    return f"; {'all' if none == c['cells'] else none} without an interval" if none else ""


def counts_text(c: dict, tail: bool = True) -> str:
    return " · ".join(f"{c[v]} {v}" for v in VERDICTS) + (without(c) if tail else "")


def expected(doc: dict) -> dict[str, dict[str, int]] | None:
    """Verdict counts per metric and in all, from numpy (one run a side only)."""
    sides = doc["serving"]["sides"]
    if any(len(lp["repeats"]) != 1 for s in sides.values() for lp in s["load_points"]):
        return None
    metrics, out = shown_metrics(doc), {}
    for m in doc["serving"]["matched"]:
        lb = next(lp for lp in sides["baseline"]["load_points"] if lp["id"] == m["baseline"])
        lc = next(lp for lp in sides["candidate"]["load_points"] if lp["id"] == m["candidate"])
        for (metric, _), e in expected_pair(lb["repeats"][0], lc["repeats"][0], m["paired"], metrics).items():
            for key in (metric, "all"):
                c = out.setdefault(key, dict.fromkeys((*VERDICTS, "cells"), 0))
                c[e["verdict"]] += 1
                c["cells"] += 1
    return out


@st.composite
def serving_receipts(draw) -> dict:
    repeats = draw(st.sampled_from([1, 1, 2]))
    n = draw(st.sampled_from([30, 60, 200]))
    return sr.pair(seed=draw(st.integers(0, 10_000)), n=n, points=draw(st.integers(1, 4)),
                   scale=draw(st.sampled_from([0.7, 0.95, 1.0, 1.05, 1.3])), repeats=repeats,
                   paired=draw(st.booleans()), failed=draw(st.integers(0, 3)), one_token=draw(st.integers(0, 3)))


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(doc=serving_receipts())
def test_the_latency_counts_are_one_truth_in_every_output(tmp_path_factory, doc):
    root = tmp_path_factory.mktemp("truth")
    sr.write(root / "data" / "r", doc)
    (root / "mkdocs.yml").write_text(CONFIG, encoding="utf-8")
    config = api.load_config(root / "mkdocs.yml")
    files = api.build_files(config).files
    js = json.loads(api.summary(config, "r", fmt="json"))["reports"][0]["serving"]
    text, markdown = (re.sub(r"[\s|]+", " ", api.summary(config, "r", fmt=f)) for f in ("text", "markdown"))

    # The page's table of counts: a row per metric and one for every cell.
    page = html5lib.parse(files["reports/r/latency.html"], treebuilder="etree", namespaceHTMLElements=True)
    table = htmlutil.tables(page)["latency-counts"]
    on_page = {row[0]: [int(v.split()[-1]) for v in row[1:6]] for row in table[1:]}
    metrics = list(js["by_metric"])
    assert len(on_page) == len(metrics) + 1
    every = js["latency"]
    assert on_page["Every latency cell"] == [every[k] for k in ("faster", "level", "slower", "not_resolved", "cells")]

    # The CSV of every ratio: one row a cell, its verdict as counted.
    rows = [r for r in csv.DictReader(io.StringIO(files["reports/r/csv/latency-ratios.csv"].decode())) if r["kind"] == "latency"]
    assert len(rows) == every["cells"] == len(js["cells"]) - sum(c["kind"] != "latency" for c in js["cells"])
    for key, c in [("all", every)] + [(m, js["by_metric"][m]) for m in metrics]:
        mine = [r for r in rows if key == "all" or r["metric"] == key]
        assert [sum(r["verdict"] == v for r in mine) for v in VERDICTS] == [c[k] for k in ("faster", "level", "slower", "not_resolved")]
    # The JSON's cells, counted, are its counts.
    lat = [c for c in js["cells"] if c["kind"] == "latency"]
    assert [sum(c["verdict"] == v for c in lat) for v in VERDICTS] == [every[k] for k in ("faster", "level", "slower", "not_resolved")]

    # The same words wherever the counts are said.
    every_ = {**every, "not resolved": every["not_resolved"]}
    said = counts_text(every_)
    home = html.unescape(files["index.html"].decode())
    overview = html.unescape(files["reports/r/index.html"].decode())
    description = re.search(r'<meta name="description" content="([^"]*)"', overview).group(1)
    assert said in home and f"Latency: {said}" in description
    line = f"Latency cells {counts_text(every_, tail=False)} (of {every['cells']}{without(every)})"
    assert line in text and line in markdown

    # One run a side: numpy's verdicts from the rows.
    want = expected(doc)
    if want is not None:
        assert [every[k] for k in ("faster", "level", "slower", "not_resolved", "cells")] == \
            [want["all"][v] for v in (*VERDICTS, "cells")]
        for m in metrics:
            got = js["by_metric"][m]
            assert [got[k] for k in ("faster", "level", "slower", "not_resolved", "cells")] == \
                [want[m][v] for v in (*VERDICTS, "cells")], m
    assert {load_label(lp) for lp in doc["serving"]["sides"]["candidate"]["load_points"]} == {c["load"] for c in js["cells"]}
