"""Intervals of percentiles and of their ratios: the seeded bootstrap over requests (paired or
not), Student's t over repeated runs, and Wilson's interval of a share.

Every resample is drawn from one matrix of request indices (resamples x requests) from
`numpy.random.default_rng(seed)`, the values gathered and sorted row by row, each row's
percentiles read as numpy's linear percentile reads them. The matrix is drawn and read a block of
rows at a time (`resampled_each`, CHUNK_ENTRIES): the generator gives the same indices however its
draws are split, so memory stays bounded and the figures are the whole matrix's. A reader can replay any
interval with numpy alone: for a load point, `idx = default_rng(seed).integers(0, n, (resamples,
n))` (paired: one matrix for both sides; unpaired: the baseline's matrix, then the candidate's,
from the same generator), `np.nanpercentile(x[idx], q, axis=1)`, and the 2.5th and 97.5th
percentiles of the resampled figures (or of their ratios).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

RESAMPLES = 2000
SEED = 0
LEVEL = 0.95
# An interval needs this many measured values a side, and this many at or above the percentile:
# below that a resampled p99 is the same few requests over and over, and its interval says less
# than it seems to (measured coverage: 91% for p99 of 100 requests, 97% of 200).
MIN_VALUES = 20
MIN_TAIL = 2


@dataclass(frozen=True)
class Bootstrap:
    """How the intervals are drawn: recorded in the analysis and shown with them."""
    resamples: int = RESAMPLES
    seed: int = SEED
    level: float = LEVEL

    @property
    def tails(self) -> tuple[float, float]:
        a = (1 - self.level) / 2 * 100
        return (a, 100 - a)


def percentile(values: np.ndarray, q: float) -> float:
    """numpy's linear percentile of the measured values (NaN: not measured); NaN when none is."""
    v = values[~np.isnan(values)]
    return float(np.percentile(v, q)) if v.size else math.nan


def percentiles(values: np.ndarray, qs: tuple[float, ...]) -> list[float]:
    """`percentile` of each of `qs`, in one call of numpy's (the same figures)."""
    v = values[~np.isnan(values)]
    return [float(x) for x in np.percentile(v, qs)] if v.size else [math.nan] * len(qs)


def enough(values: np.ndarray, q: float) -> bool:
    """Whether a percentile of these values can carry an interval (MIN_VALUES, MIN_TAIL)."""
    n = int(np.count_nonzero(~np.isnan(values)))
    return n >= MIN_VALUES and n * (1 - q / 100) >= MIN_TAIL


def needed(q: float) -> int:
    """The fewest measured values whose percentile q can carry an interval (`enough`): a p99 needs 200."""
    return max(MIN_VALUES, math.ceil(round(MIN_TAIL / (1 - q / 100), 9)))


def draws(sizes: tuple[int, ...], paired: bool, b: Bootstrap = Bootstrap()) -> list[np.ndarray]:
    """The resample matrices of request indices, one per side (paired: the same matrix for both);
    read-only, as the last draw is kept for the next caller."""
    return list(_drawn(tuple(sizes), paired, b.resamples, b.seed))


