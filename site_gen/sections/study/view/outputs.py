"""The study's lines in the other outputs, from the same result as its pages: the CSV tables, how the
report's sides are named (the opening sentence, the dashboard, What was tested), the dashboard's cell,
the share card and meta description, `sitegen summary` (JSON, text, markdown)."""
from __future__ import annotations

from typing import Any

import pandas as pd

from site_gen.analysis.verdict import UNRESOLVED
from site_gen.render import format as fmt, plain, views
from site_gen.sections.study.analysis import THROUGHPUT, figure_key
from site_gen.sections.study.view.words import figure_label

RULE = ("faster or slower only where the difference's interval lies beyond the noise band (or, for a setup measured "
        "once, beyond the run-to-run allowance measured from the study's repeats), with the false discovery rate "
        "held to 5% over every comparison of the study (Benjamini–Hochberg); level where the interval (widened by the "
        "allowance for a setup measured once) lies inside the band; otherwise not resolved")


# Whom the colours call better: in a study, the first setup of each ratio a / b.
LEGEND = "a, the first setup of a ratio a / b"


def _names(s) -> list[str]:
    return [s.labels[x] for x in s.order]


def sides(a) -> dict[str, str] | None:
    """A study's sides as the opening sentence, the dashboard and What was tested name them."""
    s = a.of("study")
    if s is None:
        return None
    names = _names(s)
    if s.baseline:
        others = [s.labels[x] for x in s.order if x != s.baseline]
        opening = (f"{len(others)} setup{'s' if len(others) != 1 else ''} ({'; '.join(others)}) against {s.labels[s.baseline]}" if len(others) <= 3
                   else f"{len(others)} setups against {s.labels[s.baseline]}")
        return {"opening": opening, "against": a.report.baseline.long_name or s.labels[s.baseline], "legend": LEGEND}
    opening = f"a study of {len(names)} setups ({'; '.join(names)})" if len(names) <= 4 else f"a study of {len(names)} setups"
    return {"opening": opening[0].upper() + opening[1:],
            "against": f"no baseline: every pair of the {len(names)} setups is compared", "legend": LEGEND}


def _resolved(c: dict[str, int]) -> int:
    return c["faster"] + c["slower"]


def verdict(a) -> str | None:
    s = a.of("study")
    if s is None:
        return None
    c = s.counts.get("all")
    if not c:
        return f"{len(s.order)} setups, no load point they share"
    return (f"{_resolved(c)} of {c['cells']} comparisons called faster or slower (false discoveries held to "
            f"{s.fdr:.0%} over the study), {c['level']} level, {c[UNRESOLVED]} not resolved")


def leaders(s) -> list[str]:
    """The setups with a point on the frontier, best area first."""
    out: list[str] = []
    for f in s.frontiers:
        for sid in f.points[f.points["on_frontier"]]["setup"].tolist():
            if sid not in out:
                out.append(sid)
    return out


def headlines(a) -> list[tuple[str, str, str]]:
    s = a.of("study")
    if s is None:
        return []
    c = s.counts.get("all")
    out = [("Study:", f"{len(s.order)} setups × {len(s.loads)} loads: " + (
        f"{_resolved(c)} of {c['cells']} comparisons resolved" if c else "no shared load point"), "accent")]
    if s.frontiers:
        lead = leaders(s)
        out.append(("Frontier:", ", ".join(s.labels[x] for x in lead[:3]) + (" …" if len(lead) > 3 else ""), "accent"))
    return out


# The share card's strip rows (three fit above its footer): TTFT; the decode latencies and E2E; throughput.
STRIP_ROWS = {"ttft": 0, "tpot": 1, "itl": 1, "e2e": 1, THROUGHPUT: 2}


