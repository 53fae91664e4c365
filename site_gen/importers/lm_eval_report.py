"""The lm-eval receipt's parts: each task and metric's result (each side's value and standard
error, by the aggregation that gives back the file's value, and with two sides their difference,
paired where it can be), and the report part (title, date, the runs as engines, what was tested)."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from site_gen.core.errors import SitegenError
from site_gen.importers import serving_common as sc
from site_gen.importers.common import slug
from site_gen.importers.lm_eval_stats import (
    NOT_RECOMPUTED,
    Z95,
    Figures,
    figures,
    paired,
)
from site_gen.receipts.load import UNRECORDED

if TYPE_CHECKING:
    from site_gen.importers.lm_eval import Run, Task


SHORT = {"f1": "binary F1", "f1_weighted": "weighted F1", "f1_macro": "macro F1", "f1_micro": "micro F1", "mcc": "MCC",
         "bleu": "BLEU", "chrf": "chrF", "ter": "TER"}


def result(runs: dict[str, Run], roles: list[str], task: str, key: tuple[str, str], docs: list[int], checkpoint: str,
            path: str, prov: sc.Provenance) -> tuple[dict[str, Any], list[str]]:
    """One task and metric: each side's value and standard error (recomputed from its samples where
    it has them, by the aggregation that gives back the file's value), and, with two sides, their
    difference with its interval, paired where it can be; and what was not recomputed."""
    metric, filt = key
    figs: dict[str, Figures | None] = {}
    for role in roles:
        run = runs[role]
        t = run.tasks[task]
        figs[role] = figures(t, metric, filt, t.metrics[key], run.src.path, t.hints.get(metric, ""))
    t0 = runs[roles[-1]].tasks[task]
    kinds = {f.kind for f in figs.values() if f is not None}
    label = f"{task}: {metric}" + ("" if filt == "none" else f" ({filt})")
    shown = [SHORT[k] for k in kinds if k in SHORT and not (k == "f1" and metric == "f1")]
    if NOT_RECOMPUTED in kinds:
        shown.append("not recomputed")
    r: dict[str, Any] = {"checkpoint": checkpoint, "measure": slug(f"{task}-{metric}-{filt}"),
                         "label": label + (f" ({', '.join(sorted(shown))})" if shown else ""), "unit": "proportion",
                         "better": "higher" if t0.higher.get(metric, True) else "lower", "task": task}
    notes = []
    whats = {f.what for f in figs.values() if f is not None}
    if whats:
        r["aggregation"] = "; ".join(sorted(whats))[:500]
    sides = {}
    for role in roles:
        run, t, f = runs[role], runs[role].tasks[task], figs[role]
        s = t.metrics[key]
        sides[role] = side(t, f, s)
        cite = f"$.results.{task}[\"{s['key']}\"]"
        recomputed = f is not None and f.recomputed
        samples: Any = t.samples
        prov.cite(f"{path}.{role}", run.src, cite + (f"; recomputed from {samples.name}" if recomputed else "; as stated"))
        if f is not None:
            prov.source_id(samples)  # the file the value is recomputed from (or checked against), with its hash
        if f is not None and not f.recomputed:
            notes.append(f"{task}: {metric} ({filt}) is imported as the {role}'s results file states it, not recomputed: "
                         f"{f.what}.")
    r.update(sides)
    if len(roles) == 1:
        r["items"] = sides["candidate"].get("documents") or 1
    else:
        _difference(r, runs, task, metric, figs, docs, path, prov)
    return r, notes


def _difference(r: dict[str, Any], runs: dict[str, Run], task: str, metric: str, figs: dict[str, Figures | None],
                docs: list[int], path: str, prov: sc.Provenance) -> None:
    """The two sides' difference and its interval: paired over the shared documents where both
    recomputed the metric alike, else unpaired from the two standard errors, else none."""
    b, c = runs["baseline"], runs["candidate"]
    xs: Any = b.tasks[task].samples
    ys: Any = c.tasks[task].samples
    fbx, fby = figs["baseline"], figs["candidate"]
    pair = paired(fbx, fby, docs) if fbx is not None and fby is not None and docs else None
    sides = {k: r[k] for k in ("baseline", "candidate")}
    if pair is not None:
        diff, iv, how = pair
        r.update(items=len(docs), paired=True, difference=diff, interval=iv, interval_method=how)
        prov.cite(f"{path}.difference", ys, f"$.{metric} of {len(docs)} shared documents (and {xs.name})")
        prov.source_id(xs)
    elif all(sides[k].get("stderr") is not None for k in sides):
        diff = sides["candidate"]["value"] - sides["baseline"]["value"]
        se = math.hypot(sides["baseline"]["stderr"], sides["candidate"]["stderr"])
        r.update(items=min(sides[k].get("documents") or 1 for k in sides), paired=False, difference=diff,
                 interval=[diff - Z95 * se, diff + Z95 * se],
                 interval_method="unpaired: difference ± 1.96 × the root of the sum of the two squared standard errors")
        prov.cite(f"{path}.difference", c.src, f"$.results.{task} of both results files (unpaired)")
    else:
        r["items"] = min(sides[k].get("documents") or 1 for k in sides)


def side(t: Task, f: Figures | None, s: dict) -> dict[str, Any]:
    """One run's value of a metric, with its standard error and interval."""
    se = f.stderr if f is not None else s["stderr"]
    value = f.value if f is not None else s["value"]
    side: dict[str, Any] = {"value": value}
    if se is not None:
        side["interval"] = [value - Z95 * se, value + Z95 * se]
        side["stderr"] = se
    if s["stderr"] is not None:
        side["stated_stderr"] = s["stderr"]
    n = len(f.docs) if f is not None else t.n
    if n:
        side["documents"] = n
    if t.version is not None:
        side["task_version"] = t.version
    if t.fewshot is not None:
        side["fewshot"] = t.fewshot
    return side


