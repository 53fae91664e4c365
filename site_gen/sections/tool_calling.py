"""Tool calling: a multi-turn benchmark's points per run and scenario, and turn latency."""
from __future__ import annotations

from typing import Any

import pandas as pd

from site_gen.analysis import tool_calling as calc
from site_gen.analysis.frames import empty, frame
from site_gen.analysis.report import Analysis
from site_gen.core.errors import SitegenError
from site_gen.receipts.load import require
from site_gen.render import format as fmt, views
from site_gen.sections.base import BlockSpec, Section

def check(tools: dict, file, checkpoint_ref) -> None:
    # Each message and path is made only for the record at fault: a receipt holds thousands of scenarios.
    ids = set()
    max_points = tools["max_points"]
    for i, run in enumerate(tools["runs"]):
        checkpoint_ref(run["checkpoint"], f"$.tool_calling.runs[{i}].checkpoint")
        require(run["id"] not in ids, f"duplicate run id '{run['id']}'", file, f"$.tool_calling.runs[{i}].id")
        ids.add(run["id"])
        names = set()
        for j, s in enumerate(run["scenarios"]):
            if s["points"] > max_points:
                raise SitegenError(f"points {s['points']} above max_points {max_points}", file,
                                   f"$.tool_calling.runs[{i}].scenarios[{j}].points")
            if s["id"] in names:
                raise SitegenError(f"duplicate scenario '{s['id']}'", file, f"$.tool_calling.runs[{i}].scenarios[{j}].id")
            names.add(s["id"])


def engine_records(data: dict):
    for i, r in enumerate(data.get("tool_calling", {}).get("runs", [])):
        yield r["checkpoint"], r["engine"], f"$.tool_calling.runs[{i}]"


def _points(runs: list[dict]) -> pd.DataFrame:
    names = ["run", "checkpoint", "engine", "date", "scenario", "points", "turn_latency_s", "source"]
    rows = [(run["id"], run["checkpoint"], run["engine"], run["date"], s["id"], s["points"], s.get("turn_latency_s"),
             f"$.tool_calling.runs[{i}].scenarios[{j}]") for i, run in enumerate(runs) for j, s in enumerate(run["scenarios"])]
    # Column by column: a frame from row records goes through an object matrix first.
    return frame(dict(zip(names, map(list, zip(*rows))))) if rows else empty(names)


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
    ranges = {(r["checkpoint"], r["engine"]): r for r in views.rows(a.tool_ranges)}  # one row per checkpoint and engine
    for c in a.paired_checkpoints:
        if not any(k[0] == c for k in ranges):
            continue
        get = lambda role: fmt.count_range(ranges[(c, role)]["low"], ranges[(c, role)]["high"]) if (c, role) in ranges else fmt.MISSING
        per_cp.append({"checkpoint": c, "baseline": get("baseline"), "candidate": get("candidate")})
    lat = {r["engine"]: r for r in views.rows(a.tool_latency)}  # one row per engine
    latency = {role: fmt.number_range(lat[role]["low"], lat[role]["high"], 1, " s")
               if role in lat and not pd.isna(lat[role]["low"]) else None for role in ("baseline", "candidate")}
    runs = [{"id": r["run"], "checkpoint": r["checkpoint"], "engine": a.report.baseline.name if r["engine"] == "baseline" else a.report.candidate.name,
             "date": r["date"], "points": int(r["points"]), "max": maximum,
             "latency": fmt.NOT_MEASURED if pd.isna(r["latency"]) else fmt.seconds(r["latency"])}
            for r in views.rows(a.tool_totals)]
    run_ids = [r["id"] for r in runs]
    failed = set(a.tool_failed)
    split = [{"scenario": s["scenario"], "points": [("" if pd.isna(s[rid]) else str(int(s[rid]))) for rid in run_ids],
              "failed": s["scenario"] in failed}
             for s in views.rows(a.tool_scenarios)]
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
