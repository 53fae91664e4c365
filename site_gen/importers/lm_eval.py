"""`sitegen import lm-eval`: two lm-evaluation-harness runs (`results_<time>.json` and the
`samples_<task>_<time>.json(l)` files beside each) -> the accuracy part of a schema 1.2 receipt.

Per task and metric: each side's value and standard error, recomputed from the per-document samples
where the run kept them, and checked against the results file (the value to 1e-9; the standard
error of a per-document mean exactly as the harness computes it, sample standard deviation over
the square root of the documents; that of a corpus metric such as f1, which the harness bootstraps
with its own unrecorded resampling, within 30% of ours). The difference of the sides is paired over
the documents both sides scored (the same `doc_id` with the same `doc_hash`): for per-document
metrics the mean difference with a normal 95% interval of the per-document differences, for corpus
metrics a seeded paired bootstrap over documents (seed and resamples in the receipt). Without
samples on both sides, the interval is unpaired, from the two standard errors, and says so.

Different few-shot counts and task versions are shown in the report; different tasks, documents or
models are refused unless `--allow tasks`, `--allow documents` or `--allow model`.
"""
from __future__ import annotations

from site_gen.importers.common import stamp

import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from site_gen.core.errors import SitegenError
from site_gen.importers import lm_eval_report
from site_gen.importers import serving_common as sc
from site_gen.importers.common import slug
from site_gen.importers.lm_eval_stats import (  # noqa: F401
    CORPUS,
    NOT_RECOMPUTED,
    RESAMPLES,
    SEED,
    Z95,
    Figures,
    figures,
    paired,
)
from site_gen.importers.options import ImportResult, ServingOptions

RESULTS_NAME = re.compile(r"results_(.+)\.json")
# The run's time in a results file's name, as the harness writes it: `results_<time>.json`, or
# `<stem>_<time>.json` when --output_path names a file; its samples are `samples_<task>_<time>.jsonl`.
RUN_TIME = re.compile(r"_([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}-[0-9]{2}-[0-9]{2}(?:\.[0-9]+)?)\.json")


@dataclass
class Task:
    name: str
    metrics: dict[tuple[str, str], dict] = field(default_factory=dict)  # (metric, filter) -> value, stderr keys
    version: str | None = None
    fewshot: int | None = None
    higher: dict[str, bool] = field(default_factory=dict)
    hints: dict[str, str] = field(default_factory=dict)  # per metric, what the task's config says of its aggregation
    n: int | None = None
    samples: sc.Source | None = None
    docs: list[dict] = field(default_factory=list)  # per document: doc_id, doc_hash, line, metric values


@dataclass
class Run:
    src: sc.Source
    data: dict
    tasks: dict[str, Task]
    model: str | None
    date: str | None
    label: str = ""


def _fail(src: sc.Source, message: str, where: str = "$") -> SitegenError:
    return SitegenError(message, src.path, where)


def _samples_file(results: Path, task: str) -> Path | None:
    """The task's samples beside the results file: found by the task and the run's time in the
    results file's name, whatever the name's prefix (`results_<time>.json`, `<stem>_<time>.json`)."""
    m = RESULTS_NAME.fullmatch(results.name) or RUN_TIME.search(results.name)
    if not m:
        return None
    for ext in (".jsonl", ".json"):
        p = results.parent / f"samples_{task}_{m.group(1)}{ext}"
        if os.path.lexists(p):  # read beside the results file only, never through a link out (reading.py)
            return p
    return None


def _part(node: dict, key: str, src: sc.Source, where: str) -> dict:
    """An optional object of the results file: {} when absent or null, else an object or a refusal
    at its place (a list where the harness writes an object is a wrong file, not an empty part)."""
    value = node.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _fail(src, f"expected an object, got {type(value).__name__}", f"{where}.{key}" if where else f"$.{key}")
    return value


