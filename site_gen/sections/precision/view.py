"""Precision's view: the page's display data, its CSV table, its author block and its lines in
the summary, the dashboard and the share card."""
from __future__ import annotations

import math
from typing import Any

import pandas as pd
from markupsafe import Markup

from site_gen.core.errors import SitegenError
from site_gen.receipts.load import version_text
from site_gen.render import plain, views
from site_gen.render import format as fmt
from site_gen.render.charts import nice_step
from site_gen.render.provenance import Fig
from site_gen.sections.base import BlockSpec, option_bool, option_checkpoint
from site_gen.sections.contract import ViewPart


def csv(a) -> dict:
    p = a.of("precision")
    return {"precision": p.table.drop(columns=["oriented", "oriented_low", "oriented_high"])} if p is not None else {}


def table_options(a, ctx: dict, opt: dict, at: dict, file, line: int) -> dict:
    p = ctx["precision"]
    out: dict[str, Any] = {"headline": option_bool(opt["headline"], "headline", file, at["headline"]) if "headline" in opt else False}
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


def view(a) -> dict[str, Any] | None:
    result = a.of("precision")
    if result is None:
        return None
    p = a.report.section("precision")
    groups = []
    records = views.rows(result.table)
    for checkpoint in a.checkpoints:
        part = [r for r in records if r["checkpoint"] == checkpoint and r["paired"]]
        if not part:
            continue
        rows = []
        for r in part:
            # Both values with the digits their difference beside them needs (format.pair's rule).
            base, cand = fmt.measure_pair(r["baseline"], r["candidate"], fmt.measure_difference(r["difference"], r["unit"]), r["unit"])
            rows.append({
                "label": r["label"], "measure": r["measure"], "panel": r["panel"],
                "baseline": Fig(base, f"{r['source']}.baseline.value", date=r["baseline_date"]),
                "candidate": Fig(cand, f"{r['source']}.candidate.value", date=r["candidate_date"]),
                "difference": Fig(fmt.measure_difference(r["difference"], r["unit"]), f"{r['source']}.difference"),
                "interval": Fig(fmt.measure_interval(r["low"], r["high"], r["unit"]), f"{r['source']}.interval"),
                "resolved": Fig("resolved" if r["resolved"] else "not resolved",
                                how=f"the 95% interval {fmt.measure_interval(r['low'], r['high'], r['unit'])} "
                                    + ("excludes" if r["resolved"] else "includes") + " zero"),
                "is_resolved": bool(r["resolved"]),
                "direction": Fig(r["direction"], how=_direction_how(r)),
                "further": bool(r["oriented"] > 0),
                # Further from the reference is worse, closer better; an unresolved gap points nowhere.
                "tone": {"further": "worse", "closer": "better"}.get(r["direction"], "neutral"),
                "dates": f"{r['baseline_date']} / {r['candidate_date']}",
                "source": r["source"],
            })
        groups.append({"checkpoint": checkpoint, "rows": rows})
    s = result.summary
    top = result.largest_gap
    largest = None
    if top:
        engine_gap, between = fmt.measure_value(top["engine_gap"], top["unit"]), fmt.measure_value(top["checkpoint_gap"], top["unit"])
        largest = {"share": Fig(f"{top['share']:.0%}", how=f"{engine_gap} (the largest resolved gap between the engines) / "
                                f"{between} (the spread of {a.report.candidate.label}'s values between checkpoints)"),
                   "engine_gap": engine_gap, "between": between, "label": top["label"]}
    unpaired = []
    for checkpoint in a.checkpoints:
        if checkpoint not in a.paired_checkpoints:
            unpaired.append({"checkpoint": checkpoint, "reason": views.missing_reason(a, checkpoint, "baseline"),
                             "on_checkpoints": bool((result.table["checkpoint"] == checkpoint).any())})
    return {
        "reference": p["reference"], "note": p.get("note", ""), "groups": groups, "summary": s,
        "largest_gap": largest, "paired_checkpoints": [g["checkpoint"] for g in groups],
        "forest": forest(result.table), "unpaired": unpaired,
        "direction": result.direction,
    }


BLOCKS = {"precision-table": BlockSpec(
    "precision", "precision", ("checkpoint", "headline"),
    "{% if headline %}{{ precision_headline(precision, engines) }}{% endif %}{{ precision_table(precision, engines, id=id) }}",
    "paired precision differences with 95% intervals (checkpoint: one checkpoint; headline: true adds the summary sentence)",
    "precision-table", apply=table_options)}
MACROS = ("precision_headline", "precision_table")


# -- its lines in the other outputs -----------------------------------------------------------

def dashboard(a) -> dict[str, Any]:
    """Its cell in the table of reports: how many gaps are resolved and which way, sorted by the share resolved."""
    p = a.of("precision")
    s = p.summary if p is not None else None
    if not s or not s["pairs"]:
        return {}
    return {"precision": {"text": f"{s['resolved']} of {s['pairs']} resolved; {s['further']} further, {s['closer']} closer",
                          "sort": f"{s['resolved_share']:.6f}"}}


