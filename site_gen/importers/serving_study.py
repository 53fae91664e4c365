"""Serving runs of two or more setups -> a study receipt (schema 1.4, its `study` part).

    sitegen import vllm-bench --setup tp8=A/*.json --setup ib=B/*.json --setup ib=C/*.json [--baseline tp8] -o data/ID

Each `--setup NAME=FILE [FILE…]` adds files to the setup NAME (repeating a NAME adds its next run);
each file's records are grouped into load points by their own contents (workload, request rate,
concurrency), and a setup's records at one load point are its runs there. The files are read by the
format's own reader (`vllm_bench.read_files`: vLLM result JSON and SGLang JSONL; `guidellm.read_file`),
so every figure is recomputed and checked as the two-setup import checks it.

What a setup is: the engine, version, model and hardware its files record, facts stated with
`--setup-set NAME:KEY=VALUE` (the environment keys, and `gpus`), its label (`--setup-label NAME=TEXT`,
else NAME). Its GPU count is `gpus` if stated, else tensor x pipeline parallel from the server command
its files record; else unknown, and the Frontier page says why it draws no throughput per GPU.

Refused unless `--allow NAME` names it: setups of other models (`model`), of other workloads
(`dataset`), measured differently at a shared load point (`protocol`: client format, burstiness,
prompts a run), a load point one setup lacks (`load-points`), a load point where a setup has no
successful request (`failed-load`).
"""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any
from collections.abc import Callable, Sequence

from site_gen.core.errors import SitegenError
from site_gen.importers import serving_common as sc
from site_gen.importers import serving_report as sr
from site_gen.importers.common import slug
from site_gen.importers.study_files import read_all, receipt_text
from site_gen.receipts.load import UNRECORDED
from site_gen.importers.options import ImportResult, ServingOptions

STUDY_VERSION = 1.4
ALLOW = ("model", "dataset", "protocol", "load-points", "failed-load")
SETUP_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
SETUP_KEYS = (*sc.ENV_KEYS, "gpus")


def _name(value: str, option: str) -> str:
    value = value.strip()
    if not SETUP_NAME.fullmatch(value):
        raise SitegenError(f"{option}: setup name {value[:60]!r} is not allowed: a name starts with a letter or digit "
                           "and holds only letters, digits, '.', '_' and '-' (give a longer name with --setup-label NAME=TEXT)")
    return value


def parse_setups(items: Sequence[Sequence[str]]) -> dict[str, list[Path]]:
    """`--setup NAME=FILE [FILE…]` or `--setup NAME FILE [FILE…]` (the form a shell's wildcard expands
    in), each occurrence: the setup's files, the setups in order of first mention."""
    out: dict[str, list[Path]] = {}
    for group in items:
        first, *rest = group
        name, sep, file = first.partition("=")
        files = [file, *rest] if sep else rest
        if (sep and not file.strip()) or not files:
            raise SitegenError(f"--setup {' '.join(group)[:80]!r}: expected NAME=FILE or NAME FILE… (then more files of "
                               "that setup, if any)")
        out.setdefault(_name(name, "--setup"), []).extend(Path(f) for f in files)
    return out


def parse_labels(items: Sequence[str], names: list[str]) -> dict[str, str]:
    out = {}
    for item in items:
        name, sep, text = item.partition("=")
        if not sep:
            raise SitegenError(f"--setup-label {item!r}: expected NAME=TEXT")
        name = name.strip()
        if name not in names:
            raise SitegenError(f"--setup-label {item!r}: no setup is named {name!r} (setups: {', '.join(names)})")
        out[name] = sc.check_label(text, "--setup-label")
    return out


def named_setups(opts) -> tuple[dict[str, list[Path]], list[str], str | None, dict[str, str]]:
    """A study's `--setup` files, its setups' names in order, `--baseline` (one name or none) and
    `--setup-label`s: read alike for every study format."""
    files = parse_setups(opts.setup)
    names = list(files)
    baseline = None
    if opts.baseline:
        if len(opts.baseline) != 1:
            raise SitegenError(f"--baseline takes one setup name with --setup; got {len(opts.baseline)}")
        baseline = opts.baseline[0].strip()
    return files, names, baseline, parse_labels(opts.setup_label or [], names)


