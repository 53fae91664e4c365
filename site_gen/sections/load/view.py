"""Load's view: per sweep (a workload's load points, lightest first) the curves of throughput and
latency percentiles for both sides, with the saturation point and the objectives drawn; the table
that holds every value the curves draw; the throughput ratios; the objectives and goodput; the
heaviest load meeting every objective. Drawn from the serving section's analysis."""
from __future__ import annotations

import math
from typing import Any

from site_gen.render import format as fmt, plain, plots, views
from site_gen.render.provenance import Fig, Parts
from site_gen.sections.serving.analysis.load import SATURATION, THROUGHPUT_LABELS, THROUGHPUTS
from site_gen.sections.contract import ViewPart
from site_gen.sections.serving.view import charts as charts_, itl_note
from site_gen.sections.serving.view.sweeps import capacity_lines, missed, saturation_of
from site_gen.sections.serving.view.tables import (GLYPHS, THROUGHPUT_DIGITS, column_label, interval_figs, ms, no_interval_why,
                                                   objective_text, ratio_text, row_seconds, throughput_how, value_fig)

CURVE_PERCENTILES = (50, 99)


def _names(a) -> dict[str, str]:
    return {"baseline": a.report.baseline.name, "candidate": a.report.candidate.name}


def _anchor(*parts: str) -> str:
    return "-".join("".join(ch if ch.isalnum() else "-" for ch in p.lower()).strip("-") for p in parts)


def _number(v: float, digits: int = 1) -> str:
    return fmt.grouped(v, digits)


def view(a) -> dict[str, Any] | None:
    s = a.of("serving")
    if s is None:
        return None
    n = _names(a)
    points = {(r["role"], r["point"]): r for r in views.rows(s.points)}
    tp = {(r["role"], r["point"], r["metric"]): r for r in views.rows(s.throughput)}
    pct = {(r["role"], r["point"], r["metric"], r["percentile"]): r for r in views.rows(s.percentiles)}
    good = {(r["role"], r["point"]): r for r in views.rows(s.goodput)} if s.goodput is not None else {}
    keys = list(dict.fromkeys(k for role in s.roles for k in s.curves[role]))
    sweeps = []
    for key in keys:
        ids = {role: s.curves[role].get(key, []) for role in s.roles}
        sweeps.append({"anchor": _anchor("sweep", *key), "title": f"{key[0]}" + (", by concurrency" if key[1] == "concurrency" else ""),
                       "axis": "requests in flight at most" if key[1] == "concurrency" else "request rate aimed at (req/s)",
                       "saturation": _saturation(s, key, n), "missed": missed(s, key, n),
                       "rows": _rows(s, ids, points, tp, pct, good, n)})
    return {"two_sided": "baseline" in s.roles, "names": n, "sweeps": sweeps, "per_gpu": s.per_gpu,
            "gpus": charts_.gpus_text(s, n),
            "throughput_cells": _throughput_cells(s, a.band, n, points), "band": f"±{a.band * 100:g}%",
            "objectives": [objective_text(o) for o in s.slo], "objective_rows": _objective_rows(s, points, pct, n),
            "goodput": [_goodput_row(r, points, n, s.bootstrap) for r in views.rows(s.goodput)] if s.goodput is not None else [],
            "capacity": capacity_lines(s, n), "saturation_rule": f"{SATURATION:g}×",
            "columns": columns(s), "itl_note": itl_note(s, a.band)}


def _saturation(s, key: tuple[str, str], n: dict) -> list[str]:
    return [e["at"] for e in saturation_of(s, key, n)]


def _rows(s, ids: dict, points: dict, tp: dict, pct: dict, good: dict, n: dict) -> list[dict[str, Any]]:
    """The sweep's table: every value its curves draw, a row per side and load point."""
    rows = []
    # By load, then side: the two sides' figures at one load stand together.
    order = sorted(((points[role, pid]["x"], i, role, pid) for i, (role, curve) in enumerate(ids.items()) for pid in curve),
                   key=lambda k: k[:2])
    cols = [(m, q) for m in s.metrics for q in _percentiles(s, m)]
    # A column reads in seconds when any figure of it is ten seconds or more (every cell with its unit).
    seconds = [row_seconds(*(pct.get((role, pid, m, q)) for _, _, role, pid in order)) for m, q in cols]
    for _, _, role, pid in order:
        p = points[role, pid]
        row = {"side": n[role], "role": role, "load": p["load"], "repeats": int(p["repeats"]),
               "saturated": s.saturation.get((role, p["workload"])) == pid}
        for k in THROUGHPUTS:
            r = tp.get((role, pid, k))
            row[k] = _with_interval(r, THROUGHPUT_DIGITS[k], p, s.bootstrap)
        if s.per_gpu:  # the charts' axis: output tokens/s over the side's GPUs
            row["per_gpu"] = _with_interval(tp.get((role, pid, "output_tokens_per_s")), THROUGHPUT_DIGITS["output_tokens_per_s"],
                                            p, s.bootstrap, gpus=s.gpus[role], gpus_at=f"{_side_path(p)}.gpus.value")
        row["latency"] = [_latency_cell(pct.get((role, pid, m, q)), s.bootstrap, sec) for (m, q), sec in zip(cols, seconds)]
        g = good.get((role, pid))
        row["goodput"] = ({"text": _share(g, p), "sub": _share_interval(g, p, s.bootstrap),
                           "per_s": Fig(f"{g['per_s']:,.2f}", how="requests meeting every objective / duration_s",
                                        detail=f"of the runs at {p['path']}", dense=True)} if g else None)
        rows.append(row)
    return rows


