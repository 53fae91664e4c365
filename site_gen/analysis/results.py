"""Result kinds of schema 1.1: accuracy-style paired differences, named measures with their
spread, and quality gates. Pure pandas: each record stays one row with its JSON path."""
from __future__ import annotations

import pandas as pd

from site_gen.analysis.frames import records


def resolved(low: float, high: float) -> bool:
    """An interval resolves a direction when it excludes zero."""
    return bool(low > 0 or high < 0)


def accuracy(part: dict) -> pd.DataFrame:
    out = records(part["results"], "$.accuracy.results",
                  ["difference", "interval", "baseline_interval", "candidate_interval"])
    out["low"] = [i[0] if isinstance(i, list) else float("nan") for i in out["interval"]]
    out["high"] = [i[1] if isinstance(i, list) else float("nan") for i in out["interval"]]
    out["resolved"] = [resolved(lo, hi) if lo == lo and hi == hi else False for lo, hi in zip(out["low"], out["high"])]
    return out


def measures(part: dict) -> pd.DataFrame:
    """One row per measure: both sides' medians, spread, samples and the change of medians."""
    out = records(part["results"], "$.measures.results",
                  ["vocabulary", "baseline_low", "baseline_high", "candidate_low", "candidate_high",
                   "baseline_samples", "candidate_samples"])
    out["change"] = out["candidate_median"] / out["baseline_median"] - 1.0
    for role in ("baseline", "candidate"):
        out[f"{role}_n"] = [len(s) if isinstance(s, list) else 0 for s in out[f"{role}_samples"]]
    # Ranges of repeated samples that do not overlap are the only evidence of a direction this
    # result kind carries; one sample a side has no range to compare.
    known = out[["baseline_low", "baseline_high", "candidate_low", "candidate_high"]].notna().all(axis=1)
    spread = out[known]
    apart = ((spread["candidate_low"] > spread["baseline_high"]) | (spread["candidate_high"] < spread["baseline_low"])).reindex(out.index)
    out["apart"] = apart.fillna(False).astype(bool) & (out["baseline_n"] >= 2) & (out["candidate_n"] >= 2)
    return out


def gates(part: dict) -> pd.DataFrame:
    return records(part["results"], "$.gates.results", ["group", "unit"])


def gate_passes(value: float, threshold: float, passes_when: str) -> bool:
    return value <= threshold if passes_when == "at_most" else value >= threshold
