"""The latency page's tables: per matched load point, each metric's percentiles on both sides with
their intervals, the ratio with its interval, bar and verdict; per side alone, its percentiles."""
from __future__ import annotations

import math
from typing import Any

from site_gen.analysis.verdict import UNRESOLVED
from site_gen.render import format as fmt, plots, views
from site_gen.render.provenance import Fig
from site_gen.sections.serving.analysis import latency
from site_gen.sections.serving.analysis.points import METRIC_LABELS, METRIC_SHORT

GLYPHS = {"faster": "▲", "level": "●", "slower": "▼", UNRESOLVED: "○"}


def ms(value: float) -> str:
    """A latency in ms with one decimal and thousands separators: `893.1`, `1,213.8`."""
    return fmt.MISSING if value != value else f"{value:,.1f}"


def ms_interval(low: float, high: float) -> str:
    return "" if low != low or high != high else f"{ms(low)}{fmt.DASH}{ms(high)}"


def ratio_text(value: float, band: float) -> str:
    return fmt.speed_ratio(value, band) if value == value else fmt.MISSING


def interval_text(low: float, high: float, band: float) -> str:
    if low != low or high != high:
        return ""
    return f"{fmt.speed_ratio(low, band)}{fmt.DASH}{fmt.speed_ratio(high, band)}"


def pair_rows(s, cells: list[dict], side: dict[tuple, dict], names: dict, scale, band: float) -> list[dict[str, Any]]:
    """The rows of one matched load point's table, grouped by metric."""
    groups: list[dict[str, Any]] = []
    for metric in s.metrics:
        rows = []
        for c in (c for c in cells if c["metric"] == metric):
            q = c["percentile"]
            rb, rc = side.get(("baseline", metric, q)), side.get(("candidate", metric, q))
            rows.append({
                "label": f"p{q}",
                "baseline": _value_fig(rb, "baseline", names, s), "baseline_interval": _interval_of(rb),
                "candidate": _value_fig(rc, "candidate", names, s), "candidate_interval": _interval_of(rc),
                "ratio": ratio_text(c["ratio"], band),
                "ratio_interval": interval_text(c["low"], c["high"], band), "method": c["method"],
                "no_interval": "one run, no interval" if c["method"] == latency.ONE_RUN else "no interval",
                "verdict": c["verdict"], "glyph": GLYPHS[c["verdict"]], "vclass": c["verdict"].replace(" ", "-"),
                "bar": plots.interval_bar(c["ratio"], c["low"], c["high"], c["verdict"], scale, band)})
        if rows:
            groups.append({"metric": metric, "short": METRIC_SHORT[metric], "label": f"{METRIC_LABELS[metric][0].upper()}"
                           f"{METRIC_LABELS[metric][1:]} ({METRIC_SHORT[metric]}), ms", "rows": rows})
    return groups


def _value_fig(r: dict | None, role: str, names: dict, s) -> Fig | str:
    """A side's percentile as printed. A figure the source states is a Fig (its place in the receipt);
    one computed from the rows is plain text: its table's caption and the paragraph above it say how
    (a tooltip on each of a page's hundreds would double its weight)."""
    if r is None:
        return fmt.MISSING
    return Fig(ms(r["value"]), path=r["path"]) if r["method"] == latency.ONE_RUN and r["path"] else ms(r["value"])


def _interval_of(r: dict | None) -> str:
    if r is None:
        return ""
    if r["method"] == latency.RUNS and r["spread_low"] == r["spread_low"]:
        return f"{ms_interval(r['low'], r['high'])}; runs {ms_interval(r['spread_low'], r['spread_high'])}"
    return ms_interval(r["low"], r["high"])


def side_rows(s, role: str, point: str, names: dict) -> list[dict[str, Any]]:
    """One side's percentiles at a load point (a one-setup report, or a load point the other side lacks)."""
    groups = []
    pct = [r for r in views.rows(s.percentiles) if r["role"] == role and r["point"] == point]
    for metric in s.metrics:
        rows = [{"label": f"p{r['percentile']}", "value": _value_fig(r, role, names, s), "interval": _interval_of(r),
                 "method": latency.FEW if r["method"] == latency.BOOTSTRAP and r["low"] != r["low"] else r["method"]}
                for r in pct if r["metric"] == metric]
        if rows:
            groups.append({"metric": metric, "short": METRIC_SHORT[metric], "label": f"{METRIC_LABELS[metric][0].upper()}"
                           f"{METRIC_LABELS[metric][1:]} ({METRIC_SHORT[metric]}), ms", "rows": rows})
    return groups


