"""Checkpoints' view: every checkpoint with each engine's values, drawn from the other sections."""
from __future__ import annotations

from typing import Any

import pandas as pd

from site_gen.render import format as fmt, views
from site_gen.render.provenance import Fig
from site_gen.sections.contract import ViewPart


def view(a) -> list[dict[str, Any]]:
    """Every checkpoint with each engine's values, saying plainly where an engine did not run."""
    out = []
    precision = a.of("precision")
    records = views.rows(precision.table) if precision is not None else []
    for c in a.report.meta["checkpoints"]:
        cid = c["id"]
        rows = []
        if precision is not None:
            for r in (r for r in records if r["checkpoint"] == cid):
                src = r["source"]
                rows.append({"label": r["label"],
                             "baseline": Fig(fmt.measure_value(r["baseline"], r["unit"]), f"{src}.baseline.value"),
                             "baseline_missing": bool(pd.isna(r["baseline"])),
                             "candidate": Fig(fmt.measure_value(r["candidate"], r["unit"]), f"{src}.candidate.value")
                             if not pd.isna(r["candidate"]) else fmt.MISSING,
                             "difference": Fig(fmt.measure_difference(r["difference"], r["unit"]), f"{src}.difference")
                             if r["paired"] else None,
                             "source": src})
        out.append({"id": cid, "label": c.get("label", ""), "description": c.get("description", ""), "missing": c.get("missing", {}), "rows": rows})
    return out


PART = ViewPart(view=view)