# The last draw only: a load point's two sides, and the next load point of as many requests, draw
# the same matrix (seeded alike), and one draw of 1,000 requests costs ~3 ms, of 5,000 ~50 ms; more
# than one kept would hold that much more memory for the whole build.
@lru_cache(maxsize=1)
def _drawn(sizes: tuple[int, ...], paired: bool, resamples: int, seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    if paired:
        if len(set(sizes)) != 1:
            raise ValueError(f"paired sides hold the same requests, got {sizes}")
        idx = rng.integers(0, sizes[0], size=(resamples, sizes[0]))
        out = [idx for _ in sizes]
    else:
        out = [rng.integers(0, n, size=(resamples, n)) for n in sizes]
    for m in out:
        m.setflags(write=False)
    return tuple(out)


# The resample matrix is drawn this many indices at a time (whole rows: 16 MB of int64, 8 MB of ranks),
# each block's percentiles read before the next is drawn, so memory stays bounded whatever the number
# of requests (200,000 requests x 2,000 resamples drawn at once was 3.2 GB, then 1.6 GB of ranks).
# The generator's draws do not depend on how they are split into calls, so the figures are those of
# the whole matrix drawn at once (the replay of the module's docstring).
CHUNK_ENTRIES = 1 << 21


def _chunks_of(rng: np.random.Generator, n: int, resamples: int):
    """(first row, the next rows of the resample matrix of n requests), CHUNK_ENTRIES indices at most
    at a time (one row at least)."""
    rows = max(1, CHUNK_ENTRIES // max(n, 1))
    for r0 in range(0, resamples, rows):
        yield r0, rng.integers(0, n, size=(min(rows, resamples - r0), n))


def resampled_each(columns: dict[str, np.ndarray], qs: tuple[float, ...], b: Bootstrap = Bootstrap(),
                   after: tuple[int, ...] = ()) -> dict[str, np.ndarray]:
    """`resampled` of each column (one side's metrics, as many values each) over one resample matrix
    drawn from `default_rng(seed)`, after the matrices of `after` sizes (an unpaired comparison's
    candidate: its matrix is the generator's second), in bounded memory (CHUNK_ENTRIES)."""
    sizes = {x.size for x in columns.values()}
    if len(sizes) > 1:
        raise ValueError(f"one side's columns hold as many values, got {sorted(sizes)}")
    n = sizes.pop() if sizes else 0
    out = {name: np.full((b.resamples, len(qs)), np.nan) for name in columns}
    if not columns or n == 0:
        return out
    rng = np.random.default_rng(b.seed)
    for m in after:  # drawn, and dropped block by block
        for _ in _chunks_of(rng, m, b.resamples):
            pass
    prepared = {name: _prepare(x) for name, x in columns.items()}
    for r0, idx in _chunks_of(rng, n, b.resamples):
        for name, prep in prepared.items():
            out[name][r0:r0 + idx.shape[0]] = _resampled_rows(prep, idx, qs)
    return out


def _lerp(a: np.ndarray, b: np.ndarray, t: np.ndarray) -> np.ndarray:
    # numpy's own interpolation (numpy.lib._function_base_impl._lerp), so a figure equals np.percentile's.
    diff = b - a
    out = a + diff * t
    return np.where(t >= 0.5, b - diff * (1 - t), out)


def resampled(values: np.ndarray, idx: np.ndarray, qs: tuple[float, ...]) -> np.ndarray:
    """Each resample's percentiles `qs` (resamples x len(qs)), NaN values left out as
    `np.nanpercentile(values[idx], q, axis=1)` leaves them; NaN where a resample has none.

    The resamples are sorted as ranks, not values: the k-th smallest of a resample's ranks names
    its k-th smallest value (equal values have neighbouring ranks, NaN the last ones), so each
    figure is the one the sorted values give, and the matrix sorted is of 32-bit integers (NaN
    needs no special order). Not 16-bit: numpy sorts those with vector code only where the CPU has
    AVX-512 (VBMI2); on an AVX2-only host a 16-bit sort took 83 ms where 32-bit took 16 ms, on a
    2,000 x 1,000 matrix."""
    return _resampled_rows(_prepare(values), idx, qs)


def _prepare(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, int, int]:
    """(the values sorted, each value's rank, how many are measured, how many in all): what every block
    of resamples reads."""
    n = values.size
    order = np.argsort(values, kind="stable")  # NaN last
    ordered = values[order]
    measured = n - int(np.count_nonzero(np.isnan(values)))
    ranks = np.empty(n, np.int32 if n <= np.iinfo(np.int32).max else np.int64)
    ranks[order] = np.arange(n, dtype=ranks.dtype)
    return ordered, ranks, measured, n


def _resampled_rows(prep: tuple[np.ndarray, np.ndarray, int, int], idx: np.ndarray, qs: tuple[float, ...]) -> np.ndarray:
    ordered, ranks, measured, n = prep
    rows = ranks[idx]
    rows.sort(axis=1)
    counts = np.full(idx.shape[0], n) if measured == n else np.count_nonzero(rows < measured, axis=1)
    out = np.full((idx.shape[0], len(qs)), np.nan)
    ok = counts > 0
    if not ok.all():  # a resample of failed requests only: NaN
        rows, counts = rows[ok], counts[ok]
    for j, q in enumerate(qs):
        h = (counts - 1) * (q / 100)
        lo = np.floor(h).astype(np.int64)
        hi = np.minimum(lo + 1, counts - 1)
        a = ordered[np.take_along_axis(rows, lo[:, None], axis=1)[:, 0]]
        b = ordered[np.take_along_axis(rows, hi[:, None], axis=1)[:, 0]]
        out[ok, j] = _lerp(a, b, h - lo)
    return out


def interval(samples: np.ndarray, b: Bootstrap = Bootstrap()) -> tuple[float, float]:
    """The percentile interval of resampled figures (NaN and infinite ones left out)."""
    s = samples[np.isfinite(samples)]
    if s.size < b.resamples * 0.99:  # a figure most resamples cannot make has no interval
        return (math.nan, math.nan)
    low, high = np.percentile(s, b.tails)
    return (float(low), float(high))


def intervals(samples: np.ndarray, b: Bootstrap = Bootstrap()) -> list[tuple[float, float]]:
    """`interval` of each column of `samples` (resamples x figures): the columns with every figure
    finite in one call of numpy's percentile (the same figures as column by column), the others alone."""
    full = np.isfinite(samples).all(axis=0)
    out: list[tuple[float, float] | None] = [None] * samples.shape[1]
    if full.any() and samples.shape[0] >= b.resamples * 0.99:
        lows, highs = np.percentile(samples[:, full], b.tails, axis=0)
        for j, low, high in zip(np.flatnonzero(full), lows, highs):
            out[j] = (float(low), float(high))
    return [iv if iv is not None else interval(samples[:, j], b) for j, iv in enumerate(out)]


# -- repeated runs: Student's t ------------------------------------------------------------------

def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the regularised incomplete beta function (modified Lentz)."""
    tiny, qab, qap, qam = 1e-300, a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        for num in (m * (b - m) * x / ((qam + m2) * (a + m2)), -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def t_cdf(t: float, df: float) -> float:
    x = df / (df + t * t)
    lbeta = math.lgamma(df / 2) + math.lgamma(0.5) - math.lgamma(df / 2 + 0.5)
    front = math.exp(math.log(x) * df / 2 + math.log1p(-x) * 0.5 - lbeta)
    if x < (df / 2 + 1) / (df / 2 + 2.5):
        tail = front * _betacf(df / 2, 0.5, x) / (df / 2)
    else:
        tail = 1.0 - front * _betacf(0.5, df / 2, 1 - x) / 0.5
    return 1 - tail / 2 if t > 0 else tail / 2


def t_quantile(p: float, df: float) -> float:
    """Student's t quantile (bisection on the CDF; df may be fractional, as Welch's is)."""
    lo, hi = 0.0, 1e6
    for _ in range(200):
        mid = (lo + hi) / 2
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def log_mean(values: np.ndarray, b: Bootstrap = Bootstrap()) -> tuple[float, float, float]:
    """Geometric mean of repeated runs' figures with its t interval (on the logs, n - 1 degrees of
    freedom); NaN interval for one run."""
    logs = np.log(values)
    m = float(logs.mean())
    if values.size < 2:
        return (math.exp(m), math.nan, math.nan)
    half = t_quantile(1 - (1 - b.level) / 2, values.size - 1) * float(logs.std(ddof=1)) / math.sqrt(values.size)
    return (math.exp(m), math.exp(m - half), math.exp(m + half))


def log_ratio(base: np.ndarray, cand: np.ndarray, b: Bootstrap = Bootstrap()) -> tuple[float, float, float]:
    """Ratio of the geometric means of two sides' repeated runs, with Welch's t interval on the logs."""
    lb, lc = np.log(base), np.log(cand)
    d = float(lc.mean() - lb.mean())
    vb, vc = float(lb.var(ddof=1)) / lb.size, float(lc.var(ddof=1)) / lc.size
    se = math.sqrt(vb + vc)
    if se == 0:
        return (math.exp(d), math.exp(d), math.exp(d))
    df = (vb + vc) ** 2 / (vb ** 2 / (lb.size - 1) + vc ** 2 / (lc.size - 1))
    half = t_quantile(1 - (1 - b.level) / 2, df) * se
    return (math.exp(d), math.exp(d - half), math.exp(d + half))


# -- a share: Wilson's interval ----------------------------------------------------------------------

def wilson(successes: int, n: int, level: float = LEVEL) -> tuple[float, float]:
    """Wilson's score interval of a share (it stays inside [0, 1] and is not empty at 0 or n)."""
    if n == 0:
        return (math.nan, math.nan)
    z = _normal_quantile(1 - (1 - level) / 2)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def _normal_quantile(p: float) -> float:
    lo, hi = -40.0, 40.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if 0.5 * math.erfc(-mid / math.sqrt(2)) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


# -- two independent estimates: the interval of their difference ------------------------------------

def unpaired_difference(old: float, old_low: float, old_high: float, new: float, new_low: float,
                        new_high: float) -> tuple[float, float, float]:
    """new - old, with the 95% interval of a difference of two independent estimates from their own
    95% intervals: each end is the root of the summed squared half-widths on that side (for
    symmetric intervals, difference ± 1.96 × the root of the summed squared standard errors, the
    importers' unpaired rule). NaN interval when either estimate has none."""
    d = new - old
    if any(v != v for v in (old_low, old_high, new_low, new_high)):
        return (d, math.nan, math.nan)
    below = math.hypot(new - new_low, old_high - old)
    above = math.hypot(new_high - new, old - old_low)
    return (d, d - below, d + above)
