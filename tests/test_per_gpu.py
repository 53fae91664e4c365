"""A pair's GPU counts (issue 56, item 3): `--set-baseline gpus=N` / `--set-candidate gpus=N` (or tensor
x pipeline parallel from the side's parallelism) kept in the receipt (schema 1.4, `serving.sides.<role>.gpus`);
the meaning checks refuse a count that contradicts tensor x pipeline parallel; the pair's Load page
draws latency against output tokens/s per GPU when every side's count is known (and its table holds
the per-GPU column), the total otherwise; the study's latency charts the same, by the same code.
Figures are checked with numpy over the receipts' rows, read from the built pages."""
from __future__ import annotations

import copy
import json
import math
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

import htmlutil
from conftest import ROOT, import_here, strictly
from site_gen.building.builder import build_files
from site_gen.core.config import load_config
from site_gen.core.errors import SitegenError
from site_gen.receipts.load import validate_meaning, validate_schema

REAL2 = Path(os.environ.get("SITEGEN_REAL2_DIR", ROOT.parent / "shared" / "real2"))
VLLM = REAL2 / "vllm-bench/llm-k8s/results_serving_meta-llama-Llama-3.3-70B-Instruct"
PAIR = "vllm-tp8-against-tp4pp2-ib"
STUDY = "vllm-llm-k8s-study"
LOADS = {1: "1 req/s", 4: "4 req/s", 16: "16 req/s", "inf": "all at once"}


def receipt(rid: str) -> dict:
    return json.loads((ROOT / "data" / rid / "SUMMARY.json").read_text())


def tokens_per_s(rep: dict) -> float:
    return float(np.sum(np.array(rep["requests"]["output_tokens"], dtype=float)) / rep["duration_s"])


def files(folder: str, *qps: str) -> list[str]:
    if not VLLM.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"{REAL2} is missing: CI places shared/ beside the checkout")
        pytest.skip(f"{REAL2} not found (set SITEGEN_REAL2_DIR to shared/real2)")
    return [str(p) for q in qps for p in sorted((VLLM / folder).glob(f"*_qps_{q}.json"))]


def pair_import(root: Path, *extra: str) -> tuple[int, str, dict | None]:
    out = root / "data" / "pair"
    r = import_here("import", "vllm-bench", "--baseline", *files("01_tp8_pp1", "01", "04"), "--candidate",
                    *files("03_tp4_pp2_IB", "01", "04"), "--allow", "hardware", *extra, "-o", str(out), "-q")
    doc = json.loads((out / "SUMMARY.json").read_text()) if r.returncode == 0 else None
    return r.returncode, r.stderr, doc


# -- the receipt ------------------------------------------------------------------------------------

def test_each_sides_gpu_count_is_stated_on_import_and_kept_in_the_receipt(tmp_path):
    code, err, doc = pair_import(tmp_path, "--set-baseline", "gpus=8", "--set-candidate", "gpus=8")
    assert code == 0, err
    assert doc["schema_version"] == 1.4
    assert {r: s["gpus"] for r, s in doc["serving"]["sides"].items()} == {
        "baseline": {"value": 8, "origin": "--set-baseline gpus"}, "candidate": {"value": 8, "origin": "--set-candidate gpus"}}
    assert all("gpus" not in s["environment"] for s in doc["serving"]["sides"].values())  # not an environment fact
    # Without a count the receipt is as it was: schema 1.2, no gpus.
    code, err, plain = pair_import(tmp_path / "plain")
    assert code == 0, err
    assert plain["schema_version"] == 1.2 and all("gpus" not in s for s in plain["serving"]["sides"].values())


