"""One report's analysis: every section's DataFrames, computed once and shared by all pages."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from site_gen.config import NOISE_BAND, RATIO_SCALE
from site_gen.load import Report


@dataclass
class Analysis:
    report: Report
    band: float
    scale: tuple[float, float]
    checkpoints: list[str]
    paired_checkpoints: list[str]
    headline_input: tuple[int, int] | None = None  # the config's input window of the aggregate headline range
    # Each section's analysis fills its own fields (site_gen/sections/<name>.py `analyse`).
    # precision
    precision: pd.DataFrame | None = None
    precision_summary: dict[str, Any] = field(default_factory=dict)
    precision_gaps: pd.DataFrame | None = None
    precision_largest_gap: dict | None = None
    precision_direction: str = "mixed"
    # speed
    speed: pd.DataFrame | None = None
    speed_counts: pd.DataFrame | None = None
    speed_ranges: pd.DataFrame | None = None
    speed_gains: pd.DataFrame | None = None
    speed_totals: dict[str, Any] = field(default_factory=dict)
    ttft: pd.DataFrame | None = None
    # memory and startup
    kv: pd.DataFrame | None = None
    kv_range: tuple[float, float, int] | None = None
    startup: pd.DataFrame | None = None
    kv_references: pd.DataFrame | None = None
    # long outputs
    long_table: pd.DataFrame | None = None
    long_arms: list[str] = field(default_factory=list)
    long_caps: list[int] = field(default_factory=list)
    long_thinking: pd.DataFrame | None = None
    long_categories: dict[str, int] = field(default_factory=dict)
    long_looped: dict[str, int] = field(default_factory=dict)
    # versions
    versions_precision: pd.DataFrame | None = None
    versions_text: pd.DataFrame | None = None
    # tool calling
    tool_points: pd.DataFrame | None = None
    tool_totals: pd.DataFrame | None = None
    tool_ranges: pd.DataFrame | None = None
    tool_latency: pd.DataFrame | None = None
    tool_failed: list[str] = field(default_factory=list)
    tool_scenarios: pd.DataFrame | None = None
    tool_scale: dict = field(default_factory=dict)
    # What the analysis of a section that has no field above computed (a section added by a plugin).
    results: dict[str, Any] = field(default_factory=dict)
    # Display data made from this analysis (render/views.py), kept by whoever draws it first: a
    # report's own pages and the author pages that show its blocks then share one computation.
    displayed: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


def analyse(report: Report, band: float = NOISE_BAND, scale: tuple[float, float] = RATIO_SCALE,
            headline_input: tuple[int, int] | None = None) -> Analysis:
    from site_gen.sections import all_sections  # here, not above: the sections' views import this module

    checkpoints = report.checkpoints
    missing_baseline = {c["id"] for c in report.meta["checkpoints"] if "baseline" in c.get("missing", {})}
    a = Analysis(report=report, band=band, scale=scale, checkpoints=checkpoints, headline_input=headline_input,
                 paired_checkpoints=[c for c in checkpoints if c not in missing_baseline])
    for s in all_sections():
        if s.analyse and (part := report.data.get(s.name)) is not None:
            s.analyse(a, part)
    return a
