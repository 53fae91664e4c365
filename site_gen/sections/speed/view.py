"""Speed's view: the page's display data, its CSV tables, its author blocks and its lines in the
summary, the dashboard and the share card."""
from __future__ import annotations

import math
from typing import Any

import pandas as pd

from site_gen.analysis.verdict import VERDICTS
from site_gen.core.errors import SitegenError
from site_gen.render import charts, views
from site_gen.render import format as fmt
from site_gen.render.provenance import Fig, origins, row_origin
from site_gen.sections.base import BlockSpec, option_bool, option_checkpoint
from site_gen.sections.speed.analysis import METRIC_LABELS, OPTIONAL_CELL_FIELDS, error_counts, selections


def _cells_table(cells: pd.DataFrame) -> pd.DataFrame:
    """The cells as the receipt holds them: optional fields it never gave are no columns."""
    column = dict(zip(cells.columns, views.arrays(cells)))  # read once, not as a Series per test
    out = cells.drop(columns=[c for c in OPTIONAL_CELL_FIELDS if pd.isna(column[c]).all()])
    if not pd.isna(column["errors"]).any():
        out["errors"] = out["errors"].astype(int)
    return out


def csv(a) -> dict:
    s = a.of("speed")
    if s is None:
        return {}
    tables = {"speed-cells": fmt.csv_ratios(_cells_table(s.cells), "ratio"), "speed-counts": s.counts,
              "speed-ranges": fmt.csv_ratios(s.ranges, "low", "high")}
    if s.ttft is not None and not s.ttft.empty:
        tables["time-to-first-token"] = fmt.csv_ratios(s.ttft, "ratio")
    return tables


def page_context(a, ctx: dict) -> None:
    if ctx["speed"]:
        r = a.report
        # Drawn once per analysis: the speed page and an author page's speed chart block share them.
        key = ("speed figures", tuple(ctx["speed"]["checkpoints"]))
        if key not in a.displayed:
            a.displayed[key] = {c: charts.speed_figure(a.of("speed").cells, c, a.scale, a.band, r.candidate.name, r.baseline.name)
                                for c in ctx["speed"]["checkpoints"]}
        ctx["speed_figures"] = a.displayed[key]


