"""Analysis DataFrames -> rows of display strings for the templates (formatting only)."""
from __future__ import annotations

from typing import Any

import pandas as pd

from site_gen.analyse.report import Analysis
from site_gen.analyse.speed import DEFAULT_SELECTIONS, METRIC_LABELS
from site_gen.render import charts
from site_gen.render import format as fmt
from site_gen.render.provenance import Fig


def _short_digest(image: str) -> str:
    return image[:15] + "\u2026" if len(image) > 15 else image


def engines(a: Analysis) -> dict[str, Any]:
    r = a.report
    cand, base = r.candidate, r.baseline
    return {
        "candidate": cand.name, "candidate_label": cand.label, "candidate_version": cand.version,
        "baseline": base.name, "baseline_label": base.label, "baseline_long": base.long_name or base.label,
        "candidate_image": cand.image, "baseline_image": base.image,
        "candidate_image_short": _short_digest(cand.image), "baseline_image_short": _short_digest(base.image),
    }


def precision(a: Analysis) -> dict[str, Any] | None:
    if a.precision is None:
        return None
    p = a.report.section("precision")
    groups = []
    records = a.precision.to_dict("records")
    for checkpoint in a.checkpoints:
        part = [r for r in records if r["checkpoint"] == checkpoint and r["paired"]]
        if not part:
            continue
        rows = []
        for r in part:
            rows.append({
                "label": r["label"], "measure": r["measure"], "panel": r["panel"],
                "baseline": Fig(fmt.measure_value(r["baseline"], r["unit"]), f"{r['source']}.baseline.value", date=r["baseline_date"]),
                "candidate": Fig(fmt.measure_value(r["candidate"], r["unit"]), f"{r['source']}.candidate.value", date=r["candidate_date"]),
                "difference": Fig(fmt.measure_difference(r["difference"], r["unit"]), f"{r['source']}.difference"),
                "interval": Fig(fmt.measure_interval(r["low"], r["high"], r["unit"]), f"{r['source']}.interval"),
                "resolved": Fig("resolved" if r["resolved"] else "not resolved",
                                how=f"the 95% interval {fmt.measure_interval(r['low'], r['high'], r['unit'])} "
                                    + ("excludes" if r["resolved"] else "includes") + " zero"),
                "is_resolved": bool(r["resolved"]),
                "further": bool(r["oriented"] > 0),
                "dates": f"{r['baseline_date']} / {r['candidate_date']}",
                "source": r["source"],
            })
        groups.append({"checkpoint": checkpoint, "rows": rows})
    s = a.precision_summary
    top = a.precision_largest_gap
    largest = {"share": f"{top['share']:.0%}", "label": top["label"]} if top else None
    unpaired = []
    for checkpoint in a.checkpoints:
        if checkpoint not in a.paired_checkpoints:
            unpaired.append({"checkpoint": checkpoint, "reason": _missing_reason(a, checkpoint, "baseline")})
    return {
        "reference": p["reference"], "note": p.get("note", ""), "groups": groups, "summary": s,
        "largest_gap": largest, "paired_checkpoints": [g["checkpoint"] for g in groups],
        "forest": charts.forest(a.precision), "unpaired": unpaired,
        "direction": a.precision_direction,
    }


def _missing_reason(a: Analysis, checkpoint: str, role: str) -> str:
    for c in a.report.meta["checkpoints"]:
        if c["id"] == checkpoint:
            return c.get("missing", {}).get(role, "")
    return ""


def checkpoints(a: Analysis) -> list[dict[str, Any]]:
    """Every checkpoint with each engine's values, saying plainly where an engine did not run."""
    out = []
    records = a.precision.to_dict("records") if a.precision is not None else []
    kv = {r["checkpoint"]: r for r in reversed(a.kv.to_dict("records"))} if a.kv is not None else {}  # the first row wins
    for c in a.report.meta["checkpoints"]:
        cid = c["id"]
        rows = []
        if a.precision is not None:
            for r in (r for r in records if r["checkpoint"] == cid):
                rows.append({"label": r["label"], "baseline": fmt.measure_value(r["baseline"], r["unit"]),
                             "baseline_missing": bool(pd.isna(r["baseline"])),
                             "candidate": fmt.measure_value(r["candidate"], r["unit"]),
                             "difference": fmt.measure_difference(r["difference"], r["unit"]) if r["paired"] else None,
                             "source": r["source"]})
        k = kv.get(cid)
        out.append({"id": cid, "description": c.get("description", ""), "missing": c.get("missing", {}), "rows": rows,
                    "kv": {"baseline": fmt.thousands(k["baseline"]), "candidate": fmt.thousands(k["candidate"]),
                           "ratio": fmt.ratio(k["ratio"])} if k is not None else None})
    return out


