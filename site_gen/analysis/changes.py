"""Change points of one series: where the level of a figure shifts, release after release.

The detector is `ruptures` (C. Truong, L. Oudre, N. Vayatis, "Selective review of offline change
point detection methods", Signal Processing 167, 2020; BSD-2-Clause): its PELT search with the
least absolute deviation cost (`model="l1"`: each segment's level is its median), every segment at
least `MIN_SIZE` points long. Chosen by measurement (`benchmarks/changepoints.py`, the table in
the docs' series page) over Apache Otava's E-divisive with its t-test, MongoDB's E-divisive means
and asv's step detection: it met both goals on series drawn from real run-to-run noise, a median
cost with three-point segments cannot be moved by one outlier, and it installs with numpy and
scipy alone (Otava pins numpy 2.2.0 and brings cloud clients; MongoDB's library needs Python 3.11,
numpy < 2 and gevent).

What sitegen adds around the search, each step checkable with numpy alone:

- the scale: a figure that is a rate, a latency or a ratio is searched on its logarithm (a step of
  -10% is the same size at 100 tok/s as at 1,000); a difference (a precision gap, an accuracy
  delta) as it is;
- the noise: the penalty is `PENALTY * log(n)` on the series divided by its own noise, estimated
  robustly from consecutive differences (`noise`: 1.4826 x the median absolute deviation of the
  differences / sqrt 2), so steps themselves barely move it;
- the significance: each change point keeps only if Student's t on the two segments it divides
  (pooled variance, two-sided) gives p < `ALPHA`, and again with each segment without its most
  extreme point; a segment of `MIN_SIZE` points is left with two by that, and those two must both
  lie `TAIL_K` noise units beyond the other level on one side (the rule for any two-point level):
  an outlier, one naturally high point and an ordinary one are not a level. The weakest is
  dropped and its neighbours re-tested until all pass (as Otava's merge step does);
- confirmed and suspected: a change point with at least `CONFIRM` points on its new level is
  confirmed; the newest `SUSPECT` points both beyond `TAIL_K` noise units from the level on one side
  are a suspected change (the newest points alone show it), never one point alone.

Levels are geometric means on the log scale (arithmetic means on the difference scale), and the
change's 95% interval is Student's t on the same values: a reader can recompute each with numpy.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from site_gen.analysis.bootstrap import t_cdf, t_quantile

MIN_SIZE = 3          # points a level must hold: a median of three is not moved by one outlier
CONFIRM = 3           # points on the new level that confirm a change
SUSPECT = 2           # the newest points that, together, make a suspected change
TAIL_K = 3.0          # how far (noise units) each of those must lie from the level, on one side
PENALTY = 1.0         # the search's penalty, times log(n), in noise units
ALPHA = 0.01          # a change point's largest p-value
LEVEL = 0.95          # the change's interval
MIN_POINTS = MIN_SIZE + SUSPECT   # a series shorter than this has no change to find

CONFIRMED, SUSPECTED = "confirmed", "suspected"
RATIO, DIFFERENCE = "ratio", "difference"


@dataclass(frozen=True)
class ChangePoint:
    """Where a series' level shifts: `index` is the first point of the new level."""
    index: int
    before: float        # the level before (geometric or arithmetic mean of its segment)
    after: float         # the level after
    change: float        # after / before - 1 (ratio scale) or after - before (difference scale)
    low: float           # the change's 95% interval, on the same scale
    high: float
    pvalue: float        # Student's t on the two segments, two-sided
    points_before: int   # how many points each level holds
    points_after: int
    status: str          # confirmed or suspected
    scale: str


def transform(values: Sequence[float], scale: str) -> np.ndarray:
    """The values the search and the statistics see: logarithms (ratio scale) or as they are."""
    y = np.asarray(values, dtype=float)
    return np.log(y) if scale == RATIO else y


def noise(y: np.ndarray) -> float:
    """The series' noise, robust to its steps and outliers: 1.4826 x the median absolute deviation
    of consecutive differences, over sqrt 2 (each difference holds two points' noise)."""
    if y.size < 3:
        return 0.0
    d = np.diff(y)
    return float(1.4826 * np.median(np.abs(d - np.median(d))) / math.sqrt(2))


