"""Schema 1.1: published beside version 1 and derived from it; `schema_version` chooses; a 1.1
receipt that leaves out what version 1 required builds, and its pages say "not measured"; the
new result kinds (accuracy, measures, gates) and provenance reach the pages."""
from __future__ import annotations

import copy
import json
import re

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from site_gen.building.builder import build_files
from site_gen.building.starter import receipt
from site_gen.core.config import load_config
from site_gen.core.diagnostics import refuse
from site_gen.core.errors import SitegenError
from site_gen.receipts.load import load_report, schema
from site_gen.schema import derive

SHA = "ab" * 32


def test_the_published_schema_is_what_the_derivation_gives():
    assert (derive.V1_1.read_text(encoding="utf-8")) == derive.text()
    assert schema(1.1)["properties"]["schema_version"] == {"const": 1.1}
    assert schema()["properties"]["schema_version"] == {"const": 1}


def v11() -> dict:
    """The `sitegen new` receipt as schema 1.1, without every field version 1 required and 1.1 does not."""
    doc = copy.deepcopy(receipt())
    doc["schema_version"] = 1.1
    for cell in doc["speed"]["cells"]:
        del cell["input_tokens"]
        for role in ("baseline", "candidate"):
            del cell[role]["errors"]
        cell["candidate"]["acceptance"] = {"rate": 0.61, "mean_length": 2.8}
    # What stays unique once input_tokens is gone.
    doc["speed"]["cells"] = [c for c in doc["speed"]["cells"] if c["workload"] != "long-context"]
    for t in doc["speed"].get("ttft", []):
        t.pop("input_tokens", None)
    for s in doc["memory"].get("startup", []):
        del s["cold_s"], s["warm_s"]
        s["ready_s"] = 41.0
    doc["report"]["engines"]["baseline"]["image"] = "ghcr.io/example/old-engine:2.3"
    doc["report"]["checkpoints"][0]["label"] = "4-bit"
    doc["report"]["attribution"] = "Data from Example <b>Lab</b>, CC BY 4.0"
    doc["report"]["differs"] = [{"field": "engine.patches", "baseline": "", "candidate": "tail fix"}]
    doc["precision"]["measures"][0]["vocabulary"] = "top-32 plus tail"
    doc["accuracy"] = {"method": {"name": "paired bootstrap over questions", "resamples": 2000, "seed": 0, "level": 0.95},
                       "results": [{"checkpoint": "Q4", "measure": "acc", "label": "Accuracy", "unit": "proportion",
                                    "better": "higher", "items": 198, "baseline": {"value": 0.8586}, "candidate": {"value": 0.8687},
                                    "difference": 0.0101, "interval": [-0.0303, 0.0504]}]}
    doc["measures"] = {"results": [{"checkpoint": "Q4", "group": "one layout", "measure": "ready", "label": "Readiness",
                                    "unit": "s", "better": "lower", "baseline": {"median": 41.0, "low": 41.0, "high": 50.0,
                                                                                 "samples": [50.0, 41.0, 41.0]},
                                    "candidate": {"median": 43.0, "low": 39.0, "high": 59.0, "samples": [59.0, 43.0, 39.0]}}]}
    doc["gates"] = {"results": [{"checkpoint": "Q4", "gate": "kl", "label": "KL", "engine": "candidate", "value": 0.042,
                                 "threshold": 0.15, "passes_when": "at_most", "passed": True}]}
    doc["provenance"] = {"sources": [{"id": "s1", "file": "runs/x/results.jsonl", "sha256": SHA}],
                         "figures": [{"path": "$.accuracy.results[0]", "source": "s1", "at": "lines 1-198"}]}
    return doc


def project(tmp_path, doc):
    (tmp_path / "data" / "r").mkdir(parents=True)
    (tmp_path / "data" / "r" / "SUMMARY.json").write_text(json.dumps(doc))
    (tmp_path / "mkdocs.yml").write_text("site_name: T\nplugins:\n  - sitegen:\n      data_dir: data\n")
    return load_config(tmp_path / "mkdocs.yml")


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    result = build_files(project(tmp_path_factory.mktemp("v11"), v11()))
    return {k: v.decode() for k, v in result.files.items() if k.endswith(".html")}


def test_a_1_1_receipt_without_what_1_required_says_not_measured(pages):
    speed = pages["reports/r/speed.html"]
    assert "Error counts were not measured." in speed
    assert 'data-label="Input">not measured</td>' in speed  # input tokens
    assert "Acceptance" in speed and re.search(r'not measured / <span class="fig" title="SUMMARY.json [^"]*acceptance.rate">0.61</span>', speed)
    assert "ready in 41 s" in pages["reports/r/memory.html"]


