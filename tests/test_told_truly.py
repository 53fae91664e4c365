"""Printed ratios agree with their verdicts; code and templates hold none of the example's story."""
from __future__ import annotations

import re

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ROOT
from site_gen.sections.speed import analysis as speed
from site_gen.render import charts
from site_gen.render import format as fmt

BAND = 0.08


@pytest.mark.parametrize("value, printed, verdict", [
    # above the upper edge, on it, and below it
    (1.081, "1.081x", "faster"), (1.0805, "1.081x", "faster"), (1.0800001, "1.0800001x", "faster"),
    (1.08, "1.08x", "level"), (1.0799, "1.08x", "level"), (1.085, "1.09x", "faster"), (1.09, "1.09x", "faster"),
    # below the lower edge, on it, and above it
    (0.919, "0.919x", "slower"), (0.9199999, "0.9199999x", "slower"),
    (0.92, "0.92x", "level"), (0.9201, "0.92x", "level"), (0.915, "0.915x", "slower"), (0.91, "0.91x", "slower"),
    # far from an edge: two decimals
    (1.0801, "1.0801x", "faster"), (0.9199, "0.9199x", "slower"), (1.079999, "1.08x", "level"),
    # far from an edge: two decimals
    (1.46, "1.46x", "faster"), (0.7, "0.70x", "slower"), (1.0, "1.00x", "level"), (0.5, "0.50x", "slower"),
    (2.5, "2.50x", "faster"),
])
def test_a_ratio_prints_the_digits_its_verdict_needs(value, printed, verdict):
    """The band's edges are level (the one band-edge table: the scalar rule, the column rule, the print)."""
    assert speed.verdict_of(value, BAND) == verdict
    assert speed.verdict(pd.Series([value]), BAND).iloc[0] == verdict
    shown = fmt.speed_ratio(value, BAND)
    assert shown == printed
    assert speed.verdict_of(float(shown[:-1]), BAND) == verdict


@settings(max_examples=150, deadline=None)
@given(st.floats(0.01, 100, allow_nan=False), st.sampled_from([0.0, 0.02, 0.05, 0.08, 0.1, 0.125, 0.3]))
def test_every_printed_ratio_has_the_verdict_of_its_value(value, band):
    shown = fmt.speed_ratio(value, band)
    assert speed.verdict_of(float(shown[:-1]), band) == speed.verdict_of(value, band)
    # The scalar rule is the rule of the whole column.
    assert speed.verdict(pd.Series([value]), band).iloc[0] == speed.verdict_of(value, band)


def test_a_range_prints_each_end_by_the_rule():
    assert fmt.speed_ratio_range(0.919, 1.081, BAND) == "0.919–1.081x"
    assert fmt.speed_ratio_range(0.92, 1.08, BAND) == "0.92–1.08x"
    assert fmt.speed_ratio_range(1.081, 1.0812, BAND) == "1.081x"


@pytest.mark.parametrize("low, high, kind", [
    (1.09, 1.5, "above"), (0.93, 1.07, "within"), (0.5, 0.91, "below"),
    (1.06, 1.46, "straddles"), (0.7, 1.02, "straddles"), (0.5, 2.5, "straddles"),
    (1.081, 1.2, "above"), (0.8, 0.919, "below"), (0.92, 1.08, "within"),
])
def test_a_range_bar_says_where_its_span_lies(low, high, kind):
    bar = charts.range_bar(low, high, (0.8, 1.8), BAND)
    assert bar["kind"] == kind


def test_a_range_beyond_both_ends_marks_both():
    bar = charts.range_bar(0.5, 2.5, (0.8, 1.8), BAND)
    assert bar["clipped_low"] and bar["clipped_high"] and "low and high end beyond the scale" in bar["label"]
    inside = charts.range_bar(0.9, 1.5, (0.8, 1.8), BAND)
    assert not inside["clipped_low"] and not inside["clipped_high"]


def test_range_bars_and_chart_metrics_do_not_wear_verdict_colours():
    css = (ROOT / "site_gen" / "static" / "sitegen.css").read_text(encoding="utf-8")
    rules = dict(re.findall(r"([^{}\n]+?)\s*\{([^}]*)\}", css))
    for selector in (".m-aggregate .point", ".m-decode .point", ".ratio-bar .clip", ".ratio-bar.r-straddles .bar",
                     ".forest .ci", ".forest .est"):
        assert selector in rules, selector
        assert not re.search(r"var\(--(faster|slower|level)\)", rules[selector]), (selector, rules[selector])
    assert "var(--faster)" in rules[".ratio-bar.r-above .bar"] and "var(--slower)" in rules[".ratio-bar.r-below .bar"]
    assert not any("range" in s and "var(--faster)" in body for s, body in rules.items() if ".r-above" not in s)
    js = (ROOT / "site_gen" / "static" / "plotly-charts.js").read_text(encoding="utf-8")
    assert not re.search(r"(aggregate|decode): v\(\"--(faster|slower|level)\"\)", js)


# The example's story: its engines, checkpoints, panels, arm labels and headline window.
EXAMPLE_WORDS = re.compile(r"\bK3\.25\b|\bK4\b|\bP-A\b|\br2\b|\b32K[–-]128K\b|\bvLLM\b|\bCuteAFD\b")
# An importer names the harness whose files it reads (vLLM's serving benchmark): that word alone is
# allowed there.
IMPORTER_WORDS = re.compile(r"\bK3\.25\b|\bK4\b|\bP-A\b|\br2\b|\b32K[–-]128K\b|\bCuteAFD\b")


def test_code_and_templates_know_nothing_of_the_example():
    found = []
    for folder, pattern in (("site_gen", "*.py"), ("site_gen", "*.html"), ("site_gen", "*.js"), ("site_gen", "*.css")):
        for path in sorted((ROOT / folder).rglob(pattern)):
            words = IMPORTER_WORDS if path.parent == ROOT / "site_gen" / "importers" else EXAMPLE_WORDS
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if words.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()[:100]}")
    assert found == []
