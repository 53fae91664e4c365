"""Serving runs of one or two sides -> the receipt: load points and their repeats per side, the
environment and label of each side, what differs between the sides (refused unless `--allow NAME`
names it), which load points match and whether their requests pair, and the provenance of each part.

Label of a side, when `--label-baseline`/`--label-candidate` is not given: the `label` its files
record (vLLM's --label), when they agree; otherwise the name of the folder holding all its files,
when the other side's files are elsewhere; otherwise "ENGINE · MODEL" (with "(baseline)" or
"(candidate)" added when both sides would read the same).
"""
from __future__ import annotations

import math
from typing import Any

from site_gen.core.errors import SitegenError
from site_gen.importers import reading, serving_common as sc
from site_gen.importers.common import slug
from site_gen.receipts.load import UNRECORDED

ROLES = ("baseline", "candidate")
ALLOW = ("model", "dataset", "prompts", "hardware", "protocol", "load-points")


def rate_order(rate: Any) -> float:
    return math.inf if rate == "inf" else float(rate)


def load_text(rate: Any, conc: int | None) -> str:
    """A load point in the words the pages use: `4 req/s`, `all at once` (a rate of inf), `concurrency 16`."""
    parts = [] if rate == "inf" and conc is not None else ["all at once" if rate == "inf" else f"{rate} req/s"]
    if conc is not None:
        parts.append(f"concurrency {conc}")
    return ", ".join(parts)


def _lp_id(workload: str, rate: Any, conc: int | None, several: bool) -> str:
    base = ("rate-inf" if rate == "inf" else f"rate-{rate}") if not (rate == "inf" and conc is not None) else ""
    base = "-".join(x for x in (base, f"concurrency-{conc}" if conc is not None else "") if x)
    return slug(f"{workload}-{base}") if several else base


def _check_files(sides: dict[str, list]) -> None:
    seen: dict[tuple, tuple] = {}
    for role, runs in sides.items():
        for r in runs:
            k = (r.src.sha256, r.line, r.anchor)
            if k in seen:
                other_role, other = seen[k]
                if other_role != role:
                    raise SitegenError(f"a run against itself: this record is on both sides (as {other.name} too); "
                                       "compare two runs", r.src.path, r.where())
                raise SitegenError(f"given twice on the {role} side (as {other.name} too)", r.src.path, r.where())
            seen[k] = (role, r.src)


def _side_env(runs: list, stated: dict[str, str], option: str) -> sc.Env:
    env = sc.Env()
    for r in runs:
        for key, v in r.env.values.items():
            env.put(key, v["value"], v["origin"], r.src.path)
    if "date" not in stated:
        sc.put_latest_date(env, runs)
    sc.apply_stated(env, stated, option)
    return env


def _label(role: str, runs: list, env: sc.Env, given: str | None, other_runs: list) -> str:
    if given:
        return sc.check_label(given, f"--label-{role}")
    labels = {r.rec.get("label") for r in runs}
    if len(labels) == 1 and isinstance(next(iter(labels)), str) and next(iter(labels)).strip():
        return sc.check_label(next(iter(labels)), "label")
    folder = sc.common_folder([r.src.path for r in runs])
    if folder is not None and (not other_runs or sc.common_folder([r.src.path for r in other_runs]) != folder):
        return sc.check_label(folder.name, "folder")
    model = (env.get("model") or "model not recorded").rsplit("/", 1)[-1]
    return sc.check_label(f"{env.get('engine') or 'engine not recorded'} · {model}", "label")


