"""A study's analysis: every setup's figures at every load point with intervals that know run-to-run
noise, every pair of setups compared with verdicts held to a false discovery rate over the whole study,
the rankings with their ties, the run-to-run allowance a one-run setup is judged against, the Pareto
frontier of throughput per GPU against interactivity, and the service-level objectives.

Each table keeps the JSON path of what it was computed from (`path`) and how (`method`, `rule`).
The statistics are in `stats.py` (on logs), the frontier's geometry in `site_gen/analysis/frontier.py`.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any, cast

import pandas as pd

from site_gen.analysis import bootstrap as bs
from site_gen.analysis.frames import frame
from site_gen.sections.serving.analysis import load as serving_load
from site_gen.sections.serving.analysis.points import METRICS, Point, curves as sweeps, itl_is_tpot
from site_gen.sections.study.analysis import stats
from site_gen.sections.study.analysis.curves import Frontier, frontiers
from site_gen.sections.study.analysis.figures import (BELOW, COMPARED, ONE_RUN, ONE_RUN_NONE, RUNS, SATURATED,  # noqa: F401
                                                      THROUGHPUT, Fig, classes, finish, latency_figs, pool,
                                                      throughput_fig)
from site_gen.sections.study.analysis.points import Load, Setup, load_of, read  # noqa: F401
from site_gen.sections.study.analysis.verdicts import (COMPARISON_COLUMNS, RANK_COLUMNS, RULE_ALLOWANCE,  # noqa: F401
                                                       RULE_BAND, RULE_RUNS, count, figure_key, pairs, ranks, verdicts)
from site_gen.sections.study.analysis.verdicts import compare as compare_pairs
from site_gen.sections.contract import AnalysisPart


SETUP_COLUMNS = ["setup", "label", "engine", "version", "parallelism", "hardware", "gpus", "gpus_origin", "format",
                 "runs", "rows", "load_points", "path"]
POINT_COLUMNS = ["setup", "point", "load", "workload", "load_label", "axis", "x", "runs", "requests", "failed",
                 "duration_s", "rows", "load_class", "path"]
FIGURE_COLUMNS = ["setup", "point", "load", "metric", "percentile", "value", "low", "high", "se", "df", "runs",
                  "spread_low", "spread_high", "method", "variance", "n", "load_class", "path"]


@dataclass
class StudyResult:
    order: list[str]                # setup ids in the receipt's order
    labels: dict[str, str]
    baseline: str | None
    band: float
    bootstrap: bs.Bootstrap
    metrics: tuple[str, ...]        # latency metrics shown (ITL left out where it is TPOT)
    itl_is_tpot: bool
    setups: pd.DataFrame
    loads: list[Load]
    points: pd.DataFrame
    figures: pd.DataFrame
    allowances: pd.DataFrame
    comparisons: pd.DataFrame
    ranks: pd.DataFrame
    counts: dict[str, dict[str, int]]
    tests: int                      # comparisons with a p-value: the Benjamini–Hochberg family
    fdr: float
    frontiers: list[Frontier] = field(default_factory=list)
    no_frontier: str = ""           # why no frontier is drawn, when none is
    slo: tuple = ()
    objectives: pd.DataFrame | None = None
    capacity: list[dict] = field(default_factory=list)   # per setup and sweep: its heaviest load meeting every objective

    @property
    def repeated(self) -> list[str]:
        """The setups with two or more runs at some load point."""
        return [s for s, r in zip(self.setups["setup"], self.setups["runs"]) if r >= 2]

    def share(self, verdict: str) -> float:
        c = self.counts.get("all")
        return c[verdict] / c["cells"] if c and c["cells"] else math.nan


# -- service-level objectives -----------------------------------------------------------------------

def _objectives(setups: list[Setup], figs: dict[tuple, Fig], slo: tuple) -> tuple[pd.DataFrame, list[dict]]:
    cols = ["setup", "point", "objective", "metric", "percentile", "limit", "value", "low", "high", "met", "sure"]
    rows, capacity = [], []
    for s in setups:
        met_at: dict[str, bool | None] = {}
        for p in s.points:
            all_met: bool | None = True
            for o in slo:
                f = figs.get((s.id, p.id, o[0], o[1]))
                v, lo, hi = (f.value, f.low, f.high) if f else (math.nan,) * 3
                met, sure = serving_load.meets(v, lo, hi, o[2])
                rows.append(dict(zip(cols, (s.id, p.id, serving_load.objective_key(o), o[0], o[1], o[2], v, lo, hi, met, sure))))
                all_met = None if met is None or all_met is None else (all_met and met)
            met_at[p.id] = all_met
        for (workload, axis), curve in sweeps(cast("list[Point]", s.points)).items():
            best, known = serving_load.capacity(curve, met_at)
            at = next((x for x in curve if x.id == best), None)
            capacity.append({"setup": s.id, "workload": workload, "axis": axis, "point": best, "known": known,
                             "load": at.load if at else None, "x": at.x if at else math.nan,
                             "heaviest": bool(best) and curve[-1].id == best})
    return frame({c: [r[c] for r in rows] for c in cols}, cols), capacity


# -- the whole -------------------------------------------------------------------------------------

def _loads(setups: list[Setup]) -> list[Load]:
    found: dict[tuple, Load] = {}
    ids: set[str] = set()
    for s in setups:
        for p in s.points:
            k = load_of(p)
            if k not in found:
                # The point's id, unless another load took it (setups of other workloads, allowed on import).
                lid = p.id if p.id not in ids else next(f"{p.id}-{n}" for n in itertools.count(2) if f"{p.id}-{n}" not in ids)
                ids.add(lid)
                found[k] = Load(k, lid, p.workload, p.load, p.axis, p.x, [])
            found[k].setups.append(s.id)
    return sorted(found.values(), key=lambda ld: (ld.workload, ld.axis, ld.x, ld.key[1], ld.key[2] or 0))


# `sitegen compare` of two studies: its hooks (releases.py).
from site_gen.sections.study.analysis.releases import ALLOW, compare, setup  # noqa: E402,F401


def analyse(a, part: dict) -> StudyResult | None:
    setups = read(part)
    if len(setups) < 2:
        return None
    b = bs.Bootstrap()
    sides = {s.id: s.points for s in setups}
    same = itl_is_tpot(sides)  # type: ignore[arg-type]
    metrics = tuple(m for m in METRICS if not (same and m == "itl" and not any(o[0] == "itl" for o in a.slo)))
    loads = _loads(setups)
    load_id = {(s.id, p.id): next(ld.id for ld in loads if ld.key == load_of(p)) for s in setups for p in s.points}
    fig_list: list[Fig] = []
    for s in setups:
        for p in s.points:
            lid = load_id[s.id, p.id]
            fig_list += latency_figs(p, lid, metrics, b)
            t = throughput_fig(p, lid, b)
            if t is not None:
                fig_list.append(t)
    figs = {(f.setup, f.point, f.metric, f.percentile): f for f in fig_list}
    load_class = {s.id: classes(s, figs) for s in setups}
    for f in fig_list:
        f.load_class = load_class[f.setup][f.point]
    variances, allowances = pool(fig_list)
    for f in fig_list:
        finish(f, variances)
    # Keyed by the study's load id from here on: setups compare where they ran the same load.
    by_load = {(f.setup, f.load, f.metric, f.percentile): f for f in fig_list}
    order = [s.id for s in setups]
    baseline = part.get("baseline")
    rows = compare_pairs(loads, by_load, pairs(order, baseline), allowances, a.band, metrics)
    tests = verdicts(rows, stats.FDR)
    comparisons = frame({c: [r[c] for r in rows] for c in COMPARISON_COLUMNS}, COMPARISON_COLUMNS)
    ranked = ranks(rows, by_load, loads, order, metrics)
    drawn, why = frontiers(setups, loads, by_load, a.band)
    result = StudyResult(
        order=order, labels={s.id: s.label for s in setups}, baseline=baseline, band=a.band, bootstrap=b, metrics=metrics,
        itl_is_tpot=same, setups=_setups_frame(setups), loads=loads, points=_points_frame(setups, load_id, load_class),
        figures=frame({c: [getattr(f, c) for f in fig_list] for c in FIGURE_COLUMNS}, FIGURE_COLUMNS),
        allowances=allowances, comparisons=comparisons,
        ranks=frame({c: [r[c] for r in ranked] for c in RANK_COLUMNS}, RANK_COLUMNS),
        counts=count(comparisons), tests=tests, fdr=stats.FDR, frontiers=drawn, no_frontier=why, slo=tuple(a.slo))
    if a.slo:
        result.objectives, result.capacity = _objectives(setups, figs, a.slo)
    return result


def _setups_frame(setups: list[Setup]) -> pd.DataFrame:
    rows = [{"setup": s.id, "label": s.label, "engine": s.fact("engine") or "", "version": s.fact("engine_version") or "",
             "parallelism": s.fact("parallelism") or "", "hardware": s.fact("hardware") or "",
             "gpus": float(s.gpus) if s.gpus else math.nan, "gpus_origin": s.gpus_origin, "format": s.format,
             "runs": s.runs, "rows": all(p.has_rows for p in s.points), "load_points": len(s.points), "path": s.path}
            for s in setups]
    return frame({c: [r[c] for r in rows] for c in SETUP_COLUMNS}, SETUP_COLUMNS)


def _points_frame(setups: list[Setup], load_id: dict, load_class: dict) -> pd.DataFrame:
    rows: list[dict[str, Any]] = []
    for s in setups:
        for p in s.points:
            failed = [r.get("failed") for r in p.repeats]
            rows.append({"setup": s.id, "point": p.id, "load": load_id[s.id, p.id], "workload": p.workload,
                         "load_label": p.load, "axis": p.axis, "x": p.x, "runs": len(p.repeats),
                         "requests": sum(r["completed"] + (r.get("failed") or 0) for r in p.repeats),
                         "failed": float(sum(f or 0 for f in failed)) if None not in failed else math.nan,
                         "duration_s": float(sum(r["duration_s"] for r in p.repeats)), "rows": p.has_rows,
                         "load_class": load_class[s.id][p.id], "path": p.path})
    return frame({c: [r[c] for r in rows] for c in POINT_COLUMNS}, POINT_COLUMNS)


PART = AnalysisPart(analyse=analyse, compare=compare, setup=setup, allow=ALLOW)
