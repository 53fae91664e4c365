"""Schema 1.4: derived from 1.3 and published beside it; every older receipt stays valid and builds as
before; the study part's meaning checks refuse with the place."""
from __future__ import annotations

import copy
import json

import pytest

import study_receipts
from conftest import ROOT
from site_gen.core.diagnostics import refuse
from site_gen.core.errors import SitegenError
from site_gen.receipts.load import load_report, schema
from site_gen.schema import derive


def test_the_published_1_4_schema_is_its_derivation():
    assert derive.V1_4.read_text(encoding="utf-8") == derive.text_1_4()
    assert schema(1.4)["properties"]["schema_version"] == {"const": 1.4}
    assert "study" not in schema(1.3)["properties"] and "study" in schema(1.4)["properties"]
    # 1.4 is 1.3 with the study parts (serving, accuracy) and a pair's optional GPU counts, nothing else.
    newer = {k: v for k, v in copy.deepcopy(schema(1.4)).items() if k not in ("$id", "title")}
    older = {k: v for k, v in schema(1.3).items() if k not in ("$id", "title")}
    newer["properties"].pop("study")
    newer["properties"].pop("accuracy_study")
    for role in ("baseline", "candidate"):
        side = newer["properties"]["serving"]["properties"]["sides"]["properties"][role]
        assert side["properties"].pop("gpus")["properties"]["value"]["minimum"] == 1 and "gpus" not in side["required"]
    newer["properties"]["schema_version"] = older["properties"]["schema_version"]
    assert newer == older


def test_every_receipt_of_the_example_loads():
    for folder in sorted((ROOT / "data").iterdir()):
        if (folder / "SUMMARY.json").exists():
            refuse(load_report(folder, ROOT / "data").warnings)


def test_a_study_part_in_a_1_3_receipt_is_dropped_with_a_warning(tmp_path):
    doc = study_receipts.drawn(points=1, runs=1, n=30)
    doc["schema_version"] = 1.3
    folder = study_receipts.write(tmp_path / "data" / "r", doc)
    with pytest.raises(SitegenError, match="study"):
        refuse(load_report(folder, tmp_path / "data").warnings)


def _load(tmp_path, doc):
    folder = study_receipts.write(tmp_path / "data" / "r", doc)
    refuse(load_report(folder, tmp_path / "data").warnings)


def test_a_drawn_study_is_valid(tmp_path):
    _load(tmp_path, study_receipts.drawn(points=2, runs=[1, 2, 3], n=30))


SETUP0 = "$.study.setups[0]"


@pytest.mark.parametrize("edit, where, message", [
    (lambda d: d["study"]["setups"][1].update(id="a"), "$.study.setups[1].id", "duplicate setup id"),
    (lambda d: d["study"]["setups"][1].update(id="A"), "$.study.setups[1].id", "differ only in case"),
    (lambda d: d["study"]["setups"][1].update(label="setup a"), "$.study.setups[1].label", "two setups are labelled"),
    (lambda d: d["study"].update(baseline="z"), "$.study.baseline", "unknown baseline setup"),
    (lambda d: (d["study"].update(baseline="a"), None), "$.report.engines", "agree on whether there is a baseline"),
    (lambda d: d["study"]["setups"][0]["load_points"][1].update(load={"request_rate": 1}),
     f"{SETUP0}.load_points[1]", "repeats of it"),
    (lambda d: d["study"]["setups"][0]["load_points"][0]["repeats"][0]["requests"]["ttft_ms"].pop(),
     f"{SETUP0}.load_points[0].repeats[0].requests", "differ in length"),
    (lambda d: d["study"]["setups"][0]["load_points"][0]["repeats"][0].update(source="s99"),
     f"{SETUP0}.load_points[0].repeats[0].source", "not in $.provenance.sources"),
    (lambda d: d["study"].update(setups=d["study"]["setups"][:1]), "$.study.setups", "2"),
    (lambda d: d["study"]["setups"][0].update(gpus={"value": 0, "origin": "x"}), f"{SETUP0}.gpus.value", "1"),
])
def test_study_meaning_checks_refuse_at_the_place(tmp_path, edit, where, message):
    doc = study_receipts.drawn(points=2, runs=[1, 2, 1], n=30)
    edit(doc)
    with pytest.raises(SitegenError) as exc:
        _load(tmp_path, doc)
    assert exc.value.where == where and message in exc.value.message, (exc.value.where, exc.value.message)


def test_the_study_receipt_of_the_example_is_schema_1_4():
    doc = json.loads((ROOT / "data/vllm-llm-k8s-study/SUMMARY.json").read_text())
    assert doc["schema_version"] == 1.4 and [s["id"] for s in doc["study"]["setups"]] == ["tp8", "tp4pp2-no-ib", "tp4pp2-ib"]
