"""Chart geometry and specs: inline SVG ratio bars, the precision forest plot, Plotly figures.

Positions are mapped onto fixed scales here so that templates only place what they are given.
"""
from __future__ import annotations

import html
import math
from typing import Any

import pandas as pd

from site_gen.analysis.verdict import verdict_of
from site_gen.render import format as fmt, views

BAR_WIDTH = 200.0


def _x(value: float, low: float, high: float, width: float = BAR_WIDTH) -> float:
    return round((min(max(value, low), high) - low) / (high - low) * width, 2)


def ratio_bar(ratio: float, verdict: str, scale: tuple[float, float], band: float) -> dict[str, Any]:
    """One ratio on the fixed scale: a bar from 1.0 to the ratio, the band shaded, clipped ends marked."""
    low, high = scale
    one, at = _x(1.0, low, high), _x(ratio, low, high)
    return {
        "width": BAR_WIDTH,
        "band_x": _x(1.0 - band, low, high), "band_w": round(_x(1.0 + band, low, high) - _x(1.0 - band, low, high), 2),
        "one": one, "bar_x": min(one, at), "bar_w": max(round(abs(at - one), 2), 1.0), "at": at,
        "verdict": verdict, "clipped_low": ratio < low, "clipped_high": ratio > high,
        "label": f"{fmt.speed_ratio(ratio, band)}, {verdict}" + (" (beyond the scale)" if not low <= ratio <= high else ""),
    }


RANGE_KINDS = {"above": "every ratio faster", "within": "every ratio level", "below": "every ratio slower",
               "straddles": "ratios on both sides of a band edge"}


def range_kind(lo: float, hi: float, band: float) -> str:
    """What a min–max span says against the noise band: wholly above it, within it, below it, or
    across an edge (then its cells do not share one verdict)."""
    ends = {verdict_of(lo, band), verdict_of(hi, band)}
    if len(ends) == 1:
        return {"faster": "above", "level": "within", "slower": "below"}[ends.pop()]
    return "straddles"


def range_bar(lo: float, hi: float, scale: tuple[float, float], band: float) -> dict[str, Any]:
    """A min–max span on the same fixed scale as the cell bars, coloured by `range_kind`; each end
    beyond the scale is marked (a span can leave it on both sides)."""
    low, high = scale
    a, b = _x(lo, low, high), _x(hi, low, high)
    kind = range_kind(lo, hi, band)
    beyond = [side for side, out in (("low", lo < low), ("high", hi > high)) if out]
    return {
        "width": BAR_WIDTH,
        "band_x": _x(1.0 - band, low, high), "band_w": round(_x(1.0 + band, low, high) - _x(1.0 - band, low, high), 2),
        "one": _x(1.0, low, high), "bar_x": a, "bar_w": max(round(b - a, 2), 2.0),
        "kind": kind, "clipped_low": "low" in beyond, "clipped_high": "high" in beyond, "band_text": f"\u00b1{band * 100:g}%",
        "label": f"from {fmt.speed_ratio(lo, band)} to {fmt.speed_ratio(hi, band)}, {RANGE_KINDS[kind]}"
                 + (f" ({' and '.join(beyond)} end beyond the scale)" if beyond else ""),
    }


# The scale's axis holds at most this many ticks, whatever `ratio_scale` is (a scale of [0.5, 100000]
# at 0.2 a step was half a million ticks: seconds and a gigabyte for one line of labels).
MAX_SCALE_TICKS = 11


def scale_ticks(scale: tuple[float, float], step: float = 0.2) -> list[dict[str, Any]]:
    """Ticks every `step` from the scale's low end; on a scale too wide for that, at most
    MAX_SCALE_TICKS at round steps (multiples of 1, 2, 2.5 or 5 times a power of ten)."""
    low, high = scale
    n = int(round((high - low) / step))
    if n < MAX_SCALE_TICKS:
        return [{"x": _x(low + i * step, low, high), "label": f"{low + i * step:.1f}"} for i in range(n + 1)]
    step = _nice_step(high - low)
    first = math.ceil(low / step)
    values = [k * step for k in range(first, first + MAX_SCALE_TICKS) if k * step <= high * (1 + 1e-12)]
    digits = 0 if step >= 1 else 1 if step >= 0.1 else 2
    return [{"x": _x(v, low, high), "label": f"{v:,.{digits}f}"} for v in values]


