"""An accuracy study's analysis: each setup's score per task and metric with its 95% interval, its
runs combined document by document; every pair of setups compared over the same documents, the
verdicts held to a false discovery rate over the whole study (Benjamini–Hochberg); the ranks.

- A per-document metric (accuracy, exact match: `kind` mean). A setup's score is the mean over the
  documents of each document's mean over the setup's runs (= the mean of its runs' scores); its
  standard error is the standard deviation of those per-document means over the square root of the
  documents. With one run that is the harness's own standard error; with two runs or more each
  document's mean already holds the run-to-run noise, so the interval holds both levels, documents
  and runs. Two setups' difference is paired over the documents: the mean of the per-document
  differences, its standard error theirs (a normal 95% interval and a two-sided p-value).
- A corpus metric (F1, Matthews' correlation: `kind` the aggregation). A run's score is the
  aggregation of its (gold, prediction) pairs, a setup's the mean of its runs'; the interval is a
  seeded bootstrap over documents, the same resampled documents for every run and setup (paired),
  the percentile interval of the difference and its two-sided bootstrap p-value.
- A metric only stated (no per-document samples, or another aggregation: `kind` stated). A setup's
  score is its runs' mean; its variance the runs' mean squared standard error (the documents) plus
  the runs' variance over their number (run to run); differences unpaired.

Verdicts: a comparison is `better` or `worse` (for a, the first setup of a - b; by the metric's
direction) where Benjamini–Hochberg over every comparison with a p-value rejects "no difference"
and its 95% interval excludes zero; otherwise `not resolved`. There is no band: a difference in
score is a difference."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from site_gen.analysis import compare as compare_
from site_gen.analysis.compare import Change, Difference, Unmatched, match
from site_gen.analysis.frames import frame
from site_gen.importers.lm_eval_stats import PAIRED, Z95, label_codes
from site_gen.sections.study.analysis import stats
from site_gen.sections.study.analysis.verdicts import pairs
from site_gen.sections.contract import AnalysisPart

BETTER, WORSE, UNRESOLVED = "better", "worse", "not resolved"
VERDICTS = (BETTER, WORSE, UNRESOLVED)
MEAN, STATED = "mean", "stated"
FIGURE_COLUMNS = ["task", "metric", "filter", "label", "key", "better_is", "kind", "setup", "value", "low", "high", "se",
                  "runs", "spread_low", "spread_high", "documents", "method", "path"]
COMPARISON_COLUMNS = ["task", "metric", "filter", "label", "key", "better_is", "kind", "a", "b", "value_a", "value_b",
                      "difference", "low", "high", "se", "paired", "method", "p", "p_adjusted", "verdict", "better",
                      "path_a", "path_b"]
RANK_COLUMNS = ["key", "setup", "value", "rank", "tied", "beaten_by"]


@dataclass
class AccuracyStudyResult:
    order: list[str]
    labels: dict[str, str]
    baseline: str | None
    models: dict[str, str]
    runs: dict[str, int]
    fewshot: dict[str, str]            # per setup: its few-shot counts, as text
    keys: list[dict[str, Any]]         # per task and metric (in receipt order): key, label, task, metric, kind, better_is
    figures: pd.DataFrame
    comparisons: pd.DataFrame
    ranks: pd.DataFrame
    counts: dict[str, int]
    tests: int                          # comparisons with a p-value: the Benjamini–Hochberg family
    fdr: float
    resamples: int
    seed: int
    repeated: list[str] = field(default_factory=list)

    def share(self, verdict: str) -> float:
        return self.counts[verdict] / self.counts["cells"] if self.counts["cells"] else math.nan


@dataclass
class _Setup:
    """One setup's figure of one task and metric, and what its comparisons need."""
    value: float
    se: float
    runs: int
    values: list[float]
    per_doc: np.ndarray | None = None   # mean: each document's mean over the runs
    boot: np.ndarray | None = None      # corpus: the bootstrap's resampled scores
    method: str = ""
    documents: int = 0


