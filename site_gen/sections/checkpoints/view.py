"""Checkpoints' view: every checkpoint with each engine's values, drawn from the other sections."""
from __future__ import annotations

from typing import Any

import pandas as pd

from site_gen.render import format as fmt, views


def view(a) -> list[dict[str, Any]]:
    """Every checkpoint with each engine's values, saying plainly where an engine did not run."""
    out = []
    precision, memory = a.of("precision"), a.of("memory")
    records = views.rows(precision.table) if precision is not None else []
    kv = {r["checkpoint"]: r for r in reversed(views.rows(memory.kv))} if memory is not None else {}  # the first row wins
    for c in a.report.meta["checkpoints"]:
        cid = c["id"]
        rows = []
        if precision is not None:
            for r in (r for r in records if r["checkpoint"] == cid):
                rows.append({"label": r["label"], "baseline": fmt.measure_value(r["baseline"], r["unit"]),
                             "baseline_missing": bool(pd.isna(r["baseline"])),
                             "candidate": fmt.measure_value(r["candidate"], r["unit"]),
                             "difference": fmt.measure_difference(r["difference"], r["unit"]) if r["paired"] else None,
                             "source": r["source"]})
        k = kv.get(cid)
        out.append({"id": cid, "label": c.get("label", ""), "description": c.get("description", ""), "missing": c.get("missing", {}), "rows": rows,
                    "kv": {"baseline": fmt.thousands(k["baseline"]), "candidate": fmt.thousands(k["candidate"]),
                           "ratio": fmt.side_ratio(k["ratio"])} if k is not None else None})
    return out


