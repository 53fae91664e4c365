"""Bad input and the trust rules of `sitegen import vllm-bench`, `guidellm` and `lm-eval`: each
refusal is one `Error: FILE: …` line, exit 1, and nothing is written."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT, import_here, one_error_line
from test_import_serving import LMEVAL, need_real2

GUIDELLM = ROOT / "tests/fixtures/guidellm"
B_STAMP, C_STAMP = "2024-06-17T15-44-37.867068", "2024-06-17T12-20-26.826621"


def vllm_record(seed: int, rate, n: int = 40, inputs: list[int] | None = None) -> dict:
    """A vLLM result of the older key set (the llm-k8s files'), its figures computed here with numpy."""
    rng = np.random.default_rng(seed)
    ttft = rng.uniform(0.03, 0.2, n)
    itls = [list(rng.uniform(0.01, 0.05, int(k))) for k in rng.integers(1, 30, n)]
    out = np.array([len(x) + 1 for x in itls])
    inputs = inputs or [int(x) for x in np.random.default_rng(99).integers(10, 400, n)]
    lat = ttft + np.array([sum(x) for x in itls])
    tpot = (lat - ttft) / (out - 1)
    gaps = np.concatenate([np.array(x) for x in itls])
    duration = float(lat.max() + 2.0)
    rec = {"date": "20260105-101010", "backend": "vllm", "model_id": "org/model", "tokenizer_id": "org/model",
           "num_prompts": n, "request_rate": rate, "burstiness": 1.0, "max_concurrency": None, "duration": duration,
           "completed": n, "total_input_tokens": int(sum(inputs)), "total_output_tokens": int(out.sum()),
           "request_throughput": n / duration, "request_goodput:": None, "output_throughput": float(out.sum()) / duration,
           "total_token_throughput": float(sum(inputs) + out.sum()) / duration,
           "input_lens": inputs, "output_lens": out.tolist(), "ttfts": ttft.tolist(), "itls": itls,
           "generated_texts": ["t"] * n, "errors": [""] * n}
    for name, x in (("ttft", ttft), ("tpot", tpot), ("itl", gaps)):
        rec[f"mean_{name}_ms"] = float(x.mean()) * 1000
        rec[f"median_{name}_ms"] = float(np.median(x)) * 1000
        rec[f"std_{name}_ms"] = float(x.std()) * 1000
        rec[f"p99_{name}_ms"] = float(np.percentile(x, 99)) * 1000
    return rec


@pytest.fixture
def runs(tmp_path) -> dict[str, list[Path]]:
    out = {}
    for side, seed in (("base", 1), ("cand", 2)):
        (tmp_path / side).mkdir()
        out[side] = []
        for rate in (1.0, "inf"):
            f = tmp_path / side / f"run_qps_{rate}.json"
            f.write_text(json.dumps(vllm_record(seed + (0 if rate == 1.0 else 10), rate)))
            out[side].append(f)
    return out


def vllm(tmp_path: Path, base: list[Path] | None, cand: list[Path], *extra: str, out: str = "r"):
    args = ["import", "vllm-bench"]
    if base:
        args += ["--baseline", *map(str, base)]
    return import_here(*args, "--candidate", *map(str, cand), "-o", str(tmp_path / "data" / out), *extra, "-q")


def refused(r, tmp_path: Path, *needles: str, out: str = "r") -> str:
    line = one_error_line(r.returncode, r.stderr, *needles)
    assert not (tmp_path / "data" / out).exists(), "a refused import wrote its report folder"
    return line


def edit(path: Path, change) -> None:
    d = json.loads(path.read_text())
    change(d)
    path.write_text(json.dumps(d))


def test_the_synthetic_runs_import(runs, tmp_path):
    r = vllm(tmp_path, runs["base"], runs["cand"])
    assert r.returncode == 0, r.stderr
    doc = json.loads((tmp_path / "data/r/SUMMARY.json").read_text())
    assert [m["paired"] for m in doc["serving"]["matched"]] == [True, True]


def test_a_truncated_file_is_refused(runs, tmp_path):
    f = runs["cand"][0]
    f.write_text(f.read_text()[:-200])
    refused(vllm(tmp_path, runs["base"], runs["cand"]), tmp_path, f"{f.name}: line 1", "truncated")


def test_arrays_of_unequal_length_are_refused(runs, tmp_path):
    edit(runs["cand"][1], lambda d: d["itls"].pop())
    refused(vllm(tmp_path, runs["base"], runs["cand"]), tmp_path, "$.itls", "arrays of unequal length")


def test_nan_and_negative_latencies_are_refused_at_their_entry(runs, tmp_path):
    f = runs["cand"][0]
    d = json.loads(f.read_text())
    d["ttfts"][3] = -0.5
    f.write_text(json.dumps(d))
    refused(vllm(tmp_path, runs["base"], runs["cand"]), tmp_path, f"{f.name}: $.ttfts[3]", "negative")
    d["ttfts"][3] = 0.1
    d["itls"][5][2] = float("nan")
    f.write_text(json.dumps(d))  # json.dumps writes NaN, which JSON does not allow
    refused(vllm(tmp_path, runs["base"], runs["cand"]), tmp_path, f.name, "NaN")


def test_a_summary_its_rows_contradict_is_refused_at_the_key(runs, tmp_path):
    edit(runs["cand"][0], lambda d: d.update(p99_tpot_ms=d["p99_tpot_ms"] * 1.01))
    refused(vllm(tmp_path, runs["base"], runs["cand"]), tmp_path, "$.p99_tpot_ms", "says", "per-request arrays give")


def test_an_unknown_key_set_is_refused(runs, tmp_path):
    runs["cand"][0].write_text(json.dumps({"throughput": 3.0, "latency": [1, 2]}))
    refused(vllm(tmp_path, runs["base"], runs["cand"]), tmp_path, runs["cand"][0].name, "unknown key set")


def test_a_missing_load_point_needs_allow_and_the_report_says_so(runs, tmp_path):
    refused(vllm(tmp_path, runs["base"], runs["cand"][:1]), tmp_path, "load point is missing on one side",
            "--allow load-points")
    r = vllm(tmp_path, runs["base"], runs["cand"][:1], "--allow", "load-points")
    assert r.returncode == 0, r.stderr
    doc = json.loads((tmp_path / "data/r/SUMMARY.json").read_text())
    assert any(d["field"] == "load points" and d["allowed"] for d in doc["report"]["differs"])
    assert len(doc["serving"]["matched"]) == 1


def test_mismatched_prompts_are_refused_unless_allowed_then_unpaired(runs, tmp_path):
    edit(runs["cand"][0], lambda d: d["input_lens"].reverse())
    edit(runs["cand"][0], lambda d: None)
    d = json.loads(runs["cand"][0].read_text())
    d.update(vllm_record(2, 1.0, inputs=list(reversed(vllm_record(2, 1.0)["input_lens"]))))
    runs["cand"][0].write_text(json.dumps(d))
    refused(vllm(tmp_path, runs["base"], runs["cand"]), tmp_path, "$.input_lens", "mismatched prompts", "--allow prompts")
    r = vllm(tmp_path, runs["base"], runs["cand"], "--allow", "prompts")
    assert r.returncode == 0, r.stderr
    doc = json.loads((tmp_path / "data/r/SUMMARY.json").read_text())
    assert [m["paired"] for m in doc["serving"]["matched"]] == [False, True]
    assert any(d["field"] == "prompts" and d["allowed"] for d in doc["report"]["differs"])


def test_a_run_against_itself_is_refused(runs, tmp_path):
    copy = tmp_path / "copy.json"
    shutil.copy(runs["base"][0], copy)
    refused(vllm(tmp_path, runs["base"], [copy, runs["cand"][1]]), tmp_path, "a run against itself")
    refused(vllm(tmp_path, None, [runs["cand"][0], runs["cand"][0]]), tmp_path, "given twice")


def test_other_hardware_needs_allow_and_is_recorded(runs, tmp_path):
    sets = ["--set-baseline", "hardware=8x A100", "--set-candidate", "hardware=8x H100"]
    refused(vllm(tmp_path, runs["base"], runs["cand"], *sets), tmp_path, "other hardware", "--allow hardware")
    r = vllm(tmp_path, runs["base"], runs["cand"], *sets, "--allow", "hardware")
    assert r.returncode == 0, r.stderr
    doc = json.loads((tmp_path / "data/r/SUMMARY.json").read_text())
    assert {"field": "hardware", "baseline": "8x A100", "candidate": "8x H100", "allowed": True} in doc["report"]["differs"]
    env = doc["serving"]["sides"]["candidate"]["environment"]
    assert env["hardware"] == {"value": "8x H100", "origin": "--set-candidate"}
    assert env["model"]["origin"].endswith("$.model_id")


def test_a_stated_fact_the_files_contradict_is_refused(runs, tmp_path):
    r = vllm(tmp_path, runs["base"], runs["cand"], "--set-candidate", "model=other/model")
    line = refused(r, tmp_path, "--set-candidate model='other/model'", "the files record 'org/model'")
    assert line.startswith("Error: ")


def test_output_rules_force_dotdot_and_ids(runs, tmp_path):
    assert vllm(tmp_path, runs["base"], runs["cand"]).returncode == 0
    before = (tmp_path / "data/r/SUMMARY.json").read_bytes()
    one_error_line(*(lambda r: (r.returncode, r.stderr))(vllm(tmp_path, runs["base"], runs["cand"])),
                   "a receipt is already there", "--force")
    assert (tmp_path / "data/r/SUMMARY.json").read_bytes() == before
    assert vllm(tmp_path, runs["base"], runs["cand"], "--force").returncode == 0
    for out in ("../escape", "x/../y", ".hidden", "bad name"):
        r = vllm(tmp_path, runs["base"], runs["cand"], out=out)
        assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1, (out, r.stderr)
    assert not (tmp_path / "escape").exists() and not (tmp_path / "data/.hidden").exists()


def test_labels_are_text_and_a_label_that_looks_like_a_path_names_no_file(runs, tmp_path):
    r = vllm(tmp_path, runs["base"], runs["cand"], "--label-candidate", "../../etc/passwd")
    assert r.returncode == 0, r.stderr
    doc = json.loads((tmp_path / "data/r/SUMMARY.json").read_text())
    assert doc["serving"]["sides"]["candidate"]["label"] == "../../etc/passwd"
    refused(vllm(tmp_path, runs["base"], runs["cand"], "--label-candidate", "a\nb", out="s"), tmp_path,
            "--label-candidate", out="s")


# -- SGLang --------------------------------------------------------------------------------------------

def test_sglang_truncated_line_and_nan_are_refused(tmp_path):
    line = {"backend": "sglang", "dataset_name": "random", "request_rate": "RATE", "max_concurrency": None,
            "duration": 10.0, "completed": 10, "total_input_tokens": 100, "total_output_tokens": 200,
            "output_throughput": 20.0, "median_ttft_ms": 50.0, "mean_e2e_latency_ms": 900.0, "median_e2e_latency_ms": 880.0}
    f = tmp_path / "s.jsonl"
    good = json.dumps(line).replace('"RATE"', "Infinity") + "\n" + json.dumps(line).replace('"RATE"', "2.0") + "\n"
    f.write_text(good)
    assert vllm(tmp_path, None, [f], "--set-candidate", "date=2026-01-01").returncode == 0
    shutil.rmtree(tmp_path / "data")
    f.write_text(good[:-30])
    refused(vllm(tmp_path, None, [f], "--set-candidate", "date=2026-01-01"), tmp_path, "s.jsonl: line 2", "truncated")
    f.write_text(good.replace("880.0", "NaN"))
    refused(vllm(tmp_path, None, [f], "--set-candidate", "date=2026-01-01"), tmp_path, "s.jsonl: line 1", "NaN")
    f.write_text(good.replace('"output_throughput": 20.0', '"output_throughput": 25.0'))
    refused(vllm(tmp_path, None, [f], "--set-candidate", "date=2026-01-01"), tmp_path, "line 1 $.output_throughput")


# -- GuideLLM ------------------------------------------------------------------------------------------

@pytest.fixture
def gl(tmp_path) -> dict[str, Path]:
    out = {}
    for side in ("baseline", "candidate"):
        (tmp_path / side).mkdir()
        out[side] = tmp_path / side / "benchmarks.json"
        shutil.copy(GUIDELLM / side / "benchmarks.json", out[side])
    return out


def guidellm(tmp_path, gl, *extra):
    return import_here("import", "guidellm", "--baseline", str(gl["baseline"]), "--candidate", str(gl["candidate"]),
                        "-o", str(tmp_path / "data" / "r"), *extra, "-q")


def test_guidellm_bad_input(gl, tmp_path):
    text = gl["candidate"].read_text()
    gl["candidate"].write_text(text[:-500])
    refused(guidellm(tmp_path, gl), tmp_path, "candidate/benchmarks.json", "truncated")
    gl["candidate"].write_text(json.dumps({"benchmarks_v9": []}))
    refused(guidellm(tmp_path, gl), tmp_path, "unknown key set")
    d = json.loads(text)
    d["metadata"]["version"] = 3
    gl["candidate"].write_text(json.dumps(d))
    refused(guidellm(tmp_path, gl), tmp_path, "$.metadata.version", "report version 2", "report version 1")


def test_guidellm_rows_outside_what_it_counts_are_refused(gl, tmp_path):
    d = json.loads(gl["candidate"].read_text())
    b = d["benchmarks"][1]
    start = b["start_time"]
    inside = [i for i, q in enumerate(b["requests"]["successful"]) if q["request_end_time"] >= start]
    del b["requests"]["successful"][inside[4]]  # a sampled file: fewer rows than its totals count
    b["config"]["sample_size"] = 20
    gl["candidate"].write_text(json.dumps(d))
    refused(guidellm(tmp_path, gl), tmp_path, "$.benchmarks[1].metrics.request_totals.successful", "sample")
    d = json.loads((GUIDELLM / "candidate/benchmarks.json").read_text())
    d["benchmarks"][0]["requests"]["successful"][5]["request_latency"] = -1.0
    gl["candidate"].write_text(json.dumps(d))
    refused(guidellm(tmp_path, gl), tmp_path, "$.benchmarks[0].requests.successful[5].request_latency", "at least 0")
    d = json.loads((GUIDELLM / "candidate/benchmarks.json").read_text())
    d["benchmarks"][2]["metrics"]["time_to_first_token_ms"]["successful"]["percentiles"]["p90"] += 1.0
    gl["candidate"].write_text(json.dumps(d))
    refused(guidellm(tmp_path, gl), tmp_path, "$.benchmarks[2].metrics.time_to_first_token_ms.successful.percentiles.p90")


def test_guidellm_missing_load_point(gl, tmp_path):
    d = json.loads(gl["candidate"].read_text())
    d["benchmarks"].pop(1)
    gl["candidate"].write_text(json.dumps(d))
    refused(guidellm(tmp_path, gl), tmp_path, "load point is missing on one side")


# -- lm-eval -------------------------------------------------------------------------------------------

@pytest.fixture
def lm(tmp_path) -> dict[str, Path]:
    need_real2()
    out = {}
    for side, stamp in (("baseline", B_STAMP), ("candidate", C_STAMP)):
        (tmp_path / side).mkdir()
        for f in (f"results_{stamp}.json", f"samples_bias_classification_{stamp}.json"):
            shutil.copy(LMEVAL / f, tmp_path / side / f)
        out[side] = tmp_path / side / f"results_{stamp}.json"
    return out


def lmeval(tmp_path, lm, *extra):
    return import_here("import", "lm-eval", "--baseline", str(lm["baseline"]), "--candidate", str(lm["candidate"]),
                        "-o", str(tmp_path / "data" / "r"), *extra, "-q")


def samples_path(lm, side: str) -> Path:
    return lm[side].parent / lm[side].name.replace("results_", "samples_bias_classification_")


def test_a_samples_file_of_other_documents_is_refused(lm, tmp_path):
    f = samples_path(lm, "candidate")
    lines = f.read_text().splitlines()
    row = json.loads(lines[7])
    row["doc_hash"] = "0" * 64
    lines[7] = json.dumps(row)
    f.write_text("\n".join(lines) + "\n")
    refused(lmeval(tmp_path, lm), tmp_path, "other documents", "doc_id 7", "--allow documents")
    r = lmeval(tmp_path, lm, "--allow", "documents")
    assert r.returncode == 0, r.stderr
    doc = json.loads((tmp_path / "data/r/SUMMARY.json").read_text())
    assert {r["items"] for r in doc["accuracy"]["results"]} == {608}
    f.write_text("\n".join(lines[:-5]) + "\n")
    shutil.rmtree(tmp_path / "data")
    refused(lmeval(tmp_path, lm), tmp_path, f.name, "604 documents", "609")


def test_lm_eval_truncated_samples_unknown_keys_and_contradicted_stderr(lm, tmp_path):
    f = samples_path(lm, "baseline")
    text = f.read_text()
    f.write_text(text[:-100])
    refused(lmeval(tmp_path, lm), tmp_path, f.name, "line 609", "truncated")
    f.write_text(text)
    res = lm["candidate"].read_text()
    lm["candidate"].write_text(json.dumps({"model": "x"}))
    refused(lmeval(tmp_path, lm), tmp_path, lm["candidate"].name, "unknown key set")
    d = json.loads(res)
    d["results"]["bias_classification"]["acc_stderr,none"] = 0.03
    lm["candidate"].write_text(json.dumps(d))
    refused(lmeval(tmp_path, lm), tmp_path, '$.results.bias_classification["acc_stderr,none"]', "says 0.03")
    d = json.loads(res)
    d["results"]["bias_classification"]["acc,none"] = 0.6
    lm["candidate"].write_text(json.dumps(d))
    refused(lmeval(tmp_path, lm), tmp_path, '$.results.bias_classification["acc,none"]', "says 0.6")


def test_lm_eval_other_tasks_are_refused_and_a_run_against_itself(lm, tmp_path):
    d = json.loads(lm["candidate"].read_text())
    for key in ("results", "configs", "versions", "n-shot", "n-samples", "higher_is_better"):
        d[key]["other_task"] = d[key].pop("bias_classification")
    lm["candidate"].write_text(json.dumps(d))
    refused(lmeval(tmp_path, lm), tmp_path, "other tasks", "--allow tasks")
    r = import_here("import", "lm-eval", "--baseline", str(lm["baseline"]), "--candidate", str(lm["baseline"]),
                     "-o", str(tmp_path / "data" / "r"), "-q")
    refused(r, tmp_path, "a run against itself")


def test_a_missing_file_and_a_positional_source_are_refused(runs, tmp_path):
    refused(vllm(tmp_path, runs["base"], [tmp_path / "nope.json"]), tmp_path, "nope.json", "not found")
    r = import_here("import", "vllm-bench", str(runs["base"][0]), "--candidate", str(runs["cand"][0]),
                     "-o", str(tmp_path / "data" / "r"), "-q")
    refused(r, tmp_path, "--baseline and --candidate")


def test_a_receipt_sitegen_would_refuse_is_reported_at_its_source():
    from site_gen.core.errors import SitegenError
    from site_gen.importers.serving_common import Provenance, Source, refused_as_source

    prov = Provenance()
    src = Source(Path("runs/a.json"), "a.json", "0" * 64, "{}", 2)
    prov.cite("$.serving.sides.candidate.load_points[0].repeats[0]", src, "$")
    prov.cite("$.serving.sides.candidate.load_points[0].repeats[0].requests", src, "$.ttfts, $.itls")
    err = refused_as_source(SitegenError("must be at least 0", "SUMMARY.json",
                                         "$.serving.sides.candidate.load_points[0].repeats[0].requests.ttft_ms[4]"), prov)
    assert err.file == "runs/a.json" and err.where == "$.ttfts, $.itls" and "must be at least 0" in err.message
