"""Precision: paired differences of accuracy measures, with 95% intervals."""
from __future__ import annotations

from typing import Any

import pandas as pd

from site_gen.analysis import precision as calc
from site_gen.analysis.frames import records
from site_gen.analysis.report import Analysis
from site_gen.core.errors import SitegenError
from site_gen.receipts.load import require, unique_ids
from site_gen.render import charts, views
from site_gen.render import format as fmt
from site_gen.render.provenance import Fig
from site_gen.sections.base import option_bool, option_checkpoint, BlockSpec, Section, paired_records

def check(p: dict, file, checkpoint_ref) -> None:
    unique_ids([m["id"] for m in p["measures"]], "measure", "$.precision.measures", file)
    measures = {m["id"]: m for m in p["measures"]}
    seen = set()
    for i, r in enumerate(p["results"]):
        where = f"$.precision.results[{i}]"
        checkpoint_ref(r["checkpoint"], where + ".checkpoint")
        require(r["measure"] in measures, f"unknown measure '{r['measure']}'; declared: {', '.join(measures)}", file, where + ".measure")
        key = (r["checkpoint"], r["measure"])
        require(key not in seen, f"duplicate result for {key[0]} / {key[1]}", file, where)
        seen.add(key)
        require("candidate" in r or "baseline" in r, "a result needs at least one engine's value", file, where)
        _check_values(r, measures[r["measure"]], p["rows"], file, where)
        _check_pair(r, p["rows"], file, where)
        if measures[r["measure"]]["unit"] == "percent":
            _check_percent_gap(r, file, where)


def _check_values(r: dict, measure: dict, rows: dict, file, where: str) -> None:
    for role in ("baseline", "candidate"):
        if role in r:
            rid = r[role]["rows"]
            require(rid in rows, f"unknown rows '{rid}'; declared in $.precision.rows: {', '.join(rows)}", file, f"{where}.{role}.rows")
            require(rows[rid]["panel"] == measure["panel"],
                    f"rows '{rid}' are panel {rows[rid]['panel']} but measure '{measure['id']}' is on panel {measure['panel']}: "
                    "values from different panels are not comparable", file, f"{where}.{role}.rows")
            value = r[role]["value"]
            if measure["unit"] == "percent" and not 0 <= value <= 100:
                raise SitegenError(f"value {value} is not a percentage (0 to 100), the unit of measure '{measure['id']}'",
                                   file, f"{where}.{role}.value")


def _check_pair(r: dict, rows: dict, file, where: str) -> None:
    if "baseline" in r and "candidate" in r:
        b, c = rows[r["baseline"]["rows"]], rows[r["candidate"]["rows"]]
        for part in ("panel", "plan", "teacher", "sha256"):
            require(b[part] == c[part],
                    f"not comparable: baseline rows have {part} {b[part]!r}, candidate rows have {c[part]!r}; "
                    "a paired difference needs identical rows", file, f"{where}.candidate.rows")
        require("difference" in r and "interval" in r,
                "a result with both engines needs the measured 'difference' and its 'interval'", file, where)
    elif "difference" in r or "interval" in r:
        raise SitegenError("a difference needs both engines' values", file, where)
    if "interval" in r:
        low, high = r["interval"]
        require(low <= high, f"interval low end {low} is above its high end {high}", file, where + ".interval")
        require(low <= r["difference"] <= high,
                f"interval [{low}, {high}] does not contain its difference {r['difference']}", file, where + ".interval")


def _check_percent_gap(r: dict, file, where: str) -> None:
    """Two values in percent (0 to 100) differ by at most 100 points, and so does their interval."""
    for field, values in (("difference", [r.get("difference")]), ("interval", r.get("interval", []))):
        for v in values:
            require(v is None or -100 <= v <= 100, f"{field} {v} is more than 100 points: the measure is in percent, "
                    "so two of its values differ by at most 100", file, f"{where}.{field}")


engine_records = paired_records("precision")


def analyse(a, p: dict) -> None:
    a.precision = calc.differences(records(p["results"], "$.precision.results"), pd.DataFrame(p["measures"]))
    a.precision_summary = calc.summary(a.precision)
    a.precision_gaps = calc.checkpoint_gaps(a.precision)
    a.precision_largest_gap = calc.largest_gap(a.precision_gaps)
    a.precision_direction = calc.direction(a.precision_summary)


