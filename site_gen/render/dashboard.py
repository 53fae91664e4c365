"""The dashboard: one row per report, newest first; superseded reruns kept reachable below."""
from __future__ import annotations

from typing import Any

from site_gen.analysis.report import Analysis
from site_gen.render import charts
from site_gen.render import format as fmt
from site_gen.render.provenance import Fig


def row(a: Analysis, url: str) -> dict[str, Any]:
    """One report's dashboard row: display strings plus the plain values it sorts by."""
    r = a.report
    out: dict[str, Any] = {
        "id": r.id, "title": r.title, "date": r.date, "url": url,
        "engines": f"{r.candidate.label} vs {r.baseline.label}",
        "checkpoints": ", ".join(a.checkpoints), "supersedes": r.meta.get("supersedes"),
        "attribution": r.meta.get("attribution", ""),  # credit a source's licence asks for, under the table
        "speed": "—", "speed_sort": "", "speed_bar": None, "speed_range": None, "superseded_by": None, "precision": "—", "precision_sort": "", "kv": "—", "kv_sort": "",
    }
    t = a.speed_totals
    if t:
        out["speed"] = fmt.verdicts(t)
        out["speed_sort"] = f"{t['faster_share']:.6f}"
        if t["aggregate"]:
            low, high, n = t["aggregate"]
            out["speed_bar"] = charts.range_bar(low, high, a.scale, a.band)
            out["speed_range"] = Fig(fmt.speed_ratio_range(low, high, a.band),
                                     how=f"lowest and highest candidate / baseline over {n} aggregate cells")
    p = a.precision_summary
    if p and p["pairs"]:
        out["precision"] = f"{p['resolved']} of {p['pairs']} resolved; {p['further']} further, {p['closer']} closer"
        out["precision_sort"] = f"{p['resolved_share']:.6f}"
    if a.kv_range:
        low, high, _ = a.kv_range
        out["kv"] = fmt.ratio_range(low, high)
        out["kv_sort"] = f"{high:.6f}"
    return out


def split(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Marks reports that a newer report supersedes; the table shows the newest first."""
    by_id = {r["id"]: r for r in rows}
    for r in rows:
        target = r.get("supersedes")
        if target and target in by_id:
            by_id[target]["superseded_by"] = {"id": r["id"], "title": r["title"], "url": r["url"]}
    return rows
