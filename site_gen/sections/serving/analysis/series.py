"""The serving section's history rows and series figures: per load point of the candidate side (the
setup a nightly run measures), its output throughput and its median and p99 TTFT and TPOT, each with
the interval the Latency and Load pages give it (bootstrap over requests, t over repeats, or none)."""
from __future__ import annotations

from site_gen.analysis.changes import RATIO
from site_gen.analysis.frames import rows_of
from site_gen.analysis.series import Measure

ROLE = "candidate"
FIGURES = (("tput", "output_tokens_per_s", None), ("ttft_p50", "ttft", 50), ("ttft_p99", "ttft", 99),
           ("tpot_p50", "tpot", 50), ("tpot_p99", "tpot", 99))
COLUMNS = ["series", "report", "date", "candidate", "version", "baseline", "workload", "load",
           *[f"{name}{end}" for name, _, _ in FIGURES for end in ("", "_low", "_high")]]


def serving_rows(a, engines: dict[str, str]) -> list[dict]:
    """One row per load point of the candidate side: its figures and their intervals."""
    s = a.results.get("serving")
    if s is None:
        return []
    e = engines
    nan = float("nan")
    points = [p for p in rows_of(s.points, ["role", "point", "workload", "load"]) if p["role"] == ROLE]
    tput = {t["point"]: t for t in rows_of(s.throughput, ["role", "point", "metric", "value", "low", "high"])
            if t["role"] == ROLE and t["metric"] == "output_tokens_per_s"}
    lat = {(q["point"], q["metric"], int(q["percentile"])): q
           for q in rows_of(s.percentiles, ["role", "point", "metric", "percentile", "value", "low", "high"]) if q["role"] == ROLE}
    rows = []
    for p in points:
        row = {**e, "series": f"{e['candidate']} · {p['workload']} · {p['load']}", "workload": p["workload"], "load": p["load"]}
        for name, metric, q in FIGURES:
            got = tput.get(p["point"]) if q is None else lat.get((p["point"], metric, q))
            row[name], row[f"{name}_low"], row[f"{name}_high"] = ((got["value"], got["low"], got["high"]) if got
                                                                  else (nan, nan, nan))
        rows.append(row)
    return rows


HISTORY = {"serving": (serving_rows, COLUMNS)}

_SPREAD = "95% interval of the run (over requests or repeats)"
SERIES = {"serving": (
    Measure("tput", "output throughput", "tok/s", True, RATIO, "tput_low", "tput_high", _SPREAD, "{workload} · {load}", speed=True),
    Measure("ttft_p50", "median TTFT", "ms", False, RATIO, "ttft_p50_low", "ttft_p50_high", _SPREAD, "{workload} · {load}", speed=True),
    Measure("ttft_p99", "p99 TTFT", "ms", False, RATIO, "ttft_p99_low", "ttft_p99_high", _SPREAD, "{workload} · {load}", speed=True),
    Measure("tpot_p50", "median TPOT", "ms", False, RATIO, "tpot_p50_low", "tpot_p50_high", _SPREAD, "{workload} · {load}", speed=True),
    Measure("tpot_p99", "p99 TPOT", "ms", False, RATIO, "tpot_p99_low", "tpot_p99_high", _SPREAD, "{workload} · {load}", speed=True),
)}
