"""Measures: named figures with their own unit and orientation (higher or lower is better), each
engine's median, range and samples over repeated launches (schema 1.1)."""
from __future__ import annotations

from typing import Any

import pandas as pd

from site_gen.analysis import results as calc
from site_gen.receipts.load import require
from site_gen.render import format as fmt, views
from site_gen.render.provenance import Fig
from site_gen.sections.base import Section, paired_records


def check(part: dict, file, checkpoint_ref) -> None:
    seen: dict[tuple, int] = {}
    for i, r in enumerate(part["results"]):
        where = f"$.measures.results[{i}]"
        checkpoint_ref(r["checkpoint"], where + ".checkpoint")
        key = (r["checkpoint"], r["group"], r["measure"])
        require(key not in seen, f"duplicate measure (same checkpoint, group and measure as $.measures.results[{seen.get(key)}])",
                file, where)
        seen[key] = i
        for role in ("baseline", "candidate"):
            s = r[role]
            require(s["median"] != 0 or role == "candidate", "a baseline median of zero gives no change", file, f"{where}.{role}.median")
            if "low" in s and "high" in s:
                require(s["low"] <= s["median"] <= s["high"], f"median {s['median']} outside its range {s['low']}–{s['high']}",
                        file, f"{where}.{role}")


engine_records = paired_records("measures")


def analyse(a, part: dict) -> None:
    a.results["measures"] = calc.measures(part)


def csv(a) -> dict:
    t = a.results.get("measures")
    return {} if t is None else {"measures": t}


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
    t = a.results.get("measures")
    if t is None:
        return None
    groups: dict[tuple, list] = {}
    for r in views.rows(t):
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


SECTION = Section(key="measures", title="Measures", name="measures", view=view, check=check, records="results",
                  engine_records=engine_records, analyse=analyse, csv=csv, provenance=True)