def _percentiles(s, metric: str) -> tuple[int, ...]:
    return tuple(sorted({*CURVE_PERCENTILES, *(o[1] for o in s.slo if o[0] == metric)}))


def columns(s) -> list[str]:
    return [column_label(s, m, q) for m in s.metrics for q in _percentiles(s, m)]


def _side_path(p: dict) -> str:
    """The JSON path of the side a load point is of (`$.serving.sides.<role>`)."""
    return p["path"].rsplit(".load_points", 1)[0]


def _with_interval(r: dict | None, digits: int, p: dict, b, gpus: int = 1, gpus_at: str = "") -> dict[str, Any]:
    """A throughput with its interval and its runs' range; over `gpus` (read at `gpus_at`) where given."""
    if r is None or r["value"] != r["value"]:
        return {"text": fmt.MISSING, "sub": ""}
    label, runs = THROUGHPUT_LABELS[r["metric"]], int(p["repeats"])
    over = f" / {gpus} GPUs ({gpus_at})" if gpus_at else ""
    sub = Parts()
    if r["low"] == r["low"]:
        sub.append(Fig(f"{_number(r['low'] / gpus, digits)}–{_number(r['high'] / gpus, digits)}", dense=True,
                       how=f"{b.level:.0%} t interval over {runs} runs, on logs{over}", detail=f"of {label} at {p['path']}.repeats"))
    if r["spread_low"] == r["spread_low"]:
        sub += ["; runs ", Fig(f"{_number(r['spread_low'] / gpus, digits)}–{_number(r['spread_high'] / gpus, digits)}", dense=True,
                               how=f"lowest and highest of {runs} runs{over}", detail=f"of {label} at {p['path']}.repeats")]
    how, detail = throughput_how(r["metric"], p)
    return {"text": Fig(_number(r["value"] / gpus, digits), how=how + over, detail=detail, dense=True), "sub": sub}


def _latency_cell(r: dict | None, b, seconds: bool) -> dict[str, Any]:
    if r is None:
        return {"text": fmt.MISSING, "sub": ""}
    text = f"{fmt.grouped(r['value'] / 1000, 1)} s" if seconds else fmt.grouped(r["value"], 1)
    return {"text": value_fig(r, text), "sub": interval_figs(r, b, runs=False, seconds=seconds)}


def _share(g: dict, p: dict) -> Fig:
    return Fig(f"{g['share']:.1%}", how="requests meeting every objective / requests", detail=f"at {p['path']}", dense=True)


def _share_interval(g: dict, p: dict, b) -> Fig:
    return Fig(f"{g['low']:.1%}–{g['high']:.1%}", dense=True, how=f"Wilson {b.level:.0%} interval",
               detail=f"of {g['good']:,} of {g['requests']:,} requests meeting every objective at {p['path']}")


def _throughput_cells(s, band: float, n: dict, points: dict) -> list[dict[str, Any]]:
    out = []
    for c in views.rows(s.cells):
        if c["kind"] != "throughput":
            continue
        label = THROUGHPUT_LABELS[c["metric"]]
        ratio = f"{n['candidate']} / {n['baseline']} {label} at {c['load']}"
        how = f"{ratio}; " + ("one run a side, no interval: the band rule" if c["low"] != c["low"] else "95% interval: Welch's t over runs")
        side = {}
        # Each side's throughput with its kind's digits (as the sweep's table prints it), and as many
        # more as the ratio beside it needs (format.pair).
        shown = dict(zip(("baseline", "candidate"), fmt.pair(c["baseline"], c["candidate"], THROUGHPUT_DIGITS[c["metric"]],
                                                             ratio_text(c["ratio"], band), band=band)))
        for role in ("baseline", "candidate"):
            made, detail = throughput_how(c["metric"], points[role, c[f"{role}_point"]])
            side[role] = Fig(shown[role], how=made, detail=detail)
        out.append({"load": f"{c['workload']} · {c['load']}", "metric": label,
                    "baseline": side["baseline"], "candidate": side["candidate"],
                    "ratio": Fig(ratio_text(c["ratio"], band), how=how),
                    "interval": (Fig(f"{ratio_text(c['low'], band)}–{ratio_text(c['high'], band)}",
                                     how=f"{s.bootstrap.level:.0%} Welch's t interval over runs (on logs) of {ratio}")
                                 if c["low"] == c["low"] else "one run, no interval"),
                    "verdict": c["verdict"], "glyph": GLYPHS[c["verdict"]]})
    return out


