"""Numbers as the seed report prints them: `+0.0017`, `−0.35 pts`, `1.06–1.46x`, `5,799,424`, `47.5K`.

Negative numbers use U+2212 (minus), ranges U+2013 (en dash). NaN and None print as an em dash,
so a missing value never shows up as "nan".
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal, localcontext
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


def _decimals(value: float, digits: int) -> str:
    """`value` with `digits` decimals (ASCII minus), rounded as a reader rounds the number as written
    (its decimal: what a receipt holds, or what a ratio of two such is): halfway, away from zero.
    Python's format rounds the binary value instead, a tie to even: 120.5 → `120`, 95.25 → `95.2`,
    and 0.975 (a binary value just below) → `0.97`. The decimal is taken to fifteen
    significant digits, all a double holds for sure: a ratio of two written figures, 9.75e-06 / 1e-05,
    computes as 0.9749999999999999, one unit of the last place off the 0.975 they print as."""
    text = f"{value:.{digits}f}"
    scaled = abs(value) * 10.0 ** digits
    # Near halfway (within what the binary value and this product can be off by): ask the decimal.
    if math.isfinite(scaled) and abs(scaled - math.floor(scaled) - 0.5) <= 1e-6 + 1e-15 * scaled:
        written = Decimal(format(float(value), ".15g"))  # numpy's scalars repr as np.float64(...)
        with localcontext() as ctx:
            ctx.prec = max(28, written.adjusted() + digits + 2)
            text = format(written.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP), "f")
    return text


def fixed(value: Any, digits: int = 4) -> str:
    if _missing(value):
        return MISSING
    text = _decimals(value, digits)
    if float(text) == 0:
        text = text.lstrip("-")
    return _minus(text)


def grouped(value: Any, digits: int = 1) -> str:
    """`1,234.5`: `digits` decimals, rounded as `fixed` rounds, thousands separated."""
    if _missing(value):
        return MISSING
    text = fixed(value, digits)
    if not math.isfinite(value):
        return text
    sign = text[0] if text[0] == MINUS else ""
    whole, _, frac = text.lstrip(MINUS).partition(".")
    return f"{sign}{int(whole):,}" + (f".{frac}" if frac else "")


def signed(value: Any, digits: int = 4) -> str:
    if _missing(value):
        return MISSING
    # Rounded as `fixed` rounds (a tie away from zero, on the number as written): 0.25 → `+0.3`.
    text = _decimals(value, digits)
    if float(text) == 0:
        return text.lstrip("-+")
    return _minus(text if text.startswith("-") else "+" + text)


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
    while digits < MAX_SPEED_DIGITS and verdict_of(float(_decimals(value, digits)), band) != truth:
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
    """Cold / warm startup: `348 / 349 s` (whole seconds, as every output prints a startup time)."""
    if _missing(first) or _missing(second):
        return MISSING
    return f"{fixed(first, STARTUP_DIGITS)} / {fixed(second, STARTUP_DIGITS)} s"


# A startup time prints in whole seconds on every page, summary, history mark and comparison (the
# seed report's `348 / 349 s`); a comparison adds decimals only where its pair needs them (`pair`).
STARTUP_DIGITS = 0


# -- a pair of figures beside their comparison ------------------------------------------------------
# Two figures printed beside their ratio or difference must not contradict it: two values printed
# equal beside a ratio that is not 1.00x, or ordered against it, or whose ratio a reader computes
# on the other side of the noise band from the printed verdict. One rule for every such pair: its
# figures take the fewest decimals, from their kind's own, at which the figures as printed give the
# comparison as printed (the same text at the comparison's decimals, and for a ratio the same side
# of the band). The comparison's own digits are its rule's (`speed_ratio`: the verdict's).

_NUMBER = re.compile(r"[+\-\u2212]?(?:\d[\d,]*)?\.?\d+(?:[eE][+\-\u2212]?\d+)?")
# Decimals added at most: enough for a figure of a millionth printed with one decimal to show its
# digits, and for two figures of fifteen significant digits to read as their floats.
MAX_MORE_DIGITS = 24


def read(text: str) -> float:
    """The number a reader reads at the start of a printed figure: `1,234.5` → 1234.5, `−0.35 pts`
    → -0.35, `1.081x` → 1.081 (NaN where there is none)."""
    m = _NUMBER.search(text)
    return float(m.group(0).replace(",", "").replace(MINUS, "-")) if m else math.nan


def _decimals_of(number: str) -> int:
    return len(number.split(".", 1)[1].split("e")[0].split("E")[0]) if "." in number else 0


def places(text: str) -> int:
    """The decimals a printed number shows."""
    m = _NUMBER.search(text)
    return _decimals_of(m.group(0)) if m else 0


def _exact(text: str) -> Decimal | None:
    m = _NUMBER.search(text)
    return Decimal(m.group(0).replace(",", "").replace(MINUS, "-")) if m else None


def _reading(text: str) -> tuple[Decimal, int] | None:
    """`_exact` and `places` of a printed comparison, read once."""
    m = _NUMBER.search(text)
    return (Decimal(m.group(0).replace(",", "").replace(MINUS, "-")), _decimals_of(m.group(0))) if m else None


@lru_cache(maxsize=64)
def _edge(band: float) -> Decimal:
    return Decimal(repr(float(band)))


def _side(x: Decimal, edge: Decimal) -> int:
    return 0 if abs(x - 1) <= edge else (1 if x > 1 else -1)


def agrees(first: str, second: str, compared: str, scale: str = "ratio", band: float = 0.0) -> bool:
    """Whether two printed figures give the comparison printed beside them, as a reader works it out
    from the digits shown (in decimal, a tie rounded away from zero): `second / first` (scale
    "ratio") prints as `compared` does at its decimals and lies on its side of the band (1 ± band,
    edges level); `second − first` (scale "difference") and `second / first − 1` in percent (scale
    "relative", `+0.4%`) print as `compared` does."""
    return _agrees(first, second, _reading(compared), scale, band)


def _agrees(first: str, second: str, compared: tuple[Decimal, int] | None, scale: str, band: float) -> bool:
    """`agrees`, the comparison read already (`_reading`): `pair_more` asks of one comparison
    with each number of decimals it tries."""
    a, b = _exact(first), _exact(second)
    if a is None or b is None or compared is None:
        return True  # nothing printed to contradict
    c, shown = compared
    unit = Decimal(1).scaleb(-shown)
    top = 0  # the largest exponent of the three, for the precision below
    for x in (a, b, c):
        if x != 0 and x.adjusted() > top:
            top = x.adjusted()
    with localcontext() as ctx:
        # Enough digits for the whole of any quotient or difference of these at the compared decimals.
        ctx.prec = 60 + shown + top
        if scale == "ratio":
            if a <= 0:
                return False
            got = b / a
            edge = _edge(band)
            return got.quantize(unit, ROUND_HALF_UP) == c and _side(got, edge) == _side(c, edge)
        if scale == "relative":
            return a != 0 and ((b / a - 1) * 100).quantize(unit, ROUND_HALF_UP) == c
        return (b - a).quantize(unit, ROUND_HALF_UP) == c


def nonzero_digits(value: Any, digits: int) -> int:
    """The fewest decimals, from `digits`, at which a value that is not zero does not print as zero
    (a change called better or worse is never printed `+0.0`)."""
    start = digits
    while not _missing(value) and value != 0 and digits < start + MAX_MORE_DIGITS and float(_decimals(value, digits)) == 0:
        digits += 1
    return digits


def useful_more(values: tuple[float, ...], digits: int) -> int:
    """The most decimals worth adding to figures printed with `digits`: up to where a float has no
    more significant digits (sixteen), at most MAX_MORE_DIGITS."""
    found = [abs(v) for v in values if math.isfinite(v) and v != 0]
    if not found:
        return 0
    return max(0, min(MAX_MORE_DIGITS, 16 - math.floor(math.log10(min(found))) - digits))


def pair_more(show: Callable[[int], tuple[str, str]], compared: str, scale: str = "ratio", band: float = 0.0,
              most: int = MAX_MORE_DIGITS) -> int:
    """The fewest decimals to add to a pair of figures (`show(more)` prints them) so that they agree
    with the comparison printed beside them (`agrees`); `most` at most (then as many: where the
    figures cannot agree, more digits would not help)."""
    reading = _reading(compared)  # read once, checked against each number of decimals tried
    more = 0
    while more < most and not _agrees(*show(more), reading, scale, band):
        more += 1
    return more if more < most or _agrees(*show(more), reading, scale, band) else 0


def pair(first: Any, second: Any, digits: int, compared: str, scale: str = "ratio", band: float = 0.0,
         grouping: bool = True) -> tuple[str, str]:
    """Two figures (`first` the baseline or older one) with at least `digits` decimals, and as many
    more as the comparison printed beside them needs (`pair_more`): `0.646 | 0.651 | 1.01x`, not
    `0.6 | 0.7 | 1.01x`; `0.000001 | 0.000050 | 50.00x`, not `0.0 | 0.0 | 50.00x`."""
    if _missing(first) or _missing(second):
        return (MISSING if _missing(first) else (grouped if grouping else fixed)(first, digits),
                MISSING if _missing(second) else (grouped if grouping else fixed)(second, digits))
    out = grouped if grouping else fixed
    shown: dict[int, tuple[str, str]] = {}  # each number of decimals printed once: `pair_more` asks, then we return it

    def show(k: int) -> tuple[str, str]:
        got = shown.get(k)
        if got is None:
            got = shown[k] = (out(first, digits + k), out(second, digits + k))
        return got

    return show(pair_more(show, compared, scale, band, useful_more((first, second), digits)))


def kilo(value: Any, digits: int = 1) -> str:
    """Token counts in thousands: `47.5K`; below a thousand the count itself (`0`, not `0.0K`)."""
    if _missing(value):
        return MISSING
    return thousands(value) if abs(value) < 1000 else f"{fixed(value / 1000, digits)}K"


def measure_value(value: Any, unit: str) -> str:
    return percent(value) if unit == "percent" else fixed(value, 4)


def measure_pair(baseline: Any, candidate: Any, difference: str, unit: str) -> tuple[str, str]:
    """A precision measure's two values as printed beside their difference (`measure_value`'s
    digits, and more where they would contradict it: `pair`)."""
    digits = 2 if unit == "percent" else 4
    a, b = pair(baseline, candidate, digits, difference, "difference", grouping=False)
    return (a + "%", b + "%") if unit == "percent" and a != MISSING and b != MISSING else (a, b)


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
