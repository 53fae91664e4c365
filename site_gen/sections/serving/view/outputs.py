"""Serving's lines in the other outputs, from the same counts as its page: the CSV tables, the
dashboard's cell, the share card and meta description, `sitegen summary` (JSON, text, markdown)."""
from __future__ import annotations

from typing import Any

import pandas as pd

from site_gen.analysis.verdict import INTERVAL_RULE, INTERVAL_VERDICTS, UNRESOLVED
from site_gen.render import format as fmt, plain, views
from site_gen.sections.serving.analysis.points import METRIC_SHORT

EMPTY = {k: 0 for k in (*INTERVAL_VERDICTS, "cells")}
THROUGHPUT_UNITS = {"output_tokens_per_s": "tokens/s", "requests_per_s": "requests/s"}


def counts_text(c: dict[str, int]) -> str:
    """`0 faster · 29 level · 0 slower · 19 not resolved`, as every output words it."""
    return f"{c['faster']} faster · {c['level']} level · {c['slower']} slower · {c[UNRESOLVED]} not resolved"


def csv(a) -> dict[str, pd.DataFrame]:
    s = a.of("serving")
    if s is None:
        return {}
    labels = {"baseline": a.report.baseline.name, "candidate": a.report.candidate.name}
    b = s.bootstrap
    pct = s.percentiles.assign(side=s.percentiles["role"].map(labels), resamples=b.resamples, seed=b.seed)
    pct = pct.rename(columns={"value": "value_ms", "low": "low_ms", "high": "high_ms", "spread_low": "lowest_run_ms",
                              "spread_high": "highest_run_ms"})
    tables = {"latency-percentiles": pct}
    if not s.cells.empty:
        cells = s.cells.assign(resamples=b.resamples, seed=b.seed, noise_band=s.band)
        tables["latency-ratios"] = fmt.csv_ratios(cells, "ratio", "low", "high")
    tables["serving-tokens"] = s.tokens.assign(side=s.tokens["role"].map(labels))
    if not s.gaps.empty:
        tables["inter-token-gaps"] = s.gaps
    return tables


def dashboard(a) -> dict[str, Any]:
    s = a.of("serving")
    if s is None:
        return {}
    c = s.counts.get("latency")
    if not c:
        return {"serving": {"text": f"one setup, {len(s.points)} load points", "sort": ""}}
    return {"serving": {"text": counts_text(c), "sort": f"{c['faster'] / c['cells']:.6f}" if c["cells"] else ""}}


def headlines(a) -> list[tuple[str, str, str]]:
    s = a.of("serving")
    if s is None:
        return []
    c = s.counts.get("latency")
    if not c:
        return [("Serving:", f"one setup, {len(s.points)} load points, no comparison", "level")]
    key = "faster" if c["faster"] and not c["slower"] else "slower" if c["slower"] and not c["faster"] else "level"
    return [("Latency:", counts_text(c), key)]


def card_strip(a) -> tuple[tuple, str] | None:
    """The share card's strip: every latency cell as a dot by verdict, as a speed-up (baseline time /
    candidate time: right of 1 is the candidate faster), one row per metric."""
    s = a.of("serving")
    if s is None or s.cells.empty:
        return None
    lat = s.cells[s.cells["kind"] == "latency"]
    if lat.empty:
        return None
    metrics = list(s.metrics)
    strip = tuple((1.0 / r, v, metrics.index(m)) for r, v, m in zip(lat["ratio"], lat["verdict"], lat["metric"])
                  if r == r and r > 0 and m in metrics)
    return strip, f"Every latency cell as a speed-up (baseline time / candidate time); band ±{a.band * 100:g}%:"


def _counts(c: dict[str, int]) -> dict[str, int]:
    return {"faster": c["faster"], "level": c["level"], "slower": c["slower"], "not_resolved": c[UNRESOLVED],
            "cells": c["cells"]}


def _cell(r: dict[str, Any]) -> dict[str, Any]:
    latency = r["kind"] == "latency"
    return {"workload": r["workload"], "load": r["load"], "kind": r["kind"], "metric": r["metric"],
            "percentile": plain.integer(r["percentile"]) if latency else None,
            "unit": "ms" if latency else THROUGHPUT_UNITS.get(r["metric"]), "better": "lower" if latency else "higher",
            "baseline": plain.number(r["baseline"]), "candidate": plain.number(r["candidate"]),
            "ratio": plain.number(r["ratio"]), "interval": plain.span(r["low"], r["high"]),
            "method": r["method"], "paired": bool(r["paired"]), "verdict": r["verdict"]}


def summary(a, shown: dict | None) -> dict[str, Any] | None:
    """Its part of `sitegen summary --format json`: counts, ratio ranges and every cell's figures as
    numbers (milliseconds, ratios candidate / baseline), the rule, the unit and the direction as fields."""
    if not shown:
        return None
    s = a.of("serving")
    out: dict[str, Any] = {"ratio": "candidate / baseline", "rule": INTERVAL_RULE, "noise_band": s.band,
                           "bootstrap": {"resamples": s.bootstrap.resamples, "seed": s.bootstrap.seed,
                                         "level": s.bootstrap.level}}
    if "latency" not in s.counts:
        out["one_setup"] = {"side": a.report.candidate.label, "load_points": len(s.points)}
        return {"serving": out}
    out["latency"] = {**_counts(s.counts["latency"]), "range": plain.span(*s.ranges["latency"])}
    out["by_metric"] = {m: {**_counts(s.counts[f"latency:{m}"]), "range": plain.span(*s.ranges[f"latency:{m}"])}
                        for m in s.metrics if f"latency:{m}" in s.counts}
    out["throughput"] = _counts(s.counts.get("throughput", EMPTY))
    out["cells"] = [_cell(r) for r in views.rows(s.cells)]
    return {"serving": out}


def summary_rows(d: dict[str, Any]) -> list[tuple[str, str]]:
    if "serving" not in d:
        return []
    s = d["serving"]
    if "latency" not in s:
        one = s["one_setup"]
        return [("Serving", f"one setup ({one['side']}), {one['load_points']} load points, no comparison")]
    band = s["noise_band"]

    def line(c: dict[str, Any]) -> str:
        counts = {**c, UNRESOLVED: c["not_resolved"]}
        span = c["range"]
        ratios = f"; ratios {fmt.speed_ratio_range(span['low'], span['high'], band)}" if span else ""
        return f"{counts_text(counts)} (of {c['cells']}){ratios}"

    rows = [("Latency cells", line(s["latency"]))]
    rows += [(f"Latency, {METRIC_SHORT[m]}", line(c)) for m, c in s["by_metric"].items()]
    if s["throughput"]["cells"]:
        t = {**s["throughput"], UNRESOLVED: s["throughput"]["not_resolved"]}
        rows.append(("Throughput cells", f"{counts_text(t)} (of {t['cells']})"))
    return rows


def verdict(a) -> str | None:
    """Its clause of the sentence the report opens with (site_gen/render/opening.py): the latency
    cells' verdicts by the interval rule, or a one-setup report's load points."""
    s = a.of("serving")
    if s is None:
        return None
    if "baseline" not in s.roles:
        n = len(s.points)
        return f"one setup, {n} load point{'s' if n != 1 else ''}, no comparison"
    c = s.counts.get("latency", EMPTY)
    return (f"latency {c['faster']} faster, {c['level']} level, {c['slower']} slower and {c[UNRESOLVED]} not resolved "
            f"of {c['cells']} cells (each by its whole interval)")
