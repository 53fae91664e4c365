"""The latency page's tables: per matched load point, each metric's percentiles on both sides with
their intervals, the ratio with its interval, bar and verdict; per side alone, its percentiles."""
from __future__ import annotations

from typing import Any

from site_gen.analysis import bootstrap as bs
from site_gen.analysis.verdict import UNRESOLVED
from site_gen.render import format as fmt, plots, views
from site_gen.render.provenance import Fig, Parts
from site_gen.sections.serving.analysis import latency
from site_gen.sections.serving.analysis.points import METRIC_LABELS, METRIC_SHORT

GLYPHS = {"faster": "▲", "level": "●", "slower": "▼", UNRESOLVED: "○"}
# Decimals of each throughput wherever it is printed (the Load page's tables, `sitegen compare`).
THROUGHPUT_DIGITS = {"output_tokens_per_s": 1, "requests_per_s": 2}


# A latency of ten seconds or more is printed in seconds, with its unit (`243.5 s`, not `243,517.7`),
# as the charts label it (render/plots.py `ms`); shorter ones in ms, the unit their column names.
SECONDS_FROM = 10_000.0


def in_seconds(*values: float) -> bool:
    """Whether figures printed together (a value, an interval's ends, a pair) take seconds: the
    largest of them is ten seconds or more."""
    known = [abs(v) for v in values if v == v]
    return bool(known) and max(known) >= SECONDS_FROM


def ms(value: float) -> str:
    """A latency in ms with one decimal and thousands separators (`893.1`, `1,213.8`); from ten
    seconds, in seconds with one decimal and the unit (`243.5 s`)."""
    return f"{fmt.grouped(value / 1000, 1)} s" if in_seconds(value) else fmt.grouped(value, 1)


def ms_unit(value: float) -> str:
    """A latency with its unit whichever it is: `893.1 ms`, `243.5 s`."""
    return ms(value) if in_seconds(value) else f"{ms(value)} ms"


def ms_interval(low: float, high: float, seconds: bool | None = None) -> str:
    """`120.4–133.0`; in seconds (`143.6–233.1 s`) when `seconds`, by default when its upper end is
    ten seconds or more (an interval under a figure takes the figure's unit)."""
    if low != low or high != high:
        return ""
    if in_seconds(low, high) if seconds is None else seconds:
        return f"{fmt.grouped(low / 1000, 1)}{fmt.DASH}{fmt.grouped(high / 1000, 1)} s"
    return f"{fmt.grouped(low, 1)}{fmt.DASH}{fmt.grouped(high, 1)}"


def row_seconds(*rows: dict | None) -> bool:
    """Whether the figures of percentiles printed together (a pair's two sides, each with its interval
    and runs' range) take seconds: any of them ten seconds or more."""
    return in_seconds(*(r[k] for r in rows if r is not None for k in ("value", "high", "spread_high")))


def ms_pair(baseline: float, candidate: float, compared: str, band: float, seconds: bool) -> tuple[str, str]:
    """Two sides' latencies in one unit (`seconds`, `row_seconds`), with one decimal or as many more
    as the ratio beside them needs (`format.pair`)."""
    if seconds:
        b, c = fmt.pair(baseline / 1000, candidate / 1000, 1, compared, band=band)
        return (b if b == fmt.MISSING else f"{b} s"), (c if c == fmt.MISSING else f"{c} s")
    return fmt.pair(baseline, candidate, 1, compared, band=band)


def itl_every_gap(s) -> bool:
    """Whether the ITL shown is the sources' own figure over every gap (no load point has request rows,
    so there is no request's mean gap: the real per-token gap), not a request's mean gap."""
    return "itl" in s.metrics and not bool(s.points["rows"].any())


def metric_label(s, metric: str) -> str:
    """A metric's name in words: ITL says which ITL it is."""
    if metric == "itl" and itl_every_gap(s):
        return "inter-token latency (every gap, as the source states it)"
    return METRIC_LABELS[metric]


