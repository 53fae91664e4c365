"""Speed's view: the page's display data, its CSV tables, its author blocks and its lines in the
summary, the dashboard and the share card."""
from __future__ import annotations

from typing import Any

import pandas as pd

from site_gen.analysis.verdict import VERDICTS
from site_gen.core.errors import SitegenError
from site_gen.render import charts, views
from site_gen.render import format as fmt
from site_gen.render.provenance import Fig, origins, row_origin
from site_gen.sections.base import BlockSpec, option_bool, option_checkpoint
from site_gen.sections.speed.analysis import METRIC_LABELS, OPTIONAL_CELL_FIELDS, error_counts, selections
from site_gen.sections.contract import ViewPart
from site_gen.sections.speed.view.figure import speed_figure


def _cells_table(cells: pd.DataFrame) -> pd.DataFrame:
    """The cells as the receipt holds them: optional fields it never gave are no columns."""
    column = dict(zip(cells.columns, views.arrays(cells)))  # read once, not as a Series per test
    out = cells.drop(columns=[c for c in OPTIONAL_CELL_FIELDS if pd.isna(column[c]).all()])
    if not pd.isna(column["errors"]).any():
        out["errors"] = out["errors"].astype(int)
    return out


# What each rate is, in words a spreadsheet reader gets in every row of the cells' CSV.
RATE_MEANS = {"aggregate": "output tokens per second, summed over the concurrent streams",
              "decode_one": "decode tokens per second of the one stream",
              "decode_many": "median over the requests of each request's own decode tokens per second"}


def rate_means(metric: str, concurrency) -> str:
    if metric == "aggregate":
        return RATE_MEANS["aggregate"]
    return RATE_MEANS["decode_one"] if concurrency == 1 else RATE_MEANS["decode_many"]


def csv(a) -> dict:
    s = a.of("speed")
    if s is None:
        return {}
    cells = _cells_table(s.cells)
    # A cell's `output_tokens` is the requests' output cap (their max_tokens), not what they produced.
    cells = cells.rename(columns={"output_tokens": "output_tokens_cap"})
    cells.insert(cells.columns.get_loc("metric") + 1, "rate_is",
                 [rate_means(m, c) for m, c in zip(cells["metric"].tolist(), cells["concurrency"].tolist())])
    tables = {"speed-cells": fmt.csv_ratios(cells, "ratio"), "speed-counts": s.counts,
              "speed-ranges": fmt.csv_ratios(s.ranges, "low", "high")}
    if s.ttft is not None and not s.ttft.empty:
        tables["time-to-first-token"] = fmt.csv_ratios(s.ttft, "ratio")
    return tables


def page_context(a, ctx: dict) -> None:
    if ctx["speed"]:
        r = a.report
        # Drawn once per analysis: the speed page and an author page's speed chart block share them.
        checkpoints = ctx["speed"]["checkpoints"]
        ctx["speed_figures"] = views.once(a, ("speed figures", tuple(checkpoints)), lambda: {
            c: speed_figure(a.of("speed").cells, c, a.scale, a.band, r.candidate.name, r.baseline.name)
            for c in checkpoints})


def summary_options(a, ctx: dict, opt: dict, at: dict, file, line: int) -> dict:
    if "checkpoint" not in opt:
        return {}
    s = ctx["speed"]
    cp = option_checkpoint(opt["checkpoint"], s["checkpoints"], file, at["checkpoint"], "speed comparison")
    i = s["checkpoints"].index(cp)
    return {"speed": {
        **s, "checkpoints": [cp],
        "count_rows": [{**r, "cells": [r["cells"][i]],
                        "sub": "; ".join(x for x in (f"of {r['cells'][i]['of']}" if r["cells"][i].get("of") else "", r["note"]) if x)}
                       for r in s["count_rows"]],
        "range_rows": [{**r, "cells": [r["cells"][i]]} for r in s["range_rows"]],
        "ttft": {**s["ttft"], "cells": [s["ttft"]["cells"][i]]} if s["ttft"] else None,
        "gains": [], "losses": [], "unpaired": [],
        "errors_text": errors_text(error_counts(a.of("speed").cells, cp), a.report.baseline.name, a.report.candidate.name),
    }}