def _metric_hint(cfg: dict, metric: str) -> str:
    """What the task's config says of a metric's aggregation (its `aggregation` and `average`), as text."""
    for m in cfg.get("metric_list") or []:
        if isinstance(m, dict) and m.get("metric") == metric:
            return " ".join(f"{k} {v}" for k, v in m.items() if k in ("aggregation", "average") and v is not None)
    return ""


def _number_or_na(v: Any) -> float | None:
    return float(v) if sc.is_number(v) and math.isfinite(v) else None


def read_run(path: Path, root: Path) -> Run:
    src = sc.read_source(path, root, limit=64 << 20)
    records = sc.json_records(src)
    data = records[0][1]
    if len(records) != 1 or not isinstance(data, dict):
        raise _fail(src, "expected one JSON object (an lm-evaluation-harness results file)")
    for key in ("results", "configs"):
        if not isinstance(data.get(key), dict):
            raise _fail(src, f"unknown key set: no '{key}' object; expected an lm-evaluation-harness results file "
                        "(results, configs, versions, n-shot, n-samples, config)", f"$.{key}" if key in data else "$")
    groups = {g for g, subs in _part(data, "group_subtasks", src, "$").items() if isinstance(subs, list) and subs}
    parts = {key: _part(data, key, src, "$") for key in ("versions", "n-shot", "higher_is_better", "n-samples", "config")}
    tasks: dict[str, Task] = {}
    for name, entry in data["results"].items():
        if name in groups or not isinstance(entry, dict):
            continue
        t = Task(name)
        for key, v in entry.items():
            if "," not in key or "_stderr" in key.split(",")[0] or key == "alias":
                continue
            metric, filt = key.split(",", 1)
            if not sc.is_number(v) or isinstance(v, bool):
                continue
            t.metrics[(metric, filt)] = {"key": key, "value": float(v),
                                         "stderr_key": f"{metric}_stderr,{filt}",
                                         "stderr": _number_or_na(entry.get(f"{metric}_stderr,{filt}"))}
        if not t.metrics:
            continue
        version = parts["versions"].get(name)
        t.version = None if version is None else str(version)[:100]
        shots = parts["n-shot"].get(name)
        cfg = _part(data["configs"], name, src, "$.configs")
        if not isinstance(shots, int) and isinstance(cfg.get("num_fewshot"), int):
            shots = cfg["num_fewshot"]
        t.fewshot = shots if isinstance(shots, int) and not isinstance(shots, bool) else None
        t.higher = {k: bool(v) for k, v in _part(parts["higher_is_better"], name, src, "$.higher_is_better").items()}
        t.hints = {m: _metric_hint(cfg, m) for m, _ in t.metrics}
        ns = _part(parts["n-samples"], name, src, '$["n-samples"]')
        t.n = ns.get("effective") if isinstance(ns.get("effective"), int) else None
        sample_path = _samples_file(path, name)
        if sample_path is not None:
            _read_samples(t, sample_path, root)
        tasks[name] = t
    if not tasks:
        raise _fail(src, "no task with metrics in $.results", "$.results")
    cfg = parts["config"]
    model = data.get("model_name") if isinstance(data.get("model_name"), str) else None
    args = cfg.get("model_args")
    if model is None and isinstance(args, str):
        m = re.search(r"(?:pretrained|model)=([^,]+)", args)
        model = m.group(1) if m else None
    elif model is None and isinstance(args, dict):
        model = args.get("pretrained") or args.get("model")
    model = model if isinstance(model, str) and model.strip() else None
    when = data.get("date")
    date = sc.day_of(when, src.path, "$.date")
    return Run(src, data, tasks, model, date)


