"""Speed: candidate / baseline token rates per cell, verdicts, ranges, time to first token."""
from __future__ import annotations

import math

from site_gen.analyse import speed as calc
from site_gen.analyse.frames import records
from site_gen.errors import SitegenError
from site_gen.load import require
from site_gen.render import charts, views
from site_gen.sections.base import BlockSpec, Section, option_bool, option_checkpoint


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
    tables = {"speed-cells": a.speed, "speed-counts": a.speed_counts, "speed-ranges": a.speed_ranges}
    if a.ttft is not None and not a.ttft.empty:
        tables["time-to-first-token"] = a.ttft
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


SECTION = Section(
    key="speed", title="Speed", name="speed", view=views.speed, check=check, records="cells", light=True,
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
