"""`sitegen import ledger`: a receipts ledger (runs/<id>/{run,summary}.json + results.jsonl,
configs/, comparisons/<id>/comparison.json, protocols/) -> one schema 1.1 SUMMARY.json of two runs.

Every figure is computed from the rows and checked against the run's own summary.json; pairing is
computed (batches by workload and concurrency, questions by id); what differs between the two
configurations is written into the receipt; runs the ledger's rules call not comparable are
refused unless the user names what may differ (`--allow`).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from site_gen.core.errors import SitegenError
from site_gen.importers import ledger_protocols as protocols
from site_gen.importers.common import Provenance, Source, parse_json, parse_jsonl, read_source, slug

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


def load_run(root: Path, run_id: str) -> Run:
    folder = root / "runs" / run_id
    if not (folder / "run.json").is_file():
        raise SitegenError(f"run '{run_id}' not found: no runs/{run_id}/run.json in the ledger", folder)
    meta, meta_src = _json(folder / "run.json", root)
    for key in ("protocol", "config", "date"):
        if not isinstance(meta.get(key), str):
            raise SitegenError(f"run.json has no '{key}'", meta_src.path, f"$.{key}")
    if meta["protocol"] not in protocols.KNOWN:
        raise SitegenError(f"protocol '{meta['protocol']}' is not one this importer knows "
                           f"({', '.join(sorted(protocols.KNOWN))})", meta_src.path, "$.protocol")
    summary, summary_src = _json(folder / "summary.json", root)
    rows_src = read_source(folder / "results.jsonl", root)
    config, config_src = _json(root / "configs" / f"{meta['config']}.json", root)
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
        entry = {"field": key, "baseline": _shown(a), "candidate": _shown(b)}
        if _under(key, WEIGHTS):
            entry["allowed"] = refuse_unless(key, f"other weights: {key} is {_shown(a)!r} and {_shown(b)!r}")
        elif varies is not None and not _under(key, DESCRIPTIVE) and not _under(key, varies):
            entry["allowed"] = refuse_unless(key, f"the configs differ in {key}, which comparison "
                                             f"'{comparison.get('id')}' does not declare in 'varies'")
        differs.append(entry)
    return differs


def load_comparison(root: Path, comparison_id: str) -> tuple[dict, Source]:
    path = root / "comparisons" / comparison_id / "comparison.json"
    if not path.is_file():
        raise SitegenError(f"comparison '{comparison_id}' not found", path)
    data, src = _json(path, root)
    if not isinstance(data.get("runs"), list) or not all(isinstance(r, str) for r in data["runs"]):
        raise SitegenError("comparison has no list of runs", path, "$.runs")
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
    return baseline, candidate


def _citation(root: Path) -> tuple[str | None, str | None]:
    """(attribution, repository URL) from the ledger's CITATION.cff, when it has one."""
    path = root / "CITATION.cff"
    if not path.is_file():
        return None, None
    fields = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        key, _, value = line.strip().lstrip("- ").partition(":")
        fields.setdefault(key.strip(), value.strip().strip('"'))
    title, who, url, lic = fields.get("title"), fields.get("alias") or fields.get("name"), fields.get("repository-code"), fields.get("license")
    if not (title and url):
        return None, url
    text = f'Data from "{title}"' + (f" by {who}" if who else "") + f", {url}" + (f", {lic.replace('-', ' ', 1)}" if lic else "")
    return text + "; imported into this receipt by sitegen (figures recomputed from the runs' rows).", url


def run_import(root: Path, *, comparison_id: str | None, baseline: str | None, candidate: str | None,
               allow: set[str], attribution: str | None) -> dict:
    comparison = None
    if comparison_id:
        comparison, comparison_src = load_comparison(root, comparison_id)
        baseline, candidate = choose_runs(comparison, comparison_src, baseline, candidate)
    elif not (baseline and candidate):
        raise SitegenError("name a comparison (--comparison ID) or two runs (--baseline RUN --candidate RUN)", root)
    base, cand = load_run(root, baseline), load_run(root, candidate)
    differs = comparability(base, cand, comparison, allow, cand.meta_src.path)
    cited, url = _citation(root)
    prov = Provenance(url=url)
    doc = {"schema_version": 1.1, "report": report_meta(base, cand, comparison, differs, attribution or cited)}
    protocols.KNOWN[base.protocol](doc, base, cand, prov, allow)
    doc["provenance"] = prov.part()
    return doc


def _spec(cfg: dict) -> str:
    s = (cfg.get("serving") or {}).get("speculative") or {}
    return f"{s['label']} ×{s.get('tokens')}" if s.get("label") else "no speculation"


def engine(run: Run, other: Run) -> dict:
    e = run.config.get("engine") or {}
    if not isinstance(e.get("name"), str) or not isinstance(e.get("version"), str):
        raise SitegenError("config has no engine name and version", run.config_src.path, "$.engine")
    name = e["name"] + "".join(f" + {p['name']}" for p in e.get("patches") or [] if isinstance(p, dict) and p.get("name"))
    if _spec(run.config) != _spec(other.config):
        name += f" · {_spec(run.config)}"
    out = {"name": name, "version": e["version"].removeprefix("v"),
           "long_name": " · ".join(x for x in ((run.config.get("model") or {}).get("label"), name, _spec(run.config)) if x)}
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


def report_meta(base: Run, cand: Run, comparison: dict | None, differs: list[dict], attribution: str | None) -> dict:
    b, c = engine(base, cand), engine(cand, base)
    meta: dict[str, Any] = {
        "title": f"{c['name']} v{c['version']} against {b['name']} v{b['version']}: {cand.protocol}",
        "date": max(base.meta["date"], cand.meta["date"]),
        "engines": {"baseline": b, "candidate": c},
        "checkpoints": [checkpoint(base)],
        "tested": [{"label": "Protocol", "text": f"`{base.protocol}`"},
                   {"label": "Baseline run", "text": f"`{base.id}` ({base.meta['date']})"},
                   {"label": "Candidate run", "text": f"`{cand.id}` ({cand.meta['date']})"}],
    }
    hw = base.config.get("hardware") or {}
    if hw.get("gpus"):
        meta["hardware"] = hw["gpus"] + (f", driver {hw['driver']}" if hw.get("driver") else "")
    if comparison is not None:
        meta["comparison"] = {"id": str(comparison.get("id") or "comparison")}
        if isinstance(comparison.get("question"), str) and comparison["question"].strip():
            meta["comparison"]["question"] = comparison["question"]
    if differs:
        meta["differs"] = differs
    if attribution:
        meta["attribution"] = attribution
    return meta