def card_strip(a) -> tuple[tuple, str] | None:
    """The share card's strip: every comparison of two setups (a / b) as a dot by its verdict, as a's
    speed-up over b (b's time / a's for a latency, a's throughput / b's: right of 1, a is faster), in
    three rows: time to first token; TPOT, ITL (where it is not TPOT) and E2E; output throughput."""
    s = a.of("study")
    if s is None or s.comparisons.empty:
        return None
    c = s.comparisons
    strip = tuple((r if m == THROUGHPUT else 1.0 / r, str(v), STRIP_ROWS[m])
                  for r, v, m in zip(c["ratio"].tolist(), c["verdict"].tolist(), c["metric"].tolist())
                  if r == r and r > 0 and m in STRIP_ROWS)
    decode = "/".join(figure_label(k, 50).split()[0] for k in ("tpot", "itl", "e2e") if k in s.metrics)
    return strip, f"Pairs a/b, a's speed-up: TTFT | {decode} | tokens/s; ±{a.band * 100:g}%:"


def csv(a) -> dict[str, pd.DataFrame]:
    s = a.of("study")
    if s is None:
        return {}
    labels = s.labels
    figures = s.figures.assign(label=s.figures["setup"].map(labels), resamples=s.bootstrap.resamples, seed=s.bootstrap.seed)
    comparisons = s.comparisons.assign(label_a=s.comparisons["a"].map(labels), label_b=s.comparisons["b"].map(labels),
                                       noise_band=s.band, fdr=s.fdr, tests=s.tests)
    tables = {"study-setups": s.setups, "study-load-points": s.points, "study-figures": figures,
              "study-comparisons": fmt.csv_ratios(comparisons, "ratio", "low", "high"),
              "study-ranks": s.ranks.assign(beaten_by=s.ranks["beaten_by"].map(lambda v: ";".join(v))),
              "study-allowances": s.allowances}
    for f in s.frontiers:
        suffix = "" if len(s.frontiers) == 1 else "-" + "".join(ch if ch.isalnum() else "-" for ch in f"{f.workload}-{f.axis}".lower())
        tables[f"study-frontier{suffix}"] = f.points.drop(columns=["tpot_path", "throughput_path"])
        tables[f"study-frontier-levels{suffix}"] = f.levels.assign(reached=f.levels["reached"].map(lambda v: ";".join(v)),
                                                                   between=f.levels["between"].map(lambda v: ";".join(v)))
        tables[f"study-frontier-areas{suffix}"] = f.areas
    if s.objectives is not None:
        tables["study-objectives"] = s.objectives
    return tables


# -- `sitegen summary` -------------------------------------------------------------------------------

def _counts(c: dict[str, int]) -> dict[str, int]:
    return {"faster": c["faster"], "level": c["level"], "slower": c["slower"], "not_resolved": c[UNRESOLVED],
            "comparisons": c["cells"]}


def summary(a, shown: dict | None) -> dict[str, Any] | None:
    """Its part of `sitegen summary --format json` (site_gen/schema/summary-output-1.schema.json, `study`)."""
    if not shown:
        return None
    s = a.of("study")
    setups = [{"id": r["setup"], "label": r["label"], "engine": r["engine"] or None, "version": r["version"] or None,
               "parallelism": r["parallelism"] or None, "gpus": plain.integer(r["gpus"]), "hardware": r["hardware"] or None,
               "runs": int(r["runs"])} for r in views.rows(s.setups)]
    out: dict[str, Any] = {
        "setups": setups, "baseline": s.baseline, "rule": RULE, "noise_band": s.band, "fdr": s.fdr,
        "method": "benjamini-hochberg", "tests": s.tests,
        "counts": _counts(s.counts.get("all", dict.fromkeys(("faster", "level", "slower", UNRESOLVED, "cells"), 0))),
        "by_figure": {k: _counts(v) for k, v in s.counts.items() if k != "all"},
        "allowances": [{"figure": figure_key(r["metric"], r["percentile"]), "load_class": r["load_class"],
                        "allowance": plain.number(r["allowance"]), "df": int(r["df"]), "setups": int(r["setups"])}
                       for r in views.rows(s.allowances) if r["measured"]],
        "comparisons": [{"workload": c["workload"], "load": c["load_label"], "figure": figure_key(c["metric"], c["percentile"]),
                         "unit": "tokens/s" if c["metric"] == THROUGHPUT else "ms",
                         "better": "higher" if c["metric"] == THROUGHPUT else "lower", "a": c["a"], "b": c["b"],
                         "ratio": plain.number(c["ratio"]), "interval": plain.span(c["low"], c["high"]), "rule": c["rule"],
                         "p_adjusted": plain.number(c["p_adjusted"]), "verdict": c["verdict"]}
                        for c in views.rows(s.comparisons)],
        "frontier": [_frontier(f) for f in s.frontiers],
    }
    if s.no_frontier:
        out["no_frontier"] = s.no_frontier
    if s.slo:
        out["capacity"] = [{"setup": c["setup"], "workload": c["workload"], "load": c["load"], "known": bool(c["known"]),
                            "heaviest_tested": bool(c["heaviest"])} for c in s.capacity]
    return {"study": out}