def parse_facts(items: Sequence[str], names: list[str]) -> tuple[dict[str, dict[str, str]], dict[str, int]]:
    """`--setup-set NAME:KEY=VALUE`: environment facts per setup, and GPU counts."""
    env: dict[str, list[str]] = {n: [] for n in names}
    gpus: dict[str, int] = {}
    for item in items:
        name, sep, rest = item.partition(":")
        if not sep or "=" not in rest:
            raise SitegenError(f"--setup-set {item!r}: expected NAME:KEY=VALUE with KEY one of {', '.join(SETUP_KEYS)}")
        name = name.strip()
        if name not in env:
            raise SitegenError(f"--setup-set {item!r}: no setup is named {name!r} (setups: {', '.join(names)})")
        key, _, value = rest.partition("=")
        if key.strip() == "gpus":
            v = value.strip()
            if not v.isdigit() or not 1 <= int(v) <= 100000:
                raise SitegenError(f"--setup-set {item!r}: gpus is a whole number from 1 (the GPUs the setup's engine used)")
            gpus[name] = int(v)
        else:
            env[name].append(rest)
    return {n: sc.stated_env(v, f"--setup-set {n}:") for n, v in env.items()}, gpus


def _setup_env(name: str, runs: list, stated: dict[str, str]) -> sc.Env:
    """A setup's environment from its runs' records. A fact stated with --setup-set wins over what the
    runs record (its origin says what they recorded); runs that disagree on a fact nobody states are
    refused: they are one setup only if the option says what it was."""
    option = f"--setup-set {name}:"
    found: dict[str, dict[str, tuple[str, Any]]] = {}
    for r in runs:
        for key, v in r.env.values.items():
            found.setdefault(key, {}).setdefault(v["value"], (v["origin"], r))
    env = sc.Env()
    for key, values in found.items():
        if key in stated:
            continue
        if len(values) > 1:
            (va, (oa, ra)), (vb, (ob, rb)) = list(values.items())[:2]
            raise SitegenError(f"setup {name!r}: its runs record another {key}: {va!r} ({oa}) and {vb!r} ({ob}); state "
                               f"what the setup is with {option}{key}=VALUE", rb.src.path)
        value, (origin, _) = next(iter(values.items()))
        env.put(key, value, origin)
    if "date" not in stated:
        sc.put_latest_date(env, runs)
    for key, value in stated.items():
        recorded = found.get(key, {})
        note = f" (the files record {'; '.join(sorted(recorded))[:300]})" if recorded and set(recorded) != {value} else ""
        env.put(key, value, f"{option}{key}{note}")
    return env


def _gpus_from(env: sc.Env) -> tuple[int, str] | None:
    """Tensor x pipeline parallel, as the importer reads it from a recorded server command."""
    par = env.values.get("parallelism")
    if not par:
        return None
    m = re.fullmatch(r"tensor parallel (\d+) × pipeline parallel (\d+)", par["value"])
    if not m:
        return None
    return int(m[1]) * int(m[2]), f"{par['origin']} (tensor × pipeline parallel)"


def _refuse(allow: set[str], name: str, message: str, file: Path) -> None:
    if name not in allow:
        raise SitegenError(f"{message}; not comparable (pass --allow {name} to import it anyway, and the report will say so)",
                           file)


def _check_records(runs: dict[str, list]) -> None:
    seen: dict[tuple, str] = {}
    for name, rs in runs.items():
        for r in rs:
            k = (r.src.sha256, r.line, r.anchor)
            if k in seen:
                other = seen[k]
                raise SitegenError(f"this record is given twice (setup {other!r} and setup {name!r}): a run is one "
                                   "setup's, once", r.src.path, r.where())
            seen[k] = name