def summary_options(a, ctx: dict, opt: dict, at: dict, file, line: int) -> dict:
    if "checkpoint" not in opt:
        return {}
    s = ctx["speed"]
    cp = option_checkpoint(opt["checkpoint"], s["checkpoints"], file, at["checkpoint"], "speed comparison")
    i = s["checkpoints"].index(cp)
    return {"speed": {
        **s, "checkpoints": [cp],
        "count_rows": [{**r, "cells": [r["cells"][i]], "sub": f"of {r['cells'][i]['of']}" if r["cells"][i].get("of") else ""}
                       for r in s["count_rows"]],
        "range_rows": [{**r, "cells": [r["cells"][i]]} for r in s["range_rows"]],
        "ttft": {**s["ttft"], "cells": [s["ttft"]["cells"][i]]} if s["ttft"] else None,
        "gains": [], "losses": [], "unpaired": [],
        **error_counts(a.of("speed").cells, cp),
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
        "tables": _tables(a, counts, cell_rows, cols), "captions": _captions(a, counts, ranges, cols),
        "ticks": charts.scale_ticks(a.scale),
        "unpaired": [{"checkpoint": c, "reason": views.missing_reason(a, c, "baseline")} for c in a.checkpoints if c not in a.paired_checkpoints],
    }


def _medians(a, side: str) -> list[dict[str, Any]]:
    """The two workloads whose median ratio is furthest out on `side` (faster: largest gains;
    slower: largest losses); a median within the noise band is neither."""
    gains = a.of("speed").gains
    g = gains[gains["verdict"] == side]
    g = g.head(2) if side == "faster" else g.iloc[::-1].head(2)
    return [{"workload": r["workload"], "median": fmt.speed_ratio(r["median"], a.band)} for r in views.rows(g)]


def _count_rows(a, counts: dict, cols: list[str]) -> list[dict[str, Any]]:
    rule = {"faster": f"ratio above {1 + a.band:.2f}", "level": f"ratio within {1 - a.band:.2f}–{1 + a.band:.2f}",
            "slower": f"ratio below {1 - a.band:.2f}"}
    count_rows = []
    for metric in ("aggregate", "decode"):
        if not any(m == metric for _, m in counts):
            continue
        totals = {int(counts[(c, metric)]["cells"]) for c in cols if (c, metric) in counts}
        cells = []
        for c in cols:
            row = counts.get((c, metric))
            if row is None:
                cells.append({"text": fmt.MISSING, "counts": None})
                continue
            cells.append({"text": fmt.verdicts(row), "of": int(row["cells"]), "some": {k: int(row[k]) > 0 for k in VERDICTS},
                          "counts": {
                k: Fig(str(int(row[k])), how=f"{int(row[k])} {k}: {int(row['cells'])} {METRIC_LABELS[metric]} cells of {c}, {rule[k]}")
                for k in ("faster", "level", "slower")}})
        count_rows.append({"label": f"Speed cells, {METRIC_LABELS[metric]}", "metric": metric,
                           "sub": f"of {totals.pop()}" if len(totals) == 1 else "", "cells": cells})
    return count_rows


def _range_rows(a, ranges: dict, cols: list[str]) -> list[dict[str, Any]]:
    range_rows = []
    for sel in selections(a.headline_input):
        if not any(k == sel.key for _, k in ranges):
            continue
        cells = []
        for c in cols:
            r = ranges.get((c, sel.key))
            if r is None:
                cells.append({"text": fmt.MISSING, "bar": None})
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
    inputs = sorted(set(ttft["input_tokens"].dropna()))
    return {
        "label": f"Time to first token at {fmt.tokens_k(inputs[-1])}" if len(inputs) == 1 and ttft["input_tokens"].notna().all()
        else "Time to first token",
        "cells": [{"candidate": Fig(fmt.seconds(t[c]["candidate"]), f"{t[c]['source']}.candidate.seconds"),
                   "baseline": Fig(fmt.seconds(t[c]["baseline"]), f"{t[c]['source']}.baseline.seconds")}
                  if c in t else None for c in cols],
    }


def _tables(a, counts: dict, cell_rows: dict, cols: list[str]) -> list[dict[str, Any]]:
    tables = []
    known = origins(a.report.data)
    for c in cols:
        for metric in ("aggregate", "decode"):
            part = cell_rows.get((c, metric))
            if not part:
                continue
            rows = [{"workload": r["workload"], "concurrency": int(r["concurrency"]),
                     "input": fmt.NOT_MEASURED if pd.isna(r["input_tokens"]) else fmt.tokens_k(r["input_tokens"]),
                     "acceptance": _acceptance(r),
                     "baseline": f"{r['baseline_rate']:,.1f}", "candidate": f"{r['candidate_rate']:,.1f}",
                     "ratio": fmt.speed_ratio(r["ratio"], a.band), "ratio_raw": f"{r['ratio']:.6f}", "verdict": r["verdict"],
                     "errors": None if pd.isna(r["errors"]) else int(r["errors"]), "bar": charts.ratio_bar(r["ratio"], r["verdict"], a.scale, a.band),
                     "source": r["source"], "unit": r.get("unit") or "tokens/s", "origin": row_origin(r["source"], known)}
                    for r in part]
            count = counts[(c, metric)]
            tables.append({"checkpoint": c, "metric": metric, "metric_label": METRIC_LABELS[metric], "rows": rows,
                           "acceptance": any(r["acceptance"] for r in rows),
                           "counts": fmt.verdicts(count), "cells": int(count["cells"])})
    return tables


def _acceptance(r: dict) -> str:
    """Speculation acceptance of both sides, `0.54 / 0.68` (rate), or "" when neither carries it."""
    sides = [r.get(f"{role}_acceptance_rate") for role in ("baseline", "candidate")]
    if all(pd.isna(v) for v in sides):
        return ""
    return " / ".join(fmt.NOT_MEASURED if pd.isna(v) else f"{v:.2f}" for v in sides)


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
        "every speed cell of one checkpoint with its ratio bar (metric: aggregate|decode; chart: true adds the Plotly chart)",
        "cells", apply=cells_options, id_by_checkpoint=True),
}
MACROS = ("speed_summary", "speed_cells", "speed_chart")


# -- its lines in the other outputs -----------------------------------------------------------

def dashboard(a) -> dict[str, Any]:
    """Its cell in the table of reports: the verdict counts over every cell, sorted by the share
    faster, with the aggregate range as a bar."""
    s = a.of("speed")
    if s is None:
        return {}
    t = s.totals
    cell: dict[str, Any] = {"text": fmt.verdicts(t), "sort": f"{t['faster_share']:.6f}"}
    if t["aggregate"]:
        low, high, n = t["aggregate"]
        cell["bar"] = charts.range_bar(low, high, a.scale, a.band)
        cell["bar_label"] = "aggregate"
        cell["range"] = Fig(fmt.speed_ratio_range(low, high, a.band), how=f"lowest and highest candidate / baseline over {n} aggregate cells")
    return {"speed": cell}