def _read_samples(t: Task, path: Path, root: Path) -> None:
    src = sc.read_found(path, path.parent, root)
    t.samples = src
    seen: dict[int | tuple[int, Any], int] = {}
    for line, row in sc.json_records(src):
        where = sc.at(line)
        if not isinstance(row, dict):
            raise SitegenError("expected one JSON object a document", path, where)
        if row.get("filter") not in (None, "none") and all(f != row.get("filter") for _, f in t.metrics):
            continue
        doc_id, doc_hash = row.get("doc_id"), row.get("doc_hash")
        if not isinstance(doc_id, int) or isinstance(doc_id, bool):
            raise SitegenError("no whole-number doc_id", path, sc.at(line, "$.doc_id"))
        key = doc_id if row.get("filter") in (None, "none") else (doc_id, row["filter"])
        if key in seen:
            raise SitegenError(f"doc_id {doc_id} again (first on line {seen[key]})", path, where)
        seen[key] = line or 1
        t.docs.append({"doc_id": doc_id, "doc_hash": doc_hash if isinstance(doc_hash, str) else None, "line": line,
                       "filter": row.get("filter") or "none", **{m: row.get(m) for m, _ in t.metrics}})
    n_docs = len({d["doc_id"] for d in t.docs})
    if t.n is not None and n_docs != t.n:
        raise SitegenError(f"{n_docs} documents, but the results file says the task scored {t.n} (n-samples.effective): "
                           "a samples file of other documents or another run", path)


# -- figures from the samples ---------------------------------------------------------------------

# -- the receipt --------------------------------------------------------------------------------------

def _label(run: Run, given: str | None, role: str) -> str:
    if given:
        return sc.check_label(given, f"--label-{role}")
    shots = {t.fewshot for t in run.tasks.values()}
    model = (run.model or "model not recorded").rsplit("/", 1)[-1]
    return sc.check_label(f"{model}, {shots.pop()}-shot" if len(shots) == 1 and None not in shots else model, "label")


class _Differences:
    """What differs between the two runs: shown on the report, refused unless `--allow` names it."""

    def __init__(self, allow: set[str], src: sc.Source):
        self.allow, self.src = allow, src
        self.entries: list[dict[str, object]] = []

    def __call__(self, name: str | None, fld: str, x: str, y: str, why: str) -> None:
        entry: dict[str, object] = {"field": fld, "baseline": x, "candidate": y}
        if name is not None:
            if name not in self.allow:
                raise SitegenError(f"{why}; not comparable (pass --allow {name} to import it anyway, and the report will "
                                   "say so)", self.src.path)
            entry["allowed"] = True
        self.entries.append(entry)


ROLES = ("baseline", "candidate")


