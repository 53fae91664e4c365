"""The dashboard: one row per report, newest first; superseded reruns kept reachable below. Each
section adds its columns (`Section.dashboard`) and fills its cells (`dashboard` of its view)."""
from __future__ import annotations

from typing import Any

from site_gen.analysis.report import Analysis
from site_gen.render import parts


def row(a: Analysis, url: str) -> dict[str, Any]:
    """One report's dashboard row: display strings plus the plain values it sorts by."""
    r = a.report
    cells: dict[str, Any] = {}
    other = []
    for s in parts.ordered():
        make = parts.view_part(s).dashboard
        if make is not None and s.dashboard and s.present(a):
            cells.update(make(a))
        elif not s.dashboard and s.present(a) and (lines := parts.view_part(s).headlines):
            other += [f"{label} {text}" for label, text, _ in lines(a)]
    if other:  # every section speaks on the dashboard: one with no column of its own, here
        cells[parts.OTHER.key] = {"text": " · ".join(other), "sort": " · ".join(other)}
    named = parts.sides(a)
    return {
        "id": r.id, "title": r.title, "date": r.date, "url": url,
        "engines": named["opening"] if named else f"{r.candidate.label} vs {r.baseline.label}" if "baseline" in r.meta["engines"]
        else f"{r.candidate.label}, one setup (no baseline)",
        # Fields the two sides differ in that the source's rules call not comparable (allowed on
        # import or in the receipt): said on the row itself, not only inside the report.
        "not_comparable": [d["field"] for d in r.meta.get("differs", []) if d.get("allowed")],
        "checkpoints": ", ".join(a.checkpoints), "supersedes": r.meta.get("supersedes"),
        "attribution": r.meta.get("attribution", ""),  # credit a source's licence asks for, under the table
        "superseded_by": None, "cells": cells,
    }


def tell_apart(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Marks the rows that would read alike (the same title, engines and date: runs of one setup
    imported on one day) so that each also names its report's id (`told_apart`)."""
    seen: dict[tuple, int] = {}
    for r in rows:
        key = (r["title"], r["engines"], r["date"])
        seen[key] = seen.get(key, 0) + 1
    for r in rows:
        r["told_apart"] = seen[(r["title"], r["engines"], r["date"])] > 1
    return rows


def split(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Marks reports that a newer report supersedes, and rows that would read alike (`tell_apart`);
    the table shows the newest first."""
    tell_apart(rows)
    by_id = {r["id"]: r for r in rows}
    for r in rows:
        target = r.get("supersedes")
        if target and target in by_id:
            by_id[target]["superseded_by"] = {"id": r["id"], "title": r["title"], "url": r["url"]}
    return rows
