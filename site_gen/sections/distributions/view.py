"""Distributions' view: per load point (matched, or one side's alone), an empirical distribution
(ECDF) of each latency metric on both sides with p50, p90, p95 and p99 marked and its values as a
table; each side's token counts and every-gap inter-token latency. Drawn from the serving
section's analysis; the Latency page holds the percentiles' intervals and the verdicts."""
from __future__ import annotations

from typing import Any

import numpy as np

from site_gen.render import plots, views
from site_gen.render.provenance import Fig
from site_gen.sections.serving.analysis import QUANTILES
from site_gen.sections.serving.analysis.points import METRIC_LABELS, METRIC_SHORT, PERCENTILES
from site_gen.sections.serving.view import anchor, itl_note, names
from site_gen.sections.serving.view import tables as t
from site_gen.sections.contract import ViewPart


def _groups(s, n: dict) -> list[dict[str, Any]]:
    """The load points drawn: each matched pair, then each side's load point the other side lacks."""
    out = [{"points": {"baseline": m["baseline"], "candidate": m["candidate"]}, "workload": m["workload"],
            "anchor": anchor("at", m["workload"], m["load"]),
            "title": f"{m['workload']} · {m['load']}", "latency": anchor("at", m["workload"], m["load"])} for m in s.matched]
    matched = {(role, m[role]) for m in s.matched for role in ("baseline", "candidate")}
    out += [{"points": {r["role"]: r["point"]}, "workload": r["workload"], "anchor": anchor(r["role"], r["workload"], r["load"]),
             "title": f"{n[r['role']]} · {r['workload']} · {r['load']}", "latency": anchor(r["role"], r["workload"], r["load"])}
            for r in views.rows(s.points) if (r["role"], r["point"]) not in matched]
    return out


def view(a) -> dict[str, Any] | None:
    s = a.of("serving")
    if s is None:
        return None
    n = names(a)
    groups = []
    for g in _groups(s, n):
        if not any((role, p) in s.samples for role, p in g["points"].items()):
            continue
        groups.append({**g, "tokens": t.tokens_rows(s, list(g["points"]), g["points"], n),
                       "gaps": t.gaps_rows(s, g["points"], n),
                       # The charts' tables (drawn by page_context): here too, so the Numbers page lists their figures.
                       "quantiles": [table for metric in s.metrics if (table := _quantile_table(s, g["points"], metric, n))]})
    return {"groups": groups, "names": n, "two_sided": "baseline" in s.roles, "itl_note": itl_note(s, a.band, "here")}


def page_context(a, ctx: dict) -> None:
    s = a.of("serving")
    if s is None or not ctx.get("distributions"):
        return
    ctx["distribution_charts"] = views.once(a, ("serving distributions",), lambda: _charts(a, s))


def _charts(a, s) -> dict[str, list[dict[str, Any]]]:
    n = names(a)
    pct: dict[tuple, dict[int, float]] = {}
    for r in views.rows(s.percentiles):
        pct.setdefault((r["role"], r["point"], r["metric"]), {})[r["percentile"]] = r["value"]
    out: dict[str, list[dict[str, Any]]] = {}
    groups = _groups(s, n)
    # Every load of a workload on one latency axis per metric: its tail moves right as the load grows.
    shared: dict[tuple[str, str], tuple[float, float]] = {}
    for g in groups:
        for role, p in g["points"].items():
            for metric, v in s.samples.get((role, p), {}).items():
                if v.size:
                    lo, hi = shared.get((g["workload"], metric), (float(v[0]), float(v[-1])))
                    shared[g["workload"], metric] = (min(lo, float(v[0])), max(hi, float(v[-1])))
    for g in groups:
        charts = []
        for metric in s.metrics:
            series = [{"role": role, "label": n[role], "values": s.samples[role, p][metric],
                       "percentiles": pct.get((role, p, metric), {})}
                      for role, p in g["points"].items()
                      if (role, p) in s.samples and s.samples[role, p].get(metric, np.array([])).size]
            if not series:
                continue
            chart = plots.tail(series, PERCENTILES, shared.get((g["workload"], metric)))
            p50, p99 = ([t.ms_unit(s["percentiles"].get(q, float("nan"))) for s in series] for q in (50, 99))
            chart.update(id=f"{g['anchor']}-{metric}", table=_quantile_table(s, g["points"], metric, n),
                         summary=f"p50 {' and '.join(p50)}, p99 {' and '.join(p99)} ({' and '.join(s['label'] for s in series)})",
                         title=f"{METRIC_LABELS[metric][0].upper()}{METRIC_LABELS[metric][1:]} ({METRIC_SHORT[metric]})",
                         short=METRIC_SHORT[metric])
            charts.append(chart)
        out[g["anchor"]] = charts
    return out


def _quantile_table(s, points: dict[str, str], metric: str, n: dict) -> dict[str, Any] | None:
    """The distribution's text equivalent: each side's value at a few shares of its requests (the
    analysis' `quantiles`), each saying which values it was read from."""
    at = {(r["role"], r["point"]): r for r in views.rows(s.points)}
    rows = []
    for role, p in points.items():
        found = s.quantiles.get((role, p, metric))
        if found is None:
            continue
        values, size = found
        where = at[role, p]
        column = f"{where['path']}.repeats[{0 if where['repeats'] == 1 else '*'}].requests.{metric}_ms"
        # As the Latency page words a percentile of the rows (serving/view/tables.py value_fig): one figure, one row.
        of = f"{size:,} measured {METRIC_SHORT[metric]}s"
        rows.append({"side": n[role], "n": f"{size:,}",
                     "cells": [Fig(t.ms(v), dense=True, detail=f"in {column}" + ("" if q == 100 else " (numpy's linear percentile)"),
                                   how=(f"highest of {of}" if q == 100 else f"p{q} of {of}"))
                               for q, v in zip(QUANTILES, values)]})
    return {"columns": [("max" if q == 100 else f"p{q}") for q in QUANTILES], "rows": rows} if rows else None


PART = ViewPart(view=view, page_context=page_context)