def headlines(a) -> list[tuple[str, str, str]]:
    """(label, text, colour key) for the share card and the page description."""
    s = a.of("speed")
    if s is None or not s.totals:
        return []
    t = s.totals
    faster, level, slower, cells = t["faster"], t["level"], t["slower"], t["cells"]
    # A verdict colour only when the cells share the side: mixed cells are no win nor loss.
    key = "faster" if faster and not slower else "slower" if slower and not faster else "level"
    return [("Speed:", f"{faster} of {cells} cells faster, {level} level, {slower} slower", key)]


def card_strip(a) -> tuple[tuple, str] | None:
    """The share card's strip: every cell's ratio as a dot by verdict, one row per metric."""
    s = a.of("speed")
    if s is None or s.cells.empty:
        return None
    r = a.report
    metrics = list(dict.fromkeys(s.cells["metric"]))
    strip = tuple((float(row.ratio), str(row.verdict), metrics.index(row.metric))
                  for row in s.cells.sort_values(["metric", "checkpoint", "ratio"], kind="stable").itertuples()
                  if math.isfinite(row.ratio))
    return strip, f"Every speed cell, {r.candidate.name} / {r.baseline.name}; band ±{a.band * 100:g}%:"


def summary(a, shown: dict | None) -> dict[str, Any] | None:
    """Its part of `sitegen summary --format json`, from the page's own view (`shown`)."""
    if not shown:
        return None
    counts = a.of("speed").counts
    speed: dict[str, Any] = {}
    labels: dict[str, str] = {}
    for i, c in enumerate(shown["checkpoints"]):
        entry: dict[str, Any] = {}
        for row in views.rows(counts):
            if row["checkpoint"] == c:
                entry[row["metric"]] = {k: int(row[k]) for k in ("faster", "level", "slower", "cells")}
        for row in shown["range_rows"]:
            entry[row["key"]] = str(row["cells"][i]["text"])
            labels[row["key"]] = row["label"]
        if shown["ttft"] and shown["ttft"]["cells"][i]:
            t = shown["ttft"]["cells"][i]
            entry["ttft"] = {"candidate": str(t["candidate"]), "baseline": str(t["baseline"])}
        speed[c] = entry
    return {"speed": {"noise_band": shown["band"], "errors": shown["errors"], "ranges": labels, "checkpoints": speed}}


def summary_rows(d: dict[str, Any]) -> list[tuple[str, str]]:
    """Its lines of the text and markdown summary, from its part of the JSON."""
    rows: list[tuple[str, str]] = []
    if "speed" not in d:
        return rows
    for c, e in d["speed"]["checkpoints"].items():
        for metric in ("aggregate", "decode"):
            if metric in e:
                v = e[metric]
                rows.append((f"Speed {c}, {METRIC_LABELS[metric]}", f"{fmt.verdicts(v)} (of {v['cells']})"))
        for key, label in d["speed"]["ranges"].items():
            if key in e:
                rows.append((f"Speed {c}, {label[0].lower()}{label[1:]}", e[key]))
    return rows


def _history(frame, h) -> list[dict[str, Any]]:
    """Its history part: each series' median, range and verdict counts, release after release."""
    def phrase(c) -> str:
        return f"median {fmt.speed_ratio(c.old, h.band)} \u2192 {fmt.speed_ratio(c.new, h.band)} ({fmt.speed_ratio(c.change, h.band)})"

    return h.table(frame, "{series}", [("Median", True), ("Range", False), ("Cells", False), ("Since the release before", False)],
                   lambda r: [
        {"text": Fig(fmt.speed_ratio(r["median"], h.band), how=f"median {r['candidate']} / {r['baseline']} over {r['cells']} "
                     f"{METRIC_LABELS.get(r['metric'], r['metric'])} cells of {r['checkpoint']}")},
        {"text": fmt.speed_ratio_range(r["low"], r["high"], h.band), "bar": charts.range_bar(r["low"], r["high"], h.scale, h.band)},
        {"text": fmt.verdicts(r)}, h.mark(r, phrase)])


HISTORY_PARTS = {"speed": (10, _history)}


# -- against an earlier release (`sitegen compare`) ----------------------------------------------

def compare_what(item) -> str:
    """A cell as the pages name it: `Q4 · chat · 32K input · 16 streams · aggregate`."""
    w = item.where
    size = f"input {fmt.NOT_MEASURED}" if pd.isna(w.get("input_tokens")) else f"{fmt.tokens_k(w['input_tokens'])} input"
    if item.kind == "ttft":
        return f"{w['checkpoint']} · time to first token, {size}"
    streams = f"{w['concurrency']} stream{'' if w['concurrency'] == 1 else 's'}"
    return f"{w['checkpoint']} · {w['workload']} · {size} · {streams} · {METRIC_LABELS.get(w['metric'], w['metric'])}"


def compare_value(c, v: float, signed: bool = False) -> str:
    return fmt.fixed(v, 2) if c.kind == "ttft" else f"{v:,.1f}"