def _nice_step(span: float) -> float:
    raw = span / 4
    power = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if raw <= m * power:
            return m * power
    return 10 * power


def forest(table: pd.DataFrame) -> list[dict[str, Any]]:
    """One facet per measure (own axis: measures do not share a unit or a level), rows per checkpoint.

    Oriented values: right of zero always means the candidate is further from the reference.
    """
    facets = []
    width, right = 360.0, 34.0
    measures: dict[Any, list[dict[str, Any]]] = {}  # paired rows by measure, in the table's order
    for r in views.rows(table):
        if r["paired"]:
            measures.setdefault(r["measure"], []).append(r)
    # The row labels' column is as wide as the longest label needs (11 px type, ~6.6 px a character),
    # up to 40% of the chart; a longer label is cut at its end with an ellipsis, never at the chart's
    # left edge, and its whole text is its tooltip.
    longest = max((len(str(r["checkpoint"])) for group in measures.values() for r in group), default=0)
    left = min(max(70.0, round(12 + 6.6 * longest, 1)), width * 0.4)
    fits = int((left - 12) / 6.6)
    plot_w = width - left - right
    for measure, group in measures.items():
        # NaN left out, as pandas' min and max leave it
        lo = min(0.0, *(v for r in group if (v := r["oriented_low"]) == v))
        hi = max(0.0, *(v for r in group if (v := r["oriented_high"]) == v))
        step = _nice_step(hi - lo or 1.0)
        lo, hi = math.floor(lo / step) * step, math.ceil(hi / step) * step
        hi = max(hi, lo + step)  # every interval [0, 0]: an axis one step wide, not zero
        unit = group[0]["unit"]
        digits = 2 if unit == "percent" else 4

        def x(v: float) -> float:
            return round(left + (v - lo) / (hi - lo) * plot_w, 2)

        rows = []
        for i, r in enumerate(group):
            y = 18 + i * 22
            name = str(r["checkpoint"])
            rows.append({"y": y, "checkpoint": r["checkpoint"], "short": name if len(name) <= fits else name[:fits - 1] + "\u2026",
                         "x_lo": x(r["oriented_low"]), "x_hi": x(r["oriented_high"]),
                         "x": x(r["oriented"]), "resolved": bool(r["resolved"]),
                         "label": f"{r['checkpoint']}: {fmt.measure_difference(r['difference'], unit)} "
                                  f"{fmt.measure_interval(r['low'], r['high'], unit)}"})
        # The axis is drawn in oriented units (right = further) but labelled in the measured
        # difference the table shows: on a flipped measure a tick at +0.2 oriented is a −0.2 difference.
        flipped = group[0]["further"] == "lower"
        ticks = []
        n = int(round((hi - lo) / step))
        for i in range(n + 1):
            v = lo + i * step
            shown = -v if flipped else v
            ticks.append({"x": x(v), "label": fmt.signed(shown, digits) if abs(v) > 1e-12 else "0"})
        facets.append({"measure": measure, "label": group[0]["label"], "unit": "pts" if unit == "percent" else unit,
                       "flipped": flipped,
                       "width": width, "height": 18 + len(rows) * 22 + 24, "zero": x(0.0), "rows": rows,
                       "ticks": ticks, "axis_y": 18 + len(rows) * 22 - 6, "plot_left": left, "plot_right": width - right})
    return facets


def _cell_label(workload: str, input_tokens, concurrency) -> str:
    """`chat · 32K in · ×4`; a cell whose receipt gives no input size (schema 1.1) says so."""
    size = f"input {fmt.NOT_MEASURED}" if pd.isna(input_tokens) else f"{fmt.tokens_k(input_tokens)} in"
    return f"{html.escape(workload)} · {size} · ×{concurrency}"


