"""`sitegen import cuteafd-study`: a two-arm study (schema `cuteafd.glmf-fp8-recheck.v1`: arms x
layouts x launches, per-arm summaries, quality checks) -> one schema 1.1 SUMMARY.json.

Every summary figure is recomputed from the launches and must equal the study's own; each quality
metric with a `<name>_max` or `<name>_min` beside it becomes a gate; the arms' settings that
differ are written into the receipt.
"""
from __future__ import annotations

import os
import re
import statistics
from pathlib import Path
from typing import Any

from site_gen.core.errors import SitegenError
from site_gen.core.paths import resolve_path
from site_gen.importers.common import NUMBER, Imported, Provenance, Source, parse_json, read_source, slug
from site_gen.receipts.validate import is_date
from site_gen.importers.options import NamedOptions, one

SCHEMA = "cuteafd.glmf-fp8-recheck.v1"
# Unit and orientation by the field's suffix, as the study names its measures.
UNITS = (("_tps", "tokens/s", "higher"), ("_s", "s", "lower"))


def _get(node: Any, path: list, src: Source, kind=dict) -> Any:
    for key in path:
        if not isinstance(node, dict) or key not in node:
            raise SitegenError(f"the study has no {'.'.join(map(str, path))}", src.path, "$." + ".".join(map(str, path)))
        node = node[key]
    if not isinstance(node, kind) or isinstance(node, bool) and kind is not bool:
        raise SitegenError(f"expected {getattr(kind, '__name__', 'a number')}", src.path, "$." + ".".join(map(str, path)))
    return node


def _optional(doc: dict, path: list, src: Source, kind=dict) -> Any:
    """A part the study may leave out (None then), of its type when present."""
    node: Any = doc
    for key in path[:-1]:
        node = node.get(key) if isinstance(node, dict) else None
    if not isinstance(node, dict) or node.get(path[-1]) is None:
        return None
    return _typed(node[path[-1]], path, src, kind)


def _typed(value: Any, path: list, src: Source, kind) -> Any:
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise SitegenError(f"expected {getattr(kind, '__name__', 'a number')}", src.path, "$." + ".".join(map(str, path)))
    return value


def _arms(doc: dict, src: Source, baseline: str | None, candidate: str | None) -> tuple[str, str]:
    arms = list(_get(doc, ["conditions", "arms"], src))
    for arm in arms:
        _get(doc, ["conditions", "arms", arm], src)
    if baseline is None and candidate is None:
        if len(arms) != 2:
            raise SitegenError(f"the study has {len(arms)} arms; name two with --baseline and --candidate", src.path, "$.conditions.arms")
        return arms[0], arms[1]
    for name, value in (("baseline", baseline), ("candidate", candidate)):
        if value not in arms:
            raise SitegenError(f"--{name} {value!r} is not an arm of the study ({', '.join(arms)})", src.path, "$.conditions.arms")
    assert baseline is not None and candidate is not None  # each is one of the arms
    return baseline, candidate


def _recomputed(launches: list, key: str, summary: dict, where: str, src: Source) -> dict:
    if not launches:
        raise SitegenError("no launches: nothing to recompute the summary from", src.path, f"{where}.launches")
    samples = []
    for i, launch in enumerate(launches):
        v = launch.get(key) if isinstance(launch, dict) else None
        if not isinstance(v, NUMBER) or isinstance(v, bool):
            raise SitegenError(f"launch has no number '{key}'", src.path, f"{where}.launches[{i}].{key}")
        samples.append(float(v))
    out = {"median": statistics.median(samples), "low": min(samples), "high": max(samples), "samples": samples}
    stored = summary.get(key)
    if not isinstance(stored, dict) or any(stored.get(k) != v for k, v in
                                          (("median", out["median"]), ("min", out["low"]), ("max", out["high"]), ("samples", samples))):
        raise SitegenError(f"the summary of '{key}' is not what its launches give (median {out['median']}, "
                           f"range {out['low']}–{out['high']})", src.path, f"{where}.summary.{key}")
    return out


def _unit(key: str) -> tuple[str, str] | None:
    return next(((u, b) for suffix, u, b in UNITS if key.endswith(suffix)), None)


