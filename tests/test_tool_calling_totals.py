"""Tool calling's figures (sections/tool_calling/analysis.py, read from the runs' scenarios as lists)
against pandas' own groupby and pivot over a frame of the same records, on varied random receipts."""
from __future__ import annotations

import math
import random

import pandas as pd
import pytest

from site_gen.sections.tool_calling import analysis as tool_calling

SCENARIOS = ["S01", "S02", "Ünïcode", "日本"]


def _runs(rng: random.Random) -> list[dict]:
    latency = rng.choice(["all", "some", "none", "ints"])
    runs = []
    for i in range(rng.randint(1, 5)):
        scenarios = []
        for sid in rng.sample(SCENARIOS, rng.randint(1, len(SCENARIOS))):
            s = {"id": sid, "points": rng.randint(0, 2)}
            if latency == "all" or (latency == "some" and rng.random() < 0.5):
                s["turn_latency_s"] = round(rng.uniform(0.1, 9), 2)
            elif latency == "ints":
                s["turn_latency_s"] = rng.randint(1, 9)
            scenarios.append(s)
        runs.append({"id": f"r{i}", "checkpoint": rng.choice(["K4", "K6"]), "engine": rng.choice(["baseline", "candidate"]),
                     "date": "2026-01-0" + str(1 + i), "scenarios": scenarios})
    return runs


def _frame(runs: list[dict]) -> pd.DataFrame:
    return pd.DataFrame([{"run": r["id"], "checkpoint": r["checkpoint"], "engine": r["engine"], "date": r["date"],
                          "scenario": s["id"], "points": s["points"], "turn_latency_s": s.get("turn_latency_s")}
                         for r in runs for s in r["scenarios"]])


def _same(a, b) -> bool:
    return (a != a and b != b) or a == b or (isinstance(a, float) and isinstance(b, float) and math.isclose(a, b))


@pytest.mark.parametrize("seed", range(40))
def test_tool_calling_figures_are_pandas_groupby(seed):
    runs = _runs(random.Random(seed))
    df = _frame(runs)
    points = tool_calling.point_columns(runs)
    totals = tool_calling.run_totals(points)
    want = df.groupby(["run", "checkpoint", "engine", "date"], sort=False).agg(
        points=("points", "sum"), scenarios=("scenario", "nunique"), latency=("turn_latency_s", "median")).reset_index()
    assert totals[["run", "checkpoint", "engine", "date", "points", "scenarios"]].to_dict("list") == \
        want[["run", "checkpoint", "engine", "date", "points", "scenarios"]].to_dict("list")
    assert all(_same(float(a), float(b)) for a, b in zip(totals["latency"].tolist(), want["latency"].tolist()))
    # An object column of latencies (no scenario gave one) stays one: its medians are objects too.
    assert (totals["latency"].dtype == object) == (df["turn_latency_s"].dtype == object)

    ranges = tool_calling.ranges(totals)
    by = totals.groupby(["checkpoint", "engine"], sort=False)
    want_ranges = by.agg(low=("points", "min"), high=("points", "max"), runs=("run", "count")).reset_index()
    assert ranges[["checkpoint", "engine", "low", "high", "runs"]].to_dict("list") == want_ranges.to_dict("list")

    latency = tool_calling.latency_ranges(totals)
    want_latency = totals.assign(latency=totals["latency"].astype(float)).groupby("engine", sort=False)["latency"]
    for row, low, high in zip(latency.to_dict("records"), want_latency.min(), want_latency.max()):
        assert _same(float(row["low"]), low) and _same(float(row["high"]), high)

    best = df.groupby("scenario")["points"].max()
    assert tool_calling.failed_everywhere(points) == sorted(best[best == 0].index)

    table = tool_calling.scenario_table(points)
    pivot = df.pivot(index="scenario", columns="run", values="points").reindex(columns=list(dict.fromkeys(df["run"])))
    pd.testing.assert_frame_equal(table.set_index("scenario"), pivot, check_names=False,
                                  check_dtype=not pivot.isna().any().any())
    assert tool_calling.scale(points, 3) == {"scenarios": df["scenario"].nunique(), "max_total": 3 * df["scenario"].nunique()}
