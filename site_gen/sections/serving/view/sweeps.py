"""A sweep's words (the Load page's, the overview's): each side's heaviest load meeting every objective,
where its requests start to queue, and where it first misses an objective, said beside each other."""
from __future__ import annotations

import math
from typing import Any

from site_gen.render import views
from site_gen.render.provenance import Fig
from site_gen.sections.serving.view.tables import ms_unit, objective_text


def capacity_lines(s, n: dict) -> list[dict[str, str]]:
    """Per sweep: each side's heaviest load meeting every objective (there and at every lighter load), and their ratio."""
    out = []
    for c in s.capacity:
        parts = []
        for role in s.roles:
            e = c.get(role)
            if e is None:
                continue
            if not e["known"] and e["point"] is None:
                parts.append(f"{n[role]}: unknown (a load without a figure of an objective)")
            elif e["point"] is None:
                parts.append(f"{n[role]}: none of the loads tested")
            else:
                parts.append(f"{n[role]}: {e['load']}" + (" (the heaviest tested)" if e["heaviest"] else ""))
        ratio = c.get("ratio", math.nan)
        out.append({"workload": c["workload"], "text": "; ".join(parts),
                    "ratio": f"{ratio:.2f}× the load" if ratio == ratio else ""})
    return out


def saturation_of(s, key: tuple[str, str], names: dict) -> list[dict[str, Any]]:
    """Where a sweep (workload, axis) saturates on each side that ran it at two loads or more: the
    load (`load`, `x`, `at`: its words) or, `load` None, not within the loads tested."""
    points = {(r["role"], r["point"]): r for r in views.rows(s.points)}
    out = []
    for role in s.roles:
        curve = s.curves[role].get(key, [])
        found = s.saturation.get((role, key[0]))
        if found in curve:
            p = points[role, found]
            out.append({"role": role, "load": p["load"], "x": p["x"], "point": found,
                        "at": f"{names[role]}: requests queue from {p['load']}"})
        elif len(curve) > 1:
            out.append({"role": role, "load": None, "x": None, "point": None,
                        "at": f"{names[role]}: requests do not queue within the loads tested"})
    return out


def missed(s, key: tuple[str, str], n: dict) -> list[dict[str, Any]]:
    """Per side of a sweep with objectives: the lightest load at which it misses one (each objective
    missed there with its figure, its goodput there) and where that lies against the load its requests
    start to queue from (`saturation_of`): a side can miss an objective of decode speed long before
    its requests queue, and a page says both, never one for the other. None for a side that meets
    every objective at every load, or whose loads lack a figure."""
    if s.objectives is None:
        return []
    objectives = list(views.rows(s.objectives))
    good = {(r["role"], r["point"]): r for r in views.rows(s.goodput)} if s.goodput is not None else {}
    points = {(r["role"], r["point"]): r for r in views.rows(s.points)}
    queue = {e["role"]: e for e in saturation_of(s, key, n)}
    out = []
    for role in s.roles:
        curve = s.curves[role].get(key, [])
        for i, pid in enumerate(curve):
            mine = [o for o in objectives if o["role"] == role and o["point"] == pid]
            if any(o["met"] is None or o["met"] != o["met"] for o in mine):
                break
            lost = [o for o in mine if not o["met"]]
            if not lost:
                continue
            q = queue.get(role)
            where = curve.index(q["point"]) if q and q["point"] in curve else None
            when = ("; its requests never queue within the loads tested" if where is None and q else
                    "" if where is None else
                    ", before its requests queue" if where > i else
                    ", where its requests start to queue" if where == i else ", after its requests queue")
            what = " and ".join(f"{objective_text((o['metric'], o['percentile'], o['limit']))} ({ms_unit(o['value'])})" for o in lost)
            g = good.get((role, pid))
            out.append({"role": role, "side": n[role], "load": points[role, pid]["load"], "lighter": i > 0,
                        "text": f"{n[role]} misses {what} from {points[role, pid]['load']}{when}",
                        "goodput": Fig(f"{g['share']:.1%}", how="requests meeting every objective / requests",
                                       detail=f"at {points[role, pid]['path']}") if g else None})
            break
    return out
