"""The Study page: what each setup is; how its intervals and verdicts are made (the run-to-run
allowance of one-run setups and where it came from, how many comparisons the false discovery rate is
controlled over); per load point, every setup's median and p99 latencies and throughput with their
intervals, ranks (ties where no verdict separates two setups) and the verdicts; the run-to-run spread
of every setup with repeats; the service-level objectives. Its lines in the other outputs are in
`outputs.py`."""
from __future__ import annotations

from typing import Any

from site_gen.analysis import bootstrap as bs
from site_gen.analysis.verdict import UNRESOLVED
from site_gen.render import format as fmt, views
from site_gen.render.provenance import Fig, Parts
from site_gen.sections.serving.analysis.points import METRIC_SHORT
from site_gen.sections.serving.view.tables import GLYPHS, objective_text
from site_gen.sections.study.analysis import (BELOW, COMPARED, ONE_RUN, ONE_RUN_NONE, RULE_ALLOWANCE,
                                              RULE_RUNS, RUNS, SATURATED, THROUGHPUT, figure_key)
from site_gen.sections.study.view.words import figure_label, figure_long, number
from site_gen.sections.contract import ViewPart
from site_gen.sections.study.view.outputs import (card_strip, compare_value, compare_what, csv, headlines, sides,  # noqa: F401
                                                  summary, summary_rows, verdict)

ONE_RUN_NONE_TEXT = "one run, no interval (no per-request rows)"
# A study shows every comparison on its page up to this many; beyond, the verdicts (faster, slower)
# alone, and every comparison in its CSV.
SHOWN_COMPARISONS = 300


def anchor(*parts: str) -> str:
    return "-".join("".join(ch if ch.isalnum() else "-" for ch in p.lower()).strip("-") for p in parts)


def kinds(s) -> list[tuple[str, int]]:
    """The figures a study compares, in column order."""
    return [(m, q) for m in s.metrics for q in COMPARED] + [(THROUGHPUT, 0)]


def value_fig(r: dict) -> Fig | str:
    """A setup's figure: how it was computed and from what (its JSON path on the Numbers page)."""
    text = number(r["value"], r["metric"])
    if r["value"] != r["value"]:
        return text
    what = figure_long(r["metric"], r["percentile"])
    if r["method"] == RUNS:
        how = f"geomean of {int(r['runs'])} runs"
    elif r["metric"] == THROUGHPUT:
        how = "output tokens / duration_s"
    else:
        how = f"p{r['percentile']} of {int(r['n']):,} requests"
    return Fig(text, how=how, detail=f"{what} in {r['path']} (numpy linear percentile)", dense=True)


def interval_fig(r: dict, b) -> Fig | str:
    """A setup's figure's 95% interval, saying how it was drawn; "no interval" where a run's requests
    are too few for one (a percentile needs MIN_VALUES requests and MIN_TAIL beyond it), "" where it
    has no per-request rows (its row says so)."""
    if not (r["low"] == r["low"] and r["high"] == r["high"]):
        if r["method"] == ONE_RUN_NONE and r["metric"] != THROUGHPUT and r["n"] == r["n"] and r["n"] > 0:
            return Fig("no interval", how=f"too few requests for an interval of p{r['percentile']}: {int(r['n']):,} "
                       f"measured; one needs {bs.MIN_VALUES} or more and {bs.MIN_TAIL} beyond the percentile",
                       detail=f"of {figure_long(r['metric'], r['percentile'])} in {r['path']}", dense=True)
        return ""
    of = f"of {figure_long(r['metric'], r['percentile'])} in {r['path']}"
    if r["method"] == RUNS:
        whose = "the study's pooled" if r["variance"] == "pooled" else "its own (noisier, F test)"
        how = f"t, {df_text(r['df'])} df"
        detail = f"run-to-run variance: {whose}, loads {r['load_class']}; {of}"
    else:
        how = "bootstrap, one run"
        detail = f"within-run interval only, {b.resamples:,} resamples, seed {b.seed}, {of}"
    return Fig(f"{number(r['low'], r['metric'])}{fmt.DASH}{number(r['high'], r['metric'])}", how=how, detail=detail,
               dense=True)


def runs_fig(r: dict) -> Parts:
    """The lowest and highest run of a figure with two runs or more (empty otherwise)."""
    if r["method"] != RUNS or r["spread_low"] != r["spread_low"]:
        return Parts()
    of = f"of {figure_long(r['metric'], r['percentile'])} in {r['path']}"
    return Parts(["runs ", Fig(f"{number(r['spread_low'], r['metric'])}{fmt.DASH}{number(r['spread_high'], r['metric'])}",
                               how="lowest, highest run", detail=of, dense=True)])


