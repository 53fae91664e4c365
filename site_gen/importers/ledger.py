"""`sitegen import ledger`: a receipts ledger (runs/<id>/{run,summary}.json + results.jsonl,
configs/, comparisons/<id>/comparison.json, protocols/) -> one schema 1.1 SUMMARY.json of two runs.

Every figure is computed from the rows and checked against the run's own summary.json; pairing is
computed (batches by workload and concurrency, questions by id); what differs between the two
configurations is written into the receipt; runs the ledger's rules call not comparable are
refused unless the user names what may differ (`--allow`).
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from site_gen.core.errors import SitegenError
from site_gen.importers import ledger_protocols as protocols
from site_gen.importers.common import (Imported, Provenance, Source, check_id, check_name, check_range, parse_json, parse_jsonl,
                                       read_source, slug)
from site_gen.receipts.validate import is_date

# Config fields that name or describe others (a label, a series, notes): a difference in them is
# no difference in what ran, so it needs no `varies` entry.
DESCRIPTIVE = ("id", "notes", "model.label", "engine.series", "engine.equivalent_to", "engine.built_on")
WEIGHTS = ("model.repo", "model.revision", "model.quant")


@dataclass
class Run:
    id: str
    meta: dict
    meta_src: Source
    summary: dict
    summary_src: Source
    rows: list[tuple[int, dict]]
    rows_src: Source
    config: dict
    config_src: Source

    @property
    def protocol(self) -> str:
        return self.meta["protocol"]


def _json(path: Path, root: Path) -> tuple[Any, Source]:
    src = read_source(path, root)
    data = parse_json(src)
    if not isinstance(data, dict):
        raise SitegenError("expected a JSON object", path, "$")
    return data, src


def _object(d: dict, key: str, src: Source, where: str, *, required: bool = False) -> dict:
    """`d[key]` as an object ({} when absent or null, unless required), or a refusal at its place."""
    value = d.get(key)
    if value is None and not required:
        return {}
    if not isinstance(value, dict):
        raise SitegenError(f"expected an object, got {_kind(value)}", src.path, where)
    return value


def _text(d: dict, key: str, src: Source, where: str, *, required: bool = False) -> str | None:
    """`d[key]` as non-blank text (None when absent or null, unless required), or a refusal at its place."""
    value = d.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str):
        raise SitegenError(f"expected text, got {_kind(value)}", src.path, where)
    if not value.strip():
        raise SitegenError("is blank; expected some text", src.path, where)
    return value


def _kind(value: Any) -> str:
    return "nothing" if value is None else {bool: "true or false", int: "a number", float: "a number", str: "text",
                                            list: "a list", dict: "an object"}.get(type(value), type(value).__name__)


def check_config(config: dict, src: Source) -> None:
    """The config fields the receipt is made of, of their types, before any is used."""
    engine = _object(config, "engine", src, "$.engine", required=True)
    for key in ("name", "version"):
        _text(engine, key, src, f"$.engine.{key}", required=True)
    _text(engine, "image", src, "$.engine.image")
    patches = engine.get("patches")
    if patches is not None and not isinstance(patches, list):
        raise SitegenError(f"expected a list, got {_kind(patches)}", src.path, "$.engine.patches")
    for i, patch in enumerate(patches or []):
        if not isinstance(patch, dict):
            raise SitegenError(f"expected an object, got {_kind(patch)}", src.path, f"$.engine.patches[{i}]")
        _text(patch, "name", src, f"$.engine.patches[{i}].name")
    model = _object(config, "model", src, "$.model")
    for key in ("label", "repo", "revision", "quant"):
        _text(model, key, src, f"$.model.{key}")
    spec = _object(_object(config, "serving", src, "$.serving"), "speculative", src, "$.serving.speculative")
    _text(spec, "label", src, "$.serving.speculative.label")
    tokens = spec.get("tokens")
    if tokens is not None:
        if not isinstance(tokens, int) or isinstance(tokens, bool):
            raise SitegenError(f"expected a whole number, got {_kind(tokens)}", src.path, "$.serving.speculative.tokens")
        check_range(tokens, "tokens", src.path, "$.serving.speculative.tokens", minimum=0)
    hardware = _object(config, "hardware", src, "$.hardware")
    for key in ("gpus", "driver"):
        _text(hardware, key, src, f"$.hardware.{key}")


def load_run(root: Path, run_id: str, named_in: Path, where: str) -> Run:
    """A run of the ledger by its id (named in `named_in` at `where`): a folder of runs/, never a path."""
    check_id(run_id, "run id", named_in, where)
    folder = root / "runs" / run_id
    if not os.path.lexists(folder / "run.json"):
        raise SitegenError(f"run '{run_id}' not found: no runs/{run_id}/run.json in the ledger", folder)
    meta, meta_src = _json(folder / "run.json", root)
    for key in ("protocol", "config", "date"):
        _text(meta, key, meta_src, f"$.{key}", required=True)
    if not is_date(meta["date"]):
        raise SitegenError(f"{meta['date']!r} is not a calendar day written YYYY-MM-DD", meta_src.path, "$.date")
    if meta["protocol"] not in protocols.KNOWN:
        raise SitegenError(f"protocol '{meta['protocol']}' is not one this importer knows "
                           f"({', '.join(sorted(protocols.KNOWN))})", meta_src.path, "$.protocol")
    check_name(meta["config"], "config", meta_src.path, "$.config")
    _text(_object(meta, "software", meta_src, "$.software"), "harness", meta_src, "$.software.harness")
    summary, summary_src = _json(folder / "summary.json", root)
    rows_src = read_source(folder / "results.jsonl", root)
    config_path = root / "configs" / f"{meta['config']}.json"
    if not os.path.lexists(config_path):
        raise SitegenError(f"config '{meta['config']}' not found: no configs/{meta['config']}.json in the ledger",
                           meta_src.path, "$.config")
    config, config_src = _json(config_path, root)
    check_config(config, config_src)
    return Run(run_id, meta, meta_src, summary, summary_src, parse_jsonl(rows_src), rows_src, config, config_src)


def _flatten(d: dict, prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        if isinstance(v, dict) and v:
            out.update(_flatten(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def _under(key: str, names) -> bool:
    return any(key == n or key.startswith(n + ".") for n in names)


def _shown(v: Any) -> str:
    if v is None:
        return ""
    return v if isinstance(v, str) else json.dumps(v, sort_keys=True, ensure_ascii=False)


def config_differences(base: Run, cand: Run) -> list[tuple[str, Any, Any]]:
    a, b = _flatten(base.config), _flatten(cand.config)
    return [(k, a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if k not in ("id", "notes") and a.get(k) != b.get(k)]


def comparability(base: Run, cand: Run, comparison: dict | None, allow: set[str], where: Path) -> list[dict]:
    """What differs, each entry marked `allowed` where only the user's flag lets it pass; raises
    on a difference the ledger's rules do not allow and the user did not name."""
    differs = []

    def refuse_unless(name: str, message: str) -> bool:
        if name not in allow and not _under(name, allow):
            raise SitegenError(f"{message}; not comparable (pass --allow {name} to import it anyway, "
                               "and the report will say so)", where)
        return True

    if comparison is not None and comparison.get("comparable") is False:
        refuse_unless("comparable", f"comparison '{comparison.get('id')}' says comparable: false"
                      + (f" ({comparison['reason']})" if comparison.get("reason") else ""))
        differs.append({"field": "comparable", "baseline": "", "candidate": "false", "allowed": True})
    if base.protocol != cand.protocol:
        refuse_unless("protocol", f"the runs follow {base.protocol} and {cand.protocol}")
        differs.append({"field": "protocol", "baseline": base.protocol, "candidate": cand.protocol, "allowed": True})
    varies = comparison.get("varies", []) if comparison else None
    for key, a, b in config_differences(base, cand):
        entry: dict[str, object] = {"field": key, "baseline": _shown(a), "candidate": _shown(b)}
        if _under(key, WEIGHTS):
            entry["allowed"] = refuse_unless(key, f"other weights: {key} is {_shown(a)!r} and {_shown(b)!r}")
        elif varies is not None and not _under(key, DESCRIPTIVE) and not _under(key, varies):
            entry["allowed"] = refuse_unless(key, f"the configs differ in {key}, which comparison "
                                             f"'{(comparison or {}).get('id')}' does not declare in 'varies'")
        differs.append(entry)
    return differs