def report(runs: dict[str, Run], roles: list[str], names: dict[str, str], checkpoint: dict, tasks: str,
           paired: int, unpaired: int, sampled: dict[str, bool]) -> dict[str, Any]:
    """The receipt's report part: title, date, the runs as engines, what was tested."""
    engines = {}
    for role in roles:
        run = runs[role]
        cfg = run.data.get("config") or {}
        engines[role] = {"name": names[role], "version": UNRECORDED,
                         "long_name": " · ".join(str(v) for v in (f"lm-evaluation-harness {run.data.get('git_hash')}"
                                                                  if run.data.get("git_hash") else "lm-evaluation-harness",
                                                                  cfg.get("model"), run.model, names[role]) if v)}
    dates = [d for d in (runs[r].date for r in roles) if d]
    if not dates:
        raise SitegenError("no date: the results files record none", runs["candidate"].src.path, "$.date")
    title = (f"{names['candidate']} against {names['baseline']}: {checkpoint['label']}, {tasks}" if "baseline" in roles
             else f"{names['candidate']}: {checkpoint['label']}, {tasks}")
    tested = [{"label": "Harness", "text": "lm-evaluation-harness results" + (
                  " and per-document samples" if all(sampled.values()) else
                  f" ({', '.join(names[r] for r in sampled if sampled[r])} with per-document samples)"
                  if any(sampled.values()) else " (no per-document samples)")},
              {"label": "Tasks", "text": tasks}]
    if "baseline" in roles:
        tested.append({"label": "Pairing", "text": "paired over the documents both runs scored" if not unpaired else
                       "unpaired: no per-document samples on both sides" if not paired else
                       f"{paired} paired over the documents both runs scored, {unpaired} unpaired (no per-document "
                       "samples on both sides)"})
    for role in roles:
        names_of = sorted(task.samples.name for task in runs[role].tasks.values() if task.samples is not None)
        tested.append({"label": f"{role.capitalize()} samples",
                       "text": (", ".join(names_of) if names_of else "none found beside the results file")[:2000]})
    return {"title": title, "date": max(dates), "engines": engines, "checkpoints": [checkpoint], "tested": tested}
