"""Measures' analysis: one row per measure, both sides' medians, spread, samples and the change of
medians; a direction only where the two sides' ranges of repeated samples do not overlap."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from site_gen.analysis import bootstrap as bs
from site_gen.analysis.compare import (
    ONE_RUN,
    Change,
    Unmatched,
    band_change,
    interval_change,
    key_of,
    match,
)
from site_gen.analysis.frames import records, rows_of
from site_gen.sections.contract import AnalysisPart


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


# -- against an earlier release (`sitegen compare`) ----------------------------------------------

_TIMES = ("s", "ms", "seconds")


def _candidate(a) -> dict[tuple, dict]:
    t = a.of("measures").table
    cols = ["checkpoint", "group", "measure", "label", "unit", "better", "candidate_median", "candidate_samples", "source"]
    return {key_of(r["checkpoint"], r["group"], r["measure"]): r for r in rows_of(t, cols)}


def compare(old, new, band: float) -> tuple[list, list]:
    """The candidate's median of each measure, new against old: with repeated samples (two or more,
    all above zero) on both, the ratio of their geometric means with Welch's t interval over the
    samples and the interval rule; otherwise the band rule on the medians."""
    so, sn = _candidate(old), _candidate(new)
    both, only_old, only_new = match(so, sn)
    changes, unmatched = [], []
    for k in both:
        o, n = so[k], sn[k]
        where = {"checkpoint": n["checkpoint"], "group": n["group"], "measure": n["label"]}
        if (o["unit"], o["better"]) != (n["unit"], n["better"]):
            unmatched += [Unmatched("measures", "measure", where, side, "other unit or direction") for side in ("old", "new")]
            continue
        higher = n["better"] == "higher"
        speed = n["unit"] in _TIMES or str(n["unit"]).endswith("/s")
        xo, xn = (np.array(r["candidate_samples"] if isinstance(r["candidate_samples"], list) else [], dtype=float) for r in (o, n))
        if xo.size >= 2 and xn.size >= 2 and (xo > 0).all() and (xn > 0).all():
            ratio, low, high = bs.log_ratio(xo, xn)
            verdict, method = interval_change(ratio, low, high, band, higher), "t over runs"
        else:
            (ratio, verdict), low, high, method = band_change(o["candidate_median"], n["candidate_median"], band, higher), \
                math.nan, math.nan, ONE_RUN
        changes.append(Change("measures", "measure", where, n["measure"], n["unit"], higher, speed, o["candidate_median"],
                              n["candidate_median"], ratio, low, high, "ratio", method, verdict,
                              f"{o['source']}.candidate", f"{n['source']}.candidate"))
    for side, keys, rows in (("old", only_old, so), ("new", only_new, sn)):
        unmatched += [Unmatched("measures", "measure", {"checkpoint": rows[k]["checkpoint"], "group": rows[k]["group"],
                                                        "measure": rows[k]["label"]}, side) for k in keys]
    return changes, unmatched


PART = AnalysisPart(analyse=analyse, compare=compare)
