"""The history page: each checkpoint and measure across reports, every point linking to its report."""
from __future__ import annotations

from typing import Any

import pandas as pd

from site_gen.analyse import history
from site_gen.analyse.report import Analysis
from site_gen.render import charts
from site_gen.render import format as fmt
from site_gen.render.provenance import Fig

HISTORY_URL = "history.html"
# Releases shown per series: the newest ones. A site of hundreds of releases keeps a page a reader
# can take in (and a preview rebuild that does not grow with the site); every report stays on the
# dashboard and each series' full run is in the history CSVs of its reports.
MAX_POINTS = 24


def _newest(group: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """The newest MAX_POINTS releases of a series (frames are ordered by date), and how many are left out."""
    return group.tail(MAX_POINTS), max(0, len(group) - MAX_POINTS)


def _release(row) -> str:
    return f"{row['candidate']} v{row['version']}"


def context(analyses: list[Analysis], report_url, cache: dict | None = None) -> dict[str, Any]:
    """Display data for history.html. `report_url(id)` gives a report overview's link from the page.

    `cache` keeps each report's history rows between builds (keyed by receipt hash), so a preview
    rebuild after one edit recomputes that report's rows only.
    """
    frames = history.frames(analyses, cache)
    band = analyses[0].band if analyses else 0.08
    scale = analyses[0].scale if analyses else (0.8, 1.8)
    def table(frame: pd.DataFrame, caption: str, columns: list[tuple[str, bool]], cells) -> list[dict[str, Any]]:
        """One table per series: a row per release (newest MAX_POINTS), `cells(row)` its figures."""
        out = []
        for series, group in frame.groupby("series", sort=False):
            group, older = _newest(group)
            out.append({"series": series, "caption": caption.format(series=series), "columns": columns, "older": older,
                        "rows": [{"release": _release(r), "date": r["date"], "url": report_url(r["report"]), "cells": cells(r)}
                                 for r in group.to_dict("records")]})
        return out

    speed_rows = table(frames["speed"], "{series}", [("Median", True), ("Range", False), ("Cells", False)], lambda r: [
        {"text": Fig(fmt.ratio(r["median"]), how=f"median candidate / baseline over {r['cells']} {r['metric']} cells of {r['checkpoint']}")},
        {"text": fmt.ratio_range(r["low"], r["high"]), "bar": charts.range_bar(r["low"], r["high"], scale, band)},
        {"text": f"{r['faster']} faster · {r['level']} level · {r['slower']} slower"}])
    kv_rows = table(frames["kv"], "{series}", [("Candidate tokens", True), ("Baseline tokens", True), ("Ratio", True)], lambda r: [
        {"text": fmt.thousands(r["candidate_tokens"])}, {"text": fmt.thousands(r["baseline_tokens"])},
        {"text": Fig(fmt.ratio(r["ratio"]), how=f"candidate / baseline KV pool tokens, {r['checkpoint']}")}])
    startup_rows = table(frames["startup"], "{series}, cold / warm", [("Startup", True)], lambda r: [
        {"text": fmt.seconds_pair(r["cold_s"], r["warm_s"])}])
    prec = frames['precision']
    precision_rows = []
    for series, group in prec.groupby("series", sort=False):
        group, older = _newest(group)
        # One forest facet per series: its rows are the releases, on the series' own axis.
        # The series names the engine; each row is a version of it.
        frame = group.assign(checkpoint=[f"v{r['version']}" for _, r in group.iterrows()], paired=True, measure=series)
        facet = charts.forest(frame)[0]
        for row, (_, r) in zip(facet["rows"], group.iterrows()):
            row["url"] = report_url(r["report"])
        precision_rows.append({
            "series": series, "facet": facet, "label": group["label"].iloc[0], "checkpoint": group["checkpoint"].iloc[0],
            "rows_identity": group["rows"].iloc[0], "older": older,
            "points": [{"release": _release(r), "date": r["date"], "url": report_url(r["report"]),
                        "difference": fmt.measure_difference(r["difference"], r["unit"]),
                        "interval": fmt.measure_interval(r["low"], r["high"], r["unit"]),
                        "resolved": "resolved" if r["resolved"] else "not resolved",
                        "different_days": bool(r["different_days"])} for _, r in group.iterrows()]})
    return {"speed": speed_rows, "kv": kv_rows, "startup": startup_rows, "precision": precision_rows,
            "band": f"\u00b1{band * 100:g}%", "scale": fmt.number_range(scale[0], scale[1], 1, "x")}
