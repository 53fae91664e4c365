"""Speed: candidate / baseline token rates per cell, verdicts, ranges, time to first token."""
from __future__ import annotations

import math
from typing import Any

import pandas as pd

from site_gen.analysis import speed as calc
from site_gen.analysis.frames import records
from site_gen.analysis.report import Analysis
from site_gen.analysis.speed import METRIC_LABELS, Selection
from site_gen.core.errors import SitegenError
from site_gen.receipts.load import require
from site_gen.render import charts, views
from site_gen.render import format as fmt
from site_gen.render.provenance import Fig, origins, row_origin
from site_gen.sections.base import option_bool, option_checkpoint, BlockSpec, Section

def check(speed: dict, file, checkpoint_ref) -> None:
    # Each message and path is made only for the record at fault: a receipt holds thousands of cells.
    seen_cells: dict[tuple, int] = {}
    for i, cell in enumerate(speed["cells"]):
        checkpoint_ref(cell["checkpoint"], f"$.speed.cells[{i}].checkpoint")
        base, cand = cell["baseline"]["rate"], cell["candidate"]["rate"]
        if not (base > 0 and cand > 0 and 0 < cand / base < math.inf):
            _bad_rates(cell, file, f"$.speed.cells[{i}]")
        key = (cell["checkpoint"], cell["workload"], cell.get("input_tokens"), cell["concurrency"], cell["metric"])
        if key in seen_cells:
            raise SitegenError(f"duplicate speed cell (same checkpoint, workload, input, concurrency, metric as "
                               f"$.speed.cells[{seen_cells[key]}])", file, f"$.speed.cells[{i}]")
        seen_cells[key] = i
    seen_ttft: dict[str, int] = {}
    for i, t in enumerate(speed.get("ttft", [])):
        checkpoint_ref(t["checkpoint"], f"$.speed.ttft[{i}].checkpoint")
        require(t["checkpoint"] not in seen_ttft,
                f"duplicate time to first token for checkpoint '{t['checkpoint']}' (also $.speed.ttft[{seen_ttft.get(t['checkpoint'])}]); "
                "one per checkpoint", file, f"$.speed.ttft[{i}]")
        seen_ttft[t["checkpoint"]] = i


def _bad_rates(cell: dict, file, where: str) -> None:
    for role in ("baseline", "candidate"):
        rate = cell[role]["rate"]
        require(rate > 0, f"rate must be above zero, got {rate}", file, f"{where}.{role}.rate")
    ratio = cell["candidate"]["rate"] / cell["baseline"]["rate"]
    require(0 < ratio < math.inf, f"the rates' ratio {cell['candidate']['rate']} / {cell['baseline']['rate']} "
            "is not a representable number", file, where)


# Fields schema 1.1 lets a cell leave out (or add): absent, they are columns of NaN.
_OPTIONAL_CELL_FIELDS = ["input_tokens", "baseline_errors", "candidate_errors", "baseline_acceptance_rate",
                         "candidate_acceptance_rate", "baseline_acceptance_mean_length", "candidate_acceptance_mean_length"]


def engine_records(data: dict):
    for part in ("cells", "ttft"):
        for i, r in enumerate(data.get("speed", {}).get(part, [])):
            for role in ("baseline", "candidate"):
                yield r["checkpoint"], role, f"$.speed.{part}[{i}].{role}"


def selections(a) -> tuple[Selection, ...]:
    """The headline ranges: decode at one stream, and aggregate over the configured input window
    (`headline_input`), or over every input when none is set."""
    window = a.headline_input
    if window is None:
        aggregate = Selection("aggregate_long_input", "Aggregate, every input", "aggregate")
    else:
        low, high = fmt.tokens_k(window[0]), fmt.tokens_k(window[1])
        shown = low if low == high else f"{low}{fmt.DASH}{high}"
        aggregate = Selection("aggregate_long_input", f"Aggregate, {shown} input", "aggregate",
                              min_input=window[0], max_input=window[1])
    return (Selection("one_stream_decode", "Decode, one stream", "decode", concurrency=1), aggregate)


def analyse(a, s: dict) -> None:
    if not s["cells"]:
        return
    a.speed = calc.cell_ratios(records(s["cells"], "$.speed.cells", _OPTIONAL_CELL_FIELDS), a.band)
    a.speed_counts = calc.verdict_counts(a.speed)
    a.speed_ranges = calc.ratio_ranges(a.speed, selections(a))
    a.speed_gains = calc.workload_gains(a.speed, a.band)
    a.speed_totals = calc.totals(a.speed, a.speed_counts)
    a.ttft = calc.ttft(records(s.get("ttft", []), "$.speed.ttft", ["input_tokens"]))


def _cells_table(cells: pd.DataFrame) -> pd.DataFrame:
    """The cells as the receipt holds them: optional fields it never gave are no columns."""
    column = dict(zip(cells.columns, views.arrays(cells)))  # read once, not as a Series per test
    out = cells.drop(columns=[c for c in _OPTIONAL_CELL_FIELDS if pd.isna(column[c]).all()])
    if not pd.isna(column["errors"]).any():
        out["errors"] = out["errors"].astype(int)
    return out


