"""Long outputs' view: the page's display data, its CSV table and its author block."""
from __future__ import annotations

from typing import Any

from site_gen.render import format as fmt, plain, views
from site_gen.render.provenance import Fig
from site_gen.sections.base import BlockSpec
from site_gen.sections.contract import ViewPart


def csv(a) -> dict:
    lo = a.of("long_outputs")
    return {"long-outputs": lo.table} if lo is not None else {}


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _category(c: str) -> str:
    return "JSON" if c == "json" else c


def _runs_text(first: dict[Any, dict[str, Any]], labels: dict[str, str]) -> str:
    """What the arms are, from their records (`first`: each arm's first row): each is one run; arms
    of one checkpoint on one engine are named as repeats (a receipt says nothing of seeds, so
    neither does this)."""
    runs: dict[tuple, list] = {}
    for arm, r in first.items():
        runs.setdefault((r["checkpoint"], r["engine"]), []).append(arm)
    repeats = [g for g in runs.values() if len(g) > 1]
    named = [", ".join(labels[arm] for arm in g[:-1]) + f" and {labels[g[-1]]}" for g in repeats]
    if not named:
        return "one run per arm"
    return (f"one run per arm; {named[0]} repeat one checkpoint on one engine"
            + "".join(f", as do {n}" for n in named[1:]))


def _rows(lo, cell, fig, labels: dict[str, str]) -> list[dict[str, Any]]:
    """The main table's rows: finished per cap, then per category only the rows whose replies exist."""
    arms, top = lo.arms, lo.caps[-1]
    rows = [{"label": f"Finished within {fmt.tokens_k(cap)}", "sub": "",
             "cells": [fig(arm, cap, str(int(cell(arm, cap, "finished"))), "replies finished") for arm in arms]}
            for cap in lo.caps]
    code_n = {int(cell(arm, top, "code_replies")) for arm in arms}
    json_n = {int(cell(arm, top, "json_replies")) for arm in arms}
    if code_n != {0}:
        rows += [
            {"label": f"Code: all tests pass, {fmt.tokens_k(top)}", "sub": f"of {code_n.pop()}" if len(code_n) == 1 else "",
             "cells": [fig(arm, top, str(int(cell(arm, top, "code_tests_passed"))), "code replies whose tests all pass")
                       for arm in arms]},
            {"label": "Code reply length, median", "sub": f"tokens, {fmt.tokens_k(top)} cap",
             "cells": [fig(arm, top, fmt.thousands(cell(arm, top, "code_reply_median")), "median reply tokens of code replies")
                       for arm in arms]},
            {"label": "\u2026of which thinking, median", "sub": "",
             "cells": [fig(arm, top, fmt.kilo(cell(arm, top, "code_thinking_median")), "median thinking tokens of code replies")
                       for arm in arms]}]
    if json_n != {0}:
        rows.append({"label": f"JSON valid, {fmt.tokens_k(top)}", "sub": f"of {json_n.pop()}" if len(json_n) == 1 else "",
                     "cells": [fig(arm, top, str(int(cell(arm, top, "json_valid"))), "JSON replies that parse and validate")
                               for arm in arms]})
    rows.append({"label": "Replies that looped", "sub": "",
                 "cells": [Fig(str(lo.looped[arm]), how=f"replies that looped, {labels[arm]}, every cap: grouped from "
                               "the reply records in $.long_outputs.replies") for arm in arms]})
    return rows


def _partial(records: list[dict[str, Any]], labels: dict[str, str], arms: list[str]) -> list[dict[str, str]]:
    """Arms left out of the main table (not run at every cap), with the caps they ran at."""
    caps: dict[Any, list] = {}
    for r in records:
        caps.setdefault(r["arm"], []).append(r["cap"])
    return [{"label": labels[arm], "caps": " and ".join(fmt.tokens_k(c) for c in sorted(caps[arm]))}
            for arm in labels if arm not in arms]


def view(a) -> dict[str, Any] | None:
    result = a.of("long_outputs")
    if result is None:
        return None
    lo = a.report.section("long_outputs")
    t = result.table
    records = views.rows(t)
    first: dict[Any, dict[str, Any]] = {}  # each arm's first row
    for r in records:
        first.setdefault(r["arm"], r)
    labels = {arm: r["label"] for arm, r in first.items()}
    by_arm_cap = {(r["arm"], r["cap"]): r for r in records}

    def cell(arm: str, cap: int, column: str):
        row = by_arm_cap.get((arm, cap))
        return row[column] if row is not None else None

    def fig(arm: str, cap: int, text: str, what: str) -> Fig:
        return Fig(text, how=f"{what}, {labels[arm]}, {fmt.tokens_k(cap)} cap: grouped from "
                             f"{int(cell(arm, cap, 'replies'))} reply records in $.long_outputs.replies")

    per_cap = sorted({int(n) for n in t["replies"]})

    def counted(what: str, where: str, value) -> Fig:
        # A count of the every-arm tables, made from the reply records (a dense grid: no tab stops).
        return Fig(fmt.thousands(value), how=f"{what}, {where}: counted from the reply records in $.long_outputs.replies", dense=True)

    thinking = [{"cap": fmt.tokens_k(r["cap"]), "arms": int(r["arms"]), "capped": int(r["capped"]),
                 "still_thinking": int(r["still_thinking"]),
                 "figs": {k: counted(w, f"{fmt.tokens_k(r['cap'])} cap, every arm", r[k])
                          for k, w in (("arms", "arms run at this cap"), ("capped", "capped replies"),
                                       ("still_thinking", "capped replies still thinking"))}}
                for r in views.rows(result.thinking)]
    capped = [r for r in thinking if r["capped"]]
    return {
        "arms": [labels[arm] for arm in result.arms], "rows": _rows(result, cell, fig, labels), "note": lo.get("note", ""),
        "replies_per_cap": _plural(per_cap[0], "reply", "replies") if len(per_cap) == 1 else None,
        "categories": ", ".join(f"{n} {_category(c)}" for c, n in result.categories.items()),
        "runs": _runs_text(first, labels),
        "thinking": thinking, "small": capped[0] if capped else None, "partial": _partial(records, labels, result.arms),
        "has_code": bool(t["code_replies"].sum()), "has_json": bool(t["json_replies"].sum()),
        "all_rows": [_every_arm_row(r, counted) for r in records],
    }


