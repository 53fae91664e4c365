"""The speed page's interactive chart: every cell of one checkpoint on the fixed scale, as a Plotly
spec of plain dicts (the page script draws it, in the theme's colours)."""
from __future__ import annotations

import html
from typing import Any

import pandas as pd

from site_gen.render import format as fmt


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