def test_a_gpu_count_follows_the_stated_parallelism_and_a_contradicting_one_is_refused(tmp_path):
    tp8 = "parallelism=tensor parallel 8 × pipeline parallel 1"
    code, err, doc = pair_import(tmp_path / "a", "--set-baseline", tp8, "--set-candidate", "gpus=8")
    assert code == 0, err
    assert doc["serving"]["sides"]["baseline"]["gpus"] == {"value": 8, "origin": "--set-baseline (tensor × pipeline parallel)"}
    # Data parallel multiplies tensor x pipeline parallel: 16 GPUs of tp8 is two replicas; 12 is none.
    code, err, doc = pair_import(tmp_path / "b", "--set-baseline", tp8, "--set-baseline", "gpus=16")
    assert code == 0, err
    assert doc["serving"]["sides"]["baseline"]["gpus"]["value"] == 16 and "gpus" not in doc["serving"]["sides"]["candidate"]
    code, err, _ = pair_import(tmp_path / "c", "--set-baseline", tp8, "--set-baseline", "gpus=12")
    assert code == 1 and "--set-baseline gpus=12: 12 GPUs, but its parallelism is tensor parallel 8 × pipeline parallel 1" in err, err
    for bad in ("gpus=0", "gpus=eight", "gpus=-1"):
        code, err, _ = pair_import(tmp_path / "d", "--set-candidate", bad)
        assert code == 1 and "gpus is a whole number from 1" in err, (bad, err)
    assert not (tmp_path / "c" / "data" / "pair").exists() and not (tmp_path / "d" / "data" / "pair").exists()


def test_the_meaning_checks_refuse_a_gpu_count_that_contradicts_tensor_times_pipeline_parallel():
    doc = receipt(PAIR)
    assert validate_schema(doc, Path("SUMMARY.json")) == []
    validate_meaning(doc, Path("SUMMARY.json"))
    side = doc["serving"]["sides"]["candidate"]
    side["environment"]["parallelism"] = {"value": "tensor parallel 4 × pipeline parallel 2", "origin": "stated"}
    validate_meaning(doc, Path("SUMMARY.json"))  # 8 = 4 x 2
    bad = copy.deepcopy(doc)
    bad["serving"]["sides"]["candidate"]["gpus"]["value"] = 6
    with pytest.raises(SitegenError) as e:
        validate_meaning(bad, Path("SUMMARY.json"))
    assert "6 GPUs, but its parallelism is tensor parallel 4 × pipeline parallel 2" in str(e.value)
    assert "$.serving.sides.candidate.gpus.value" in str(e.value)
    # A study's setup by the same rule.
    study = receipt(STUDY)
    study["study"]["setups"][0]["gpus"]["value"] = 3
    with pytest.raises(SitegenError, match="3 GPUs, but its parallelism is tensor parallel 8"):
        validate_meaning(study, Path("SUMMARY.json"))
    # A GPU count is schema 1.4's: a receipt of 1.2 carrying one is refused by its schema.
    assert validate_schema({**doc, "schema_version": 1.2}, Path("SUMMARY.json"))


# -- the pages --------------------------------------------------------------------------------------

ROW = re.compile(r'<tr><th scope="row">([^<]*)<span class="vh">, ([^<]*)</span>.*?data-label="Output tokens/s per GPU">'
                 r'<span class="fig" title="([^"]*)">([^<]*)</span>')
MARK_TITLE = re.compile(r'<(?:rect|circle|path) [^>]*><title>([^<]*)</title>')


def test_the_pairs_load_table_holds_output_tokens_per_gpu_from_the_rows(example_site):
    """The Load page's table beside its charts: output tokens/s per GPU per side and load, numpy's
    sum of output tokens over the duration over the side's GPUs; the page says the counts."""
    doc = receipt(PAIR)
    names = {r: doc["report"]["engines"][r]["name"] for r in ("baseline", "candidate")}
    html = (example_site / "reports" / PAIR / "load.html").read_text()
    assert '<th scope="col" class="num" style="white-space: normal">Output tokens/s per GPU</th>' in html
    assert "Latency against the throughput each load delivered per GPU (8 GPUs each)" in html
    found = {(load, side): (title, text) for load, side, title, text in ROW.findall(html)}
    want = {}
    for role, side in doc["serving"]["sides"].items():
        for lp in side["load_points"]:
            want[LOADS[lp["load"]["request_rate"]], names[role]] = (tokens_per_s(lp["repeats"][0]) / side["gpus"]["value"], role)
    assert len(want) == 8 and set(found) == set(want)
    for key, (value, role) in want.items():
        title, text = found[key]
        assert text == f"{value:,.1f}", (key, text, value)
        assert f"/ 8 GPUs ($.serving.sides.{role}.gpus.value)" in title


