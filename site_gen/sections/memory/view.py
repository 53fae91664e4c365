"""Memory's view: the page's display data, its CSV tables, its author block and its lines in the
summary, the dashboard and the share card."""
from __future__ import annotations

from typing import Any

import pandas as pd

from site_gen.render import format as fmt, views
from site_gen.render.provenance import Fig
from site_gen.sections.base import BlockSpec


def csv(a) -> dict:
    m = a.of("memory")
    if m is None:
        return {}
    tables = {"kv-pool": fmt.csv_ratios(m.kv, "ratio")}
    if m.startup is not None and not m.startup.empty:
        tables["startup"] = m.startup
    return tables


def _startup(r, ready: bool):
    if not pd.isna(r["cold_s"]) and not pd.isna(r["warm_s"]):
        return Fig(fmt.seconds_pair(r["cold_s"], r["warm_s"]), f"{r['source']}.cold_s and .warm_s")
    if ready and not pd.isna(r["ready_s"]):
        return Fig(f"ready in {fmt.seconds(r['ready_s'], 0)}", f"{r['source']}.ready_s")
    return fmt.NOT_MEASURED


def view(a) -> dict[str, Any] | None:
    m = a.of("memory")
    if m is None:
        return None
    kv = {r["checkpoint"]: r for r in views.rows(m.kv)}  # one row per checkpoint (analysis.kv_pool)
    cols = [c for c in a.paired_checkpoints if c in kv]
    st = m.startup
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
            for r in views.rows(m.references)] if m.references is not None else []
    return {"checkpoints": cols, "rows": rows, "references": refs, "hardware": a.report.meta.get("hardware", ""),
            "title": page_title(a)}


def page_title(a) -> str:
    """No startup heading over a receipt with no startup times."""
    m = a.of("memory")
    return "Memory and startup" if m is not None and m.startup is not None and not m.startup.empty else "Memory"


BLOCKS = {"memory-table": BlockSpec("memory", "memory", (), "{{ memory_table(memory, id=id) }}",
                                    "KV pool sizes and startup times", "memory-table")}
MACROS = ("memory_table",)


# -- its lines in the other outputs -----------------------------------------------------------

def dashboard(a) -> dict[str, Any]:
    """Its cell in the table of reports: the range of KV pool ratios, sorted by its high end."""
    m = a.of("memory")
    if m is None or not m.kv_range:
        return {}
    low, high, _ = m.kv_range
    return {"kv": {"text": fmt.ratio_range(low, high), "sort": f"{high:.6f}"}}


def headlines(a) -> list[tuple[str, str, str]]:
    m = a.of("memory")
    if m is None or not m.kv_range:
        return []
    low, high, _ = m.kv_range
    key = "accent"  # a KV pool ratio is no speed verdict: its dot wears none of their colours
    return [("KV pool:", f"holds {fmt.ratio_range(low, high)} the baseline's context", key)]


def summary(a, shown: dict | None) -> dict[str, Any] | None:
    """Its part of `sitegen summary --format json`: the candidate's KV pool row, by checkpoint."""
    if not shown:
        return None
    kv = a.of("memory").kv.set_index("checkpoint")
    return {"kv_pool": {c: {"candidate": fmt.thousands(kv.loc[c, "candidate"]), "ratio": fmt.ratio(kv.loc[c, "ratio"])}
                        for c in shown["checkpoints"]}}


def summary_rows(d: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f"KV pool {c}", f"{kv['candidate']} tokens, {kv['ratio']}") for c, kv in d.get("kv_pool", {}).items()]


_SINCE = ("Since the release before", False)


def _history_kv(frame, h) -> list[dict[str, Any]]:
    def phrase(c) -> str:
        return f"{fmt.thousands(c.old)} \u2192 {fmt.thousands(c.new)} tokens ({fmt.speed_ratio(c.change, h.band)})"

    return h.table(frame, "{series}", [("{candidate} tokens", True), ("{baseline} tokens", True), ("Ratio", True), _SINCE], lambda r: [
        {"text": fmt.thousands(r["candidate_tokens"])}, {"text": fmt.thousands(r["baseline_tokens"])},
        {"text": Fig(fmt.ratio(r["ratio"]), how=f"{r['candidate']} / {r['baseline']} KV pool tokens, {r['checkpoint']}")},
        h.mark(r, phrase)])


def _history_startup(frame, h) -> list[dict[str, Any]]:
    def phrase(c) -> str:
        return (f"{_TIMES[c.measure]} {fmt.fixed(c.old, 0)} \u2192 {fmt.fixed(c.new, 0)} s "
                f"({fmt.speed_ratio(c.change, h.band)})")

    return h.table(frame, "{series}, cold / warm", [("Startup", True), _SINCE],
                   lambda r: [{"text": fmt.seconds_pair(r["cold_s"], r["warm_s"])}, h.mark(r, phrase)])


HISTORY_PARTS = {"kv": (20, _history_kv), "startup": (30, _history_startup)}


# -- against an earlier release (`sitegen compare`) ----------------------------------------------

_TIMES = {"cold_s": "cold startup", "warm_s": "warm startup", "ready_s": "ready after"}


def compare_what(item) -> str:
    if item.kind == "kv":
        return f"{item.where['checkpoint']} · KV pool"
    return f"{item.where['checkpoint']} · {_TIMES.get(item.measure, item.measure)}"


def compare_value(c, v: float, signed: bool = False) -> str:
    return fmt.thousands(v) if c.kind == "kv" else fmt.fixed(v, 1)