def cells_options(a, ctx: dict, opt: dict, at: dict, file, line: int) -> dict:
    s = ctx["speed"]
    if "checkpoint" in opt:
        cp = option_checkpoint(opt["checkpoint"], s["checkpoints"], file, at["checkpoint"], "speed comparison")
    elif len(s["checkpoints"]) == 1:
        cp = s["checkpoints"][0]
    else:
        raise SitegenError(f"block 'speed-cells' needs 'checkpoint:', one of {', '.join(s['checkpoints'])}",
                           file, f"line {line}")
    metric = opt.get("metric")
    if metric is not None and metric not in ("aggregate", "decode"):
        raise SitegenError(f"option 'metric' expects aggregate or decode, got {metric!r}", file, f"line {at['metric']}")
    out = {"checkpoint": cp,
           "tables": [t for t in s["tables"] if t["checkpoint"] == cp and (metric is None or t["metric"] == metric)],
           "chart": option_bool(opt["chart"], "chart", file, at["chart"]) if "chart" in opt else False}
    if metric is not None and out["chart"] and ctx.get("speed_figures", {}).get(cp):
        # The chart draws what the tables below it list, one metric: every point has its row.
        fig = ctx["speed_figures"][cp]
        traces = [t for t in fig["data"] if (t.get("meta") or {}).get("role") == metric]
        out["speed_figures"] = {**ctx["speed_figures"], cp: {**fig, "data": traces}}
    return out


def view(a) -> dict[str, Any] | None:
    s = a.of("speed")
    if s is None:
        return None
    # Rows looked up by (checkpoint, metric or selection): a handful of small tables, read once
    # as records rather than filtered once per cell.
    counts = {(r["checkpoint"], r["metric"]): r for r in views.rows(s.counts)}
    ranges = {(r["checkpoint"], r["selection"]): r for r in views.rows(s.ranges)}
    cell_rows: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in views.rows(s.cells):
        cell_rows.setdefault((r["checkpoint"], r["metric"]), []).append(r)
    present = {c for c, _ in cell_rows}
    cols = [c for c in a.paired_checkpoints if c in present]
    return {
        "checkpoints": cols, "count_rows": _count_rows(a, counts, cols), "range_rows": _range_rows(a, ranges, cols),
        "ttft": _ttft_row(a, cols),
        "band": f"\u00b1{a.band * 100:g}%", "scale": fmt.number_range(a.scale[0], a.scale[1], 1, "x"),
        "gains": _medians(a, "faster"), "losses": _medians(a, "slower"),
        "errors": s.totals["errors"], "cells_with_errors": s.totals["cells_with_errors"],
        "errors_text": errors_text(s.totals, a.report.baseline.name, a.report.candidate.name),
        "tables": _tables(a, counts, cell_rows, cols), "captions": _captions(a, counts, ranges, cols),
        "ticks": charts.scale_ticks(a.scale),
        "unpaired": [{"checkpoint": c, "reason": views.missing_reason(a, c, "baseline")} for c in a.checkpoints if c not in a.paired_checkpoints],
    }


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def errors_text(c: dict, baseline: str, candidate: str) -> str:
    """Failed requests over the cells, and on which engine: `1 error in 1 cell: 0 on A, 1 on B.`"""
    if c["errors"] is None:
        return "Error counts were not measured."
    # A count over some of the cells says which: the others' errors are unknown, not none.
    some = c["cells_counted"] < c.get("cells", c["cells_counted"])
    of = f" (of the {c['cells_counted']} of {c['cells']} cells that count them)" if some else ""
    if c["errors"] == 0:
        if some:
            return f"0 errors in the {c['cells_counted']} of {c['cells']} cells that count them; the others' were not measured."
        return "0 errors in every cell." if c["cells_counted"] > 1 else "0 errors."
    sides = [f"{c[f'{role}_errors']} on {name}" if c[f"{role}_errors"] is not None else f"not counted on {name}"
             for role, name in (("baseline", baseline), ("candidate", candidate))]
    return f"{_plural(c['errors'], 'error')} in {_plural(c['cells_with_errors'], 'cell')}{of}: {', '.join(sides)}."