def _differences(runs: dict[str, list], envs: dict[str, sc.Env], keys: dict[str, set], allow: set[str]) -> list[dict]:
    names = list(runs)
    first = {n: runs[n][0].src.path for n in names}
    out = []

    def note(field: str, values: dict[str, str], refusable: str | None, why: str) -> None:
        entry: dict[str, Any] = {"field": field, "values": [{"setup": n, "value": v[:500]} for n, v in values.items()]}
        if refusable:
            _refuse(allow, refusable, why, first[next(n for n in names if values[n] != values[names[0]])])
            entry["allowed"] = True
        out.append(entry)

    for key, refusable in (("model", "model"), ("engine", None), ("engine_version", None), ("parallelism", None),
                           ("hardware", None)):
        values = {n: envs[n].get(key) or "not recorded" for n in names}
        if len(set(values.values())) > 1:
            recorded = {v for v in values.values() if v != "not recorded"}
            refuse = refusable if len(recorded) > 1 else None  # a model one setup does not record is not another model
            note(key, values, refuse, f"the setups ran other {key}s: " + "; ".join(f"{n}: {v}" for n, v in values.items()))
    workloads = {n: "; ".join(sorted({k[0] for k in keys[n]})) for n in names}
    if len(set(workloads.values())) > 1:
        note("workload", workloads, "dataset", "the setups ran other workloads: "
             + "; ".join(f"{n}: {w}" for n, w in workloads.items()))
    every = set().union(*keys.values())
    lacking = {n: every - keys[n] for n in names if every - keys[n]}
    if lacking:
        n = next(iter(lacking))
        text = "; ".join(f"{w}: {sr.load_text(r, c)}" for w, r, c in sorted(lacking[n], key=lambda k: (k[0], sr.rate_order(k[1]), k[2] or 0)))
        _refuse(allow, "load-points", f"setup {n!r} lacks a load point the others ran ({text})", first[n])
        out.append({"field": "load points", "values": [{"setup": n, "value": f"{len(keys[n])} of {len(every)}"} for n in names],
                    "allowed": True})
    shared = set.intersection(*keys.values())
    protocols = {n: "; ".join(sorted({str(r.protocol) for r in runs[n] if r.key in shared})) for n in names}
    if len(set(protocols.values())) > 1:
        note("protocol (client format, burstiness, prompts a run)", protocols, "protocol",
             "the setups were measured differently at a shared load point (client format, arrival burstiness or prompts a run)")
    return out


def _failed_loads(runs: dict[str, list], allow: set[str]) -> list[str]:
    out = []
    for name, rs in runs.items():
        by_key: dict[tuple, list] = {}
        for r in rs:
            by_key.setdefault(r.key, []).append(r)
        for key, group in by_key.items():
            if all(r.repeat.get("completed", 0) == 0 for r in group):
                r = group[0]
                text = f"{key[0]}: {sr.load_text(key[1], key[2])}"
                if "failed-load" not in allow:
                    raise SitegenError(f"setup {name!r} has no successful request at {text}: no latency or throughput to "
                                       "compare there (leave the file out, or pass --allow failed-load to import it, and the "
                                       "report will say so)", r.src.path, r.where("$.completed"))
                out.append(f"{name} at {text}")
    return out


def build(runs: dict[str, list], *, baseline: str | None, labels: dict[str, str], facts: dict[str, dict[str, str]],
          gpus: dict[str, int], allow: set[str], attribution: str | None, client: str) -> tuple[dict, sc.Provenance]:
    names = list(runs)
    if len(names) < 2:
        raise SitegenError("a study needs two setups or more: name each with --setup NAME=FILE… "
                           f"(got {len(names)}: {', '.join(names) or 'none'})")
    if baseline is not None and baseline not in names:
        raise SitegenError(f"--baseline {baseline!r} names no setup (setups: {', '.join(names)})")
    _check_records(runs)
    prov = sc.Provenance()
    envs = {n: _setup_env(n, runs[n], facts.get(n, {})) for n in names}
    shown = {n: labels.get(n, n) for n in names}
    if len(set(shown.values())) < len(shown):
        raise SitegenError("two setups have the same label: give each its own with --setup-label NAME=TEXT")
    keys = {n: {r.key for r in runs[n]} for n in names}
    differs = _differences(runs, envs, keys, allow)
    failed = _failed_loads(runs, allow)
    setups = []
    for i, n in enumerate(names):
        fmt = {r.fmt for r in runs[n]}
        if len(fmt) > 1:
            raise SitegenError(f"setup {n!r} mixes formats ({', '.join(sorted(fmt))}): one setup is one client",
                               runs[n][0].src.path)
        lps, _ = sr.load_points_of(n, runs[n], prov, base_path=f"$.study.setups[{i}]")
        setup: dict[str, Any] = {"id": n, "label": shown[n], "format": fmt.pop(), "environment": envs[n].part(),
                                 "load_points": lps}
        found = (gpus[n], f"--setup-set {n}:gpus") if n in gpus else _gpus_from(envs[n])
        if found:
            setup["gpus"] = {"value": found[0], "origin": found[1][:500]}
        setups.append(setup)
    study: dict[str, Any] = {"setups": setups}
    if baseline:
        study["baseline"] = baseline
    if differs:
        study["differs"] = differs
    report = _report(names, runs, envs, shown, setups, baseline, attribution, client, failed, differs)
    doc = {"schema_version": STUDY_VERSION, "report": report, "study": study, "provenance": prov.part()}
    return doc, prov


