"""Tool calling's view: the page's display data, its CSV tables and its author block."""
from __future__ import annotations

from typing import Any

import pandas as pd

from site_gen.render import format as fmt, views
from site_gen.sections.base import BlockSpec


def csv(a) -> dict:
    t = a.of("tool_calling")
    if t is None:
        return {}
    return {"tool-calling-runs": t.totals, "tool-calling-scenarios": t.scenarios}


def view(a) -> dict[str, Any] | None:
    t = a.report.section("tool_calling")
    result = a.of("tool_calling")
    if t is None or result is None:
        return None
    scenarios, maximum = result.scale["scenarios"], result.scale["max_total"]
    per_cp = []
    ranges = {(r["checkpoint"], r["engine"]): r for r in views.rows(result.ranges)}  # one row per checkpoint and engine
    for c in a.paired_checkpoints:
        if not any(k[0] == c for k in ranges):
            continue
        get = lambda role: fmt.count_range(ranges[(c, role)]["low"], ranges[(c, role)]["high"]) if (c, role) in ranges else fmt.MISSING
        per_cp.append({"checkpoint": c, "baseline": get("baseline"), "candidate": get("candidate")})
    lat = {r["engine"]: r for r in views.rows(result.latency)}  # one row per engine
    latency = {role: fmt.number_range(lat[role]["low"], lat[role]["high"], 1, " s")
               if role in lat and not pd.isna(lat[role]["low"]) else None for role in ("baseline", "candidate")}
    runs = [{"id": r["run"], "checkpoint": r["checkpoint"], "engine": a.report.baseline.name if r["engine"] == "baseline" else a.report.candidate.name,
             "date": r["date"], "points": int(r["points"]), "max": maximum,
             "latency": fmt.NOT_MEASURED if pd.isna(r["latency"]) else fmt.seconds(r["latency"])}
            for r in views.rows(result.totals)]
    run_ids = [r["id"] for r in runs]
    failed = set(result.failed)
    split = [{"scenario": s["scenario"], "points": [("" if pd.isna(s[rid]) else str(int(s[rid]))) for rid in run_ids],
              "failed": s["scenario"] in failed}
             for s in views.rows(result.scenarios)]
    return {"benchmark": t["benchmark"], "scenarios": scenarios, "max": maximum, "max_points": t["max_points"], "per_checkpoint": per_cp,
            "failed": result.failed, "failed_count": len(result.failed), "latency": latency,
            "concurrency": t.get("concurrency"), "note": t.get("note", ""), "runs": runs, "split": split}


BLOCKS = {"tool-calling": BlockSpec("tool-calling", "tool_calling", (),
                                     '<div id="{{ id }}">{{ tool_summary(tool_calling, engines) }}</div>',
                                     "tool-calling summary sentence", "tool-calling")}
MACROS = ("tool_summary",)
