"""Tool calling: points per run, ranges across runs, scenarios failed everywhere, turn latency."""
from __future__ import annotations

import pandas as pd


def run_totals(points: pd.DataFrame) -> pd.DataFrame:
    """One row per run: total points, scenarios, median turn latency."""
    g = points.groupby(["run", "checkpoint", "engine", "date"], sort=False)
    out = pd.DataFrame({"points": g["points"].sum(), "scenarios": g["scenario"].nunique(), "latency": g["turn_latency_s"].median()})
    return out.reset_index()


def ranges(totals: pd.DataFrame) -> pd.DataFrame:
    """Per checkpoint and engine: lowest and highest total across runs."""
    g = totals.groupby(["checkpoint", "engine"], sort=False)
    out = pd.DataFrame({"low": g["points"].min(), "high": g["points"].max(), "runs": g["run"].count(),
                        "scenarios": g["scenarios"].max()})
    return out.reset_index()


def latency_ranges(totals: pd.DataFrame) -> pd.DataFrame:
    """Per engine, across all its runs: range of the runs' median turn latency."""
    g = totals.groupby("engine", sort=False)
    out = pd.DataFrame({"low": g["latency"].min(), "high": g["latency"].max(), "runs": g["run"].count()})
    return out.reset_index()


def failed_everywhere(points: pd.DataFrame) -> list[str]:
    """Scenarios that scored zero in every run."""
    best = points.groupby("scenario", sort=True)["points"].max()
    return list(best[best == 0].index)


def scenario_table(points: pd.DataFrame) -> pd.DataFrame:
    """Scenario by run: the per-scenario split, runs as columns in receipt order."""
    wide = points.pivot(index="scenario", columns="run", values="points")
    wide = wide.reindex(columns=list(dict.fromkeys(points["run"])))
    wide.columns.name = None
    return wide.reset_index()


def scale(points: pd.DataFrame, max_points: int) -> dict:
    """How many scenarios the runs cover, and the most points a run can score."""
    scenarios = int(points["scenario"].nunique())
    return {"scenarios": scenarios, "max_total": scenarios * max_points}
