"""Digits that never contradict their neighbours (issue 51, item 5): two figures printed beside their
ratio or difference are printed with the digits that comparison needs (render/format.py `pair`), and
every number rounds as a reader rounds. Checked here by reading the printed text back, as a reader
would, with this file's own parsing and rounding (decimal.Decimal), over drawn values."""
from __future__ import annotations

import math
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from site_gen.render import format as fmt

BANDS = [0.0, 0.02, 0.05, 0.08, 0.1, 0.125]


def number(text: str) -> Decimal:
    """What a reader reads: thousands separators and the ratio's `x` dropped, U+2212 as a minus."""
    return Decimal(text.rstrip("x").replace(",", "").replace("\u2212", "-").split()[0])


def half_up(x: Decimal, places: int) -> Decimal:
    return x.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def places(text: str) -> int:
    body = text.rstrip("x").split()[0]
    return len(body.split(".")[1]) if "." in body else 0


def contradicts(a: str, b: str, shown: str, band: float, ratio: float) -> bool:
    """Whether two printed figures contradict the ratio printed beside them: equal beside a ratio
    that is not 1, ordered against it, or giving a ratio that prints otherwise or lies on the other
    side of the band."""
    ra, rb, rr = number(a), number(b), number(shown)
    if ra <= 0:
        return True
    got = rb / ra
    return ((a == b and rr != 1) or (rr > 1 and rb <= ra) or (rr < 1 and rb >= ra)
            or half_up(got, places(shown)) != rr or side(got, band) != side(Decimal(repr(ratio)), band))


def side(x: Decimal, band: float) -> int:
    """Which side of the noise band (1 ± band, edges level) a ratio lies on: -1, 0 or 1; its distance
    from 1 taken to twelve decimals, as the verdict rule takes it (a ratio of 1 + 2e-16 is level)."""
    b = Decimal(repr(band))
    return 0 if abs(x - 1).quantize(Decimal("1e-12"), ROUND_HALF_EVEN) <= b else (1 if x > 1 else -1)


magnitudes = st.integers(-7, 7)
mantissas = st.floats(1.0, 9.999, allow_nan=False)


@st.composite
def figures(draw) -> float:
    return draw(mantissas) * 10.0 ** draw(magnitudes)


@settings(max_examples=200, deadline=None)
@given(base=figures(), factor=st.one_of(st.floats(0.2, 5.0), st.sampled_from([1.0, 1.0001, 0.9999, 1.08, 0.92, 1.0801, 0.9199])),
       band=st.sampled_from(BANDS), digits=st.integers(0, 2))
@example(base=1e-6, factor=50.0, band=0.08, digits=1)       # the trial's rates: "0.0 | 0.0 | 50.00x" before
@example(base=0.646, factor=0.651 / 0.646, band=0.08, digits=1)  # its requests/s: "0.6 | 0.7 | 1.01x" before
@example(base=1234.5, factor=1.0801, band=0.08, digits=1)
@example(base=1e-05, factor=0.975, band=0.0, digits=0)   # ratio 0.9749999999999999: "0 | 0 | 0.97x" before
def test_printed_figures_never_contradict_their_printed_ratio(base, factor, band, digits):
    other = base * factor
    assume(math.isfinite(other) and other > 0)
    ratio = other / base
    shown = fmt.speed_ratio(ratio, band)
    a, b = fmt.pair(base, other, digits, shown, "ratio", band)
    ra, rb, rr = number(a), number(b), number(shown)
    assert places(a) == places(b) >= digits  # one number of decimals for the pair, at least the kind's own
    assert ra > 0, (a, b, shown)
    # Never equal beside a ratio that is not 1, never ordered against it.
    if a == b:
        assert rr == 1, (a, b, shown)
    if rr > 1:
        assert rb > ra, (a, b, shown)
    if rr < 1:
        assert rb < ra, (a, b, shown)
    # The ratio a reader computes from the printed figures prints as the ratio does, on its side of the band.
    got = rb / ra
    assert half_up(got, places(shown)) == rr, (a, b, shown, got)
    assert side(got, band) == side(Decimal(repr(ratio)), band), (a, b, shown, got)
    assert not contradicts(a, b, shown, band, ratio)
    # And no more digits than that needs: one fewer would contradict (or it is the kind's own).
    if places(a) > digits:
        k = places(a) - 1
        fewer = (str(half_up(Decimal(base), k)), str(half_up(Decimal(other), k)))
        assert contradicts(*fewer, shown, band, ratio), (a, b, fewer, shown)


@settings(max_examples=150, deadline=None)
@given(old=st.floats(-1e4, 1e4, allow_nan=False), step=st.floats(-50, 50, allow_nan=False),
       digits=st.integers(0, 2), change_digits=st.integers(1, 4))
def test_printed_figures_never_contradict_their_printed_difference(old, step, digits, change_digits):
    new = old + step
    shown = fmt.signed(new - old, change_digits)
    a, b = fmt.pair(old, new, digits, shown, "difference")
    got = number(b) - number(a)
    assert half_up(got, change_digits) == number(shown), (a, b, shown)
    if a == b:
        assert number(shown) == 0


@settings(max_examples=200, deadline=None)
@given(units=st.integers(-10**9, 10**9), places_=st.integers(0, 6),
       half=st.sampled_from([Decimal(0), Decimal("0.5"), Decimal("0.25"), Decimal("0.125"), Decimal("0.375")]))
def test_a_figure_rounds_as_a_reader_rounds(units, places_, half):
    """A figure as a receipt writes it (a few decimals) rounds as a reader rounds that decimal:
    halfway away from zero (120.5 → 121, 95.25 → 95.3, 12.345 → 12.35), where Python's own format
    rounds the binary value, a tie to even (`120`, `95.2`) and 12.345 (just below in binary) down."""
    written = (Decimal(units) + half) / Decimal(10) ** places_
    value = float(written)
    for d in range(6):
        text = fmt.fixed(value, d)
        assert number(text) == half_up(Decimal(repr(value)), d), (value, d, text)


@pytest.mark.parametrize("value, digits, printed", [(120.5, 0, "121"), (95.25, 1, "95.3"), (95.25, 0, "95"), (0.125, 2, "0.13"),
                                                    (-0.5, 0, "\u22121"), (2.5, 0, "3"), (348.2, 0, "348"), (12.345, 2, "12.35"),
                                                    (9.75 / 10, 2, "0.98")])
def test_the_trial_s_halves(value, digits, printed):
    assert fmt.fixed(value, digits) == printed


def test_numpy_scalars_round_as_floats_do():
    """A frame's values reach the format as numpy scalars, whose repr is `np.float64(0.125)`."""
    import numpy as np

    assert fmt.fixed(np.float64(0.125), 2) == fmt.fixed(0.125, 2) == "0.13"
    assert fmt.pair(np.float64(0.646), np.float64(0.651), 1, "1.01x", band=np.float64(0.08)) == ("0.646", "0.651")
