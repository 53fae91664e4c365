"""Tool calling's analysis: points per run, ranges across runs, scenarios failed everywhere, turn latency."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from site_gen.analysis.frames import cells, empty, frame, groups, median, missing
from site_gen.sections.contract import AnalysisPart


def _known(values: list) -> list:
    return [v for v in values if not missing(v)]


def _like(values: list, column: pd.Series):
    """`values` as a column computed from `column`: an object column's results stay objects."""
    return pd.Series(values, dtype=object) if column.dtype == object else values


def _low_high(values: list) -> tuple:
    known = _known(values)
    return (min(known), max(known)) if known else (np.nan, np.nan)


def run_totals(points: pd.DataFrame) -> pd.DataFrame:
    """One row per run: total points, scenarios, median turn latency."""
    names = ["run", "checkpoint", "engine", "date"]
    found = groups(*(points[c].tolist() for c in names))
    pts, scenario, latency = (points[c].tolist() for c in ("points", "scenario", "turn_latency_s"))
    out = {name: [k[j] for k in found] for j, name in enumerate(names)}
    out["points"] = [sum(_known([pts[i] for i in rows])) for rows in found.values()]
    out["scenarios"] = [len(set(_known([scenario[i] for i in rows]))) for rows in found.values()]
    out["latency"] = _like([median(latency[i] for i in rows) for rows in found.values()], points["turn_latency_s"])
    return frame(out, columns=[*names, "points", "scenarios", "latency"])


def ranges(totals: pd.DataFrame) -> pd.DataFrame:
    """Per checkpoint and engine: lowest and highest total across runs."""
    found = groups(totals["checkpoint"].tolist(), totals["engine"].tolist())
    pts, run, scenarios = (totals[c].tolist() for c in ("points", "run", "scenarios"))
    spans = [_low_high([pts[i] for i in rows]) for rows in found.values()]
    return frame({"checkpoint": [k[0] for k in found], "engine": [k[1] for k in found],
                         "low": [s[0] for s in spans], "high": [s[1] for s in spans],
                         "runs": [len(_known([run[i] for i in rows])) for rows in found.values()],
                         "scenarios": [max(_known([scenarios[i] for i in rows]), default=np.nan) for rows in found.values()]},
                        columns=["checkpoint", "engine", "low", "high", "runs", "scenarios"])


def latency_ranges(totals: pd.DataFrame) -> pd.DataFrame:
    """Per engine, across all its runs: range of the runs' median turn latency."""
    found = groups(totals["engine"].tolist())
    latency, run = totals["latency"].tolist(), totals["run"].tolist()
    spans = [_low_high([latency[i] for i in rows]) for rows in found.values()]
    return frame({"engine": [k[0] for k in found], "low": _like([s[0] for s in spans], totals["latency"]),
                         "high": _like([s[1] for s in spans], totals["latency"]),
                         "runs": [len(_known([run[i] for i in rows])) for rows in found.values()]},
                        columns=["engine", "low", "high", "runs"])


def failed_everywhere(points: pd.DataFrame) -> list[str]:
    """Scenarios that scored zero in every run."""
    best: dict[str, object] = {}
    for scenario, p in zip(points["scenario"].tolist(), points["points"].tolist()):
        if not missing(scenario) and not missing(p):
            best[scenario] = max(best[scenario], p) if scenario in best else p
    return [s for s in sorted(best) if best[s] == 0]


def scenario_table(points: pd.DataFrame) -> pd.DataFrame:
    """Scenario by run: the per-scenario split, runs as columns in receipt order."""
    scored = cells(points["scenario"].tolist(), points["run"].tolist(), points["points"].tolist())
    runs = list(dict.fromkeys(points["run"].tolist()))
    if "scenario" in runs:
        raise ValueError("cannot insert scenario, already exists")
    scenarios = sorted(set(points["scenario"].tolist()))
    # One table of values, as pandas reshapes it: a run lacking a scenario makes every column float.
    gap = len(scored) < len(scenarios) * len(runs)
    table = {run: [float(scored[s, run]) if (s, run) in scored else np.nan for s in scenarios] if gap
             else [scored[s, run] for s in scenarios] for run in runs}
    return frame({"scenario": scenarios, **table}, columns=["scenario", *runs])


def scale(points: pd.DataFrame, max_points: int) -> dict:
    """How many scenarios the runs cover, and the most points a run can score."""
    scenarios = len(set(_known(points["scenario"].tolist())))
    return {"scenarios": scenarios, "max_total": scenarios * max_points}


@dataclass
class ToolCallingResult:
    points: pd.DataFrame | None    # one row per run and scenario (read by the analysis only: `lighten` drops it)
    totals: pd.DataFrame           # one row per run: points, scenarios, median turn latency
    ranges: pd.DataFrame           # lowest and highest total per checkpoint and engine
    latency: pd.DataFrame          # turn latency range per engine
    failed: list[str]              # scenarios no run passed
    scenarios: pd.DataFrame        # points per scenario and run
    scale: dict[str, Any]          # scenarios and the largest possible total


def _points(runs: list[dict]) -> pd.DataFrame:
    names = ["run", "checkpoint", "engine", "date", "scenario", "points", "turn_latency_s", "source"]
    rows = [(run["id"], run["checkpoint"], run["engine"], run["date"], s["id"], s["points"], s.get("turn_latency_s"),
             f"$.tool_calling.runs[{i}].scenarios[{j}]") for i, run in enumerate(runs) for j, s in enumerate(run["scenarios"])]
    # Column by column: a frame from row records goes through an object matrix first.
    return frame(dict(zip(names, map(list, zip(*rows))))) if rows else empty(names)


def analyse(a, t: dict) -> ToolCallingResult | None:
    if not t["runs"]:
        return None
    points = _points(t["runs"])
    totals = run_totals(points)
    return ToolCallingResult(points=points, totals=totals, ranges=ranges(totals), latency=latency_ranges(totals),
                             failed=failed_everywhere(points), scenarios=scenario_table(points),
                             scale=scale(points, t["max_points"]))


def lighten(result: ToolCallingResult) -> ToolCallingResult:
    """Without the per-scenario points frame, which only the analysis itself reads."""
    return dataclasses.replace(result, points=None)


PART = AnalysisPart(analyse=analyse, lighten=lighten)
