"""Two studies of the same setups (`sitegen compare OLD NEW`): each setup's figures at each load point
both studies ran, new against old, by the study's own rule: the ratio's interval from both figures'
(t over runs, or one run's bootstrap), a p-value against the band (or the run-to-run allowance NEW
measured, where a side was run once), and Benjamini–Hochberg over every change of the comparison."""
from __future__ import annotations

from typing import Any

from site_gen.analysis.compare import Change, Difference, Unmatched, key_of, match, way
from site_gen.sections.study.analysis import stats
from site_gen.sections.study.analysis.figures import THROUGHPUT
from site_gen.sections.study.analysis.points import Load
from site_gen.sections.study.analysis.verdicts import compare as compare_rows, verdicts

ALLOW = ("setups",)  # the difference `setup` refuses: no setup in common


def setup(old, new) -> list[Difference]:
    """Which setups each study holds (refused when none is shared) and, per shared setup, its engine,
    version and parallelism where they changed (said, not refused)."""
    so, sn = old.of("study"), new.of("study")
    out = []
    shared = [s for s in sn.order if s in so.order]
    if not shared:
        out.append(Difference("setups", ", ".join(so.order), ", ".join(sn.order), "$.study.setups"))
    facts_o = {r["setup"]: r for r in so.setups.to_dict("records")}
    facts_n = {r["setup"]: r for r in sn.setups.to_dict("records")}
    for s in shared:
        i = sn.order.index(s)
        for key in ("engine", "version", "parallelism", "gpus"):
            vo, vn = facts_o[s][key], facts_n[s][key]
            if vo != vn and not (vo != vo and vn != vn):
                out.append(Difference(f"{s} {key}", str(vo or "not recorded"), str(vn or "not recorded"),
                                      f"$.study.setups[{i}]", refusable=False))
    return out


def _where(s, setup: str, ld) -> dict:
    return {"setup": s.labels[setup], "workload": ld.workload, "load": ld.label}


def compare(old, new, band: float) -> tuple[list[Change], list[Unmatched]]:
    """Every figure of every setup both studies hold, at every load point both ran it, new / old."""
    so, sn = old.of("study"), new.of("study")
    loads_o = {ld.key: ld for ld in so.loads}
    loads_n = {ld.key: ld for ld in sn.loads}
    figs_o = {(r["setup"], r["load"], r["metric"], r["percentile"]): r for r in so.figures.to_dict("records")}
    figs_n = {(r["setup"], r["load"], r["metric"], r["percentile"]): r for r in sn.figures.to_dict("records")}
    both, only_old, only_new = match({key_of(*k): k for k in loads_o}, {key_of(*k): k for k in loads_n})
    shared = [s for s in sn.order if s in so.order]
    # The comparison is a study of "old" and "new" for each setup: its rows pair the two releases' figures.
    rows, placed = [], []
    for k in both:
        lo, ln = loads_o[k], loads_n[k]
        for sid in shared:
            figs: dict[tuple, Any] = {}
            for (s, lid, m, q), r in figs_o.items():
                if s == sid and lid == lo.id:
                    figs["old", ln.id, m, q] = _Fig(r)
            for (s, lid, m, q), r in figs_n.items():
                if s == sid and lid == ln.id:
                    figs["new", ln.id, m, q] = _Fig(r)
            here = compare_rows([Load(ln.key, ln.id, ln.workload, ln.label, ln.axis, ln.x, ["old", "new"])], figs,
                                [("new", "old")], sn.allowances, band, sn.metrics)
            rows += here
            placed += [(sid, ln)] * len(here)
    verdicts(rows, stats.FDR)
    changes = []
    for r, (sid, ld) in zip(rows, placed):
        latency = r["metric"] != THROUGHPUT
        measure = r["metric"] if not latency else f"{r['metric']}_p{r['percentile']}"
        changes.append(Change("study", "latency" if latency else "throughput", _where(sn, sid, ld), measure,
                              "ms" if latency else "tokens/s", not latency, True, r["value_b"], r["value_a"], r["ratio"],
                              r["low"], r["high"], "ratio", _method(r), way(r["verdict"]), r["path_b"], r["path_a"]))
    unmatched = [Unmatched("study", "load point", {"workload": loads_o[k].workload, "load": loads_o[k].label}, "old")
                 for k in only_old]
    unmatched += [Unmatched("study", "load point", {"workload": loads_n[k].workload, "load": loads_n[k].label}, "new")
                  for k in only_new]
    unmatched += [Unmatched("study", "setup", {"setup": so.labels[s]}, "old") for s in so.order if s not in sn.order]
    unmatched += [Unmatched("study", "setup", {"setup": sn.labels[s]}, "new") for s in sn.order if s not in so.order]
    return changes, unmatched


def _method(r: dict) -> str:
    rule = {"repeats": "t over runs", "allowance": "one run; the run-to-run allowance", "band": "one run; the band"}[r["rule"]]
    return f"{rule}; Benjamini–Hochberg over the comparison" if r["p"] == r["p"] else "no interval"


class _Fig:
    """A figure row of a study's analysis, as verdicts.compare reads one."""

    def __init__(self, r: dict):
        self.value, self.se, self.df, self.runs = r["value"], r["se"], r["df"], int(r["runs"])
        self.load_class, self.path = r["load_class"], r["path"]