def _counts_text(row: pd.Series) -> str:
    return f"{row['faster']} faster \u00b7 {row['level']} level \u00b7 {row['slower']} slower"


def speed(a: Analysis) -> dict[str, Any] | None:
    if a.speed is None:
        return None
    # Rows looked up by (checkpoint, metric or selection): a handful of small tables, read once
    # as records rather than filtered once per cell.
    counts = {(r["checkpoint"], r["metric"]): r for r in a.speed_counts.to_dict("records")}
    ranges = {(r["checkpoint"], r["selection"]): r for r in a.speed_ranges.to_dict("records")}
    cell_rows: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in a.speed.to_dict("records"):
        cell_rows.setdefault((r["checkpoint"], r["metric"]), []).append(r)
    present = {c for c, _ in cell_rows}
    cols = [c for c in a.paired_checkpoints if c in present]
    rule = {"faster": f"ratio above {1 + a.band:.2f}", "level": f"ratio within {1 - a.band:.2f}–{1 + a.band:.2f}",
            "slower": f"ratio below {1 - a.band:.2f}"}
    count_rows = []
    for metric in ("aggregate", "decode"):
        if not any(m == metric for _, m in counts):
            continue
        totals = {int(counts[(c, metric)]["cells"]) for c in cols if (c, metric) in counts}
        cells = []
        for c in cols:
            row = counts.get((c, metric))
            if row is None:
                cells.append({"text": fmt.MISSING, "counts": None})
                continue
            cells.append({"text": _counts_text(row), "of": int(row["cells"]), "counts": {
                k: Fig(str(int(row[k])), how=f"{int(row[k])} {k}: {int(row['cells'])} {METRIC_LABELS[metric]} cells of {c}, {rule[k]}")
                for k in ("faster", "level", "slower")}})
        count_rows.append({"label": f"Speed cells, {METRIC_LABELS[metric]}", "metric": metric,
                           "sub": f"of {totals.pop()}" if len(totals) == 1 else "", "cells": cells})
    range_rows = []
    for sel in DEFAULT_SELECTIONS:
        if not any(k == sel.key for _, k in ranges):
            continue
        cells = []
        for c in cols:
            r = ranges.get((c, sel.key))
            if r is None:
                cells.append({"text": fmt.MISSING, "bar": None})
                continue
            cells.append({"text": Fig(fmt.ratio_range(r["low"], r["high"]),
                                      how=f"lowest and highest candidate / baseline rate over {int(r['cells'])} cells: {sel.label}, {c}"),
                          "cells": int(r["cells"]),
                          "bar": charts.range_bar(r["low"], r["high"], a.scale, a.band)})
        range_rows.append({"label": sel.label, "key": sel.key, "cells": cells})
    ttft_row = None
    if a.ttft is not None and not a.ttft.empty:
        t = {r["checkpoint"]: r for r in a.ttft.to_dict("records")}
        inputs = sorted(set(a.ttft["input_tokens"]))
        ttft_row = {
            "label": f"Time to first token at {fmt.tokens_k(inputs[-1])}" if len(inputs) == 1 else "Time to first token",
            "cells": [{"candidate": Fig(fmt.seconds(t[c]["candidate"]), f"{t[c]['source']}.candidate.seconds"),
                       "baseline": Fig(fmt.seconds(t[c]["baseline"]), f"{t[c]['source']}.baseline.seconds")}
                      if c in t else None for c in cols],
        }
    gains = a.speed_gains.head(2)
    errors = a.speed_totals["errors"]
    cells_with_errors = a.speed_totals["cells_with_errors"]
    tables = []
    for c in cols:
        for metric in ("aggregate", "decode"):
            part = cell_rows.get((c, metric))
            if not part:
                continue
            rows = [{"workload": r["workload"], "input": fmt.tokens_k(r["input_tokens"]), "concurrency": int(r["concurrency"]),
                     "baseline": f"{r['baseline_rate']:,.1f}", "candidate": f"{r['candidate_rate']:,.1f}",
                     "ratio": fmt.ratio(r["ratio"]), "ratio_raw": f"{r['ratio']:.6f}", "verdict": r["verdict"],
                     "errors": int(r["errors"]), "bar": charts.ratio_bar(r["ratio"], r["verdict"], a.scale, a.band),
                     "source": r["source"], "unit": r.get("unit") or "tokens/s"}
                    for r in part]
            count = counts[(c, metric)]
            tables.append({"checkpoint": c, "metric": metric, "metric_label": METRIC_LABELS[metric], "rows": rows,
                           "counts": _counts_text(count), "cells": int(count["cells"])})
    captions = {}
    for c in cols:
        parts = []
        for metric, name in (("aggregate", "aggregate"), ("decode", "clean decode")):
            f = counts.get((c, metric))
            if f is not None:
                parts.append(f"{f['faster']} of {f['cells']} {name} cells faster, {f['level']} level, {f['slower']} slower")
        rng = ranges.get((c, "aggregate_long_input"))
        text = f"{c}: " + "; ".join(parts)
        if rng is not None:
            text += f"; aggregate {fmt.ratio_range(rng['low'], rng['high'])} at 32K\u2013128K input"
        captions[c] = text
    return {
        "checkpoints": cols, "count_rows": count_rows, "range_rows": range_rows, "ttft": ttft_row,
        "band": f"\u00b1{a.band * 100:g}%", "scale": fmt.number_range(a.scale[0], a.scale[1], 1, "x"),
        "gains": [{"workload": g["workload"], "median": f"~{g['median']:.1f}x"} for g in gains.to_dict("records")],
        "errors": errors, "cells_with_errors": cells_with_errors, "tables": tables, "captions": captions,
        "ticks": charts.scale_ticks(a.scale),
        "unpaired": [{"checkpoint": c, "reason": _missing_reason(a, c, "baseline")} for c in a.checkpoints if c not in a.paired_checkpoints],
    }


