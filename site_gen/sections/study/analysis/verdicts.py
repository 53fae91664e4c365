"""Every pair of setups compared at every load point they share, figure by figure: the ratio, its
interval, its p-value against the band (or the run-to-run allowance, for a setup run once), the
verdicts held to a false discovery rate over the whole study (Benjamini–Hochberg), and the ranks."""
from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from site_gen.analysis.verdict import INTERVAL_VERDICTS, UNRESOLVED
from site_gen.sections.study.analysis import stats
from site_gen.sections.study.analysis.figures import BELOW, COMPARED, SATURATED, THROUGHPUT, Fig

if TYPE_CHECKING:
    from site_gen.sections.study.analysis.points import Load

# The rule a comparison was judged by.
RULE_RUNS, RULE_ALLOWANCE, RULE_BAND = "repeats", "allowance", "band"
COMPARISON_COLUMNS = ["load", "workload", "load_label", "metric", "percentile", "a", "b", "value_a", "value_b", "ratio",
                      "low", "high", "se", "df", "rule", "load_class", "allowance", "up", "down", "p", "p_adjusted",
                      "verdict", "better", "path_a", "path_b"]
RANK_COLUMNS = ["load", "metric", "percentile", "setup", "value", "rank", "tied", "beaten_by"]


def pairs(order: list[str], baseline: str | None) -> list[tuple[str, str]]:
    """(a, b) of every pair, read as a / b: each setup against the baseline, and each later setup
    against each earlier one."""
    others = [s for s in order if s != baseline]
    out = [(s, baseline) for s in others] if baseline else []
    return out + [(others[j], others[i]) for i, j in itertools.combinations(range(len(others)), 2)]


def compare(result_loads: list[Load], figs: dict[tuple, Fig], compared: list[tuple[str, str]], allowances: pd.DataFrame,
             band: float, metrics: tuple[str, ...]) -> list[dict]:
    allow = {(r["metric"], r["percentile"], r["load_class"]): r for r in allowances.to_dict("records") if r["measured"]}
    up_band, down_band = math.log1p(band), -math.log1p(-band)
    kinds = [(m, q) for m in metrics for q in COMPARED] + [(THROUGHPUT, 0)]
    rows = []
    for ld in result_loads:
        for metric, q in kinds:
            for a, b in compared:
                fa, fb = figs.get((a, ld.id, metric, q)), figs.get((b, ld.id, metric, q))
                if fa is None or fb is None or not (fa.value > 0 and fb.value > 0):
                    continue
                d = math.log(fa.value / fb.value)
                se, df = stats.combine(fa.se, fa.df, fb.se, fb.df)
                one_run = fa.runs == 1 or fb.runs == 1
                cls = SATURATED if SATURATED in (fa.load_class, fb.load_class) else BELOW
                up, down, a_log, rule = up_band, down_band, 0.0, RULE_RUNS
                if one_run:
                    found = allow.get((metric, q, cls))
                    if found is not None:
                        a_log = math.log1p(found["allowance"])
                        up, down, rule = max(up, a_log), max(down, a_log), RULE_ALLOWANCE
                    else:
                        rule = RULE_BAND
                lo, hi = stats.interval(d, se, df)
                rows.append({"load": ld.id, "workload": ld.workload, "load_label": ld.label, "metric": metric,
                             "percentile": q, "a": a, "b": b, "value_a": fa.value, "value_b": fb.value,
                             "ratio": math.exp(d), "low": math.exp(lo), "high": math.exp(hi), "se": se, "df": df,
                             "rule": rule, "load_class": cls, "allowance": math.expm1(a_log) if rule == RULE_ALLOWANCE else math.nan,
                             "up": math.expm1(up), "down": -math.expm1(-down), "p": stats.p_beyond(d, se, df, up, down),
                             "_d": d, "_lo": lo, "_hi": hi, "_a": a_log, "_up_band": up_band, "_down_band": down_band,
                             "path_a": fa.path, "path_b": fb.path})
    return rows


