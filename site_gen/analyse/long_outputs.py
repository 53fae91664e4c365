"""Long outputs: counts and medians per arm and cap, computed from one record per reply."""
from __future__ import annotations

import pandas as pd


def per_arm(replies: pd.DataFrame, arms: pd.DataFrame) -> pd.DataFrame:
    """Per arm and cap: replies, finished, looped; code tests passing, JSON valid, code medians.

    Medians of code replies use the code replies of that arm and cap, finished or not.
    """
    r = replies.assign(
        code=replies["category"] == "code", json=replies["category"] == "json",
        capped=~replies["finished"].astype(bool),
        passed=replies["tests_passed"].fillna(False).astype(bool) & (replies["category"] == "code"),
        valid=replies["json_valid"].fillna(False).astype(bool) & (replies["category"] == "json"),
    )
    keys = ["arm", "cap"]
    out = r.groupby(keys, sort=False).agg(
        replies=("prompt", "size"), finished=("finished", "sum"), looped=("looped", "sum"), capped=("capped", "sum"),
        still_thinking=("still_thinking", "sum"), code_replies=("code", "sum"), code_tests_passed=("passed", "sum"),
        json_replies=("json", "sum"), json_valid=("valid", "sum"))
    code = r[r["code"]].groupby(keys, sort=False).agg(
        code_reply_median=("reply_tokens", "median"), code_thinking_median=("thinking_tokens", "median"))
    out = out.join(code).astype({c: int for c in ("finished", "looped", "capped", "still_thinking", "code_replies",
                                                    "code_tests_passed", "json_replies", "json_valid")}).reset_index()
    order = {a: i for i, a in enumerate(arms["id"])}
    out["arm_order"] = out["arm"].map(order)
    out = out.merge(arms[["id", "label", "checkpoint", "engine", "run", "date"]].rename(columns={"id": "arm"}), on="arm")
    return out.sort_values(["arm_order", "cap"], kind="stable").drop(columns="arm_order").reset_index(drop=True)


def complete_arms(table: pd.DataFrame, caps: list[int]) -> list[str]:
    """Arms that ran at every cap, in declared order: the columns of the main table."""
    have = table.groupby("arm", sort=False)["cap"].apply(set)
    return [arm for arm, got in have.items() if set(caps) <= got]


def thinking_at_cap(table: pd.DataFrame) -> pd.DataFrame:
    """Across every arm: capped replies per cap and how many were still thinking when cut."""
    out = table.groupby("cap", sort=True).agg(
        arms=("arm", "nunique"), capped=("capped", "sum"), still_thinking=("still_thinking", "sum"))
    return out.reset_index()


def categories(replies: pd.DataFrame) -> dict[str, int]:
    """Replies per category in one arm and cap (the design: 8 of each)."""
    first = replies.groupby(["arm", "cap"], sort=False).ngroup() == 0
    return replies[first]["category"].value_counts().sort_index().to_dict()


def looped_per_arm(table: pd.DataFrame) -> dict[str, int]:
    """Replies that looped, per arm, over every cap."""
    return {arm: int(n) for arm, n in table.groupby("arm", sort=False)["looped"].sum().items()}