def memory(a: Analysis) -> dict[str, Any] | None:
    if a.kv is None:
        return None
    cols = [c for c in a.paired_checkpoints if c in set(a.kv["checkpoint"])]
    kv = a.kv.set_index("checkpoint")
    st = a.startup
    kv_path = {(r["checkpoint"], r["engine"]): f"$.memory.kv_pool[{i}].tokens"
               for i, r in enumerate(a.report.section("memory").get("kv_pool", []))}
    rows = [
        {"label": f"KV pool, {a.report.baseline.name}", "sub": "tokens",
         "cells": [{"text": Fig(fmt.thousands(kv.loc[c, "baseline"]), kv_path.get((c, "baseline")))} for c in cols]},
        {"label": f"KV pool, {a.report.candidate.label}", "sub": "tokens",
         "cells": [{"text": Fig(fmt.thousands(kv.loc[c, "candidate"]), kv_path.get((c, "candidate"))),
                    "extra": Fig(fmt.ratio(kv.loc[c, "ratio"]), how=f"candidate / baseline KV pool tokens, {c}: "
                                 f"{fmt.thousands(kv.loc[c, 'candidate'])} / {fmt.thousands(kv.loc[c, 'baseline'])}")}
                   for c in cols]},
    ]
    for role, name in (("baseline", a.report.baseline.name), ("candidate", a.report.candidate.label)):
        part = st[st["engine"] == role].set_index("checkpoint") if st is not None and not st.empty else None
        if part is None or part.empty:
            continue
        rows.append({"label": f"Startup, {name}", "sub": "cold / warm",
                     "cells": [{"text": Fig(fmt.seconds_pair(part.loc[c, "cold_s"], part.loc[c, "warm_s"]),
                                            f"{part.loc[c, 'source']}.cold_s and .warm_s") if c in part.index else fmt.MISSING}
                               for c in cols]})
    refs = [{"checkpoint": r["checkpoint"], "engine": f"{r['name']} v{r['version']}", "tokens": fmt.thousands(r["kv_pool_tokens"]),
             "ratio": fmt.ratio(r["ratio"], 1), "candidate": f"v{a.report.candidate.version}"}
            for r in a.kv_references.to_dict("records")] if a.kv_references is not None else []
    return {"checkpoints": cols, "rows": rows, "references": refs, "hardware": a.report.meta.get("hardware", "")}


