"""Accuracy's view: the page's display data, its CSV table and its author block."""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from site_gen.render import format as fmt, plain, views
from site_gen.render.provenance import Fig
from site_gen.sections.base import BlockSpec
from site_gen.sections.contract import ViewPart


def csv(a) -> dict:
    t = a.of("accuracy")
    if t is None:
        return {}
    verdicts = [_verdict(r, a.report.candidate.name) for r in views.rows(t.table)]
    # The verdict the page shows, by direction: better, worse, not resolved, or no paired difference.
    words = [tone if tone != "neutral" else text.replace(" measured", "") for text, tone in verdicts]
    return {"accuracy": t.table.drop(columns=["interval"], errors="ignore").assign(verdict=words)}


def _value(v: Any, unit: str) -> str:
    return fmt.percent(v * 100, 1) if unit == "proportion" else fmt.fixed(v, 4)


def _values(baseline: Any, candidate: Any, difference: Any, unit: str) -> tuple[str, str]:
    """Both sides' values as printed beside their difference: `_value`'s digits, and more where they
    would contradict it (format.pair's rule); without a difference, `_value`'s."""
    if pd.isna(difference):
        return _value(baseline, unit), _value(candidate, unit)
    if unit != "proportion":
        return fmt.pair(baseline, candidate, 4, _difference(difference, unit), "difference", grouping=False)
    a, b = fmt.pair(baseline * 100, candidate * 100, 1, _difference(difference, unit), "difference", grouping=False)
    return f"{a}%", f"{b}%"


def _difference(v: Any, unit: str) -> str:
    return fmt.points(v * 100, 1) if unit == "proportion" else fmt.signed(v, 4)


def _spread(lo: Any, hi: Any, unit: str) -> str:
    """One side's own interval, unsigned: `80.8–90.4%`."""
    return fmt.number_range(lo * 100, hi * 100, 1, "%") if unit == "proportion" else fmt.number_range(lo, hi, 4)


def _interval(lo: Any, hi: Any, unit: str) -> str:
    return fmt.interval(lo * 100, hi * 100, 1) if unit == "proportion" else fmt.interval(lo, hi, 4)


def _verdict(r: dict, candidate: str) -> tuple[str, str]:
    """The verdict and its tone by direction: better, worse, or neutral (nothing resolved)."""
    if pd.isna(r["difference"]):
        return "no paired difference measured", "neutral"
    if not r["resolved"]:
        return "not resolved", "neutral"
    higher = r["difference"] > 0
    good = higher == (r["better"] == "higher")
    return f"{candidate} {'higher' if higher else 'lower'} ({'better' if good else 'worse'})", "better" if good else "worse"


def _row(r: dict, candidate: str) -> dict[str, Any]:
    u, src = r["unit"], r["source"]
    shown = dict(zip(("baseline", "candidate"), _values(r["baseline_value"], r["candidate_value"], r["difference"], u)))
    side = lambda role: Fig(shown[role], f"{src}.{role}.value") if not pd.isna(r[f"{role}_value"]) else ""
    spread = lambda role: Fig(_spread(r[f"{role}_interval"][0], r[f"{role}_interval"][1], u), f"{src}.{role}.interval") \
        if isinstance(r[f"{role}_interval"], list) else ""

    def count(role: str):
        """A share of whole items as the count it is (`3 of 198`), where it is one."""
        k = r[f"{role}_value"] * r["items"]
        if u != "proportion" or pd.isna(k) or abs(k - round(k)) >= 1e-6:
            return ""
        return Fig(f"{round(k)} of {int(r['items'])}", how=f"{src}.{role}.value × {src}.items, a whole count")
    paired = not pd.isna(r["difference"])  # a difference to show (paired over shared items, or not: `unpaired`)
    verdict, tone = _verdict(r, candidate)
    return {"checkpoint": r["checkpoint"], "label": r["label"], "unit": u, "better": r["better"],
            "n_items": Fig(str(int(r["items"])), f"{src}.items"),
            "baseline": side("baseline"), "candidate": side("candidate"),
            "baseline_interval": spread("baseline"), "candidate_interval": spread("candidate"),
            "baseline_count": count("baseline"), "candidate_count": count("candidate"),
            "difference": Fig(_difference(r["difference"], u), f"{src}.difference") if paired else fmt.NOT_MEASURED,
            "interval": Fig(_interval(r["low"], r["high"], u), f"{src}.interval") if paired else fmt.NOT_MEASURED,
            "resolved": bool(r["resolved"]), "verdict": verdict, "tone": tone, "source": src, "paired": paired,
            # schema 1.2: a difference from two standard errors, not over shared items, says so
            "unpaired": paired and _unpaired(r)}


