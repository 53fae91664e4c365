"""Serving's view (the Latency page): per matched load point, each percentile on both sides with its
interval, the ratio with its interval and verdict, the distributions drawn; its CSV tables, and its
lines in the dashboard, the share card and `sitegen summary`."""
from __future__ import annotations

from functools import partial
from typing import Any

from site_gen.analysis.verdict import INTERVAL_RULE, INTERVAL_VERDICTS, UNRESOLVED
from site_gen.render import format as fmt, plots, views
from site_gen.render.provenance import Fig, Parts
from site_gen.sections.serving.analysis import latency
from site_gen.sections.serving.analysis.load import THROUGHPUT_LABELS, THROUGHPUTS
from site_gen.sections.serving.analysis.points import METRIC_LABELS, METRIC_SHORT, PERCENTILES
from site_gen.sections.serving.view import sweeps, tables as t
from site_gen.sections.serving.view.charts import gpus_text
from site_gen.sections.serving.analysis import NO_INTERVAL
from site_gen.sections.contract import ViewPart
from site_gen.sections.serving.view.outputs import (EMPTY, card_strip, compare_value, compare_what, csv, dashboard,  # noqa: F401
                                                    headlines, how_decided, summary, summary_rows, verdict)



def names(a) -> dict[str, str]:
    r = a.report
    return {"baseline": r.baseline.name, "candidate": r.candidate.name}


def anchor(*parts: str) -> str:
    return "-".join("".join(ch if ch.isalnum() else "-" for ch in p.lower()).strip("-") for p in parts)


def view(a) -> dict[str, Any] | None:
    s = a.of("serving")
    if s is None:
        return None
    n = names(a)
    cells = views.rows(s.cells)
    latency_cells = [c for c in cells if c["kind"] == "latency"]
    scale = plots.ratio_scale([c["low"] for c in latency_cells] + [c["ratio"] for c in latency_cells],
                              [c["high"] for c in latency_cells] + [c["ratio"] for c in latency_cells])
    pct = {(r["role"], r["point"], r["metric"], r["percentile"]): r for r in views.rows(s.percentiles)}
    pairs = []
    gap_rows = views.rows(s.gaps)
    for m in s.matched:
        mine = [c for c in latency_cells if c["baseline_point"] == m["baseline"] and c["candidate_point"] == m["candidate"]]
        side = {(role, metric, q): pct.get((role, m[role], metric, q)) for role in ("baseline", "candidate")
                for metric in s.metrics for q in PERCENTILES}
        points = {"baseline": m["baseline"], "candidate": m["candidate"]}
        pairs.append({"anchor": anchor("at", m["workload"], m["load"]), "title": f"{m['workload']} · {m['load']}",
                      "points": points, "method": t.method_text(m, n, s.bootstrap),
                      # The Distributions page shows a load point's every-gap figures where it has rows and gaps.
                      "gaps": any((r["role"], r["point"]) in s.samples and points.get(r["role"]) == r["point"]
                                  for r in gap_rows),
                      "groups": t.pair_rows(s, mine, side, n, scale, a.band)})
    matched = {(role, m[role]) for m in s.matched for role in ("baseline", "candidate")}
    alone = [{"anchor": anchor(role, r["workload"], r["load"]), "title": f"{r['workload']} · {r['load']}",
              "role": role, "side": n[role], "point": r["point"],
              "groups": t.side_rows(s, role, r["point"], n), "repeats": int(r["repeats"])}
             for r in views.rows(s.points) for role in (r["role"],) if (role, r["point"]) not in matched]
    compact = t.compact_table(s, alone, n) if alone and not any(s.points["rows"]) else None
    return {
        "two_sided": "baseline" in s.roles, "names": n, "pairs": pairs, "alone": [] if compact else alone, "compact": compact,
        "counts": _count_rows(s, a.band), "total": s.counts.get("latency", EMPTY),
        "throughput_counts": s.counts.get("throughput", EMPTY),
        "rule": INTERVAL_RULE, "band": f"±{a.band * 100:g}%", "no_interval_rule": t.no_interval_rule(a.band),
        "bootstrap": {"resamples": f"{s.bootstrap.resamples:,}", "seed": s.bootstrap.seed, "level": f"{s.bootstrap.level:.0%}"},
        "ticks": plots.scale_ticks(scale), "scale": f"{_scale_end(scale[0])}–{_scale_end(scale[1])}×",
        "itl_note": itl_note(s, a.band), "metrics": [METRIC_SHORT[m] for m in s.metrics],
        "sentence": _sentence(s, n),
        "objectives": [t.objective_text(o) for o in s.slo], "capacity": sweeps.capacity_lines(s, n) if s.slo else [],
        "map": ratio_map(s, n, a.band), "story": story(s, n, a.band),
        "missed": {key[0]: sweeps.missed(s, key, n) for role in s.roles for key in s.curves[role]} if s.slo else {},
    }


