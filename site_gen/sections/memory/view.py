"""Memory's view: the page's display data, its CSV tables, its author block and its lines in the
summary, the dashboard and the share card."""
from __future__ import annotations

from typing import Any

import pandas as pd

from site_gen.core.names import engine_label
from site_gen.render import format as fmt, plain, views
from site_gen.render.provenance import Fig
from site_gen.sections.base import BlockSpec
from site_gen.sections.contract import ViewPart


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
        return Fig(f"ready in {fmt.seconds(r['ready_s'], fmt.STARTUP_DIGITS)}", f"{r['source']}.ready_s")
    return fmt.NOT_MEASURED


def _absent(a, c: str, role: str) -> str:
    """A side with no figure on a checkpoint: not run (the receipt's reason), or not measured."""
    reason = views.missing_reason(a, c, role)
    return f"not run: {reason}" if reason else fmt.NOT_MEASURED


def view(a) -> dict[str, Any] | None:
    m = a.of("memory")
    if m is None:
        return None
    kv = {r["checkpoint"]: r for r in views.rows(m.kv)}  # one row per checkpoint (analysis.kv_pool)
    st = m.startup
    # One startup row per checkpoint and engine (the meaning checks refuse a second).
    startups = views.rows(st) if st is not None and not st.empty else []
    # Every checkpoint with a figure, a side measured alone included: a lede may cite it.
    cols = [c for c in a.checkpoints if c in kv or any(s["checkpoint"] == c for s in startups)]
    kv_path = {(r["checkpoint"], r["engine"]): f"$.memory.kv_pool[{i}].tokens"
               for i, r in enumerate(a.report.section("memory").get("kv_pool", []))}

    def tokens(c: str, role: str) -> dict[str, Any]:
        value = kv[c][role] if c in kv else float("nan")
        if pd.isna(value):
            return {"text": _absent(a, c, role), "absent": True}
        return {"text": Fig(fmt.thousands(value), kv_path.get((c, role)))}

    def with_ratio(c: str) -> dict[str, Any]:
        cell = tokens(c, "candidate")
        if c in kv and not pd.isna(kv[c]["ratio"]):
            cell["extra"] = Fig(fmt.side_ratio(kv[c]["ratio"]), how=f"candidate / baseline KV pool tokens, {c}: "
                                f"{fmt.thousands(kv[c]['candidate'])} / {fmt.thousands(kv[c]['baseline'])}")
        return cell

    rows = [
        {"label": f"KV pool, {a.report.baseline.name}", "sub": "tokens", "cells": [tokens(c, "baseline") for c in cols]},
        {"label": f"KV pool, {a.report.candidate.label}", "sub": "tokens", "cells": [with_ratio(c) for c in cols]},
    ] if kv else []
    ready = st is not None and "ready_s" in st
    for role, name in (("baseline", a.report.baseline.name), ("candidate", a.report.candidate.label)):
        part = {r["checkpoint"]: r for r in startups if r["engine"] == role}
        if not part:
            continue
        rows.append({"label": f"Startup, {name}", "sub": "cold / warm" + (" or ready" if ready else ""),
                     "cells": [{"text": _startup(part[c], ready)} if c in part else {"text": _absent(a, c, role), "absent": True}
                               for c in cols]})
    refs = [{"checkpoint": r["checkpoint"], "engine": engine_label(r["name"], r["version"]),
             "tokens": Fig(fmt.thousands(r["kv_pool_tokens"]), f"{r['source']}.kv_pool_tokens"),
             "ratio": Fig(fmt.side_ratio(r["ratio"], 1), how=f"{a.report.candidate.label} / {engine_label(r['name'], r['version'])} "
                          f"KV pool tokens, {r['checkpoint']}: {fmt.thousands(r['candidate'])} / {fmt.thousands(r['kv_pool_tokens'])}"),
             "candidate": a.report.candidate.version_label}
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
    return {"kv": {"text": fmt.side_ratio_range(low, high), "sort": f"{high:.6f}"}}


def headlines(a) -> list[tuple[str, str, str]]:
    m = a.of("memory")
    if m is None or not m.kv_range:
        return []
    low, high, _ = m.kv_range
    # A larger KV pool holds more context: better only when every checkpoint's ratio is above 1,
    # worse only when every one is below; a range that reaches 1 or straddles it is neither.
    key = "better" if low > 1 else "worse" if high < 1 else "neutral"
    r = a.report
    return [("KV pool:", f"{r.candidate.name} holds {fmt.side_ratio_range(low, high)} the tokens of {r.baseline.name}", key)]


def summary(a, shown: dict | None) -> dict[str, Any] | None:
    """Its part of `sitegen summary --format json`: KV pool tokens of both sides and their ratio by
    checkpoint (a larger pool holds more context: higher is better), startup times, earlier versions."""
    if not shown:
        return None
    m = a.of("memory")
    kv = {r["checkpoint"]: r for r in views.rows(m.kv)}
    rng = m.kv_range
    startups = views.rows(m.startup) if m.startup is not None and not m.startup.empty else []
    return {"memory": {
        "unit": "tokens", "better": "higher", "ratio": "candidate KV pool tokens / baseline KV pool tokens",
        "kv_pool": {c: {"baseline": plain.integer(kv[c]["baseline"]), "candidate": plain.integer(kv[c]["candidate"]),
                        "ratio": plain.number(kv[c]["ratio"])} for c in shown["checkpoints"] if c in kv},
        "kv_ratio_range": plain.span(rng[0], rng[1], checkpoints=rng[2]) if rng else None,
        "startup": [{"checkpoint": s["checkpoint"], "engine": s["engine"], "unit": "s", "better": "lower",
                     **{t: plain.number(s.get(t)) for t in ("cold_s", "warm_s", "ready_s")}} for s in startups],
        "references": [{"checkpoint": r["checkpoint"], "name": r["name"], "version": r["version"],
                        "label": engine_label(r["name"], r["version"]), "kv_pool_tokens": plain.integer(r["kv_pool_tokens"]),
                        "candidate": plain.integer(r["candidate"]), "ratio": plain.number(r["ratio"])}
                       for r in (views.rows(m.references) if m.references is not None else [])]}}


def summary_rows(d: dict[str, Any]) -> list[tuple[str, str]]:
    if "memory" not in d:
        return []
    m = d["memory"]
    rows = [(f"KV pool {c}", f"{fmt.thousands(kv['candidate'])} tokens against {fmt.thousands(kv['baseline'])}, "
                             f"{fmt.side_ratio(kv['ratio'])}" if kv["ratio"] is not None else
             f"{fmt.thousands(kv['candidate'])} tokens (candidate), {fmt.thousands(kv['baseline'])} (baseline)")
            for c, kv in m["kv_pool"].items()]
    rows += [(f"Startup {s['checkpoint']}, {s['engine']}", startup_text(s, named=True)) for s in m["startup"]]
    return rows


def verdict(a) -> str | None:
    """Its clause of the report's opening sentence: how much KV pool the candidate holds against the baseline."""
    m = a.of("memory")
    if m is None or not m.kv_range:
        return None
    low, high, n = m.kv_range
    return f"holds {fmt.side_ratio_range(low, high)} the KV pool tokens of {a.report.baseline.name}" + \
        (f" ({n} checkpoints)" if n > 1 else "")


_SINCE = ("Since the build before", False)


def _history_kv(frame, h) -> list[dict[str, Any]]:
    def phrase(c) -> str:
        return f"{fmt.thousands(c.old)} \u2192 {fmt.thousands(c.new)} tokens ({fmt.speed_ratio(c.change, h.band)})"

    return h.table(frame, "{series}", [("{candidate} tokens", True), ("{baseline} tokens", True), ("Ratio", True), _SINCE], lambda r: [
        {"text": fmt.thousands(r["candidate_tokens"])}, {"text": fmt.thousands(r["baseline_tokens"])},
        {"text": Fig(fmt.side_ratio(r["ratio"]), how=f"{r['candidate']} / {r['baseline']} KV pool tokens, {r['checkpoint']}")},
        h.mark(r, phrase)])


def _history_startup(frame, h) -> list[dict[str, Any]]:
    def phrase(c) -> str:
        ratio = fmt.speed_ratio(c.change, h.band)
        old, new = fmt.pair(c.old, c.new, fmt.STARTUP_DIGITS, ratio, band=h.band, grouping=False)
        return f"{_TIMES[c.measure]} {old} \u2192 {new} s ({ratio})"

    return h.table(frame, "{series}, cold / warm, or ready", [("Startup", True), _SINCE],
                   lambda r: [{"text": startup_text(r)}, h.mark(r, phrase)])


def startup_text(r, named: bool = False) -> str:
    """Cold / warm startup (`91 / 86 s`; `named`, where no header says which is which: `cold 91 s,
    warm 86 s`), or readiness alone (`ready in 412 s`) where that is what was measured."""
    both = not pd.isna(r.get("cold_s")) and not pd.isna(r.get("warm_s"))
    if both and not named:
        return fmt.seconds_pair(r["cold_s"], r["warm_s"])
    if not both and not pd.isna(r.get("ready_s")):
        return f"ready in {fmt.seconds(r['ready_s'], fmt.STARTUP_DIGITS)}"
    parts = [f"{w} {fmt.seconds(r[k], fmt.STARTUP_DIGITS)}" for k, w in (("cold_s", "cold"), ("warm_s", "warm")) if not pd.isna(r.get(k))]
    return ", ".join(parts) or fmt.MISSING


HISTORY_PARTS = {"kv": (20, _history_kv), "startup": (30, _history_startup)}


# -- against an earlier release (`sitegen compare`) ----------------------------------------------

_TIMES = {"cold_s": "cold startup", "warm_s": "warm startup", "ready_s": "ready after"}


def compare_what(item) -> str:
    if item.kind == "kv":
        return f"{item.where['checkpoint']} · KV pool"
    return f"{item.where['checkpoint']} · {_TIMES.get(item.measure, item.measure)}"


def compare_value(c, v: float, signed: bool = False, more: int = 0) -> str:
    """KV pool tokens as whole numbers, startup in whole seconds (as the pages print them), and `more`."""
    if c.kind == "kv":
        return fmt.thousands(v) if not more else fmt.grouped(v, more)
    return fmt.fixed(v, fmt.STARTUP_DIGITS + more)


PART = ViewPart(view=view, csv=csv, blocks=BLOCKS, macros=MACROS, summary=summary, summary_rows=summary_rows,
                verdict=verdict, headlines=headlines, dashboard=dashboard, history_parts=HISTORY_PARTS,
                page_title=page_title, compare_what=compare_what, compare_value=compare_value)