def _unpaired(r: dict) -> bool:
    """A result whose receipt says its difference is not over shared items (schema 1.2 `paired: false`)."""
    return isinstance(r.get("paired"), (bool, np.bool_)) and not r["paired"]


def pairing(paired: int, unpaired: int) -> dict[str, str]:
    """How a set of differences was drawn, in words: the table's caption, the difference column's
    head and the counts' qualifier (`paired`, `unpaired`, `2 paired, 1 unpaired`)."""
    if not unpaired:
        return {"caption": "paired over the items both runs hold", "head": "Paired difference", "counted": "paired"}
    if not paired:
        return {"caption": "unpaired: each difference from the two runs' own standard errors (no per-item samples on both sides)",
                "head": "Difference", "counted": "unpaired"}
    return {"caption": f"paired over the items both runs hold where both have per-item samples; {unpaired} unpaired, "
                       "from the two runs' own standard errors", "head": "Difference", "counted": f"{paired} paired, {unpaired} unpaired"}


def counted(compared: int, paired: int, unpaired: int) -> str:
    """`3 paired differences`, `3 unpaired differences`, `3 differences (2 paired, 1 unpaired)`."""
    words = pairing(paired, unpaired)["counted"]
    noun = "difference" if compared == 1 else "differences"
    return f"{compared} {words} {noun}" if not (paired and unpaired) else f"{compared} {noun} ({words})"


def view(a) -> dict[str, Any] | None:
    t = a.of("accuracy")
    part = a.report.section("accuracy")
    if t is None or part is None:
        return None
    m = part["method"]
    rows = [_row(r, a.report.candidate.name) for r in views.rows(t.table)]
    compared = sum(r["paired"] for r in rows)
    unpaired = sum(r["unpaired"] for r in rows)
    resolved = sum(r["resolved"] for r in rows)
    level = f"{m['level'] * 100:g}%"
    how = pairing(compared - unpaired, unpaired)
    one = "baseline" not in a.report.meta["engines"]  # one run (lm-eval --candidate alone): its values, no comparison
    return {"rows": rows, "note": part.get("note", ""), "one": one,
            "method": {"name": m["name"], "resamples": fmt.thousands(m["resamples"]), "seed": m["seed"], "level": level},
            "resolved": resolved, "results": len(rows),
            # Counted over the results that have a difference: one without is named, not counted; a
            # difference not over shared items is counted as unpaired, never as paired.
            "compared": compared, "paired": compared - unpaired, "unpaired": unpaired,
            "caption": how["caption"], "difference_head": how["head"],
            "headline": f"{resolved} of {counted(compared, compared - unpaired, unpaired)} {'is' if resolved == 1 else 'are'} "
                        f"resolved (the {level} interval excludes zero; a difference whose interval holds zero is not resolved).",
            "unpaired_labels": [f"{r['label']} ({r['checkpoint']})" for r in rows if not r["paired"]]}


BLOCKS = {"accuracy-table": BlockSpec("accuracy", "accuracy", (), "{{ accuracy_table(accuracy, engines, id=id) }}",
                                       "paired accuracy differences with their intervals", "accuracy-table")}
MACROS = ("accuracy_table",)


# -- its lines in the other outputs -----------------------------------------------------------

def _side(r: dict, role: str) -> dict[str, Any]:
    iv = r[f"{role}_interval"]
    return {"value": plain.number(r[f"{role}_value"]), "interval": plain.span(*iv) if isinstance(iv, list) else None}


def summary(a, shown: dict | None) -> dict[str, Any] | None:
    """Its part of `sitegen summary --format json`: each result's values, paired difference and
    interval at the receipt's level, which way is better, and the verdict."""
    if not shown:
        return None
    t = a.of("accuracy").table
    m = a.report.section("accuracy")["method"]
    results = []
    for r, row in zip(views.rows(t), shown["rows"]):
        results.append({"checkpoint": r["checkpoint"], "measure": r["measure"], "label": r["label"], "unit": r["unit"],
                        "better": r["better"], "items": int(r["items"]), "baseline": _side(r, "baseline"),
                        "candidate": _side(r, "candidate"), "difference": plain.number(r["difference"]),
                        "interval": plain.span(r["low"], r["high"]), "resolved": bool(r["resolved"]) if row["paired"] else None,
                        "paired": (not row["unpaired"]) if row["paired"] else None,
                        "verdict": {"better": "better", "worse": "worse"}.get(row["tone"],
                                                                              "not resolved" if row["paired"] else "no paired difference")})
    return {"accuracy": {"level": plain.number(m["level"]), "method": {"name": m["name"], "resamples": int(m["resamples"]),
                                                                       "seed": int(m["seed"])},
                         "rule": "resolved when the interval excludes zero; better or worse by the result's `better`",
                         "paired": shown["paired"], "unpaired": shown["unpaired"], "resolved": shown["resolved"],
                         "results": results}}


