"""Measures' view: the page's display data and its CSV table."""
from __future__ import annotations

from typing import Any

import pandas as pd

from site_gen.render import format as fmt, views
from site_gen.render.provenance import Fig


def csv(a) -> dict:
    t = a.of("measures")
    return {} if t is None else {"measures": t.table}


def _num(v: Any) -> str:
    if pd.isna(v):
        return fmt.NOT_MEASURED
    return f"{v:,.1f}" if abs(v) >= 10 else f"{v:,.3f}"


def _side(r: dict, role: str) -> dict[str, Any]:
    src = f"{r['source']}.{role}"
    n = int(r[f"{role}_n"])
    if n == 1:
        spread: Any = "one sample"
    elif pd.isna(r[f"{role}_low"]):
        spread = fmt.NOT_MEASURED
    else:
        spread = Fig(f"{_num(r[f'{role}_low'])}–{_num(r[f'{role}_high'])}" + (f", n={n}" if n else ""), src + ".low and .high")
    return {"median": Fig(_num(r[f"{role}_median"]), src + ".median"), "range": spread}


def _direction(r: dict, candidate: str) -> str:
    if min(r["baseline_n"], r["candidate_n"]) < 2:
        return "no direction: fewer than two samples a side"
    if not r["apart"]:
        return "ranges overlap"
    higher = r["candidate_median"] > r["baseline_median"]
    return f"{candidate} {'better' if higher == (r['better'] == 'higher') else 'worse'}"


def view(a) -> dict[str, Any] | None:
    t = a.of("measures")
    if t is None:
        return None
    groups: dict[tuple, list] = {}
    for r in views.rows(t.table):
        change = Fig(fmt.signed(r["change"] * 100, 1) + "%",
                     how=f"candidate median / baseline median − 1: {_num(r['candidate_median'])} / {_num(r['baseline_median'])}")
        groups.setdefault((r["checkpoint"], r["group"]), []).append({
            "label": r["label"], "unit": r["unit"], "better": f"{r['unit']}, {r['better']} is better",
            "vocabulary": "" if pd.isna(r["vocabulary"]) else r["vocabulary"],
            "baseline": _side(r, "baseline"), "candidate": _side(r, "candidate"), "change": change,
            "direction": _direction(r, a.report.candidate.name), "source": r["source"]})
    part = a.report.section("measures")
    return {"groups": [{"checkpoint": c, "group": g, "rows": rows} for (c, g), rows in groups.items()],
            "note": part.get("note", "")}




# -- against an earlier release (`sitegen compare`) ----------------------------------------------

def compare_what(item) -> str:
    w = item.where
    return f"{w['checkpoint']} · {w['group']} · {w['measure']}"


def compare_value(c, v: float, signed: bool = False) -> str:
    return _num(v)