def csv(a) -> dict:
    if a.speed is None:
        return {}
    tables = {"speed-cells": fmt.csv_ratios(_cells_table(a.speed), "ratio"), "speed-counts": a.speed_counts,
              "speed-ranges": fmt.csv_ratios(a.speed_ranges, "low", "high")}
    if a.ttft is not None and not a.ttft.empty:
        tables["time-to-first-token"] = fmt.csv_ratios(a.ttft, "ratio")
    return tables


def page_context(a, ctx: dict) -> None:
    if ctx["speed"]:
        r = a.report
        # Drawn once per analysis: the speed page and an author page's speed chart block share them.
        key = ("speed figures", tuple(ctx["speed"]["checkpoints"]))
        if key not in a.displayed:
            a.displayed[key] = {c: charts.speed_figure(a.speed, c, a.scale, a.band, r.candidate.name, r.baseline.name)
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
        **calc.error_counts(a.speed, cp),
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
    return fmt.verdicts(row)


def view(a: Analysis) -> dict[str, Any] | None:
    if a.speed is None:
        return None
    # Rows looked up by (checkpoint, metric or selection): a handful of small tables, read once
    # as records rather than filtered once per cell.
    counts = {(r["checkpoint"], r["metric"]): r for r in views.rows(a.speed_counts)}
    ranges = {(r["checkpoint"], r["selection"]): r for r in views.rows(a.speed_ranges)}
    cell_rows: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in views.rows(a.speed):
        cell_rows.setdefault((r["checkpoint"], r["metric"]), []).append(r)
    present = {c for c, _ in cell_rows}
    cols = [c for c in a.paired_checkpoints if c in present]
    return {
        "checkpoints": cols, "count_rows": _count_rows(a, counts, cols), "range_rows": _range_rows(a, ranges, cols),
        "ttft": _ttft_row(a, cols),
        "band": f"\u00b1{a.band * 100:g}%", "scale": fmt.number_range(a.scale[0], a.scale[1], 1, "x"),
        "gains": _medians(a, "faster"), "losses": _medians(a, "slower"),
        "errors": a.speed_totals["errors"], "cells_with_errors": a.speed_totals["cells_with_errors"],
        "tables": _tables(a, counts, cell_rows, cols), "captions": _captions(a, counts, ranges, cols),
        "ticks": charts.scale_ticks(a.scale),
        "unpaired": [{"checkpoint": c, "reason": views.missing_reason(a, c, "baseline")} for c in a.checkpoints if c not in a.paired_checkpoints],
    }


def _medians(a: Analysis, side: str) -> list[dict[str, Any]]:
    """The two workloads whose median ratio is furthest out on `side` (faster: largest gains;
    slower: largest losses); a median within the noise band is neither."""
    g = a.speed_gains[a.speed_gains["verdict"] == side]
    g = g.head(2) if side == "faster" else g.iloc[::-1].head(2)
    return [{"workload": r["workload"], "median": fmt.speed_ratio(r["median"], a.band)} for r in views.rows(g)]


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
            cells.append({"text": _counts_text(row), "of": int(row["cells"]), "some": {k: int(row[k]) > 0 for k in calc.VERDICTS},
                          "counts": {
                k: Fig(str(int(row[k])), how=f"{int(row[k])} {k}: {int(row['cells'])} {METRIC_LABELS[metric]} cells of {c}, {rule[k]}")
                for k in ("faster", "level", "slower")}})
        count_rows.append({"label": f"Speed cells, {METRIC_LABELS[metric]}", "metric": metric,
                           "sub": f"of {totals.pop()}" if len(totals) == 1 else "", "cells": cells})
    return count_rows


def _range_rows(a: Analysis, ranges: dict, cols: list[str]) -> list[dict[str, Any]]:
    range_rows = []
    for sel in selections(a):
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


def _ttft_row(a: Analysis, cols: list[str]) -> dict[str, Any] | None:
    if a.ttft is None or a.ttft.empty:
        return None
    t = {r["checkpoint"]: r for r in views.rows(a.ttft)}
    inputs = sorted(set(a.ttft["input_tokens"].dropna()))
    return {
        "label": f"Time to first token at {fmt.tokens_k(inputs[-1])}" if len(inputs) == 1 and a.ttft["input_tokens"].notna().all()
        else "Time to first token",
        "cells": [{"candidate": Fig(fmt.seconds(t[c]["candidate"]), f"{t[c]['source']}.candidate.seconds"),
                   "baseline": Fig(fmt.seconds(t[c]["baseline"]), f"{t[c]['source']}.baseline.seconds")}
                  if c in t else None for c in cols],
    }


def _tables(a: Analysis, counts: dict, cell_rows: dict, cols: list[str]) -> list[dict[str, Any]]:
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
                           "counts": _counts_text(count), "cells": int(count["cells"])})
    return tables


def _acceptance(r: dict) -> str:
    """Speculation acceptance of both sides, `0.54 / 0.68` (rate), or "" when neither carries it."""
    sides = [r.get(f"{role}_acceptance_rate") for role in ("baseline", "candidate")]
    if all(pd.isna(v) for v in sides):
        return ""
    return " / ".join(fmt.NOT_MEASURED if pd.isna(v) else f"{v:.2f}" for v in sides)


def _captions(a: Analysis, counts: dict, ranges: dict, cols: list[str]) -> dict[str, str]:
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
