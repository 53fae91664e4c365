"""One report's analysis: every section's DataFrames, computed once and shared by all pages."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from site_gen.analyse import long_outputs, memory, precision, speed, tool_calling, versions
from site_gen.analyse.frames import records
from site_gen.config import NOISE_BAND, RATIO_SCALE
from site_gen.load import Report


@dataclass
class Analysis:
    report: Report
    band: float
    scale: tuple[float, float]
    checkpoints: list[str]
    paired_checkpoints: list[str]
    precision: pd.DataFrame | None = None
    precision_summary: dict[str, Any] = field(default_factory=dict)
    precision_gaps: pd.DataFrame | None = None
    precision_largest_gap: dict | None = None
    precision_direction: str = "mixed"
    speed: pd.DataFrame | None = None
    speed_counts: pd.DataFrame | None = None
    speed_ranges: pd.DataFrame | None = None
    speed_gains: pd.DataFrame | None = None
    speed_totals: dict[str, Any] = field(default_factory=dict)
    kv_range: tuple[float, float, int] | None = None
    ttft: pd.DataFrame | None = None
    kv: pd.DataFrame | None = None
    startup: pd.DataFrame | None = None
    kv_references: pd.DataFrame | None = None
    long_table: pd.DataFrame | None = None
    long_arms: list[str] = field(default_factory=list)
    long_caps: list[int] = field(default_factory=list)
    long_thinking: pd.DataFrame | None = None
    long_categories: dict[str, int] = field(default_factory=dict)
    long_looped: dict[str, int] = field(default_factory=dict)
    versions_precision: pd.DataFrame | None = None
    versions_text: pd.DataFrame | None = None
    tool_points: pd.DataFrame | None = None
    tool_totals: pd.DataFrame | None = None
    tool_ranges: pd.DataFrame | None = None
    tool_latency: pd.DataFrame | None = None
    tool_failed: list[str] = field(default_factory=list)
    tool_scenarios: pd.DataFrame | None = None
    tool_scale: dict = field(default_factory=dict)
    # Display data made from this analysis (render/views.py), kept by whoever draws it first: a
    # report's own pages and the author pages that show its blocks then share one computation.
    displayed: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

def _tool_points(runs: list[dict]) -> pd.DataFrame:
    rows = []
    for i, run in enumerate(runs):
        for j, s in enumerate(run["scenarios"]):
            rows.append({"run": run["id"], "checkpoint": run["checkpoint"], "engine": run["engine"], "date": run["date"],
                         "scenario": s["id"], "points": s["points"], "turn_latency_s": s.get("turn_latency_s"),
                         "source": f"$.tool_calling.runs[{i}].scenarios[{j}]"})
    return pd.DataFrame(rows, columns=["run", "checkpoint", "engine", "date", "scenario", "points", "turn_latency_s", "source"])


def analyse(report: Report, band: float = NOISE_BAND, scale: tuple[float, float] = RATIO_SCALE) -> Analysis:
    data = report.data
    checkpoints = report.checkpoints
    missing_baseline = {c["id"] for c in report.meta["checkpoints"] if "baseline" in c.get("missing", {})}
    a = Analysis(report=report, band=band, scale=scale, checkpoints=checkpoints,
                 paired_checkpoints=[c for c in checkpoints if c not in missing_baseline])

    if (p := data.get("precision")) is not None:
        a.precision = precision.differences(records(p["results"], "$.precision.results"),
                                            pd.DataFrame(p["measures"]))
        a.precision_summary = precision.summary(a.precision)
        a.precision_gaps = precision.checkpoint_gaps(a.precision)
        a.precision_largest_gap = precision.largest_gap(a.precision_gaps)
        a.precision_direction = precision.direction(a.precision_summary)

    if (s := data.get("speed")) is not None and s["cells"]:
        cells = records(s["cells"], "$.speed.cells")
        a.speed = speed.cell_ratios(cells, band)
        a.speed_counts = speed.verdict_counts(a.speed)
        a.speed_ranges = speed.ratio_ranges(a.speed)
        a.speed_gains = speed.workload_gains(a.speed)
        a.speed_totals = speed.totals(a.speed, a.speed_counts)
        a.ttft = speed.ttft(records(s.get("ttft", []), "$.speed.ttft"))

    if (m := data.get("memory")) is not None:
        kv = records(m.get("kv_pool", []), "$.memory.kv_pool", ["checkpoint", "engine", "tokens"])
        a.kv = memory.kv_pool(kv)
        a.kv_range = memory.kv_range(a.kv)
        a.startup = memory.startup(records(m.get("startup", []), "$.memory.startup", ["checkpoint", "engine", "cold_s", "warm_s"]))
        a.kv_references = memory.references(
            records(m.get("references", []), "$.memory.references", ["checkpoint", "name", "version", "kv_pool_tokens"]), kv)

    if (lo := data.get("long_outputs")) is not None and lo["replies"]:
        replies = records(lo["replies"], "$.long_outputs.replies")
        for column in ("tests_passed", "json_valid"):
            if column not in replies.columns:
                replies[column] = None
        arms = pd.DataFrame(lo["arms"])
        a.long_caps = sorted(lo["caps"])
        a.long_table = long_outputs.per_arm(replies, arms)
        a.long_arms = long_outputs.complete_arms(a.long_table, a.long_caps)
        a.long_thinking = long_outputs.thinking_at_cap(a.long_table)
        a.long_categories = long_outputs.categories(replies)
        a.long_looped = long_outputs.looped_per_arm(a.long_table)

    if (v := data.get("versions")) is not None:
        a.versions_precision = versions.precision(pd.DataFrame(v.get("precision", []), columns=["panel", "checkpoint", "max_abs_difference", "interval"]))
        a.versions_text = versions.text(pd.DataFrame(v.get("text", []), columns=["category", "identical", "total"]))

    if (t := data.get("tool_calling")) is not None and t["runs"]:
        a.tool_points = _tool_points(t["runs"])
        a.tool_totals = tool_calling.run_totals(a.tool_points)
        a.tool_ranges = tool_calling.ranges(a.tool_totals)
        a.tool_latency = tool_calling.latency_ranges(a.tool_totals)
        a.tool_failed = tool_calling.failed_everywhere(a.tool_points)
        a.tool_scenarios = tool_calling.scenario_table(a.tool_points)
        a.tool_scale = tool_calling.scale(a.tool_points, t["max_points"])
    return a
