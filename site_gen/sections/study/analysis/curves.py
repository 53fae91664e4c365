"""A study's frontier, per sweep (workload and load axis): each setup's interactivity (1000 / median
TPOT) and throughput per GPU at each load with intervals, the points on the Pareto frontier, the best
setup at round levels of interactivity against the runner-up, and the area under each curve."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pandas as pd

from site_gen.analysis import frontier as fr
from site_gen.analysis.frames import frame
from site_gen.sections.study.analysis import stats
from site_gen.sections.study.analysis.figures import THROUGHPUT, Fig
from site_gen.sections.study.analysis.points import Setup

if TYPE_CHECKING:
    from site_gen.sections.study.analysis.points import Load


@dataclass
class Frontier:
    """The frontier of one sweep (workload and load axis)."""
    workload: str
    axis: str
    points: pd.DataFrame            # per setup and load: interactivity and throughput per GPU with intervals
    curves: dict[str, list[str]]    # setup -> its load ids in load order (lightest first)
    levels: pd.DataFrame            # per interactivity level: best setup, runner-up, ratio with interval
    areas: pd.DataFrame             # per setup: area under its curve over the common range, and its own
    common: tuple[float, float]     # the interactivity range every setup's curve spans (NaN, NaN: none)


FRONTIER_POINT_COLUMNS = ["setup", "point", "load", "x", "x_low", "x_high", "y", "y_low", "y_high", "se_y", "df_y",
                          "se_x", "df_x", "on_frontier", "tpot_path", "throughput_path"]
LEVEL_COLUMNS = ["level", "best", "best_y", "best_low", "best_high", "runner_up", "runner_y", "ratio", "low", "high",
                 "separated", "reached", "between"]


def frontiers(setups: list[Setup], loads: list[Load], figs: dict[tuple, Fig], band: float) -> tuple[list[Frontier], str]:
    missing = [s.label for s in setups if s.gpus is None]
    if missing:
        return [], ("the GPU count of " + ", ".join(missing) + " is not recorded, so throughput per GPU is unknown "
                    "(state it on import: --setup-set NAME:gpus=N)")
    out = []
    sweeps: dict[tuple, list[Load]] = {}
    for ld in loads:
        sweeps.setdefault((ld.workload, ld.axis), []).append(ld)
    for (workload, axis), lds in sweeps.items():
        lds = sorted(lds, key=lambda ld: ld.x)
        rows: list[dict] = []
        curve_of: dict[str, list[str]] = {}
        for s in setups:
            curve_of[s.id] = []
            for ld in lds:
                t, y = figs.get((s.id, ld.id, "tpot", 50)), figs.get((s.id, ld.id, THROUGHPUT, 0))
                if t is None or y is None or not t.value > 0:
                    continue
                g = s.gpus or 1
                rows.append({"setup": s.id, "point": t.point, "load": ld.id, "x": 1000 / t.value,
                             "x_low": 1000 / t.high if t.high == t.high else math.nan,
                             "x_high": 1000 / t.low if t.low == t.low and t.low > 0 else math.nan,
                             "y": y.value / g, "y_low": y.low / g, "y_high": y.high / g, "se_y": y.se, "df_y": y.df,
                             "se_x": t.se, "df_x": t.df, "on_frontier": False, "tpot_path": t.path, "throughput_path": y.path})
                curve_of[s.id].append(ld.id)
        if not rows:
            continue
        pts = frame({c: [r[c] for r in rows] for c in FRONTIER_POINT_COLUMNS}, FRONTIER_POINT_COLUMNS)
        pts["on_frontier"] = fr.pareto(pts["x"].to_numpy(), pts["y"].to_numpy())
        levels, areas, common = _levels_and_areas(pts, curve_of, [s.id for s in setups], band)
        out.append(Frontier(workload, axis, pts, curve_of, levels, areas, common))
    return out, ""


def _curve(pts: pd.DataFrame, setup: str, loads: list[str]) -> tuple[list[float], list[float], list[dict]]:
    rows = {r["load"]: r for r in pts[pts["setup"] == setup].to_dict("records")}
    chosen = [rows[ld] for ld in loads if ld in rows]
    return [r["x"] for r in chosen], [r["y"] for r in chosen], chosen


def read_interval(reading: fr.Reading, chosen: list[dict]) -> tuple[float, float]:
    """The standard error (of the log) of a curve's value read between two loads, the weights held at
    the reading: the two loads' throughput errors combined on the linear scale (independent runs), and
    the Welch–Satterthwaite degrees of freedom."""
    parts = []
    for second, (k, weight) in enumerate(((reading.i, 1 - reading.w), (reading.j, reading.w))):
        if weight == 0 or (second and reading.i == reading.j):  # a load read as measured: its own error, once
            continue
        r = chosen[k]
        parts.append(((weight * r["y"] * r["se_y"]) ** 2, r["df_y"]))
    var = sum(v for v, _ in parts)
    if var != var or reading.value <= 0:
        return math.nan, math.inf
    terms = [v * v / d for v, d in parts if not math.isinf(d) and v > 0]
    df = var * var / sum(terms) if terms else math.inf
    return math.sqrt(var) / reading.value, df


def _levels_and_areas(pts: pd.DataFrame, curve_of: dict[str, list[str]], order: list[str],
                      band: float) -> tuple[pd.DataFrame, pd.DataFrame, tuple[float, float]]:
    curves_xy = {s: _curve(pts, s, curve_of[s]) for s in order if curve_of[s]}
    ranges = {s: fr.x_range(xs) for s, (xs, _, _) in curves_xy.items()}
    rows = []
    for level in fr.levels_at_least(list(ranges.values())):
        reached = []
        for s, (xs, ys, chosen) in curves_xy.items():
            r = fr.read_at_least(xs, ys, level)
            if r is not None:
                se, df = read_interval(r, chosen)
                between = (chosen[r.i]["load"], chosen[r.j]["load"])
                reached.append((r.value, s, se, df, between))
        reached.sort(key=lambda t: (-t[0], order.index(t[1])))
        if len(reached) < 2:
            continue
        (yb, sb, seb, dfb, betw), (yr, sr, ser, dfr, _) = reached[0], reached[1]
        se, df = stats.combine(seb, dfb, ser, dfr)
        d = math.log(yb / yr)
        lo, hi = stats.interval(d, se, df)
        blo, bhi = stats.interval(math.log(yb), seb, dfb)
        rows.append({"level": level, "best": sb, "best_y": yb, "best_low": math.exp(blo), "best_high": math.exp(bhi),
                     "runner_up": sr, "runner_y": yr, "ratio": yb / yr, "low": math.exp(lo), "high": math.exp(hi),
                     "separated": bool(lo > 0), "reached": [t[1] for t in reached], "between": list(betw)})
    levels = frame({c: [r[c] for r in rows] for c in LEVEL_COLUMNS}, LEVEL_COLUMNS)
    known = [r for r in ranges.values() if r[0] == r[0]]
    common = (max(r[0] for r in known), min(r[1] for r in known)) if known else (math.nan, math.nan)
    if not common[0] < common[1]:
        common = (math.nan, math.nan)
    arows = []
    for s, (xs, ys, _) in curves_xy.items():
        lo, hi = ranges[s]
        arows.append({"setup": s, "area": fr.area(xs, ys, *common), "own_area": fr.area(xs, ys, lo, hi) if lo < hi else math.nan,
                      "x_low": lo, "x_high": hi})
    acols = ["setup", "area", "own_area", "x_low", "x_high"]
    return levels, frame({c: [r[c] for r in arows] for c in acols}, acols), common


