"""Measures' view: the page's display data and its CSV table."""
from __future__ import annotations

from typing import Any

import pandas as pd

from site_gen.render import format as fmt, plain, views
from site_gen.render.provenance import Fig
from site_gen.sections.contract import ViewPart


def csv(a) -> dict:
    t = a.of("measures")
    if t is None:
        return {}
    # The direction the page names, as its words: better, worse, or why there is none.
    said = [_direction(r, a.report.candidate.name) for r in views.rows(t.table)]
    return {"measures": t.table.assign(direction=[tone if tone != "neutral" else text for text, tone in said])}


def _num(v: Any, more: int = 0) -> str:
    if pd.isna(v):
        return fmt.NOT_MEASURED
    return fmt.grouped(v, (1 if abs(v) >= 10 else 3) + more)


def _side(r: dict, role: str, median: str | None = None) -> dict[str, Any]:
    src = f"{r['source']}.{role}"
    n = int(r[f"{role}_n"])
    if n == 1:
        spread: Any = "one sample"
    elif pd.isna(r[f"{role}_low"]):
        spread = fmt.NOT_MEASURED
    else:
        spread = Fig(f"{_num(r[f'{role}_low'])}–{_num(r[f'{role}_high'])}" + (f", n={n}" if n else ""), src + ".low and .high")
    return {"median": Fig(median or _num(r[f"{role}_median"]), src + ".median"), "range": spread}


def change_text(change: Any, directed: bool) -> str:
    """The change of medians in percent, `+0.4%`: one decimal, more where a change given a direction
    would print as zero."""
    if pd.isna(change):
        return fmt.MISSING
    return fmt.signed(change * 100, fmt.nonzero_digits(change * 100, 1) if directed else 1) + "%"


def pair_texts(baseline: Any, candidate: Any, shown: str) -> tuple[str, str]:
    """Both medians as printed beside their change (`shown`): `_num`'s decimals, and more where the
    two would contradict it (format.pair's rule)."""
    if pd.isna(baseline) or pd.isna(candidate):
        return _num(baseline), _num(candidate)
    more = fmt.pair_more(lambda k: (_num(baseline, k), _num(candidate, k)), shown, "relative")
    return _num(baseline, more), _num(candidate, more)


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
        direction, tone = _direction(r, a.report.candidate.name)
        shown = change_text(r["change"], tone != "neutral")
        medians = pair_texts(r["baseline_median"], r["candidate_median"], shown)
        change = Fig(shown, how=f"candidate median / baseline median − 1: {medians[1]} / {medians[0]}")
        groups.setdefault((r["checkpoint"], r["group"]), []).append({
            "label": r["label"], "unit": r["unit"], "better": f"{r['unit']}, {r['better']} is better",
            "vocabulary": "" if pd.isna(r["vocabulary"]) else r["vocabulary"],
            "baseline": _side(r, "baseline", medians[0]), "candidate": _side(r, "candidate", medians[1]), "change": change,
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
    for r in m["results"]:
        shown = change_text(r["change"] if r["change"] is not None else float("nan"), r["direction"] in ("better", "worse"))
        base, cand = pair_texts(r["baseline"]["median"] if r["baseline"]["median"] is not None else float("nan"),
                                r["candidate"]["median"] if r["candidate"]["median"] is not None else float("nan"), shown)
        rows.append((f"{r['checkpoint']} {r['group']} {r['label']}",
                     f"{base} → {cand} {r['unit']} ({shown}), {r['direction']}; {r['better']} is better"))
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


def compare_value(c, v: float, signed: bool = False, more: int = 0) -> str:
    return _num(v, more)


PART = ViewPart(view=view, csv=csv, summary=summary, summary_rows=summary_rows, verdict=verdict, headlines=headlines,
                compare_what=compare_what, compare_value=compare_value)
