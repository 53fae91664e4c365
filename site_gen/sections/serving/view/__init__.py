"""Serving's view (the Latency page): per matched load point, each percentile on both sides with its
interval, the ratio with its interval and verdict, the distributions drawn; its CSV tables, and its
lines in the dashboard, the share card and `sitegen summary`."""
from __future__ import annotations

from typing import Any

from site_gen.analysis.verdict import INTERVAL_RULE, INTERVAL_VERDICTS, UNRESOLVED
from site_gen.render import format as fmt, plots, views
from site_gen.render.provenance import Fig
from site_gen.sections.serving.analysis.points import METRIC_LABELS, METRIC_SHORT, PERCENTILES
from site_gen.sections.serving.view import tables as t
from site_gen.sections.serving.analysis import NO_INTERVAL
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
        "objectives": [t.objective_text(o) for o in s.slo], "capacity": t.capacity_lines(s, n) if s.slo else [],
    }


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
                                  how=f"lowest and highest {METRIC_SHORT.get(metric, 'latency')} ratio, candidate / baseline, over {c['cells']} cells")})
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