def _frontier(f) -> dict[str, Any]:
    return {"workload": f.workload, "axis": f.axis,
            "interactivity": "output tokens/s per user = 1000 / median TPOT (ms)",
            "throughput": "output tokens/s per GPU",
            "points": [{"setup": p["setup"], "load": p["load"], "interactivity": plain.number(p["x"]),
                        "interactivity_interval": plain.span(p["x_low"], p["x_high"]),
                        "throughput_per_gpu": plain.number(p["y"]), "throughput_interval": plain.span(p["y_low"], p["y_high"]),
                        "on_frontier": bool(p["on_frontier"])} for p in views.rows(f.points)],
            "levels": [{"interactivity": plain.number(r["level"]), "best": r["best"],
                        "best_throughput_per_gpu": plain.number(r["best_y"]), "runner_up": r["runner_up"],
                        "ratio": plain.number(r["ratio"]), "interval": plain.span(r["low"], r["high"]),
                        "separated": bool(r["separated"])} for r in views.rows(f.levels)],
            "common_range": plain.span(*f.common),
            "areas": [{"setup": r["setup"], "area": plain.number(r["area"]), "own_area": plain.number(r["own_area"])}
                      for r in views.rows(f.areas)]}


def summary_rows(d: dict[str, Any]) -> list[tuple[str, str]]:
    if "study" not in d:
        return []
    s = d["study"]
    c = s["counts"]
    names = {x["id"]: x["label"] for x in s["setups"]}
    rows = [("Study", f"{len(s['setups'])} setups: {c['faster'] + c['slower']} of {c['comparisons']} comparisons faster or "
             f"slower ({c['level']} level, {c['not_resolved']} not resolved; false discoveries held to {s['fdr']:.0%} over "
             f"{s['tests']} tested)")]
    for f in s["frontier"]:
        lead = [names[p["setup"]] for p in f["points"] if p["on_frontier"]]
        rows.append((f"Frontier, {f['workload']}", "on it: " + ", ".join(dict.fromkeys(lead))))
        for lv in f["levels"]:
            span = lv["interval"]
            rows.append((f"At {lv['interactivity']:g}+ tokens/s per user",
                         f"{names[lv['best']]} {lv['best_throughput_per_gpu']:,.1f} tokens/s per GPU, {lv['ratio']:.2f}× "
                         f"{names[lv['runner_up']]}" + (f" ({span['low']:.2f}–{span['high']:.2f}" if span else "")
                         + ("" if not span else ")" if lv["separated"] else ", not separated)")))
    if "no_frontier" in s:
        rows.append(("Frontier", "not drawn: " + s["no_frontier"]))
    return rows


# -- against another study of the same setups (`sitegen compare`) -------------------------------------

def compare_what(item) -> str:
    """`tp8, one node · sharegpt · 4 req/s · TTFT p99`, `… · output tokens/s`."""
    w = item.where
    if item.kind in ("load point", "setup"):
        return " · ".join(str(v) for v in w.values())
    metric, _, q = item.measure.partition("_p")
    what = figure_label(metric, int(q)) if item.measure != THROUGHPUT else figure_label(THROUGHPUT, 0)
    return f"{w['setup']} · {w['workload']} · {w['load']} · {what}"


def compare_value(c, v: float, signed: bool = False) -> str:
    return f"{v:+,.1f}" if signed else f"{v:,.1f}"