def _rank_text(rank: dict | None, present: int, labels: dict[str, str] | None = None, what: str = "") -> Fig | str:
    """`#1`, or `=#2` for a rank shared with another setup (tied): a figure whose hover says how it
    was counted (the setups a verdict puts ahead) and which figure and load it ranks."""
    if rank is None or present < 2:
        return ""
    ahead = [(labels or {}).get(x, x) for x in rank["beaten_by"]]
    return Fig(("=" if rank["tied"] else "") + f"#{rank['rank']}",
               how="rank: 1 + the setups a verdict puts ahead" + (f" ({'; '.join(ahead)})" if ahead else " (none)")
               + (", tied" if rank["tied"] else ""), detail=what, dense=True)


def ratio_text(v: float, band: float) -> str:
    return fmt.speed_ratio(v, band) if v == v else fmt.MISSING


def allowance_text(a: float) -> str:
    """An allowance (a ratio's bound minus 1, symmetric on logs) as a share, or as its ratio range when wide."""
    return f"±{a * 100:.1f}%" if a < 0.25 else f"{1 / (1 + a):.2f}–{1 + a:.2f}×"


def rule_text(c: dict, band: float) -> str:
    """What a comparison's interval had to clear."""
    if c["rule"] == RULE_RUNS:
        return f"band ±{band * 100:g}% (both repeated)"
    if c["rule"] == RULE_ALLOWANCE:
        if c["allowance"] > band:
            return f"allowance {allowance_text(c['allowance'])} (a setup run once)"
        return f"band ±{band * 100:g}% (a setup run once; its allowance {allowance_text(c['allowance'])} is narrower)"
    return f"band ±{band * 100:g}% (a setup run once; no repeats to measure run-to-run noise)"


def df_text(df: float) -> str:
    """Degrees of freedom as a hover says them: `4.3`, `94`, `∞` (a bootstrap's, or past a thousand)."""
    return "∞" if df != df or df > 1000 else f"{df:.2g}" if df < 10 else f"{df:.0f}"


def _held(c: dict, band: float) -> str:
    """What a comparison's interval had to clear, in a few words (a hover)."""
    if c["rule"] == RULE_ALLOWANCE and c["allowance"] > band:
        return f"beyond allowance {allowance_text(c['allowance'])}"
    return f"beyond band ±{band * 100:g}%"


def comparison_cell(c: dict, s, band: float) -> dict[str, Any]:
    """One comparison as a cell of its load point's matrix: the ratio, its interval and its verdict; what
    it was held to and its adjusted p-value on hover and on the Numbers page."""
    n = s.labels
    what = f"{figure_label(c['metric'], c['percentile'])} at {c['workload']} · {c['load_label']}"
    padj = c["p_adjusted"]
    held = _held(c, band) + (f", adjusted p {padj:.1g}" if padj == padj else ", no interval")
    has = c["low"] == c["low"]
    pair = f"{c['a']} / {c['b']} {what}"  # setup ids: the Numbers page's row, short
    return {"ratio": Fig(ratio_text(c["ratio"], band), how=held, detail=pair, dense=True),
            "interval": Fig(f"{ratio_text(c['low'], band)}{fmt.DASH}{ratio_text(c['high'], band)}",
                            how=f"t on logs, {df_text(c['df'])} df", detail=pair, dense=True) if has else "",
            "verdict": c["verdict"], "glyph": GLYPHS[c["verdict"]],
            "better": n.get(c["better"], "") if c["better"] else ""}


def reference(s, load: str, ranks: dict) -> str:
    """Whom a large study's page compares the others with at a load point: its baseline, else the setup
    with the highest output throughput there (the first of its rank)."""
    if s.baseline:
        return s.baseline
    tput = [r for (lid, m, _, _), r in ranks.items() if lid == load and m == THROUGHPUT]
    return min(tput, key=lambda r: (r["rank"], -r["value"]))["setup"] if tput else s.order[0]


