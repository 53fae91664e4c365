"""Memory and startup: KV pool sizes, cold and warm startup, reference engines."""
from __future__ import annotations

from typing import Any

import pandas as pd

from site_gen.analysis import memory as calc
from site_gen.analysis.frames import records
from site_gen.analysis.report import Analysis
from site_gen.receipts.load import require
from site_gen.render import format as fmt, views
from site_gen.render.provenance import Fig
from site_gen.sections.base import BlockSpec, Section

def check(memory: dict, file, checkpoint_ref) -> None:
    for part in ("kv_pool", "startup", "references"):
        seen_keys = set()
        for i, r in enumerate(memory.get(part, [])):
            checkpoint_ref(r["checkpoint"], f"$.memory.{part}[{i}].checkpoint")
            key = (r["checkpoint"], r.get("engine", r.get("version")))
            require(key not in seen_keys, f"duplicate {part} entry for {key[0]} / {key[1]}", file, f"$.memory.{part}[{i}]")
            seen_keys.add(key)


def engine_records(data: dict):
    for part in ("kv_pool", "startup"):
        for i, r in enumerate(data.get("memory", {}).get(part, [])):
            yield r["checkpoint"], r["engine"], f"$.memory.{part}[{i}]"


def analyse(a, m: dict) -> None:
    kv = records(m.get("kv_pool", []), "$.memory.kv_pool", ["checkpoint", "engine", "tokens"])
    a.kv = calc.kv_pool(kv)
    a.kv_range = calc.kv_range(a.kv)
    a.startup = calc.startup(records(m.get("startup", []), "$.memory.startup", ["checkpoint", "engine", "cold_s", "warm_s"]))
    a.kv_references = calc.references(
        records(m.get("references", []), "$.memory.references", ["checkpoint", "name", "version", "kv_pool_tokens"]), kv)


def csv(a) -> dict:
    if a.kv is None:
        return {}
    tables = {"kv-pool": fmt.csv_ratios(a.kv, "ratio")}
    if a.startup is not None and not a.startup.empty:
        tables["startup"] = a.startup
    return tables


def _startup(r, ready: bool):
    if not pd.isna(r["cold_s"]) and not pd.isna(r["warm_s"]):
        return Fig(fmt.seconds_pair(r["cold_s"], r["warm_s"]), f"{r['source']}.cold_s and .warm_s")
    if ready and not pd.isna(r["ready_s"]):
        return Fig(f"ready in {fmt.seconds(r['ready_s'], 0)}", f"{r['source']}.ready_s")
    return fmt.NOT_MEASURED


def view(a: Analysis) -> dict[str, Any] | None:
    if a.kv is None:
        return None
    kv = {r["checkpoint"]: r for r in views.rows(a.kv)}  # one row per checkpoint (calc.kv_pool)
    cols = [c for c in a.paired_checkpoints if c in kv]
    st = a.startup
    kv_path = {(r["checkpoint"], r["engine"]): f"$.memory.kv_pool[{i}].tokens"
               for i, r in enumerate(a.report.section("memory").get("kv_pool", []))}
    rows = [
        {"label": f"KV pool, {a.report.baseline.name}", "sub": "tokens",
         "cells": [{"text": Fig(fmt.thousands(kv[c]["baseline"]), kv_path.get((c, "baseline")))} for c in cols]},
        {"label": f"KV pool, {a.report.candidate.label}", "sub": "tokens",
         "cells": [{"text": Fig(fmt.thousands(kv[c]["candidate"]), kv_path.get((c, "candidate"))),
                    "extra": Fig(fmt.ratio(kv[c]["ratio"]), how=f"candidate / baseline KV pool tokens, {c}: "
                                 f"{fmt.thousands(kv[c]['candidate'])} / {fmt.thousands(kv[c]['baseline'])}")}
                   for c in cols]},
    ]
    # One startup row per checkpoint and engine (the meaning checks refuse a second).
    startups = views.rows(st) if st is not None and not st.empty else []
    ready = st is not None and "ready_s" in st
    for role, name in (("baseline", a.report.baseline.name), ("candidate", a.report.candidate.label)):
        part = {r["checkpoint"]: r for r in startups if r["engine"] == role}
        if not part:
            continue
        rows.append({"label": f"Startup, {name}", "sub": "cold / warm" + (" or ready" if ready else ""),
                     "cells": [{"text": _startup(part[c], ready) if c in part else fmt.MISSING} for c in cols]})
    refs = [{"checkpoint": r["checkpoint"], "engine": f"{r['name']} v{r['version']}", "tokens": fmt.thousands(r["kv_pool_tokens"]),
             "ratio": fmt.ratio(r["ratio"], 1), "candidate": f"v{a.report.candidate.version}"}
            for r in views.rows(a.kv_references)] if a.kv_references is not None else []
    return {"checkpoints": cols, "rows": rows, "references": refs, "hardware": a.report.meta.get("hardware", ""),
            "title": page_title(a)}


def page_title(a) -> str:
    """No startup heading over a receipt with no startup times."""
    return "Memory and startup" if a.startup is not None and not a.startup.empty else "Memory"


SECTION = Section(
    key="memory", title="Memory and startup", name="memory", view=view, check=check, page_title=page_title,
    engine_records=engine_records, analyse=analyse, csv=csv, provenance=True,
    blocks={"memory-table": BlockSpec("memory", "memory", (), "{{ memory_table(memory, id=id) }}",
                                      "KV pool sizes and startup times", "memory-table")},
)
