"""The Frontier page's view: per sweep, every setup's interactivity and throughput per GPU with their
intervals (the chart's text equivalent), which points are on the frontier, the best setup at round
levels of interactivity with the runner-up and their ratio, each setup's area under its curve; the
charts (drawn for the page only: `page_context`), and the frontier block for author pages."""
from __future__ import annotations

import math
from typing import Any

from site_gen.render import format as fmt, plots, views
from site_gen.render.provenance import Fig
from site_gen.sections import BlockSpec
from site_gen.sections.serving.analysis.points import METRIC_SHORT
from site_gen.sections.serving.view import charts as serving_charts
from site_gen.sections.study.analysis import THROUGHPUT
from site_gen.sections.contract import ViewPart

X_HOW = "1000 / the load point's median time per output token (ms): output tokens per second that one request sees"
Y_HOW = "output tokens / duration_s / the setup's GPUs"
# Latency against throughput: these figures, each against the setup's output tokens per second.
AGAINST = (("ttft", 99), ("tpot", 50), ("e2e", 99))


def _anchor(*parts: str) -> str:
    return "-".join("".join(ch if ch.isalnum() else "-" for ch in p.lower()).strip("-") for p in parts)


def _n(v: float, digits: int = 1) -> str:
    return fmt.MISSING if v != v or math.isinf(v) else fmt.grouped(v, digits)  # a tie rounded as every figure


def _span(lo: float, hi: float, digits: int = 1) -> str:
    return "" if lo != lo or hi != hi else f"{_n(lo, digits)}{fmt.DASH}{_n(hi, digits)}"


def view(a) -> dict[str, Any] | None:
    s = a.of("study")
    if s is None:
        return None
    n = s.labels
    loads = {ld.id: ld for ld in s.loads}
    sweeps = []
    for f in s.frontiers:
        title = f.workload + (", by concurrency" if f.axis == "concurrency" else "")
        rows = []
        for p in sorted(views.rows(f.points), key=lambda r: (s.order.index(r["setup"]), loads[r["load"]].x)):
            at = f"{n[p['setup']]} at {loads[p['load']].label}"
            x_interval = _span(p["x_low"], p["x_high"])
            y_interval = _span(p["y_low"], p["y_high"])
            rows.append({"setup": n[p["setup"]], "load": loads[p["load"]].label, "on": bool(p["on_frontier"]),
                         "x": Fig(_n(p["x"]), how=X_HOW, detail=f"{at}: in {p['tpot_path']}", dense=True),
                         "x_interval": Fig(x_interval, how="1000 / the ends of the median TPOT's 95% interval",
                                           detail=at, dense=True) if x_interval else "",
                         "y": Fig(_n(p["y"]), how=Y_HOW, detail=f"{at}: in {p['throughput_path']}", dense=True),
                         "y_interval": Fig(y_interval, how="the throughput's 95% interval / the setup's GPUs", detail=at,
                                           dense=True) if y_interval else ""})
        levels = []
        for r in views.rows(f.levels):
            ratio = f"{n[r['best']]} / {n[r['runner_up']]} throughput per GPU at {r['level']:g} tokens/s per user or more"
            a_load, b_load = r["between"]
            how_read = (f"its load {a_load}, which gives every user more" if a_load == b_load else
                        f"read on its curve between its loads {a_load}, {b_load} (linear in both axes)")
            # The two throughputs with the digits their printed ratio needs (never 222.5 / 30.9 beside 7.19×).
            shown_ratio = f"{fmt.fixed(r['ratio'], 2)}×"
            runner_text, best_text = fmt.pair(r["runner_y"], r["best_y"], 1, shown_ratio, "ratio")
            levels.append({
                "level": f"{r['level']:g}", "best": n[r["best"]], "runner_up": n[r["runner_up"]],
                "best_y": Fig(best_text, how=f"{n[r['best']]}'s best at {r['level']:g} tokens/s per user or more",
                              detail=how_read, dense=True),
                "best_interval": Fig(_span(r["best_low"], r["best_high"]), how="95% interval: the throughput errors of the "
                                     "load or two loads read, t on logs", detail=ratio, dense=True)
                if r["best_low"] == r["best_low"] else "",
                "runner_y": Fig(runner_text, how=f"{n[r['runner_up']]}'s best at {r['level']:g} tokens/s per user or more",
                                dense=True),
                "ratio": Fig(shown_ratio, how=ratio, dense=True),
                "interval": Fig(f"{r['low']:.2f}–{r['high']:.2f}", how="95% interval, t on logs (Welch–Satterthwaite)",
                                detail=ratio, dense=True) if r["low"] == r["low"] else "no interval",
                "separated": bool(r["separated"]),
                "reached": len(r["reached"]), "of": len(s.order)})
        areas = []
        for r in views.rows(f.areas):
            areas.append({"setup": n[r["setup"]],
                          "area": Fig(_n(r["area"], 0), how="area under the curve over the common range (trapezoids)",
                                      detail=f"of {n[r['setup']]}'s throughput per GPU against interactivity", dense=True)
                          if r["area"] == r["area"] else fmt.MISSING,
                          "range": Fig(_span(r["x_low"], r["x_high"]), how="the interactivity its loads span", dense=True),
                          "own": Fig(_n(r["own_area"], 0), how="area under the curve over its own range", dense=True)
                          if r["own_area"] == r["own_area"] else fmt.MISSING})
        lead = list(dict.fromkeys(n[x] for x in f.points[f.points["on_frontier"]]["setup"]))
        sweeps.append({"anchor": _anchor("frontier", f.workload, f.axis), "title": title, "rows": rows, "levels": levels,
                       "areas": areas, "leaders": lead, "lightest": _lightest_end(f),
                       "common": _span(*f.common) if f.common[0] == f.common[0] else "",
                       "on": sum(1 for r in rows if r["on"]), "points": len(rows)})
    return {"why": s.no_frontier, "sweeps": sweeps, "x_how": X_HOW, "y_how": Y_HOW,
            "objectives": [f"p{o[1]} {METRIC_SHORT[o[0]]} ≤ {o[2]:,g} ms" for o in s.slo]}


