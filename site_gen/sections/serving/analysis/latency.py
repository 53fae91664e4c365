"""Latency percentiles per side and load point, with their intervals, and the ratio of the two
sides at each matched load point with its interval and its verdict.

Which interval a figure carries:
- two or more runs of the load point (a side's repeats): the geometric mean of the runs' figures,
  with Student's t interval over the runs; a ratio, Welch's t interval over both sides' runs;
- one run with per-request rows: the seeded bootstrap over requests (analysis/bootstrap.py), a
  ratio's paired when both sides sent the same prompts in the same order, unpaired otherwise;
- one run without rows: the source's own figure, no interval; a ratio then takes the band rule.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from site_gen.analysis import bootstrap as bs
from site_gen.analysis.verdict import band_verdict, interval_verdict
from site_gen.sections.serving.analysis.points import PERCENTILES, Point

PAIRED, UNPAIRED, BOOTSTRAP = ("paired bootstrap over requests", "unpaired bootstrap over requests", "bootstrap over requests")
RUNS, ONE_RUN, FEW = "t over runs", "one run, no interval", "too few requests for an interval"


@dataclass
class Figures:
    """One side's percentiles of one metric at one load point."""
    values: list[float]
    lows: list[float]
    highs: list[float]
    spread: list[tuple[float, float]]   # lowest and highest run (repeats), else (nan, nan)
    method: str
    n: int                              # requests measured (rows), or runs
    paths: list[str]
    resampled: np.ndarray | None = None  # the side's own resamples (resamples x percentiles), rows only


def run_values(p: Point, metric: str) -> list[list[float]]:
    """Each repeat's percentiles of `metric` (from its rows, else as the source states them)."""
    out = []
    for j in range(len(p.repeats)):
        rows = p.rows[j] if p.has_rows else None
        if rows is not None:
            out.append(bs.percentiles(rows[metric], PERCENTILES))
        else:
            found = [p.stated_percentile(j, metric, q) for q in PERCENTILES]
            out.append([f[0] if f else math.nan for f in found])
    return out


def side_figures(p: Point, metrics: tuple[str, ...], b: bs.Bootstrap) -> dict[str, Figures]:
    """A side's p50, p90, p95 and p99 of each metric at `p`, each with its interval (a metric it
    has no figure of is left out). One resample matrix serves every metric of the load point, drawn
    and read a block at a time (bootstrap.resampled_each)."""
    out: dict[str, Figures] = {}
    columns: dict[str, np.ndarray] = {}
    if len(p.repeats) < 2 and p.has_rows:
        columns = {m: p.rows[0][m] for m in metrics if np.any(~np.isnan(p.rows[0][m]))}
    res = bs.resampled_each(columns, PERCENTILES, b) if columns else {}
    for metric in metrics:
        if len(p.repeats) >= 2:
            f = _over_runs(p, metric, b)
        elif p.has_rows:
            if metric not in columns:
                continue
            f = _over_requests(p, metric, columns[metric], res[metric], b)
        else:
            f = _stated(p, metric)
        if f is not None:
            out[metric] = f
    return out


def _over_runs(p: Point, metric: str, b: bs.Bootstrap) -> Figures | None:
    nan = math.nan
    runs = np.array(run_values(p, metric), dtype=float)
    values, lows, highs, spread = [], [], [], []
    for j in range(len(PERCENTILES)):
        col = runs[:, j]
        m, lo, hi = bs.log_mean(col, b) if not (np.isnan(col).any() or (col <= 0).any()) else (nan, nan, nan)
        values.append(m)
        lows.append(lo)
        highs.append(hi)
        spread.append((float(col.min()), float(col.max())) if m == m else (nan, nan))
    if all(v != v for v in values):
        return None
    return Figures(values, lows, highs, spread, RUNS, len(p.repeats), [f"{p.path}.repeats"] * len(PERCENTILES))


def _over_requests(p: Point, metric: str, x: np.ndarray, res: np.ndarray, b: bs.Bootstrap) -> Figures:
    nan = math.nan
    ivs = [iv if bs.enough(x, q) else (nan, nan) for iv, q in zip(bs.intervals(res, b), PERCENTILES)]
    return Figures(bs.percentiles(x, PERCENTILES), [i[0] for i in ivs], [i[1] for i in ivs],
                   [(nan, nan)] * len(PERCENTILES), BOOTSTRAP, int(np.count_nonzero(~np.isnan(x))),
                   [f"{p.path}.repeats[0].requests.{metric}_ms"] * len(PERCENTILES), res)


def _stated(p: Point, metric: str) -> Figures | None:
    nan = math.nan
    found = [p.stated_percentile(0, metric, q) for q in PERCENTILES]
    if not any(found):
        return None
    return Figures([f[0] if f else nan for f in found], [nan] * 4, [nan] * 4, [(nan, nan)] * 4, ONE_RUN, 1,
                   [f[1] if f else "" for f in found])


