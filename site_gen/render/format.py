"""Numbers as the seed report prints them: `+0.0017`, `−0.35 pts`, `1.06–1.46x`, `5,799,424`, `47.5K`.

Negative numbers use U+2212 (minus), ranges U+2013 (en dash). NaN and None print as an em dash,
so a missing value never shows up as "nan".
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

from site_gen.analysis.units import tokens_k
from site_gen.analysis.verdict import verdict_of

MINUS = "\u2212"
DASH = "\u2013"
MISSING = "\u2014"
# What a page says where a schema 1.1 receipt leaves out a figure schema 1 required.
NOT_MEASURED = "not measured"


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _minus(text: str) -> str:
    return text.replace("-", MINUS)


def fixed(value: Any, digits: int = 4) -> str:
    if _missing(value):
        return MISSING
    text = f"{value:.{digits}f}"
    if float(text) == 0:
        text = text.lstrip("-")
    return _minus(text)


def signed(value: Any, digits: int = 4) -> str:
    if _missing(value):
        return MISSING
    text = f"{value:+.{digits}f}"
    if float(text) == 0:
        return text[1:]
    return _minus(text)


def interval(low: Any, high: Any, digits: int = 4) -> str:
    if _missing(low) or _missing(high):
        return MISSING
    return f"[{signed(low, digits)}, {signed(high, digits)}]"


def percent(value: Any, digits: int = 2) -> str:
    return MISSING if _missing(value) else f"{fixed(value, digits)}%"


def points(value: Any, digits: int = 2) -> str:
    return MISSING if _missing(value) else f"{signed(value, digits)} pts"


def ratio(value: Any, digits: int = 2) -> str:
    return MISSING if _missing(value) else f"{fixed(value, digits)}x"


# A speed ratio prints with two decimals, or with as many more as it takes for the printed number
# to fall on the same side of the noise band's edge as the ratio itself: 1.081 against a band of
# ±8% is faster, and "1.08x" would read as level (the edge counts as level), so it prints "1.081x".
SPEED_DIGITS, MAX_SPEED_DIGITS = 2, 12  # twelve: the decimals the verdict rounds its distance to


# Each ratio is printed on several pages (its table row, its bar's label, the chart's hover text),
# and finding its digits asks the verdict rule up to ten times: each answer is kept.
@lru_cache(maxsize=1 << 14)
def speed_digits(value: float, band: float, digits: int = SPEED_DIGITS) -> int:
    """The fewest decimals, from `digits`, whose printed ratio has the verdict of `value`."""
    truth = verdict_of(value, band)
    while digits < MAX_SPEED_DIGITS and verdict_of(float(f"{value:.{digits}f}"), band) != truth:
        digits += 1
    return digits


@lru_cache(maxsize=1 << 14)
def speed_ratio(value: Any, band: float, digits: int = SPEED_DIGITS) -> str:
    """A candidate / baseline speed ratio as every page, card and summary prints it: `1.08x`, `1.081x`."""
    return MISSING if _missing(value) else ratio(value, speed_digits(value, band, digits))


def speed_ratio_range(low: Any, high: Any, band: float, digits: int = SPEED_DIGITS) -> str:
    """`0.92–1.081x`: each end printed by `speed_ratio`'s rule; one value when both print the same."""
    if _missing(low) or _missing(high):
        return MISSING
    a = fixed(low, speed_digits(low, band, digits))
    b = fixed(high, speed_digits(high, band, digits))
    return f"{a}x" if a == b else f"{a}{DASH}{b}x"


def significant(value: Any, digits: int = 4) -> str:
    """`0.04288`, `−0.0005733`, `1.562`: `digits` significant digits, a negative with U+2212."""
    return MISSING if _missing(value) else _minus(f"{value:.{digits}g}")


def side_ratio(value: Any, digits: int = SPEED_DIGITS) -> str:
    """A ratio whose side of 1 matters (a KV pool against another): `digits` decimals, more where
    they would print 1 for a value that is not 1 (`1.04x`, not `1.0x`; `0.996x`, not `1.00x`)."""
    return speed_ratio(value, 0.0, digits)


def side_ratio_range(low: Any, high: Any) -> str:
    return speed_ratio_range(low, high, 0.0)