def _lightest_end(f) -> str:
    """Where every curve's lightest load lies: "right" (the highest interactivity: requests see more
    tokens per second when fewer share the engine), "left", or "" where the curves differ."""
    x = {(r["setup"], r["load"]): r["x"] for r in views.rows(f.points)}
    ends = set()
    for sid, loads in f.curves.items():
        if len(loads) >= 2:
            first, last = x[sid, loads[0]], x[sid, loads[-1]]
            ends.add("right" if first > last else "left" if first < last else "")
    return ends.pop() if len(ends) == 1 else ""


# -- the charts (for the page and the frontier block) -----------------------------------------------

def page_context(a, ctx: dict) -> None:
    s = a.of("study")
    if s is None or not ctx.get("frontier"):
        return
    ctx["frontier_charts"] = views.once(a, ("frontier charts",), lambda: charts(a, s))


def charts(a, s) -> dict[str, dict[str, Any]]:
    n = s.labels
    style = {sid: plots.series_style(i) for i, sid in enumerate(s.order)}
    loads = {ld.id: ld for ld in s.loads}
    figs = {(r["setup"], r["load"], r["metric"], r["percentile"]): r for r in views.rows(s.figures)}
    gpus = {r["setup"]: int(r["gpus"]) for r in views.rows(s.setups) if r["gpus"] == r["gpus"]}
    out = {}
    for f in s.frontiers:
        key = _anchor("frontier", f.workload, f.axis)
        pts = views.rows(f.points)
        series = []
        for sid in s.order:
            mine = [p for ld in f.curves.get(sid, []) for p in pts if p["setup"] == sid and p["load"] == ld]
            if mine:
                series.append({"key": sid, "label": n[sid], "style": style[sid], "points": [
                    {"x": p["x"], "y": p["y"], "x_low": p["x_low"], "x_high": p["x_high"], "y_low": p["y_low"],
                     "y_high": p["y_high"], "mark": p["on_frontier"],
                     "label": f"{n[sid]}, {loads[p['load']].label}: {_n(p['x'])} tokens/s per user, {_n(p['y'])} tokens/s "
                              f"per GPU" + (" (on the frontier)" if p["on_frontier"] else "")} for p in mine]})
        front = [(p["x"], p["y"]) for p in pts if p["on_frontier"]]
        chart = plots.xy(series, frontier=front, width=480, height=300)
        chart.update(x_title="output tokens/s per user", y_title="output tokens/s per GPU", id=f"{key}-chart",
                     title="Throughput per GPU against interactivity")
        against = []
        for metric, q in AGAINST:
            setups = []
            for sid in s.order:
                ps = []
                for ld in f.curves.get(sid, []):
                    t, y = figs.get((sid, ld, THROUGHPUT, 0)), figs.get((sid, ld, metric, q))
                    if t is None or y is None:
                        continue
                    ps.append({"load": loads[ld].label, "x": t["value"], "y": y["value"], "x_low": t["low"], "x_high": t["high"],
                               "y_low": y["low"], "y_high": y["high"]})
                if ps:
                    setups.append({"key": sid, "label": n[sid], "style": style[sid], "points": ps})
            # The same chart as a pair's Load page draws (a pair is a study of two setups): per GPU.
            setups, x_title = serving_charts.per_gpu(setups, gpus)
            c = serving_charts.against(setups, metric, q, s.slo, x_title)
            if c is None:
                continue
            c["id"] = f"{key}-{metric}-p{q}"
            against.append(c)
        out[key] = {"frontier": chart, "against": against}
    return out


BLOCKS = {"frontier": BlockSpec("frontier", "frontier", (), "{{ frontier_block(frontier, frontier_charts, id) }}",
                                "a study's throughput per GPU against interactivity: the frontier chart and its table",
                                "frontier")}
MACROS = ("frontier_block",)


PART = ViewPart(view=view, blocks=BLOCKS, macros=MACROS, page_context=page_context)