def headlines(a) -> list[tuple[str, str, str]]:
    p = a.of("precision")
    s = p.summary if p is not None else None
    if not s:
        return []
    precision = a.report.section("precision") or {}
    reference = f" from {precision['reference']}" if precision.get("reference") else ""
    # Further from the reference is worse; a colour only when every resolved gap points one way.
    key = "worse" if s["further"] and not s["closer"] else "better" if s["closer"] and not s["further"] else "neutral"
    return [("Precision:", f"{s['further']} further{reference}, {s['closer']} closer "
                           f"({s['resolved']} of {s['pairs']} resolved)", key)]


def summary(a, shown: dict | None) -> dict[str, Any] | None:
    """Its part of `sitegen summary --format json`, from the page's own view (`shown`)."""
    if not shown:
        return None
    s = shown["summary"]
    table = views.rows(a.of("precision").table)
    rows = [{"checkpoint": g["checkpoint"], "measure": r["measure"], "label": r["label"], "unit": r["unit"],
             "further_when": r["further"], "baseline": plain.number(r["baseline"]), "candidate": plain.number(r["candidate"]),
             "difference": plain.number(r["difference"]), "interval": plain.span(r["low"], r["high"]),
             "resolved": bool(r["resolved"]), "direction": r["direction"],
             "for_candidate": {"further": "worse", "closer": "better"}.get(r["direction"], "neutral")}
            for g in shown["groups"] for r in table if r["checkpoint"] == g["checkpoint"] and r["paired"]]
    return {"precision": {
        "reference": shown["reference"], "level": 0.95,
        "rule": "resolved when the interval excludes zero; further or closer by the measure's further_when",
        **{k: int(s[k]) for k in ("pairs", "resolved", "further", "closer", "unresolved")}, "rows": rows}}


def summary_rows(d: dict[str, Any]) -> list[tuple[str, str]]:
    if "precision" not in d:
        return []
    p = d["precision"]
    rows = [("Precision gaps resolved", f"{p['resolved']} of {p['pairs']}: {p['further']} further from {p['reference']}, "
                                       f"{p['closer']} closer; {p['unresolved']} not resolved")]
    rows += [(f"{r['checkpoint']} {r['label']}", f"{fmt.measure_difference(r['difference'], r['unit'])} "
              f"{fmt.measure_interval(r['interval']['low'], r['interval']['high'], r['unit'])} {r['direction']}")
             for r in p["rows"]]
    return rows


def verdict(a) -> str | None:
    """Its clause of the report's opening sentence: which way the resolved gaps point, from the reference."""
    p = a.of("precision")
    s = p.summary if p is not None else None
    if not s or not s["pairs"]:
        return None
    ref = a.report.section("precision")["reference"]
    n = s["pairs"]
    if s["resolved"] == 0:
        return f"no precision gap resolved ({'the one comparison' if n == 1 else f'all {n} comparisons'} within their intervals)"
    if p.direction in ("further", "closer"):
        where = f"all {n} precision comparisons" if n != 1 else "the one precision comparison"
        return f"{p.direction} {'from' if p.direction == 'further' else 'to'} {ref} in {where}"
    parts = [f"further from {ref} in {s['further']}" if s["further"] else "",
             (f"closer in {s['closer']}" if s["further"] else f"closer to {ref} in {s['closer']}") if s["closer"] else ""]
    tail = f", {s['unresolved']} not resolved" if s["unresolved"] else ""
    return f"{' and '.join(x for x in parts if x)} of {n} precision comparisons{tail}"


def _facet(records: list[dict[str, Any]], facets: dict | None, drawn: dict) -> dict[str, Any]:
    """A precision series' forest facet, kept in `facets` by its rows' values (repr: exact for the
    numbers and texts a row holds), so a rebuild redraws only the series an edit touched."""
    key = repr(records)
    facet = facets.get(key) if facets is not None else None
    if facet is None:
        # The series names the engine; each row is a version of it.
        frame = pd.DataFrame([{**r, "checkpoint": version_text(r["version"]), "paired": True, "measure": r["series"]} for r in records])
        facet = forest(frame)[0]
    drawn[key] = facet
    return facet


def _step_phrase(c) -> str:
    """A gap's change from one release to the next, with its interval: `+0.0024 [+0.0013, +0.0035]`
    (the table's columns beside it hold the gaps themselves)."""
    return f"{fmt.measure_difference(c.change, c.unit)} {fmt.measure_interval(c.low, c.high, c.unit)}"