def _measures(doc: dict, src: Source, arms: tuple[str, str], checkpoint: str, prov: Provenance) -> tuple[list, list]:
    out: list[dict] = []
    skipped: list[str] = []
    for layout, _per_arm in _get(doc, ["measurements"], src).items():
        parts = {arm: _get(doc, ["measurements", layout, arm], src) for arm in arms}
        for key in _get(doc, ["measurements", layout, arms[0], "summary"], src):
            unit = _unit(key)
            if unit is None:
                skipped.append(key)
                continue
            r = {"checkpoint": checkpoint, "group": f"layout {layout}", "measure": slug(key), "label": key,
                 "unit": unit[0], "better": unit[1]}
            for role, arm in zip(("baseline", "candidate"), arms):
                where = f"$.measurements.{layout}.{arm}"
                launches = _get(doc, ["measurements", layout, arm, "launches"], src, list)
                r[role] = _recomputed(launches, key, _get(parts[arm], ["summary"], src), where, src)
                prov.note(f"$.measures.results[{len(out)}]", src.path, f"$.measurements.{layout}")
                prov.cite(f"$.measures.results[{len(out)}].{role}", src, f"{where}.summary.{key} (launches[*].{key})")
            out.append(r)
    return out, sorted(set(skipped))


def _fidelity_gates(checks: list, role: str, layout: str, checkpoint: str, where: str, src: Source) -> list[tuple[dict, str]]:
    out = []
    for j, check in enumerate(checks):
        metrics = check.get("metrics") if isinstance(check, dict) else None
        if not isinstance(metrics, dict):
            continue
        for name, value in metrics.items():
            for suffix, rule in (("_max", "at_most"), ("_min", "at_least")):
                limit = metrics.get(name + suffix)
                if isinstance(value, NUMBER) and isinstance(limit, NUMBER) and not isinstance(value, bool):
                    passed = value <= limit if rule == "at_most" else value >= limit
                    gate = {"checkpoint": checkpoint, "group": f"layout {layout}", "gate": slug(f"{check.get('id', j)}-{name}"),
                            "label": f"{check.get('title') or check.get('id')}: {name}", "engine": role, "value": float(value),
                            "threshold": float(limit), "passes_when": rule, "passed": passed}
                    out.append((gate, f"{where}.quality.checks[{j}].metrics.{name} and .{name}{suffix}"))
                    if check.get("status") == "pass" and not passed:
                        raise SitegenError(f"check '{check.get('id')}' says pass, but {name} {value} is not "
                                           f"{rule.replace('_', ' ')} {limit}", src.path, f"{where}.quality.checks[{j}]")
    return out


def _metric(checks: list, name: str) -> tuple[int, float] | None:
    for j, check in enumerate(checks):
        metrics = check.get("metrics") if isinstance(check, dict) else None
        v = metrics.get(name) if isinstance(metrics, dict) else None
        if isinstance(v, NUMBER) and not isinstance(v, bool):
            return j, float(v)
    return None


def _drop_gates(doc: dict, src: Source, arms: tuple[str, str], layout: str, checkpoint: str) -> list[tuple[dict, str]]:
    """The decision rule's `max_<metric>_drop_points`: the candidate's drop against the baseline, in points."""
    rule = _optional(doc, ["conditions", "decision_rule"], src) or {}
    _optional(doc, ["comparison"], src)
    out = []
    for key, limit in rule.items():
        m = re.fullmatch(r"max_(\w+)_drop_points", key)
        if not m or not isinstance(limit, NUMBER) or isinstance(limit, bool):
            continue
        base, cand = (_metric(_get(doc, ["measurements", layout, arm, "quality", "checks"], src, list), m.group(1)) for arm in arms)
        if base is None or cand is None:
            continue
        drop = (base[1] - cand[1]) * 100
        stated = (_optional(doc, ["comparison", layout], src) or {}).get(f"{m.group(1)}_drop_percentage_points")
        if isinstance(stated, NUMBER) and not isinstance(stated, bool) and abs(stated - drop) > 1e-9:
            raise SitegenError(f"the study states a drop of {stated}, but its checks give {drop}", src.path,
                               f"$.comparison.{layout}.{m.group(1)}_drop_percentage_points")
        gate = {"checkpoint": checkpoint, "group": f"layout {layout}", "gate": slug(key), "label": f"{m.group(1)} drop against the baseline",
                "engine": "candidate", "value": drop, "threshold": float(limit), "unit": "points", "passes_when": "at_most",
                "passed": drop <= limit}
        out.append((gate, f"$.conditions.decision_rule.{key}; $.measurements.{layout}.*.quality.checks[{cand[0]}].metrics.{m.group(1)}"))
    return out


