"""Serving's analysis: latency percentiles with intervals and verdicts (latency.py), throughputs,
tokens, saturation and the service-level objectives (load.py), as one typed result.

Each table keeps the JSON path of what it was computed from (`path`) and how (`method`)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from site_gen.analysis import bootstrap as bs
from site_gen.analysis.frames import frame
from site_gen.analysis.verdict import INTERVAL_VERDICTS
from site_gen.sections.serving.analysis import latency, load
from site_gen.sections.serving.analysis.points import METRICS, PERCENTILES, Point, curves, itl_agreement, read
from site_gen.sections.serving.analysis.releases import ALLOW, compare, setup  # noqa: F401  (`sitegen compare`'s hooks)
from site_gen.sections.serving.analysis.series import HISTORY, SERIES  # noqa: F401  (history rows, series figures)
from site_gen.sections.contract import AnalysisPart

# The shares of requests a distribution's table reads (100: the highest value).
QUANTILES = (10, 25, 50, 75, 90, 99, 100)
POINT_COLUMNS = ["role", "point", "workload", "load", "axis", "x", "rate", "concurrency", "repeats", "requests",
                 "failed", "duration_s", "rows", "path"]
PERCENTILE_COLUMNS = ["role", "point", "metric", "percentile", "value", "low", "high", "spread_low", "spread_high",
                      "method", "n", "path"]
CELL_COLUMNS = ["baseline_point", "candidate_point", "workload", "load", "kind", "metric", "percentile", "baseline",
                "candidate", "ratio", "low", "high", "method", "paired", "verdict"]


@dataclass
class ServingResult:
    roles: list[str]                  # the sides present: candidate, and baseline when there is one
    bootstrap: bs.Bootstrap
    band: float
    metrics: tuple[str, ...]          # the latency metrics shown (ITL left out where it is TPOT)
    itl_is_tpot: bool                 # a request's ITL (its mean gap) is its TPOT, to within the noise band, for every request
    points: pd.DataFrame              # per side and load point
    percentiles: pd.DataFrame         # per side, load point, metric and percentile, with intervals
    cells: pd.DataFrame               # per matched load point: latency and throughput ratios, verdicts
    counts: dict[str, dict[str, int]]  # verdicts per kind of cell (latency, throughput) and per metric
    ranges: dict[str, tuple[float, float]]  # lowest and highest ratio, by the same keys as `counts`
    throughput: pd.DataFrame          # per side and load point
    tokens: pd.DataFrame
    gaps: pd.DataFrame                # every-gap inter-token summaries, per run
    itl_agreement: tuple[int, int, float] | None  # requests with ITL equal to TPOT, requests, largest difference (share)
    matched: list[dict]               # matched load points: baseline, candidate, paired, method
    saturation: dict[tuple[str, str], str]      # (role, workload) -> the load point where the sweep saturates
    curves: dict[str, dict[tuple[str, str], list[str]]]  # role -> (workload, axis) -> point ids, lightest first
    samples: dict[tuple[str, str], dict[str, np.ndarray]] = field(repr=False, default_factory=dict)  # sorted values, for charts
    # (role, point, metric) -> its measured values' QUANTILES (the distributions' tables), and how many values
    quantiles: dict[tuple[str, str, str], tuple[list[float], int]] = field(repr=False, default_factory=dict)
    slo: tuple = ()
    objectives: pd.DataFrame | None = None  # per side, load point and objective: the percentile against its limit
    goodput: pd.DataFrame | None = None
    capacity: list[dict] = field(default_factory=list)  # per workload: each side's heaviest load meeting every objective
    gpus: dict[str, int] = field(default_factory=dict)  # role -> the GPUs its engine used, where the receipt says (1.4)

    @property
    def per_gpu(self) -> bool:
        """Every side's GPU count is known: its throughput reads per GPU too."""
        return all(r in self.gpus for r in self.roles)

    def share(self, kind: str, verdict: str) -> float:
        """The share of `kind`'s cells (latency, throughput) with `verdict` (the dashboard sorts by it); NaN with none."""
        c = self.counts.get(kind)
        return c[verdict] / c["cells"] if c and c["cells"] else math.nan


