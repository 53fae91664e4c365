"""Quality gates: a value against a threshold, pass or fail, per engine (schema 1.1). The receipt
says whether each passed; the check refuses a verdict its own value and threshold contradict."""
from __future__ import annotations

from typing import Any

import pandas as pd

from site_gen.analysis import results as calc
from site_gen.receipts.load import require
from site_gen.render import views
from site_gen.render.provenance import Fig
from site_gen.sections.base import Section

_RULE = {"at_most": "at most", "at_least": "at least"}


def check(part: dict, file, checkpoint_ref) -> None:
    seen: dict[tuple, int] = {}
    for i, r in enumerate(part["results"]):
        where = f"$.gates.results[{i}]"
        checkpoint_ref(r["checkpoint"], where + ".checkpoint")
        key = (r["checkpoint"], r.get("group"), r["gate"], r["engine"])
        require(key not in seen, f"duplicate gate (same checkpoint, group, gate and engine as $.gates.results[{seen.get(key)}])",
                file, where)
        seen[key] = i
        expect = calc.gate_passes(r["value"], r["threshold"], r["passes_when"])
        require(r["passed"] == expect, f"passed is {str(r['passed']).lower()}, but {r['value']} is "
                f"{'' if expect else 'not '}{_RULE[r['passes_when']]} {r['threshold']}", file, f"{where}.passed")


def engine_records(data: dict):
    for i, r in enumerate(data.get("gates", {}).get("results", [])):
        yield r["checkpoint"], r["engine"], f"$.gates.results[{i}]"


def analyse(a, part: dict) -> None:
    a.results["gates"] = calc.gates(part)


def csv(a) -> dict:
    t = a.results.get("gates")
    return {} if t is None else {"gates": t}


def view(a) -> dict[str, Any] | None:
    t = a.results.get("gates")
    if t is None:
        return None
    names = {"baseline": a.report.baseline.label, "candidate": a.report.candidate.label}
    rows = [{"checkpoint": r["checkpoint"], "group": "" if pd.isna(r["group"]) else r["group"], "label": r["label"],
             "engine": names[r["engine"]], "value": Fig(f"{r['value']:.4g}", r["source"] + ".value"),
             "rule": f"{_RULE[r['passes_when']]} {r['threshold']:g}" + ("" if pd.isna(r["unit"]) else f" {r['unit']}"),
             "passed": bool(r["passed"]), "source": r["source"]} for r in views.rows(t)]
    failed = sum(not r["passed"] for r in rows)
    return {"rows": rows, "failed": failed, "total": len(rows), "note": a.report.section("gates").get("note", "")}


SECTION = Section(key="gates", title="Quality gates", name="gates", view=view, check=check, records="results",
                  engine_records=engine_records, analyse=analyse, csv=csv, provenance=True)
