"""The Accuracy study page and its lines elsewhere: what each setup is; how its scores and verdicts are
made; per task and metric every setup's score with its 95% interval, rank (ties where no verdict
separates two setups) and run-to-run spread, and every pair's difference with its verdict; the CSV
tables, `sitegen summary` (JSON, text, markdown), the share card's line."""
from __future__ import annotations

from typing import Any

import pandas as pd

from site_gen.render import format as fmt, plain, views
from site_gen.render.provenance import Fig, Parts
from site_gen.sections.base import BlockSpec
from site_gen.sections.contract import ViewPart
from site_gen.sections.accuracy_study.analysis import BETTER, MEAN, PROPORTION, STATED, UNRESOLVED, WORSE, proportion

GLYPHS = {BETTER: "▲", WORSE: "▼", UNRESOLVED: "○"}
RULE = ("better or worse only where the Benjamini–Hochberg procedure over every comparison of the study keeps it "
        "(false discovery rate 5%) and its 95% interval excludes zero; otherwise not resolved")


def anchor(*parts: str) -> str:
    return "-".join("".join(ch if ch.isalnum() else "-" for ch in p.lower()).strip("-") for p in parts)


def score(v: float, pct: bool = False) -> str:
    # a tie rounded as every figure of the site is (fmt: away from zero)
    return fmt.percent(v * 100, 1) if pct else fmt.fixed(v, 3)


def span(lo: float, hi: float, pct: bool = False) -> str:
    """One setup's own interval or runs' range, unsigned: `76.5–85.0%`."""
    return fmt.number_range(lo * 100, hi * 100, 1, "%") if pct else fmt.number_range(lo, hi, 3)


def signed(v: float, pct: bool = False) -> str:
    """A difference: in points with the site's minus (`−8.8 pts`), else signed."""
    return fmt.points(v * 100, 1) if pct else fmt.signed(v, 3)


def interval(lo: float, hi: float, pct: bool = False) -> str:
    """A difference's interval as the site writes one: `[−12.9, −4.9]`."""
    return fmt.interval(lo * 100, hi * 100, 1) if pct else fmt.interval(lo, hi, 3)


def _value_fig(r: dict, pct: bool) -> Fig | str:
    if r["value"] != r["value"]:
        return fmt.MISSING
    return Fig(score(r["value"], pct), how=r["method"], detail=f"{r['label']}, setup {r['setup']}: {r['path']}", dense=True)


def _interval_fig(r: dict, pct: bool) -> Fig | str:
    if not (r["low"] == r["low"] and r["high"] == r["high"]):
        return "no interval"
    return Fig(span(r["low"], r["high"], pct), how="95% interval", detail=f"{r['label']}, setup "
               f"{r['setup']}: {r['method']}", dense=True)


def _runs_fig(r: dict, pct: bool) -> Parts:
    if r["runs"] < 2:
        return Parts()
    return Parts([f"{int(r['runs'])} runs ", Fig(span(r["spread_low"], r["spread_high"], pct),
                                                how="lowest, highest run", detail=f"{r['label']}: {r['path']}", dense=True)])


def _proportions(s) -> dict[str, bool]:
    """Each score's key: whether it reads in percent (`proportion`)."""
    out = {}
    for k in s.keys:
        rows = [r for r in views.rows(s.figures) if r["key"] == k["key"]]
        out[k["key"]] = proportion(k["metric"], [r[c] for r in rows for c in ("value", "low", "high", "spread_low",
                                                                              "spread_high")])
    return out


def _rank_fig(rk: dict | None, labels: dict[str, str], what: str) -> Fig | str:
    """`#1`, `=#2` (tied): how it was counted on hover (the setups a verdict puts ahead)."""
    if rk is None:
        return ""
    ahead = [labels.get(x, x) for x in rk["beaten_by"]]
    return Fig(("=" if rk["tied"] else "") + f"#{rk['rank']}",
               how="rank: 1 + the setups a verdict puts ahead" + (f" ({'; '.join(ahead)})" if ahead else " (none)")
               + (", tied" if rk["tied"] else ""), detail=what, dense=True)