def _points_frame(sides: dict[str, list[Point]]) -> pd.DataFrame:
    rows = []
    for role, points in sides.items():
        for p in points:
            failed = [r.get("failed") for r in p.repeats]
            rows.append({"role": role, "point": p.id, "workload": p.workload, "load": p.load, "axis": p.axis, "x": p.x,
                         "rate": p.rate, "concurrency": float(p.concurrency) if p.concurrency is not None else math.nan,
                         "repeats": len(p.repeats), "requests": sum(r["completed"] + (r.get("failed") or 0) for r in p.repeats),
                         "failed": float(sum(f for f in failed if f is not None)) if None not in failed else math.nan,
                         "duration_s": float(sum(r["duration_s"] for r in p.repeats)), "rows": p.has_rows, "path": p.path})
    return frame({c: [r[c] for r in rows] for c in POINT_COLUMNS}, POINT_COLUMNS)


def _percentile_rows(p: Point, figures: dict[str, latency.Figures]) -> list[dict]:
    rows = []
    for metric, f in figures.items():
        for j, q in enumerate(PERCENTILES):
            if f.values[j] != f.values[j]:
                continue
            rows.append({"role": p.role, "point": p.id, "metric": metric, "percentile": q, "value": f.values[j],
                         "low": f.lows[j], "high": f.highs[j], "spread_low": f.spread[j][0], "spread_high": f.spread[j][1],
                         "method": f.method, "n": f.n, "path": f.paths[j]})
    return rows


def _matched(part: dict, sides: dict[str, list[Point]]) -> list[tuple[Point, Point, bool]]:
    if "baseline" not in sides:
        return []
    by_id = {role: {p.id: p for p in sides[role]} for role in sides}
    return [(by_id["baseline"][m["baseline"]], by_id["candidate"][m["candidate"]], bool(m["paired"]))
            for m in part.get("matched", [])]


def _cells(pairs, figures, band: float, b: bs.Bootstrap) -> tuple[list[dict], list[dict]]:
    rows, matched = [], []
    for pb, pc, paired in pairs:
        base = {"baseline_point": pb.id, "candidate_point": pc.id, "workload": pb.workload, "load": pb.load}
        methods = set()
        for metric, cells in latency.compare(pb, pc, figures[pb.role, pb.id], figures[pc.role, pc.id], paired, band, b).items():
            for c in cells:
                methods.add(c.method)
                rows.append({**base, "kind": "latency", "metric": metric, "percentile": c.percentile, "baseline": c.baseline,
                             "candidate": c.candidate, "ratio": c.ratio, "low": c.low, "high": c.high, "method": c.method,
                             "paired": c.method == latency.PAIRED, "verdict": c.verdict})
        for cell in load.throughput_cells(pb, pc, band, b):
            rows.append({**base, "kind": "throughput", "percentile": 0, "paired": False, **cell})
        matched.append({"baseline": pb.id, "candidate": pc.id, "paired": paired, "workload": pb.workload, "load": pb.load,
                        "methods": sorted(methods), "requests": (pb.pooled("error").size, pc.pooled("error").size)})
    return rows, matched


# A count's key for the cells of a verdict that have no interval (`NO_INTERVAL + "level"`): a cell of
# one run a side without rows takes the band rule on its ratio alone; one of too few requests is not
# resolved for want of an interval, not because its interval reaches over a band edge.
NO_INTERVAL = "no interval: "


def count(cells: pd.DataFrame) -> dict[str, dict[str, int]]:
    """Verdicts per kind of cell and per latency metric: faster, level, slower, not resolved, cells;
    and of each verdict, the cells without an interval (`NO_INTERVAL + verdict`, `NO_INTERVAL + "cells"`)."""
    out: dict[str, dict[str, int]] = {}
    kinds, metrics, verdicts, lows, highs = (cells[c].tolist() for c in ("kind", "metric", "verdict", "low", "high"))
    keys = (*INTERVAL_VERDICTS, "cells")
    for kind, metric, v, lo, hi in zip(kinds, metrics, verdicts, lows, highs):
        none = math.isnan(lo) or math.isnan(hi)
        for key in (kind, f"{kind}:{metric}"):
            entry = out.setdefault(key, {**dict.fromkeys(keys, 0), **{NO_INTERVAL + k: 0 for k in keys}})
            entry[v] += 1
            entry["cells"] += 1
            if none:
                entry[NO_INTERVAL + v] += 1
                entry[NO_INTERVAL + "cells"] += 1
    return out


