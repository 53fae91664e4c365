"""Long outputs: replies under token caps, whether they finish, pass tests, validate, loop."""
from __future__ import annotations

from typing import Any

import pandas as pd

from site_gen.analysis import long_outputs as calc
from site_gen.analysis.frames import records
from site_gen.analysis.report import Analysis
from site_gen.core.errors import SitegenError
from site_gen.receipts.load import require
from site_gen.render import format as fmt, views
from site_gen.render.provenance import Fig
from site_gen.sections.base import BlockSpec, Section

def check(long_outputs: dict, file, checkpoint_ref) -> None:
    # Each message and path is made only for the record at fault: a receipt holds thousands of replies.
    caps = long_outputs["caps"]
    for i, cap in enumerate(caps):
        require(cap not in caps[:i], f"duplicate cap {cap}", file, f"$.long_outputs.caps[{i}]")
    arms, runs = {}, {}
    for i, arm in enumerate(long_outputs["arms"]):
        checkpoint_ref(arm["checkpoint"], f"$.long_outputs.arms[{i}].checkpoint")
        require(arm["id"] not in arms, f"duplicate arm id '{arm['id']}'", file, f"$.long_outputs.arms[{i}].id")
        arms[arm["id"]] = arm
        # Two arms of one run would show the same replies twice, as if measured twice.
        run = (arm["checkpoint"], arm["engine"], arm["run"])
        require(run not in runs, f"arm '{arm['id']}' is the same run as $.long_outputs.arms[{runs.get(run)}] "
                f"(checkpoint {run[0]}, {run[1]}, run {run[2]!r})", file, f"$.long_outputs.arms[{i}].run")
        runs[run] = i
    seen_replies = set()
    known_caps = set(caps)
    for i, reply in enumerate(long_outputs["replies"]):
        if reply["arm"] not in arms:
            raise SitegenError(f"unknown arm '{reply['arm']}'; declared: {', '.join(arms)}", file, f"$.long_outputs.replies[{i}].arm")
        if reply["cap"] not in known_caps:
            raise SitegenError(f"cap {reply['cap']} is not one of $.long_outputs.caps", file, f"$.long_outputs.replies[{i}].cap")
        if reply["thinking_tokens"] > reply["reply_tokens"]:
            raise SitegenError("thinking_tokens cannot exceed reply_tokens", file, f"$.long_outputs.replies[{i}].thinking_tokens")
        _impossible_reply(reply, file, i)
        key = (reply["arm"], reply["cap"], reply["prompt"])
        if key in seen_replies:
            raise SitegenError("duplicate reply (same arm, cap and prompt)", file, f"$.long_outputs.replies[{i}]")
        seen_replies.add(key)


def _impossible_reply(reply: dict, file, i: int) -> None:
    if reply["reply_tokens"] > reply["cap"]:
        raise SitegenError(f"reply_tokens {reply['reply_tokens']} above the reply's cap {reply['cap']}", file, f"$.long_outputs.replies[{i}].reply_tokens")
    if reply["finished"] and reply["still_thinking"]:
        raise SitegenError("a finished reply cannot be still thinking (still_thinking says where a capped reply was cut)",
                           file, f"$.long_outputs.replies[{i}].still_thinking")
    # The pages count an unfinished reply as cut at its cap, and one still thinking there as all thinking.
    if not reply["finished"] and reply["reply_tokens"] != reply["cap"]:
        raise SitegenError(f"an unfinished reply is cut at its cap {reply['cap']}, but its reply_tokens are {reply['reply_tokens']}",
                           file, f"$.long_outputs.replies[{i}].reply_tokens")
    if reply["still_thinking"] and reply["thinking_tokens"] != reply["reply_tokens"]:
        raise SitegenError(f"a reply cut while still thinking is all thinking, but its thinking_tokens {reply['thinking_tokens']} "
                           f"are below its reply_tokens {reply['reply_tokens']}", file, f"$.long_outputs.replies[{i}].thinking_tokens")
    # Tables count these for their own category only: on another they would vanish unseen.
    for flag, category in (("tests_passed", "code"), ("json_valid", "json")):
        if flag in reply and reply["category"] != category:
            raise SitegenError(f"{flag} is for {category} replies; this reply is {reply['category']}", file, f"$.long_outputs.replies[{i}].{flag}")