def load_comparison(root: Path, comparison_id: str) -> tuple[dict, Source]:
    check_id(comparison_id, "comparison id", root / "comparisons", "--comparison")
    path = root / "comparisons" / comparison_id / "comparison.json"
    if not os.path.lexists(path):
        raise SitegenError(f"comparison '{comparison_id}' not found", path)
    data, src = _json(path, root)
    if not isinstance(data.get("runs"), list) or not all(isinstance(r, str) for r in data["runs"]):
        raise SitegenError("comparison has no list of runs", path, "$.runs")
    for i, run in enumerate(data["runs"]):
        check_id(run, "run id", path, f"$.runs[{i}]")
    for key in ("id", "question", "reason"):
        _text(data, key, src, f"$.{key}")
    if data.get("comparable") is not None and not isinstance(data["comparable"], bool):
        raise SitegenError(f"expected true or false, got {_kind(data['comparable'])}", path, "$.comparable")
    varies = data.get("varies")
    if varies is not None and not (isinstance(varies, list) and all(isinstance(v, str) for v in varies)):
        raise SitegenError("expected a list of config field names", path, "$.varies")
    return data, src


def choose_runs(comparison: dict, src: Source, baseline: str | None, candidate: str | None) -> tuple[str, str]:
    runs = comparison["runs"]
    if baseline is None and candidate is None:
        if len(runs) != 2:
            raise SitegenError(f"comparison holds {len(runs)} runs; name the two to import with --baseline and "
                               f"--candidate (runs: {', '.join(runs)})", src.path, "$.runs")
        return runs[0], runs[1]
    for name, value in (("baseline", baseline), ("candidate", candidate)):
        if value not in runs:
            raise SitegenError(f"--{name} {value!r} is not one of the comparison's runs ({', '.join(runs)})", src.path, "$.runs")
    assert baseline is not None and candidate is not None  # each is one of the runs
    return baseline, candidate


