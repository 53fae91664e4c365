"""Accuracy's view: the page's display data, its CSV table and its author block."""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from site_gen.render import format as fmt, views
from site_gen.render.provenance import Fig
from site_gen.sections.base import BlockSpec


def csv(a) -> dict:
    t = a.of("accuracy")
    return {} if t is None else {"accuracy": t.table.drop(columns=["interval"], errors="ignore")}


def _value(v: Any, unit: str) -> str:
    return fmt.percent(v * 100, 1) if unit == "proportion" else fmt.fixed(v, 4)


def _difference(v: Any, unit: str) -> str:
    return fmt.points(v * 100, 1) if unit == "proportion" else fmt.signed(v, 4)


def _spread(lo: Any, hi: Any, unit: str) -> str:
    """One side's own interval, unsigned: `80.8–90.4%`."""
    return fmt.number_range(lo * 100, hi * 100, 1, "%") if unit == "proportion" else fmt.number_range(lo, hi, 4)


def _interval(lo: Any, hi: Any, unit: str) -> str:
    return fmt.interval(lo * 100, hi * 100, 1) if unit == "proportion" else fmt.interval(lo, hi, 4)


def _verdict(r: dict, candidate: str) -> str:
    if pd.isna(r["difference"]):
        return "no paired difference measured"
    if not r["resolved"]:
        return "not resolved"
    higher = r["difference"] > 0
    good = higher == (r["better"] == "higher")
    return f"{candidate} {'higher' if higher else 'lower'} ({'better' if good else 'worse'})"


def _row(r: dict, candidate: str) -> dict[str, Any]:
    u, src = r["unit"], r["source"]
    side = lambda role: Fig(_value(r[f"{role}_value"], u), f"{src}.{role}.value")
    spread = lambda role: _spread(*r[f"{role}_interval"], u) if isinstance(r[f"{role}_interval"], list) else ""
    paired = not pd.isna(r["difference"])
    return {"checkpoint": r["checkpoint"], "label": r["label"], "unit": u, "better": r["better"], "n_items": int(r["items"]),
            "baseline": side("baseline"), "candidate": side("candidate"),
            "baseline_interval": spread("baseline"), "candidate_interval": spread("candidate"),
            "difference": Fig(_difference(r["difference"], u), f"{src}.difference") if paired else fmt.NOT_MEASURED,
            "interval": Fig(_interval(r["low"], r["high"], u), f"{src}.interval") if paired else fmt.NOT_MEASURED,
            "resolved": bool(r["resolved"]), "verdict": _verdict(r, candidate), "source": src,
            # schema 1.2: a difference from two standard errors, not over shared items, says so
            "unpaired": paired and isinstance(r.get("paired"), (bool, np.bool_)) and not r["paired"]}


def view(a) -> dict[str, Any] | None:
    t = a.of("accuracy")
    part = a.report.section("accuracy")
    if t is None or part is None:
        return None
    m = part["method"]
    rows = [_row(r, a.report.candidate.name) for r in views.rows(t.table)]
    return {"rows": rows, "note": part.get("note", ""),
            "method": {"name": m["name"], "resamples": fmt.thousands(m["resamples"]), "seed": m["seed"],
                       "level": f"{m['level'] * 100:g}%"},
            "resolved": sum(r["resolved"] for r in rows), "results": len(rows)}


BLOCKS = {"accuracy-table": BlockSpec("accuracy", "accuracy", (), "{{ accuracy_table(accuracy, engines, id=id) }}",
                                       "paired accuracy differences with their intervals", "accuracy-table")}
MACROS = ("accuracy_table",)


# -- against an earlier release (`sitegen compare`) ----------------------------------------------

def compare_what(item) -> str:
    return f"{item.where['checkpoint']} · {item.where['measure']}"


def compare_value(c, v: float, signed: bool = False) -> str:
    if c.unit == "proportion":  # in percent, a change in points (the unit `compare_unit` names)
        return fmt.signed(v * 100, 1) if signed else fmt.fixed(v * 100, 1)
    return fmt.signed(v, 4) if signed else fmt.fixed(v, 4)


def compare_unit(c) -> str:
    return "%, change in pts" if c.unit == "proportion" else c.unit
