"""A serving report's candidate side against the same side of an earlier release (`sitegen compare`):
per load point both releases ran (the same workload and load), each latency percentile and each
throughput, new / old, with the intervals and verdicts of latency.py and load.py.

The two releases sent their requests in separate runs: their rows are unpaired samples, so a
percentile's ratio takes the unpaired bootstrap over requests (latency.compare, unpaired); repeats
on both take Welch's t over runs; one run without rows, the band rule.
"""
from __future__ import annotations

import math

from site_gen.analysis import bootstrap as bs
from site_gen.analysis.compare import Change, Difference, Unmatched, key_of, match, way
from site_gen.sections.serving.analysis import latency, load
from site_gen.sections.serving.analysis.points import PERCENTILES, Point, read

ROLE = "candidate"
ALLOW = ("protocol", "dataset", "load-points")  # the differences `setup` refuses, by the importer's names


def _points(a) -> dict[tuple, Point]:
    return {key_of(p.workload, p.rate, p.concurrency): p for p in read(a.report.section("serving")).get(ROLE, [])}


def _side(a) -> dict:
    return a.report.section("serving")["sides"][ROLE]


def _where(p: Point) -> dict:
    return {"workload": p.workload, "load": p.load, "request_rate": "inf" if math.isinf(p.rate) else p.rate,
            "max_concurrency": p.concurrency}


def setup(old, new) -> list[Difference]:
    """How the two candidate sides were measured: the client (refused when it differs, as the importer
    refuses another protocol), the workloads and loads (refused when none is shared); the engine and
    its parallelism (said, not refused)."""
    so, sn = _side(old), _side(new)
    where = "$.serving.sides.candidate"
    out = []
    if so["format"] != sn["format"]:
        out.append(Difference("protocol", so["format"], sn["format"], f"{where}.format"))
    eo, en = so.get("environment", {}), sn.get("environment", {})
    for key in ("engine", "parallelism"):
        vo, vn = (e.get(key, {}).get("value", "not recorded") for e in (eo, en))
        if vo != vn:
            out.append(Difference(key, vo, vn, f"{where}.environment.{key}", refusable=False))
    po, pn = _points(old), _points(new)
    if not set(po) & set(pn):
        wo, wn = (sorted({p.workload for p in pts.values()}) for pts in (po, pn))
        loads = lambda pts: "; ".join(f"{p.workload}: {p.load}" for p in pts.values())  # noqa: E731
        out.append(Difference("dataset", "; ".join(wo), "; ".join(wn), f"{where}.load_points") if not set(wo) & set(wn)
                   else Difference("load-points", loads(po), loads(pn), f"{where}.load_points"))
    return out


def _latency(o: Point, n: Point, metrics: tuple[str, ...], band: float, b: bs.Bootstrap) -> list[Change]:
    fo, fn = latency.side_figures(o, metrics, b), latency.side_figures(n, metrics, b)
    out = []
    for metric, cells in latency.compare(o, n, fo, fn, False, band, b).items():
        for c in cells:
            j = PERCENTILES.index(c.percentile)
            out.append(Change("serving", "latency", _where(n), f"{metric}_p{c.percentile}", "ms", False, True, c.baseline,
                              c.candidate, c.ratio, c.low, c.high, "ratio", c.method, way(c.verdict),
                              fo[metric].paths[j], fn[metric].paths[j]))
    return out


def _throughput(o: Point, n: Point, band: float, b: bs.Bootstrap) -> list[Change]:
    return [Change("serving", "throughput", _where(n), t["metric"], load.THROUGHPUT_LABELS[t["metric"]], True, True,
                   t["baseline"], t["candidate"], t["ratio"], t["low"], t["high"], "ratio", t["method"], way(t["verdict"]),
                   f"{o.path}.repeats", f"{n.path}.repeats")
            for t in load.throughput_cells(o, n, band, b)]


def compare(old, new, band: float) -> tuple[list[Change], list[Unmatched]]:
    """Every latency percentile and throughput of the candidate side at each load point of both
    releases, new against old (lower latency, higher throughput is better)."""
    b = bs.Bootstrap()
    metrics = tuple(m for m in new.of("serving").metrics if m in old.of("serving").metrics)
    po, pn = _points(old), _points(new)
    both, only_old, only_new = match(po, pn)
    changes: list[Change] = []
    for k in both:
        changes += _latency(po[k], pn[k], metrics, band, b) + _throughput(po[k], pn[k], band, b)
    unmatched = [Unmatched("serving", "load point", _where(po[k]), "old") for k in only_old]
    unmatched += [Unmatched("serving", "load point", _where(pn[k]), "new") for k in only_new]
    return changes, unmatched