def load_points_of(role: str, runs: list, prov: sc.Provenance, base_path: str | None = None) -> tuple[list[dict], dict[tuple, dict]]:
    """A side's (or a study setup's, under `base_path`) load points: its runs grouped by workload and load."""
    base_path = base_path or f"$.serving.sides.{role}"
    groups: dict[tuple, list] = {}
    for r in sorted(runs, key=lambda r: (r.src.name, r.line or 0)):
        groups.setdefault(r.key, []).append(r)
    several = len({k[0] for k in groups}) > 1
    out, by_key = [], {}
    for i, key in enumerate(sorted(groups, key=lambda k: (k[0], rate_order(k[1]), k[2] or 0))):
        workload, rate, conc = key
        lp = {"id": _lp_id(workload, rate, conc, several), "workload": workload, "load": {"request_rate": rate},
              "repeats": []}
        if conc is not None:
            lp["load"]["max_concurrency"] = conc
        for j, r in enumerate(groups[key]):
            path = f"{base_path}.load_points[{i}].repeats[{j}]"
            rep = {"source": prov.source_id(r.src), "at": r.where(), **r.repeat}
            prov.cite(path, r.src, r.where())
            if r.rows_src is not None:  # the run's per-request file, read beside it: listed with its hash
                prov.source_id(r.rows_src)
            if "requests" in rep:
                base = "$.details" if isinstance(r.rec.get("details"), dict) else "$"
                names = ", ".join(f"{base}.{k}" for k in ("input_lens", "output_lens", "ttfts", "itls", "errors"))
                prov.cite(path + ".requests", r.rows_src or r.src, r.rows_at or r.where(names))
            if "itl_gaps" in rep:
                prov.cite(path + ".itl_gaps", r.src, r.where(f"{base}.itls") + " (every gap of the successful requests)")
            for k, s in enumerate(rep["stated"]):
                place = r.stated_at.get(s["key"]) or (f"$.{s['key']}" if "." not in s["key"] else f"$[\"{s['key']}\"]")
                prov.cite(f"{path}.stated[{k}]", r.src, r.where(place))
            lp["repeats"].append(rep)
        out.append(lp)
        by_key[key] = lp
    return out, by_key


def _differences(sides: dict[str, list], envs: dict[str, sc.Env], keys: dict[str, dict], allow: set[str]) -> list[dict]:
    out = []

    def differ(name: str, field: str, a: str, b: str, why: str, refusable: bool = True) -> None:
        entry: dict[str, object] = {"field": field, "baseline": a[:500], "candidate": b[:500]}
        if refusable:
            if name not in allow:
                raise SitegenError(f"{why}; not comparable (pass --allow {name} to import it anyway, and the report "
                                   "will say so)", sides["candidate"][0].src.path)
            entry["allowed"] = True
        out.append(entry)

    for key, what in (("model", "models"), ("hardware", "hardware")):
        a, b = envs["baseline"].get(key), envs["candidate"].get(key)
        if a is not None and b is not None and a != b:
            differ(key, key, a, b, f"the sides ran on other {what}: {a!r} and {b!r}")
    for key in ("engine", "engine_version", "parallelism", "command"):
        a, b = envs["baseline"].get(key), envs["candidate"].get(key)
        if a != b:
            differ(key, key, a or "not recorded", b or "not recorded", "", refusable=False)
    wa, wb = sorted({k[0] for k in keys["baseline"]}), sorted({k[0] for k in keys["candidate"]})
    if wa != wb:
        differ("dataset", "workload", "; ".join(wa), "; ".join(wb), f"the sides ran other workloads: {wa} and {wb}")
    la, lb = set(keys["baseline"]), set(keys["candidate"])
    if la != lb:
        only = lambda s: "; ".join(f"{w}: {load_text(r, c)}" for w, r, c in sorted(s, key=lambda k: (k[0], rate_order(k[1]), k[2] or 0)))
        differ("load-points", "load points", only(la - lb) or "none of its own", only(lb - la) or "none of its own",
               "a load point is missing on one side (baseline only: " + (only(la - lb) or "none") + "; candidate only: "
               + (only(lb - la) or "none") + ")")
    # How each shared load point was measured: the client, its arrival burstiness, prompts a run.
    shared = la & lb
    pa = sorted({str(r.protocol) for r in sides["baseline"] if r.key in shared})
    pb = sorted({str(r.protocol) for r in sides["candidate"] if r.key in shared})
    if pa != pb:
        differ("protocol", "protocol (client format, burstiness, prompts a run)", "; ".join(pa), "; ".join(pb),
               "the sides were measured differently at a shared load point (client format, arrival burstiness or "
               "prompts a run)")
    return out