def _report(names, runs, envs, shown, setups, baseline, attribution, client, failed, differs) -> dict:
    date = max((envs[n].get("date") for n in names if envs[n].get("date")), default=None)
    if date is None:
        raise SitegenError("no date: the files record none; state it with --setup-set NAME:date=YYYY-MM-DD",
                           runs[names[0]][0].src.path)
    models = list(dict.fromkeys(envs[n].get("model") for n in names if envs[n].get("model")))
    model = models[0] if models else None
    engines_seen = list(dict.fromkeys(envs[n].get("engine") or "engine not recorded" for n in names))
    versions = {envs[n].get("engine_version") or UNRECORDED for n in names}
    others = [n for n in names if n != baseline]
    group = f"{len(others)} setups" if len(others) > 1 else shown[others[0]]
    engines: dict[str, Any] = {"candidate": {
        "name": group, "version": versions.pop() if len(versions) == 1 and len(others) > 1 else
        (envs[others[0]].get("engine_version") or UNRECORDED if len(others) == 1 else UNRECORDED),
        "long_name": " · ".join([", ".join(engines_seen), model or "model not recorded",
                                 "; ".join(shown[n] for n in others)])[:2000]}}
    if baseline:
        e = envs[baseline]
        engines["baseline"] = {"name": shown[baseline], "version": e.get("engine_version") or UNRECORDED,
                               "long_name": " · ".join([e.get("engine") or "engine not recorded", e.get("model") or
                                                        "model not recorded", shown[baseline]])}
    checkpoints = [{"id": slug(m.rsplit("/", 1)[-1]) or "model", "label": m} for m in models] or \
                  [{"id": "model-not-recorded", "label": "model not recorded"}]
    ids = [c["id"] for c in checkpoints]
    checkpoints = [c for i, c in enumerate(checkpoints) if c["id"] not in ids[:i]]
    label = checkpoints[0]["label"] if len(checkpoints) == 1 else "several models"
    title = (f"{len(names)} setups against {shown[baseline]}: {label}, serving study" if baseline
             else f"{len(names)} setups: {label}, serving study")
    tested = _tested(setups, envs, baseline, client)
    meta: dict[str, Any] = {"title": title, "date": date, "engines": engines, "checkpoints": checkpoints, "tested": tested}
    hw = list(dict.fromkeys(envs[n].get("hardware") for n in names if envs[n].get("hardware")))
    if hw:
        meta["hardware"] = hw[0] if len(hw) == 1 and all(envs[n].get("hardware") for n in names) else \
            "; ".join(f"{shown[n]}: {envs[n].get('hardware') or 'not recorded'}" for n in names)
    not_covered = _not_covered(names, runs, setups, failed, differs)
    if not_covered:
        meta["not_covered"] = not_covered
    credit = attribution or sc.licence_credit([x.src.path for n in names for x in runs[n]])
    if credit:
        meta["attribution"] = credit
    return meta