def view(a) -> dict[str, Any] | None:
    s = a.of("accuracy_study")
    if s is None:
        return None
    n = s.labels
    figs = {(r["key"], r["setup"]): r for r in views.rows(s.figures)}
    ranks = {(r["key"], r["setup"]): r for r in views.rows(s.ranks)}
    comps = views.rows(s.comparisons)
    pcts = _proportions(s)
    metrics = []
    for k in s.keys:
        key = k["key"]
        pct = pcts[key]
        rows = []
        for sid in s.order:
            r = figs.get((key, sid))
            if r is None:
                continue
            rk = ranks.get((key, sid))
            rows.append({"setup": n[sid], "baseline": sid == s.baseline, "rank": _rank_fig(rk, n, k["label"]),
                         "tied": bool(rk and rk["tied"]),
                         "first": bool(rk and rk["rank"] == 1 and not rk["tied"]), "value": _value_fig(r, pct),
                         "interval": _interval_fig(r, pct), "runs": _runs_fig(r, pct),
                         "documents": Fig(f"{int(r['documents']):,}", how="documents scored", detail=f"{r['label']}, "
                                          f"setup {sid}: {r['path']}", dense=True) if r["documents"] else fmt.MISSING})
        mine = [c for c in comps if c["key"] == key]
        pairs = []
        for c in mine:
            has = c["low"] == c["low"]
            held = (f"adjusted p {c['p_adjusted']:.2g}" if c["p_adjusted"] == c["p_adjusted"] else "no p-value") + \
                f"; {c['method']}"
            pairs.append({"a": n[c["a"]], "b": n[c["b"]], "verdict": c["verdict"], "glyph": GLYPHS[c["verdict"]],
                          "difference": Fig(signed(c["difference"], pct), how=held, detail=f"{c['a']} − {c['b']}, "
                                            f"{c['label']}: {c['path_a']} and {c['path_b']}", dense=True),
                          "interval": Fig(interval(c["low"], c["high"], pct), how="95% interval",
                                          detail=f"{c['a']} − {c['b']}, {c['label']}", dense=True) if has else "no interval",
                          "better": n.get(c["better"], "") if c["better"] else "", "paired": c["paired"]})
        ranking = _ranking(s, key, ranks)
        metrics.append({"anchor": anchor(k["task"], k["metric"], k["filter"]), "title": k["label"],
                        "better_is": k["better_is"], "kind": k["kind"], "rows": rows, "pairs": pairs,
                        "ranking": ranking, "counts": _counts([c["verdict"] for c in mine])})
    first: dict[str, int] = {}
    for r in ranks.values():
        if r["rank"] == 1 and not r["tied"]:
            first[r["setup"]] = first.get(r["setup"], 0) + 1
    leaders = [{"setup": n[x], "scores": first[x]} for x in sorted(first, key=lambda x: (-first[x], s.order.index(x)))]
    return {"setups": _setups(s), "metrics": metrics, "resolved": _resolved(s, comps, pcts), "counts": s.counts,
            "tests": s.tests, "fdr": f"{s.fdr:.0%}",
            "leaders": leaders,
            "n_setups": len(s.order), "n_metrics": len(s.keys), "pairs": len({(c["a"], c["b"]) for c in comps}),
            "baseline": n.get(s.baseline) if s.baseline else None, "methods": _methods(s),
            "repeated": [n[x] for x in s.repeated], "one_run": [n[x] for x in s.order if x not in s.repeated]}


def _resolved(s, comps: list[dict], pcts: dict[str, bool]) -> list[dict[str, Any]]:
    """Every resolved comparison as the overview says it: the better setup first, its lead over the
    other (the difference turned round where a is the worse) with its interval, the largest first."""
    out = []
    for c in comps:
        if c["verdict"] not in (BETTER, WORSE):
            continue
        flip = c["better"] == c["b"]
        d, lo, hi = (-c["difference"], -c["high"], -c["low"]) if flip else (c["difference"], c["low"], c["high"])
        first, second = (c["b"], c["a"]) if flip else (c["a"], c["b"])
        where = f"{first} − {second}, {c['label']}: {c['path_a']} and {c['path_b']}"
        out.append({"better": s.labels[first], "other": s.labels[second], "what": c["label"], "size": abs(d),
                    "difference": Fig(signed(d, pcts[c["key"]]), how=f"{s.labels[first]} − {s.labels[second]}; "
                                      f"{c['method']}", detail=where, dense=True),
                    "interval": Fig(interval(lo, hi, pcts[c["key"]]), how="95% interval", detail=where, dense=True)
                    if lo == lo and hi == hi else "no interval"})
    return sorted(out, key=lambda r: -r["size"])