def column_label(s, metric: str, q: int) -> str:
    """`TTFT p50`; `ITL p50, every gap` where the ITL is over every gap."""
    return f"{METRIC_SHORT[metric]} p{q}" + (", every gap" if metric == "itl" and itl_every_gap(s) else "")


def ratio_text(value: float, band: float) -> str:
    return fmt.speed_ratio(value, band) if value == value else fmt.MISSING


def interval_text(low: float, high: float, band: float) -> str:
    if low != low or high != high:
        return ""
    return f"{fmt.speed_ratio(low, band)}{fmt.DASH}{fmt.speed_ratio(high, band)}"


# How a ratio's interval was drawn, by the cell's method (the level and the bootstrap's settings added).
_RATIO_INTERVALS = {latency.PAIRED: "{level} paired bootstrap over requests",
                    latency.UNPAIRED: "{level} unpaired bootstrap over requests",
                    latency.RUNS: "{level} Welch's t interval over runs, on logs"}
# A dense figure's hover says how in a few words; what it was read from (its JSON path), the
# percentile's definition and the bootstrap's settings follow on the Numbers page (Fig.detail), and
# the page says them once above its tables: a page holds hundreds of them (benchmarks/weight.py's goal).


def _what(metric: str, q: int) -> str:
    return f"p{q} {METRIC_SHORT[metric]}"


def ratio_figs(c: dict, b, band: float) -> tuple[Fig | str, Fig | str]:
    """A latency cell's ratio and its interval (empty when it has none), each saying how it was computed."""
    what = _what(c["metric"], c["percentile"])
    ratio, at = f"candidate {what} / baseline {what}", f"at {c['workload']} · {c['load']}"
    text = ratio_text(c["ratio"], band)
    fig = Fig(text, how=ratio, detail=at, dense=True) if c["ratio"] == c["ratio"] else text
    shown = interval_text(c["low"], c["high"], band)
    if not shown:
        return fig, shown
    method = _RATIO_INTERVALS[c["method"]].format(level=f"{b.level:.0%}")
    drawn = f"{b.resamples:,} resamples, seed {b.seed}, " if c["method"] != latency.RUNS else ""
    return fig, Fig(shown, how=method, detail=f"{drawn}of {ratio} {at}", dense=True)


def pair_rows(s, cells: list[dict], side: dict[tuple, dict | None], names: dict, scale, band: float) -> list[dict[str, Any]]:
    """The rows of one matched load point's table, grouped by metric."""
    groups: list[dict[str, Any]] = []
    for metric in s.metrics:
        rows = []
        for c in (c for c in cells if c["metric"] == metric):
            q = c["percentile"]
            rb, rc = side.get(("baseline", metric, q)), side.get(("candidate", metric, q))
            ratio, ratio_interval = ratio_figs(c, s.bootstrap, band)
            # Each side's percentile with one decimal, or as many more as the ratio beside it needs.
            seconds = row_seconds(rb, rc)
            texts = ms_pair(rb["value"], rc["value"], ratio_text(c["ratio"], band), band, seconds) \
                if rb is not None and rc is not None else (None, None)
            rows.append({
                "label": f"p{q}",
                "baseline": value_fig(rb, texts[0]), "baseline_interval": interval_figs(rb, s.bootstrap, seconds=seconds),
                "candidate": value_fig(rc, texts[1]), "candidate_interval": interval_figs(rc, s.bootstrap, seconds=seconds),
                "ratio": ratio, "ratio_interval": ratio_interval, "method": c["method"],
                "no_interval": few_text(c, rb, rc) if c["method"] == latency.FEW else
                c["method"] if c["method"] == latency.ONE_RUN else "no interval",
                "verdict": c["verdict"], "glyph": GLYPHS[c["verdict"]], "vclass": c["verdict"].replace(" ", "-"),
                "bar": plots.interval_bar(c["ratio"], c["low"], c["high"], c["verdict"], scale, band)})
        if rows:
            label = metric_label(s, metric)
            groups.append({"metric": metric, "short": METRIC_SHORT[metric], "label": f"{label[0].upper()}{label[1:]} "
                           f"({METRIC_SHORT[metric]}), ms", "rows": rows})
    return groups


