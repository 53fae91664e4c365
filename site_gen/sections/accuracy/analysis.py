"""Accuracy's analysis: each result one row with its JSON path, its interval split in two, and
whether it resolves a direction (the interval excludes zero)."""
from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from site_gen.analysis.changes import DIFFERENCE
from site_gen.analysis.compare import (
    NO_INTERVAL,
    UNPAIRED,
    Change,
    Unmatched,
    difference_change,
    key_of,
    match,
)
from site_gen.analysis.frames import records, rows_of
from site_gen.analysis.series import Measure
from site_gen.sections.contract import AnalysisPart
from site_gen.importers.lm_eval_stats import (
    Z95,  # ±1.96 standard errors: the importers' interval of a score
)


@dataclass
class AccuracyResult:
    table: pd.DataFrame


def resolved(low: float, high: float) -> bool:
    """An interval resolves a direction when it excludes zero."""
    return bool(low > 0 or high < 0)


def analyse(a, part: dict) -> AccuracyResult:
    out = records(part["results"], "$.accuracy.results",
                  ["difference", "interval", "baseline_value", "baseline_interval", "candidate_interval"])
    out["low"] = [i[0] if isinstance(i, list) else float("nan") for i in out["interval"]]
    out["high"] = [i[1] if isinstance(i, list) else float("nan") for i in out["interval"]]
    out["resolved"] = [resolved(lo, hi) if lo == lo and hi == hi else False for lo, hi in zip(out["low"], out["high"])]
    return AccuracyResult(out)


# -- against an earlier release (`sitegen compare`) ----------------------------------------------

def _scores(a) -> dict[tuple, dict]:
    """The candidate's score per (checkpoint, measure), with its own 95% interval (or ±1.96 standard
    errors where the receipt gives only those)."""
    t = a.of("accuracy").table
    cols = [c for c in ("checkpoint", "measure", "label", "unit", "better", "items", "candidate_value", "candidate_interval",
                        "candidate_stderr", "source") if c in t.columns]
    out = {}
    for r in rows_of(t, cols):
        iv, se = r.get("candidate_interval"), r.get("candidate_stderr")
        if isinstance(iv, list):
            r["low"], r["high"] = float(iv[0]), float(iv[1])
        elif se is not None and se == se:
            r["low"], r["high"] = r["candidate_value"] - Z95 * se, r["candidate_value"] + Z95 * se
        else:
            r["low"] = r["high"] = math.nan
        out[key_of(r["checkpoint"], r["measure"])] = r
    return out


# -- history and series: the candidate's score per measure ---------------------------------------------

ACCURACY_COLUMNS = ["series", "report", "date", "candidate", "version", "baseline", "checkpoint", "measure", "label", "unit",
                    "better", "value", "low", "high"]


def accuracy_rows(a, engines: dict[str, str]) -> list[dict]:
    if a.results.get("accuracy") is None:
        return []
    e = engines
    return [{**e, "series": f"{e['candidate']} · {r['checkpoint']} · {r['label']}", "checkpoint": r["checkpoint"],
             "measure": r["measure"], "label": r["label"], "unit": r["unit"], "better": r["better"],
             "value": r["candidate_value"], "low": r["low"], "high": r["high"]} for r in _scores(a).values()]


HISTORY = {"accuracy": (accuracy_rows, ACCURACY_COLUMNS)}
SERIES = {"accuracy": (Measure("value", "{label}", "{unit}", True, DIFFERENCE, "low", "high",
                               "95% interval of the score", "{checkpoint}", better="better"),)}


def compare(old, new, band: float) -> tuple[list, list]:
    """The candidate's score of each measure, new against old: the difference with the unpaired
    interval of two estimates (two runs score the items independently), better or worse only when
    that interval excludes zero."""
    so, sn = _scores(old), _scores(new)
    both, only_old, only_new = match(so, sn)
    changes, unmatched = [], []
    for k in both:
        o, n = so[k], sn[k]
        where = {"checkpoint": n["checkpoint"], "measure": n["label"]}
        if o.get("items") != n.get("items") or o.get("unit") != n.get("unit") or o.get("better") != n.get("better"):
            unmatched += [Unmatched("accuracy", "score", where, side, "other items, unit or direction") for side in ("old", "new")]
            continue
        higher = n.get("better", "higher") != "lower"
        d, low, high, verdict = difference_change((o["candidate_value"], o["low"], o["high"]),
                                                  (n["candidate_value"], n["low"], n["high"]), higher)
        changes.append(Change("accuracy", "score", where, n["measure"], n["unit"], higher, False, o["candidate_value"],
                              n["candidate_value"], d, low, high, "difference", UNPAIRED if low == low else NO_INTERVAL,
                              verdict, f"{o['source']}.candidate.value", f"{n['source']}.candidate.value"))
    for side, keys, scores in (("old", only_old, so), ("new", only_new, sn)):
        unmatched += [Unmatched("accuracy", "score", {"checkpoint": scores[k]["checkpoint"], "measure": scores[k]["label"]}, side)
                      for k in keys]
    return changes, unmatched


PART = AnalysisPart(analyse=analyse, history=HISTORY, series=SERIES, compare=compare)
