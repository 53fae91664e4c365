"""Version against version: precision agreement and identical replies, from measured rows."""
from __future__ import annotations

import pandas as pd


def precision(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per panel: bit-identical when every difference is exactly zero; resolved when an interval excludes zero."""
    if rows.empty:
        return pd.DataFrame(columns=["panel", "checkpoints", "max_abs_difference", "identical", "resolved"])
    out = []
    for panel, group in rows.groupby("panel", sort=False):
        lows = group["interval"].map(lambda iv: iv[0])
        highs = group["interval"].map(lambda iv: iv[1])
        out.append({
            "panel": panel,
            "checkpoints": list(group["checkpoint"]),
            "max_abs_difference": group["max_abs_difference"].max(),
            "identical": bool((group["max_abs_difference"] == 0).all()),
            "resolved": bool(((lows > 0) | (highs < 0)).any()),
        })
    return pd.DataFrame(out)


def text(rows: pd.DataFrame) -> pd.DataFrame:
    """Replies grouped by whether every reply of a category was identical."""
    if rows.empty:
        return pd.DataFrame(columns=["all_identical", "categories", "identical", "total", "differ"])
    rows = rows.assign(all_identical=rows["identical"] == rows["total"])
    out = rows.groupby("all_identical", sort=False).agg(
        categories=("category", list), identical=("identical", "sum"), total=("total", "sum"))
    out["differ"] = out["total"] - out["identical"]
    return out.reset_index().sort_values("all_identical", ascending=False).reset_index(drop=True)
