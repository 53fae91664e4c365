"""Across reports: how each checkpoint and measure moves, release after release.

Series are keyed by everything that makes two receipts comparable. Precision points share a
series only when their measure, panel, vocabulary and evaluated rows (plan, teacher, sha256) are
the same; anything else is a separate series, never a continuation. Speed and KV pool points share
a series when the engines' names and the checkpoint are the same.
"""
from __future__ import annotations

import pandas as pd

from site_gen.analysis.frames import groups, median, missing
from site_gen.analysis.report import Analysis
from site_gen.analysis.speed import METRIC_LABELS

SPEED_COLUMNS = ["series", "report", "date", "candidate", "version", "baseline", "checkpoint", "metric",
                 "median", "low", "high", "cells", "faster", "level", "slower"]


def _engines(a: Analysis) -> dict[str, str]:
    r = a.report
    return {"report": r.id, "date": r.date, "candidate": r.candidate.name, "version": r.candidate.version,
            "baseline": r.baseline.label}


def _rows_of(frame: pd.DataFrame, columns: list[str]) -> list[dict]:
    """The frame's rows as dicts of Python values (what `iterrows` gives, without a Series a row)."""
    return [dict(zip(columns, values)) for values in zip(*(frame[c].tolist() for c in columns))]


def _order(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.sort_values(["series", "date", "report"], kind="stable").reset_index(drop=True)


def speed_rows(a: Analysis) -> list[dict]:
    """Per checkpoint and metric of one report: median and range of cell ratios, and the verdict counts."""
    rows: list[dict] = []
    if a.speed is None:
        return rows
    e = _engines(a)
    ratio = a.speed["ratio"].tolist()
    # Read as whole columns: a row lookup (`.loc`, `iterrows`) costs pandas ~1 ms a group.
    counts = {(c["checkpoint"], c["metric"]): c
              for c in _rows_of(a.speed_counts, ["checkpoint", "metric", "faster", "level", "slower"])}
    for (checkpoint, metric), at in groups(a.speed["checkpoint"].tolist(), a.speed["metric"].tolist()).items():
        known = [ratio[i] for i in at if not missing(ratio[i])]
        mid, low, high, n = median(known), min(known, default=float("nan")), max(known, default=float("nan")), len(known)
        c = counts[(checkpoint, metric)]
        label = METRIC_LABELS.get(metric, metric)  # the word every page uses ("clean decode")
        rows.append({**e, "series": f"{e['candidate']} / {e['baseline']} · {checkpoint} · {label}", "checkpoint": checkpoint,
                     "metric": metric, "median": mid, "low": low, "high": high, "cells": int(n),
                     "faster": int(c["faster"]), "level": int(c["level"]), "slower": int(c["slower"])})
    return rows


def speed(analyses: list[Analysis]) -> pd.DataFrame:
    return _order(pd.DataFrame([r for a in analyses for r in speed_rows(a)], columns=SPEED_COLUMNS))


KV_COLUMNS = ["series", "report", "date", "candidate", "version", "baseline", "checkpoint", "candidate_tokens",
              "baseline_tokens", "ratio"]
STARTUP_COLUMNS = ["series", "report", "date", "candidate", "version", "baseline", "checkpoint", "cold_s", "warm_s"]
PRECISION_COLUMNS = ["series", "report", "date", "candidate", "version", "baseline", "checkpoint", "measure", "label", "panel",
                     "vocabulary", "unit", "further", "rows", "difference", "low", "high", "resolved", "oriented",
                     "oriented_low", "oriented_high", "different_days"]


def kv_rows(a: Analysis) -> list[dict]:
    """Per checkpoint of one report: both engines' KV pool tokens and their ratio."""
    rows: list[dict] = []
    if a.kv is None:
        return rows
    e = _engines(a)
    for k in _rows_of(a.kv, ["checkpoint", "candidate", "baseline", "ratio"]):
        rows.append({**e, "series": f"{e['candidate']} / {e['baseline']} · {k['checkpoint']}", "checkpoint": k["checkpoint"],
                     "candidate_tokens": k["candidate"], "baseline_tokens": k["baseline"], "ratio": k["ratio"]})
    return rows


def kv_pool(analyses: list[Analysis]) -> pd.DataFrame:
    return _order(pd.DataFrame([r for a in analyses for r in kv_rows(a)], columns=KV_COLUMNS))


def startup_rows(a: Analysis) -> list[dict]:
    rows: list[dict] = []
    if a.startup is None or a.startup.empty:
        return rows
    e = _engines(a)
    for s in _rows_of(a.startup, ["engine", "checkpoint", "cold_s", "warm_s"]):
        if s["engine"] != "candidate":
            continue
        rows.append({**e, "series": f"{e['candidate']} · {s['checkpoint']}", "checkpoint": s["checkpoint"],
                     "cold_s": s["cold_s"], "warm_s": s["warm_s"]})
    return rows


def startup(analyses: list[Analysis]) -> pd.DataFrame:
    return _order(pd.DataFrame([r for a in analyses for r in startup_rows(a)], columns=STARTUP_COLUMNS))


def precision_rows(a: Analysis) -> list[dict]:
    """Paired differences with intervals of one report, keyed by comparable (measure, rows) identity."""
    rows: list[dict] = []
    if a.precision is None:
        return rows
    e = _engines(a)
    identities = a.report.section("precision")["rows"]
    results = a.report.section("precision")["results"]
    names = ["paired", "panel", "checkpoint", "label", "measure", "vocabulary", "unit", "further", "difference", "low",
             "high", "resolved", "oriented", "oriented_low", "oriented_high", "baseline_date", "candidate_date"]
    for p, raw in zip(_rows_of(a.precision, names), results):
        if not p["paired"]:
            continue
        ident = identities[raw["candidate"]["rows"]]
        key = f"{p['panel']} · {ident['plan']} · {ident['teacher']} · rows {ident['sha256'][:8]}"
        rows.append({**e, "series": f"{e['candidate']} / {e['baseline']} · {p['checkpoint']} · {p['label']} · {key}",
                     "checkpoint": p["checkpoint"], "measure": p["measure"], "label": p["label"], "panel": p["panel"],
                     "vocabulary": p["vocabulary"], "unit": p["unit"], "further": p["further"], "rows": key,
                     "difference": p["difference"], "low": p["low"], "high": p["high"], "resolved": p["resolved"],
                     "oriented": p["oriented"], "oriented_low": p["oriented_low"], "oriented_high": p["oriented_high"],
                     "different_days": p["baseline_date"] != p["candidate_date"]})
    return rows


def precision(analyses: list[Analysis]) -> pd.DataFrame:
    return _order(pd.DataFrame([r for a in analyses for r in precision_rows(a)], columns=PRECISION_COLUMNS))


_KINDS = {"speed": (speed_rows, SPEED_COLUMNS), "kv": (kv_rows, KV_COLUMNS), "startup": (startup_rows, STARTUP_COLUMNS),
          "precision": (precision_rows, PRECISION_COLUMNS)}


def report_rows(a: Analysis) -> dict[str, list[dict]]:
    """One report's rows of each history frame (what `frames` caches per receipt)."""
    return {k: fn(a) for k, (fn, _) in _KINDS.items()}


def _same_kept(rows: dict[str, list[dict]], earlier: dict[str, list[dict]] | None) -> dict[str, list[dict]]:
    """A report's new rows, each kind that reads as before (repr: exact for the values a row holds)
    as the earlier list itself, so the frames made from it are known unchanged."""
    if earlier is None:
        return rows
    return {k: earlier[k] if k in earlier and repr(earlier[k]) == repr(v) else v for k, v in rows.items()}


def frames(analyses: list[Analysis], cache: dict | None = None, newest: int | None = None,
           memo: dict | None = None) -> dict[str, pd.DataFrame]:
    """All four history frames; per-report rows come from `cache` when its receipt is unchanged.

    With `newest`, each series keeps only its newest rows, and an `older` column says how many it
    left out: a page showing the latest releases then costs little more at a thousand reports.
    `memo` keeps each frame with the rows it was made from: a frame whose reports' rows are the
    same lists is taken again (an edit of one report's speed leaves its KV pool rows as they were).
    """
    cache = {} if cache is None else cache
    live = set()
    by_id = None
    for a in analyses:
        key = (a.report.id, a.report.sha256)
        live.add(key)
        if key not in cache:
            if by_id is None:
                by_id = {rid: rows for (rid, _), rows in cache.items()}
            cache[key] = _same_kept(report_rows(a), by_id.get(a.report.id))
    for stale in set(cache) - live:
        del cache[stale]
    if newest is None:
        return {k: _order(pd.DataFrame([r for a in analyses for r in cache[(a.report.id, a.report.sha256)][k]], columns=cols))
                for k, (_, cols) in _KINDS.items()}
    # Newest reports first: each series takes rows until it has `newest`, then only counts.
    ordered = [cache[(a.report.id, a.report.sha256)] for a in
               sorted(analyses, key=lambda a: (a.report.date, a.report.id), reverse=True)]
    out = {}
    for k, (_, cols) in _KINDS.items():
        made_from = [rows[k] for rows in ordered]
        hit = memo.get(k) if memo is not None else None
        if hit is None or hit[0] != newest or len(hit[1]) != len(made_from) or any(x is not y for x, y in zip(hit[1], made_from)):
            hit = (newest, made_from, _newest(made_from, newest, cols))
            if memo is not None:
                memo[k] = hit
        out[k] = hit[2]
    return out


def _newest(made_from: list[list[dict]], newest: int, cols: list[str]) -> pd.DataFrame:
    """One kind's frame from each report's rows (newest report first): each series' newest rows."""
    kept: dict[str, list[dict]] = {}
    older: dict[str, int] = {}
    for rows in made_from:
        for row in rows:
            got = kept.setdefault(row["series"], [])
            if len(got) < newest:
                got.append(row)
            else:
                older[row["series"]] = older.get(row["series"], 0) + 1
    return _order(pd.DataFrame([{**r, "older": older.get(series, 0)} for series, got in kept.items() for r in got],
                               columns=[*cols, "older"]))