def _every_arm_row(r: dict, counted) -> dict[str, Any]:
    """One arm and cap of the every-arm table, each count a figure with how it was counted."""
    at = f"{r['label']}, {fmt.tokens_k(r['cap'])} cap"
    out = {"label": r["label"], "cap": fmt.tokens_k(r["cap"])}
    for key, what in (("replies", "replies"), ("finished", "replies finished"), ("still_thinking", "capped replies still thinking"),
                      ("looped", "replies that looped"), ("code_tests_passed", "code replies whose tests all pass"),
                      ("code_replies", "code replies"), ("json_valid", "JSON replies that validate"), ("json_replies", "JSON replies")):
        out[key] = counted(what, at, r[key])
    for key, what in (("code_reply_median", "median reply tokens of code replies"),
                      ("code_thinking_median", "median thinking tokens of code replies")):
        out[key] = counted(what, at, r[key]) if r[key] == r[key] else fmt.MISSING
    return out


BLOCKS = {"long-outputs": BlockSpec("long-outputs", "long_outputs", (), "{{ long_table(long_outputs, id=id) }}",
                                    "long-output table: finished, tests, JSON, looped", "long-outputs-table")}
MACROS = ("long_table",)


# -- its lines in the other outputs -----------------------------------------------------------

_COUNTED = ("replies", "finished", "capped", "still_thinking", "looped", "code_replies", "code_tests_passed", "json_replies", "json_valid")


def summary(a, shown: dict | None) -> dict[str, Any] | None:
    """Its part of `sitegen summary --format json`: per arm and cap the counts of replies that
    finished, were capped, looped, passed their tests or validated; loops in all."""
    if not shown:
        return None
    lo = a.of("long_outputs")
    arms: dict[str, dict[str, Any]] = {}
    for r in views.rows(lo.table):
        arm = arms.setdefault(r["arm"], {"arm": r["arm"], "label": r["label"], "checkpoint": r["checkpoint"], "engine": r["engine"],
                                         "run": plain.text(r["run"]), "looped": int(lo.looped.get(r["arm"], 0)), "caps": []})
        arm["caps"].append({"cap": int(r["cap"]), **{k: int(r[k]) for k in _COUNTED},
                            "code_reply_median": plain.number(r["code_reply_median"]),
                            "code_thinking_median": plain.number(r["code_thinking_median"])})
    t = lo.table
    return {"long_outputs": {"caps": [int(c) for c in lo.caps], "replies": int(t["replies"].sum()),
                             "looped": int(t["looped"].sum()), "arms": list(arms.values())}}


def summary_rows(d: dict[str, Any]) -> list[tuple[str, str]]:
    if "long_outputs" not in d:
        return []
    lo = d["long_outputs"]
    rows = [("Long outputs: replies that looped", f"{lo['looped']} of {lo['replies']}")]
    for arm in lo["arms"]:
        top = arm["caps"][-1]
        rows.append((f"Long outputs {arm['label']}", f"{top['finished']} of {top['replies']} finished within "
                     f"{fmt.tokens_k(top['cap'])}; {arm['looped']} looped"))
    return rows


def verdict(a) -> str | None:
    lo = a.of("long_outputs")
    if lo is None:
        return None
    t = lo.table
    looped, replies = int(t["looped"].sum()), int(t["replies"].sum())
    if not looped:
        return f"no long-output reply looped ({replies} replies)"
    return f"{looped} of {replies} long-output replies looped"


def headlines(a) -> list[tuple[str, str, str]]:
    lo = a.of("long_outputs")
    if lo is None:
        return []
    looped, replies = int(lo.table["looped"].sum()), int(lo.table["replies"].sum())
    return [("Long outputs:", f"{looped} of {replies} replies looped", "worse" if looped else "neutral")]


PART = ViewPart(view=view, csv=csv, blocks=BLOCKS, macros=MACROS, summary=summary, summary_rows=summary_rows,
                verdict=verdict, headlines=headlines)