def csv(a) -> dict:
    return {"precision": a.precision.drop(columns=["oriented", "oriented_low", "oriented_high"])} if a.precision is not None else {}


def table_options(a, ctx: dict, opt: dict, at: dict, file, line: int) -> dict:
    p = ctx["precision"]
    out = {"headline": option_bool(opt["headline"], "headline", file, at["headline"]) if "headline" in opt else False}
    if "checkpoint" in opt:
        cp = option_checkpoint(opt["checkpoint"], p["paired_checkpoints"], file, at["checkpoint"], "paired precision results")
        if out["headline"]:
            raise SitegenError("headline summarises every checkpoint; leave out checkpoint or headline",
                               file, f"line {at['headline']}")
        out["precision"] = {**p, "groups": [g for g in p["groups"] if g["checkpoint"] == cp], "unpaired": []}
    return out


def _direction_how(r: dict) -> str:
    if not r["resolved"]:
        return "no direction: the 95% interval includes zero"
    way = "higher" if r["further"] == "higher" else "lower"
    return f"the interval excludes zero, and a {way} value is further from the reference for this measure"


def view(a: Analysis) -> dict[str, Any] | None:
    if a.precision is None:
        return None
    p = a.report.section("precision")
    groups = []
    records = views.rows(a.precision)
    for checkpoint in a.checkpoints:
        part = [r for r in records if r["checkpoint"] == checkpoint and r["paired"]]
        if not part:
            continue
        rows = []
        for r in part:
            rows.append({
                "label": r["label"], "measure": r["measure"], "panel": r["panel"],
                "baseline": Fig(fmt.measure_value(r["baseline"], r["unit"]), f"{r['source']}.baseline.value", date=r["baseline_date"]),
                "candidate": Fig(fmt.measure_value(r["candidate"], r["unit"]), f"{r['source']}.candidate.value", date=r["candidate_date"]),
                "difference": Fig(fmt.measure_difference(r["difference"], r["unit"]), f"{r['source']}.difference"),
                "interval": Fig(fmt.measure_interval(r["low"], r["high"], r["unit"]), f"{r['source']}.interval"),
                "resolved": Fig("resolved" if r["resolved"] else "not resolved",
                                how=f"the 95% interval {fmt.measure_interval(r['low'], r['high'], r['unit'])} "
                                    + ("excludes" if r["resolved"] else "includes") + " zero"),
                "is_resolved": bool(r["resolved"]),
                "direction": Fig(r["direction"], how=_direction_how(r)),
                "further": bool(r["oriented"] > 0),
                "dates": f"{r['baseline_date']} / {r['candidate_date']}",
                "source": r["source"],
            })
        groups.append({"checkpoint": checkpoint, "rows": rows})
    s = a.precision_summary
    top = a.precision_largest_gap
    largest = {"share": f"{top['share']:.0%}", "label": top["label"]} if top else None
    unpaired = []
    for checkpoint in a.checkpoints:
        if checkpoint not in a.paired_checkpoints:
            unpaired.append({"checkpoint": checkpoint, "reason": views.missing_reason(a, checkpoint, "baseline"),
                             "on_checkpoints": bool((a.precision["checkpoint"] == checkpoint).any())})
    return {
        "reference": p["reference"], "note": p.get("note", ""), "groups": groups, "summary": s,
        "largest_gap": largest, "paired_checkpoints": [g["checkpoint"] for g in groups],
        "forest": charts.forest(a.precision), "unpaired": unpaired,
        "direction": a.precision_direction,
    }


SECTION = Section(
    key="precision", title="Precision", name="precision", view=view, needs=("checkpoints",),
    check=check, records="results", engine_records=engine_records, analyse=analyse, csv=csv, provenance=True,
    blocks={"precision-table": BlockSpec(
        "precision", "precision", ("checkpoint", "headline"),
        "{% if headline %}{{ precision_headline(precision, engines) }}{% endif %}{{ precision_table(precision, engines, id=id) }}",
        "paired precision differences with 95% intervals (checkpoint: one checkpoint; headline: true adds the summary sentence)",
        "precision-table", apply=table_options)},
)
