"""Precision: each engine's distance from the reference, and the measured paired difference."""
from __future__ import annotations

import numpy as np
import pandas as pd

COLUMNS = ["checkpoint", "measure", "label", "panel", "vocabulary", "unit", "further", "baseline", "candidate",
           "baseline_date", "candidate_date", "difference", "low", "high", "paired", "resolved", "direction",
           "oriented", "oriented_low", "oriented_high", "source"]
# A gap's direction, claimed only when it is resolved; an unpaired row has none ("").
FURTHER, CLOSER, NOT_RESOLVED = "further", "closer", "not resolved"


def differences(results: pd.DataFrame, measures: pd.DataFrame) -> pd.DataFrame:
    """One row per checkpoint and measure.

    `difference` and its interval are the receipt's measured values, never recomputed from the
    engine means. `oriented*` flips measures where lower is further (agreement), so a positive
    oriented value always means "candidate further from the reference".
    """
    m = measures[["id", "label", "panel", "vocabulary", "unit", "further"]].rename(columns={"id": "measure"})
    out = results.merge(m, on="measure", how="left", sort=False)
    for column in ("baseline_value", "candidate_value", "difference", "interval", "baseline_date", "candidate_date"):
        if column not in out.columns:
            out[column] = None
    out = out.rename(columns={"baseline_value": "baseline", "candidate_value": "candidate"})
    out["paired"] = out["difference"].notna()
    out["low"] = out["interval"].map(lambda iv: iv[0] if isinstance(iv, list) else np.nan)
    out["high"] = out["interval"].map(lambda iv: iv[1] if isinstance(iv, list) else np.nan)
    out["difference"] = pd.to_numeric(out["difference"])
    # Resolved: the 95% interval excludes zero.
    out["resolved"] = out["paired"] & ((out["low"] > 0) | (out["high"] < 0))
    sign = np.where(out["further"] == "lower", -1.0, 1.0)
    out["oriented"] = out["difference"] * sign
    out["oriented_low"] = np.where(sign > 0, out["low"], -out["high"])
    out["oriented_high"] = np.where(sign > 0, out["high"], -out["low"])
    out["direction"] = _direction(out)
    return out[COLUMNS]


def _direction(table: pd.DataFrame) -> pd.Series:
    """further / closer for a resolved gap, by the measure's orientation (the receipt's `further`:
    which way of the value is away from the reference); "not resolved" when the interval holds zero."""
    resolved_way = np.where(table["oriented"] > 0, FURTHER, CLOSER)
    return pd.Series(np.where(table["resolved"], resolved_way, np.where(table["paired"], NOT_RESOLVED, "")),
                     index=table.index, dtype=object)


def summary(table: pd.DataFrame) -> dict:
    """Counts behind the section's headline: how many gaps, how many resolved, which way the resolved
    ones point (an unresolved gap points nowhere: it is counted apart)."""
    paired = table[table["paired"]]
    return {
        "pairs": len(paired),
        "further": int((paired["direction"] == FURTHER).sum()),
        "closer": int((paired["direction"] == CLOSER).sum()),
        "unresolved": int((paired["direction"] == NOT_RESOLVED).sum()),
        "resolved": int(paired["resolved"].sum()),
        "checkpoints": paired["checkpoint"].nunique(),
        "panels": paired["panel"].nunique(),
        "resolved_share": paired["resolved"].mean() if len(paired) else float("nan"),
        # Pairs whose two sides were measured on different days (still on identical rows).
        "different_days": int((paired["baseline_date"] != paired["candidate_date"]).sum()),
    }


def checkpoint_gaps(table: pd.DataFrame) -> pd.DataFrame:
    """Engine gap as a share of the gap between paired checkpoints, per measure.

    The checkpoint gap is measured on the same engine (the candidate) and the same measure, so
    the two gaps share a unit and a panel.
    """
    rows = []
    paired = table[table["paired"]]
    for measure, group in paired.groupby("measure", sort=False):
        if len(group) < 2:
            continue
        spread = group["candidate"].max() - group["candidate"].min()
        largest = group["difference"].abs().max()
        rows.append({"measure": measure, "label": group["label"].iloc[0], "engine_gap": largest,
                     "checkpoint_gap": spread, "share": largest / spread if spread else np.nan})
    return pd.DataFrame(rows, columns=["measure", "label", "engine_gap", "checkpoint_gap", "share"])


def largest_gap(gaps: pd.DataFrame) -> dict | None:
    """The measure whose engine gap is the largest share of its checkpoint gap."""
    if gaps is None or gaps.empty or not gaps["share"].notna().any():
        return None
    top = gaps.loc[gaps["share"].idxmax()]
    return {"measure": top["measure"], "label": top["label"], "share": float(top["share"])}


def direction(summary_: dict) -> str:
    """further / closer when every paired gap is resolved and points that way, else mixed."""
    if summary_["pairs"] and summary_["further"] == summary_["pairs"]:
        return "further"
    if summary_["pairs"] and summary_["closer"] == summary_["pairs"]:
        return "closer"
    return "mixed"
