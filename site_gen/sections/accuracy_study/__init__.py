"""An accuracy study (schema 1.4, `accuracy_study`): two or more lm-evaluation-harness setups (several
models, or one model's settings), each with one or more runs; per task and metric every run's value
and its per-document scores. `sitegen import lm-eval --setup NAME FILE… --setup …` writes it.

This module is the part's declaration and its meaning checks; its analysis (`analysis.py`) combines
each setup's runs document by document and compares every pair of setups with verdicts held to a
false discovery rate over the study; its page is the Accuracy study page (`view.py`, `templates/`).
"""
from __future__ import annotations

from pathlib import Path

from site_gen.receipts.rules import require, unique_ids
from site_gen.sections.base import Section


def check(part: dict, file: Path, checkpoint_ref) -> None:
    setups = part["setups"]
    ids = [s["id"] for s in setups]
    unique_ids(ids, "setup", "$.accuracy_study.setups", file)
    labels = [s["label"] for s in setups]
    for i, label in enumerate(labels):
        require(label not in labels[:i], f"two setups are labelled '{label}': the pages name a setup by its label",
                file, f"$.accuracy_study.setups[{i}].label")
    if "baseline" in part:
        require(part["baseline"] in ids, f"unknown baseline setup '{part['baseline']}'; setups: {', '.join(ids)}",
                file, "$.accuracy_study.baseline")
    runs = {s["id"]: len(s["runs"]) for s in setups}
    for ti, task in enumerate(part["tasks"]):
        docs = task.get("documents")
        for mi, m in enumerate(task["metrics"]):
            where = f"$.accuracy_study.tasks[{ti}].metrics[{mi}]"
            seen: set[tuple[str, int]] = set()
            for k, r in enumerate(m["runs"]):
                at = f"{where}.runs[{k}]"
                require(r["setup"] in runs, f"unknown setup '{r['setup']}'", file, at + ".setup")
                require(r["run"] < runs[r["setup"]], f"setup '{r['setup']}' has {runs[r['setup']]} runs; no run {r['run']}",
                        file, at + ".run")
                require((r["setup"], r["run"]) not in seen, f"run {r['run']} of setup '{r['setup']}' again", file, at)
                seen.add((r["setup"], r["run"]))
                scores = r.get("scores")
                if m["kind"] != "stated":
                    require(scores is not None and docs is not None and len(scores) == len(docs),
                            f"a {m['kind']} metric needs every run's scores, one a document of the task "
                            f"({len(docs or [])})", file, at + ".scores")
                    if m["kind"] == "mean":
                        require(all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in scores or []),
                                "a mean metric's scores are numbers", file, at + ".scores")
                    else:
                        require(all(isinstance(x, list) for x in scores or []),
                                "a corpus metric's scores are (gold, prediction) pairs", file, at + ".scores")
            require(len({r["setup"] for r in m["runs"]}) >= 2, "a metric of a study needs two setups or more", file,
                    where + ".runs")


def check_receipt(data: dict, file: Path) -> None:
    sources = {s["id"] for s in (data.get("provenance") or {}).get("sources", [])}
    for i, setup in enumerate(data["accuracy_study"]["setups"]):
        for j, run in enumerate(setup["runs"]):
            require(run["source"] in sources, f"source '{run['source']}' is not in $.provenance.sources", file,
                    f"$.accuracy_study.setups[{i}].runs[{j}].source")


SECTION = Section(key="accuracy-study", title="Accuracy study", package=__name__, name="accuracy_study", check=check,
                  check_receipt=check_receipt, records="setups", provenance=True, legend=False, order=42)
