"""Speed: candidate / baseline token rates per cell, verdicts, ranges, time to first token."""
from __future__ import annotations

import math
from typing import Any

import pandas as pd

from site_gen.analyse import speed as calc
from site_gen.analyse.frames import records
from site_gen.analyse.report import Analysis
from site_gen.analyse.speed import DEFAULT_SELECTIONS, METRIC_LABELS
from site_gen.errors import SitegenError
from site_gen.load import require
from site_gen.render import charts, views
from site_gen.render import format as fmt
from site_gen.render.provenance import Fig
from site_gen.sections.base import option_bool, option_checkpoint, BlockSpec, Section

def check(speed: dict, file, checkpoint_ref) -> None:
    seen_cells: dict[tuple, int] = {}
    for i, cell in enumerate(speed["cells"]):
        where = f"$.speed.cells[{i}]"
        checkpoint_ref(cell["checkpoint"], where + ".checkpoint")
        for role in ("baseline", "candidate"):
            rate = cell[role]["rate"]
            require(rate > 0, f"rate must be above zero, got {rate}", file, f"{where}.{role}.rate")
        ratio = cell["candidate"]["rate"] / cell["baseline"]["rate"]
        require(0 < ratio < math.inf, f"the rates' ratio {cell['candidate']['rate']} / {cell['baseline']['rate']} "
                "is not a representable number", file, where)
        key = (cell["checkpoint"], cell["workload"], cell["input_tokens"], cell["concurrency"], cell["metric"])
        require(key not in seen_cells, f"duplicate speed cell (same checkpoint, workload, input, concurrency, metric as $.speed.cells[{seen_cells.get(key)}])", file, where)
        seen_cells[key] = i
    seen_ttft: dict[str, int] = {}
    for i, t in enumerate(speed.get("ttft", [])):
        checkpoint_ref(t["checkpoint"], f"$.speed.ttft[{i}].checkpoint")
        require(t["checkpoint"] not in seen_ttft,
                f"duplicate time to first token for checkpoint '{t['checkpoint']}' (also $.speed.ttft[{seen_ttft.get(t['checkpoint'])}]); "
                "one per checkpoint", file, f"$.speed.ttft[{i}]")
        seen_ttft[t["checkpoint"]] = i


def engine_records(data: dict):
    for part in ("cells", "ttft"):
        for i, r in enumerate(data.get("speed", {}).get(part, [])):
            for role in ("baseline", "candidate"):
                yield r["checkpoint"], role, f"$.speed.{part}[{i}].{role}"


def analyse(a, s: dict) -> None:
    if not s["cells"]:
        return
    a.speed = calc.cell_ratios(records(s["cells"], "$.speed.cells"), a.band)
    a.speed_counts = calc.verdict_counts(a.speed)
    a.speed_ranges = calc.ratio_ranges(a.speed)
    a.speed_gains = calc.workload_gains(a.speed)
    a.speed_totals = calc.totals(a.speed, a.speed_counts)
    a.ttft = calc.ttft(records(s.get("ttft", []), "$.speed.ttft"))


def csv(a) -> dict:
    if a.speed is None:
        return {}
    tables = {"speed-cells": fmt.csv_ratios(a.speed, "ratio"), "speed-counts": a.speed_counts,
              "speed-ranges": fmt.csv_ratios(a.speed_ranges, "low", "high")}
    if a.ttft is not None and not a.ttft.empty:
        tables["time-to-first-token"] = fmt.csv_ratios(a.ttft, "ratio")
    return tables


def page_context(a, ctx: dict) -> None:
    if ctx["speed"]:
        r = a.report
        ctx["speed_figures"] = {c: charts.speed_figure(a.speed, c, a.scale, a.band, r.candidate.name, r.baseline.name)
                                for c in ctx["speed"]["checkpoints"]}