def _objective_rows(s, points: dict, pct: dict, n: dict) -> list[dict[str, Any]]:
    if s.objectives is None:
        return []
    out = []
    for r in views.rows(s.objectives):
        p = points[r["role"], r["point"]]
        shown = pct.get((r["role"], r["point"], r["metric"], r["percentile"]))
        met = r["met"]
        if met is None or met != met:
            state = "no figure"
        elif r["low"] != r["low"] or r["high"] != r["high"]:
            # No interval: met or missed by the figure alone, and why it has none (never "within
            # its interval's reach": that is an interval crossing the limit).
            state = ("met" if met else "missed") + f"; no interval: {no_interval_why(shown)}"
        else:
            state = ("met" if met else "missed") + ("" if r["sure"] else ", within its interval's reach")
        out.append({"side": n[r["role"]], "load": f"{p['workload']} · {p['load']}",
                    "objective": objective_text((r["metric"], r["percentile"], r["limit"])),
                    # The objective's percentile is the side's percentile at that load: its figures, as the Latency page's.
                    "value": value_fig(shown) if r["value"] == r["value"] else ms(r["value"]),
                    "interval": interval_figs(shown, s.bootstrap, runs=False),
                    "state": state,
                    "met": bool(met) if met is not None and met == met else None})
    return out


def _goodput_row(r: dict, points: dict, n: dict, b) -> dict[str, Any]:
    p = points[r["role"], r["point"]]
    at = p["path"]
    return {"side": n[r["role"]], "load": f"{p['workload']} · {p['load']}",
            "share": _share(r, p), "interval": _share_interval(r, p, b),
            "good": Parts([Fig(f"{r['good']:,}", how="requests meeting every objective", detail=f"request by request, at {at}", dense=True),
                           " of ", Fig(f"{r['requests']:,}", how="requests", detail=f"at {at}", dense=True)]),
            "per_s": Fig(f"{r['per_s']:,.2f}", how="requests meeting every objective / duration_s", detail=f"of the runs at {at}", dense=True)}


# -- the curves (drawn for the page only) -----------------------------------------------------

def page_context(a, ctx: dict) -> None:
    s = a.of("serving")
    if s is None or not ctx.get("load"):
        return
    ctx["load_charts"] = views.once(a, ("load curves",), lambda: _curves(a, s))


def _curves(a, s) -> dict[str, list[dict[str, Any]]]:
    """Per sweep (of two loads or more on a side): each latency percentile the table shows against the
    output throughput delivered, and good requests/s against requests/s served, drawn as a study's
    (`serving/view/charts.py`), each side in its own style; a side's mark is ringed where its
    requests start to queue."""
    n = _names(a)
    points = {(r["role"], r["point"]): r for r in views.rows(s.points)}
    # Every figure a chart may read, by (role, point, figure): as {value, low, high}.
    found: dict[tuple, dict] = {(r["role"], r["point"], r["metric"]): r for r in views.rows(s.throughput)}
    found.update({(r["role"], r["point"], r["metric"], r["percentile"]): r for r in views.rows(s.percentiles)})
    if s.goodput is not None:
        found.update({(r["role"], r["point"], "good"): {"value": r["per_s"], "low": r["per_s_low"], "high": r["per_s_high"]}
                      for r in views.rows(s.goodput)})
    out: dict[str, list[dict[str, Any]]] = {}
    for key in dict.fromkeys(k for role in s.roles for k in s.curves[role]):
        anchor = _anchor("sweep", *key)
        ids = {role: s.curves[role].get(key, []) for role in s.roles if s.curves[role].get(key)}
        if all(len(c) < 2 for c in ids.values()):
            out[anchor] = []  # one load point a side: no curve to draw, the table holds it
            continue
        charts = []
        for m in s.metrics:
            for q in _percentiles(s, m):
                setups, x_title = charts_.per_gpu(_setups(s, key, ids, points, found, n, ("output_tokens_per_s",), (m, q)), s.gpus)
                c = charts_.against(setups, m, q, s.slo, x_title)
                if c:
                    charts.append({**c, "id": f"{anchor}-{m}-p{q}"})
        if s.goodput is not None:
            c = charts_.goodput(_setups(s, key, ids, points, found, n, ("requests_per_s",), ("good",)))
            if c:
                charts.append({**c, "id": f"{anchor}-goodput"})
        out[anchor] = charts
    return out