def ratio_map(s, n: dict, band: float) -> list[dict[str, Any]]:
    """The story at a glance (the overview's chart, the Latency page's first): per workload, every
    latency percentile and throughput (rows) at every matched load (columns, lightest first), each its
    ratio with its verdict's glyph and tint; the interval in the ratio's hover, every figure in the
    tables below. Lower latency and higher throughput are faster."""
    cells = views.rows(s.cells)
    x = {(r["role"], r["point"]): r["x"] for r in views.rows(s.points)}
    out = []
    for workload in dict.fromkeys(m["workload"] for m in s.matched):
        loads = sorted((m for m in s.matched if m["workload"] == workload), key=lambda m: x["baseline", m["baseline"]])
        at = {(c["baseline_point"], c["kind"], c["metric"], c["percentile"] if c["kind"] == "latency" else 0): c
              for c in cells if c["workload"] == workload}
        rows: list[dict[str, Any]] = []
        for kind, metric, q, label in ([("latency", m, q, f"{METRIC_SHORT[m]} p{q}") for m in s.metrics for q in PERCENTILES]
                                       + [("throughput", k, 0, THROUGHPUT_LABELS[k].capitalize()) for k in THROUGHPUTS]):
            row: list[dict[str, Any] | None] = [_map_cell(s, n, band, c) if (c := at.get((m["baseline"], kind, metric, q))) else None
                                                for m in loads]
            if any(row):
                rows.append({"label": label, "kind": kind, "first": bool(rows) and (q == PERCENTILES[0] or kind == "throughput"
                                                                                  and rows[-1]["kind"] == "latency"), "cells": row})
        for r in rows:  # a reason every cell of a row shares is said once, beside its label
            whys = {c["why"] for c in r["cells"] if c}
            r["why"] = whys.pop() if len(whys) == 1 and None not in r["cells"] else ""
            for c in r["cells"] if r["why"] else ():
                c["why"] = ""
        every = [c for r in rows for c in r["cells"] if c]
        none = bool(every) and all(c["why"] or r["why"] for r in rows for c in r["cells"] if c)
        for r in rows if none else ():  # said once, in the caption, not in every cell
            r["why"] = ""
            for c in every:
                c["why"] = ""
        out.append({"workload": workload, "loads": [m["load"] for m in loads], "rows": rows, "none": none})
    return out


def _map_cell(s, n: dict, band: float, c: dict) -> dict[str, Any]:
    """A cell of the ratio map: the ratio (its interval and how in its hover), its verdict, why it has no interval."""
    if c["kind"] == "latency":
        ratio, interval = t.ratio_figs(c, s.bootstrap, band)
        why = "" if interval else ("no interval: too few requests" if c["method"] == latency.FEW else "one run, no interval")
    else:
        shown = t.interval_text(c["low"], c["high"], band)
        ratio = Fig(t.ratio_text(c["ratio"], band), how=f"{n['candidate']} / {n['baseline']} {THROUGHPUT_LABELS[c['metric']]}",
                    detail=f"at {c['workload']} · {c['load']}" + (f", 95% interval {shown}" if shown else ""), dense=True)
        why = "" if shown else "one run, no interval"
    return {"ratio": ratio, "verdict": c["verdict"], "glyph": t.GLYPHS[c["verdict"]], "tint": c["verdict"].replace(" ", "-"),
            "why": why}


def _output(s, tp: dict, points: dict, gpus: bool, role: str, pid: str) -> Fig | str:
    """A load point's output tokens/s, over its side's GPUs with `gpus`, saying how it was made."""
    r = tp.get((role, pid))
    if r is None or r["value"] != r["value"]:
        return fmt.MISSING
    how, detail = t.throughput_how("output_tokens_per_s", points[role, pid])
    if not gpus:
        return Fig(fmt.grouped(r["value"], 1), how=how, detail=detail, dense=True)
    g = s.gpus[role]
    return Fig(fmt.grouped(r["value"] / g, 1), how=f"{how} / {g} GPUs", detail=f"{detail}; $.serving.sides.{role}.gpus.value", dense=True)


