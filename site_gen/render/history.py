"""The history page: each checkpoint and measure across reports, every point linking to its report."""
from __future__ import annotations

from typing import Any

import pandas as pd

from site_gen.analysis import history
from site_gen.analysis.report import Analysis
from site_gen.sections.speed.analysis import METRIC_LABELS
from site_gen.core.config import NOISE_BAND, RATIO_SCALE
from site_gen.render import charts
from site_gen.render import format as fmt, views
from site_gen.render.provenance import Fig

HISTORY_URL = "history.html"
# Releases shown per series: the newest ones. A site of hundreds of releases keeps a page a reader
# can take in (and a preview rebuild that does not grow with the site); every report stays on the
# dashboard and each series' full run is in the history CSVs of its reports.
MAX_POINTS = 24


def _series(frame: pd.DataFrame) -> dict[str, list[dict[str, Any]]]:
    """A history frame's rows by series, in frame order (a frame is read once, not once per series)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for r in views.rows(frame):
        out.setdefault(r["series"], []).append(r)
    return out


def _release(row) -> str:
    return f"{row['candidate']} v{row['version']}"


def _facet(records: list[dict[str, Any]], facets: dict | None, drawn: dict) -> dict[str, Any]:
    """A precision series' forest facet, kept in `facets` by its rows' values (repr: exact for the
    numbers and texts a row holds), so a rebuild redraws only the series an edit touched."""
    key = repr(records)
    facet = facets.get(key) if facets is not None else None
    if facet is None:
        # The series names the engine; each row is a version of it.
        frame = pd.DataFrame([{**r, "checkpoint": f"v{r['version']}", "paired": True, "measure": r["series"]} for r in records])
        facet = charts.forest(frame)[0]
    drawn[key] = facet
    return facet


def context(analyses: list[Analysis], report_url, cache: dict | None = None, memo: dict | None = None) -> dict[str, Any]:
    """Display data for history.html. `report_url(id)` gives a report overview's link from the page.

    `cache` keeps each report's history rows between builds (keyed by receipt hash), so a preview
    rebuild after one edit recomputes that report's rows only; `memo` (kept by the caller too) keeps
    each kind's frame and display rows while the rows they are made from are the same, and the
    precision series' charts by their rows.
    """
    memo = {} if memo is None else memo
    frames = history.frames(analyses, cache, newest=MAX_POINTS, memo=memo.setdefault("frames", {}))
    band = analyses[0].band if analyses else NOISE_BAND
    scale = analyses[0].scale if analyses else RATIO_SCALE

    def kept(kind: str, make) -> list[dict[str, Any]]:
        """A kind's display rows, made again only from a new frame."""
        hit = memo.get(("rows", kind))
        if hit is None or hit[0] is not frames[kind] or hit[1] != (band, scale, report_url):
            hit = memo[("rows", kind)] = (frames[kind], (band, scale, report_url), make(frames[kind]))
        return hit[2]

    def table(frame: pd.DataFrame, caption: str, columns: list[tuple[str, bool]], cells) -> list[dict[str, Any]]:
        """One table per series: a row per release (newest MAX_POINTS), `cells(row)` its figures."""
        out = []
        for series, group in _series(frame).items():
            # A series holds one pair of engines: its columns name them ("{candidate} tokens").
            names = {"candidate": group[0].get("candidate", "candidate"), "baseline": group[0].get("baseline", "baseline")}
            out.append({"series": series, "caption": caption.format(series=series),
                        "columns": [(label.format(**names), num) for label, num in columns],
                        "older": int(group[0]["older"]),  # the frames keep the newest MAX_POINTS releases
                        "rows": [{"release": _release(r), "date": r["date"], "url": report_url(r["report"]), "cells": cells(r)}
                                 for r in group]})
        return out

    speed_rows = kept("speed", lambda frame: table(frame, "{series}", [("Median", True), ("Range", False), ("Cells", False)], lambda r: [
        {"text": Fig(fmt.speed_ratio(r["median"], band), how=f"median {r['candidate']} / {r['baseline']} over {r['cells']} {METRIC_LABELS.get(r['metric'], r['metric'])} cells of {r['checkpoint']}")},
        {"text": fmt.speed_ratio_range(r["low"], r["high"], band), "bar": charts.range_bar(r["low"], r["high"], scale, band)},
        {"text": fmt.verdicts(r)}]))
    kv_rows = kept("kv", lambda frame: table(frame, "{series}", [("{candidate} tokens", True), ("{baseline} tokens", True), ("Ratio", True)], lambda r: [
        {"text": fmt.thousands(r["candidate_tokens"])}, {"text": fmt.thousands(r["baseline_tokens"])},
        {"text": Fig(fmt.ratio(r["ratio"]), how=f"{r['candidate']} / {r['baseline']} KV pool tokens, {r['checkpoint']}")}]))
    startup_rows = kept("startup", lambda frame: table(frame, "{series}, cold / warm", [("Startup", True)], lambda r: [
        {"text": fmt.seconds_pair(r["cold_s"], r["warm_s"])}]))
    precision_rows = kept("precision", lambda frame: _precision(frame, report_url, memo.setdefault("facets", {})))
    credits = list(dict.fromkeys(a.report.meta["attribution"] for a in analyses if a.report.meta.get("attribution")))
    return {"speed": speed_rows, "kv": kv_rows, "startup": startup_rows, "precision": precision_rows, "credits": credits,
            "band": f"\u00b1{band * 100:g}%", "scale": fmt.number_range(scale[0], scale[1], 1, "x")}


def _precision(prec: pd.DataFrame, report_url, facets: dict) -> list[dict[str, Any]]:
    """The precision series: a forest facet and a table of points each (`facets`: charts kept by their rows)."""
    precision_rows = []
    drawn: dict = {}
    for series, records in _series(prec).items():
        # One forest facet per series: its rows are the releases, on the series' own axis.
        facet = _facet(records, facets, drawn)
        facet = {**facet, "rows": [{**row, "url": report_url(r["report"])} for row, r in zip(facet["rows"], records)]}
        first = records[0]
        precision_rows.append({
            "series": series, "facet": facet, "label": first["label"], "checkpoint": first["checkpoint"],
            "rows_identity": first["rows"], "older": int(first["older"]),
            "points": [{"release": _release(r), "date": r["date"], "url": report_url(r["report"]),
                        "difference": fmt.measure_difference(r["difference"], r["unit"]),
                        "interval": fmt.measure_interval(r["low"], r["high"], r["unit"]),
                        "resolved": "resolved" if r["resolved"] else "not resolved",
                        "different_days": bool(r["different_days"])} for r in records]})
    facets.clear()
    facets.update(drawn)
    return precision_rows