def _history(prec: pd.DataFrame, h) -> list[dict[str, Any]]:
    """Its history part: a forest facet and a table of points each per series (`h.memo`: charts kept by their rows)."""
    report_url, facets = h.report_url, h.memo
    precision_rows = []
    drawn: dict = {}
    for series, records in h.series(prec).items():
        # One forest facet per series: its rows are the releases, on the series' own axis.
        facet = _facet(records, facets, drawn)
        facet = {**facet, "rows": [{**row, "url": report_url(r["report"])} for row, r in zip(facet["rows"], records)]}
        first = records[0]
        precision_rows.append({
            "series": series, "facet": facet, "label": first["label"], "checkpoint": first["checkpoint"],
            "rows_identity": first["rows"], "older": int(first["older"]),
            "points": [{"release": h.release(r), "date": r["date"], "url": report_url(r["report"]),
                        "difference": fmt.measure_difference(r["difference"], r["unit"]),
                        "interval": fmt.measure_interval(r["low"], r["high"], r["unit"]),
                        "resolved": "resolved" if r["resolved"] else "not resolved",
                        "different_days": bool(r["different_days"]), "since": h.mark(r, _step_phrase)} for r in records]})
    facets.clear()
    facets.update(drawn)
    return precision_rows


HISTORY_PARTS = {"precision": (40, _history)}


# -- against an earlier release (`sitegen compare`) ----------------------------------------------

def compare_what(item) -> str:
    """A gap: `Q4 · gap in KL, full vocabulary` (candidate minus baseline)."""
    return f"{item.where['checkpoint']} · gap in {item.where['measure']}"


def compare_value(c, v: float, signed: bool = False, more: int = 0) -> str:
    return fmt.signed(v, (2 if c.unit == "percent" else 4) + more)  # a gap is signed, and so is its change


def compare_unit(c) -> str:
    return "pts" if c.unit == "percent" else c.unit


def forest(table: pd.DataFrame) -> list[dict[str, Any]]:
    """One facet per measure (own axis: measures do not share a unit or a level), rows per checkpoint.

    Oriented values: right of zero always means the candidate is further from the reference.
    """
    facets = []
    width, right = 360.0, 34.0
    measures: dict[Any, list[dict[str, Any]]] = {}  # paired rows by measure, in the table's order
    for r in views.rows(table):
        if r["paired"]:
            measures.setdefault(r["measure"], []).append(r)
    # The row labels' column is as wide as the longest label needs (11 px type, ~6.6 px a character),
    # up to 40% of the chart; a longer label is cut at its end with an ellipsis, never at the chart's
    # left edge, and its whole text is its tooltip.
    longest = max((len(str(r["checkpoint"])) for group in measures.values() for r in group), default=0)
    left = min(max(70.0, round(12 + 6.6 * longest, 1)), width * 0.4)
    fits = int((left - 12) / 6.6)
    plot_w = width - left - right
    for measure, group in measures.items():
        # NaN left out, as pandas' min and max leave it
        lo = min(0.0, *(v for r in group if (v := r["oriented_low"]) == v))
        hi = max(0.0, *(v for r in group if (v := r["oriented_high"]) == v))
        step = nice_step(hi - lo or 1.0)
        lo, hi = math.floor(lo / step) * step, math.ceil(hi / step) * step
        hi = max(hi, lo + step)  # every interval [0, 0]: an axis one step wide, not zero
        unit = group[0]["unit"]
        digits = 2 if unit == "percent" else 4

        def x(v: float, lo: float = lo, hi: float = hi) -> float:
            return round(left + (v - lo) / (hi - lo) * plot_w, 2)

        rows = []
        for i, r in enumerate(group):
            y = 18 + i * 22
            name = str(r["checkpoint"])
            rows.append({"y": y, "checkpoint": r["checkpoint"], "short": name if len(name) <= fits else name[:fits - 1] + "\u2026",
                         "x_lo": x(r["oriented_low"]), "x_hi": x(r["oriented_high"]),
                         "x": x(r["oriented"]), "resolved": bool(r["resolved"]),
                         "label": f"{r['checkpoint']}: {fmt.measure_difference(r['difference'], unit)} "
                                  f"{fmt.measure_interval(r['low'], r['high'], unit)}"})
        # The axis is drawn in oriented units (right = further) but labelled in the measured
        # difference the table shows: on a flipped measure a tick at +0.2 oriented is a −0.2 difference.
        flipped = group[0]["further"] == "lower"
        ticks = []
        n = int(round((hi - lo) / step))
        for i in range(n + 1):
            v = lo + i * step
            shown = -v if flipped else v
            ticks.append({"x": x(v), "label": fmt.signed(shown, digits) if abs(v) > 1e-12 else "0"})
        facets.append({"measure": measure, "label": group[0]["label"], "unit": "pts" if unit == "percent" else unit,
                       "flipped": flipped,
                       "width": width, "height": 18 + len(rows) * 22 + 24, "zero": x(0.0), "rows": rows,
                       "ticks": ticks, "axis_y": 18 + len(rows) * 22 - 6, "plot_left": left, "plot_right": width - right})
    return facets

PART = ViewPart(history_series=Markup("for precision the same measure, panel and evaluated rows (plan, teacher, row hash)"),
                history_marks=Markup("in a precision table, under the build's name"),
                view=view, csv=csv, blocks=BLOCKS, macros=MACROS, summary=summary, summary_rows=summary_rows,
                verdict=verdict, headlines=headlines, dashboard=dashboard, history_parts=HISTORY_PARTS,
                compare_what=compare_what, compare_value=compare_value, compare_unit=compare_unit)