def licence_words(spdx: str) -> str:
    """A licence as it names itself: SPDX `CC-BY-4.0` is `CC BY 4.0`, `CC-BY-SA-4.0` is `CC BY-SA 4.0`
    (Creative Commons' own wording); other identifiers (`MIT`, `Apache-2.0`) are their names already."""
    m = re.fullmatch(r"CC-((?:BY|SA|NC|ND)(?:-(?:BY|SA|NC|ND))*)-(\d+\.\d+)", spdx.strip())
    return f"CC {m.group(1)} {m.group(2)}" if m else spdx.strip()


def _citation(root: Path) -> tuple[str | None, str | None, Source | None]:
    """(attribution, repository URL, the file) from the ledger's CITATION.cff, when it has one."""
    path = root / "CITATION.cff"
    if not os.path.lexists(path):
        return None, None, None
    src = read_source(path, root)
    fields: dict[str, str] = {}
    for line in src.text.splitlines():
        key, _, value = line.strip().lstrip("- ").partition(":")
        fields.setdefault(key.strip(), value.strip().strip('"'))
    title, who, url, lic = fields.get("title"), fields.get("alias") or fields.get("name"), fields.get("repository-code"), fields.get("license")
    if url and not re.fullmatch(r"https://[^\s\"<>]+", url):
        url = None  # not an address a page may link to
    if not (title and url):
        return None, url, src
    text = f'Data from "{title}"' + (f" by {who}" if who else "") + f", {url}" + (f", {licence_words(lic)}" if lic else "")
    return text + "; imported into this receipt by sitegen (figures recomputed from the runs' rows).", url, src


def run_import(root: Path, *, comparison_id: str | None, baseline: str | None, candidate: str | None,
               allow: set[str], attribution: str | None) -> Imported:
    comparison = None
    named_in, where = {"baseline": root / "runs", "candidate": root / "runs"}, {"baseline": "--baseline", "candidate": "--candidate"}
    for role, value in (("baseline", baseline), ("candidate", candidate)):
        if value is not None:
            check_id(value, "run id", named_in[role], where[role])
    if comparison_id:
        comparison, comparison_src = load_comparison(root, comparison_id)
        baseline, candidate = choose_runs(comparison, comparison_src, baseline, candidate)
        for role, run in (("baseline", baseline), ("candidate", candidate)):
            named_in[role], where[role] = comparison_src.path, f"$.runs[{comparison['runs'].index(run)}]"
    elif not (baseline and candidate):
        raise SitegenError("name a comparison (--comparison ID) or two runs (--baseline RUN --candidate RUN)", root)
    base = load_run(root, baseline, named_in["baseline"], where["baseline"])
    cand = load_run(root, candidate, named_in["candidate"], where["candidate"])
    differs = comparability(base, cand, comparison, allow, cand.meta_src.path)
    cited, url, citation = _citation(root)
    prov = Provenance(url=url)
    if attribution:
        prov.note("$.report.attribution", None, "--attribution")
    elif citation is not None:
        prov.note("$.report.attribution", citation.path, "title, alias, repository-code, license")
    if comparison is not None:
        prov.note("$.report.comparison", comparison_src.path, "$.id, $.question")
        prov.note("$.report.differs", comparison_src.path, "$.varies")
    doc = {"schema_version": 1.1, "report": report_meta(base, cand, comparison, differs, attribution or cited, prov)}
    protocols.KNOWN[base.protocol](doc, base, cand, prov, allow)
    doc["provenance"] = prov.part()
    return Imported(doc, prov, root)


# The ledger's own naming rule (its SCHEMA.md, "Labels"): a configuration is
# `<weights> · <engine>[ · <layout>] · <speculation>[ · concurrency <n>]`, the engine
# `<name> <version without v>[ + <patch>…][ ≈ <equivalent version>]`. Its pages name sides so; so do ours.

