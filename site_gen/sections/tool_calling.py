"""Tool calling: a multi-turn benchmark's points per run and scenario, and turn latency."""
from __future__ import annotations

import pandas as pd

from site_gen.analyse import tool_calling as calc
from site_gen.load import require
from site_gen.render import views
from site_gen.sections.base import BlockSpec, Section


def check(tools: dict, file, checkpoint_ref) -> None:
    ids = set()
    for i, run in enumerate(tools["runs"]):
        where = f"$.tool_calling.runs[{i}]"
        checkpoint_ref(run["checkpoint"], where + ".checkpoint")
        require(run["id"] not in ids, f"duplicate run id '{run['id']}'", file, where + ".id")
        ids.add(run["id"])
        names = set()
        for j, s in enumerate(run["scenarios"]):
            require(s["points"] <= tools["max_points"], f"points {s['points']} above max_points {tools['max_points']}", file, f"{where}.scenarios[{j}].points")
            require(s["id"] not in names, f"duplicate scenario '{s['id']}'", file, f"{where}.scenarios[{j}].id")
            names.add(s["id"])


def engine_records(data: dict):
    for i, r in enumerate(data.get("tool_calling", {}).get("runs", [])):
        yield r["checkpoint"], r["engine"], f"$.tool_calling.runs[{i}]"


def _points(runs: list[dict]) -> pd.DataFrame:
    rows = []
    for i, run in enumerate(runs):
        for j, s in enumerate(run["scenarios"]):
            rows.append({"run": run["id"], "checkpoint": run["checkpoint"], "engine": run["engine"], "date": run["date"],
                         "scenario": s["id"], "points": s["points"], "turn_latency_s": s.get("turn_latency_s"),
                         "source": f"$.tool_calling.runs[{i}].scenarios[{j}]"})
    return pd.DataFrame(rows, columns=["run", "checkpoint", "engine", "date", "scenario", "points", "turn_latency_s", "source"])


def analyse(a, t: dict) -> None:
    if not t["runs"]:
        return
    a.tool_points = _points(t["runs"])
    a.tool_totals = calc.run_totals(a.tool_points)
    a.tool_ranges = calc.ranges(a.tool_totals)
    a.tool_latency = calc.latency_ranges(a.tool_totals)
    a.tool_failed = calc.failed_everywhere(a.tool_points)
    a.tool_scenarios = calc.scenario_table(a.tool_points)
    a.tool_scale = calc.scale(a.tool_points, t["max_points"])


def csv(a) -> dict:
    if a.tool_totals is None:
        return {}
    return {"tool-calling-runs": a.tool_totals, "tool-calling-scenarios": a.tool_scenarios}


SECTION = Section(
    key="tool-calling", title="Tool calling", name="tool_calling", view=views.tool_calling, check=check,
    records="runs", light=True, engine_records=engine_records, analyse=analyse, csv=csv,
    blocks={"tool-calling": BlockSpec("tool-calling", "tool_calling", (),
                                      '<div id="{{ id }}">{{ tool_summary(tool_calling, engines) }}</div>',
                                      "tool-calling summary sentence", "tool-calling")},
)