def _counts(verdicts: list[str]) -> dict[str, int]:
    out = dict.fromkeys((BETTER, WORSE, UNRESOLVED), 0)
    for v in verdicts:
        out[v] += 1
    return out


def _ranking(s, key: str, ranks: dict) -> str:
    found = sorted((r for (k, _), r in ranks.items() if k == key), key=lambda r: (r["rank"], s.order.index(r["setup"])))
    groups: dict[int, list[str]] = {}
    for r in found:
        groups.setdefault(r["rank"], []).append(s.labels[r["setup"]])
    if len(groups) == 1 and len(found) > 1:
        return "all tied: no verdict separates the setups"
    return "; ".join((f"{k}. " if len(v) == 1 else f"={k}. ") + " = ".join(v) for k, v in groups.items())


def _setups(s) -> list[dict[str, Any]]:
    return [{"setup": s.labels[x], "baseline": x == s.baseline, "model": s.models.get(x) or "not recorded",
             "runs": f"{s.runs[x]} runs" if s.runs[x] >= 2 else "one run", "fewshot": s.fewshot.get(x) or "not recorded"}
            for x in s.order]


def _methods(s) -> list[str]:
    kinds = {k["kind"] for k in s.keys}
    out = []
    if MEAN in kinds:
        out.append("Per-document metrics (accuracy, exact match): a setup's score is the mean over the documents of each "
                   "document's mean over the setup's runs, ±1.96 standard errors of those per-document means. With one run "
                   "that is the harness's own standard error (the documents' scatter); with two runs or more each "
                   "document's mean holds the run-to-run noise as well, so the interval holds both levels. Two setups are "
                   "compared over the same documents: the mean of the per-document differences, ±1.96 of their standard "
                   "error.")
    if kinds - {MEAN, STATED}:
        out.append(f"Corpus metrics (F1, Matthews' correlation): a run's score is the aggregation of its (gold, prediction) "
                   f"pairs, a setup's the mean of its runs'; intervals from a bootstrap over documents ({s.resamples:,} "
                   f"resamples, seed {s.seed}), the same resampled documents for every run and setup, so that a difference "
                   "is paired; its interval is the percentile interval, its p-value the bootstrap's two-sided one.")
    if STATED in kinds:
        out.append("Metrics without per-document scores: each run's value and standard error as its results file states "
                   "them; a setup's score is its runs' mean (its variance: the runs' mean squared standard error plus the "
                   "runs' variance over their number); differences unpaired.")
    return out


# -- its lines elsewhere ------------------------------------------------------------------------------

LEGEND = "a, the first setup of a difference a − b"


def sides(a) -> dict[str, str] | None:
    """The study's setups as the opening sentence, the dashboard and What was tested name them."""
    s = a.of("accuracy_study")
    if s is None:
        return None
    names = [s.labels[x] for x in s.order]
    if s.baseline:
        others = [s.labels[x] for x in s.order if x != s.baseline]
        opening = (f"{len(others)} setup{'s' if len(others) != 1 else ''} ({'; '.join(others)}) against {s.labels[s.baseline]}" if len(others) <= 3
                   else f"{len(others)} setups against {s.labels[s.baseline]}")
        return {"opening": opening, "against": s.labels[s.baseline], "legend": LEGEND}
    opening = f"An accuracy study of {len(names)} setups" + (f" ({'; '.join(names)})" if len(names) <= 4 else "")
    return {"opening": opening, "against": f"no baseline: every pair of the {len(names)} setups is compared",
            "legend": LEGEND}


def csv(a) -> dict[str, pd.DataFrame]:
    s = a.of("accuracy_study")
    if s is None:
        return {}
    return {"accuracy-study-figures": s.figures.assign(label_setup=s.figures["setup"].map(s.labels)),
            "accuracy-study-comparisons": s.comparisons.assign(label_a=s.comparisons["a"].map(s.labels),
                                                               label_b=s.comparisons["b"].map(s.labels), fdr=s.fdr,
                                                               tests=s.tests),
            "accuracy-study-ranks": s.ranks.assign(beaten_by=s.ranks["beaten_by"].map(lambda v: ";".join(v)))}


def headlines(a) -> list[tuple[str, str, str]]:
    s = a.of("accuracy_study")
    if s is None:
        return []
    c = s.counts
    return [("Accuracy study:", f"{len(s.order)} setups × {len(s.keys)} scores: {c[BETTER] + c[WORSE]} of {c['cells']} "
             "comparisons resolved", "accent")]


