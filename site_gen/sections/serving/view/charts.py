"""Serving charts of one figure against another, one curve per setup through its loads (lightest
first): latency against the output throughput the setup delivered, and good requests per second
against the requests per second it served. Both axes are measured, so every load (all at once too)
sits where it delivered, not on a category. One function for a pair's Load page and a study's
Frontier page (a pair is a study of two setups): `render/plots.py` `xy` places them, `_xy.html` draws."""
from __future__ import annotations

from typing import Any

from site_gen.render import format as fmt, plots
from site_gen.sections.serving.analysis.points import METRIC_SHORT
from site_gen.sections.serving.view.tables import ms_unit


TOTAL, PER_GPU = "output tokens/s", "output tokens/s per GPU"


def _known(*values: float) -> bool:
    return all(v == v for v in values)


def gpus_text(s: Any, n: dict[str, str]) -> str:
    """A serving analysis' sides' GPU counts in words: `8 GPUs each`, else each side's (`n`: names by role)."""
    def count(g: int) -> str:
        return f"{g} GPU{'s' if g != 1 else ''}"
    known = [r for r in s.roles if r in s.gpus]
    if len(known) > 1 and len({s.gpus[r] for r in known}) == 1:
        return f"{count(s.gpus[known[0]])} each"
    return "; ".join(f"{n[r]}: {count(s.gpus[r])}" if len(known) > 1 else count(s.gpus[r]) for r in known)


def per_gpu(setups: list[dict[str, Any]], gpus: dict[str, int]) -> tuple[list[dict[str, Any]], str]:
    """The setups' throughput axis for `against`: per GPU (each point's x and its interval divided by
    its setup's GPUs, by `key`) when every setup's GPU count is known, else the total; and its title.
    A pair's Load page and a study's Frontier page both read it so (a pair is a study of two setups)."""
    if not setups or any(st["key"] not in gpus for st in setups):
        return setups, TOTAL
    out = []
    for st in setups:
        g = gpus[st["key"]]
        out.append({**st, "points": [{**p, **{k: p[k] / g for k in ("x", "x_low", "x_high") if k in p}} for p in st["points"]]})
    return out, PER_GPU


def against(setups: list[dict[str, Any]], metric: str, q: int, slo: tuple = (),
            x_title: str = TOTAL) -> dict[str, Any] | None:
    """A latency percentile (y) against throughput (x), a curve per setup: `setups` of {key, label,
    style, points: [{load, x, x_low, x_high, y, y_low, y_high, mark?}]}; the objective on that
    percentile, if any, as a dashed line. None when no setup has a point."""
    short = f"{METRIC_SHORT[metric]} p{q}"
    series = []
    for st in setups:
        pts = [{**p, "label": f"{st['label']}, {p['load']}: {fmt.grouped(p['x'], 1)} {x_title}, {short} {ms_unit(p['y'])}"}
               for p in st["points"] if _known(p["x"], p["y"])]
        if pts:
            series.append({"key": st["key"], "label": st["label"], "style": st["style"], "points": pts})
    if not series:
        return None
    limit = next(({"value": o[2], "label": f"objective ≤ {o[2]:,g} ms", "axis": "y"} for o in slo if o[:2] == (metric, q)), None)
    chart = plots.xy(series, y_kind="ms", limit=limit)
    chart.update(x_title=x_title, y_title=short, title=f"{short} against throughput", metric=metric, percentile=q)
    return chart


def goodput(setups: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Good requests/s (y: requests meeting every objective, per second) against requests/s served (x),
    a curve per setup (`setups` as `against`'s, x and y in requests/s): where they part, requests miss
    an objective; where the curve turns down, more load serves fewer requests well."""
    series = []
    for st in setups:
        pts = [{**p, "label": f"{st['label']}, {p['load']}: {fmt.grouped(p['x'], 2)} requests/s served, "
                              f"{fmt.grouped(p['y'], 2)} good requests/s"} for p in st["points"] if _known(p["x"], p["y"])]
        if pts:
            series.append({"key": st["key"], "label": st["label"], "style": st["style"], "points": pts})
    if not series:
        return None
    chart = plots.xy(series)
    chart.update(x_title="requests/s served", y_title="good requests/s", title="Good requests/s against requests/s served")
    return chart
