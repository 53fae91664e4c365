"""The Pareto frontier of operating points (higher x and higher y both better: interactivity and
throughput per GPU), a curve's value at a given x, and the area under a curve. Pure numpy; a study
uses it for many setups and a pair is a study of two (nothing here knows what a setup is).

A curve is one setup's points in load order (lightest first). Its value at x is read on every segment
between consecutive loads whose ends straddle x (linear in x and y), and the highest such value is
taken: where a curve turns back on itself (noise at neighbouring loads), the best throughput the
setup reached at that interactivity. Outside the curve's x range it has no value (never extrapolated).
`read_at_least` reads it as a promise of x or more: at x where the curve crosses x, or at a load that
gives more than x, whichever serves more (a curve wholly beyond x is read at its best load).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


def pareto(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Which points no other point dominates (another at least as high in x and in y and higher in
    one of them); NaN points are never on it."""
    x, y = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
    ok = ~(np.isnan(x) | np.isnan(y))
    out = np.zeros(x.size, dtype=bool)
    for i in np.flatnonzero(ok):
        ge = ok & (x >= x[i]) & (y >= y[i])
        gt = (x > x[i]) | (y > y[i])
        out[i] = not np.any(ge & gt)
    return out


@dataclass(frozen=True)
class Reading:
    """A curve read at x: the value, the two loads it lies between (indices in the curve) and the
    weight of the second (value = (1 - w) * y[i] + w * y[j])."""
    value: float
    i: int
    j: int
    w: float


def read_at(xs: list[float], ys: list[float], x: float) -> Reading | None:
    """The curve's highest value at x over the segments that straddle it (None when none does)."""
    best: Reading | None = None
    for i in range(len(xs) - 1):
        x0, x1, y0, y1 = xs[i], xs[i + 1], ys[i], ys[i + 1]
        if any(v != v for v in (x0, x1, y0, y1)) or not min(x0, x1) <= x <= max(x0, x1):
            continue
        w = 0.0 if x1 == x0 else (x - x0) / (x1 - x0)
        r = Reading((1 - w) * y0 + w * y1, i, i + 1, w)
        if best is None or r.value > best.value:
            best = r
    if best is None and len(xs) == 1 and xs[0] == x and ys[0] == ys[0]:
        best = Reading(ys[0], 0, 0, 0.0)
    return best



def read_at_least(xs: list[float], ys: list[float], x: float) -> Reading | None:
    """The curve's best value at interactivity x or more: its reading at x where it crosses x
    (`read_at`), or a load it measured beyond x, whichever is higher (None when every load lies
    below x). What a serving engineer promising every user at least x gets from the setup: a setup
    whose lightest-to-heaviest loads all give more than x is read at its best such load, not left out."""
    best = read_at(xs, ys, x)
    for k, (xk, yk) in enumerate(zip(xs, ys)):
        if xk == xk and yk == yk and xk >= x and (best is None or yk > best.value):
            best = Reading(yk, k, k, 0.0)
    return best


def levels_at_least(ranges: list[tuple[float, float]], most: int = 5) -> list[float]:
    """Round interactivity levels at which two curves or more reach x or more (`read_at_least`):
    from the lowest interactivity any curve measured up to the second highest of the curves' highest,
    at a round step (1, 2, 2.5 or 5 times a power of ten), at most `most` of them."""
    known = [(a, b) for a, b in ranges if a == a and b == b]
    if len(known) < 2:
        return []
    lo, hi = min(a for a, _ in known), sorted(b for _, b in known)[-2]
    if hi < lo:
        return []
    if hi == lo:
        return [lo]
    span = hi - lo
    for step in (m * 10.0 ** k for k in range(math.floor(math.log10(span)) - 2, math.ceil(math.log10(span)) + 1)
                 for m in (1, 2, 2.5, 5)):
        first = math.ceil(lo / step) * step
        found = [round(first + i * step, 10) for i in range(int((hi - first) / step + 1e-9) + 1)]
        found = [v for v in found if lo <= v <= hi]
        if len(found) <= most:
            return found
    return []


def x_range(xs: list[float]) -> tuple[float, float]:
    known = [v for v in xs if v == v]
    return (min(known), max(known)) if known else (math.nan, math.nan)


def area(xs: list[float], ys: list[float], lo: float, hi: float) -> float:
    """The area under the curve's upper envelope between lo and hi (trapezoids between every x at
    which the curve or the range has a corner); NaN when the curve does not span [lo, hi]."""
    a, b = x_range(xs)
    if not (lo == lo and hi == hi) or hi <= lo or a != a or lo < a - 1e-12 or hi > b + 1e-12:
        return math.nan
    cuts = sorted({lo, hi, *(v for v in xs if lo < v < hi)})
    values = []
    for c in cuts:
        r = read_at(xs, ys, c)
        if r is None:
            return math.nan
        values.append(r.value)
    return float(sum((cuts[k + 1] - cuts[k]) * (values[k] + values[k + 1]) / 2 for k in range(len(cuts) - 1)))


def levels(ranges: list[tuple[float, float]], most: int = 5) -> list[float]:
    """Round interactivity levels to read every curve at: inside the span that at least two curves
    cover, at a round step (1, 2, 2.5 or 5 times a power of ten), at most `most` of them."""
    edges = sorted({v for r in ranges for v in r if v == v})
    if len(edges) < 2:
        return []
    covered = [(lo, hi) for lo, hi in ((edges[k], edges[k + 1]) for k in range(len(edges) - 1))
               if sum(1 for a, b in ranges if a <= lo and b >= hi) >= 2]
    if not covered:
        return []
    lo, hi = covered[0][0], covered[-1][1]
    span = hi - lo
    if span <= 0:
        return [lo]
    for step in (m * 10.0 ** k for k in range(math.floor(math.log10(span)) - 2, math.ceil(math.log10(span)) + 1)
                 for m in (1, 2, 2.5, 5)):
        first = math.ceil(lo / step) * step
        found = [round(first + i * step, 10) for i in range(int((hi - first) / step + 1e-9) + 1)]
        found = [v for v in found if lo <= v <= hi and any(a <= v <= b for a, b in covered)]
        if len(found) <= most:
            return found
    return []