def _matched(keys: dict[str, dict], runs: dict[str, list], allow: set[str], differs: list) -> list[dict]:
    out, mismatched = [], []
    for key in sorted(set(keys["baseline"]) & set(keys["candidate"]), key=lambda k: (k[0], rate_order(k[1]), k[2] or 0)):
        b, c = keys["baseline"][key], keys["candidate"][key]
        firsts = [next(r for r in runs[role] if r.key == key) for role in ROLES]
        paired = all(r.inputs is not None for r in firsts) and firsts[0].inputs == firsts[1].inputs
        if all(r.inputs is not None for r in firsts) and not paired:
            mismatched.append((key, firsts))
        out.append({"baseline": b["id"], "candidate": c["id"], "paired": paired})
    if mismatched:
        key, (rb, rc) = mismatched[0]
        if "prompts" not in allow:
            n = next((i for i, (x, y) in enumerate(zip(rb.inputs, rc.inputs)) if x != y), min(len(rb.inputs), len(rc.inputs)))
            raise SitegenError(f"mismatched prompts at {load_text(key[1], key[2])}: the sides' input lengths differ at request "
                               f"{n} (input_lens), so they did not send the same prompts in the same order; not comparable "
                               "(pass --allow prompts to import it unpaired, and the report will say so)", rc.src.path,
                               rc.where("$.input_lens"))
        differs.append({"field": "prompts", "baseline": "input lengths as sent", "candidate": "other input lengths at "
                        + ", ".join(load_text(k[1], k[2]) for k, _ in mismatched), "allowed": True})
    return out


def _unrecorded_model(role: str, runs: list, env: sc.Env) -> None:
    """Says so when a side's files record no model (SGLang's bench_serving lines name none): sitegen
    cannot then check that the side's files are of one model, as it does where they record one."""
    if env.get("model"):
        return
    files = sorted({str(r.src.path) for r in runs})
    sglang = any(r.fmt == "sglang-bench-serving" for r in runs)
    one = "" if len(files) == 1 else f", and sitegen cannot check that its {len(files)} files are of one model"
    reading.note(f"the {role}'s files record no model" + (" (SGLang's bench_serving lines name none)" if sglang else "")
                 + f": its pages say 'model not recorded'{one}. State it with --set-{role} model=NAME, and give one "
                 "model's files per side", runs[0].src.path)


def build(runs: dict[str, list], *, labels: dict[str, str | None], stated: dict[str, dict[str, str]], allow: set[str],
          attribution: str | None, client: str, notes: list[dict] | None = None) -> tuple[dict, sc.Provenance]:
    """The receipt of each side's runs; `notes` are lines added to what was tested (files skipped)."""
    roles = [r for r in ROLES if runs.get(r)]
    _check_files({r: runs[r] for r in roles})
    prov = sc.Provenance()
    envs = {r: _side_env(runs[r], stated.get(r, {}), f"--set-{r}") for r in roles}
    for r in roles:
        _unrecorded_model(r, runs[r], envs[r])
    names = {r: _label(r, runs[r], envs[r], labels.get(r), runs.get("candidate" if r == "baseline" else "baseline", []))
             for r in roles}
    if len(roles) == 2 and names["baseline"] == names["candidate"]:
        names = {r: sc.check_label(f"{names[r][:88]} ({r})", "label") for r in roles}
    sides, keys = {}, {}
    for r in roles:
        lps, keys[r] = load_points_of(r, runs[r], prov)
        fmt = {x.fmt for x in runs[r]}
        if len(fmt) > 1:
            raise SitegenError(f"the {r} side mixes formats ({', '.join(sorted(fmt))}): one side is one client",
                               runs[r][0].src.path)
        sides[r] = {"label": names[r], "format": fmt.pop(), "environment": envs[r].part(), "load_points": lps}
        if gpus := sc.gpus_of(envs[r], stated.get(r, {}), f"--set-{r}"):
            sides[r]["gpus"] = gpus
    serving: dict[str, Any] = {"sides": sides}
    differs: list[dict] = []
    if len(roles) == 2:
        differs = _differences(runs, envs, keys, allow)
        serving["matched"] = _matched(keys, runs, allow, differs)
        if not serving["matched"]:
            raise SitegenError("no load point of the candidate has the workload and load of one of the baseline's",
                               runs["candidate"][0].src.path)
    report = _report(roles, runs, envs, names, sides, serving, differs, attribution, client)
    report["tested"].extend(notes or [])
    # A side's GPU count is schema 1.4's; without one the receipt stays 1.2, as before.
    version = sc.GPUS_VERSION if any("gpus" in sides[r] for r in roles) else sc.SCHEMA_VERSION
    doc = {"schema_version": version, "report": report, "serving": serving, "provenance": prov.part()}
    return doc, prov