def few_text(c: dict, rb: dict | None, rc: dict | None) -> Parts:
    """Why a latency cell has no interval and is not resolved, at the cell: `no interval: 186 and 186
    TPOTs measured, a p99 needs 200 a side` (the rule: `no_interval_rule`), each count with its source."""
    q, short = c["percentile"], METRIC_SHORT[c["metric"]]
    counts = [f"{int(r['n']):,}" for r in (rb, rc) if r is not None]
    measured = " and ".join(dict.fromkeys(counts)) if len(set(counts)) == 1 else " and ".join(counts)
    return Parts(["no interval: ",
                  Fig(f"{measured} {short}s", how=f"the {short}s measured on each side at this load (successful requests)",
                      dense=True),
                  ", a ",
                  Fig(f"p{q} needs {bs.needed(q):,}", how=f"the bootstrap's rule: {bs.MIN_VALUES} values a side and "
                      f"{bs.MIN_TAIL} at or above the percentile", dense=True),
                  " a side"])


def no_interval_rule(band: float) -> str:
    """The one rule for a latency cell without an interval, as the page states it beside its cells."""
    return (f"A cell without an interval says why where it is shown. Too few measured requests for the percentile "
            f"(under {bs.MIN_VALUES} a side, or under {bs.MIN_TAIL} at or above it: a p99 needs {bs.needed(99)}, a p95 "
            f"{bs.needed(95)}) leave it not resolved, whatever its ratio: it rests on the slowest one or two requests "
            f"of a side. Only where a source kept no per-request rows (one run a side, its own figures) does a ratio "
            f"take the band rule alone: level within ±{band * 100:g}%, else faster or slower (one run, no interval)")


def value_fig(r: dict | None, text: str | None = None) -> Fig | str:
    """A side's percentile (a row of the analysis' percentiles) as printed (`text`, or `ms`'s), with
    where it came from: the source's own figure (its place in the receipt), or how it was computed
    from the rows or runs. Dense: a page holds hundreds, each a hover but no tab stop."""
    if r is None:
        return fmt.MISSING
    if text is None:  # in the unit of its interval and runs' range below it
        text = f"{fmt.grouped(r['value'] / 1000, 1)} s" if row_seconds(r) else fmt.grouped(r["value"], 1)
    if r["value"] != r["value"] or not r["path"]:
        return text
    if r["method"] == latency.ONE_RUN:
        return Fig(text, path=r["path"], dense=True)
    if r["method"] == latency.RUNS:
        return Fig(text, how=f"geometric mean of {r['n']} runs' {_what(r['metric'], r['percentile'])}",
                   detail=f"in {r['path']}", dense=True)
    return Fig(text, how=f"p{r['percentile']} of {r['n']:,} measured {METRIC_SHORT[r['metric']]}s",
               detail=f"in {r['path']} (numpy's linear percentile)", dense=True)


def no_interval_why(r: dict | None) -> str:
    """Why a side's percentile (a row of the analysis' percentiles) has no interval, in a few words."""
    if r is None:
        return "no figure"
    if r["method"] == latency.BOOTSTRAP:
        return f"{r['n']:,} measured requests, too few for a p{r['percentile']} interval"
    if r["method"] == latency.ONE_RUN:
        return "one run without per-request rows (the source's own figure)"
    return f"{r['method']}, none drawn"


