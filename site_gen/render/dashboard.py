"""The dashboard: one row per report, newest first; superseded reruns kept reachable below."""
from __future__ import annotations

from typing import Any

from site_gen.analyse.report import Analysis
from site_gen.render import charts
from site_gen.render import format as fmt
from site_gen.render.provenance import Fig


def row(a: Analysis, url: str) -> dict[str, Any]:
    """One report's dashboard row: display strings plus the plain values it sorts by."""
    r = a.report
    counts = a.speed_counts
    out: dict[str, Any] = {
        "id": r.id, "title": r.title, "date": r.date, "url": url,
        "engines": f"{r.candidate.label} vs {r.baseline.label}",
        "checkpoints": ", ".join(a.checkpoints), "supersedes": r.meta.get("supersedes"),
        "speed": "—", "speed_sort": "", "speed_bar": None, "speed_range": None, "superseded_by": None, "precision": "—", "precision_sort": "", "kv": "—", "kv_sort": "",
    }
    if counts is not None:
        f, lv, s, n = (int(counts[k].sum()) for k in ("faster", "level", "slower", "cells"))
        out["speed"] = f"{f} faster · {lv} level · {s} slower"
        out["speed_sort"] = f"{f / n:.6f}" if n else ""
        agg = a.speed[a.speed["metric"] == "aggregate"]["ratio"] if a.speed is not None else None
        if agg is not None and len(agg):
            out["speed_bar"] = charts.range_bar(agg.min(), agg.max(), a.scale, a.band)
            out["speed_range"] = Fig(fmt.ratio_range(agg.min(), agg.max()),
                                     how=f"lowest and highest candidate / baseline over {len(agg)} aggregate cells")
    if a.precision_summary and a.precision_summary["pairs"]:
        p = a.precision_summary
        out["precision"] = f"{p['resolved']} of {p['pairs']} resolved; {p['further']} further, {p['closer']} closer"
        out["precision_sort"] = f"{p['resolved'] / p['pairs']:.6f}"
    if a.kv is not None and not a.kv["ratio"].dropna().empty:
        ratios = a.kv["ratio"].dropna()
        out["kv"] = fmt.ratio_range(ratios.min(), ratios.max())
        out["kv_sort"] = f"{ratios.max():.6f}"
    return out


def split(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Marks reports that a newer report supersedes; the table shows the newest first."""
    by_id = {r["id"]: r for r in rows}
    for r in rows:
        target = r.get("supersedes")
        if target and target in by_id:
            by_id[target]["superseded_by"] = {"id": r["id"], "title": r["title"], "url": r["url"]}
    return rows
