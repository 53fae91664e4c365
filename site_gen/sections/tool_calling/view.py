"""Tool calling's view: the page's display data, its CSV tables and its author block."""
from __future__ import annotations

from typing import Any

from site_gen.render import format as fmt, plain, views
from site_gen.render.provenance import Fig
from site_gen.sections.base import BlockSpec
from site_gen.sections.contract import ViewPart


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
    names = {"baseline": a.report.baseline.name, "candidate": a.report.candidate.name}
    per_cp = []
    ranges = {(r["checkpoint"], r["engine"]): r for r in views.rows(result.ranges)}  # one row per checkpoint and engine

    def points_range(c: str, role: str):
        r = ranges.get((c, role))
        if r is None:
            return fmt.MISSING
        return Fig(fmt.count_range(r["low"], r["high"]), how=f"lowest and highest total points of {names[role]}'s "
                   f"{int(r['runs'])} run{'s' if r['runs'] != 1 else ''} on {c} (each the sum of its scenarios' points)")

    for c in a.paired_checkpoints:
        if not any(k[0] == c for k in ranges):
            continue
        per_cp.append({"checkpoint": c, "baseline": points_range(c, "baseline"), "candidate": points_range(c, "candidate")})
    lat = {r["engine"]: r for r in views.rows(result.latency)}  # one row per engine
    latency = {role: Fig(fmt.number_range(lat[role]["low"], lat[role]["high"], 1, " s"),
                         how=f"lowest and highest of the median turn latency of {names[role]}'s {int(lat[role]['runs'])} runs")
               if role in lat and not views.isna(lat[role]["low"]) else None for role in ("baseline", "candidate")}
    run_index = {run["id"]: i for i, run in enumerate(t["runs"])}
    runs = [{"id": r["run"], "checkpoint": r["checkpoint"], "engine": names[r["engine"]], "date": r["date"],
             "points": Fig(str(int(r["points"])), how=f"sum of the scenarios' points in $.tool_calling.runs[{run_index[r['run']]}].scenarios"),
             "max": Fig(str(maximum), how=f"{scenarios} scenarios × {t['max_points']} points, the most a run can score"),
             "latency": fmt.NOT_MEASURED if views.isna(r["latency"]) else
             Fig(fmt.seconds(r["latency"]), how=f"median turn latency over the scenarios of $.tool_calling.runs[{run_index[r['run']]}]")}
            for r in views.rows(result.totals)]
    run_ids = [r["id"] for r in runs]
    # Each scenario's points by run, with its place in the receipt (runs[i].scenarios[j]).
    where = {(run["id"], sc["id"]): f"$.tool_calling.runs[{i}].scenarios[{j}].points"
             for i, run in enumerate(t["runs"]) for j, sc in enumerate(run["scenarios"])}
    failed = set(result.failed)
    split = [{"scenario": s["scenario"],
              "points": [Fig("", None) if views.isna(s[rid]) else Fig(str(int(s[rid])), where.get((rid, s["scenario"])), dense=True)
                         for rid in run_ids],
              "failed": s["scenario"] in failed}
             for s in views.rows(result.scenarios)]
    return {"benchmark": t["benchmark"], "scenarios": scenarios, "max": maximum, "max_points": t["max_points"], "per_checkpoint": per_cp,
            "failed": result.failed, "failed_count": len(result.failed), "latency": latency,
            "concurrency": t.get("concurrency"), "note": t.get("note", ""), "runs": runs, "split": split}


BLOCKS = {"tool-calling": BlockSpec("tool-calling", "tool_calling", (),
                                     '<div id="{{ id }}">{{ tool_summary(tool_calling, engines) }}</div>',
                                     "tool-calling summary sentence", "tool-calling")}
MACROS = ("tool_summary",)


# -- its lines in the other outputs -----------------------------------------------------------