def _medians(a, side: str) -> list[dict[str, Any]]:
    """The two workloads whose median ratio is furthest out on `side` (faster: largest gains;
    slower: largest losses); a median within the noise band is neither."""
    # The few workloads' rows read once, then chosen (a mask and a selection on the frame cost more).
    rows = [r for r in views.rows(a.of("speed").gains) if r["verdict"] == side]
    rows = rows[:2] if side == "faster" else rows[::-1][:2]
    return [{"workload": r["workload"], "median": fmt.speed_ratio(r["median"], a.band)} for r in rows]


def _count_rows(a, counts: dict, cols: list[str]) -> list[dict[str, Any]]:
    rule = {"faster": f"ratio above {1 + a.band:.2f}", "level": f"ratio within {1 - a.band:.2f}–{1 + a.band:.2f}",
            "slower": f"ratio below {1 - a.band:.2f}"}
    count_rows = []
    cells_frame = a.of("speed").cells
    many_streams = bool(((cells_frame["metric"] == "decode") & (cells_frame["concurrency"] > 1)).any())
    for metric in ("aggregate", "decode"):
        if not any(m == metric for _, m in counts):
            continue
        totals = {int(counts[(c, metric)]["cells"]) for c in cols if (c, metric) in counts}
        cells: list[dict[str, Any]] = []
        for c in cols:
            row = counts.get((c, metric))
            if row is None:
                cells.append({"text": fmt.MISSING, "counts": None})
                continue
            cells.append({"text": fmt.verdicts(row), "of": int(row["cells"]), "some": {k: int(row[k]) > 0 for k in VERDICTS},
                          "counts": {
                k: Fig(str(int(row[k])), how=f"{int(row[k])} {k}: {int(row['cells'])} {METRIC_LABELS[metric]} cells of {c}, {rule[k]}")
                for k in ("faster", "level", "slower")}})
        note = "above one stream, the median per request" if metric == "decode" and many_streams else ""
        sub = "; ".join(x for x in (f"of {totals.pop()}" if len(totals) == 1 else "", note) if x)
        count_rows.append({"label": f"Speed cells, {METRIC_LABELS[metric]}", "metric": metric, "sub": sub, "note": note,
                           "cells": cells})
    return count_rows


def _range_rows(a, ranges: dict, cols: list[str]) -> list[dict[str, Any]]:
    range_rows = []
    metrics = set(a.of("speed").cells["metric"].tolist())
    for sel in selections(a.headline_input):
        # A headline whose metric was measured stays, saying why it has no range where no cell falls
        # in it (an input window the receipt's cells lie outside): a row never vanishes unexplained.
        if sel.metric not in metrics:
            continue
        cells: list[dict[str, Any]] = []
        for c in cols:
            r = ranges.get((c, sel.key))
            if r is None:
                cells.append({"text": f"no {METRIC_LABELS[sel.metric]} cell {sel.scope}", "bar": None, "none": True})
                continue
            cells.append({"text": Fig(fmt.speed_ratio_range(r["low"], r["high"], a.band),
                                      how=f"lowest and highest candidate / baseline rate over {int(r['cells'])} cells: {sel.label}, {c}"),
                          "cells": int(r["cells"]),
                          "bar": charts.range_bar(r["low"], r["high"], a.scale, a.band)})
        range_rows.append({"label": sel.label, "key": sel.key, "cells": cells})
    return range_rows