def story(s, n: dict, band: float) -> list[Parts]:
    """The overview's lines beside its chart: per sweep, the output throughput each side delivered at
    its heaviest load (a pair: with their ratio and verdict), and with objectives each side's goodput
    load by load: what a serving engineer reads first after the latency."""
    points = {(r["role"], r["point"]): r for r in views.rows(s.points)}
    tp = {(r["role"], r["point"]): r for r in views.rows(s.throughput) if r["metric"] == "output_tokens_per_s"}
    cells = {(c["baseline_point"], c["candidate_point"]): c for c in views.rows(s.cells)
             if c["kind"] == "throughput" and c["metric"] == "output_tokens_per_s"}
    good = {(r["role"], r["point"]): r for r in views.rows(s.goodput)} if s.goodput is not None else {}
    tokens, per_gpu = partial(_output, s, tp, points, False), partial(_output, s, tp, points, True)
    out = []
    for key in dict.fromkeys(k for role in s.roles for k in s.curves[role]):
        curves = {role: s.curves[role].get(key, []) for role in s.roles}
        title = key[0] + (", by concurrency" if key[1] == "concurrency" else "")

        heaviest = {role: c[-1] for role, c in curves.items() if c}
        pair = next((m for m in s.matched if m["workload"] == key[0] and m["baseline"] == heaviest.get("baseline")
                     and m["candidate"] == heaviest.get("candidate")), None)
        if pair and (pair["baseline"], pair["candidate"]) in cells:
            c = cells[pair["baseline"], pair["candidate"]]
            ratio = Fig(t.ratio_text(c["ratio"], band), how=f"{n['candidate']} / {n['baseline']} output tokens/s",
                        detail=f"at {key[0]} · {pair['load']}", dense=True)
            how = "one run a side, no interval: the band rule" if c["low"] != c["low"] else \
                f"95% interval {t.interval_text(c['low'], c['high'], band)}"
            said = Parts([f"{title}, heaviest load ({pair['load']}): {n['candidate']} delivers ",
                          tokens("candidate", pair["candidate"]), " output tokens/s, ", ratio, f" {n['baseline']}'s ",
                          tokens("baseline", pair["baseline"]), f" ({c['verdict']}; {how})."])
            if s.per_gpu:  # every side's GPU count known: the same load per GPU
                said += [f" Per GPU ({gpus_text(s, n)}): ", per_gpu("candidate", pair["candidate"]), f" against {n['baseline']}'s ",
                         per_gpu("baseline", pair["baseline"]), " output tokens/s."]
            out.append(said)
        else:
            for role, pid in heaviest.items():
                if len(curves[role]) > 1:
                    out.append(Parts([f"{title}, heaviest load ({points[role, pid]['load']}): {n[role]} delivers ",
                                      tokens(role, pid), " output tokens/s",
                                      *([" (", per_gpu(role, pid), f" per GPU, {gpus_text(s, n)})"] if role in s.gpus else []), "."]))
        if good:
            loads = [points[role, pid]["load"] for role in s.roles for pid in curves[role][:1]]
            sides = []
            for role in s.roles:
                shares = [(points[role, pid]["load"], g) for pid in curves[role] if (g := good.get((role, pid)))]
                if len(shares) < 2:
                    continue
                line: Parts = Parts([f"{n[role]} "])
                for i, (load, g) in enumerate(shares):
                    line += [" → " if i else "", Fig(f"{g['share']:.1%}", how="requests meeting every objective / requests",
                                                     detail=f"at {key[0]} · {load}", dense=True), f" at {load}"]
                sides.append(line)
            if sides and loads:
                parts: Parts = Parts([f"{title}, goodput (the requests meeting every objective), load by load: "])
                for i, line in enumerate(sides):
                    parts += (["; "] if i else []) + list(line)
                out.append(Parts(parts + ["."]))
    return out


def _scale_end(v: float) -> str:
    return f"{v:g}" if v >= 1 else f"1/{1 / v:g}"


