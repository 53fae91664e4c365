"""Long outputs: counts and medians per arm and cap, computed from one record per reply."""
from __future__ import annotations

import pandas as pd


def per_arm(replies: pd.DataFrame, arms: pd.DataFrame) -> pd.DataFrame:
    """Per arm and cap: replies, finished, looped; code tests passing, JSON valid, code medians.

    Medians of code replies use the code replies of that arm and cap, finished or not.
    """
    rows = []
    for (arm, cap), group in replies.groupby(["arm", "cap"], sort=False):
        code = group[group["category"] == "code"]
        json = group[group["category"] == "json"]
        rows.append({
            "arm": arm, "cap": cap, "replies": len(group),
            "finished": int(group["finished"].sum()),
            "looped": int(group["looped"].sum()),
            "capped": int((~group["finished"]).sum()),
            "still_thinking": int(group["still_thinking"].sum()),
            "code_replies": len(code),
            "code_tests_passed": int(code["tests_passed"].fillna(False).astype(bool).sum()) if len(code) else 0,
            "json_replies": len(json),
            "json_valid": int(json["json_valid"].fillna(False).astype(bool).sum()) if len(json) else 0,
            "code_reply_median": code["reply_tokens"].median() if len(code) else float("nan"),
            "code_thinking_median": code["thinking_tokens"].median() if len(code) else float("nan"),
        })
    out = pd.DataFrame(rows)
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
