"""Long outputs: counts and medians per arm and cap, computed from one record per reply."""
from __future__ import annotations

import pandas as pd


def per_arm(replies: pd.DataFrame, arms: pd.DataFrame) -> pd.DataFrame:
    """Per arm and cap: replies, finished, looped; code tests passing, JSON valid, code medians.

    Medians of code replies use the code replies of that arm and cap, finished or not.
    """
    category = replies["category"]
    r = pd.DataFrame({
        "arm": replies["arm"], "cap": replies["cap"],
        "finished": replies["finished"].astype(bool), "looped": replies["looped"].astype(bool),
        "capped": ~replies["finished"].astype(bool), "still_thinking": replies["still_thinking"].astype(bool),
        "code_replies": category == "code", "json_replies": category == "json",
        "code_tests_passed": replies["tests_passed"].fillna(False).astype(bool) & (category == "code"),
        "json_valid": replies["json_valid"].fillna(False).astype(bool) & (category == "json"),
    })
    keys = ["arm", "cap"]
    counts = ["finished", "looped", "capped", "still_thinking", "code_replies", "code_tests_passed", "json_replies", "json_valid"]
    # One reduction over all count columns (a named aggregation per column costs ~1 ms each).
    grouped = r.groupby(keys, sort=False)
    out = grouped[counts].sum().astype(int)
    out.insert(0, "replies", grouped.size())
    code = replies.loc[r["code_replies"], keys + ["reply_tokens", "thinking_tokens"]].groupby(keys, sort=False).median()
    out = out.join(code.rename(columns={"reply_tokens": "code_reply_median", "thinking_tokens": "code_thinking_median"}))
    out = out.reset_index()
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
    g = table.groupby("cap", sort=True)
    out = pd.DataFrame({"arms": g["arm"].nunique(), "capped": g["capped"].sum(), "still_thinking": g["still_thinking"].sum()})
    return out.reset_index()


def categories(replies: pd.DataFrame) -> dict[str, int]:
    """Replies per category in one arm and cap (the design: 8 of each)."""
    first = replies.groupby(["arm", "cap"], sort=False).ngroup() == 0
    return replies[first]["category"].value_counts().sort_index().to_dict()


def looped_per_arm(table: pd.DataFrame) -> dict[str, int]:
    """Replies that looped, per arm, over every cap."""
    return {arm: int(n) for arm, n in table.groupby("arm", sort=False)["looped"].sum().items()}
