"""Serving's lines in the other outputs, from the same counts as its page: the CSV tables, the
dashboard's cell, the share card and meta description, `sitegen summary` (JSON, text, markdown)."""
from __future__ import annotations

from typing import Any

import pandas as pd

from site_gen.analysis.verdict import INTERVAL_RULE, INTERVAL_VERDICTS, UNRESOLVED
from site_gen.render import format as fmt, plain, views
from site_gen.sections.serving.analysis import NO_INTERVAL
from site_gen.sections.serving.analysis.load import SATURATION, THROUGHPUT_LABELS
from site_gen.sections.serving.analysis.points import METRIC_SHORT
from site_gen.sections.serving.view.sweeps import saturation_of
from site_gen.sections.serving.view.tables import THROUGHPUT_DIGITS

EMPTY = {**dict.fromkeys((*INTERVAL_VERDICTS, "cells"), 0), **{NO_INTERVAL + k: 0 for k in (*INTERVAL_VERDICTS, "cells")}}
THROUGHPUT_UNITS = {"output_tokens_per_s": "tokens/s", "requests_per_s": "requests/s"}


def without_interval(c: dict[str, int]) -> str:
    """`4 without an interval` (`all …`), or nothing where every cell has one."""
    none = c.get(NO_INTERVAL + "cells", 0)
    return f"{'all' if none == c['cells'] else none} without an interval" if none else ""


def counts_text(c: dict[str, int], tail: bool = True) -> str:
    """`0 faster · 29 level · 0 slower · 19 not resolved`, as every output words it; with `; 4 without
    an interval` where cells have none (by the band rule alone, or not resolved for want of one)."""
    none = without_interval(c) if tail else ""
    return (f"{c['faster']} faster · {c['level']} level · {c['slower']} slower · {c[UNRESOLVED]} not resolved"
            + (f"; {none}" if none else ""))


def how_decided(c: dict[str, int]) -> str:
    """How a count's verdicts were reached: `each by its whole interval`, or which cells had no
    interval and so took the band rule on their ratio alone (one run a side, no rows) or were not
    resolved for want of one (too few requests)."""
    none = c.get(NO_INTERVAL + "cells", 0)
    few = c.get(NO_INTERVAL + UNRESOLVED, 0)
    band = none - few
    if not none:
        return "each by its whole interval"
    if band == c["cells"]:
        return "one run a side, no interval: each by the band rule on its ratio alone"
    if few == c["cells"]:
        return "none with an interval: too few requests"
    parts = [f"{c['cells'] - none} by their whole interval" if c["cells"] > none else "",
             f"{band} by the band rule alone, one run a side with no interval" if band else "",
             f"{few} not resolved for want of an interval, too few requests" if few else ""]
    return "; ".join(p for p in parts if p)


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
    # The sources' places ("path", "paths") are the pages' hovers and the Numbers page's, not columns of these tables.
    tables["serving-tokens"] = s.tokens.drop(columns=["path"]).assign(side=s.tokens["role"].map(labels))
    if not s.gaps.empty:
        tables["inter-token-gaps"] = s.gaps.drop(columns=["paths"])
    return tables


def dashboard(a) -> dict[str, Any]:
    s = a.of("serving")
    if s is None:
        return {}
    c = s.counts.get("latency")
    if not c:
        return {"serving": {"text": f"one setup, {len(s.points)} load point{'s' if len(s.points) != 1 else ''}", "sort": ""}}
    share = s.share("latency", "faster")
    return {"serving": {"text": counts_text(c), "sort": f"{share:.6f}" if share == share else ""}}


def headlines(a) -> list[tuple[str, str, str]]:
    s = a.of("serving")
    if s is None:
        return []
    c = s.counts.get("latency")
    if not c:
        return [("Serving:", f"one setup, {len(s.points)} load point{'s' if len(s.points) != 1 else ''}, no comparison", "level")]
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