def build(runs: dict[str, Run], labels: dict, allow: set[str], attribution: str | None) -> tuple[dict, sc.Provenance]:
    """The receipt of one run (its candidate alone) or two (the accuracy part: each task and metric
    both scored, with their difference) and where each figure came from."""
    roles = [r for r in ROLES if r in runs]
    c = runs["candidate"]
    b = runs.get("baseline")
    if b is not None and b.src.sha256 == c.src.sha256:
        raise SitegenError("a run against itself: the baseline and the candidate are the same results file", c.src.path)
    prov = sc.Provenance()
    differ = _Differences(allow, c.src)
    if b is not None and b.model and c.model and b.model != c.model:
        differ("model", "model", b.model, c.model, f"the runs evaluated other models: {b.model!r} and {c.model!r}")
    tc = set(c.tasks)
    tb = set(b.tasks) if b is not None else tc
    if tb != tc:
        differ("tasks", "tasks", ", ".join(sorted(tb)), ", ".join(sorted(tc)), "the runs scored other tasks "
               f"(baseline only: {', '.join(sorted(tb - tc)) or 'none'}; candidate only: {', '.join(sorted(tc - tb)) or 'none'})")
    names = {r: _label(runs[r], labels.get(r), r) for r in roles}
    if b is not None and names["baseline"] == names["candidate"]:
        names = {r: f"{n} ({r})" for r, n in names.items()}
    model = c.model or (b.model if b is not None else None)
    checkpoint = {"id": slug(model.rsplit("/", 1)[-1]) if model else "model-not-recorded", "label": model or "model not recorded"}
    results: list[dict] = []
    not_covered: list[str] = []
    for task in sorted(tb & tc):
        ts = {r: runs[r].tasks[task] for r in roles}
        if b is not None:
            x, y = ts["baseline"], ts["candidate"]
            for what, fx, fy in (("few-shot examples", x.fewshot, y.fewshot), ("task version", x.version, y.version)):
                if fx != fy:
                    differ(None, f"{task}: {what}", str(fx), str(fy), "")
        docs = _documents(ts["baseline"], ts["candidate"], b, c, allow, differ) if b is not None else []
        for key in sorted(set.intersection(*(set(t.metrics) for t in ts.values()))):
            r, notes = lm_eval_report.result(runs, roles, task, key, docs, checkpoint["id"], f"$.accuracy.results[{len(results)}]", prov)
            results.append(r)
            not_covered.extend(notes)
    not_covered.extend(_unsampled(runs, roles, tb & tc))
    if not results:
        raise SitegenError("no task and metric both runs scored" if b is not None else "no task with a metric", c.src.path)
    sampled = {role: any(t.samples is not None for t in runs[role].tasks.values()) for role in roles}
    paired_n = sum(bool(r.get("paired")) for r in results)
    unpaired_n = sum(r.get("paired") is False for r in results)
    meta = lm_eval_report.report(runs, roles, names, checkpoint, ", ".join(sorted(tb & tc)), paired_n, unpaired_n, sampled)
    if not_covered:
        meta["not_covered"] = list(dict.fromkeys(not_covered))
    if differ.entries:
        meta["differs"] = differ.entries
    credit = attribution or sc.licence_credit([runs[r].src.path for r in roles])
    if credit:
        meta["attribution"] = credit
    note = ("Values and standard errors recomputed from the run's per-document samples" if sampled["candidate"]
            else "Values and standard errors as the run's results file states them (no per-document samples)") + \
        "; one run, no comparison."
    doc = {"schema_version": sc.SCHEMA_VERSION, "report": meta,
           "accuracy": {"note": _note(names, sampled, paired_n, unpaired_n) if b is not None else note,
                        "method": {"name": _method(results) if b is not None else "each run's own interval (one run, no "
                                   "comparison)", "resamples": RESAMPLES, "seed": SEED, "level": 0.95},
                        "results": results},
           "provenance": prov.part()}
    return doc, prov


def _unsampled(runs: dict[str, Run], roles: list[str], tasks: set[str]) -> list[str]:
    """The lines saying which side's tasks have no samples beside its results file."""
    out = []
    for role in roles:
        missing = sorted(t for t in runs[role].tasks if runs[role].tasks[t].samples is None and t in tasks)
        if missing:
            out.append(f"The {role}'s results file has no samples file beside it for {', '.join(missing)} "
                       "(samples_TASK_TIME.jsonl): its values are as the file states them, not recomputed, and its differences unpaired.")
    return out


def _note(names: dict[str, str], sampled: dict[str, bool], paired_n: int, unpaired_n: int) -> str:
    """What the values and differences were computed from, as this import found it: a run's values
    from its per-document samples or as its results file states them; differences paired over the
    documents both runs scored, or not."""
    if all(sampled.values()):
        values = "Values and standard errors recomputed from each run's per-document samples"
    elif any(sampled.values()):
        has = next(role for role in sampled if sampled[role])
        other = next(role for role in sampled if not sampled[role])
        values = (f"Values and standard errors recomputed from {names[has]}'s per-document samples and as {names[other]}'s "
                  "results file states them (it has no samples)")
    else:
        values = "Values and standard errors as each run's results file states them (no per-document samples)"
    if not unpaired_n:
        diffs = "differences paired over the documents both runs scored (same doc_id and doc_hash)"
    elif not paired_n:
        diffs = "differences unpaired: each from the two runs' standard errors (no per-document samples on both sides)"
    else:
        diffs = (f"{paired_n} differences paired over the documents both runs scored (same doc_id and doc_hash), {unpaired_n} "
                 "unpaired, from the two runs' standard errors")
    return f"{values}; {diffs}."