def _setups(s, key: tuple[str, str], ids: dict, points: dict, found: dict, n: dict, x: tuple, y: tuple) -> list[dict[str, Any]]:
    """Each side's curve through its loads for a chart of figure `y` against figure `x` (keys of
    `found` after the side and point), its mark ringed where its requests start to queue."""
    out = []
    for role, curve in ids.items():
        queue = s.saturation.get((role, key[0]))
        pts = []
        for pid in curve:
            fx, fy = found.get((role, pid, *x)), found.get((role, pid, *y))
            if fx is None or fy is None:
                continue
            at = points[role, pid]
            pts.append({"load": at["load"], "mark": pid == queue, "tag": "∞" if at["x"] == math.inf else f"{at['x']:g}",
                        "x": fx["value"], "x_low": fx["low"], "x_high": fx["high"], "y": fy["value"], "y_low": fy["low"], "y_high": fy["high"]})
        out.append({"key": role, "label": n[role], "style": plots.STYLES[role], "points": pts})
    return out


def csv(a) -> dict:
    s = a.of("serving")
    if s is None:
        return {}
    labels = _names(a)
    tables = {"serving-load-points": s.points.assign(side=s.points["role"].map(labels)),
              "serving-throughput": s.throughput.assign(side=s.throughput["role"].map(labels))}
    if s.objectives is not None:
        tables["serving-objectives"] = s.objectives
        tables["serving-goodput"] = s.goodput
    return tables


def headlines(a) -> list[tuple[str, str, str]]:
    """The first sweep's heaviest load meeting every objective, per side by its role (the share
    card's line holds some fifty characters: the sides' names are on the card's title)."""
    s = a.of("serving")
    if s is None or not s.capacity:
        return []
    c = s.capacity[0]
    parts = []
    sides = [(role, c[role]) for role in ("candidate", "baseline") if c.get(role) is not None]
    for role, e in sides:
        if len(sides) == 1:  # one setup: no role to tell apart, and room to say why it is unknown
            parts.append(e["load"] if e["point"] else "none" if e["known"] else "unknown (a load without a figure of an objective)")
        else:
            parts.append(f"{role} " + (e["load"] if e["point"] else "none" if e["known"] else "unknown"))
    ratio = c.get("ratio", math.nan)
    return [("Objectives met up to:", ", ".join(parts) + (f" ({ratio:.2f}×)" if ratio == ratio else ""), "accent")]


def summary(a, shown: dict | None) -> dict[str, Any] | None:
    """Its part of `sitegen summary --format json`: the objectives, each sweep's heaviest load meeting
    them (the load as the page names it, its rate or concurrency as a number) and each load point's
    goodput, shares as numbers from 0 to 1 with their Wilson intervals."""
    if not shown or not shown["objectives"]:
        return None
    s = a.of("serving")
    n = _names(a)
    points = {(r["role"], r["point"]): r for r in views.rows(s.points)}

    def side(e: dict | None) -> dict[str, Any] | None:
        if e is None:
            return None
        return {"load": e["load"] if e["point"] else None, "x": plain.number(e["x"]) if e["point"] else None,
                "heaviest_tested": bool(e["heaviest"]) if e["point"] else False, "known": bool(e["known"])}

    capacity = [{"workload": c["workload"], "axis": c["axis"], **{role: side(c.get(role)) for role in s.roles},
                 "ratio": plain.number(c.get("ratio")), "text": line["text"]}
                for c, line in zip(s.capacity, capacity_lines(s, n))]
    goodput = [{"side": n[r["role"]], "workload": points[r["role"], r["point"]]["workload"],
                "load": points[r["role"], r["point"]]["load"], "good": int(r["good"]), "requests": int(r["requests"]),
                "share": plain.number(r["share"]), "interval": plain.span(r["low"], r["high"]),
                "per_s": plain.number(r["per_s"])} for r in views.rows(s.goodput)] if s.goodput is not None else []
    return {"objectives": {"slo": [{"metric": m, "percentile": q, "limit_ms": plain.number(limit)} for m, q, limit in s.slo],
                           "rule": "met when the percentile is at most its limit, at that load and every lighter one",
                           "capacity": capacity, "goodput": goodput}}


def summary_rows(d: dict[str, Any]) -> list[tuple[str, str]]:
    if "objectives" not in d:
        return []
    o = d["objectives"]
    return [(f"Heaviest load meeting the objectives, {c['workload']}",
             c["text"] + (f" ({c['ratio']:.2f}× the load)" if c["ratio"] is not None else "")) for c in o["capacity"]]


PART = ViewPart(view=view, csv=csv, summary=summary, summary_rows=summary_rows, headlines=headlines,
                page_context=page_context)
