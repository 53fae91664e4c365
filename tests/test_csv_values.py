"""CSV files hold numbers as measured: the receipt's digits, integers as integers, computed ratios
rounded to a stated number of decimals (the header says how many)."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from site_gen.render import format as fmt
from site_gen.render.pages import csv_bytes

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