@dataclass
class Cell:
    percentile: int
    baseline: float
    candidate: float
    ratio: float
    low: float
    high: float
    method: str
    verdict: str


def compare(pb: Point, pc: Point, fb: dict[str, Figures], fc: dict[str, Figures], paired: bool, band: float,
            b: bs.Bootstrap) -> dict[str, list[Cell]]:
    """Per metric both sides have, the candidate / baseline ratio of each percentile, its interval
    and its verdict (lower is faster)."""
    # A side without rows states ITL over every gap, one with rows has each request's mean gap: not one figure.
    metrics = [m for m in fb if m in fc and not (m == "itl" and pb.has_rows != pc.has_rows)]
    one_each = len(pb.rows) == 1 and len(pc.rows) == 1 and len(pb.repeats) == 1 and len(pc.repeats) == 1
    paired = paired and one_each and pb.rows[0]["error"].size == pc.rows[0]["error"].size
    out: dict[str, list[Cell]] = {}
    boot = [m for m in metrics if not (fb[m].method == RUNS and fc[m].method == RUNS) and pb.has_rows and pc.has_rows]
    xbs, xcs = {m: pb.pooled(m) for m in boot}, {m: pc.pooled(m) for m in boot}
    rbs: dict[str, np.ndarray] = {}
    rcs: dict[str, np.ndarray] = {}
    if paired:
        rbs, rcs = {m: _matrix(fb[m]) for m in boot}, {m: _matrix(fc[m]) for m in boot}
    elif boot:
        # Unpaired: the baseline's resample matrix is the generator's first (its own figures' when it has
        # one run), the candidate's the second, for every metric.
        rbs = {m: _matrix(fb[m]) for m in boot} if one_each else bs.resampled_each(xbs, PERCENTILES, b)
        rcs = bs.resampled_each(xcs, PERCENTILES, b, after=(xbs[boot[0]].size,))
    for metric in metrics:
        if fb[metric].method == RUNS and fc[metric].method == RUNS:
            out[metric] = _runs_cells(pb, pc, fb[metric], fc[metric], metric, band, b)
        elif pb.has_rows and pc.has_rows:
            out[metric] = _bootstrap_cells(xbs[metric], xcs[metric], rbs[metric], rcs[metric], PAIRED if paired else UNPAIRED,
                                           band, b)
        else:
            out[metric] = _band_cells(fb[metric], fc[metric], band)
    return out


def _matrix(f: Figures) -> np.ndarray:
    """The resample matrix of a side's figures made from its rows (those have one)."""
    assert f.resampled is not None
    return f.resampled


def _runs_cells(pb: Point, pc: Point, fb: Figures, fc: Figures, metric: str, band: float, b: bs.Bootstrap) -> list[Cell]:
    rb, rc = np.array(run_values(pb, metric), dtype=float), np.array(run_values(pc, metric), dtype=float)
    out = []
    for j, q in enumerate(PERCENTILES):
        cb, cc = rb[:, j], rc[:, j]
        if np.isnan(cb).any() or np.isnan(cc).any() or (cb <= 0).any() or (cc <= 0).any():
            continue
        ratio, lo, hi = bs.log_ratio(cb, cc, b)
        out.append(Cell(q, fb.values[j], fc.values[j], ratio, lo, hi, RUNS,
                        interval_verdict(ratio, lo, hi, band, higher_is_faster=False)))
    return out


def _band_cells(fb: Figures, fc: Figures, band: float) -> list[Cell]:
    out = []
    for j, q in enumerate(PERCENTILES):
        vb, vc = fb.values[j], fc.values[j]
        if vb != vb or vc != vc or vb <= 0:
            continue
        ratio = vc / vb
        out.append(Cell(q, vb, vc, ratio, math.nan, math.nan, ONE_RUN, band_verdict(ratio, band, higher_is_faster=False)))
    return out


def _bootstrap_cells(xb: np.ndarray, xc: np.ndarray, rb: np.ndarray, rc: np.ndarray, method: str, band: float,
                     b: bs.Bootstrap) -> list[Cell]:
    out = []
    with np.errstate(divide="ignore", invalid="ignore"):
        ivs = bs.intervals(rc / rb, b)
    for j, (q, vb, vc) in enumerate(zip(PERCENTILES, bs.percentiles(xb, PERCENTILES), bs.percentiles(xc, PERCENTILES))):
        if vb != vb or vc != vc or vb <= 0:
            continue
        ratio = vc / vb
        if not (bs.enough(xb, q) and bs.enough(xc, q)):
            out.append(Cell(q, vb, vc, ratio, math.nan, math.nan, FEW, interval_verdict(ratio, math.nan, math.nan, band)))
            continue
        lo, hi = ivs[j]
        out.append(Cell(q, vb, vc, ratio, lo, hi, method, interval_verdict(ratio, lo, hi, band, higher_is_faster=False)))
    return out