def test_the_studys_latency_charts_read_per_gpu_as_the_pairs(example_site):
    """The Frontier page's latency-against-throughput charts: each mark at the setup's output tokens/s
    (geometric mean over its runs, numpy) over its GPUs, and the axis says per GPU."""
    doc = receipt(STUDY)
    html = (example_site / "reports" / STUDY / "frontier.html").read_text()
    want = {}
    for s in doc["study"]["setups"]:
        for lp in s["load_points"]:
            runs = np.array([tokens_per_s(r) for r in lp["repeats"]])
            want[s["label"], LOADS[lp["load"]["request_rate"]]] = float(np.exp(np.log(runs).mean())) / s["gpus"]["value"]
    svg = re.search(r'aria-label="TTFT p99 against throughput.*?</svg>', html, re.S)[0]
    assert '>output tokens/s per GPU</text>' in svg
    titles = MARK_TITLE.findall(svg)
    assert len(titles) == len(want)
    for t in titles:
        label = max((lb for lb, _ in want if t.startswith(lb + ", ")), key=len)
        load = t[len(label) + 2:].split(":")[0]
        assert f": {want[label, load]:,.1f} output tokens/s per GPU, TTFT p99 " in t, t


def test_without_every_sides_gpu_count_the_load_page_reads_total_throughput(tmp_path):
    """One side's count is not both: the charts and the table stay in output tokens/s, as before."""
    code, err, doc = pair_import(tmp_path, "--set-baseline", "gpus=8")
    assert code == 0, err
    out = strictly(build_files(load_config(tmp_path / "mkdocs.yml"))).files
    html = out["reports/pair/load.html"].decode()
    assert "per GPU" not in html
    titles = MARK_TITLE.findall(re.search(r'id="curve-sweep-sharegpt-rate-ttft-p99">.*?</svg>', html, re.S)[0])
    rep = doc["serving"]["sides"]["baseline"]["load_points"][0]["repeats"][0]
    assert any(f": {tokens_per_s(rep):,.1f} output tokens/s, TTFT p99 " in t for t in titles), titles
    assert not math.isnan(tokens_per_s(rep))


def test_a_sides_gpu_count_follows_the_server_command_of_vllms_commands_sidecar(tmp_path):
    """vLLM's `.commands` sidecar with a server command: its tensor and pipeline parallel sizes give
    the side's GPUs (4 x 2 = 8) with the place they were read; a stated count they contradict is refused."""
    [src] = files("01_tp8_pp1", "01")
    runs = tmp_path / "runs"
    runs.mkdir()
    shutil.copy(src, runs / "r.json")
    side = json.loads(Path(src).with_suffix(".commands").read_text())
    side["server_command"] = "vllm serve meta-llama/Llama-3.3-70B-Instruct --tensor-parallel-size 4 --pipeline-parallel-size 2"
    (runs / "r.commands").write_text(json.dumps(side))
    out = tmp_path / "data" / "one"
    r = import_here("import", "vllm-bench", "--candidate", str(runs / "r.json"), "-o", str(out), "-q")
    assert r.returncode == 0, r.stderr
    doc = json.loads((out / "SUMMARY.json").read_text())
    cand = doc["serving"]["sides"]["candidate"]
    assert cand["environment"]["parallelism"]["value"] == "tensor parallel 4 × pipeline parallel 2"
    assert cand["gpus"] == {"value": 4 * 2, "origin": "r.commands $.server_command (tensor × pipeline parallel)"}
    assert doc["schema_version"] == 1.4
    r = import_here("import", "vllm-bench", "--candidate", str(runs / "r.json"), "--set-candidate", "gpus=6",
                    "-o", str(tmp_path / "data" / "two"), "-q")
    assert r.returncode == 1 and "6 GPUs, but its parallelism is tensor parallel 4 × pipeline parallel 2" in r.stderr, r.stderr
    assert "r.commands $.server_command" in r.stderr


def test_the_overviews_throughput_line_adds_per_gpu(example_site):
    """The overview's line on the heaviest load: each side's output tokens/s there over its GPUs."""
    doc = receipt(PAIR)
    names = {r: doc["report"]["engines"][r]["name"] for r in ("baseline", "candidate")}
    per = {}
    for role, side in doc["serving"]["sides"].items():
        lp = next(lp for lp in side["load_points"] if lp["load"]["request_rate"] == "inf")
        per[role] = tokens_per_s(lp["repeats"][0]) / side["gpus"]["value"]
    text = htmlutil.text(htmlutil.parse(example_site / "reports" / PAIR / "index.html"))
    assert (f"Per GPU (8 GPUs each): {per['candidate']:,.1f} against {names['baseline']}'s {per['baseline']:,.1f} "
            "output tokens/s.") in " ".join(text.split()), text[:2000]