def _matrix(s, mine: list[dict], cols, band: float, shown: str | None) -> list[dict[str, Any]]:
    """A load point's comparisons: a row per pair of setups (a / b), a cell per figure; every pair, or
    (`shown`: a setup) only the pairs of that setup, on a page of a large study."""
    by = {(c["a"], c["b"], c["metric"], c["percentile"]): c for c in mine}
    pairs = list(dict.fromkeys((c["a"], c["b"]) for c in mine))
    out = []
    for a, b in pairs:
        if shown is not None and shown not in (a, b):
            continue
        cells = [by.get((a, b, m, q)) for m, q in cols]
        out.append({"a": s.labels[a], "b": s.labels[b],
                    "cells": [comparison_cell(c, s, band) if c else None for c in cells]})
    return out


def view(a) -> dict[str, Any] | None:
    s = a.of("study")
    if s is None:
        return None
    n = s.labels
    band = a.band
    figs = {(r["setup"], r["load"], r["metric"], r["percentile"]): r for r in views.rows(s.figures)}
    ranks = {(r["load"], r["metric"], r["percentile"], r["setup"]): r for r in views.rows(s.ranks)}
    comps = views.rows(s.comparisons)
    cols = kinds(s)
    show_all = len(comps) <= SHOWN_COMPARISONS
    has_rows = dict(zip(s.setups["setup"], s.setups["rows"]))
    loads = []
    for ld in s.loads:
        rows = []
        for sid in s.order:
            if sid not in ld.setups:
                continue
            cells = []
            for m, q in cols:
                r = figs.get((sid, ld.id, m, q))
                present = sum(1 for o in s.order if (o, ld.id, m, q) in figs)
                if r is None:
                    cells.append({"text": fmt.MISSING, "sub": "", "runs": "", "rank": "", "first": False})
                    continue
                rk = ranks.get((ld.id, m, q, sid))
                cells.append({"text": value_fig(r), "sub": interval_fig(r, s.bootstrap), "runs": runs_fig(r),
                              "rank": _rank_text(rk, present, n, f"{figure_label(m, q)} at {ld.workload} · {ld.label}"),
                              "tied": bool(rk and rk["tied"]),
                              "first": bool(rk and rk["rank"] == 1 and not rk["tied"] and present > 1)})
            runs = max((int(r["runs"]) for (o, lid, _, _), r in figs.items() if o == sid and lid == ld.id), default=1)
            rows.append({"setup": n[sid], "baseline": sid == s.baseline, "runs": runs,
                         "method": f"{runs} runs: t over runs" if runs >= 2 else ONE_RUN if has_rows[sid] else ONE_RUN_NONE_TEXT,
                         "cells": cells})
        mine = [c for c in comps if c["load"] == ld.id]
        ref = None if show_all else reference(s, ld.id, ranks)
        loads.append({"anchor": anchor("at", ld.workload, ld.label), "title": f"{ld.workload} · {ld.label}",
                      "rows": rows, "comparisons": _matrix(s, mine, cols, band, ref),
                      "reference": n[ref] if ref else "",
                      "counts": _counts([c["verdict"] for c in mine]), "all_shown": show_all,
                      "ranking": _ranking(s, ld.id, cols, ranks, figs)})
    return {
        "setups": _setup_rows(s),
        "baseline": n.get(s.baseline) if s.baseline else None,
        "columns": [figure_label(m, q) for m, q in cols],
        "loads": loads,
        "counts": s.counts.get("all", dict.fromkeys(("faster", "level", "slower", UNRESOLVED, "cells"), 0)),
        "tests": s.tests, "untested": len(comps) - s.tests, "fdr": f"{s.fdr:.0%}", "band": f"±{band * 100:g}%",
        "pairs": len({(c["a"], c["b"]) for c in comps}), "n_setups": len(s.order), "n_loads": len(s.loads),
        "n_figures": len(cols),
        "allowances": _allowance_rows(s, band),
        "wide_allowances": _wide_allowances(s, band),
        "repeated": [n[x] for x in s.repeated], "one_run": [n[x] for x in s.order if x not in s.repeated],
        "methods": _methods(s),
        "spread": _spread_rows(s, figs, cols),
        "objectives": [objective_text(o) for o in s.slo], "capacity": _capacity_rows(s),
        "objective_rows": _objective_rows(s),
        "itl_is_tpot": s.itl_is_tpot,
        **_leaders(s, ranks),
    }


def _wide_allowances(s, band: float) -> list[str]:
    """The compared figures whose allowance is over three times the band (few repeats measured it):
    a one-run setup's comparisons there resolve only beyond it."""
    return [f"{figure_label(r['metric'], r['percentile'])}, {r['load_class']}: {allowance_text(r['allowance'])}, "
            f"{int(r['df'])} degree{'s' if r['df'] != 1 else ''} of freedom"
            for r in views.rows(s.allowances) if r["measured"] and r["allowance"] > 3 * band
            and (r["metric"] == THROUGHPUT or r["percentile"] in COMPARED)]