def _counts(c: dict[str, int]) -> dict[str, Any]:
    """A count as JSON: each verdict, and of each the cells without an interval (`no_interval`)."""
    def of(prefix: str) -> dict[str, int]:
        return {"faster": c.get(prefix + "faster", 0), "level": c.get(prefix + "level", 0), "slower": c.get(prefix + "slower", 0),
                "not_resolved": c.get(prefix + UNRESOLVED, 0), "cells": c.get(prefix + "cells", 0)}
    return {**of(""), "no_interval": of(NO_INTERVAL)}


def from_json(c: dict[str, Any]) -> dict[str, int]:
    """A JSON count (`_counts`) as the analysis keys it, for the words above."""
    out = {"faster": c["faster"], "level": c["level"], "slower": c["slower"], UNRESOLVED: c["not_resolved"], "cells": c["cells"]}
    none = c.get("no_interval") or {}
    out.update({NO_INTERVAL + k: none.get(j, 0) for k, j in (("faster", "faster"), ("level", "level"), ("slower", "slower"),
                                                             (UNRESOLVED, "not_resolved"), ("cells", "cells"))})
    return out


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
    # Where each sweep saturates (the Load page's), on each side that ran it at two loads or more.
    names = {"baseline": a.report.baseline.name, "candidate": a.report.candidate.name}
    sweeps = []
    for key in dict.fromkeys(k for role in s.roles for k in s.curves[role]):
        found = saturation_of(s, key, names)
        if found:
            sweeps.append({"workload": key[0], "axis": key[1],
                           **{e["role"]: {"load": e["load"], "x": plain.number(e["x"])} for e in found},
                           "text": "; ".join(e["at"] for e in found)})
    out["saturation"] = {"rule": f"from the lightest load whose median TTFT is more than {SATURATION:g}x that of the sweep's "
                                 "lightest load; load null: not within the loads tested", "sweeps": sweeps}
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
    saturation = [(f"Saturation, {w['workload']}" + (", by concurrency" if w["axis"] == "concurrency" else ""), w["text"])
                  for w in (s.get("saturation") or {}).get("sweeps", [])]
    if "latency" not in s:
        one = s["one_setup"]
        points = f"{one['load_points']} load point{'s' if one['load_points'] != 1 else ''}"
        return [("Serving", f"one setup ({one['side']}), {points}, no comparison")] + saturation
    band = s["noise_band"]

    def line(c: dict[str, Any]) -> str:
        span = c["range"]
        ratios = f"; ratios {fmt.speed_ratio_range(span['low'], span['high'], band)}" if span else ""
        counts = from_json(c)
        none = without_interval(counts)
        return f"{counts_text(counts, tail=False)} (of {c['cells']}{'; ' + none if none else ''}){ratios}"

    rows = [("Latency cells", line(s["latency"]))]
    rows += [(f"Latency, {METRIC_SHORT[m]}", line(c)) for m, c in s["by_metric"].items()]
    if s["throughput"]["cells"]:
        t = from_json(s["throughput"])
        none = without_interval(t)
        rows.append(("Throughput cells", f"{counts_text(t, tail=False)} (of {t['cells']}{'; ' + none if none else ''})"))
    return rows + saturation


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
            f"of {c['cells']} cells ({how_decided(c)})")


# -- against an earlier release (`sitegen compare`) ----------------------------------------------

def compare_what(item) -> str:
    """`sharegpt · 4 req/s · TTFT p99`, `sharegpt · all at once · output tokens/s`."""
    w = item.where
    place = f"{w['workload']} · {w['load']}"
    if item.kind == "latency":
        metric, q = item.measure.rsplit("_p", 1)
        return f"{place} · {METRIC_SHORT.get(metric, metric)} p{q}"
    if item.kind == "throughput":
        return f"{place} · {THROUGHPUT_LABELS.get(item.measure, item.measure)}"
    return place


def compare_value(c, v: float, signed: bool = False, more: int = 0) -> str:
    """A latency in ms with one decimal, a throughput with its kind's (the Load page's), and `more`."""
    return fmt.grouped(v, (1 if c.kind == "latency" else THROUGHPUT_DIGITS.get(c.measure, 2)) + more)