def _engine_label(cfg: dict) -> str:
    e = cfg["engine"]
    out = f"{e['name']} {e['version'].removeprefix('v')}"
    out += "".join(f" + {p['name']}" for p in e.get("patches") or [] if p.get("name"))
    same_as = e.get("equivalent_to")
    if isinstance(same_as, dict) and isinstance(same_as.get("version"), str):
        out += f" \u2248 {same_as['version'].removeprefix('v')}"
    return out


def _spec(cfg: dict) -> str:
    serving = cfg.get("serving") or {}
    s = serving.get("speculative") or {}
    out = f"{s['label']} \u00d7{s['tokens']}" if s.get("tokens") and s.get("label") else "no speculation"
    if s.get("tokens") and serving.get("draft_slot_sharing") is False:
        out += ", sharing off"
    return out + (", prefix cache off" if serving.get("prefix_caching") is False else "")


def _layout(cfg: dict) -> str:
    layout = (cfg.get("serving") or {}).get("layout") or {}
    return layout.get("label") or "" if isinstance(layout, dict) else ""


def _concurrency(cfg: dict) -> str:
    c = (cfg.get("serving") or {}).get("concurrency")
    return f"concurrency {c}" if c else ""


def config_label(cfg: dict) -> str:
    weights = (cfg.get("model") or {}).get("label")
    return " \u00b7 ".join(x for x in (weights, _engine_label(cfg), _layout(cfg), _spec(cfg), _concurrency(cfg)) if x)


def engine(run: Run, other: Run) -> dict:
    """A side named by the ledger's rule: its engine label, and what else of its configuration tells
    it from the other side (layout, speculation, concurrency), each once; its long name the whole label."""
    e = run.config["engine"]  # its fields' types checked on loading (check_config)
    name = _engine_label(run.config)
    differ = [part(run.config) for part in (_layout, _spec, _concurrency) if part(run.config) != part(other.config)]
    name = " \u00b7 ".join([name, *(x for x in differ if x)])
    out = {"name": name, "version": e["version"].removeprefix("v"), "long_name": config_label(run.config)}
    if isinstance(e.get("image"), str) and e["image"]:
        out["image"] = e["image"]
    return out


def checkpoint(run: Run) -> dict:
    m = run.config.get("model") or {}
    label = m.get("label") or m.get("repo") or run.meta["config"]
    out = {"id": slug(label), "label": label}
    desc = ", ".join(str(m[k]) for k in ("repo", "revision", "quant") if m.get(k))
    if desc:
        out["description"] = desc
    return out


def report_meta(base: Run, cand: Run, comparison: dict | None, differs: list[dict], attribution: str | None,
                prov: Provenance) -> dict:
    b, c = engine(base, cand), engine(cand, base)
    later = max((base, cand), key=lambda r: r.meta["date"])
    meta: dict[str, Any] = {
        "title": f"{c['name']} against {b['name']}: {cand.protocol}",
        "date": later.meta["date"],
        "engines": {"baseline": b, "candidate": c},
        "checkpoints": [checkpoint(base)],
        "tested": [{"label": "Protocol", "text": f"`{base.protocol}`"},
                   {"label": "Baseline run", "text": f"`{base.id}` ({base.meta['date']})"},
                   {"label": "Candidate run", "text": f"`{cand.id}` ({cand.meta['date']})"}],
    }
    prov.note("$.report.title", cand.config_src.path, "$.engine")
    prov.note("$.report.date", later.meta_src.path, "$.date")
    for role, run in (("baseline", base), ("candidate", cand)):
        prov.note(f"$.report.engines.{role}", run.config_src.path, "$.engine")
        for key in ("name", "version", "image"):
            prov.note(f"$.report.engines.{role}.{key}", run.config_src.path, f"$.engine.{key}")
    prov.note("$.report.checkpoints", base.config_src.path, "$.model")
    prov.note("$.report.tested[0]", base.meta_src.path, "$.protocol")
    prov.note("$.report.tested[1]", base.meta_src.path, "$.id, $.date")
    prov.note("$.report.tested[2]", cand.meta_src.path, "$.id, $.date")
    hw = base.config.get("hardware") or {}
    if hw.get("gpus"):
        meta["hardware"] = hw["gpus"] + (f", driver {hw['driver']}" if hw.get("driver") else "")
        prov.note("$.report.hardware", base.config_src.path, "$.hardware")
    if comparison is not None:
        meta["comparison"] = {"id": str(comparison.get("id") or "comparison")}
        if isinstance(comparison.get("question"), str) and comparison["question"].strip():
            meta["comparison"]["question"] = comparison["question"]
    if differs:
        meta["differs"] = differs
        if comparison is None:
            prov.note("$.report.differs", cand.config_src.path, "$")
    if attribution:
        meta["attribution"] = attribution
    return meta