def interval_figs(r: dict | None, b, runs: bool = True, seconds: bool | None = None) -> Parts:
    """A side's percentile's interval (and, `runs`, the range of its runs), each saying how it was drawn,
    in the unit of the figure above it (`seconds`: that of a pair's, else the percentile's own); empty
    when it has neither."""
    out = Parts()
    if r is None:
        return out
    if seconds is None:
        seconds = row_seconds(r)
    of = f"of {_what(r['metric'], r['percentile'])} in {r['path']}"
    if r["low"] == r["low"] and r["high"] == r["high"]:
        if r["method"] == latency.RUNS:
            how, detail = f"{b.level:.0%} t interval over {r['n']} runs, on logs", of
        else:
            how, detail = f"{b.level:.0%} bootstrap over requests", f"{b.resamples:,} resamples, seed {b.seed}, {of}"
        out.append(Fig(ms_interval(r["low"], r["high"], seconds), how=how, detail=detail, dense=True))
    if runs and r["method"] == latency.RUNS and r["spread_low"] == r["spread_low"]:
        out += ["; runs ", Fig(ms_interval(r["spread_low"], r["spread_high"], seconds), how=f"lowest and highest of {r['n']} runs",
                               detail=of, dense=True)]
    return out


def side_rows(s, role: str, point: str, names: dict) -> list[dict[str, Any]]:
    """One side's percentiles at a load point (a one-setup report, or a load point the other side lacks)."""
    groups = []
    pct = [r for r in views.rows(s.percentiles) if r["role"] == role and r["point"] == point]
    for metric in s.metrics:
        rows = [{"label": f"p{r['percentile']}", "value": value_fig(r), "interval": interval_figs(r, s.bootstrap),
                 "method": latency.FEW if r["method"] == latency.BOOTSTRAP and r["low"] != r["low"] else r["method"]}
                for r in pct if r["metric"] == metric]
        if rows:
            label = metric_label(s, metric)
            groups.append({"metric": metric, "short": METRIC_SHORT[metric], "label": f"{label[0].upper()}{label[1:]} "
                           f"({METRIC_SHORT[metric]}), ms", "rows": rows})
    return groups


def _at(text: str, path: str | None = None, how: str | None = None, detail: str | None = None) -> Fig | str:
    """A figure of the distributions' and every-load-point tables: dense, unless there is no figure."""
    return text if text == fmt.MISSING or not (path or how) else Fig(text, path=path, how=how, detail=detail, dense=True)


def tokens_rows(s, roles: list[str], points: dict[str, str], names: dict) -> list[dict[str, Any]]:
    at = {(r["role"], r["point"]): r for r in views.rows(s.points)}
    out = []
    for r in views.rows(s.tokens):
        if points.get(r["role"]) == r["point"] and r["role"] in roles and not (r["mean"] != r["mean"] and r["total"] != r["total"]):
            p, kind, path = at[r["role"], r["point"]], r["kind"], r["path"]
            who = "successful requests" if kind == "output" else "requests"
            of = f"{fmt.thousands(r['requests'])} {who}' {kind} tokens"
            where = f"in {path}"
            if p["rows"]:
                requests = _at(fmt.thousands(r["requests"]), how=f"{who} counted", detail=where)
                total = _at(fmt.thousands(r["total"]), how=f"sum of every request's {kind} tokens", detail=where)
            else:
                runs = int(p["repeats"])
                requests = (_at(fmt.thousands(r["requests"]), path=f"{p['path']}.repeats[0].completed") if runs == 1 else
                            _at(fmt.thousands(r["requests"]), how=f"sum of completed over {runs} runs", detail=f"in {p['path']}.repeats"))
                total = (_at(fmt.thousands(r["total"]), path=path) if runs == 1 else
                         _at(fmt.thousands(r["total"]), how=f"sum over {runs} runs", detail=f"of {path}"))
            out.append({"side": names[r["role"]], "kind": kind, "requests": requests,
                        "mean": _at(fmt.MISSING if r["mean"] != r["mean"] else f"{r['mean']:,.1f}", how=f"mean of {of}", detail=where),
                        "median": _at(fmt.thousands(r["median"]), how=f"median of {of}", detail=f"{where} (numpy's linear percentile)"),
                        "p90": _at(fmt.thousands(r["p90"]), how=f"p90 of {of}", detail=f"{where} (numpy's linear percentile)"),
                        "max": _at(fmt.thousands(r["max"]), how=f"highest of {of}", detail=where),
                        "total": total})
    return out


