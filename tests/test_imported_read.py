"""Imported reports read (issue 28): the speed chart's row labels name what tells its rows apart and
its axis labels never collide; forest-plot labels are never cut at the chart's edge. Checked in
Chromium on the example's imported report and on a receipt with a long checkpoint name."""
from __future__ import annotations

import html
import json
import re

import pytest

import truly

PROBE = "reports/ledger-serving-probe-kpoolfix/speed.html"

BOXES = """(selector) => [...document.querySelectorAll(selector)].map(t => {
  const b = t.getBoundingClientRect(), svg = t.ownerSVGElement.getBoundingClientRect();
  const text = [...t.childNodes].filter(n => n.nodeType === 3).map(n => n.nodeValue).join("");  // not its <title>
  return {text: text, left: b.left - svg.left, right: b.right - svg.left, width: svg.width,
          top: b.top, bottom: b.bottom};
})"""


def test_the_chart_labels_name_what_tells_the_rows_apart(example_site):
    """The labels read "gr… · input not measured · ×1": a part every row shares crowded out the workload."""
    page = (example_site / PROBE).read_text(encoding="utf-8")
    spec = json.loads(html.unescape(re.search(r"data-spec='([^']*)'", page).group(1)))
    y = spec["layout"]["yaxis"]
    assert y["ticktext"] == ["greedy_run1 · 1 stream", "sampled_c1 · 1 stream", "sampled_c8 · 8 streams"]
    # The full label (every part) stays each point's hover text and names its table row.
    assert all(" · input not measured · ×" in v for v in y["tickvals"])


@pytest.mark.slow
@pytest.mark.parametrize("width", [1280, 390, 300])
def test_the_chart_draws_whole_labels_and_ticks_that_do_not_collide(example_site, page, width):
    """Its axis labels collided ("0.81.0") on a narrow chart."""
    page.set_viewport_size({"width": width, "height": 900})
    page.goto((example_site / PROBE).as_uri())
    page.wait_for_selector("[data-figure].ready svg.chart-svg", timeout=20000)
    ticks = page.evaluate(BOXES, "svg.chart-svg .tick-label")
    assert len(ticks) >= 2
    for a, b in zip(ticks, ticks[1:]):
        assert a["right"] + 4 <= b["left"], (width, a, b)  # four pixels apart at least
    rows = page.evaluate(BOXES, "svg.chart-svg .row-labels text")
    assert len(rows) == 3 and all(r["left"] >= 0 for r in rows), rows
    if width >= 390:  # room for the whole short label
        assert sorted(r["text"] for r in rows) == ["greedy_run1 · 1 stream", "sampled_c1 · 1 stream", "sampled_c8 · 8 streams"]
    titles = page.evaluate(BOXES, "svg.chart-svg .axis-title")
    assert all(0 <= t["left"] and t["right"] <= t["width"] + 0.5 for t in titles), titles
    assert page.errors == []


@pytest.mark.slow
def test_forest_labels_are_never_cut(tmp_path, page):
    """The forest plot cut labels at its left edge ("n3-30b-a3b" of a longer checkpoint name)."""
    receipt = truly.winning()
    long_name = "Qwen3-30B-A3B-Instruct-2507-FP8"
    receipt["report"]["checkpoints"] = [{"id": long_name}, {"id": "Q4"}]
    extra = json.loads(json.dumps(receipt["precision"]["results"]))
    for r in extra:
        r["checkpoint"] = long_name
    receipt["precision"]["results"] += extra
    site = truly.build(tmp_path, {"long": receipt})
    page.goto((site / "reports" / "long" / "precision.html").as_uri())
    labels = page.evaluate(BOXES, ".forest .row-label")
    assert labels and all(b["left"] >= 0 for b in labels), labels
    # The long one is shortened at its end, with its whole name as its tooltip; the short one is whole.
    texts = {b["text"] for b in labels}
    assert "Q4" in texts and any(t.startswith("Qwen3-30B-A3B") and t.endswith("…") for t in texts), texts
    assert f"<title>{long_name}</title>" in (site / "reports" / "long" / "precision.html").read_text()
