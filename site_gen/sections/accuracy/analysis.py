"""Accuracy's analysis: each result one row with its JSON path, its interval split in two, and
whether it resolves a direction (the interval excludes zero)."""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from site_gen.analysis.frames import records


@dataclass
class AccuracyResult:
    table: pd.DataFrame


def resolved(low: float, high: float) -> bool:
    """An interval resolves a direction when it excludes zero."""
    return bool(low > 0 or high < 0)


def analyse(a, part: dict) -> AccuracyResult:
    out = records(part["results"], "$.accuracy.results",
                  ["difference", "interval", "baseline_interval", "candidate_interval"])
    out["low"] = [i[0] if isinstance(i, list) else float("nan") for i in out["interval"]]
    out["high"] = [i[1] if isinstance(i, list) else float("nan") for i in out["interval"]]
    out["resolved"] = [resolved(lo, hi) if lo == lo and hi == hi else False for lo, hi in zip(out["low"], out["high"])]
    return AccuracyResult(out)