def tokens_rows(s, roles: list[str], points: dict[str, str], names: dict) -> list[dict[str, Any]]:
    out = []
    for r in views.rows(s.tokens):
        if points.get(r["role"]) == r["point"] and r["role"] in roles and not (r["mean"] != r["mean"] and r["total"] != r["total"]):
            out.append({"side": names[r["role"]], "kind": r["kind"], "requests": fmt.thousands(r["requests"]),
                        "mean": fmt.MISSING if r["mean"] != r["mean"] else f"{r['mean']:,.1f}",
                        "median": fmt.thousands(r["median"]), "p90": fmt.thousands(r["p90"]), "max": fmt.thousands(r["max"]),
                        "total": fmt.thousands(r["total"])})
    return out


def gaps_rows(s, points: dict[str, str], names: dict) -> list[dict[str, Any]]:
    out = []
    for r in views.rows(s.gaps):
        if points.get(r["role"]) == r["point"]:
            out.append({"side": names[r["role"]] + (f", run {r['repeat'] + 1}" if r["repeat"] else ""),
                        "gaps": fmt.thousands(r["gaps"]),
                        **{k: ms(r[f"{k}_ms"]) for k in ("median", "p90", "p95", "p99", "max")}})
    return out


def method_text(m: dict, names: dict, b) -> str:
    """How one matched load point's intervals were drawn, in a sentence."""
    methods = m["methods"]
    nb, nc = m["requests"]
    if latency.PAIRED in methods:
        return (f"Paired bootstrap over {nb:,} requests: both sides sent the same prompts in the same order, so each "
                f"resample draws the same requests from both ({b.resamples:,} resamples, seed {b.seed}).")
    if latency.UNPAIRED in methods:
        why = "the sides sent other prompts or another order" if not m["paired"] else "a side ran the load point more than once"
        return (f"Unpaired bootstrap over {nb:,} and {nc:,} requests ({why}): each side resampled on its own "
                f"({b.resamples:,} resamples, seed {b.seed}).")
    if latency.RUNS in methods:
        return "Both sides repeated this load point: intervals are Student's t over the runs, ratios Welch's t."
    return "No per-request rows: the sources' own figures, one run each; ratios take the band rule (one run, no interval)."


def compact_table(s, alone: list[dict], names: dict) -> dict[str, Any]:
    """Load points without per-request rows, one row each: the sources' own percentiles (one run:
    no interval; repeated runs: their geometric mean, t interval and range), the every-gap ITL."""
    pct = {(r["role"], r["point"], r["metric"], r["percentile"]): r for r in views.rows(s.percentiles)}
    cols = [(m, q) for m in s.metrics for q in (50, 90, 95, 99)
            if any((p["role"], p["point"], m, q) in pct for p in alone)]
    rows = []
    for p in alone:
        cells = []
        for m, q in cols:
            r = pct.get((p["role"], p["point"], m, q))
            cells.append({"text": _value_fig(r, p["role"], names, s) if r else fmt.MISSING, "sub": _interval_of(r)})
        gaps = gaps_rows(s, {p["role"]: p["point"]}, names)
        cells.append({"text": " / ".join(str(g["median"]) for g in gaps) if gaps else fmt.MISSING, "sub": ""})
        rows.append({"load": p["title"], "side": p["side"], "repeats": p["repeats"], "cells": cells})
    return {"columns": [f"{METRIC_SHORT[m]} p{q}" for m, q in cols] + ["ITL p50, every gap"], "rows": rows,
            "sides": sorted({p["side"] for p in alone})}


def objective_text(o: tuple) -> str:
    return f"p{o[1]} {METRIC_SHORT[o[0]]} ≤ {o[2]:,g} ms"


def capacity_lines(s, n: dict) -> list[dict[str, str]]:
    """Per sweep: each side's heaviest load meeting every objective (there and at every lighter load), and their ratio."""
    out = []
    for c in s.capacity:
        parts = []
        for role in s.roles:
            e = c.get(role)
            if e is None:
                continue
            if not e["known"] and e["point"] is None:
                parts.append(f"{n[role]}: unknown (a load without a figure of an objective)")
            elif e["point"] is None:
                parts.append(f"{n[role]}: none of the loads tested")
            else:
                parts.append(f"{n[role]}: {e['load']}" + (" (the heaviest tested)" if e["heaviest"] else ""))
        ratio = c.get("ratio", math.nan)
        out.append({"workload": c["workload"], "text": "; ".join(parts),
                    "ratio": f"{ratio:.2f}× the load" if ratio == ratio else ""})
    return out