def _report(roles, runs, envs, names, sides, serving, differs, attribution, client) -> dict:
    cand = envs["candidate"]
    date = max((envs[r].get("date") for r in roles if envs[r].get("date")), default=None)
    if date is None:
        raise SitegenError("no date: the files record none; state it with --set-candidate date=YYYY-MM-DD",
                           runs["candidate"][0].src.path)
    engines = {}
    for r in roles:
        e = envs[r]
        engines[r] = {"name": names[r], "version": e.get("engine_version") or UNRECORDED,
                      "long_name": " · ".join(x for x in (e.get("engine") or "engine not recorded",
                                                          e.get("model") or "model not recorded", names[r]) if x)}
    model = cand.get("model")
    checkpoint = {"id": slug(model.rsplit("/", 1)[-1]) if model else "model-not-recorded",
                  "label": model or "model not recorded"}
    workloads = sorted({lp["workload"] for lp in sides["candidate"]["load_points"]})
    if len(roles) == 2:
        title = f"{names['candidate']} against {names['baseline']}: {checkpoint['label']}, serving"
    else:
        title = f"{names['candidate']}: {checkpoint['label']}, serving"
    loads = sorted({(lp["load"]["request_rate"], lp["load"].get("max_concurrency")) for lp in sides["candidate"]["load_points"]},
                   key=lambda k: (rate_order(k[0]), k[1] or 0))
    tested = [{"label": "Client", "text": client},
              {"label": "Workloads", "text": "; ".join(workloads)},
              {"label": "Load points", "text": "; ".join(load_text(*k) for k in loads)}]
    for r in roles:
        n = [rep.get("completed", 0) + rep.get("failed", 0) for lp in sides[r]["load_points"] for rep in lp["repeats"]]
        reps = max(len(lp["repeats"]) for lp in sides[r]["load_points"])
        each = f"{min(n):,}" if min(n) == max(n) else f"{min(n):,}–{max(n):,}"  # one count when every run has it
        tested.append({"label": f"{r.capitalize()} runs", "text": f"{len(n)} run{'s' if len(n) != 1 else ''}, "
                       f"{each} request{'s' if max(n) != 1 else ''} a run"
                       + (f", up to {reps} repeats a load point" if reps > 1 else "")})
    if serving.get("matched"):
        paired = sum(m["paired"] for m in serving["matched"])
        tested.append({"label": "Pairing", "text": f"{paired} of {len(serving['matched'])} matched load points paired "
                       "(the same prompts in the same order on both sides)"})
    meta: dict[str, Any] = {"title": title, "date": date, "engines": engines, "checkpoints": [checkpoint], "tested": tested}
    hw = {r: envs[r].get("hardware") for r in roles}
    if hw.get("candidate"):
        meta["hardware"] = hw["candidate"] if len(set(hw.values())) == 1 else "; ".join(f"{r}: {hw[r] or 'not recorded'}" for r in roles)
    not_covered = _not_covered(roles, runs, sides)
    if not_covered:
        meta["not_covered"] = not_covered
    if differs:
        meta["differs"] = differs
    credit = attribution or sc.licence_credit([x.src.path for r in roles for x in runs[r]])
    if credit:
        meta["attribution"] = credit
    return meta


def _not_covered(roles: list[str], runs: dict[str, list], sides: dict[str, dict]) -> list[str]:
    """What the report says it does not cover: figures not imported, figures not recomputed, runs without rows."""
    not_covered: list[str] = []
    dropped = sorted({k for r in roles for x in runs[r] for k in x.rec if k.rstrip(":") in _not_recomputable()
                      and x.rec[k] is not None})
    if dropped:
        not_covered.append("Figures the files state that their rows cannot give, not imported: " + ", ".join(dropped) + ".")
    as_stated = sorted({s["key"] for r in roles for lp in sides[r]["load_points"] for rep in lp["repeats"]
                        for s in rep["stated"] if s["check"] == "not recomputed"})
    if as_stated:
        shown = ", ".join(as_stated[:12]) + (f" and {len(as_stated) - 12} more" if len(as_stated) > 12 else "")
        not_covered.append("Figures the rows do not hold what is needed to recompute, imported as the files state them "
                           f"(not recomputed): {shown}.")
    reps = [rep for r in roles for lp in sides[r]["load_points"] for rep in lp["repeats"]]
    lacking = sum("requests" not in rep and any(s["check"] == "none" for s in rep["stated"]) for rep in reps)
    if (line := sc.without_rows(lacking, len(reps))) is not None:
        not_covered.append(line)
    return not_covered


def _not_recomputable() -> tuple[str, ...]:
    return sc.NOT_RECOMPUTABLE