def _not_worse_gates(doc: dict, src: Source, arms: tuple[str, str], layout: str, checkpoint: str) -> list[tuple[dict, str]]:
    """The decision rule's `"kl_nll": "not worse"`: each named metric of the candidate's fidelity check
    at most the baseline's (both lower is better); the study's own `f_<m>_minus_d` must agree."""
    rule = _optional(doc, ["conditions", "decision_rule"], src) or {}
    out = []
    for key, value in rule.items():
        if value != "not worse":
            continue
        for metric in key.split("_"):
            base, cand = (_metric(_get(doc, ["measurements", layout, arm, "quality", "checks"], src, list), metric) for arm in arms)
            if base is None or cand is None:
                continue
            diff = cand[1] - base[1]
            stated = (_optional(doc, ["comparison", layout], src) or {}).get(f"f_{metric}_minus_d")
            if isinstance(stated, NUMBER) and not isinstance(stated, bool) and abs(stated - diff) > 1e-12:
                raise SitegenError(f"the study states {stated}, but its checks give {diff}", src.path,
                                   f"$.comparison.{layout}.f_{metric}_minus_d")
            gate = {"checkpoint": checkpoint, "group": f"layout {layout}", "gate": slug(f"{metric}-not-worse"),
                    "label": f"{metric} not worse than the baseline", "engine": "candidate", "value": diff, "threshold": 0.0,
                    "passes_when": "at_most", "passed": diff <= 0}
            out.append((gate, f"$.conditions.decision_rule.{key}; $.measurements.{layout}.*.quality.checks[{cand[0]}].metrics.{metric}"))
    return out


# The speed bar as this study words it: "at least 5% C4 or agentic emitted tok/s improvement".
_SPEED_RULE = re.compile(r"at least (\d+(?:\.\d+)?)% (.+?) improvement")
_SPEED_MEASURES = {"C4": "c4_tps", "agentic": "agentic_decode_tps"}


def _speed_gate(doc: dict, src: Source, arms: tuple[str, str], layout: str, checkpoint: str,
                measures: list[dict]) -> list[tuple[dict, str]]:
    """The decision rule's speed bar: the best median change of the measures it names, at least its
    percentage; the study's `speed_bar_pass` must agree."""
    rule = (_optional(doc, ["conditions", "decision_rule"], src) or {}).get("speed")
    m = _SPEED_RULE.fullmatch(rule) if isinstance(rule, str) else None
    if m is None:
        return []
    named = [key for word, key in _SPEED_MEASURES.items() if word in m.group(2)]
    changes = {r["label"]: (r["candidate"]["median"] / r["baseline"]["median"] - 1) * 100 for r in measures
               if r["group"] == f"layout {layout}" and r["label"] in named}
    if not changes:
        return []
    best = max(changes, key=lambda label: changes[label])
    gate = {"checkpoint": checkpoint, "group": f"layout {layout}", "gate": "speed-bar",
            "label": f"speed: the best median change of {' or '.join(named)}", "engine": "candidate", "value": changes[best],
            "threshold": float(m.group(1)), "unit": "%", "passes_when": "at_least", "passed": changes[best] >= float(m.group(1))}
    stated = (_optional(doc, ["comparison", layout], src) or {}).get("speed_bar_pass")
    if isinstance(stated, bool) and stated != gate["passed"]:
        raise SitegenError(f"the study says speed_bar_pass {str(stated).lower()}, but its launches give a best median change "
                           f"of {changes[best]:.2f}% ({best})", src.path, f"$.comparison.{layout}.speed_bar_pass")
    return [(gate, f"$.conditions.decision_rule.speed; $.measurements.{layout}.*.summary ({', '.join(named)})")]


def _gates(doc: dict, src: Source, arms: tuple[str, str], checkpoint: str, prov: Provenance, measures: list[dict]) -> list:
    out: list[dict] = []
    for layout in _get(doc, ["measurements"], src):
        # Each arm's own checks first: a check that says pass against its own limit is refused before
        # any comparison is read from it.
        fidelity = [found for role, arm in zip(("baseline", "candidate"), arms) for found in _fidelity_gates(
            _get(doc, ["measurements", layout, arm, "quality", "checks"], src, list), role, layout, checkpoint,
            f"$.measurements.{layout}.{arm}", src)]
        quality = _drop_gates(doc, src, arms, layout, checkpoint) + _not_worse_gates(doc, src, arms, layout, checkpoint)
        stated = (_optional(doc, ["comparison", layout], src) or {}).get("quality_relative_bar_pass")
        if quality and isinstance(stated, bool) and stated != all(g["passed"] for g, _ in quality):
            raise SitegenError(f"the study says quality_relative_bar_pass {str(stated).lower()}, but its checks give "
                               f"{str(all(g['passed'] for g, _ in quality)).lower()}", src.path,
                               f"$.comparison.{layout}.quality_relative_bar_pass")
        for gate, at in quality + _speed_gate(doc, src, arms, layout, checkpoint, measures) + fidelity:
            prov.cite(f"$.gates.results[{len(out)}]", src, at)
            out.append(gate)
    return out


