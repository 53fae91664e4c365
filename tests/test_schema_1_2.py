"""Schema 1.2: derived from 1.1 and published beside it; older receipts stay valid; the serving
part's meaning checks (columns of equal length, no NaN or negative latency, failed requests without
latencies, load points consistent, matched load points that exist and agree) refuse with the place."""
from __future__ import annotations

import json

import pytest

from conftest import ROOT
from site_gen.core.diagnostics import refuse
from site_gen.core.errors import SitegenError
from site_gen.receipts.load import load_report, schema
from site_gen.schema import derive

AA = ROOT / "data" / "vllm-tp4pp2-ib-aa"
SWEEP = ROOT / "data" / "sglang-llama-3.3-70b-sweep"


def test_the_published_1_2_schema_is_its_derivation():
    assert derive.V1_2.read_text(encoding="utf-8") == derive.text_1_2()
    assert schema(1.2)["properties"]["schema_version"] == {"const": 1.2}
    assert "serving" not in schema(1.1)["properties"] and "serving" not in schema(1)["properties"]
    units = json.dumps(schema(1.2)["properties"]["serving"])
    assert "ms" in units and "duration_s" in units


def test_older_receipts_stay_valid(tmp_path):
    for folder in ("cuteafd-v4.0.0", "ledger-gpqa-k4-v080-v090", "cuteafd-fp8-recheck-study"):
        refuse(load_report(ROOT / "data" / folder, ROOT / "data").warnings)


def receipt_with(tmp_path, edit, source=AA) -> None:
    doc = json.loads((source / "SUMMARY.json").read_text())
    edit(doc)
    folder = tmp_path / "data" / "r"
    folder.mkdir(parents=True)
    (folder / "SUMMARY.json").write_text(json.dumps(doc))
    refuse(load_report(folder, tmp_path / "data").warnings)


REP = "$.serving.sides.candidate.load_points[0].repeats[0]"


def rep(d):
    return d["serving"]["sides"]["candidate"]["load_points"][0]["repeats"][0]


@pytest.mark.parametrize("edit, where, message", [
    (lambda d: rep(d)["requests"]["ttft_ms"].pop(), f"{REP}.requests", "differ in length"),
    (lambda d: rep(d)["requests"]["e2e_ms"].__setitem__(3, -1.0), f"{REP}.requests.e2e_ms[3]", "at least 0"),
    (lambda d: rep(d)["requests"]["ttft_ms"].__setitem__(3, 1e9), f"{REP}.requests.ttft_ms[3]", "above its end-to-end"),
    (lambda d: rep(d)["requests"]["error"].__setitem__(2, True), f"{REP}.requests.error", "rows are errors"),
    (lambda d: rep(d).update(completed=rep(d)["completed"] + 1), f"{REP}.requests", "completed + failed"),
    (lambda d: d["serving"]["matched"][0].update(candidate="rate-7"), "$.serving.matched[0].candidate", "unknown candidate load point"),
    (lambda d: d["serving"]["matched"][1].update(candidate="rate-16"), "$.serving.matched[1]", "differ in workload or load"),
    (lambda d: d["serving"]["sides"]["candidate"]["load_points"][1].update(
        load={"request_rate": 1}), "$.serving.sides.candidate.load_points[1]", "repeats of it"),
    (lambda d: d["report"]["engines"].pop("baseline"), "$.serving.sides.baseline", "holds a baseline measurement"),
    (lambda d: rep(d).update(source="s99"), f"{REP}.source", "not in $.provenance.sources"),
    (lambda d: d.update(schema_version=1.1), "$", "unknown field 'serving'"),
])
def test_serving_meaning_checks_refuse_with_the_place(tmp_path, edit, where, message):
    with pytest.raises(SitegenError) as err:
        receipt_with(tmp_path, edit)
    assert err.value.where.startswith(where) and message in err.value.message, (err.value.where, err.value.message)


def test_a_one_setup_receipt_holds_no_baseline_measurement(tmp_path):
    def add_accuracy(d):
        d["accuracy"] = {"method": {"name": "m", "resamples": 1, "seed": 0, "level": 0.95},
                         "results": [{"checkpoint": d["report"]["checkpoints"][0]["id"], "measure": "a", "label": "A",
                                      "unit": "proportion", "better": "higher", "items": 3, "baseline": {"value": 0.5},
                                      "candidate": {"value": 0.6}}]}
    with pytest.raises(SitegenError, match="names no baseline engine"):
        receipt_with(tmp_path, add_accuracy, SWEEP)