def summary(a, shown: dict | None) -> dict[str, Any] | None:
    """Its part of `sitegen summary --format json`: each run's points (higher is better) and median
    turn latency (lower is better), the range per checkpoint and engine, scenarios failed in every run."""
    if not shown:
        return None
    t, result = a.report.section("tool_calling"), a.of("tool_calling")
    ranges: dict[str, dict[str, dict]] = {}
    for r in views.rows(result.ranges):
        ranges.setdefault(r["checkpoint"], {})[r["engine"]] = {**(plain.span(r["low"], r["high"]) or {"low": None, "high": None}),
                                                               "runs": int(r["runs"])}
    latency = {r["engine"]: plain.span(r["low"], r["high"], runs=int(r["runs"])) for r in views.rows(result.latency)}
    return {"tool_calling": {
        "benchmark": t["benchmark"], "unit": "points", "better": "higher", "max_points": int(t["max_points"]),
        "scenarios": int(result.scale["scenarios"]), "max_total": int(result.scale["max_total"]),
        "checkpoints": ranges, "failed_everywhere": list(result.failed),
        "turn_latency": {"unit": "s", "better": "lower", **latency}, "concurrency": plain.integer(t.get("concurrency")),
        "runs": [{"id": r["run"], "checkpoint": r["checkpoint"], "engine": r["engine"], "date": r["date"],
                  "points": int(r["points"]), "turn_latency_s": plain.number(r["latency"])} for r in views.rows(result.totals)]}}


def summary_rows(d: dict[str, Any]) -> list[tuple[str, str]]:
    if "tool_calling" not in d:
        return []
    t = d["tool_calling"]
    rows = []
    for c, sides in t["checkpoints"].items():
        shown = [f"{role} {fmt.count_range(s['low'], s['high'])} ({s['runs']} run{'s' if s['runs'] != 1 else ''})"
                 for role, s in sides.items()]
        rows.append((f"Tool calling {c}", f"{'; '.join(shown)} of {t['max_total']} points"))
    failed = t["failed_everywhere"]
    rows.append(("Tool calling: failed in every run", f"{len(failed)} of {t['scenarios']} scenarios"
                 + (f" ({', '.join(failed[:5])}{' …' if len(failed) > 5 else ''})" if failed else "")))
    return rows


def verdict(a) -> str | None:
    t, result = a.report.section("tool_calling"), a.of("tool_calling")
    if t is None or result is None:
        return None
    names = {"baseline": a.report.baseline.name, "candidate": a.report.candidate.name}
    out = []
    for c in a.paired_checkpoints:
        sides = {r["engine"]: r for r in views.rows(result.ranges) if r["checkpoint"] == c}
        if sides:
            out.append(" against ".join(f"{fmt.count_range(sides[role]['low'], sides[role]['high'])} ({names[role]})"
                                        for role in ("candidate", "baseline") if role in sides) + f" on {c}")
    if not out:
        return None
    return f"tool calling {'; '.join(out)}, of {result.scale['max_total']} points"


def headlines(a) -> list[tuple[str, str, str]]:
    t, result = a.report.section("tool_calling"), a.of("tool_calling")
    if t is None or result is None:
        return []
    points: dict[str, list[int]] = {r["engine"]: [] for r in views.rows(result.totals)}
    for r in views.rows(result.totals):
        points[r["engine"]].append(int(r["points"]))
    names = {"baseline": a.report.baseline.name, "candidate": a.report.candidate.name}
    # A range is the lowest and highest of a side's runs (of every checkpoint): it says over how many.
    said = "; ".join(f"{names[role]} {fmt.count_range(min(p), max(p))}"
                     + (f" over {len(p)} runs" if min(p) != max(p) else "") for role, p in sorted(points.items(), reverse=True))
    return [("Tool calling:", f"{said} (of {result.scale['max_total']} points)", "neutral")]


PART = ViewPart(view=view, csv=csv, blocks=BLOCKS, macros=MACROS, summary=summary, summary_rows=summary_rows,
                verdict=verdict, headlines=headlines)