def long_outputs(a: Analysis) -> dict[str, Any] | None:
    if a.long_table is None:
        return None
    lo = a.report.section("long_outputs")
    t = a.long_table
    arms = a.long_arms
    labels = {r["arm"]: r["label"] for r in t.drop_duplicates("arm").to_dict("records")}
    top = a.long_caps[-1]

    by_arm_cap = {(r["arm"], r["cap"]): r for r in t.to_dict("records")}

    def cell(arm: str, cap: int, column: str):
        row = by_arm_cap.get((arm, cap))
        return row[column] if row is not None else None

    def fig(arm: str, cap: int, column: str, text: str, what: str) -> Fig:
        return Fig(text, how=f"{what}, {labels[arm]}, {fmt.tokens_k(cap)} cap: grouped from "
                             f"{int(cell(arm, cap, 'replies'))} reply records in $.long_outputs.replies")

    rows = [{"label": f"Finished within {fmt.tokens_k(cap)}", "sub": "",
             "cells": [fig(arm, cap, "finished", str(int(cell(arm, cap, "finished"))), "replies finished")
                       for arm in arms]} for cap in a.long_caps]
    code_n = {int(cell(arm, top, "code_replies")) for arm in arms}
    json_n = {int(cell(arm, top, "json_replies")) for arm in arms}
    rows += [
        {"label": f"Code: all tests pass, {fmt.tokens_k(top)}", "sub": f"of {code_n.pop()}" if len(code_n) == 1 else "",
         "cells": [fig(arm, top, "", str(int(cell(arm, top, "code_tests_passed"))), "code replies whose tests all pass")
                   for arm in arms]},
        {"label": "Code reply length, median", "sub": f"tokens, {fmt.tokens_k(top)} cap",
         "cells": [fig(arm, top, "", fmt.thousands(cell(arm, top, "code_reply_median")), "median reply tokens of code replies")
                   for arm in arms]},
        {"label": "\u2026of which thinking, median", "sub": "",
         "cells": [fig(arm, top, "", fmt.kilo(cell(arm, top, "code_thinking_median")), "median thinking tokens of code replies")
                   for arm in arms]},
        {"label": f"JSON valid, {fmt.tokens_k(top)}", "sub": f"of {json_n.pop()}" if len(json_n) == 1 else "",
         "cells": [fig(arm, top, "", str(int(cell(arm, top, "json_valid"))), "JSON replies that parse and validate")
                   for arm in arms]},
        {"label": "Replies that looped", "sub": "",
         "cells": [Fig(str(a.long_looped[arm]), how=f"replies that looped, {labels[arm]}, every cap: grouped from "
                       "the reply records in $.long_outputs.replies") for arm in arms]},
    ]
    per_cap = sorted({int(n) for n in t["replies"]})
    cats = a.long_categories
    thinking = [{"cap": fmt.tokens_k(r["cap"]), "arms": int(r["arms"]), "capped": int(r["capped"]),
                 "still_thinking": int(r["still_thinking"])} for r in a.long_thinking.to_dict("records")]
    small = thinking[0] if thinking else None
    partial = [labels[arm] for arm in labels if arm not in arms]
    return {
        "arms": [labels[arm] for arm in arms], "rows": rows, "note": lo.get("note", ""),
        "replies_per_cap": per_cap[0] if len(per_cap) == 1 else None,
        "categories": ", ".join(f"{n} {'JSON' if c == 'json' else c}" for c, n in cats.items()),
        "thinking": thinking, "small": small, "partial_arms": partial,
        "all_rows": [{"label": r["label"], "cap": fmt.tokens_k(r["cap"]), "replies": int(r["replies"]), "finished": int(r["finished"]),
                      "capped": int(r["capped"]), "still_thinking": int(r["still_thinking"]), "looped": int(r["looped"]),
                      "code_tests": f"{int(r['code_tests_passed'])} of {int(r['code_replies'])}",
                      "json_valid": f"{int(r['json_valid'])} of {int(r['json_replies'])}",
                      "code_median": fmt.thousands(r["code_reply_median"]), "thinking_median": fmt.kilo(r["code_thinking_median"])}
                     for r in t.to_dict("records")],
    }