def student(a: np.ndarray, b: np.ndarray, level: float = LEVEL) -> tuple[float, float, float, float]:
    """mean(b) - mean(a), its `level` interval and the two-sided p-value of Student's t with the
    pooled variance (n_a + n_b - 2 degrees of freedom)."""
    na, nb = a.size, b.size
    d = float(b.mean() - a.mean())
    dof = na + nb - 2
    if dof < 1:
        return d, math.nan, math.nan, 1.0
    pooled = (float(((a - a.mean()) ** 2).sum()) + float(((b - b.mean()) ** 2).sum())) / dof
    se = math.sqrt(pooled * (1 / na + 1 / nb))
    if se == 0:
        return d, d, d, (1.0 if d == 0 else 0.0)
    t = d / se
    p = 2 * (1 - t_cdf(abs(t), dof))
    half = t_quantile(1 - (1 - level) / 2, dof) * se
    return d, d - half, d + half, max(0.0, min(1.0, p))


def _level(y: np.ndarray, scale: str) -> float:
    m = float(y.mean())
    return math.exp(m) if scale == RATIO else m


def _change(before: np.ndarray, after: np.ndarray, index: int, scale: str, status: str) -> ChangePoint:
    d, low, high, p = student(before, after)
    if scale == RATIO:
        d, low, high = math.expm1(d), math.expm1(low), math.expm1(high)  # NaN stays NaN
    return ChangePoint(index, _level(before, scale), _level(after, scale), d, low, high, p, before.size, after.size,
                       status, scale)


def prepare() -> None:
    """Imports ruptures (and scipy.stats, which it imports: ~0.5 s of CPU), as `search` would on its
    first call: a cold build calls this before it forks its workers (building/builder.py)."""
    import ruptures  # noqa: F401


def search(z: np.ndarray, penalty: float = PENALTY, min_size: int = MIN_SIZE) -> list[int]:
    """ruptures' PELT (least absolute deviation) on a series in noise units: the first index of
    each new level. ruptures is imported here (or by `prepare`): the API never loads it."""
    import ruptures

    if z.size < 2 * min_size:
        return []
    ends = ruptures.Pelt(model="l1", min_size=min_size, jump=1).fit(z.reshape(-1, 1)).predict(pen=penalty * math.log(z.size))
    return [int(e) for e in ends[:-1]]


def _apart(short: np.ndarray, other: np.ndarray, sigma: float) -> bool:
    """Both points of a two-point level lie TAIL_K noise units beyond the other level's median, on one side."""
    off = (short - float(np.median(other))) / sigma
    return bool(np.all(off > TAIL_K) or np.all(off < -TAIL_K))


def _refined(y: np.ndarray, found: list[int], sigma: float) -> list[int]:
    """Each boundary moved by at most one point to where Student's t on its two segments is
    strongest: a median cost puts a level's first point on either side of a three-point tail (two
    new points and one old have the new median), and the level before must not hold a new point. A
    level left with two points must be two points apart from the other level (`_apart`): one
    outlier and a usual point are not a level."""
    out = list(found)
    for i, b in enumerate(out):
        left, right = (out[i - 1] if i else 0), (out[i + 1] if i + 1 < len(out) else y.size)

        def fits(c: int, left: int = left, right: int = right) -> bool:
            a, z = y[left:c], y[c:right]
            if a.size < 2 or z.size < 2:
                return False
            return (a.size >= MIN_SIZE or _apart(a, z, sigma)) and (z.size >= MIN_SIZE or _apart(z, a, sigma))

        options = [c for c in (b - 1, b, b + 1) if fits(c)]
        if options:
            out[i] = min(options, key=lambda c: (student(y[left:c], y[c:right])[3], abs(c - b)))
    return out