def engine_records(data: dict):
    for i, r in enumerate(data.get("long_outputs", {}).get("arms", [])):
        yield r["checkpoint"], r["engine"], f"$.long_outputs.arms[{i}]"


def analyse(a, lo: dict) -> None:
    if not lo["replies"]:
        return
    replies = records(lo["replies"], "$.long_outputs.replies")
    for column in ("tests_passed", "json_valid"):
        if column not in replies.columns:
            replies[column] = None
    a.long_caps = sorted(lo["caps"])
    a.long_table = calc.per_arm(replies, pd.DataFrame(lo["arms"]))
    a.long_arms = calc.complete_arms(a.long_table, a.long_caps)
    a.long_thinking = calc.thinking_at_cap(a.long_table)
    a.long_categories = calc.categories(replies)
    a.long_looped = calc.looped_per_arm(a.long_table)


def csv(a) -> dict:
    return {"long-outputs": a.long_table} if a.long_table is not None else {}


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


def _rows(a: Analysis, cell, fig, labels: dict[str, str]) -> list[dict[str, Any]]:
    """The main table's rows: finished per cap, then per category only the rows whose replies exist."""
    arms, top = a.long_arms, a.long_caps[-1]
    rows = [{"label": f"Finished within {fmt.tokens_k(cap)}", "sub": "",
             "cells": [fig(arm, cap, str(int(cell(arm, cap, "finished"))), "replies finished") for arm in arms]}
            for cap in a.long_caps]
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
                 "cells": [Fig(str(a.long_looped[arm]), how=f"replies that looped, {labels[arm]}, every cap: grouped from "
                               "the reply records in $.long_outputs.replies") for arm in arms]})
    return rows


def _partial(records: list[dict[str, Any]], labels: dict[str, str], arms: list[str]) -> list[dict[str, str]]:
    """Arms left out of the main table (not run at every cap), with the caps they ran at."""
    caps: dict[Any, list] = {}
    for r in records:
        caps.setdefault(r["arm"], []).append(r["cap"])
    return [{"label": labels[arm], "caps": " and ".join(fmt.tokens_k(c) for c in sorted(caps[arm]))}
            for arm in labels if arm not in arms]


def view(a: Analysis) -> dict[str, Any] | None:
    if a.long_table is None:
        return None
    lo = a.report.section("long_outputs")
    t = a.long_table
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
    thinking = [{"cap": fmt.tokens_k(r["cap"]), "arms": int(r["arms"]), "capped": int(r["capped"]),
                 "still_thinking": int(r["still_thinking"])} for r in views.rows(a.long_thinking)]
    capped = [r for r in thinking if r["capped"]]
    return {
        "arms": [labels[arm] for arm in a.long_arms], "rows": _rows(a, cell, fig, labels), "note": lo.get("note", ""),
        "replies_per_cap": _plural(per_cap[0], "reply", "replies") if len(per_cap) == 1 else None,
        "categories": ", ".join(f"{n} {_category(c)}" for c, n in a.long_categories.items()),
        "runs": _runs_text(first, labels),
        "thinking": thinking, "small": capped[0] if capped else None, "partial": _partial(records, labels, a.long_arms),
        "has_code": bool(t["code_replies"].sum()), "has_json": bool(t["json_replies"].sum()),
        "all_rows": [{"label": r["label"], "cap": fmt.tokens_k(r["cap"]), "replies": int(r["replies"]), "finished": int(r["finished"]),
                      "capped": int(r["capped"]), "still_thinking": int(r["still_thinking"]), "looped": int(r["looped"]),
                      "code_tests": f"{int(r['code_tests_passed'])} of {int(r['code_replies'])}",
                      "json_valid": f"{int(r['json_valid'])} of {int(r['json_replies'])}",
                      "code_median": fmt.thousands(r["code_reply_median"]), "thinking_median": fmt.thousands(r["code_thinking_median"])}
                     for r in records],
    }


SECTION = Section(
    key="long-outputs", title="Long outputs", name="long_outputs", view=view, check=check,
    records="replies", light=True, engine_records=engine_records, analyse=analyse, csv=csv, provenance=True,
    blocks={"long-outputs": BlockSpec("long-outputs", "long_outputs", (), "{{ long_table(long_outputs, id=id) }}",
                                      "long-output table: finished, tests, JSON, looped", "long-outputs-table")},
)
