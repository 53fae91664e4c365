"""Speed's lines in the other outputs: the dashboard's cell, the share card and meta description,
`sitegen summary` (JSON, text, markdown) and the history page's part."""
from __future__ import annotations

import math
from typing import Any

from site_gen.render import charts, views
from site_gen.render import format as fmt
from site_gen.render.provenance import Fig
from site_gen.sections.speed.analysis import METRIC_LABELS


def dashboard(a) -> dict[str, Any]:
    """Its cell in the table of reports: the verdict counts over every cell, sorted by the share
    faster, with the aggregate range as a bar."""
    s = a.of("speed")
    if s is None:
        return {}
    t = s.totals
    cell: dict[str, Any] = {"text": fmt.verdicts(t), "sort": f"{t['faster_share']:.6f}"}
    if t["aggregate"]:
        low, high, n = t["aggregate"]
        cell["bar"] = charts.range_bar(low, high, a.scale, a.band)
        cell["bar_label"] = "aggregate"
        cell["range"] = Fig(fmt.speed_ratio_range(low, high, a.band), how=f"lowest and highest candidate / baseline over {n} aggregate cells")
    return {"speed": cell}


def headlines(a) -> list[tuple[str, str, str]]:
    """(label, text, colour key) for the share card and the page description."""
    s = a.of("speed")
    if s is None or not s.totals:
        return []
    t = s.totals
    faster, level, slower, cells = t["faster"], t["level"], t["slower"], t["cells"]
    # A verdict colour only when the cells share the side: mixed cells are no win nor loss.
    key = "better" if faster and not slower else "worse" if slower and not faster else "neutral"
    return [("Speed:", f"{faster} of {cells} cells faster, {level} level, {slower} slower", key)]


def card_strip(a) -> tuple[tuple, str] | None:
    """The share card's strip: every cell's ratio as a dot by verdict, one row per metric."""
    s = a.of("speed")
    if s is None or s.cells.empty:
        return None
    r = a.report
    metrics = list(dict.fromkeys(s.cells["metric"]))
    strip = tuple((float(row.ratio), str(row.verdict), metrics.index(row.metric))
                  for row in s.cells.sort_values(["metric", "checkpoint", "ratio"], kind="stable").itertuples()
                  if math.isfinite(row.ratio))
    return strip, f"Every speed cell, {r.candidate.name} / {r.baseline.name}; band ±{a.band * 100:g}%:"


def summary(a, shown: dict | None) -> dict[str, Any] | None:
    """Its part of `sitegen summary --format json`, from the page's own view (`shown`)."""
    if not shown:
        return None
    counts = a.of("speed").counts
    speed: dict[str, Any] = {}
    labels: dict[str, str] = {}
    for i, c in enumerate(shown["checkpoints"]):
        entry: dict[str, Any] = {}
        for row in views.rows(counts):
            if row["checkpoint"] == c:
                entry[row["metric"]] = {k: int(row[k]) for k in ("faster", "level", "slower", "cells")}
        for row in shown["range_rows"]:
            entry[row["key"]] = str(row["cells"][i]["text"])
            labels[row["key"]] = row["label"]
        if shown["ttft"] and shown["ttft"]["cells"][i]:
            t = shown["ttft"]["cells"][i]
            entry["ttft"] = {"candidate": str(t["candidate"]), "baseline": str(t["baseline"])}
        speed[c] = entry
    return {"speed": {"noise_band": shown["band"], "errors": shown["errors"], "ranges": labels, "checkpoints": speed}}


def summary_rows(d: dict[str, Any]) -> list[tuple[str, str]]:
    """Its lines of the text and markdown summary, from its part of the JSON."""
    rows: list[tuple[str, str]] = []
    if "speed" not in d:
        return rows
    for c, e in d["speed"]["checkpoints"].items():
        for metric in ("aggregate", "decode"):
            if metric in e:
                v = e[metric]
                rows.append((f"Speed {c}, {METRIC_LABELS[metric]}", f"{fmt.verdicts(v)} (of {v['cells']})"))
        for key, label in d["speed"]["ranges"].items():
            if key in e:
                rows.append((f"Speed {c}, {label[0].lower()}{label[1:]}", e[key]))
    return rows


def _history(frame, h) -> list[dict[str, Any]]:
    """Its history part: each series' median, range and verdict counts, release after release."""
    return h.table(frame, "{series}", [("Median", True), ("Range", False), ("Cells", False)], lambda r: [
        {"text": Fig(fmt.speed_ratio(r["median"], h.band), how=f"median {r['candidate']} / {r['baseline']} over {r['cells']} "
                     f"{METRIC_LABELS.get(r['metric'], r['metric'])} cells of {r['checkpoint']}")},
        {"text": fmt.speed_ratio_range(r["low"], r["high"], h.band), "bar": charts.range_bar(r["low"], r["high"], h.scale, h.band)},
        {"text": fmt.verdicts(r)}])


HISTORY_PARTS = {"speed": (10, _history)}
