"""CSV files hold numbers as measured: the receipt's digits, integers as integers, computed ratios
rounded to a stated number of decimals (the header says how many)."""
from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
from hypothesis import given, settings, strategies as st

from site_gen.render import format as fmt
from site_gen.render.csv import csv_bytes

REPORT = "reports/cuteafd-v4.0.0"


def test_float_noise_and_integral_floats_are_written_as_measured():
    frame = pd.DataFrame({"low": [1.0699999999999998, 0.1 + 0.2], "high": [1.4000000000000001, 59.731],
                          "median": [8192.0, np.nan], "tiny": [0.00005, 1e-07], "label": ["a", "b"]})
    assert csv_bytes(frame).decode() == "low,high,median,tiny,label\n1.07,1.4,8192,5e-05,a\n0.3,59.731,,1e-07,b\n"


def test_ratios_are_rounded_and_their_header_says_so():
    frame = fmt.csv_ratios(pd.DataFrame({"checkpoint": ["A"], "ratio": [5799424 / 4762898]}), "ratio", "absent")
    assert csv_bytes(frame).decode() == "checkpoint,ratio (4 decimals)\nA,1.2176\n"


def test_example_csv_files_carry_no_float_noise(example_site):
    folder = example_site / REPORT / "csv"
    noise = re.compile(r"(?<![\w.])\d+\.\d*(?:0000\d|9999\d)|\d\.0(?=,|$)", re.M)
    for path in sorted(folder.glob("*.csv")):
        text = path.read_text()
        assert not noise.search(text), (path.name, noise.search(text).group(0))
    assert (folder / "kv-pool.csv").read_text().splitlines()[:2] == [
        "checkpoint,baseline,candidate,ratio (4 decimals)", "K3.25,4762898,5799424,1.2176"]
    assert ",8192,8192," in (folder / "long-outputs.csv").read_text()


def test_a_ratio_too_large_for_its_decimals_is_written_as_measured_not_inf():
    """pandas rounds by scaling up: near the float limit that overflowed to inf."""
    frame = fmt.csv_ratios(pd.DataFrame({"ratio": [1.23456789, 1e306, float("nan")]}), "ratio")
    assert frame.iloc[:, 0].tolist()[:2] == [1.2346, 1e306]


@given(st.lists(st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([1e15, -1e15, 0.5e-4, 1.00005, -0.0]),
                min_size=1, max_size=8))
@settings(max_examples=100, deadline=None)
def test_ratios_round_as_pandas_rounds_them_and_keep_what_has_no_room(values):
    """The ratio columns' rounding, on the array: each value is pandas' own `round` of it where it is
    below 1e15, the value itself beyond (and NaN stays NaN); the frame keeps its index and names."""
    frame = pd.DataFrame({"ratio": values, "other": range(len(values))}, index=[f"r{i}" for i in range(len(values))])
    got = fmt.csv_ratios(frame, "ratio")
    rounded = got.iloc[:, 0]
    for value, out in zip(values, rounded.tolist()):
        expected = pd.Series([value]).round(fmt.RATIO_DECIMALS)[0] if abs(value) < 1e15 else value
        assert out == expected or (math.isnan(out) and math.isnan(expected)), (value, out, expected)
    assert rounded.dtype == np.float64 and got.index.equals(frame.index) and got["other"].tolist() == list(range(len(values)))
