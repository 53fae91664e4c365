"""Speed's lines in the other outputs: the dashboard's cell, the share card and meta description,
`sitegen summary` (JSON, text, markdown) and the history page's part."""
from __future__ import annotations

import math
from typing import Any

from site_gen.analysis.frames import missing
from site_gen.render import charts, plain, views
from site_gen.render import format as fmt
from site_gen.render.provenance import Fig
from site_gen.sections.speed.analysis import METRIC_LABELS, selections


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
    """Its part of `sitegen summary --format json`: counts, ranges and times as numbers, the rule and
    the direction (a higher rate is better; a shorter time to first token is) as fields."""
    if not shown:
        return None
    s = a.of("speed")
    counts = views.rows(s.counts)
    ranges = {(r["checkpoint"], r["selection"]): r for r in views.rows(s.ranges)}
    ttft = {r["checkpoint"]: r for r in views.rows(s.ttft)} if s.ttft is not None and not s.ttft.empty else {}
    checkpoints: dict[str, Any] = {}
    for c in shown["checkpoints"]:
        entry: dict[str, Any] = {"counts": {r["metric"]: {k: int(r[k]) for k in ("faster", "level", "slower", "cells")}
                                            for r in counts if r["checkpoint"] == c}, "ranges": {}}
        for sel in selections(a.headline_input):
            if not any(r["metric"] == sel.metric for r in counts):
                continue
            r = ranges.get((c, sel.key))
            span = plain.span(r["low"], r["high"]) if r is not None else None
            entry["ranges"][sel.key] = ({"label": sel.label, **span, "cells": int(r["cells"])}
                                        if r is not None and span else
                                        {"label": sel.label, "low": None, "high": None, "cells": 0,
                                         "why": f"no {METRIC_LABELS[sel.metric]} cell {sel.scope}"})
        if c in ttft:
            t = ttft[c]
            entry["ttft"] = {"unit": "s", "better": "lower", "baseline": plain.number(t["baseline"]),
                             "candidate": plain.number(t["candidate"]), "ratio": plain.number(t["ratio"]),
                             "workload": plain.text(t["workload"]), "input_tokens": plain.integer(t["input_tokens"]),
                             "concurrency": plain.integer(t["concurrency"])}
        checkpoints[c] = entry
    t = s.totals
    return {"speed": {
        "unit": "ratio", "ratio": "candidate rate / baseline rate", "better": "higher", "noise_band": a.band,
        "rule": "level when |ratio - 1| <= noise_band (edges included), faster above, slower below",
        "totals": {k: int(t[k]) for k in ("faster", "level", "slower", "cells")},
        # Unknown is null in every field: a receipt that counted no cell's errors has no "0 cells with errors".
        "errors": {"total": t["errors"], "cells_with_errors": t["cells_with_errors"], "cells_counted": t["cells_counted"],
                   "baseline": t["baseline_errors"], "candidate": t["candidate_errors"]},
        "checkpoints": checkpoints}}


def summary_rows(d: dict[str, Any]) -> list[tuple[str, str]]:
    """Its lines of the text and markdown summary, from its part of the JSON."""
    rows: list[tuple[str, str]] = []
    if "speed" not in d:
        return rows
    sp = d["speed"]
    band = sp["noise_band"]
    for c, e in sp["checkpoints"].items():
        for metric in ("aggregate", "decode"):
            if metric in e["counts"]:
                v = e["counts"][metric]
                rows.append((f"Speed {c}, {METRIC_LABELS[metric]}", f"{fmt.verdicts(v)} (of {v['cells']})"))
        for r in e["ranges"].values():
            label = f"{r['label'][0].lower()}{r['label'][1:]}"
            rows.append((f"Speed {c}, {label}", fmt.speed_ratio_range(r["low"], r["high"], band) if r["low"] is not None else r["why"]))
        if "ttft" in e:
            t = e["ttft"]
            where = ", ".join(x for x in (t["workload"], t["input_tokens"] and f"{fmt.tokens_k(t['input_tokens'])} input",
                                          t["concurrency"] and f"{t['concurrency']} stream{'s' if t['concurrency'] != 1 else ''}") if x)
            rows.append((f"Time to first token {c}" + (f" ({where})" if where else ""),
                         f"{fmt.seconds(t['candidate'])} vs {fmt.seconds(t['baseline'])}"))
    err = sp["errors"]
    if err["total"]:
        counted = err.get("cells_counted")
        cells = sp["totals"]["cells"]
        of = f" of the {counted} of {cells} cells that count them" if counted is not None and counted < cells else ""
        rows.append(("Speed errors", f"{err['total']} in {err['cells_with_errors']} cell{'s' if err['cells_with_errors'] != 1 else ''}{of}"
                     f" (baseline {err['baseline'] if err['baseline'] is not None else 'not counted'}, "
                     f"candidate {err['candidate'] if err['candidate'] is not None else 'not counted'})"))
    return rows