def summary_options(a, ctx: dict, opt: dict, at: dict, file, line: int) -> dict:
    if "checkpoint" not in opt:
        return {}
    s = ctx["speed"]
    cp = option_checkpoint(opt["checkpoint"], s["checkpoints"], file, at["checkpoint"], "speed comparison")
    i = s["checkpoints"].index(cp)
    part = a.speed[a.speed["checkpoint"] == cp]
    return {"speed": {
        **s, "checkpoints": [cp],
        "count_rows": [{**r, "cells": [r["cells"][i]], "sub": f"of {r['cells'][i]['of']}" if r["cells"][i].get("of") else ""}
                       for r in s["count_rows"]],
        "range_rows": [{**r, "cells": [r["cells"][i]]} for r in s["range_rows"]],
        "ttft": {**s["ttft"], "cells": [s["ttft"]["cells"][i]]} if s["ttft"] else None,
        "gains": [], "unpaired": [],
        "errors": int(part["errors"].sum()), "cells_with_errors": int((part["errors"] > 0).sum()),
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


def _counts_text(row: pd.Series) -> str:
    return f"{row['faster']} faster \u00b7 {row['level']} level \u00b7 {row['slower']} slower"


def view(a: Analysis) -> dict[str, Any] | None:
    if a.speed is None:
        return None
    # Rows looked up by (checkpoint, metric or selection): a handful of small tables, read once
    # as records rather than filtered once per cell.
    counts = {(r["checkpoint"], r["metric"]): r for r in a.speed_counts.to_dict("records")}
    ranges = {(r["checkpoint"], r["selection"]): r for r in a.speed_ranges.to_dict("records")}
    cell_rows: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in a.speed.to_dict("records"):
        cell_rows.setdefault((r["checkpoint"], r["metric"]), []).append(r)
    present = {c for c, _ in cell_rows}
    cols = [c for c in a.paired_checkpoints if c in present]
    return {
        "checkpoints": cols, "count_rows": _count_rows(a, counts, cols), "range_rows": _range_rows(a, ranges, cols),
        "ttft": _ttft_row(a, cols),
        "band": f"\u00b1{a.band * 100:g}%", "scale": fmt.number_range(a.scale[0], a.scale[1], 1, "x"),
        "gains": [{"workload": g["workload"], "median": f"~{g['median']:.1f}x"} for g in a.speed_gains.head(2).to_dict("records")],
        "errors": a.speed_totals["errors"], "cells_with_errors": a.speed_totals["cells_with_errors"],
        "tables": _tables(a, counts, cell_rows, cols), "captions": _captions(counts, ranges, cols),
        "ticks": charts.scale_ticks(a.scale),
        "unpaired": [{"checkpoint": c, "reason": views.missing_reason(a, c, "baseline")} for c in a.checkpoints if c not in a.paired_checkpoints],
    }


def _count_rows(a: Analysis, counts: dict, cols: list[str]) -> list[dict[str, Any]]:
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
            cells.append({"text": _counts_text(row), "of": int(row["cells"]), "counts": {
                k: Fig(str(int(row[k])), how=f"{int(row[k])} {k}: {int(row['cells'])} {METRIC_LABELS[metric]} cells of {c}, {rule[k]}")
                for k in ("faster", "level", "slower")}})
        count_rows.append({"label": f"Speed cells, {METRIC_LABELS[metric]}", "metric": metric,
                           "sub": f"of {totals.pop()}" if len(totals) == 1 else "", "cells": cells})
    return count_rows


def _range_rows(a: Analysis, ranges: dict, cols: list[str]) -> list[dict[str, Any]]:
    range_rows = []
    for sel in DEFAULT_SELECTIONS:
        if not any(k == sel.key for _, k in ranges):
            continue
        cells = []
        for c in cols:
            r = ranges.get((c, sel.key))
            if r is None:
                cells.append({"text": fmt.MISSING, "bar": None})
                continue
            cells.append({"text": Fig(fmt.ratio_range(r["low"], r["high"]),
                                      how=f"lowest and highest candidate / baseline rate over {int(r['cells'])} cells: {sel.label}, {c}"),
                          "cells": int(r["cells"]),
                          "bar": charts.range_bar(r["low"], r["high"], a.scale, a.band)})
        range_rows.append({"label": sel.label, "key": sel.key, "cells": cells})
    return range_rows


def _ttft_row(a: Analysis, cols: list[str]) -> dict[str, Any] | None:
    if a.ttft is None or a.ttft.empty:
        return None
    t = {r["checkpoint"]: r for r in a.ttft.to_dict("records")}
    inputs = sorted(set(a.ttft["input_tokens"]))
    return {
        "label": f"Time to first token at {fmt.tokens_k(inputs[-1])}" if len(inputs) == 1 else "Time to first token",
        "cells": [{"candidate": Fig(fmt.seconds(t[c]["candidate"]), f"{t[c]['source']}.candidate.seconds"),
                   "baseline": Fig(fmt.seconds(t[c]["baseline"]), f"{t[c]['source']}.baseline.seconds")}
                  if c in t else None for c in cols],
    }


def _tables(a: Analysis, counts: dict, cell_rows: dict, cols: list[str]) -> list[dict[str, Any]]:
    tables = []
    for c in cols:
        for metric in ("aggregate", "decode"):
            part = cell_rows.get((c, metric))
            if not part:
                continue
            rows = [{"workload": r["workload"], "input": fmt.tokens_k(r["input_tokens"]), "concurrency": int(r["concurrency"]),
                     "baseline": f"{r['baseline_rate']:,.1f}", "candidate": f"{r['candidate_rate']:,.1f}",
                     "ratio": fmt.ratio(r["ratio"]), "ratio_raw": f"{r['ratio']:.6f}", "verdict": r["verdict"],
                     "errors": int(r["errors"]), "bar": charts.ratio_bar(r["ratio"], r["verdict"], a.scale, a.band),
                     "source": r["source"], "unit": r.get("unit") or "tokens/s"}
                    for r in part]
            count = counts[(c, metric)]
            tables.append({"checkpoint": c, "metric": metric, "metric_label": METRIC_LABELS[metric], "rows": rows,
                           "counts": _counts_text(count), "cells": int(count["cells"])})
    return tables


def _captions(counts: dict, ranges: dict, cols: list[str]) -> dict[str, str]:
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
            text += f"; aggregate {fmt.ratio_range(rng['low'], rng['high'])} at 32K\u2013128K input"
        captions[c] = text
    return captions


SECTION = Section(
    key="speed", title="Speed", name="speed", view=view, check=check, records="cells", light=True,
    engine_records=engine_records, analyse=analyse, csv=csv, provenance=True, charts=True, page_context=page_context,
    blocks={
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
    },
)
