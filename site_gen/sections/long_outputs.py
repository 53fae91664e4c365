"""Long outputs: replies under token caps, whether they finish, pass tests, validate, loop."""
from __future__ import annotations

import pandas as pd

from site_gen.analyse import long_outputs as calc
from site_gen.analyse.frames import records
from site_gen.errors import SitegenError
from site_gen.load import require
from site_gen.render import views
from site_gen.sections.base import BlockSpec, Section


def check(long_outputs: dict, file, checkpoint_ref) -> None:
    caps = long_outputs["caps"]
    for i, cap in enumerate(caps):
        require(cap not in caps[:i], f"duplicate cap {cap}", file, f"$.long_outputs.caps[{i}]")
    arms = {}
    for i, arm in enumerate(long_outputs["arms"]):
        checkpoint_ref(arm["checkpoint"], f"$.long_outputs.arms[{i}].checkpoint")
        require(arm["id"] not in arms, f"duplicate arm id '{arm['id']}'", file, f"$.long_outputs.arms[{i}].id")
        arms[arm["id"]] = arm
    seen_replies = set()
    for i, reply in enumerate(long_outputs["replies"]):
        where = f"$.long_outputs.replies[{i}]"
        require(reply["arm"] in arms, f"unknown arm '{reply['arm']}'; declared: {', '.join(arms)}", file, where + ".arm")
        require(reply["cap"] in caps, f"cap {reply['cap']} is not one of $.long_outputs.caps", file, where + ".cap")
        require(reply["thinking_tokens"] <= reply["reply_tokens"], "thinking_tokens cannot exceed reply_tokens", file, where + ".thinking_tokens")
        _impossible_reply(reply, file, where)
        key = (reply["arm"], reply["cap"], reply["prompt"])
        require(key not in seen_replies, "duplicate reply (same arm, cap and prompt)", file, where)
        seen_replies.add(key)


def _impossible_reply(reply: dict, file, where: str) -> None:
    if reply["reply_tokens"] > reply["cap"]:
        raise SitegenError(f"reply_tokens {reply['reply_tokens']} above the reply's cap {reply['cap']}", file, where + ".reply_tokens")
    if reply["finished"] and reply["still_thinking"]:
        raise SitegenError("a finished reply cannot be still thinking (still_thinking says where a capped reply was cut)",
                           file, where + ".still_thinking")
    # Tables count these for their own category only: on another they would vanish unseen.
    for flag, category in (("tests_passed", "code"), ("json_valid", "json")):
        if flag in reply and reply["category"] != category:
            raise SitegenError(f"{flag} is for {category} replies; this reply is {reply['category']}", file, f"{where}.{flag}")


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


SECTION = Section(
    key="long-outputs", title="Long outputs", name="long_outputs", view=views.long_outputs, check=check,
    records="replies", light=True, engine_records=engine_records, analyse=analyse, csv=csv, provenance=True,
    blocks={"long-outputs": BlockSpec("long-outputs", "long_outputs", (), "{{ long_table(long_outputs, id=id) }}",
                                      "long-output table: finished, tests, JSON, looped", "long-outputs-table")},
)