def verdict(a) -> str | None:
    s = a.of("accuracy_study")
    if s is None:
        return None
    c = s.counts
    return (f"{c[BETTER] + c[WORSE]} of {c['cells']} comparisons resolved (false discoveries held to {s.fdr:.0%} over the "
            f"study), {c[UNRESOLVED]} not resolved")


def summary(a, shown: dict | None) -> dict[str, Any] | None:
    """Its part of `sitegen summary --format json` (summary-output-1.schema.json, `accuracy_study`)."""
    if not shown:
        return None
    s = a.of("accuracy_study")
    c = s.counts
    return {"accuracy_study": {
        "setups": [{"id": x, "label": s.labels[x], "model": s.models.get(x) or None, "runs": s.runs[x]} for x in s.order],
        "baseline": s.baseline, "rule": RULE, "fdr": s.fdr, "method": "benjamini-hochberg", "tests": s.tests,
        "counts": {"better": c[BETTER], "worse": c[WORSE], "not_resolved": c[UNRESOLVED], "comparisons": c["cells"]},
        "scores": [{"task": r["task"], "metric": r["metric"], "filter": r["filter"], "setup": r["setup"],
                    "value": plain.number(r["value"]), "interval": plain.span(r["low"], r["high"]), "runs": int(r["runs"])}
                   for r in views.rows(s.figures)],
        "comparisons": [{"task": r["task"], "metric": r["metric"], "filter": r["filter"], "a": r["a"], "b": r["b"],
                         "difference": plain.number(r["difference"]), "interval": plain.span(r["low"], r["high"]),
                         "paired": bool(r["paired"]), "p_adjusted": plain.number(r["p_adjusted"]),
                         "verdict": r["verdict"]} for r in views.rows(s.comparisons)]}}


def summary_rows(d: dict[str, Any]) -> list[tuple[str, str]]:
    if "accuracy_study" not in d:
        return []
    s = d["accuracy_study"]
    c = s["counts"]
    names = {x["id"]: x["label"] for x in s["setups"]}
    rows = [("Accuracy study", f"{len(s['setups'])} setups: {c['better'] + c['worse']} of {c['comparisons']} comparisons "
             f"resolved ({c['not_resolved']} not resolved; false discoveries held to {s['fdr']:.0%} over {s['tests']} "
             "tested)")]
    def key(r: dict) -> tuple:
        return r["task"], r["metric"], r["filter"]

    values: dict[tuple, list[Any]] = {}
    for g in s["scores"]:
        values.setdefault(key(g), []).extend([g["value"], *((g["interval"] or {}).values())])
    for r in s["comparisons"]:
        if r["verdict"] in (BETTER, WORSE):
            pct, within = proportion(r["metric"], values.get(key(r), [])), r["interval"]
            rows.append((f"{r['task']}: {r['metric']}", f"{names[r['a']]} {r['verdict']} than {names[r['b']]}, "
                         f"{signed(r['difference'], pct)}" + (f" {interval(within['low'], within['high'], pct)}"
                                                               if within else "")))
    return rows


# -- against another study of the same setups (`sitegen compare`) -------------------------------------

def compare_what(item) -> str:
    """`llama · t: acc`."""
    return " · ".join(str(v) for v in item.where.values())


def compare_value(c, v: float, signed: bool = False, more: int = 0) -> str:
    """A proportion's score in percent, its change in points; a score on its own scale (Matthews'
    correlation, BLEU) as it is, as the study's page prints it (the unit `compare_unit` names)."""
    if c.unit == PROPORTION:
        return fmt.signed(v * 100, 1 + more) if signed else fmt.fixed(v * 100, 1 + more)
    return fmt.signed(v, 3 + more) if signed else fmt.fixed(v, 3 + more)


def compare_unit(c) -> str:
    return "%, change in pts" if c.unit == PROPORTION else "score on its own scale"


BLOCKS = {"accuracy-study": BlockSpec("accuracy-study", "accuracy_study", (), "{{ accuracy_study_block(accuracy_study, id) }}",
                                      "an accuracy study's scores: each task and metric, every setup's score with its "
                                      "interval and rank", "accuracy-study")}
MACROS = ("accuracy_study_block",)

PART = ViewPart(view=view, csv=csv, blocks=BLOCKS, macros=MACROS, summary=summary, summary_rows=summary_rows,
                verdict=verdict, headlines=headlines, sides=sides, compare_what=compare_what,
                compare_value=compare_value, compare_unit=compare_unit)