def verdict(a) -> str | None:
    """Its clause of the report's opening sentence: where the candidate is faster, level, slower."""
    s = a.of("speed")
    if s is None or not s.totals or not s.totals["cells"]:
        return None
    t = s.totals
    n = t["cells"]
    parts = {k: t[k] for k in ("faster", "level", "slower")}
    lead = max(parts, key=lambda k: (parts[k], k == "slower"))  # a tie names the loss first
    if parts[lead] == n:
        return f"{lead} in all {n} speed cells" if n != 1 else f"{lead} in the one speed cell"
    rest = ", ".join(f"{parts[w] or 'none'} {w}" for w in ("faster", "level", "slower") if w != lead)
    return f"{lead} in {parts[lead]} of {n} speed cells ({rest})"


def _history(frame, h) -> list[dict[str, Any]]:
    """Its history part: each series' median, range and verdict counts, build after build, and what
    changed since the build before."""
    def phrase(c) -> str:
        change = fmt.speed_ratio(c.change, h.band)
        digits = max(fmt.speed_digits(c.old, h.band), fmt.speed_digits(c.new, h.band))
        old, new = fmt.pair(c.old, c.new, digits, change, band=h.band, grouping=False)
        return f"median {old}x \u2192 {new}x ({change})"

    return h.table(frame, "{series}", [("Median", True), ("Range", False), ("Cells", False), ("Since the build before", False)],
                   lambda r: [
        {"text": Fig(fmt.speed_ratio(r["median"], h.band), how=f"median {r['candidate']} / {r['baseline']} over {r['cells']} "
                     f"{METRIC_LABELS.get(r['metric'], r['metric'])} cells of {r['checkpoint']}")},
        {"text": fmt.speed_ratio_range(r["low"], r["high"], h.band), "bar": charts.range_bar(r["low"], r["high"], h.scale, h.band)},
        {"text": fmt.verdicts(r)}, h.mark(r, phrase)])


HISTORY_PARTS = {"speed": (10, _history)}


# -- against an earlier build (`sitegen compare`) ------------------------------------------------

def compare_what(item) -> str:
    """A cell as the pages name it: `Q4 · chat · 32K input · 16 streams · aggregate`."""
    w = item.where
    size = f"input {fmt.NOT_MEASURED}" if missing(w.get("input_tokens")) else f"{fmt.tokens_k(w['input_tokens'])} input"
    if item.kind == "ttft":
        return f"{w['checkpoint']} · time to first token, {size}"
    streams = f"{w['concurrency']} stream{'' if w['concurrency'] == 1 else 's'}"
    return f"{w['checkpoint']} · {w['workload']} · {size} · {streams} · {METRIC_LABELS.get(w['metric'], w['metric'])}"


def compare_value(c, v: float, signed: bool = False, more: int = 0) -> str:
    """A time to first token in seconds with two decimals, a rate with one (the speed page's), and `more`."""
    return fmt.fixed(v, 2 + more) if c.kind == "ttft" else fmt.grouped(v, 1 + more)
