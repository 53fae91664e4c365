"""Measures' view: the page's display data and its CSV table."""
from __future__ import annotations

from typing import Any

import pandas as pd

from site_gen.render import format as fmt, plain, views
from site_gen.render.provenance import Fig


def csv(a) -> dict:
    t = a.of("measures")
    if t is None:
        return {}
    # The direction the page names, as its words: better, worse, or why there is none.
    said = [_direction(r, a.report.candidate.name) for r in views.rows(t.table)]
    return {"measures": t.table.assign(direction=[tone if tone != "neutral" else text for text, tone in said])}


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


def _direction(r: dict, candidate: str) -> tuple[str, str]:
    """The direction and its tone: better, worse, or neutral (no direction)."""
    if min(r["baseline_n"], r["candidate_n"]) < 2:
        return "no direction: fewer than two samples a side", "neutral"
    if not r["apart"]:
        return "ranges overlap", "neutral"
    higher = r["candidate_median"] > r["baseline_median"]
    good = higher == (r["better"] == "higher")
    return f"{candidate} {'better' if good else 'worse'}", "better" if good else "worse"


def view(a) -> dict[str, Any] | None:
    t = a.of("measures")
    if t is None:
        return None
    groups: dict[tuple, list] = {}
    for r in views.rows(t.table):
        change = Fig(fmt.signed(r["change"] * 100, 1) + "%",
                     how=f"candidate median / baseline median − 1: {_num(r['candidate_median'])} / {_num(r['baseline_median'])}")
        direction, tone = _direction(r, a.report.candidate.name)
        groups.setdefault((r["checkpoint"], r["group"]), []).append({
            "label": r["label"], "unit": r["unit"], "better": f"{r['unit']}, {r['better']} is better",
            "vocabulary": "" if pd.isna(r["vocabulary"]) else r["vocabulary"],
            "baseline": _side(r, "baseline"), "candidate": _side(r, "candidate"), "change": change,
            "direction": direction, "tone": tone, "source": r["source"]})
    part = a.report.section("measures")
    return {"groups": [{"checkpoint": c, "group": g, "rows": rows} for (c, g), rows in groups.items()],
            "note": part.get("note", "")}


# -- its lines in the other outputs -----------------------------------------------------------

def _spread(r: dict, role: str) -> dict[str, Any]:
    return {"median": plain.number(r[f"{role}_median"]), "low": plain.number(r[f"{role}_low"]),
            "high": plain.number(r[f"{role}_high"]), "samples": int(r[f"{role}_n"])}


def summary(a, shown: dict | None) -> dict[str, Any] | None:
    """Its part of `sitegen summary --format json`: each measure's medians and spread, its unit and
    which way is better, the change of medians and the direction (named only where ranges are apart)."""
    if not shown:
        return None
    results = []
    for r in views.rows(a.of("measures").table):
        text, tone = _direction(r, a.report.candidate.name)
        results.append({"checkpoint": r["checkpoint"], "group": r["group"], "measure": r["measure"], "label": r["label"],
                        "unit": r["unit"], "better": r["better"], "baseline": _spread(r, "baseline"),
                        "candidate": _spread(r, "candidate"), "change": plain.number(r["change"]),
                        "direction": tone if tone != "neutral" else ("ranges overlap" if text == "ranges overlap"
                                                                     else "fewer than two samples a side")})
    return {"measures": {"change": "candidate median / baseline median - 1",
                         "rule": "a direction only where both sides have two samples or more and their ranges do not overlap",
                         "better": sum(r["direction"] == "better" for r in results),
                         "worse": sum(r["direction"] == "worse" for r in results), "results": results}}


def summary_rows(d: dict[str, Any]) -> list[tuple[str, str]]:
    if "measures" not in d:
        return []
    m = d["measures"]
    rows = [("Measures", f"{m['better']} better, {m['worse']} worse, {len(m['results']) - m['better'] - m['worse']} "
                         f"without a direction (of {len(m['results'])})")]
    rows += [(f"{r['checkpoint']} {r['group']} {r['label']}", f"{_num(r['baseline']['median'])} → {_num(r['candidate']['median'])} "
              f"{r['unit']} ({fmt.signed(r['change'] * 100, 1) + '%' if r['change'] is not None else fmt.MISSING}), "
              f"{r['direction']}; {r['better']} is better")
             for r in m["results"]]
    return rows


def verdict(a) -> str | None:
    t = a.of("measures")
    if t is None or t.table.empty:
        return None
    tones = [_direction(r, a.report.candidate.name)[1] for r in views.rows(t.table)]
    good, bad, n = tones.count("better"), tones.count("worse"), len(tones)
    if not good and not bad:
        return f"no measure with a direction ({n} measured)"
    parts = [f"better on {good}" if good else "", f"worse on {bad}" if bad else ""]
    return f"{' and '.join(p for p in parts if p)} of {n} measures ({n - good - bad} without a direction)"


def headlines(a) -> list[tuple[str, str, str]]:
    t = a.of("measures")
    if t is None or t.table.empty:
        return []
    tones = [_direction(r, a.report.candidate.name)[1] for r in views.rows(t.table)]
    good, bad = tones.count("better"), tones.count("worse")
    key = "worse" if bad and not good else "better" if good and not bad else "neutral"
    return [("Measures:", f"{good} better, {bad} worse of {len(tones)}", key)]


# -- against an earlier release (`sitegen compare`) ----------------------------------------------

def compare_what(item) -> str:
    w = item.where
    return f"{w['checkpoint']} · {w['group']} · {w['measure']}"


def compare_value(c, v: float, signed: bool = False) -> str:
    return _num(v)