def _short_labels(cells: list[tuple]) -> dict[str, str]:
    """Each row's label as drawn beside the chart: only the parts that tell its rows apart (a part
    every row shares, such as "input not measured" on every cell, says nothing there and would crowd
    out the workload's name), streams in words. The full label stays the point's hover text."""
    workloads, sizes, streams = (set(part) for part in zip(*[(w, i if i == i else None, c) for _, w, i, c in cells])) \
        if cells else (set(), set(), set())
    out = {}
    for label, w, i, c in cells:
        parts = [html.escape(w)] if len(workloads) > 1 or (len(sizes) <= 1 and len(streams) <= 1) else []
        if len(sizes) > 1:
            parts.append(f"input {fmt.NOT_MEASURED}" if pd.isna(i) else f"{fmt.tokens_k(i)} in")
        if len(streams) > 1:
            parts.append(f"{c} stream" if c == 1 else f"{c} streams")
        out[label] = " · ".join(parts) or html.escape(w)
    return out


def speed_figure(cells: pd.DataFrame, checkpoint: str, scale: tuple[float, float], band: float,
                 candidate: str, baseline: str) -> dict[str, Any]:
    """Plotly spec (plain dicts) of every cell of one checkpoint, both metrics, on the fixed scale.

    Colours are left to the page script so the chart follows the light or dark theme; metrics
    differ by marker shape as well as colour. Text from receipts is HTML-escaped for hover labels.
    """
    low, high = scale
    # The checkpoint's cells as plain values, read once: (metric, label, ratio, verdict).
    group = [(m, _cell_label(w, i, c), r, v) for cp, m, w, i, c, r, v in zip(
        *(cells[k].tolist() for k in ("checkpoint", "metric", "workload", "input_tokens", "concurrency", "ratio", "verdict")))
        if cp == checkpoint]
    labels = list(dict.fromkeys(label for _, label, _, _ in group))
    parts = {label: (w, i, c) for cp, w, i, c in zip(*(cells[k].tolist() for k in ("checkpoint", "workload", "input_tokens", "concurrency")))
             if cp == checkpoint for label in (_cell_label(w, i, c),)}
    short = _short_labels([(label, *parts[label]) for label in labels])
    traces = []
    for metric, symbol in (("aggregate", "circle"), ("decode", "diamond")):
        part = [cell for cell in group if cell[0] == metric]
        if not part:
            continue
        y = [label for _, label, _, _ in part]
        x = [round(min(max(r, low), high), 4) for _, _, r, _ in part]
        symbols = [f"triangle-{'right' if r > high else 'left'}" if not low <= r <= high else symbol for _, _, r, _ in part]
        text = [f"{fmt.speed_ratio(r, band)} · {v}" + (" (beyond the scale)" if not low <= r <= high else "")
                for _, _, r, v in part]
        traces.append({
            "type": "scatter", "mode": "markers", "name": "aggregate" if metric == "aggregate" else "clean decode",
            "x": x, "y": y, "text": text, "hovertemplate": "%{y}<br>%{text}<extra>%{fullData.name}</extra>",
            "marker": {"symbol": symbols, "size": 10, "line": {"width": 1}},
            "meta": {"role": metric},
        })
    return {
        "data": traces,
        "layout": {
            "height": 120 + 22 * len(labels),
            # Room for the longest row label (~6.6 px a character at 12 px, as `forest`); the page
            # script gives the labels at most 42% of a wide chart, half of a narrow one, and
            # shortens a label only past that.
            "margin": {"l": max(120, min(320, round(16 + 6.6 * max((len(short[label]) for label in labels), default=0)))),
                       "r": 20, "t": 10, "b": 40},
            "xaxis": {"range": [low, high], "title": {"text": f"{html.escape(candidate)} / {html.escape(baseline)}"},
                      "zeroline": False, "fixedrange": False},
            "yaxis": {"categoryorder": "array", "categoryarray": labels[::-1], "automargin": True,
                      "tickvals": labels, "ticktext": [short[label] for label in labels]},
            "shapes": [
                {"type": "rect", "xref": "x", "yref": "paper", "x0": 1 - band, "x1": 1 + band, "y0": 0, "y1": 1,
                 "line": {"width": 0}, "layer": "below", "meta": "band"},
                {"type": "line", "xref": "x", "yref": "paper", "x0": 1, "x1": 1, "y0": 0, "y1": 1, "meta": "one"},
            ],
            "legend": {"orientation": "h", "y": -0.12},
            "hovermode": "closest",
        },
        "config": {"displaylogo": False, "responsive": True},
    }