def _trim(a: np.ndarray) -> np.ndarray:
    """A level without its one point farthest from its median (three points or more): a change must
    hold without any single point, so one outlier cannot carry it."""
    if a.size < 3:
        return a
    return np.delete(a, int(np.argmax(np.abs(a - np.median(a)))))


def _pvalue(a: np.ndarray, b: np.ndarray, sigma: float) -> float:
    """The larger p of Student's t on two segments with and without each one's most extreme point;
    1 when a segment left with two points by that is not two points apart from the other (`_apart`)."""
    ta, tb = _trim(a), _trim(b)
    if (a.size > ta.size == 2 and not _apart(ta, b, sigma)) or (b.size > tb.size == 2 and not _apart(tb, a, sigma)):
        return 1.0
    return max(student(a, b)[3], student(ta, tb)[3])


def _significant(y: np.ndarray, found: list[int], alpha: float, sigma: float) -> list[int]:
    """The change points whose two segments differ at p < alpha by `_pvalue`; the weakest dropped
    first and its neighbours tested again on their widened segments."""
    kept = list(found)
    while kept:
        edges = [0, *kept, y.size]
        ps = [_pvalue(a, b, sigma)
              for a, b in ((y[edges[i]:edges[i + 1]], y[edges[i + 1]:edges[i + 2]]) for i in range(len(kept)))]
        worst = max(range(len(kept)), key=lambda i: ps[i])
        if ps[worst] < alpha:
            break
        del kept[worst]
    return kept


def detect(values: Sequence[float], scale: str = RATIO, *, penalty: float = PENALTY, alpha: float = ALPHA,
           min_size: int = MIN_SIZE, confirm: int = CONFIRM) -> list[ChangePoint]:
    """Every change point of a series (oldest point first), oldest first. The values are finite
    (and positive on the ratio scale): the series layer says why a point is left out.

    A pure function of its arguments, remembered by them (`_detect`): the preview's every edit finds
    the change points of every series again, and one edit changes at most a few of them (PELT's
    median cost is most of a rebuild's time at 1,000 reports)."""
    return list(_detect(tuple(float(v) for v in values), scale, penalty, alpha, min_size, confirm))


@lru_cache(maxsize=1024)  # at most ~32 MB: 1,024 series of 1,000 points
def _detect(values: tuple[float, ...], scale: str, penalty: float, alpha: float, min_size: int,
            confirm: int) -> tuple[ChangePoint, ...]:
    return tuple(_detect_now(values, scale, penalty=penalty, alpha=alpha, min_size=min_size, confirm=confirm))


def _detect_now(values: Sequence[float], scale: str, *, penalty: float, alpha: float, min_size: int,
                confirm: int) -> list[ChangePoint]:
    y = transform(values, scale)
    n = y.size
    if n < MIN_POINTS:
        return []
    sigma = noise(y)
    if sigma == 0:
        sigma = float(np.std(y)) or 1.0   # a series of equal values but for its steps
    z = (y - float(np.median(y))) / sigma
    found = _significant(y, _refined(y, search(z, penalty, min_size), sigma), alpha, sigma)
    edges = [0, *found, n]
    out = [_change(y[edges[i]:edges[i + 1]], y[edges[i + 1]:edges[i + 2]], edges[i + 1], scale,
                   CONFIRMED if edges[i + 2] - edges[i + 1] >= confirm else SUSPECTED)
           for i in range(len(found))]
    tail = _suspected(y, edges[-2], sigma, scale)
    if tail is not None:
        out.append(tail)
    return out


def _suspected(y: np.ndarray, start: int, sigma: float, scale: str) -> ChangePoint | None:
    """The newest SUSPECT points, each beyond TAIL_K noise units from the last level's median on one
    side, with at least MIN_SIZE points of that level before them: a suspected change."""
    n = y.size
    head = y[start:n - SUSPECT]
    if head.size < MIN_SIZE:
        return None
    tail = y[n - SUSPECT:]
    offsets = (tail - float(np.median(head))) / sigma
    if not (np.all(offsets > TAIL_K) or np.all(offsets < -TAIL_K)):
        return None
    return _change(head, tail, n - SUSPECT, scale, SUSPECTED)
