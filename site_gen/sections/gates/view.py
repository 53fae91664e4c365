"""Quality gates' view: the page's display data and its CSV table."""
from __future__ import annotations

from typing import Any

import pandas as pd

from site_gen.render import format as fmt, plain, views
from site_gen.render.provenance import Fig
from site_gen.sections.gates import RULE_WORDS
from site_gen.sections.contract import ViewPart


def csv(a) -> dict:
    t = a.of("gates")
    return {} if t is None else {"gates": t.table}


def view(a) -> dict[str, Any] | None:
    result = a.of("gates")
    if result is None:
        return None
    names = {"baseline": a.report.baseline.label, "candidate": a.report.candidate.label}
    rows = [{"checkpoint": r["checkpoint"], "group": "" if pd.isna(r["group"]) else r["group"], "label": r["label"],
             "engine": names[r["engine"]], "value": Fig(fmt.significant(r["value"]), r["source"] + ".value"),
             "rule": Fig(f"{RULE_WORDS[r['passes_when']]} {fmt.significant(r['threshold'], 6)}" + ("" if pd.isna(r["unit"]) else f" {r['unit']}"),
                         r["source"] + ".threshold"),
             "passed": bool(r["passed"]), "source": r["source"]} for r in views.rows(result.table)]
    failed = [r for r in rows if not r["passed"]]
    return {"rows": rows, "failed": result.failed, "total": result.total, "note": a.report.section("gates").get("note", ""),
            "failed_names": [f"{r['label']} ({', '.join(x for x in (r['group'], r['checkpoint'], r['engine']) if x)})" for r in failed],
            "headline": headline(result.failed, result.total)}


def headline(failed: int, total: int) -> str:
    if not failed:
        return f"All {total} gates passed." if total != 1 else "The one gate passed."
    return f"{failed} of {total} gates failed" if total != 1 else "The one gate failed"




# -- its lines in the other outputs -----------------------------------------------------------

def summary(a, shown: dict | None) -> dict[str, Any] | None:
    """Its part of `sitegen summary --format json`: every gate with its value, threshold and rule, and the failed ones."""
    if not shown:
        return None
    names = {"baseline": a.report.baseline.label, "candidate": a.report.candidate.label}
    results = [{"checkpoint": r["checkpoint"], "group": plain.text(r["group"]), "gate": r["gate"], "label": r["label"],
                "engine": r["engine"], "engine_label": names[r["engine"]], "value": plain.number(r["value"]),
                "threshold": plain.number(r["threshold"]), "passes_when": r["passes_when"], "unit": plain.text(r["unit"]),
                "passed": bool(r["passed"])} for r in views.rows(a.of("gates").table)]
    g = a.of("gates")
    return {"gates": {"total": g.total, "failed": g.failed, "passed": g.passed,
                      "results": results}}


def summary_rows(d: dict[str, Any]) -> list[tuple[str, str]]:
    if "gates" not in d:
        return []
    g = d["gates"]
    rows = [("Quality gates", headline(g["failed"], g["total"]).rstrip("."))]
    for r in g["results"]:
        if not r["passed"]:
            where = ", ".join(x for x in (r["group"], r["checkpoint"], r["engine_label"]) if x)
            rows.append((f"FAILED {r['label']} ({where})", f"{fmt.significant(r['value'])} is not {RULE_WORDS[r['passes_when']]} "
                         f"{fmt.significant(r['threshold'], 6)}"
                         + (f" {r['unit']}" if r["unit"] else "")))
    return rows


def verdict(a) -> str | None:
    g = a.of("gates")
    if g is None or g.table.empty:
        return None
    failed = [r for r in views.rows(g.table) if not r["passed"]]
    n = g.total
    if not g.failed:
        return f"all {n} quality gates passed" if n != 1 else "the one quality gate passed"
    names = ", ".join(dict.fromkeys(r["label"] for r in failed[:3])) + (" …" if g.failed > 3 else "")
    return f"{g.failed} of {n} quality gates failed ({names})"


def headlines(a) -> list[tuple[str, str, str]]:
    g = a.of("gates")
    if g is None or g.table.empty:
        return []
    return [("Gates:", f"{g.failed} of {g.total} failed" if g.failed else f"all {g.total} passed",
             "fail-fg" if g.failed else "neutral")]


PART = ViewPart(view=view, csv=csv, summary=summary, summary_rows=summary_rows, verdict=verdict, headlines=headlines)
