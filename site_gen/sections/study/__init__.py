"""A study (schema 1.4): two or more serving setups (an engine, its version, parallelism, GPU count and
hardware), each with one or more runs per load point and each run's per-request rows where the source
has them, and an optional baseline setup. `sitegen import vllm-bench --setup NAME=FILE…` (and
`guidellm --setup …`) writes it.

This module is the part's declaration and its meaning checks. Its analysis (`analysis/`) computes every
setup's percentiles and throughputs with intervals that know run-to-run noise, every pair of setups'
ratios with verdicts whose false discoveries are controlled over the study (Benjamini–Hochberg), the
rankings with their ties, the Pareto frontier of throughput per GPU against interactivity, the
service-level objectives and the run-to-run spread; its pages are the Study page (here) and the
Frontier page (`sections/frontier/`).
"""
from __future__ import annotations

from pathlib import Path

from site_gen.receipts.rules import require, unique_ids
from site_gen.sections.base import Section
from site_gen.sections.serving import check_gpus, check_repeat, load_key


def _check_setup(setup: dict, i: int, file: Path) -> None:
    check_gpus(setup, file, f"$.study.setups[{i}]")
    ids: dict[str, int] = {}
    keys: dict[tuple, int] = {}
    for k, lp in enumerate(setup["load_points"]):
        where = f"$.study.setups[{i}].load_points[{k}]"
        require(lp["id"] not in ids, f"duplicate load point id '{lp['id']}'", file, where + ".id")
        ids[lp["id"]] = k
        key = load_key(lp)
        require(key not in keys, f"the same workload and load as load_points[{keys.get(key)}]: runs of one setup at one "
                "load point are repeats of it, in one load point", file, where)
        keys[key] = k
        for j, rep in enumerate(lp["repeats"]):
            check_repeat(rep, file, f"{where}.repeats[{j}]")


def check(part: dict, file: Path, checkpoint_ref) -> None:
    setups = part["setups"]
    ids = [s["id"] for s in setups]
    unique_ids(ids, "setup", "$.study.setups", file)
    labels = [s["label"] for s in setups]
    for i, label in enumerate(labels):
        require(label not in labels[:i], f"two setups are labelled '{label}': the pages name a setup by its label",
                file, f"$.study.setups[{i}].label")
    if "baseline" in part:
        require(part["baseline"] in ids, f"unknown baseline setup '{part['baseline']}'; setups: {', '.join(ids)}",
                file, "$.study.baseline")
    for i, s in enumerate(setups):
        _check_setup(s, i, file)
    for i, d in enumerate(part.get("differs", [])):
        for j, v in enumerate(d["values"]):
            require(v["setup"] in ids, f"unknown setup '{v['setup']}'", file, f"$.study.differs[{i}].values[{j}].setup")


def check_receipt(data: dict, file: Path) -> None:
    part = data["study"]
    engines = data["report"]["engines"]
    require(("baseline" in part) == ("baseline" in engines),
            "the study and report.engines must agree on whether there is a baseline setup", file, "$.report.engines")
    sources = {s["id"] for s in (data.get("provenance") or {}).get("sources", [])}
    for i, setup in enumerate(part["setups"]):
        for k, lp in enumerate(setup["load_points"]):
            for j, rep in enumerate(lp["repeats"]):
                require(rep["source"] in sources, f"source '{rep['source']}' is not in $.provenance.sources", file,
                        f"$.study.setups[{i}].load_points[{k}].repeats[{j}].source")


# No dashboard column of its own (a site without a study keeps its table as it was): its headlines
# speak in the dashboard's "Other verdicts".
SECTION = Section(key="study", title="Study", package=__name__, name="study", check=check, check_receipt=check_receipt,
                  records="setups", provenance=True, order=43)