def _ttft_row(a, cols: list[str]) -> dict[str, Any] | None:
    ttft = a.of("speed").ttft
    if ttft is None or ttft.empty:
        return None
    t = {r["checkpoint"]: r for r in views.rows(ttft)}
    conditions = {c: ttft_conditions(t[c]) for c in cols if c in t}
    shared = set(conditions.values())
    return {
        "label": "Time to first token", "conditions": shared.pop() if len(shared) == 1 else "",
        "cells": [{"candidate": Fig(fmt.seconds(t[c]["candidate"]), f"{t[c]['source']}.candidate.seconds"),
                   "baseline": Fig(fmt.seconds(t[c]["baseline"]), f"{t[c]['source']}.baseline.seconds"),
                   "conditions": conditions[c] if len(set(conditions.values())) > 1 else ""}
                  if c in t else None for c in cols],
    }


def ttft_conditions(r: dict) -> str:
    """Where a time to first token was measured: `long, 8K input, 1 stream`, from what the receipt gives."""
    parts = [] if pd.isna(r.get("workload")) else [str(r["workload"])]
    if not pd.isna(r.get("input_tokens")):
        parts.append(f"{fmt.tokens_k(r['input_tokens'])} input")
    if not pd.isna(r.get("concurrency")):
        n = int(r["concurrency"])
        parts.append(f"{n} stream" if n == 1 else f"{n} streams")
    return ", ".join(parts) or "workload and load not stated in the receipt"


def _tables(a, counts: dict, cell_rows: dict, cols: list[str]) -> list[dict[str, Any]]:
    tables = []
    known = origins(a.report.data)
    names = {"baseline": a.report.baseline.name, "candidate": a.report.candidate.name}
    ratio_how = "candidate rate / baseline rate (the two rates beside it)"
    for c in cols:
        for metric in ("aggregate", "decode"):
            part = cell_rows.get((c, metric))
            if not part:
                continue
            rows = [{**_rates(r, a.band), "workload": r["workload"], "concurrency": int(r["concurrency"]),
                     "input": fmt.NOT_MEASURED if views.isna(r["input_tokens"]) else fmt.tokens_k(r["input_tokens"]),
                     # What tells the row from its neighbours, for a screen reader (the row header's hidden part).
                     "conditions": ("input not measured" if views.isna(r["input_tokens"]) else f"{fmt.tokens_k(r['input_tokens'])} input")
                     + f", {int(r['concurrency'])} stream{'' if int(r['concurrency']) == 1 else 's'}",
                     "acceptance": _acceptance(r),
                     "ratio": Fig(fmt.speed_ratio(r["ratio"], a.band), how=ratio_how, dense=True),
                     "ratio_raw": f"{r['ratio']:.6f}", "verdict": r["verdict"],
                     "errors": None if views.isna(r["errors"]) else int(r["errors"]), "errors_text": _cell_errors(r, names),
                     "bar": charts.ratio_bar(r["ratio"], r["verdict"], a.scale, a.band),
                     "source": r["source"], "unit": r.get("unit") or "tokens/s", "origin": row_origin(r["source"], known)}
                    for r in part]
            count = counts[(c, metric)]
            many = [r["concurrency"] for r in rows if r["concurrency"] > 1]
            tables.append({"checkpoint": c, "metric": metric, "metric_label": METRIC_LABELS[metric], "rows": rows,
                           "rate_note": (f"a clean decode rate at one stream is that stream's; at {', '.join(map(str, sorted(set(many))))} "
                                         "streams it is the median over the requests of each request's own rate")
                           if metric == "decode" and many else "",
                           "acceptance": any(r["acceptance"] for r in rows),
                           "counts": fmt.verdicts(count), "cells": int(count["cells"])})
    return tables


# A rate prints with one decimal, or as many more as its cell's ratio needs (format.pair).
RATE_DIGITS = 1