def gaps_rows(s, points: dict[str, str], names: dict) -> list[dict[str, Any]]:
    """Each run's every-gap inter-token summary: the figures the importer or the source recorded, each at its place."""
    out = []
    for r in views.rows(s.gaps):
        if points.get(r["role"]) == r["point"]:
            paths = r["paths"]
            out.append({"side": names[r["role"]] + (f", run {r['repeat'] + 1}" if r["repeat"] else ""),
                        "gaps": _at(fmt.thousands(r["gaps"]), path=paths.get("gaps")),
                        **{k: _at(ms(r[f"{k}_ms"]), path=paths.get(f"{k}_ms")) for k in ("mean", "median", "p90", "p95", "p99", "max")}})
    return out


def throughput_how(metric: str, p: dict) -> tuple[str, str]:
    """How a load point's throughput was computed, and from where (`p`: its row of the analysis' points)."""
    runs = int(p["repeats"])
    if metric == "requests_per_s":
        one = "completed / duration_s"
    elif p["rows"]:
        one = "output tokens / duration_s"
    else:
        one = "the source's output_throughput"
    if runs == 1:
        return one, f"at {p['path']}.repeats[0]"
    return f"geometric mean of {runs} runs' {one}", f"at {p['path']}.repeats"


def method_text(m: dict, names: dict, b) -> str:
    """How one matched load point's intervals were drawn, in a sentence."""
    methods = m["methods"]
    nb, nc = m["requests"]
    if latency.PAIRED in methods:
        return (f"Paired bootstrap over {nb:,} requests: both sides sent the same prompts in the same order, so each "
                f"resample draws the same requests from both ({b.resamples:,} resamples, seed {b.seed}).")
    if latency.UNPAIRED in methods:
        why = "the sides sent other prompts or another order" if not m["paired"] else "a side ran the load point more than once"
        return (f"Unpaired bootstrap over {nb:,} and {nc:,} requests ({why}): each side resampled on its own "
                f"({b.resamples:,} resamples, seed {b.seed}).")
    if latency.RUNS in methods:
        return "Both sides repeated this load point: intervals are Student's t over the runs, ratios Welch's t."
    return "No per-request rows: the sources' own figures, one run each; ratios take the band rule (one run, no interval)."


def compact_table(s, alone: list[dict], names: dict) -> dict[str, Any]:
    """Load points without per-request rows, one row each: the sources' own percentiles (one run:
    no interval; repeated runs: their geometric mean, t interval and range), the every-gap ITL."""
    pct = {(r["role"], r["point"], r["metric"], r["percentile"]): r for r in views.rows(s.percentiles)}
    cols = [(m, q) for m in s.metrics for q in (50, 90, 95, 99)
            if any((p["role"], p["point"], m, q) in pct for p in alone)]
    paths = {(r["role"], r["point"]): r["path"] for r in views.rows(s.points)}
    every_gap = any(m == "itl" for m, _ in cols)
    rows = []
    for p in alone:
        cells = []
        for m, q in cols:
            r = pct.get((p["role"], p["point"], m, q))
            cells.append({"text": value_fig(r), "sub": interval_figs(r, s.bootstrap)})
        if not every_gap:  # without rows a source's ITL percentiles are over every gap: shown as its ITL columns
            gaps = gaps_rows(s, {p["role"]: p["point"]}, names)
            medians = Parts()
            for i, g in enumerate(gaps):
                medians += [" / "] * bool(i) + [g["median"]]
            cells.append({"text": medians or fmt.MISSING, "sub": ""})
        runs = Fig(str(p["repeats"]), how="runs", detail=f"in {paths[p['role'], p['point']]}.repeats", dense=True)
        rows.append({"load": p["title"], "side": p["side"], "repeats": runs, "cells": cells})
    return {"columns": [f"{METRIC_SHORT[m]} p{q}" + (", every gap" if m == "itl" else "") for m, q in cols]
            + ([] if every_gap else ["ITL p50, every gap"]), "rows": rows, "sides": sorted({p["side"] for p in alone})}


def objective_text(o: tuple) -> str:
    return f"p{o[1]} {METRIC_SHORT[o[0]]} ≤ {o[2]:,g} ms"