def ratio_ranges(cells: pd.DataFrame) -> dict[str, tuple[float, float]]:
    """(lowest, highest) ratio per kind of cell and per metric, by `count`'s keys (NaN ratios left out)."""
    out: dict[str, tuple[float, float]] = {}
    for kind, metric, r in zip(cells["kind"].tolist(), cells["metric"].tolist(), cells["ratio"].tolist()):
        if r != r:
            continue
        for key in (kind, f"{kind}:{metric}"):
            low, high = out.get(key, (r, r))
            out[key] = (min(low, r), max(high, r))
    return out


def analyse(a, part: dict) -> ServingResult | None:
    sides = read(part)
    if not sides:
        return None
    b = bs.Bootstrap()
    agreement = itl_agreement(sides)
    # A request's mean gap within the noise band of its TPOT, request by request, is its TPOT as every
    # verdict here reads it (it differs only where a streamed chunk carried several tokens): shown once,
    # as TPOT; unless an objective names it. The real per-token gaps, where kept, are the `gaps`.
    same = agreement is not None and agreement[2] <= a.band
    metrics = tuple(m for m in METRICS if not (same and m == "itl" and not any(o[0] == "itl" for o in a.slo)))
    figures = {(p.role, p.id): latency.side_figures(p, metrics, b) for points in sides.values() for p in points}
    pct = [r for points in sides.values() for p in points for r in _percentile_rows(p, figures[p.role, p.id])]
    cell_rows, matched = _cells(_matched(part, sides), figures, a.band, b)
    cells = frame({c: [r.get(c, math.nan) for r in cell_rows] for c in CELL_COLUMNS}, CELL_COLUMNS)
    result = ServingResult(
        roles=list(sides), bootstrap=b, band=a.band, metrics=metrics, itl_is_tpot=same, points=_points_frame(sides),
        percentiles=frame({c: [r[c] for r in pct] for c in PERCENTILE_COLUMNS}, PERCENTILE_COLUMNS),
        cells=cells, counts=count(cells), ranges=ratio_ranges(cells), throughput=_throughput(sides, b), tokens=_tokens(sides),
        gaps=_gaps(sides), itl_agreement=agreement,
        matched=matched, saturation={}, curves={}, slo=tuple(a.slo),
        gpus={r: int(part["sides"][r]["gpus"]["value"]) for r in sides if "gpus" in part["sides"][r]})
    _sweeps(result, sides, figures)
    _samples(result, sides, metrics)
    if a.slo:
        _objectives(result, sides, figures, a.slo)
    return result


def _throughput(sides: dict[str, list[Point]], b: bs.Bootstrap) -> pd.DataFrame:
    cols = ["role", "point", "metric", "value", "low", "high", "spread_low", "spread_high", "method"]
    rows = []
    for points in sides.values():
        for p in points:
            for k, (v, lo, hi, smin, smax) in load.throughput(p, b).items():
                method = "t over runs" if len(p.repeats) >= 2 else "one run, no interval"
                rows.append(dict(zip(cols, (p.role, p.id, k, v, lo, hi, smin, smax, method))))
    return frame({c: [r[c] for r in rows] for c in cols}, cols)


def _tokens(sides: dict[str, list[Point]]) -> pd.DataFrame:
    cols = ["role", "point", "kind", "requests", "mean", "median", "p90", "max", "total", "path"]
    rows = [{"role": p.role, "point": p.id, **t} for points in sides.values() for p in points for t in load.tokens(p)]
    return frame({c: [r[c] for r in rows] for c in cols}, cols)


def _gaps(sides: dict[str, list[Point]]) -> pd.DataFrame:
    """Every-gap inter-token latency per run: the summary the importer made of every gap, else the
    figures the source states of them (`median_itl_ms`, ...: a source may keep no gaps)."""
    cols = ["role", "point", "repeat", "gaps", "mean_ms", "median_ms", "p90_ms", "p95_ms", "p99_ms", "max_ms", "path", "paths"]
    rows = []
    for points in sides.values():
        for p in points:
            for j, rep in enumerate(p.repeats):
                g = rep.get("itl_gaps")
                if g:
                    at = f"{p.path}.repeats[{j}].itl_gaps"
                    rows.append({"role": p.role, "point": p.id, "repeat": j, **{k: g[k] for k in cols[3:10]},
                                 "path": at, "paths": {k: f"{at}.{k}" for k in cols[3:10]}})
                    continue
                names = (("mean_ms", "mean"), ("median_ms", "median"), ("p90_ms", "p90"), ("p95_ms", "p95"), ("p99_ms", "p99"))
                stated = {k: p.stated(j, f"{name}_itl_ms") for k, name in names}
                if any(v is not None for v in stated.values()):
                    rows.append({"role": p.role, "point": p.id, "repeat": j, "gaps": math.nan, "max_ms": math.nan,
                                 **{k: math.nan if v is None else v for k, v in stated.items()},
                                 "path": f"{p.path}.repeats[{j}].stated",
                                 "paths": {k: p.stated_path(j, f"{name}_itl_ms") for k, name in names}})
    return frame({c: [r[c] for r in rows] for c in cols}, cols)


