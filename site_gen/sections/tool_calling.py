"""Tool calling: a multi-turn benchmark's points per run and scenario, and turn latency."""
from __future__ import annotations

from typing import Any

import pandas as pd

from site_gen.analyse import tool_calling as calc
from site_gen.analyse.frames import frame
from site_gen.analyse.report import Analysis
from site_gen.load import require
from site_gen.render import format as fmt
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
    names = ["run", "checkpoint", "engine", "date", "scenario", "points", "turn_latency_s", "source"]
    rows = [(run["id"], run["checkpoint"], run["engine"], run["date"], s["id"], s["points"], s.get("turn_latency_s"),
             f"$.tool_calling.runs[{i}].scenarios[{j}]") for i, run in enumerate(runs) for j, s in enumerate(run["scenarios"])]
    # Column by column: a frame from row records goes through an object matrix first.
    return frame(dict(zip(names, map(list, zip(*rows))))) if rows else pd.DataFrame(None, columns=names)


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


def view(a: Analysis) -> dict[str, Any] | None:
    t = a.report.section("tool_calling")
    if t is None or a.tool_totals is None:
        return None
    scenarios, maximum = a.tool_scale["scenarios"], a.tool_scale["max_total"]
    per_cp = []
    for c in a.paired_checkpoints:
        r = a.tool_ranges[a.tool_ranges["checkpoint"] == c].set_index("engine")
        if r.empty:
            continue
        get = lambda role: fmt.count_range(r.loc[role, "low"], r.loc[role, "high"]) if role in r.index else fmt.MISSING
        per_cp.append({"checkpoint": c, "baseline": get("baseline"), "candidate": get("candidate")})
    lat = a.tool_latency.set_index("engine")
    latency = {role: fmt.number_range(lat.loc[role, "low"], lat.loc[role, "high"], 1, " s")
               if role in lat.index and not pd.isna(lat.loc[role, "low"]) else None for role in ("baseline", "candidate")}
    runs = [{"id": r["run"], "checkpoint": r["checkpoint"], "engine": a.report.baseline.name if r["engine"] == "baseline" else a.report.candidate.name,
             "date": r["date"], "points": int(r["points"]), "max": maximum,
             "latency": fmt.NOT_MEASURED if pd.isna(r["latency"]) else fmt.seconds(r["latency"])}
            for r in a.tool_totals.to_dict("records")]
    run_ids = [r["id"] for r in runs]
    failed = set(a.tool_failed)
    split = [{"scenario": s["scenario"], "points": [("" if pd.isna(s[rid]) else str(int(s[rid]))) for rid in run_ids],
              "failed": s["scenario"] in failed}
             for s in a.tool_scenarios.to_dict("records")]
    return {"benchmark": t["benchmark"], "scenarios": scenarios, "max": maximum, "max_points": t["max_points"], "per_checkpoint": per_cp,
            "failed": a.tool_failed, "failed_count": len(a.tool_failed), "latency": latency,
            "concurrency": t.get("concurrency"), "note": t.get("note", ""), "runs": runs, "split": split}


SECTION = Section(
    key="tool-calling", title="Tool calling", name="tool_calling", view=view, check=check,
    records="runs", light=True, engine_records=engine_records, analyse=analyse, csv=csv,
    blocks={"tool-calling": BlockSpec("tool-calling", "tool_calling", (),
                                      '<div id="{{ id }}">{{ tool_summary(tool_calling, engines) }}</div>',
                                      "tool-calling summary sentence", "tool-calling")},
)
