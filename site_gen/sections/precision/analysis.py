"""Precision's analysis: each engine's distance from the reference, and the measured paired
difference; its inline figures and its history rows."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from site_gen.analysis.changes import DIFFERENCE
from site_gen.analysis.compare import (
    UNPAIRED,
    Change,
    Unmatched,
    difference_change,
    difference_step,
    key_of,
    match,
)
from site_gen.analysis.figures import Figure, FigureError, need
from site_gen.analysis.frames import frame, from_rows, groups, missing, of_rows, on_default_index, records, rows_of
from site_gen.analysis.series import Measure
from site_gen.sections.contract import AnalysisPart

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
    # The measures' columns read one by one (a selection of them, `measures[[...]]`, is a frame more).
    m = {c: measures[c] for c in ("id", *_MEASURE)}
    ids = m["id"].tolist()
    at = {measure: i for i, measure in enumerate(ids)}
    wanted = results["measure"].tolist() if "measure" in results.columns else []
    if not wanted or len(at) < len(ids) or any(w not in at for w in wanted) or \
            not all(pd.api.types.is_string_dtype(m[c]) for c in _MEASURE):
        return _merged(results, measures[["id", *_MEASURE]].rename(columns={"id": "measure"}))
    # Every result names one declared measure (what the receipt's checks leave): a lookup, not a merge.
    n = len(results)
    res = results if on_default_index(results) else results.reset_index(drop=True)

    def column(name: str):  # an absent field is a column of None, as the merge leaves it
        return res[name] if name in res.columns else pd.Series([None] * n, dtype=object)

    out = {"checkpoint": res["checkpoint"], "measure": res["measure"]}
    for c in _MEASURE:
        values = m[c].tolist()
        out[c] = [values[at[w]] for w in wanted]
    for name, source in (("baseline", "baseline_value"), ("candidate", "candidate_value"),
                         ("baseline_date", "baseline_date"), ("candidate_date", "candidate_date")):
        out[name] = column(source)
    difference = column("difference")
    if not pd.api.types.is_numeric_dtype(difference):
        difference = pd.to_numeric(difference)
    intervals = column("interval").tolist()
    low = np.array([iv[0] if isinstance(iv, list) else np.nan for iv in intervals])
    high = np.array([iv[1] if isinstance(iv, list) else np.nan for iv in intervals])
    values = difference.to_numpy()
    paired = ~pd.isna(values)
    # Resolved: the 95% interval excludes zero.
    resolved = paired & ((low > 0) | (high < 0))
    sign = np.where(np.array(out["further"], dtype=object) == "lower", -1.0, 1.0)
    oriented = values * sign
    out.update(difference=difference, low=low, high=high, paired=paired, resolved=resolved,
               direction=_directions(oriented, resolved, paired), oriented=oriented,
               oriented_low=np.where(sign > 0, low, -high), oriented_high=np.where(sign > 0, high, -low),
               source=res["source"])
    return frame({c: out[c] for c in COLUMNS})


_MEASURE = ["label", "panel", "vocabulary", "unit", "further"]


def _merged(results: pd.DataFrame, m: pd.DataFrame) -> pd.DataFrame:
    """`differences` by a merge: for results whose measures are not each declared once (or none)."""
    out = results.merge(m, on="measure", how="left", sort=False)
    for column in ("baseline_value", "candidate_value", "difference", "interval", "baseline_date", "candidate_date"):
        if column not in out.columns:
            out[column] = None
    out = out.rename(columns={"baseline_value": "baseline", "candidate_value": "candidate"})
    out["paired"] = out["difference"].notna()
    out["low"] = out["interval"].map(lambda iv: iv[0] if isinstance(iv, list) else np.nan)
    out["high"] = out["interval"].map(lambda iv: iv[1] if isinstance(iv, list) else np.nan)
    out["difference"] = pd.to_numeric(out["difference"])
    out["resolved"] = out["paired"] & ((out["low"] > 0) | (out["high"] < 0))
    sign = np.where(out["further"] == "lower", -1.0, 1.0)
    out["oriented"] = out["difference"] * sign
    out["oriented_low"] = np.where(sign > 0, out["low"], -out["high"])
    out["oriented_high"] = np.where(sign > 0, out["high"], -out["low"])
    out["direction"] = _direction(out)
    return out[COLUMNS]


def _directions(oriented, resolved, paired) -> pd.Series:
    resolved_way = np.where(oriented > 0, FURTHER, CLOSER)
    return pd.Series(np.where(resolved, resolved_way, np.where(paired, NOT_RESOLVED, "")), dtype=object)


def _direction(table: pd.DataFrame) -> pd.Series:
    """further / closer for a resolved gap, by the measure's orientation (the receipt's `further`:
    which way of the value is away from the reference); "not resolved" when the interval holds zero."""
    return _directions(table["oriented"], table["resolved"], table["paired"]).set_axis(table.index)


def summary(table: pd.DataFrame) -> dict:
    """Counts behind the section's headline: how many gaps, how many resolved, which way the resolved
    ones point (an unresolved gap points nowhere: it is counted apart)."""
    names = ("direction", "resolved", "checkpoint", "panel", "baseline_date", "candidate_date")
    rows = [r for p, *r in zip(table["paired"].tolist(), *(table[c].tolist() for c in names)) if p]
    directions = [r[0] for r in rows]
    resolved = sum(bool(r[1]) for r in rows)
    return {
        "pairs": len(rows),
        "further": directions.count(FURTHER),
        "closer": directions.count(CLOSER),
        "unresolved": directions.count(NOT_RESOLVED),
        "resolved": resolved,
        "checkpoints": len({r[2] for r in rows if not missing(r[2])}),
        "panels": len({r[3] for r in rows if not missing(r[3])}),
        "resolved_share": np.float64(resolved) / len(rows) if rows else float("nan"),
        # Pairs whose two sides were measured on different days (still on identical rows); a date
        # missing on either side differs, as pandas compares it.
        "different_days": sum(missing(r[4]) or missing(r[5]) or r[4] != r[5] for r in rows),
    }


def checkpoint_gaps(table: pd.DataFrame, identity: list | None = None) -> pd.DataFrame:
    """Engine gap as a share of the gap between paired checkpoints, per measure.

    The checkpoint gap is measured on the same engine (the candidate) and the same measure, so
    the two gaps share a unit and a panel; and only between checkpoints evaluated against one
    teacher on the same rows (`identity`: each row's teacher, plan and row hash), that is variants
    of one model: between two models the spread of their values is no gap a reader can weigh an
    engine's against. The engine gap is the largest *resolved* difference: an unresolved one has
    no size the interval vouches for.
    """
    rows = []
    paired = table["paired"].tolist()
    identity = identity if identity is not None else [None] * len(table)
    label, candidate, difference, resolved = (table[c].tolist() for c in ("label", "candidate", "difference", "resolved"))
    units = table["unit"].tolist() if "unit" in table else [None] * len(table)
    keyed = [(m, ident) if p else None for m, ident, p in zip(table["measure"].tolist(), identity, paired)]
    for key, at in groups(keyed).items():
        measure = key[0][0] if key[0] is not None else None
        if measure is None or len(at) < 2:
            continue
        values = [candidate[i] for i in at if not missing(candidate[i])]
        gaps = [abs(difference[i]) for i in at if not missing(difference[i]) and resolved[i]]
        spread = max(values) - min(values) if values else np.nan
        largest = max(gaps) if gaps else np.nan
        rows.append({"measure": measure, "label": label[at[0]], "unit": units[at[0]], "engine_gap": largest,
                     "checkpoint_gap": spread, "share": largest / spread if spread else np.nan})
    return from_rows(rows, ["measure", "label", "unit", "engine_gap", "checkpoint_gap", "share"])


def largest_gap(gaps: pd.DataFrame) -> dict | None:
    """The measure whose engine gap is the largest share of its checkpoint gap."""
    if gaps is None or gaps.empty:
        return None
    shares = gaps["share"].tolist()
    known = [(s, i) for i, s in enumerate(shares) if not missing(s)]
    if not known:
        return None
    top = max(known, key=lambda si: si[0])[1]  # the first of equal largest, as idxmax
    return {"measure": gaps["measure"].iloc[top], "label": gaps["label"].iloc[top], "share": float(shares[top]),
            "unit": gaps["unit"].iloc[top], "engine_gap": float(gaps["engine_gap"].iloc[top]),
            "checkpoint_gap": float(gaps["checkpoint_gap"].iloc[top])}


def direction(summary_: dict) -> str:
    """further / closer when every paired gap is resolved and points that way, else mixed."""
    if summary_["pairs"] and summary_["further"] == summary_["pairs"]:
        return "further"
    if summary_["pairs"] and summary_["closer"] == summary_["pairs"]:
        return "closer"
    return "mixed"


@dataclass
class PrecisionResult:
    table: pd.DataFrame              # one row per checkpoint and measure (`differences`)
    summary: dict[str, Any]          # counts behind the headline (`summary`)
    gaps: pd.DataFrame               # engine gap against checkpoint gap per measure
    largest_gap: dict | None         # the measure whose engine gap is the largest share
    direction: str                   # further, closer or mixed


def analyse(a, p: dict) -> PrecisionResult:
    table = differences(records(p["results"], "$.precision.results"), of_rows(p["measures"]))
    s = summary(table)
    rows = p["rows"]
    identity = [(rows[r["candidate"]["rows"]]["teacher"], rows[r["candidate"]["rows"]]["plan"], rows[r["candidate"]["rows"]]["sha256"])
                if "candidate" in r else None for r in p["results"]]
    gaps = checkpoint_gaps(table, identity)
    return PrecisionResult(table=table, summary=s, gaps=gaps, largest_gap=largest_gap(gaps), direction=direction(s))


# -- inline figures ---------------------------------------------------------------------------

def _summary(a) -> dict:
    p = a.of("precision")
    return need(p.summary if p else None, "precision results")


def precision_further(a) -> Figure:
    s = _summary(a)
    return Figure(s["further"], "count", f"{s['further']} of {s['pairs']} paired differences are resolved and point away from the reference")


def precision_closer(a) -> Figure:
    s = _summary(a)
    return Figure(s["closer"], "count", f"{s['closer']} of {s['pairs']} paired differences are resolved and point towards the reference")


def precision_unresolved(a) -> Figure:
    s = _summary(a)
    return Figure(s["pairs"] - s["resolved"], "count", f"{s['pairs'] - s['resolved']} of {s['pairs']} intervals include zero")


def precision_reference(a) -> Figure:
    p = a.report.section("precision")
    if p is None:
        raise FigureError("the report has no precision results")
    return Figure(p["reference"], "phrase", "the reference of the precision measures")


FIGURES = {
    "precision_further": (precision_further, "resolved paired precision gaps where the candidate is further from the reference"),
    "precision_closer": (precision_closer, "resolved paired precision gaps where the candidate is closer to the reference"),
    "precision_unresolved": (precision_unresolved, "paired precision gaps whose 95% interval includes zero"),
    "precision_reference": (precision_reference, "what precision is measured against (e.g. BF16)"),
}


# -- history ----------------------------------------------------------------------------------

PRECISION_COLUMNS = ["series", "report", "date", "candidate", "version", "baseline", "checkpoint", "measure", "label", "panel",
                     "vocabulary", "unit", "further", "rows", "difference", "low", "high", "resolved", "oriented",
                     "oriented_low", "oriented_high", "different_days"]


def precision_rows(a, engines: dict[str, str]) -> list[dict]:
    """Paired differences with intervals of one report, keyed by comparable (measure, rows) identity."""
    rows: list[dict] = []
    p = a.of("precision")
    if p is None:
        return rows
    e = engines
    identities = a.report.section("precision")["rows"]
    results = a.report.section("precision")["results"]
    names = ["paired", "panel", "checkpoint", "label", "measure", "vocabulary", "unit", "further", "difference", "low",
             "high", "resolved", "oriented", "oriented_low", "oriented_high", "baseline_date", "candidate_date"]
    for r, raw in zip(rows_of(p.table, names), results):
        if not r["paired"]:
            continue
        ident = identities[raw["candidate"]["rows"]]
        key = f"{r['panel']} · {ident['plan']} · {ident['teacher']} · rows {ident['sha256'][:8]}"
        rows.append({**e, "series": f"{e['candidate']} / {e['baseline']} · {r['checkpoint']} · {r['label']} · {key}",
                     "checkpoint": r["checkpoint"], "measure": r["measure"], "label": r["label"], "panel": r["panel"],
                     "vocabulary": r["vocabulary"], "unit": r["unit"], "further": r["further"], "rows": key,
                     "difference": r["difference"], "low": r["low"], "high": r["high"], "resolved": r["resolved"],
                     "oriented": r["oriented"], "oriented_low": r["oriented_low"], "oriented_high": r["oriented_high"],
                     "different_days": r["baseline_date"] != r["candidate_date"]})
    return rows


HISTORY = {"precision": (precision_rows, PRECISION_COLUMNS)}


def precision_step(old: dict, new: dict, band: float) -> list:
    """A series' gap from one release to the next: the difference of the two gaps with the unpaired
    interval of two estimates; closer to the reference (better) or further (worse) only when it
    excludes zero."""
    return [difference_step("precision", new["measure"], new["unit"], (old["difference"], old["low"], old["high"]),
                            (new["difference"], new["low"], new["high"]), new["further"] == "lower")]


HISTORY_STEPS = {"precision": precision_step}
# The oriented gap: positive is further from the reference (worse), whichever way the measure runs.
SERIES = {"precision": (Measure("oriented", "{label} gap", "{unit}", False, DIFFERENCE, "oriented_low", "oriented_high",
                                "95% interval of the gap", "{checkpoint}"),)}


# -- against an earlier release (`sitegen compare`) ----------------------------------------------

def _gaps(a) -> dict[tuple, dict]:
    """Each paired gap by (checkpoint, measure), with what makes two gaps comparable: the measure's
    panel, vocabulary, unit and orientation, and the evaluated rows (plan, teacher, row hash)."""
    p = a.of("precision")
    part = a.report.section("precision")
    names = ["paired", "checkpoint", "measure", "label", "panel", "vocabulary", "unit", "further", "difference", "low", "high",
             "source"]
    out = {}
    for r, raw in zip(rows_of(p.table, names), part["results"]):
        if r["paired"]:
            ident = part["rows"][raw["candidate"]["rows"]]
            r["identity"] = (r["panel"], r["vocabulary"], r["unit"], r["further"], ident["plan"], ident["teacher"], ident["sha256"])
            out[key_of(r["checkpoint"], r["measure"])] = r
    return out


def compare(old, new, band: float) -> tuple[list, list]:
    """Each paired gap (candidate minus baseline) of the same measure on the same rows, new against
    old: the difference of the two gaps with the unpaired interval of two estimates, better (closer to
    the reference) or worse (further) only when that interval excludes zero, as a gap is resolved."""
    go, gn = _gaps(old), _gaps(new)
    both, only_old, only_new = match(go, gn)
    changes, unmatched = [], []
    for k in both:
        o, n = go[k], gn[k]
        where = {"checkpoint": n["checkpoint"], "measure": n["label"]}
        if o["identity"] != n["identity"]:
            unmatched += [Unmatched("precision", "gap", where, side, "other panel, vocabulary or rows") for side in ("old", "new")]
            continue
        higher_is_better = n["further"] == "lower"  # a gap that grows away from the reference is worse
        d, low, high, verdict = difference_change((o["difference"], o["low"], o["high"]), (n["difference"], n["low"], n["high"]),
                                                  higher_is_better)
        changes.append(Change("precision", "gap", where, n["measure"], n["unit"], higher_is_better, False, o["difference"],
                              n["difference"], d, low, high, "difference", UNPAIRED, verdict,
                              f"{o['source']}.difference", f"{n['source']}.difference"))
    for side, keys, gaps in (("old", only_old, go), ("new", only_new, gn)):
        unmatched += [Unmatched("precision", "gap", {"checkpoint": gaps[k]["checkpoint"], "measure": gaps[k]["label"]}, side)
                      for k in keys]
    return changes, unmatched


PART = AnalysisPart(analyse=analyse, figures=FIGURES, history=HISTORY, history_steps=HISTORY_STEPS, series=SERIES,
                    compare=compare)