def verdicts(rows: list[dict], fdr: float) -> int:
    """Each comparison's verdict: faster or slower where Benjamini–Hochberg over every comparison with
    a p-value rejects "inside the band (or the allowance)"; level where the 95% interval, widened by
    the allowance for a one-run setup, lies wholly inside the band; else not resolved. Returns how
    many comparisons had a p-value."""
    p = np.array([r["p"] for r in rows], dtype=float)
    rejected, adjusted = stats.adjust(p, fdr)
    for r, rej, padj in zip(rows, rejected, adjusted):
        r["p_adjusted"] = float(padj)
        latency_like = r["metric"] != THROUGHPUT
        d, lo, hi, a = r["_d"], r["_lo"], r["_hi"], r["_a"]
        if r["p"] != r["p"] and lo != lo and r["se"] != r["se"] and r["metric"] == THROUGHPUT:
            # One figure a run and one run: no interval; the ratio alone against the band (or allowance).
            up, down = math.log1p(r["up"]), -math.log1p(-r["down"])
            beyond = d > up or -d > down
            lo = hi = d
            rej = beyond
        if rej:
            higher = d > 0
            r["verdict"] = ("slower" if higher else "faster") if latency_like else ("faster" if higher else "slower")
        elif lo == lo and lo - a >= -r["_down_band"] - 1e-12 and hi + a <= r["_up_band"] + 1e-12:
            r["verdict"] = "level"
        else:
            r["verdict"] = UNRESOLVED
        r["better"] = (r["a"] if r["verdict"] == "faster" else r["b"] if r["verdict"] == "slower" else "")
        for k in ("_d", "_lo", "_hi", "_a", "_up_band", "_down_band"):
            r.pop(k)
    return int((~np.isnan(p)).sum())


def ranks(comparisons: list[dict], figs: dict[tuple, Fig], loads: list[Load], order: list[str],
           metrics: tuple[str, ...]) -> list[dict]:
    """Per load point and figure, each setup's rank: 1 + the setups a verdict puts ahead of it; setups
    no verdict separates share a rank (tied)."""
    beats: dict[tuple, set[str]] = {}
    for c in comparisons:
        if c["better"]:
            loser = c["b"] if c["better"] == c["a"] else c["a"]
            beats.setdefault((c["load"], c["metric"], c["percentile"], loser), set()).add(c["better"])
    rows = []
    kinds = [(m, q) for m in metrics for q in COMPARED] + [(THROUGHPUT, 0)]
    for ld in loads:
        for metric, q in kinds:
            present = [(s, figs[s, ld.id, metric, q]) for s in order if (s, ld.id, metric, q) in figs]
            if len(present) < 2:
                continue
            ranks = {s: 1 + len(beats.get((ld.id, metric, q, s), ())) for s, _ in present}
            for s, f in present:
                rows.append({"load": ld.id, "metric": metric, "percentile": q, "setup": s, "value": f.value,
                             "rank": ranks[s], "tied": sum(1 for v in ranks.values() if v == ranks[s]) > 1,
                             "beaten_by": sorted(beats.get((ld.id, metric, q, s), ()), key=order.index)})
    return rows


def count(comparisons: pd.DataFrame) -> dict[str, dict[str, int]]:
    """Verdicts over every comparison (`all`) and per figure (`ttft_p99`, `output_tokens_per_s`)."""
    out: dict[str, dict[str, int]] = {}
    for metric, q, v in zip(comparisons["metric"].tolist(), comparisons["percentile"].tolist(), comparisons["verdict"].tolist()):
        for key in ("all", figure_key(metric, q)):
            entry = out.setdefault(key, dict.fromkeys((*INTERVAL_VERDICTS, "cells"), 0))
            entry[v] += 1
            entry["cells"] += 1
    return out


def figure_key(metric: str, q: int) -> str:
    return metric if metric == THROUGHPUT else f"{metric}_p{q}"