def _leaders(s, ranks: dict) -> dict[str, Any]:
    """The setups ranked first alone (a verdict puts them ahead of every other setup), with the number
    of figure × load cells where they are, most first; and how many cells were ranked."""
    cells = {(lid, m, q) for (lid, m, q, _) in ranks}
    first: dict[str, int] = {}
    for r in ranks.values():
        if r["rank"] == 1 and not r["tied"]:
            first[r["setup"]] = first.get(r["setup"], 0) + 1
    order = sorted(first, key=lambda x: (-first[x], s.order.index(x)))
    return {"leaders": [{"setup": s.labels[x], "cells": first[x]} for x in order], "rank_cells": len(cells)}


def _counts(verdicts: list[str]) -> dict[str, int]:
    out = dict.fromkeys(("faster", "level", "slower", UNRESOLVED), 0)
    for v in verdicts:
        out[v] += 1
    return out


def _setup_rows(s) -> list[dict[str, Any]]:
    out = []
    for r in views.rows(s.setups):
        gpus = Fig(f"{int(r['gpus'])}", path=f"{r['path']}.gpus.value") if r["gpus"] == r["gpus"] else "not recorded"
        out.append({"setup": r["label"], "id": r["setup"], "baseline": r["setup"] == s.baseline,
                    "engine": r["engine"] or "not recorded", "version": r["version"] or "not recorded",
                    "parallelism": r["parallelism"] or "not recorded", "gpus": gpus,
                    "hardware": r["hardware"] or "not recorded",
                    "runs": f"{int(r['runs'])} runs" if r["runs"] >= 2 else ONE_RUN if r["rows"] else ONE_RUN_NONE_TEXT,
                    "load_points": int(r["load_points"])})
    return out


def _allowance_rows(s, band: float) -> list[dict[str, Any]]:
    """Per figure and load class: the allowance a one-run setup is judged against, and its source."""
    out = []
    got = {(r["metric"], r["percentile"], r["load_class"]): r for r in views.rows(s.allowances)}
    if not s.allowances["measured"].any():
        return []  # nothing repeats: the page says the band stands in for every allowance
    classes = [c for c in (BELOW, SATURATED) if any(r["load_class"] == c for r in views.rows(s.points))]
    for m, q in kinds(s):
        for cls in classes:
            r = got.get((m, q, cls))
            text: Fig | str
            if r is None or not r["measured"]:
                text, source = f"±{band * 100:g}% (the band)", "no setup of this study repeats a run at these loads"
            else:
                text = Fig(allowance_text(r["allowance"]), how="t(0.975, df) × √2 × the pooled run-to-run standard "
                           "deviation of the logs: how far apart two runs of one setup may lie (95% prediction bound)",
                           detail=f"{figure_long(m, q)}, loads {cls}", dense=True)
                source = (f"the runs of {int(r['setups'])} repeated setup{'s' if r['setups'] != 1 else ''} at "
                          f"{int(r['cells'])} load point{'s' if r['cells'] != 1 else ''} ({int(r['df'])} degree"
                          f"{'s' if r['df'] != 1 else ''} of freedom)")
            out.append({"figure": figure_label(m, q), "load_class": cls, "allowance": text, "source": source})
    return out


def _methods(s) -> list[str]:
    out = []
    if s.repeated:
        own = sorted({s.labels[r["setup"]] for r in views.rows(s.figures) if r["variance"] == "own"}, key=list(s.labels.values()).index)
        out.append("Setups with two or more runs at a load point (" + ", ".join(s.labels[x] for x in s.repeated) + "): the "
                   "geometric mean of the runs' figures, with Student's t interval. Its variance is the run-to-run "
                   "variance of the logs, pooled over the study's repeated setups and their load points of the same load "
                   "class (below saturation, saturated): each run's figure holds the scatter of its requests, so the "
                   "interval holds both levels, requests inside a run and one run to the next. A setup whose own "
                   "run-to-run variance is larger than the others' (an F test at 5%) keeps its own"
                   + (f" ({', '.join(own)}, for some figures)." if own else "; none here is."))
    rows = dict(zip(s.setups["setup"], s.setups["rows"]))
    ones = [s.labels[x] for x in s.order if x not in s.repeated and rows[x]]
    if ones:
        out.append("Setups with one run (" + ", ".join(ones) + "): one run: within-run interval only (the bootstrap over "
                   f"the run's requests, {s.bootstrap.resamples:,} resamples, seed {s.bootstrap.seed}); it says how the "
                   "requests scattered, not how a second run would differ. Their comparisons are held to the run-to-run "
                   "allowance below.")
    bare = [s.labels[x] for x in s.order if x not in s.repeated and not rows[x]]
    if bare:
        out.append("Setups with one run and no per-request rows (" + ", ".join(bare) + "): one run, no interval: the "
                   "figures their source states. A comparison of one of them has no interval: a throughput is judged by "
                   "its ratio against the band (or the allowance), a latency is not resolved.")
    return out