def _normal_p(d: float, se: float) -> float:
    from scipy.special import ndtr

    if se != se or d != d:
        return math.nan
    if se == 0:
        return 0.0 if d != 0 else 1.0
    return float(2 * (1 - ndtr(abs(d) / se)))


def _setup_figure(kind: str, runs: list[dict], idx: np.ndarray | None, codes: Any) -> _Setup:
    values = [float(r["value"]) for r in runs]
    n_runs = len(runs)
    if kind == MEAN:
        s = np.array([r["scores"] for r in runs], dtype=float)   # runs x documents
        per_doc = s.mean(axis=0)
        n = per_doc.size
        se = float(per_doc.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
        how = (f"mean of {n:,} documents, one run; ±1.96 standard errors over documents" if n_runs == 1 else
               f"{n_runs} runs: each document's mean over its runs, their mean over {n:,} documents; ±1.96 standard "
               "errors of the per-document means (documents and run to run)")
        return _Setup(float(per_doc.mean()), se, n_runs, values, per_doc=per_doc, method=how, documents=n)
    if kind in PAIRED and idx is not None:
        fn = PAIRED[kind][0]
        arrs = [label_codes(np.array(r["scores"], dtype=object if _textual(r["scores"]) else float), codes[0]) for r in runs]
        value = float(np.mean([float(fn(x, codes[1])) for x in arrs]))
        boot = np.mean([fn(x[idx], codes[1]) for x in arrs], axis=0)
        n = len(runs[0]["scores"])
        how = (f"{PAIRED[kind][1]}, " + ("one run" if n_runs == 1 else f"the mean of {n_runs} runs'")
               + f"; bootstrap over {n:,} documents ({idx.shape[0]:,} resamples, the same for every run and setup)")
        return _Setup(value, float(np.std(boot, ddof=1)), n_runs, values, boot=boot, method=how, documents=n)
    ses = [r.get("stderr") for r in runs]
    value = float(np.mean(values))
    if any(s is None for s in ses):
        se = math.nan
    else:
        var_docs = float(np.mean(np.square(np.array(ses, dtype=float))))
        var_runs = float(np.var(values, ddof=1)) / n_runs if n_runs > 1 else 0.0
        se = math.sqrt(var_docs + var_runs)
    how = ("as the results file states it (no per-document scores)" if n_runs == 1 else
           f"the mean of {n_runs} runs as their results files state them; variance: their squared standard errors' "
           "mean plus the runs' variance over their number")
    docs = [r.get("documents") for r in runs]
    return _Setup(value, se, n_runs, values, method=how, documents=int(min(d for d in docs if d)) if any(docs) else 0)


def _textual(scores: list) -> bool:
    return any(isinstance(x, str) for pair in scores for x in pair)


def _labels(runs: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    """Every run's labels coded alike: (the labels, their codes)."""
    flat = [x for r in runs for pair in r["scores"] for x in pair]
    if any(isinstance(x, str) for x in flat):
        labels = np.unique(np.array([str(x) for x in flat], dtype=object).astype(str))
    else:
        labels = np.unique(np.array(flat, dtype=float))
    return labels, np.unique(label_codes(np.array(flat, dtype=object if labels.dtype.kind in "UO" else float), labels))


def _compare(kind: str, x: _Setup, y: _Setup) -> tuple[float, float, float, float, float, bool, str]:
    """(difference, low, high, se, p, paired, method) of x - y."""
    d = x.value - y.value
    if kind == MEAN and x.per_doc is not None and y.per_doc is not None:
        diffs = x.per_doc - y.per_doc
        se = float(diffs.std(ddof=1) / math.sqrt(diffs.size)) if diffs.size > 1 else math.nan
        return (d, d - Z95 * se, d + Z95 * se, se, _normal_p(d, se), True,
                "paired over documents: the mean of the per-document differences ± 1.96 standard errors")
    if x.boot is not None and y.boot is not None:
        boot = x.boot - y.boot
        b = boot.size
        lo, hi = np.quantile(boot, [0.025, 0.975])
        p = min(1.0, 2 * min((1 + int((boot <= 0).sum())) / (b + 1), (1 + int((boot >= 0).sum())) / (b + 1)))
        return (d, float(lo), float(hi), float(np.std(boot, ddof=1)), p, True,
                f"paired bootstrap over documents ({b:,} resamples), percentile interval, two-sided bootstrap p")
    se = math.hypot(x.se, y.se)
    if se != se:
        return d, math.nan, math.nan, math.nan, math.nan, False, "no interval: a standard error is missing"
    return (d, d - Z95 * se, d + Z95 * se, se, _normal_p(d, se), False,
            "unpaired: ± 1.96 × the root of the sum of the two squared standard errors")


def analyse(a, part: dict) -> AccuracyStudyResult | None:
    setups = part["setups"]
    if len(setups) < 2:
        return None
    order = [s["id"] for s in setups]
    labels = {s["id"]: s["label"] for s in setups}
    baseline = part.get("baseline")
    method = part.get("method") or {}
    resamples, seed = int(method.get("resamples", 2000)), int(method.get("seed", 0))
    fig_rows: list[dict] = []
    comp_rows: list[dict] = []
    keys: list[dict[str, Any]] = []
    compared = pairs(order, baseline)
    for ti, task in enumerate(part["tasks"]):
        for mi, m in enumerate(task["metrics"]):
            keys.append(_metric(f"$.accuracy_study.tasks[{ti}].metrics[{mi}]", task, m, order, compared, resamples, seed,
                                fig_rows, comp_rows))
    tests = _verdicts(comp_rows)
    comparisons = frame({c: [r[c] for r in comp_rows] for c in COMPARISON_COLUMNS}, COMPARISON_COLUMNS)
    ranked = _ranks(comp_rows, fig_rows, order)
    counts = dict.fromkeys(VERDICTS, 0)
    for r in comp_rows:
        counts[r["verdict"]] += 1
    counts["cells"] = len(comp_rows)
    runs = {s["id"]: len(s["runs"]) for s in setups}
    return AccuracyStudyResult(
        order=order, labels=labels, baseline=baseline, models={s["id"]: s.get("model", "") for s in setups}, runs=runs,
        fewshot={s["id"]: _shots(s) for s in setups}, keys=keys,
        figures=frame({c: [r[c] for r in fig_rows] for c in FIGURE_COLUMNS}, FIGURE_COLUMNS), comparisons=comparisons,
        ranks=frame({c: [r[c] for r in ranked] for c in RANK_COLUMNS}, RANK_COLUMNS), counts=counts, tests=tests,
        fdr=stats.FDR, resamples=resamples, seed=seed, repeated=[s for s in order if runs[s] >= 2])


def _metric(path: str, task: dict, m: dict, order: list[str], compared: list[tuple[str, str]], resamples: int, seed: int,
            fig_rows: list[dict], comp_rows: list[dict]) -> dict[str, Any]:
    """One task and metric: each setup's figure (its runs combined) and every pair's comparison,
    appended to the rows; returns what names it."""
    n_docs = len(task.get("documents") or [])
    kind = m["kind"] if n_docs else STATED  # no document to combine or pair over: each run's value as stated
    key = f"{task['task']}|{m['metric']}|{m['filter']}"
    info = {"task": task["task"], "metric": m["metric"], "filter": m["filter"], "label": m["label"], "key": key,
            "better_is": m["better"], "kind": kind}
    by_setup: dict[str, list[tuple[int, dict]]] = {}
    for k, r in enumerate(m["runs"]):
        by_setup.setdefault(r["setup"], []).append((k, r))
    idx = (np.random.default_rng(seed).integers(0, n_docs, size=(resamples, n_docs)) if kind in PAIRED and n_docs else None)
    codes = _labels(m["runs"]) if kind in PAIRED and idx is not None else None
    figs: dict[str, _Setup] = {}
    paths: dict[str, str] = {}
    for sid in order:
        found = by_setup.get(sid)
        if not found:
            continue
        f = figs[sid] = _setup_figure(kind, [r for _, r in found], idx, codes)
        paths[sid] = (f"{path}.runs[{found[0][0]}]" if len(found) == 1 else
                      f"{path}.runs[{found[0][0]}] … runs[{found[-1][0]}] ({len(found)} runs)")
        low, high = ((f.value - Z95 * f.se, f.value + Z95 * f.se) if f.boot is None else
                     tuple(float(x) for x in np.quantile(f.boot, [0.025, 0.975])))
        fig_rows.append({**info, "setup": sid, "value": f.value, "low": low, "high": high, "se": f.se, "runs": f.runs,
                         "spread_low": min(f.values) if f.runs > 1 else math.nan,
                         "spread_high": max(f.values) if f.runs > 1 else math.nan, "documents": f.documents,
                         "method": f.method, "path": paths[sid]})
    for a_id, b_id in compared:
        if a_id not in figs or b_id not in figs:
            continue
        d, lo, hi, se, p, paired_, how = _compare(kind, figs[a_id], figs[b_id])
        comp_rows.append({**info, "a": a_id, "b": b_id, "value_a": figs[a_id].value, "value_b": figs[b_id].value,
                          "difference": d, "low": lo, "high": hi, "se": se, "paired": paired_, "method": how, "p": p,
                          "path_a": paths[a_id], "path_b": paths[b_id]})
    return info


def _shots(setup: dict) -> str:
    found = sorted({v for r in setup["runs"] for v in (r.get("fewshot") or {}).values() if v is not None})
    return ", ".join(str(v) for v in found)


def _verdicts(rows: list[dict]) -> int:
    p = np.array([r["p"] for r in rows], dtype=float)
    rejected, adjusted = stats.adjust(p, stats.FDR)
    for r, rej, padj in zip(rows, rejected, adjusted):
        r["p_adjusted"] = float(padj)
        excludes = r["low"] > 0 or r["high"] < 0
        if rej and excludes:
            up = r["difference"] > 0
            a_better = up == (r["better_is"] == "higher")
            r["verdict"] = BETTER if a_better else WORSE
            r["better"] = r["a"] if a_better else r["b"]
        else:
            r["verdict"], r["better"] = UNRESOLVED, ""
    return int((~np.isnan(p)).sum())


def _ranks(comparisons: list[dict], figures: list[dict], order: list[str]) -> list[dict]:
    """Per task and metric, each setup's rank: 1 + the setups a verdict puts ahead of it (tied where
    none separates them)."""
    beats: dict[tuple, set[str]] = {}
    for c in comparisons:
        if c["better"]:
            loser = c["b"] if c["better"] == c["a"] else c["a"]
            beats.setdefault((c["key"], loser), set()).add(c["better"])
    by_key: dict[str, list[dict]] = {}
    for f in figures:
        by_key.setdefault(f["key"], []).append(f)
    out = []
    for key, figs in by_key.items():
        if len(figs) < 2:
            continue
        ranks = {f["setup"]: 1 + len(beats.get((key, f["setup"]), ())) for f in figs}
        for f in figs:
            out.append({"key": key, "setup": f["setup"], "value": f["value"], "rank": ranks[f["setup"]],
                        "tied": sum(1 for v in ranks.values() if v == ranks[f["setup"]]) > 1,
                        "beaten_by": sorted(beats.get((key, f["setup"]), ()), key=order.index)})
    return out


# -- two accuracy studies of the same setups (`sitegen compare OLD NEW`) ------------------------------
# Each setup's score of each task and metric both studies hold, new - old, with the unpaired 95%
# interval of the two scores' standard errors (the studies' runs are independent), a two-sided
# p-value, and Benjamini–Hochberg over every change of the comparison: better or worse only where it
# keeps the change and the interval excludes zero.

ALLOW = ("setups",)  # refused when no setup is shared


def setup(old, new) -> list[Difference]:
    so, sn = old.of("accuracy_study"), new.of("accuracy_study")
    out = []
    shared = [s for s in sn.order if s in so.order]
    if not shared:
        out.append(Difference("setups", ", ".join(so.order), ", ".join(sn.order), "$.accuracy_study.setups"))
    for s in shared:
        if (so.models.get(s) or "") != (sn.models.get(s) or ""):
            out.append(Difference(f"{s} model", so.models.get(s) or "not recorded", sn.models.get(s) or "not recorded",
                                  f"$.accuracy_study.setups[{sn.order.index(s)}].model", refusable=False))
    return out


# Metrics whose scale is their own (Matthews' correlation runs −1 to 1, BLEU and chrF 0 to 100,
# perplexities from 1 up): printed as numbers. Every other metric whose every score and bound lies
# in 0–1 is a proportion: printed in percent, its differences in points, as the pair's accuracy is
# (the study's page and `sitegen compare` alike).
OWN_SCALE = ("mcc", "bleu", "ter", "chrf", "perplexity", "word_perplexity", "byte_perplexity", "bits_per_byte",
             "brier_score", "likelihood")


PROPORTION = "proportion"  # a Change's unit for a proportion's score (analysis/compare.py)


def proportion(metric: str, values: list[Any]) -> bool:
    """Whether a metric's scores read as a proportion (percent, differences in points)."""
    name = metric.split(",")[0].lower()
    return name not in OWN_SCALE and all(0 <= v <= 1 for v in values if isinstance(v, (int, float)) and v == v)


def _figures(s) -> dict[tuple, dict]:
    return {(r["setup"], r["task"], r["metric"], r["filter"]): r for r in s.figures.to_dict("records")}


def compare(old, new, band: float) -> tuple[list[Change], list[Unmatched]]:
    from scipy.special import ndtr

    so, sn = old.of("accuracy_study"), new.of("accuracy_study")
    fo, fn = _figures(so), _figures(sn)
    both, only_old, only_new = match(fo, fn)
    rows = []
    for k in both:
        o, n = fo[k], fn[k]
        d = n["value"] - o["value"]
        se = math.hypot(o["se"], n["se"])
        lo, hi = (d - Z95 * se, d + Z95 * se) if se == se else (math.nan, math.nan)
        p = (float(2 * (1 - ndtr(abs(d) / se))) if se > 0 else float(d == 0)) if se == se else math.nan
        rows.append((k, o, n, d, lo, hi, p))
    rejected, _ = stats.adjust(np.array([r[-1] for r in rows], dtype=float), stats.FDR)
    # A metric's scale, from every setup's score of it in either study (as each study's page decides it).
    scores: dict[tuple, list[float]] = {}
    for f in (*fo.values(), *fn.values()):
        scores.setdefault((f["task"], f["metric"], f["filter"]), []).extend((f["value"], f["low"], f["high"]))
    changes = []
    for (k, o, n, d, lo, hi, _), rej in zip(rows, rejected):
        higher = n["better_is"] != "lower"
        ahead = compare_.BETTER if (d > 0) == higher else compare_.WORSE
        verdict = ahead if rej and (lo > 0 or hi < 0) else compare_.NOT_RESOLVED
        where = {"setup": sn.labels[k[0]], "measure": n["label"]}
        unit = PROPORTION if proportion(n["metric"], scores[k[1:]]) else "score"
        changes.append(Change("accuracy_study", "score", where, n["key"], unit, higher, False, o["value"],
                              n["value"], d, lo, hi, "difference",
                              "unpaired; Benjamini–Hochberg over the comparison" if lo == lo else "no interval", verdict,
                              o["path"], n["path"]))
    unmatched = [Unmatched("accuracy_study", "score", {"setup": so.labels[k[0]], "measure": fo[k]["label"]}, "old")
                 for k in only_old]
    unmatched += [Unmatched("accuracy_study", "score", {"setup": sn.labels[k[0]], "measure": fn[k]["label"]}, "new")
                  for k in only_new]
    return changes, unmatched


PART = AnalysisPart(analyse=analyse, setup=setup, allow=ALLOW, compare=compare)