def _not_covered(names, runs, setups, failed, differs) -> list[str]:
    not_covered = []
    dropped = sorted({k for n in names for x in runs[n] for k in x.rec if k.rstrip(":") in sc.NOT_RECOMPUTABLE
                      and x.rec[k] is not None})
    if dropped:
        not_covered.append("Figures the files state that their rows cannot give, not imported: " + ", ".join(dropped) + ".")
    reps = [rep for s in setups for lp in s["load_points"] for rep in lp["repeats"]]
    if (line := sc.without_rows(sum("requests" not in rep for rep in reps), len(reps))) is not None:
        not_covered.append(line)
    if failed:
        not_covered.append("No successful request (allowed on import with --allow failed-load): " + "; ".join(failed) + ".")
    allowed = [d["field"] for d in differs if d.get("allowed")]
    if allowed:
        not_covered.append("Not comparable by the source's rules, allowed on import with --allow: " + ", ".join(allowed) + ".")
    return not_covered


def _tested(setups, envs, baseline, client) -> list[dict]:
    workloads = sorted({lp["workload"] for s in setups for lp in s["load_points"]})
    loads = sorted({(lp["load"]["request_rate"], lp["load"].get("max_concurrency")) for s in setups for lp in s["load_points"]},
                   key=lambda k: (sr.rate_order(k[0]), k[1] or 0))
    tested = [{"label": "Client", "text": client}, {"label": "Workloads", "text": "; ".join(workloads)},
              {"label": "Load points", "text": "; ".join(sr.load_text(*k) for k in loads)}]
    for s in setups:
        n = [rep.get("completed", 0) + rep.get("failed", 0) for lp in s["load_points"] for rep in lp["repeats"]]
        reps = sorted({len(lp["repeats"]) for lp in s["load_points"]})
        runs_text = f"{reps[0]} run{'s' if reps[0] != 1 else ''}" if len(reps) == 1 else f"{reps[0]}–{reps[-1]} runs"
        each = f"{min(n):,}" if min(n) == max(n) else f"{min(n):,}–{max(n):,}"
        facts = [v for v in (envs[s['id']].get("engine"), envs[s['id']].get("engine_version"),
                             envs[s['id']].get("parallelism"), envs[s['id']].get("hardware")) if v]
        gpus = f"{s['gpus']['value']} GPU{'s' if s['gpus']['value'] != 1 else ''}" if "gpus" in s else "GPU count not recorded"
        tested.append({"label": f"Setup {s['label']}" + (" (baseline)" if s["id"] == baseline else ""),
                       "text": "; ".join([*facts, gpus, f"{runs_text} a load point, {each} requests a run"])})
    return tested


def run_and_write(opts: ServingOptions, read: Callable[[list[Path], Path], list], client: Callable[[list], str]) -> ImportResult:
    """The study the command line names (`--setup`), read with the format's reader, checked, written."""
    if opts.sources:
        raise SitegenError(f"a study takes its files through --setup NAME=FILE, not as SOURCE ({opts.sources[0]!r})",
                           opts.sources[0])
    if opts.candidate:
        raise SitegenError("--candidate does not go with --setup: name every setup with --setup NAME=FILE… and the "
                           "one the others are compared against with --baseline NAME")
    for opt, label, stated in (("label_baseline", opts.label_baseline, opts.set_baseline),
                               ("label_candidate", opts.label_candidate, opts.set_candidate)):
        if label or stated:
            raise SitegenError(f"--{opt.replace('_', '-')} does not go with --setup: use --setup-label NAME=TEXT and "
                               "--setup-set NAME:KEY=VALUE")
    files, names, baseline, labels = named_setups(opts)
    facts, gpus = parse_facts(opts.setup_set or [], names)
    # The folder the receipt names source files from: the deepest one holding them all (as vllm_bench's).
    root = Path(os.path.commonpath([str(p.resolve().parent) for ps in files.values() for p in ps]))
    runs = read_all(read, files, root)
    allow = set(opts.allow)
    unknown = sorted(allow - set(ALLOW))
    if unknown:
        raise SitegenError(f"--allow {unknown[0]}: a study allows {', '.join(ALLOW)}")
    doc, prov = build(runs, baseline=baseline, labels=labels, facts=facts, gpus=gpus, allow=allow,
                      attribution=opts.attribution, client=client([r for rs in runs.values() for r in rs]))
    return ImportResult(sc.write(doc, Path(opts.output), prov, opts.force, opts.data_folder, text=receipt_text(doc)))