def _ranking(s, load: str, cols, ranks: dict, figs: dict) -> list[dict[str, Any]]:
    """Per figure, the setups from best to worst, `=` marking a tie (no verdict separates them)."""
    out = []
    for m, q in cols:
        found = sorted((r for (lid, mm, qq, _), r in ranks.items() if lid == load and mm == m and qq == q),
                       key=lambda r: (r["rank"], -r["value"] if m == THROUGHPUT else r["value"]))
        if len(found) < 2:
            continue
        groups: dict[int, list[str]] = {}
        for r in found:
            groups.setdefault(r["rank"], []).append(s.labels[r["setup"]])
        text = "; ".join((f"{k}. " if len(v) == 1 else f"={k}. ") + " = ".join(v) for k, v in groups.items())
        out.append({"figure": figure_label(m, q), "text": text, "all_tied": len(groups) == 1})
    return out


def _spread_rows(s, figs: dict, cols) -> list[dict[str, Any]]:
    """Every setup with repeats, per load point: each figure's runs from lowest to highest, the spread
    (highest / lowest - 1) beside its interval."""
    out = []
    for sid in s.repeated:
        for ld in s.loads:
            cells: list[dict[str, Any]] = []
            any_runs = False
            for m, q in cols:
                r = figs.get((sid, ld.id, m, q))
                if r is None or r["method"] != RUNS:
                    cells.append({"text": fmt.MISSING, "sub": ""})
                    continue
                any_runs = True
                of = f"of {figure_long(m, q)} in {r['path']}"
                spread = r["spread_high"] / r["spread_low"] - 1
                cells.append({"text": Fig(f"{number(r['spread_low'], m)}{fmt.DASH}{number(r['spread_high'], m)}",
                                          how=f"lowest and highest of {int(r['runs'])} runs", detail=of, dense=True),
                              "sub": Parts([Fig(f"{spread * 100:.1f}%", how="highest run / lowest run - 1", detail=of, dense=True),
                                            " apart; interval ", interval_fig(r, s.bootstrap)])})
            if any_runs:
                out.append({"setup": s.labels[sid], "load": f"{ld.workload} · {ld.label}", "cells": cells})
    return out


def _capacity_rows(s) -> list[dict[str, str]]:
    out = []
    for c in s.capacity:
        label = s.labels[c["setup"]]
        if c["point"] is None:
            text = "unknown (a load without a figure of an objective)" if not c["known"] else "none of the loads tested"
        else:
            text = c["load"] + (" (the heaviest tested)" if c["heaviest"] else "")
        out.append({"setup": label, "workload": c["workload"], "text": text})
    return out


def _objective_rows(s) -> list[dict[str, Any]]:
    if s.objectives is None:
        return []
    points = {(r["setup"], r["point"]): r for r in views.rows(s.points)}
    out = []
    for r in views.rows(s.objectives):
        p = points[r["setup"], r["point"]]
        met = r["met"]
        state = ("no figure" if met is None or met != met else ("met" if met else "missed")
                 + ("" if r["sure"] else ", within its interval's reach"))
        out.append({"setup": s.labels[r["setup"]], "load": f"{p['workload']} · {p['load_label']}",
                    "objective": objective_text((r["metric"], r["percentile"], r["limit"])),
                    "value": Fig(number(r["value"], r["metric"]), how=f"p{r['percentile']} {METRIC_SHORT[r['metric']]}",
                                 detail=f"in {p['path']}", dense=True) if r["value"] == r["value"] else fmt.MISSING,
                    "state": state})
    return out


__all__ = ["anchor", "figure_key", "figure_label", "kinds", "view"]


PART = ViewPart(view=view, csv=csv, summary=summary, summary_rows=summary_rows, verdict=verdict, headlines=headlines,
                sides=sides, compare_what=compare_what, compare_value=compare_value, card_strip=card_strip)