def _rates(r: dict, band: float) -> dict[str, Fig]:
    """A cell's two rates as printed beside its ratio: never equal beside a ratio that is not 1,
    nor ordered against it."""
    base, cand = fmt.pair(r["baseline_rate"], r["candidate_rate"], RATE_DIGITS, fmt.speed_ratio(r["ratio"], band), band=band)
    return {"baseline": Fig(base, f"{r['source']}.baseline.rate", dense=True),
            "candidate": Fig(cand, f"{r['source']}.candidate.rate", dense=True)}


def _cell_errors(r: dict, names: dict[str, str]) -> str:
    """A cell's failed requests by engine: `1 error (SGLang)`."""
    if views.isna(r["errors"]) or not r["errors"]:
        return ""
    who = [names[role] for role in ("baseline", "candidate") if not views.isna(r[f"{role}_errors"]) and r[f"{role}_errors"] > 0]
    return f"{_plural(int(r['errors']), 'error')} ({', '.join(who)})"


def _acceptance(r: dict) -> list:
    """Speculation acceptance of both sides (`0.54 / 0.68`, rates, each with its place in the
    receipt), or [] when neither carries it."""
    sides = [r.get(f"{role}_acceptance_rate") for role in ("baseline", "candidate")]
    if all(views.isna(v) for v in sides):
        return []
    return [fmt.NOT_MEASURED if views.isna(v) else Fig(f"{v:.2f}", f"{r['source']}.{role}.acceptance.rate", dense=True)
            for v, role in zip(sides, ("baseline", "candidate"))]


def _captions(a, counts: dict, ranges: dict, cols: list[str]) -> dict[str, str]:
    captions = {}
    for c in cols:
        parts = []
        for metric, name in (("aggregate", "aggregate"), ("decode", "clean decode")):
            f = counts.get((c, metric))
            if f is not None:
                parts.append(f"{f['faster']} of {f['cells']} {name} cells faster, {f['level']} level, {f['slower']} slower")
        rng = ranges.get((c, "aggregate_long_input"))
        text = f"{c}: " + "; ".join(parts)
        if rng is not None:
            text += f"; {rng['label'][0].lower()}{rng['label'][1:]}: {fmt.speed_ratio_range(rng['low'], rng['high'], a.band)}"
        captions[c] = text
    return captions


BLOCKS = {
    "speed-summary": BlockSpec(
        "speed", "speed", ("checkpoint",),
        "{{ speed_summary(speed, engines, id=id) }}",
        "speed verdict counts, ratio ranges with bars, time to first token (checkpoint: one column)",
        "speed-summary", apply=summary_options),
    "speed-cells": BlockSpec(
        "speed", "speed", ("checkpoint", "metric", "chart"),
        "{% if chart %}{{ speed_chart(speed.captions[checkpoint], speed_figures[checkpoint], id) }}{% endif %}"
        "{% for t in tables %}{{ speed_cells(t, speed, engines, id ~ '-' ~ t.metric) }}{% endfor %}",
        "every speed cell of one checkpoint with its ratio bar (metric: aggregate|decode; chart: true adds the interactive chart)",
        "cells", apply=cells_options, id_by_checkpoint=True),
}
MACROS = ("speed_summary", "speed_cells", "speed_chart")


# Its lines in the other outputs (site_gen/sections/speed/view/outputs.py).
from site_gen.sections.speed.view.outputs import (HISTORY_PARTS, card_strip, dashboard, headlines, summary,  # noqa: E402,F401
                                                  summary_rows, verdict, compare_value, compare_what)


PART = ViewPart(view=view, csv=csv, blocks=BLOCKS, macros=MACROS, summary=summary, summary_rows=summary_rows,
                verdict=verdict, headlines=headlines, dashboard=dashboard, card_strip=card_strip,
                history_parts=HISTORY_PARTS, page_context=page_context, compare_what=compare_what,
                compare_value=compare_value)
