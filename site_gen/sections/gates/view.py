"""Quality gates' view: the page's display data and its CSV table."""
from __future__ import annotations

from typing import Any

import pandas as pd

from site_gen.render import views
from site_gen.render.provenance import Fig
from site_gen.sections.gates import _RULE


def csv(a) -> dict:
    t = a.of("gates")
    return {} if t is None else {"gates": t.table}


def view(a) -> dict[str, Any] | None:
    result = a.of("gates")
    if result is None:
        return None
    names = {"baseline": a.report.baseline.label, "candidate": a.report.candidate.label}
    rows = [{"checkpoint": r["checkpoint"], "group": "" if pd.isna(r["group"]) else r["group"], "label": r["label"],
             "engine": names[r["engine"]], "value": Fig(f"{r['value']:.4g}", r["source"] + ".value"),
             "rule": f"{_RULE[r['passes_when']]} {r['threshold']:g}" + ("" if pd.isna(r["unit"]) else f" {r['unit']}"),
             "passed": bool(r["passed"]), "source": r["source"]} for r in views.rows(result.table)]
    failed = [r for r in rows if not r["passed"]]
    return {"rows": rows, "failed": len(failed), "total": len(rows), "note": a.report.section("gates").get("note", ""),
            "failed_names": [f"{r['label']} ({', '.join(x for x in (r['group'], r['checkpoint'], r['engine']) if x)})" for r in failed],
            "headline": headline(len(failed), len(rows))}


def headline(failed: int, total: int) -> str:
    if not failed:
        return f"All {total} gates passed." if total != 1 else "The one gate passed."
    return f"{failed} of {total} gates failed" if total != 1 else "The one gate failed"


