"""Each setup's figures at each load point: latency percentiles and output throughput, from its runs
(two or more: the geometric mean with Student's t interval, the setup's run-to-run variance pooled over
its loads of one class) or from its one run (the bootstrap over the run's requests); each load point's
class (below saturation, saturated); the run-to-run variance, per setup and over the study."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import cast

import numpy as np
import pandas as pd

from site_gen.analysis import bootstrap as bs
from site_gen.analysis.frames import frame
from site_gen.sections.serving.analysis import latency, load as serving_load
from site_gen.sections.serving.analysis.points import PERCENTILES, Point, curves
from site_gen.sections.study.analysis import stats
from site_gen.sections.study.analysis.points import Setup, SetupPoint

# The percentiles a study compares and ranks (every percentile is computed: an objective may name p90).
COMPARED = (50, 99)
THROUGHPUT = "output_tokens_per_s"
SATURATED, BELOW = "saturated", "below saturation"
# How a figure's interval was made (the pages say which).
ONE_RUN = "one run: within-run interval only"
ONE_RUN_NONE = "one run, no interval"
RUNS = "t over runs"
ALLOWANCE_COLUMNS = ["metric", "percentile", "load_class", "variance", "df", "cells", "setups", "allowance", "measured"]


@dataclass
class Fig:
    setup: str
    point: str
    load: str
    metric: str
    percentile: int
    value: float
    low: float = math.nan
    high: float = math.nan
    se: float = math.nan
    df: float = math.inf
    runs: int = 1
    spread_low: float = math.nan
    spread_high: float = math.nan
    method: str = ONE_RUN
    n: int = 0
    load_class: str = BELOW
    path: str = ""
    variance: str = ""               # two runs or more: its run-to-run variance, "pooled" over the study or its "own"
    logs: np.ndarray | None = None   # the runs' figures, logged (two runs or more)


def _log_se(resampled: np.ndarray) -> float:
    v = resampled[np.isfinite(resampled)]
    v = v[v > 0]
    return float(np.log(v).std(ddof=1)) if v.size >= 2 else math.nan


def latency_figs(p: SetupPoint, load_id: str, metrics: tuple[str, ...], b: bs.Bootstrap) -> list[Fig]:
    out = []
    runs = len(p.repeats)
    if runs >= 2:
        for metric in metrics:
            values = np.array(latency.run_values(p, metric), dtype=float)   # runs x PERCENTILES
            for j, q in enumerate(PERCENTILES):
                col = values[:, j]
                if np.isnan(col).any() or (col <= 0).any():
                    continue
                logs = np.log(col)
                out.append(Fig(p.role, p.id, load_id, metric, q, float(np.exp(logs.mean())), runs=runs,
                                spread_low=float(col.min()), spread_high=float(col.max()), method=RUNS,
                                n=runs, path=f"{p.path}.repeats", logs=logs))
        return out
    for metric, f in latency.side_figures(p, metrics, b).items():
        for j, q in enumerate(PERCENTILES):
            if f.values[j] != f.values[j]:
                continue
            has = f.lows[j] == f.lows[j] and f.resampled is not None
            out.append(Fig(p.role, p.id, load_id, metric, q, f.values[j], f.lows[j], f.highs[j],
                            _log_se(f.resampled[:, j]) if has and f.resampled is not None else math.nan,
                            method=ONE_RUN if has else ONE_RUN_NONE, n=f.n, path=f.paths[j]))
    return out


def throughput_fig(p: SetupPoint, load_id: str, b: bs.Bootstrap) -> Fig | None:
    values = np.array(serving_load.run_throughputs(p)[THROUGHPUT], dtype=float)
    if np.isnan(values).any() or (values <= 0).any():
        return None
    if values.size >= 2:
        logs = np.log(values)
        return Fig(p.role, p.id, load_id, THROUGHPUT, 0, float(np.exp(logs.mean())), runs=values.size,
                    spread_low=float(values.min()), spread_high=float(values.max()), method=RUNS, n=values.size,
                    path=f"{p.path}.repeats", logs=logs)
    if not p.has_rows:
        return Fig(p.role, p.id, load_id, THROUGHPUT, 0, float(values[0]), method=ONE_RUN_NONE, n=1,
                    path=f"{p.path}.repeats[0]")
    # One run: the bootstrap over its requests of the output tokens it served in its measured duration.
    tokens = p.rows[0]["output_tokens"]
    idx = bs.draws((tokens.size,), paired=False, b=b)[0]
    resampled = tokens[idx].sum(axis=1) / p.repeats[0]["duration_s"]
    low, high = bs.interval(resampled, b)
    return Fig(p.role, p.id, load_id, THROUGHPUT, 0, float(values[0]), low, high, _log_se(resampled), n=int(tokens.size),
                path=f"{p.path}.repeats[0]")


def classes(setup: Setup, figs: dict[tuple, Fig]) -> dict[str, str]:
    """Each load point's class for this setup: saturated from the lightest load whose median time to
    first token is more than serving's SATURATION times that of the sweep's lightest load."""
    out = {p.id: BELOW for p in setup.points}
    ttft = {p.id: f.value for p in setup.points if (f := figs.get((setup.id, p.id, "ttft", 50)))}
    for curve in curves(cast("list[Point]", setup.points)).values():
        found = serving_load.saturation(curve, ttft)
        if found:
            at = [p.id for p in curve].index(found)
            for p in curve[at:]:
                out[p.id] = SATURATED
    return out


def pool(figs: list[Fig]) -> tuple[dict[tuple, tuple[float, float, str]], pd.DataFrame]:
    """Run-to-run variance of the logs, per figure and load class: pooled over every setup with
    repeats (the within-setup mean square: each setup about its own mean at each load point), which
    is also what the allowance of a one-run setup is made from. A setup's intervals take the pooled
    variance (the setups share one run-to-run noise), unless its own is larger than the other setups'
    at the 5% level of an F test: a noisier setup (speculative decoding, another engine) keeps its
    own, so its intervals are not made narrower by quieter setups. Returns (setup, metric, q, class)
    -> (variance, degrees of freedom, "pooled" or "own"), and the allowance table."""
    from scipy.special import fdtrc

    own: dict[tuple, list[np.ndarray]] = {}
    study: dict[tuple, list[tuple[str, np.ndarray]]] = {}
    for f in figs:
        if f.logs is not None:
            own.setdefault((f.setup, f.metric, f.percentile, f.load_class), []).append(f.logs)
            study.setdefault((f.metric, f.percentile, f.load_class), []).append((f.setup, f.logs))
    pooled = {k: stats.pooled([g for _, g in groups]) for k, groups in study.items()}
    variances: dict[tuple, tuple[float, float, str]] = {}
    for (sid, metric, q, cls), groups in own.items():
        var, df = stats.pooled(groups)
        all_var, all_df = pooled[metric, q, cls]
        rest_df = all_df - df
        choice = (all_var, float(all_df), "pooled")
        if rest_df > 0 and df > 0:
            rest_var = (all_var * all_df - var * df) / rest_df
            if rest_var == 0 or (var > rest_var and float(fdtrc(df, rest_df, var / rest_var)) < 0.05):
                choice = (var, float(df), "own")
        variances[sid, metric, q, cls] = choice
    rows = []
    for (metric, q, cls), cells in study.items():
        var, df = pooled[metric, q, cls]
        rows.append({"metric": metric, "percentile": q, "load_class": cls, "variance": var, "df": df,
                     "cells": len(cells), "setups": len({s for s, _ in cells}),
                     "allowance": math.expm1(stats.allowance(var, df)) if df else math.nan, "measured": bool(df)})
    return variances, frame({c: [r[c] for r in rows] for c in ALLOWANCE_COLUMNS}, ALLOWANCE_COLUMNS)


def finish(f: Fig, variances: dict) -> None:
    """A figure of two or more runs: its t interval from the run-to-run variance `pool` chose for it."""
    if f.logs is None:
        return
    var, df, which = variances[f.setup, f.metric, f.percentile, f.load_class]
    f.se, f.df, f.variance = math.sqrt(var / f.logs.size), df, which
    lo, hi = stats.interval(float(f.logs.mean()), f.se, f.df)
    f.low, f.high = math.exp(lo), math.exp(hi)