def number_range(low: Any, high: Any, digits: int = 2, suffix: str = "") -> str:
    """`1.06–1.46x`; one value when both ends print the same."""
    if _missing(low) or _missing(high):
        return MISSING
    a, b = fixed(low, digits), fixed(high, digits)
    return f"{a}{suffix}" if a == b else f"{a}{DASH}{b}{suffix}"


def ratio_range(low: Any, high: Any, digits: int = 2) -> str:
    return number_range(low, high, digits, "x")


def count_range(low: Any, high: Any) -> str:
    return number_range(low, high, 0)


def thousands(value: Any) -> str:
    return MISSING if _missing(value) else _minus(f"{round(value):,}")


def seconds(value: Any, digits: int = 1) -> str:
    return MISSING if _missing(value) else f"{fixed(value, digits)} s"


def seconds_pair(first: Any, second: Any) -> str:
    """Cold / warm startup: `348 / 349 s`."""
    if _missing(first) or _missing(second):
        return MISSING
    return f"{fixed(first, 0)} / {fixed(second, 0)} s"


def kilo(value: Any, digits: int = 1) -> str:
    """Token counts in thousands: `47.5K`; below a thousand the count itself (`0`, not `0.0K`)."""
    if _missing(value):
        return MISSING
    return thousands(value) if abs(value) < 1000 else f"{fixed(value / 1000, digits)}K"


def measure_value(value: Any, unit: str) -> str:
    return percent(value) if unit == "percent" else fixed(value, 4)


def measure_difference(value: Any, unit: str) -> str:
    return points(value) if unit == "percent" else signed(value, 4)


def measure_interval(low: Any, high: Any, unit: str) -> str:
    return interval(low, high, 2 if unit == "percent" else 4)


def verdicts(counts) -> str:
    """`N faster · N level · N slower`: a count of verdicts (a mapping or row with those keys), as every page words it."""
    return f"{counts['faster']} faster \u00b7 {counts['level']} level \u00b7 {counts['slower']} slower"


FILTERS = {
    "fixed": fixed, "signed": signed, "percent": percent, "points": points, "ratio": ratio,
    "thousands": thousands, "seconds": seconds, "kilo": kilo, "tokens_k": tokens_k,
}


# CSV files: a measured value keeps the receipt's digits, a computed ratio is rounded to this many
# decimals and its column's header says so.
RATIO_DECIMALS = 4


def csv_number(value: float) -> float | int:
    """`8192`, not `8192.0`; `1.07`, not `1.0699999999999998` (12 significant digits hold every
    receipt's own digits and drop the noise of arithmetic on them). NaN stays NaN (an empty cell)."""
    if not math.isfinite(value):
        return value
    if value == int(value) and abs(value) < 1e15:
        return int(value)
    return float(f"{value:.12g}")


def _rounded(values):
    """`values` to RATIO_DECIMALS. Rounding scales up, which overflows to inf near the float limit:
    a value too large to carry those decimals anyway is kept as it is (and NaN stays NaN)."""
    import numpy as np  # here: the dashboard's and history's process formats numbers without a frame
    import pandas as pd

    if values.dtype != np.float64:
        small = values.abs() < 1e15
        if small.all():
            return values.round(RATIO_DECIMALS)
        out = values.copy()
        out[small] = values[small].round(RATIO_DECIMALS)
        return out
    # On the array: what Series.round does (numpy's round), without three Series on the way.
    a = values.to_numpy()
    with np.errstate(invalid="ignore"):
        small = np.abs(a) < 1e15
    out = np.round(a, RATIO_DECIMALS) if small.all() else np.where(small, np.round(np.where(small, a, 0.0), RATIO_DECIMALS), a)
    return pd.Series(out, index=values.index, name=values.name)


def csv_ratios(frame, *columns: str):
    """`frame` with the computed ratio `columns` rounded to RATIO_DECIMALS, headed `ratio (4 decimals)`."""
    present = [c for c in columns if c in frame.columns]
    out = frame.assign(**{c: _rounded(frame[c]) for c in present})  # a new frame: its labels are its own
    # Relabelled in place: `rename` costs several times as much on a small table.
    out.columns = [f"{c} ({RATIO_DECIMALS} decimals)" if c in present else c for c in out.columns]
    return out