def _count_rows(s, band: float) -> list[dict[str, Any]]:
    rule = {"faster": f"whole interval below {1 - band:.2f}", "level": f"whole interval within {1 - band:.2f}–{1 + band:.2f}",
            "slower": f"whole interval above {1 + band:.2f}", UNRESOLVED: "interval reaching over a band edge"}
    # A cell without an interval: one run a side takes the band rule on its ratio alone; too few
    # requests leave it not resolved. Never counted as an interval it does not have.
    alone = {"faster": f"ratio below {1 - band:.2f}", "level": f"ratio within {1 - band:.2f}–{1 + band:.2f}",
             "slower": f"ratio above {1 + band:.2f}"}

    def how(c: dict[str, int], k: str, what: str) -> str:
        none = c[NO_INTERVAL + k]
        if not c[k]:  # none of them: the rule or rules that would have made one
            banded = c[NO_INTERVAL + "cells"] - c[NO_INTERVAL + UNRESOLVED]
            rules = ([rule[k]] if c[NO_INTERVAL + "cells"] < c["cells"] else []) + \
                ([f"{alone[k]}, no interval"] if banded > 0 and k in alone else [])
            return f"0 {k} of {c['cells']} {what}" + (f" ({'; or '.join(rules)})" if rules else "")
        if not none:
            return f"{c[k]} {k}: {c['cells']} {what}, {rule[k]}"
        parts = [f"{c[k] - none} with the {rule[k]}" if c[k] > none else "",
                 f"{none} with too few requests for an interval" if k == UNRESOLVED else
                 f"{none} one run a side with no interval, {alone[k]} (the band rule)"]
        return f"{c[k]} {k} of {c['cells']} {what}: " + "; ".join(p for p in parts if p)

    rows = []
    for metric in (*s.metrics, None):
        key = f"latency:{metric}" if metric else "latency"
        c = s.counts.get(key)
        if not c:
            continue
        low, high = s.ranges[key]
        what = f"{METRIC_SHORT[metric]} cells" if metric else "latency cells"
        rows.append({"label": METRIC_SHORT[metric] if metric else "Every latency cell", "sub": METRIC_LABELS[metric] if metric else "",
                     "cells": Fig(str(c["cells"]), how=f"{what}: a ratio of each percentile both sides have at each matched load point"),
                     "total": metric is None,
                     "counts": {k: Fig(str(c[k]), how=how(c, k, what)) for k in INTERVAL_VERDICTS},
                     "range": Fig(fmt.speed_ratio_range(low, high, band),
                                  how=f"lowest and highest {METRIC_SHORT.get(metric, 'latency')} ratio, candidate / baseline, "
                                      f"over {c['cells']} cells")})
    return rows


def itl_note(s, band: float, where: str = "") -> str:
    """Why ITL is not shown beside TPOT, and where the every-gap figures are, if anywhere: the
    Distributions page (`where` "here" on it) shows those of each load point with request rows;
    without rows anywhere the every-load-point table shows their median. A receipt with none is
    promised none. Empty where ITL is shown."""
    if not (s.itl_is_tpot and "itl" not in s.metrics):
        return ""
    equal, total, worst = s.itl_agreement or (0, 0, 0.0)
    if equal == total:
        note = ("Inter-token latency per request (the mean of its own gaps) equals its time per output token for every "
                "request here, so it is shown once, as TPOT")
    else:
        note = (f"Inter-token latency per request (the mean of its own gaps) is within the noise band (±{band * 100:g}%) of its "
                f"time per output token for every request here (equal for {equal:,} of {total:,}; up to {worst:.1%} apart "
                "where a streamed chunk carried several tokens), so it is shown once, as TPOT")
    shown = [r for r in views.rows(s.gaps) if (r["role"], r["point"]) in s.samples]
    words = {"mean_ms": "mean", "median_ms": "median", "p90_ms": "p90", "p95_ms": "p95", "p99_ms": "p99", "max_ms": "highest"}
    said = [w for k, w in words.items() if any(r[k] == r[k] for r in shown)]
    if not said:
        return note + "."
    listed = said[0] if len(said) == 1 else f"{', '.join(said[:-1])} and {said[-1]}"
    page = "below, for each load point" if where == "here" else "for each load point on the Distributions page"
    return note + f". The real per-token gaps: every gap of every request, pooled, is summarised {page} ({listed})."


def _sentence(s, n: dict) -> str:
    if "baseline" not in s.roles:
        points = len(s.points)
        return f"One setup, {n['candidate']}: {points} load point{'s' if points != 1 else ''}, no comparison."
    c = s.counts.get("latency", EMPTY)
    return (f"Of {c['cells']} latency cells ({n['candidate']} against {n['baseline']}), {c['faster']} faster, {c['level']} level, "
            f"{c['slower']} slower, {c[UNRESOLVED]} not resolved ({how_decided(c)}).")


PART = ViewPart(view=view, csv=csv, summary=summary, summary_rows=summary_rows, verdict=verdict, headlines=headlines,
                dashboard=dashboard, card_strip=card_strip, compare_what=compare_what, compare_value=compare_value)