def test_new_result_kinds_and_provenance_reach_the_pages(pages):
    acc = pages["reports/r/accuracy.html"]
    assert "+1.0 pts" in acc and "[−3.0, +5.0]" in acc and ">not resolved<" in acc
    assert "paired bootstrap over questions, 2,000 resamples (seed 0)" in acc
    assert "from runs/x/results.jsonl (SHA-256 " + SHA + "), lines 1-198" in acc
    numbers = pages["reports/r/numbers.html"]
    assert 'id="sources-table"' in numbers and SHA in numbers and "lines 1-198" in numbers
    assert "+4.9%" in pages["reports/r/measures.html"] and "ranges overlap" in pages["reports/r/measures.html"]
    assert "The one gate passed." in pages["reports/r/gates.html"]
    for page in ("index", "speed", "accuracy", "numbers"):
        assert "Data from Example &lt;b&gt;Lab&lt;/b&gt;, CC BY 4.0" in pages[f"reports/r/{page}.html"]
    assert "<code>engine.patches</code>" in pages["reports/r/index.html"]


@pytest.mark.parametrize("edit, where, message", [
    (lambda d: d.update(schema_version=1.99), "$.schema_version", "unknown schema_version 1.99"),
    (lambda d: d.update(schema_version="1.1"), "$.schema_version", 'the text "1.1"; write it as a number, 1.1 (versions: 1, 1.1'),
    (lambda d: d.update(schema_version="1.10"), "$.schema_version", 'unknown schema_version "1.10"'),
    (lambda d: d["gates"]["results"][0].update(passed=False), "$.gates.results[0].passed", "is at most 0.15"),
    (lambda d: d["provenance"]["figures"][0].update(path="$.accuracy.results[4]"), "$.provenance.figures[0].path", "names nothing"),
    (lambda d: d["provenance"]["figures"][0].update(source="s2"), "$.provenance.figures[0].source", "unknown source 's2'"),
    (lambda d: d["provenance"]["sources"][0].update(url="javascript:alert(1)"), "$.provenance.sources[0].url", "expected form"),
    (lambda d: d["accuracy"]["results"][0].pop("interval"), "$.accuracy.results[0]", "needs its interval"),
])
def test_1_1_bad_input_is_refused_with_its_place(tmp_path, edit, where, message):
    doc = v11()
    edit(doc)
    config = project(tmp_path, doc)
    with pytest.raises(SitegenError) as err:
        load_report(config.data_dir / "r", config.data_dir)
    assert err.value.where == where and message in err.value.message


def test_version_1_still_refuses_what_1_1_allows(tmp_path):
    doc = receipt()
    del doc["speed"]["cells"][0]["baseline"]["errors"]
    config = project(tmp_path, doc)
    with pytest.raises(SitegenError) as err:
        refuse(load_report(config.data_dir / "r", config.data_dir).warnings)
    assert (err.value.where, err.value.message) == ("$.speed.cells[0].baseline", "missing required field 'errors'")


def test_startup_needs_cold_and_warm_or_readiness(tmp_path):
    doc = v11()
    del doc["memory"]["startup"][0]["ready_s"]
    config = project(tmp_path, doc)
    with pytest.raises(SitegenError) as err:
        load_report(config.data_dir / "r", config.data_dir)
    assert (err.value.where, err.value.message) == ("$.memory.startup[0]", "needs 'cold_s' and 'warm_s', or 'ready_s'")


OPTIONAL = {  # what a 1.1 receipt may leave out, each a path to delete
    "baseline acceptance": ("speed", "cells", 0, "candidate", "acceptance"),
    "measure range": ("measures", "results", 0, "baseline", "low"),
    "measure samples": ("measures", "results", 0, "candidate", "samples"),
    "paired difference": ("accuracy", "results", 0, "difference"),
    "startup": ("memory", "startup"),
    "ttft": ("speed", "ttft"),
    "attribution": ("report", "attribution"),
    "provenance": ("provenance",),
    "gates": ("gates",),
}


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sets(st.sampled_from(sorted(OPTIONAL)), min_size=3, max_size=6))
def test_every_page_builds_without_any_optional_part(tmp_path_factory, left_out):
    doc = v11()
    for name in left_out:
        *parents, last = OPTIONAL[name]
        node = doc
        for key in parents:
            node = node[key]
        node.pop(last, None) if isinstance(node, dict) else None
        if name == "paired difference":
            doc["accuracy"]["results"][0].pop("interval")
        if name == "measure range":
            doc["measures"]["results"][0]["baseline"].pop("high")
    result = build_files(project(tmp_path_factory.mktemp("opt"), doc))
    assert result.pages > 5
    html = "".join(v.decode() for k, v in result.files.items() if k.endswith(".html"))
    shown = re.sub(r"<script.*?</script>", "", html, flags=re.S)
    assert "None" not in shown and ">nan" not in shown.lower()
