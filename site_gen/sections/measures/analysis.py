"""Measures' analysis: one row per measure, both sides' medians, spread, samples and the change of
medians; a direction only where the two sides' ranges of repeated samples do not overlap."""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from site_gen.analysis.frames import records


@dataclass
class MeasuresResult:
    table: pd.DataFrame


def analyse(a, part: dict) -> MeasuresResult:
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
    return MeasuresResult(out)