def summary_rows(d: dict[str, Any]) -> list[tuple[str, str]]:
    if "accuracy" not in d:
        return []
    acc = d["accuracy"]
    level = f"{acc['level'] * 100:g}%"
    if all(r["baseline"]["value"] is None for r in acc["results"]):  # one run: its values
        return [(f"{r['checkpoint']} {r['label']}", _value(r["candidate"]["value"], r["unit"])
                 + (f" {_spread(r['candidate']['interval']['low'], r['candidate']['interval']['high'], r['unit'])}"
                    if r["candidate"]["interval"] else "") + ", one run") for r in acc["results"]]
    unpaired = acc.get("unpaired", 0)
    n = acc["paired"] + unpaired
    what = pairing(acc["paired"], unpaired)["counted"]
    rows = [("Accuracy differences resolved", f"{acc['resolved']} of {n} {what} ({level} interval)" if not (acc["paired"] and unpaired)
             else f"{acc['resolved']} of {n} ({what}; {level} interval)")]
    for r in acc["results"]:
        if r["difference"] is None:
            rows.append((f"{r['checkpoint']} {r['label']}", f"{_value(r['baseline']['value'], r['unit'])} → "
                                                            f"{_value(r['candidate']['value'], r['unit'])}, no paired difference"))
            continue
        rows.append((f"{r['checkpoint']} {r['label']}", f"{_difference(r['difference'], r['unit'])} "
                     f"{_interval(r['interval']['low'], r['interval']['high'], r['unit'])} {r['verdict']}"
                     f"{', unpaired' if r.get('paired') is False else ''} ({r['better']} is better)"))
    return rows


def verdict(a) -> str | None:
    """Its clause of the report's opening sentence: resolved accuracy differences, better and worse."""
    t = a.of("accuracy")
    if t is None:
        return None
    rows = [r for r in views.rows(t.table) if not pd.isna(r["difference"])]
    if not rows:
        return None
    good = [r for r in rows if r["resolved"] and (r["difference"] > 0) == (r["better"] == "higher")]
    bad = [r for r in rows if r["resolved"] and r not in good]
    n = len(rows)
    unpaired = sum(_unpaired(r) for r in rows)
    if not good and not bad:
        what = pairing(n - unpaired, unpaired)["counted"]
        return f"no accuracy difference resolved ({n}: {what})" if n - unpaired and unpaired else \
            f"no accuracy difference resolved ({n} {what})"
    named = lambda found: ", ".join(r["label"] for r in found[:3]) + (" …" if len(found) > 3 else "")
    parts = [f"better on {len(good)} ({named(good)})" if good else "", f"worse on {len(bad)} ({named(bad)})" if bad else ""]
    return f"accuracy {' and '.join(p for p in parts if p)} of {counted(n, n - unpaired, unpaired)}"


def headlines(a) -> list[tuple[str, str, str]]:
    """Its line of the share card and the meta description: resolved differences, better and worse."""
    t = a.of("accuracy")
    if t is None:
        return []
    rows = [r for r in views.rows(t.table) if not pd.isna(r["difference"])]
    if not rows:
        return []
    good = sum(1 for r in rows if r["resolved"] and (r["difference"] > 0) == (r["better"] == "higher"))
    bad = sum(1 for r in rows if r["resolved"]) - good
    level = f"{a.report.section('accuracy')['method']['level'] * 100:g}%"
    key = "worse" if bad and not good else "better" if good and not bad else "neutral"
    unpaired = sum(_unpaired(r) for r in rows)
    what = pairing(len(rows) - unpaired, unpaired)["counted"]
    return [("Accuracy:", f"{good} better, {bad} worse of {len(rows)} {what} ({level} intervals)", key)]


# -- against an earlier release (`sitegen compare`) ----------------------------------------------

def compare_what(item) -> str:
    return f"{item.where['checkpoint']} · {item.where['measure']}"


def compare_value(c, v: float, signed: bool = False, more: int = 0) -> str:
    if c.unit == "proportion":  # in percent, a change in points (the unit `compare_unit` names)
        return fmt.signed(v * 100, 1 + more) if signed else fmt.fixed(v * 100, 1 + more)
    return fmt.signed(v, 4 + more) if signed else fmt.fixed(v, 4 + more)


def compare_unit(c) -> str:
    return "%, change in pts" if c.unit == "proportion" else c.unit


PART = ViewPart(view=view, csv=csv, blocks=BLOCKS, macros=MACROS, summary=summary, summary_rows=summary_rows,
                verdict=verdict, headlines=headlines, compare_what=compare_what, compare_value=compare_value,
                compare_unit=compare_unit)