def _sweeps(result: ServingResult, sides: dict[str, list[Point]], figures) -> None:
    for role, points in sides.items():
        result.curves[role] = {}
        ttft = {p.id: f.values[0] for p in points if (f := figures[role, p.id].get("ttft"))}
        for key, curve in curves(points).items():
            result.curves[role][key] = [p.id for p in curve]
            found = load.saturation(curve, ttft)
            if found:
                result.saturation[(role, key[0])] = found


def _samples(result: ServingResult, sides: dict[str, list[Point]], metrics: tuple[str, ...]) -> None:
    for points in sides.values():
        for p in points:
            if p.has_rows:
                result.samples[(p.role, p.id)] = found = {m: np.sort(x[~np.isnan(x)]) for m in metrics if (x := p.pooled(m)).size}
                for m, v in found.items():
                    if v.size:
                        # one call for all (the same figures)
                        result.quantiles[(p.role, p.id, m)] = ([float(x) for x in np.percentile(v, QUANTILES)], int(v.size))


def _objectives(result: ServingResult, sides: dict[str, list[Point]], figures, slo: tuple) -> None:
    cols = ["role", "point", "objective", "metric", "percentile", "limit", "value", "low", "high", "met", "sure"]
    rows, good, met_at = [], [], {}
    for points in sides.values():
        for p in points:
            all_met: bool | None = True
            for o in slo:
                f = figures[p.role, p.id].get(o[0])
                j = PERCENTILES.index(o[1])
                v, lo, hi = (f.values[j], f.lows[j], f.highs[j]) if f else (math.nan,) * 3
                met, sure = load.meets(v, lo, hi, o[2])
                rows.append(dict(zip(cols, (p.role, p.id, load.objective_key(o), o[0], o[1], o[2], v, lo, hi, met, sure))))
                all_met = None if met is None or all_met is None else (all_met and met)
            met_at[p.role, p.id] = all_met
            g = load.goodput(p, slo)
            if g:
                good.append({"role": p.role, "point": p.id, **g})
    result.objectives = frame({c: [r[c] for r in rows] for c in cols}, cols)
    gcols = ["role", "point", "good", "requests", "share", "low", "high", "per_s", "per_s_low", "per_s_high"]
    result.goodput = frame({c: [r[c] for r in good] for c in gcols}, gcols)
    result.capacity = _capacity(sides, met_at)


def _capacity(sides: dict[str, list[Point]], met_at: dict) -> list[dict]:
    out = []
    by_id = {role: {p.id: p for p in points} for role, points in sides.items()}
    keys = list(dict.fromkeys(k for points in sides.values() for k in curves(points)))
    for key in keys:
        entry: dict[str, Any] = {"workload": key[0], "axis": key[1]}
        for role, points in sides.items():
            curve = curves(points).get(key)
            if curve is None:
                continue
            best, known = load.capacity(curve, {p.id: met_at[role, p.id] for p in curve})
            p = by_id[role][best] if best else None
            entry[role] = {"point": best, "known": known, "x": p.x if p else math.nan, "load": p.load if p else None,
                           "heaviest": curve[-1].id == best if best else False, "none": best is None and known}
        b, c = entry.get("baseline"), entry.get("candidate")
        entry["ratio"] = (c["x"] / b["x"] if b and c and b["point"] and c["point"] and math.isfinite(b["x"]) and math.isfinite(c["x"])
                          else math.nan)
        out.append(entry)
    return out


PART = AnalysisPart(analyse=analyse, history=HISTORY, series=SERIES, compare=compare, setup=setup, allow=ALLOW)
