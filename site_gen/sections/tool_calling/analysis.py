"""Tool calling's analysis: points per run, ranges across runs, scenarios failed everywhere, turn latency."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from site_gen.analysis.frames import cells, field, frame, groups, median, missing
from site_gen.sections.contract import AnalysisPart


def _known(values: list) -> list:
    return [v for v in values if v is not None and v == v]  # not `missing`: inline, a call a value less


def _like(values: list, column: list | pd.Series):
    """`values` as a column computed from `column`: where pandas makes `column` an object column
    (a frame's, or a list of numbers and None holding no number), the results stay objects."""
    if isinstance(column, pd.Series):
        objects = column.dtype == object
    else:
        objects = not any(type(v) is int or type(v) is float for v in column)
    return pd.Series(values, dtype=object) if objects else values


def _low_high(values: list) -> tuple:
    known = _known(values)
    return (min(known), max(known)) if known else (np.nan, np.nan)


def run_totals(points: Mapping[str, list]) -> pd.DataFrame:
    """One row per run: total points, scenarios, median turn latency (`points`: `point_columns`)."""
    names = ["run", "checkpoint", "engine", "date"]
    found = groups(*(points[c] for c in names))
    pts, scenario, latency = (points[c] for c in ("points", "scenario", "turn_latency_s"))
    out = {name: [k[j] for k in found] for j, name in enumerate(names)}
    out["points"] = [sum(_known([pts[i] for i in rows])) for rows in found.values()]
    out["scenarios"] = [len(set(_known([scenario[i] for i in rows]))) for rows in found.values()]
    out["latency"] = _like([median(latency[i] for i in rows) for rows in found.values()], latency)
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


def failed_everywhere(points: Mapping[str, list]) -> list[str]:
    """Scenarios that scored zero in every run."""
    best: dict[str, object] = {}
    for scenario, p in zip(points["scenario"], points["points"]):
        if not missing(scenario) and not missing(p):
            best[scenario] = max(best[scenario], p) if scenario in best else p
    return [s for s in sorted(best) if best[s] == 0]


def scenario_table(points: Mapping[str, list]) -> pd.DataFrame:
    """Scenario by run: the per-scenario split, runs as columns in receipt order."""
    scored = cells(points["scenario"], points["run"], points["points"])
    runs = list(dict.fromkeys(points["run"]))
    if "scenario" in runs:
        raise ValueError("cannot insert scenario, already exists")
    scenarios = sorted(set(points["scenario"]))
    # One table of values, as pandas reshapes it: a run lacking a scenario makes every column float.
    gap = len(scored) < len(scenarios) * len(runs)
    table = {run: [float(scored[s, run]) if (s, run) in scored else np.nan for s in scenarios] if gap
             else [scored[s, run] for s in scenarios] for run in runs}
    return frame({"scenario": scenarios, **table}, columns=["scenario", *runs])


def scale(points: Mapping[str, list], max_points: int) -> dict:
    """How many scenarios the runs cover, and the most points a run can score."""
    scenarios = len(set(_known(points["scenario"])))
    return {"scenarios": scenarios, "max_total": scenarios * max_points}


@dataclass
class ToolCallingResult:
    totals: pd.DataFrame           # one row per run: points, scenarios, median turn latency
    ranges: pd.DataFrame           # lowest and highest total per checkpoint and engine
    latency: pd.DataFrame          # turn latency range per engine
    failed: list[str]              # scenarios no run passed
    scenarios: pd.DataFrame        # points per scenario and run
    scale: dict[str, Any]          # scenarios and the largest possible total


POINT_COLUMNS = ["run", "checkpoint", "engine", "date", "scenario", "points", "turn_latency_s"]


def point_columns(runs: list[dict]) -> dict[str, list]:
    """One entry per run and scenario, each field as a list (a scenario without a turn latency: None).
    Every figure of the section is a sum, count, median or range of these over a group: a frame of
    them (~700 in the example) would be built only to be read back as these lists (~1 ms a report)."""
    out: dict[str, list] = {name: [] for name in POINT_COLUMNS}
    for run in runs:  # a run's fields repeated over its scenarios, the scenarios' fields a list each
        scenarios = run["scenarios"]
        for name, key in (("run", "id"), ("checkpoint", "checkpoint"), ("engine", "engine"), ("date", "date")):
            out[name] += [run[key]] * len(scenarios)
        for name, key in (("scenario", "id"), ("points", "points"), ("turn_latency_s", "turn_latency_s")):
            out[name] += field(scenarios, key)
    return out


def analyse(a, t: dict) -> ToolCallingResult | None:
    if not t["runs"]:
        return None
    points = point_columns(t["runs"])
    totals = run_totals(points)
    return ToolCallingResult(totals=totals, ranges=ranges(totals), latency=latency_ranges(totals),
                             failed=failed_everywhere(points), scenarios=scenario_table(points),
                             scale=scale(points, t["max_points"]))


PART = AnalysisPart(analyse=analyse)