def versions(a: Analysis) -> dict[str, Any] | None:
    v = a.report.section("versions")
    if v is None:
        return None
    prev = v["previous"]
    rows = []
    for r in a.versions_precision.to_dict("records"):
        cps = " and ".join(r["checkpoints"]) if r["identical"] else ""
        label = f"Panel {r['panel']}" + (f", {cps}" if cps else "")
        if r["identical"]:
            text = "bit-identical"
        else:
            text = f"within \u00b1{r['max_abs_difference']:.5f}, " + ("resolved" if r["resolved"] else "not resolved")
        rows.append({"label": label, "text": text})
    if a.versions_text is not None and not a.versions_text.empty:
        parts = []
        for r in a.versions_text.to_dict("records"):
            names = [("JSON" if c == "json" else c) for c in r["categories"]]
            joined = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
            if r["all_identical"]:
                parts.append(f"{joined} replies identical ({int(r['identical'])}/{int(r['total'])})")
            else:
                parts.append(f"{joined} replies differ ({int(r['differ'])}/{int(r['total'])})")
        rows.append({"label": "Long-output text", "text": "; ".join(parts)})
    return {"previous": f"v{prev['version']}", "previous_label": f"{prev['name']} v{prev['version']}",
            "candidate": f"v{a.report.candidate.version}", "note": v.get("note", ""), "rows": rows,
            "explanations": v.get("explanations", [])}


def tool_calling(a: Analysis) -> dict[str, Any] | None:
    t = a.report.section("tool_calling")
    if t is None or a.tool_totals is None:
        return None
    scenarios, maximum = a.tool_scale["scenarios"], a.tool_scale["max_total"]
    per_cp = []
    for c in a.paired_checkpoints:
        r = a.tool_ranges[a.tool_ranges["checkpoint"] == c].set_index("engine")
        if r.empty:
            continue
        get = lambda role: fmt.count_range(r.loc[role, "low"], r.loc[role, "high"]) if role in r.index else fmt.MISSING
        per_cp.append({"checkpoint": c, "baseline": get("baseline"), "candidate": get("candidate")})
    lat = a.tool_latency.set_index("engine")
    latency = {role: fmt.number_range(lat.loc[role, "low"], lat.loc[role, "high"], 1, " s") if role in lat.index else None
               for role in ("baseline", "candidate")}
    runs = [{"id": r["run"], "checkpoint": r["checkpoint"], "engine": a.report.baseline.name if r["engine"] == "baseline" else a.report.candidate.name,
             "date": r["date"], "points": int(r["points"]), "max": maximum, "latency": fmt.seconds(r["latency"])}
            for r in a.tool_totals.to_dict("records")]
    run_ids = [r["id"] for r in runs]
    failed = set(a.tool_failed)
    split = [{"scenario": s["scenario"], "points": [("" if pd.isna(s[rid]) else str(int(s[rid]))) for rid in run_ids],
              "failed": s["scenario"] in failed}
             for s in a.tool_scenarios.to_dict("records")]
    return {"benchmark": t["benchmark"], "scenarios": scenarios, "max": maximum, "max_points": t["max_points"], "per_checkpoint": per_cp,
            "failed": a.tool_failed, "failed_count": len(a.tool_failed), "latency": latency,
            "concurrency": t.get("concurrency"), "note": t.get("note", ""), "runs": runs, "split": split}


_NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten"}


def number_word(n: int) -> str:
    return _NUMBER_WORDS.get(n, str(n))
