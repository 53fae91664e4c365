"""A receipt that contradicts itself is refused at the JSON path of the figure at fault (issue 28):
a difference whose sign is against its two values, a difference or a value outside its own
interval, versions rows whose largest difference and interval cannot both be true."""
from __future__ import annotations

import pytest

import truly
from conftest import one_error_line


def _precision_row(receipt: dict, base: float, cand: float, diff: float, interval: list) -> dict:
    r = receipt["precision"]["results"][0]
    r["baseline"]["value"], r["candidate"]["value"], r["difference"], r["interval"] = base, cand, diff, interval
    return receipt


def test_a_precision_difference_against_its_values_is_refused(tmp_path):
    """0.0210 -> 0.0262 with a difference of -0.0052 was shown "resolved closer"."""
    bad = _precision_row(truly.winning(), 0.0210, 0.0262, -0.0052, [-0.0070, -0.0030])
    r = truly.check(tmp_path, bad)
    one_error_line(r.returncode, r.stderr, "$.precision.results[0].difference", "contradicts its two values",
                   "candidate 0.0262 minus baseline 0.021 is +0.0052")
    # The same values with the difference they give, and a zero difference, are accepted.
    assert truly.check(tmp_path / "ok", _precision_row(truly.winning(), 0.0210, 0.0262, 0.0052, [0.003, 0.007])).returncode == 0
    assert truly.check(tmp_path / "zero", _precision_row(truly.winning(), 0.0210, 0.0262, 0.0, [-0.001, 0.001])).returncode == 0


@pytest.mark.parametrize("change, where, words", [
    (lambda r: r.update(difference=-0.12), "$.accuracy.results[0].difference", "difference -0.12 lies outside its own interval [-0.09, -0.03]"),
    (lambda r: r["candidate"].update(value=0.68), "$.accuracy.results[0].candidate.value",
     "candidate value 0.68 lies outside its own interval [0.69, 0.79]"),
    (lambda r: r["baseline"].update(value=0.9), "$.accuracy.results[0].baseline.value", "baseline value 0.9 lies outside"),
    (lambda r: r.update(difference=0.05, interval=[0.01, 0.08]), "$.accuracy.results[0].difference",
     "contradicts its two values: candidate 0.74 minus baseline 0.8 is -0.06"),
])
def test_an_accuracy_figure_outside_its_interval_or_against_its_values_is_refused(tmp_path, change, where, words):
    receipt = truly.losing()
    change(receipt["accuracy"]["results"][0])
    r = truly.check(tmp_path, receipt)
    one_error_line(r.returncode, r.stderr, where, words)


def _versions(rows: list[dict]) -> dict:
    receipt = truly.winning()
    receipt["versions"] = {"previous": {"name": "NewEngine", "version": "0.9"}, "precision": rows}
    return receipt


@pytest.mark.parametrize("row, words", [
    ({"panel": "main", "checkpoint": "Q4", "max_abs_difference": 0, "interval": [-0.001, 0.002]},
     "max_abs_difference 0 says every value is bit-identical, but the interval [-0.001, 0.002] is not [0, 0]"),
    ({"panel": "main", "checkpoint": "Q4", "max_abs_difference": 0.001, "interval": [0.002, 0.004]},
     "the interval [0.002, 0.004] lies wholly beyond ±0.001"),
    ({"panel": "main", "checkpoint": "Q4", "max_abs_difference": 0.001, "interval": [-0.005, -0.003]}, "lies wholly beyond"),
])
def test_contradictory_versions_rows_are_refused(tmp_path, row, words):
    r = truly.check(tmp_path, _versions([row]))
    one_error_line(r.returncode, r.stderr, "$.versions.precision[0].interval", words)


def test_consistent_versions_rows_are_accepted(tmp_path):
    rows = [{"panel": "main", "checkpoint": "Q4", "max_abs_difference": 0, "interval": [0, 0]},
            {"panel": "other", "checkpoint": "Q4", "max_abs_difference": 0.004, "interval": [0.001, 0.006]}]
    r = truly.check(tmp_path, _versions(rows))
    assert r.returncode == 0, r.stderr
