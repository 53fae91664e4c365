"""The history page: each checkpoint and measure across reports, every point linking to its report.
Each section brings its parts (`HISTORY_PARTS` of its view: a kind's display rows, and its
template `history/<kind>.html`)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from site_gen.analysis import history
from site_gen.receipts.load import engine_label
from site_gen.render import format as fmt, parts, views
from site_gen.render.where import HISTORY_URL  # noqa: F401  (the page's URL, said where the others are)
from site_gen.sections import all_sections

# pandas (and numpy) are imported where a frame is made: a build that takes the page from the store
# (`made_from`) never loads them.
if TYPE_CHECKING:
    import pandas as pd

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
    return engine_label(row["candidate"], row["version"])


class Parts:
    """What each section's history part is given to make its display rows: the frames' helpers, the
    site's band and scale, the link to a report, and a memo of its own kept between builds."""

    def __init__(self, band: float, scale: tuple[float, float], report_url, memo: dict, steps: dict | None = None):
        self.band, self.scale, self.report_url, self.memo = band, scale, report_url, memo
        self.steps = steps or {}  # (series, report) -> (the release before, its changes): analysis/history.py

    def mark(self, row, phrase) -> dict[str, Any]:
        """The build's "since the build before" cell: its changes beyond noise marked and said
        (`phrase(change)` words one in the section's terms), or "within noise"."""
        step = self.steps.get((row["series"], row["report"]))
        if step is None:
            return {"text": "earlier build not shown" if int(row.get("older", 0) or 0) else "first build", "marks": [],
                    "step": False}
        previous, changes = step
        from site_gen.render import compare as compare_view  # with numpy: only when a page is made

        return {**compare_view.history_mark(_release(previous), changes, self.band, phrase), "step": True}

    def series(self, frame: pd.DataFrame) -> dict[str, list[dict[str, Any]]]:
        return _series(frame)

    def release(self, row) -> str:
        return _release(row)

    def table(self, frame: pd.DataFrame, caption: str, columns: list[tuple[str, bool]], cells) -> list[dict[str, Any]]:
        """One table per series: a row per release (newest MAX_POINTS), `cells(row)` its figures."""
        out = []
        for series, group in _series(frame).items():
            # A series holds one pair of engines: its columns name them ("{candidate} tokens").
            names = {"candidate": group[0].get("candidate", "candidate"), "baseline": group[0].get("baseline", "baseline")}
            out.append({"series": series, "caption": caption.format(series=series),
                        "columns": [(label.format(**names), num) for label, num in columns],
                        "older": int(group[0]["older"]),  # the frames keep the newest MAX_POINTS releases
                        "rows": [{"release": _release(r), "date": r["date"], "url": self.report_url(r["report"]), "cells": cells(r)}
                                 for r in group]})
        return out


def _parts() -> list[tuple[int, str, Any]]:
    """(order, kind, make) of every section's history parts (`HISTORY_PARTS` of its view), in page order."""
    found = []
    for s in all_sections():
        for kind, (order, make) in parts.view_part(s).history_parts.items():
            found.append((order, kind, make))
    return sorted(found, key=lambda p: p[0])


def made_from(reports: list) -> tuple:
    """What `context` makes the page from besides the band, the scale and the site's fixed layout
    (`report_url`): each series' rows it shows, how many it leaves out, the credits."""
    return history.shown(reports, MAX_POINTS), _credits(reports)


def _credits(reports: list) -> list[str]:
    return list(dict.fromkeys(r.attribution for r in reports if r.attribution))


def context(reports: list, band: float, scale: tuple[float, float], report_url, cache: dict | None = None,
            memo: dict | None = None) -> dict[str, Any]:
    """Display data for history.html, from the reports' records (site_gen/building/environment.py:
    their history rows and attribution). `report_url(id)` gives a report overview's link from the page.

    `cache` keeps each report's history rows between builds (keyed by receipt hash), so a preview
    rebuild after one edit recomputes that report's rows only; `memo` (kept by the caller too) keeps
    each kind's frame and display rows while the rows they are made from are the same, and what
    each part keeps of its own (the precision series' charts by their rows).
    """
    memo = {} if memo is None else memo
    frames = history.frames(reports, cache, newest=MAX_POINTS, memo=memo.setdefault("frames", {}))
    out: list[dict[str, Any]] = []
    for _, kind, make in _parts():
        hit = memo.get(("rows", kind))
        if hit is None or hit[0] is not frames[kind] or hit[1] != (band, scale, report_url):
            helper = Parts(band, scale, report_url, memo.setdefault(("part", kind), {}), history.steps(kind, frames[kind], band))
            hit = memo[("rows", kind)] = (frames[kind], (band, scale, report_url), make(frames[kind], helper))
        out.append({"kind": kind, "template": f"history/{kind}.html", "rows": hit[2]})
    # Each series the page shows (the newest MAX_POINTS builds), its change points found over those.
    from site_gen.analysis.changes import ALPHA, CONFIRM, MIN_POINTS
    from site_gen.render import series as series_view

    drawn = series_view.page_series(reports, history.shown(reports, MAX_POINTS))
    for d in drawn:
        for p in d["points"]:
            p["url"] = report_url(p["report"])

    hooks = [parts.view_part(s) for s in all_sections()]
    return {"parts": out, "credits": _credits(reports), "series": drawn, "series_min": MIN_POINTS,
            "series_rules": [h.history_series for h in hooks if h.history_series],
            "marked_in": [h.history_marks for h in hooks if h.history_marks],
            "series_alpha": f"{ALPHA:g}", "series_confirm": CONFIRM,
            "band": f"\u00b1{band * 100:g}%", "scale": fmt.number_range(scale[0], scale[1], 1, "x")}
