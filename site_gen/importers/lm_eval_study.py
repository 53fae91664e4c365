"""lm-evaluation-harness runs of two or more setups -> a study receipt's `accuracy_study` part
(schema 1.4).

    sitegen import lm-eval --setup llama A/results_X.json --setup llama B/results_Y.json \\
        --setup qwen C/results_Z.json [--baseline llama] -o data/ID

Each `--setup NAME FILE…` adds results files to the setup NAME, each file one run (repeating a NAME
adds its next runs): several models, or one model under several settings, each run once or more.
Every run is read as `sitegen import lm-eval` reads one (`lm_eval.read_run`): per task and metric
its value and standard error recomputed from the per-document samples beside it and checked against
the results file. The receipt keeps each run's per-document scores (aligned with the task's
documents), so that the analysis can combine a setup's runs document by document and pair every two
setups over the same documents.

Refused unless `--allow NAME` names it: setups that scored other tasks (`tasks`: only the tasks all
scored are kept), runs that scored other documents of a task (`documents`: that task's figures are
then the files' own, unpaired), runs of one setup that evaluated other models (`model`).
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any
from collections.abc import Callable

from site_gen.core.errors import SitegenError
from site_gen.importers import serving_common as sc
from site_gen.importers.common import slug, stamp
from site_gen.importers.options import ImportResult, ServingOptions
from site_gen.importers.lm_eval_stats import NOT_RECOMPUTED, RESAMPLES, SEED, figures
from site_gen.importers.serving_study import named_setups
from site_gen.receipts.load import UNRECORDED

if TYPE_CHECKING:
    from site_gen.importers.lm_eval import Run

STUDY_VERSION = 1.4
ALLOW = ("tasks", "documents", "model")
STATED = "stated"  # a metric whose runs' scores are not combined: each run's value as its file states it


def _refuse(allow: set[str], name: str, message: str, file: Path) -> None:
    if name not in allow:
        raise SitegenError(f"{message}; not comparable (pass --allow {name} to import it anyway, and the report will say so)",
                           file)


def _model(name: str, runs: list[Run], allow: set[str]) -> str | None:
    models = list(dict.fromkeys(r.model for r in runs if r.model))
    if len(models) > 1:
        other = next(r for r in runs if r.model == models[1])
        _refuse(allow, "model", f"setup {name!r}: its runs evaluated other models ({', '.join(models)}): a setup's runs are "
                "repeats of one model", other.src.path)
    return "; ".join(models) if models else None


def _documents(task: str, runs: list[tuple[str, int, Run]], allow: set[str], notes: list[str]) -> list[int] | None:
    """The documents every run of the task scored (the same doc_id with the same doc_hash), or None
    where a run has no samples or the runs scored other documents (allowed: then unpaired)."""
    found: dict[int, str | None] | None = None
    for name, _, run in runs:
        t = run.tasks[task]
        if t.samples is None:
            return None
        mine: dict[int, str | None] = {}
        for d in t.docs:
            mine.setdefault(d["doc_id"], d["doc_hash"])
        if found is None:
            found = mine
        elif mine != found:
            other = sorted(set(mine) ^ set(found)) or [i for i in mine if mine[i] != found[i]]
            _refuse(allow, "documents", f"{task}: setup {name!r}'s run scored other documents (doc_id {other[0]} "
                    + ("is in one run only" if other[0] not in mine or other[0] not in found else "has another doc_hash")
                    + ")", t.samples.path)
            notes.append(f"{task}: the runs scored other documents (allowed on import with --allow documents): its "
                         "figures are as each results file states them, and its comparisons unpaired.")
            return None
    return sorted(found) if found else None


def _scores(f, ids: list[int]) -> list[Any]:
    """A run's per-document scores in the order of `ids` (the task's documents)."""
    at = {d: i for i, d in enumerate(f.docs)}
    values = f.values.tolist()
    return [values[at[d]] for d in ids]


def build(runs: dict[str, list[Run]], *, baseline: str | None, labels: dict[str, str], allow: set[str],
          attribution: str | None) -> tuple[dict, sc.Provenance]:
    names = list(runs)
    if len(names) < 2:
        raise SitegenError("a study needs two setups or more: name each with --setup NAME FILE… "
                           f"(got {len(names)}: {', '.join(names) or 'none'})")
    if baseline is not None and baseline not in names:
        raise SitegenError(f"--baseline {baseline!r} names no setup (setups: {', '.join(names)})")
    seen: dict[str, str] = {}
    for n in names:
        for r in runs[n]:
            if r.src.sha256 in seen:
                raise SitegenError(f"this results file is given twice (setup {seen[r.src.sha256]!r} and setup {n!r}): a run "
                                   "is one setup's, once", r.src.path)
            seen[r.src.sha256] = n
    shown = {n: labels.get(n, n) for n in names}
    if len(set(shown.values())) < len(shown):
        raise SitegenError("two setups have the same label: give each its own with --setup-label NAME=TEXT")
    prov = sc.Provenance()
    not_covered: list[str] = []
    models = {n: _model(n, runs[n], allow) for n in names}
    every = [(n, k, r) for n in names for k, r in enumerate(runs[n])]
    task_sets = {n: set.intersection(*(set(r.tasks) for r in runs[n])) for n in names}
    union = set().union(*(set(r.tasks) for _, _, r in every))
    tasks = sorted(set.intersection(*task_sets.values()))
    if set(tasks) != union:
        first = next(r for _, _, r in every if set(r.tasks) != set(tasks))
        _refuse(allow, "tasks", f"the runs scored other tasks (all: {', '.join(tasks) or 'none'}; some: "
                f"{', '.join(sorted(union - set(tasks)))})", first.src.path)
        not_covered.append("Tasks only some runs scored, left out (allowed on import with --allow tasks): "
                           + ", ".join(sorted(union - set(tasks))) + ".")
    tasks = [t for t in tasks if set.intersection(*(set(r.tasks[t].metrics) for _, _, r in every))]
    if not tasks:
        raise SitegenError("no task and metric every run scored", every[0][2].src.path)
    setups = _setups(names, runs, shown, models, tasks, prov)
    out_tasks = [_task(ti, task, every, allow, not_covered, prov) for ti, task in enumerate(tasks)]
    part: dict[str, Any] = {"method": {"resamples": RESAMPLES, "seed": SEED, "level": 0.95}, "setups": setups,
                            "tasks": out_tasks}
    if baseline:
        part["baseline"] = baseline
    report = _report(names, runs, shown, models, baseline, tasks, attribution, not_covered)
    return {"schema_version": STUDY_VERSION, "report": report, "accuracy_study": part, "provenance": prov.part()}, prov


def _setups(names: list[str], runs: dict[str, list[Run]], shown: dict[str, str], models: dict[str, str | None],
            tasks: list[str], prov: sc.Provenance) -> list[dict]:
    """What each setup is: its label, its model, its runs (their source, date and few-shot counts)."""
    setups = []
    for n in names:
        setup: dict[str, Any] = {"id": n, "label": shown[n], "runs": []}
        if models[n]:
            setup["model"] = (models[n] or "")[:2000]
        for r in runs[n]:
            run: dict[str, Any] = {"source": prov.source_id(r.src)}
            shots = {t: r.tasks[t].fewshot for t in tasks}
            if any(v is not None for v in shots.values()):
                run["fewshot"] = shots
            if r.date:
                run["date"] = r.date
            setup["runs"].append(run)
        setups.append(setup)
    return setups


def _task(ti: int, task: str, every: list[tuple[str, int, Run]], allow: set[str], notes: list[str],
          prov: sc.Provenance) -> dict[str, Any]:
    """One task: the documents every run scored, and each metric every run scored."""
    ids = _documents(task, every, allow, notes)
    keys = sorted(set.intersection(*(set(r.tasks[task].metrics) for _, _, r in every)))
    metrics = [_metric(f"$.accuracy_study.tasks[{ti}].metrics[{mi}]", task, key, every, ids, prov)
               for mi, key in enumerate(keys)]
    out: dict[str, Any] = {"task": task, "metrics": metrics}
    if ids is not None:
        out["documents"] = ids
    return out


def _metric(path: str, task: str, key: tuple[str, str], every: list[tuple[str, int, Run]], ids: list[int] | None,
            prov: sc.Provenance) -> dict[str, Any]:
    """One task and metric: every run's value and standard error (recomputed from its samples and
    checked against its results file), and its per-document scores where every run has them alike."""
    metric, filt = key
    figs = []
    for n, k, r in every:
        t = r.tasks[task]
        f = figures(t, metric, filt, t.metrics[key], r.src.path, t.hints.get(metric, "")) if ids else None
        figs.append((n, k, r, t, f))
    kinds = {f.kind if f is not None else None for *_, f in figs}
    kind = kinds.pop() if len(kinds) == 1 else None
    if kind in (None, NOT_RECOMPUTED) or not all(f is not None and f.values.size for *_, f in figs):
        kind = STATED
    label = f"{task}: {metric}" + ("" if filt == "none" else f" ({filt})")
    m: dict[str, Any] = {"metric": metric, "filter": filt, "label": label,
                         "better": "higher" if figs[0][3].higher.get(metric, True) else "lower", "kind": kind, "runs": []}
    whats = sorted({f.what for *_, f in figs if f is not None and f.what})
    if whats:
        m["aggregation"] = "; ".join(whats)[:500]
    for j, (n, k, r, t, f) in enumerate(figs):
        s = t.metrics[key]
        se = f.stderr if f is not None else s["stderr"]
        entry: dict[str, Any] = {"setup": n, "run": k, "value": f.value if f is not None else s["value"]}
        if se is not None and math.isfinite(se):
            entry["stderr"] = se
        if s["stderr"] is not None:
            entry["stated_stderr"] = s["stderr"]
        n_docs = len(f.docs) if f is not None else t.n
        if n_docs:
            entry["documents"] = n_docs
        if kind != STATED and f is not None and ids is not None:
            entry["scores"] = _scores(f, ids)
        recomputed = f is not None and f.recomputed and t.samples is not None
        prov.cite(f"{path}.runs[{j}]", r.src, f"$.results.{task}[\"{s['key']}\"]"
                  + (f"; recomputed from {t.samples.name}" if recomputed and t.samples is not None else "; as stated"))
        if t.samples is not None and f is not None:
            prov.source_id(t.samples)
        m["runs"].append(entry)
    return m


def _report(names, runs, shown, models, baseline, tasks, attribution, not_covered) -> dict:
    dates = [r.date for n in names for r in runs[n] if r.date]
    if not dates:
        raise SitegenError("no date: the results files record none", runs[names[0]][0].src.path, "$.date")
    others = [n for n in names if n != baseline]
    group = f"{len(others)} setups" if len(others) > 1 else shown[others[0]]
    engines: dict[str, Any] = {"candidate": {"name": group, "version": UNRECORDED,
                                             "long_name": " · ".join(["lm-evaluation-harness",
                                                                      "; ".join(shown[n] for n in others)])[:2000]}}
    if baseline:
        engines["baseline"] = {"name": shown[baseline], "version": UNRECORDED,
                               "long_name": " · ".join(["lm-evaluation-harness", models[baseline] or "model not recorded",
                                                        shown[baseline]])[:2000]}
    found = list(dict.fromkeys(m for n in names for m in (models[n] or "").split("; ") if m))
    checkpoints = [{"id": slug(m.rsplit("/", 1)[-1]) or "model", "label": m} for m in found] or \
        [{"id": "model-not-recorded", "label": "model not recorded"}]
    ids = [c["id"] for c in checkpoints]
    checkpoints = [c for i, c in enumerate(checkpoints) if c["id"] not in ids[:i]]
    label = checkpoints[0]["label"] if len(checkpoints) == 1 else f"{len(checkpoints)} models"
    title = (f"{len(names)} setups against {shown[baseline]}: {label}, {', '.join(tasks)}" if baseline
             else f"{len(names)} setups: {label}, {', '.join(tasks)}")[:300]
    tested = [{"label": "Harness", "text": "lm-evaluation-harness results and, where kept, per-document samples"},
              {"label": "Tasks", "text": ", ".join(tasks)[:2000]}]
    for n in names:
        rs = runs[n]
        shots = sorted({t.fewshot for r in rs for t in r.tasks.values() if t.fewshot is not None})
        sampled = sum(any(t.samples is not None for t in r.tasks.values()) for r in rs)
        facts = [models[n] or "model not recorded", f"{len(rs)} run{'s' if len(rs) != 1 else ''}"]
        if shots:
            facts.append(", ".join(str(s) for s in shots) + "-shot")
        facts.append(f"{sampled} of {len(rs)} with per-document samples")
        tested.append({"label": f"Setup {shown[n]}" + (" (baseline)" if n == baseline else ""), "text": "; ".join(facts)[:2000]})
    meta: dict[str, Any] = {"title": title, "date": max(dates), "engines": engines, "checkpoints": checkpoints,
                            "tested": tested}
    if not_covered:
        meta["not_covered"] = list(dict.fromkeys(not_covered))
    credit = attribution or sc.licence_credit([r.src.path for n in names for r in runs[n]])
    if credit:
        meta["attribution"] = credit
    return meta


def run_and_write(opts: ServingOptions, read_run: Callable[[Path, Path], Run]) -> ImportResult:
    """The study the command line names, each file read by `read_run` (lm_eval.read_run), checked, written."""
    from site_gen.importers.vllm_bench import source_root

    if opts.sources:
        raise SitegenError(f"a study takes its files through --setup NAME FILE, not as SOURCE ({opts.sources[0]!r})",
                           opts.sources[0])
    if opts.candidate:
        raise SitegenError("--candidate does not go with --setup: name every setup with --setup NAME FILE… and the "
                           "one the others are compared against with --baseline NAME")
    if opts.setup_set:
        raise SitegenError("--setup-set is for serving runs; an lm-eval results file records its own setup")
    files, names, baseline, labels = named_setups(opts)
    allow = set(opts.allow)
    unknown = sorted(allow - set(ALLOW))
    if unknown:
        raise SitegenError(f"--allow {unknown[0]}: an lm-eval study allows {', '.join(ALLOW)}")
    root = source_root([p for ps in files.values() for p in ps])
    runs = {n: [read_run(p, root) for p in ps] for n, ps in files.items()}
    doc, prov = build(runs, baseline=baseline, labels=labels, allow=allow, attribution=opts.attribution)
    return ImportResult(sc.write(stamp(doc, opts), Path(opts.output), prov, opts.force, opts.data_folder))