def _engines(doc: dict, src: Source, arms: tuple[str, str]) -> tuple[dict, list]:
    settings = _get(doc, ["conditions", "arms"], src)
    commit = doc.get("conditions", {}).get("engine_commit")
    version = commit[:12] if isinstance(commit, str) and commit else "unversioned"
    engines = {role: {"name": f"arm {arm}", "version": version,
                      "long_name": f"arm {arm}: " + ", ".join(f"{k}={v}" for k, v in settings[arm].items())}
               for role, arm in zip(("baseline", "candidate"), arms)}
    a, b = settings[arms[0]], settings[arms[1]]
    differs = [{"field": k, "baseline": str(a.get(k, "")), "candidate": str(b.get(k, ""))}
               for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
    return engines, differs


def _recommendation(rec: dict | None) -> str:
    """The study's own conclusion, as its words: the arm it recommends, why, and on what basis."""
    if not rec:
        return ""
    arm, reason, basis = rec.get("arm"), rec.get("reason"), rec.get("basis")
    parts = []
    if isinstance(arm, str) and arm.strip():
        parts.append(f"The study recommends arm {arm}.")
    for text in (reason, basis):
        if isinstance(text, str) and text.strip():
            parts.append(" ".join(text.split()))
    if rec.get("defaults_changed") is False and "defaults changed" not in " ".join(parts).lower():
        parts.append("No defaults changed.")
    return " ".join(parts)


def run_import(path: Path, baseline: str | None, candidate: str | None, attribution: str | None) -> Imported:
    # The source is this one file, wherever a link the user named leads.
    src = read_source(path, resolve_path(path).parent if os.path.lexists(path) else path.parent)
    doc = parse_json(src)
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        got = doc.get("schema") if isinstance(doc, dict) else None
        raise SitegenError(f"schema {got!r} is not one this importer knows ({SCHEMA})", path, "$.schema")
    arms = _arms(doc, src, baseline, candidate)
    repo = _get(doc, ["conditions", "checkpoint"], src, str)
    checkpoint = {"id": slug(repo.rsplit("/", 1)[-1]), "label": repo}
    rev = doc["conditions"].get("checkpoint_revision")
    if isinstance(rev, str):
        checkpoint["description"] = f"{repo} at {rev}"
    prov = Provenance()
    for part, at in (("title", "$.conditions.arms"), ("engines", "$.conditions.arms"), ("differs", "$.conditions.arms"),
                     ("date", "$.date"), ("checkpoints", "$.conditions.checkpoint"), ("not_covered", "$.limitations"),
                     ("attribution", "--attribution")):
        prov.note(f"$.report.{part}", None if at.startswith("--") else path, at)
    engines, differs = _engines(doc, src, arms)
    measures, skipped = _measures(doc, src, arms, checkpoint["id"], prov)
    date = _get(doc, ["date"], src, str)
    if not is_date(date):
        raise SitegenError(f"{date!r} is not a calendar day written YYYY-MM-DD", path, "$.date")
    meta: dict[str, Any] = {"title": f"{engines['candidate']['name']} against {engines['baseline']['name']}: {SCHEMA}",
                            "date": date, "engines": engines, "checkpoints": [checkpoint],
                            "comparison": {"id": SCHEMA}, "differs": differs,
                            "tested": [{"label": "Study", "text": f"`{src.name}` ({date})"}]}
    rule = _optional(doc, ["conditions", "decision_rule"], src) or {}
    said = [f"{k.replace('_', ' ')}: {v}" for k, v in rule.items() if isinstance(v, (str, int, float)) and not isinstance(v, bool)
            and k not in ("decision_owner",)]
    if said:
        meta["tested"].append({"label": "Decision rule", "text": "; ".join(said)})
        prov.note(f"$.report.tested[{len(meta['tested']) - 1}]", path, "$.conditions.decision_rule")
    lede = _recommendation(_optional(doc, ["recommendation"], src))
    if lede:
        meta["lede"] = lede
        prov.note("$.report.lede", path, "$.recommendation")
    limits = [x for x in _optional(doc, ["limitations"], src, list) or [] if isinstance(x, str) and x.strip()]
    if skipped:
        limits.append(f"Fields without a known unit, not imported: {', '.join(skipped)}.")
    if limits:
        meta["not_covered"] = limits
    if attribution:
        meta["attribution"] = attribution
    out = {"schema_version": 1.1, "report": meta, "measures": {"results": measures}}
    gates = _gates(doc, src, arms, checkpoint["id"], prov, measures)
    if gates:
        out["gates"] = {"results": gates}
    out["provenance"] = prov.part()
    return Imported(out, prov, path)


def run(opts: NamedOptions) -> Imported:
    if len(opts.sources) != 1:
        raise SitegenError(f"the cuteafd-study format takes one source, the study's comparison.json; got {len(opts.sources)}",
                           opts.sources[-1])
    return run_import(Path(opts.sources[0]), one(opts.baseline), one(opts.candidate), opts.attribution)