def _method(results: list[dict[str, Any]]) -> str:
    """The intervals' methods that the differences of this import used, in words."""
    used = []
    if any(r.get("paired") and "bootstrap" not in r.get("interval_method", "") for r in results):
        used.append("normal interval of per-document differences (per-document metrics)")
    if any(r.get("paired") and "bootstrap" in r.get("interval_method", "") for r in results):
        used.append("paired bootstrap over documents (corpus metrics)")
    if any(r.get("paired") is False for r in results):
        used.append("unpaired: difference ± 1.96 × the root of the sum of the two squared standard errors")
    return "; ".join(used) or "no interval: no standard error on both sides"


def _documents(x: Task, y: Task, b: Run, c: Run, allow: set[str], differ) -> list[int]:
    """The doc_ids both sides scored with the same doc_hash; other documents refused unless allowed."""
    if x.samples is None or y.samples is None:
        return []
    hb = {d["doc_id"]: d["doc_hash"] for d in x.docs}
    hc = {d["doc_id"]: d["doc_hash"] for d in y.docs}
    shared = sorted(i for i in set(hb) & set(hc) if hb[i] is not None and hb[i] == hc[i])
    if len(shared) != len(hb) or len(shared) != len(hc):
        other = sorted(set(hb) ^ set(hc)) or [i for i in set(hb) & set(hc) if hb[i] != hc[i]]
        differ("documents", f"{x.name}: documents", f"{len(hb)} documents", f"{len(hc)} documents, {len(shared)} shared",
               f"{x.name}: the samples are of other documents (doc_id {other[0]} "
               + ("is on one side only" if other[0] not in hb or other[0] not in hc else "has another doc_hash")
               + f"; {len(shared)} of {len(hb)} and {len(hc)} shared)")
    return shared


def run_and_write(opts: ServingOptions) -> ImportResult:
    from site_gen.importers.vllm_bench import source_root

    if opts.setup:  # a study of two setups or more (importers/lm_eval_study.py)
        from site_gen.importers import lm_eval_study

        return lm_eval_study.run_and_write(opts, read_run)
    if opts.sources:
        raise SitegenError(f"lm-eval takes its results files through --baseline and --candidate, not as SOURCE "
                           f"({opts.sources[0]!r})", opts.sources[0])
    files = {}
    for role in ("baseline", "candidate"):
        given = opts.side(role)
        if role == "baseline" and not given:
            continue  # --candidate alone: one run, no comparison
        if len(given) != 1:
            raise SitegenError(f"name one results file with --{role} (the samples files beside it are read too); got "
                               f"{len(given)}" + ("; add --baseline FILE to compare two runs" if role == "candidate" else ""))
        files[role] = Path(given[0])
    for role in ("baseline", "candidate"):
        if opts.stated(role):
            raise SitegenError(f"--set-{role} is for serving runs; an lm-eval results file records its own setup")
    root = source_root(list(files.values()))
    runs = {role: read_run(p, root) for role, p in files.items()}
    doc, prov = build(runs, {"baseline": opts.label_baseline, "candidate": opts.label_candidate}, set(opts.allow),
                      opts.attribution)
    notes = tuple(f"no samples file for {', '.join(sorted(t for t, task in run.tasks.items() if task.samples is None))} beside "
                  f"the {role}'s {run.src.path} (looked for samples_TASK_TIME.jsonl by its time): values as stated, not paired"
                  for role, run in runs.items() if any(task.samples is None for task in run.tasks.values()))
    return ImportResult(sc.write(stamp(doc, opts), Path(opts.output), prov, opts.force, opts.data_folder), notes)
