"""Every format `sitegen import` reads beyond the first four, and the files of those four it refused
for sitegen's own gaps: Ray LLMPerf (real files), AIPerf and GenAI-Perf (made from their source),
`vllm bench sweep` folders (made), vLLM folders and their summary table (real), SGLang's servers and
details, GuideLLM's report version 1 (made), lm-eval's corpus metrics, samples under another prefix
and one run alone. Each figure is checked against an independent computation here (pandas, numpy,
plain Python) or the file's own statement; each refusal names the file, the place and what to do."""
from __future__ import annotations

import json
import math
import shutil
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT, import_here, one_error_line, sitegen_here, strictly

from site_gen.building.builder import build_files
from site_gen.core.config import load_config

FORMATS = ROOT / "tests" / "fixtures" / "formats"
LLMPERF = FORMATS / "llmperf"
AIPERF = FORMATS / "aiperf"
SWEEP = FORMATS / "vllm-sweep" / "sweep"
GUIDELLM_V1 = FORMATS / "guidellm-v1"
REAL2 = ROOT.parent / "shared" / "real2"
VLLM = REAL2 / "vllm-bench/llm-k8s/results_serving_meta-llama-Llama-3.3-70B-Instruct"
LMEVAL = REAL2 / "lm-eval/bias_classification-Meta-Llama-3-8B"
T0, T1 = "2024-06-17T15-44-37.867068", "2024-06-17T12-20-26.826621"


def need_real2() -> None:
    if not VLLM.is_dir():
        pytest.skip(f"{REAL2} not found") if not __import__("os").environ.get("CI") else pytest.fail(f"{REAL2} missing")


def receipt(out: Path) -> dict:
    return json.loads((out / "SUMMARY.json").read_text())


def stated(rep: dict) -> dict:
    return {s["key"]: s for s in rep["stated"]}


def pages_of(root: Path) -> dict[str, str]:
    """The site of every receipt in root/data, built as `check --strict` takes it."""
    (root / "mkdocs.yml").write_text("site_name: F\nplugins:\n  - sitegen:\n      data_dir: data\n")
    check = sitegen_here("check", "--strict", "-f", str(root / "mkdocs.yml"))
    assert check.returncode == 0, check.stderr
    files = strictly(build_files(load_config(root / "mkdocs.yml"))).files
    return {k: v.decode() for k, v in files.items() if k.endswith(".html")}


# -- Ray LLMPerf (real files) -------------------------------------------------------------------------

def test_llmperf_reads_each_request_and_recomputes_every_summary_figure_as_pandas_does(tmp_path):
    out = tmp_path / "data" / "llmperf"
    r = import_here("import", "llmperf", "--baseline", str(LLMPERF / "vllm"), "--candidate", str(LLMPERF / "tgi"),
                    "--label-baseline", "vLLM", "--label-candidate", "TGI", "-o", str(out))
    assert r.returncode == 0, r.stderr
    doc = receipt(out)
    for role, engine in (("baseline", "vllm"), ("candidate", "tgi")):
        side = doc["serving"]["sides"][role]
        assert side["format"] == "llmperf" and side["environment"]["model"]["value"] == "01-ai/Yi-1.5-34B-Chat"
        assert sorted(lp["load"]["max_concurrency"] for lp in side["load_points"]) == [1, 4, 16]
        for lp in side["load_points"]:
            c = lp["load"]["max_concurrency"]
            folder = LLMPERF / engine / f"c{c}"
            summary = json.loads(next(folder.glob("*_summary.json")).read_text())
            rows = pd.DataFrame(json.loads(next(folder.glob("*_individual_responses.json")).read_text()))
            ok = rows[rows["error_code"].isna()]
            rep = lp["repeats"][0]
            got = stated(rep)
            # every results_* figure of the file: kept, equal to the file, and equal to pandas over the requests
            numeric = {k: v for k, v in summary.items() if k.startswith("results_") and k != "results_error_code_frequency"}
            assert set(got) == set(numeric)
            for key, value in numeric.items():
                assert got[key]["value"] == float(value)
            for metric in ("ttft_s", "end_to_end_latency_s", "inter_token_latency_s", "request_output_throughput_token_per_s",
                           "number_input_tokens", "number_output_tokens"):
                series = ok[metric].astype(float)
                mine = {**{f"quantiles_p{int(q * 100)}": series.quantile(q) for q in (0.25, 0.5, 0.75, 0.9, 0.95, 0.99)},
                        "mean": series.mean(), "min": series.min(), "max": series.max(), "stddev": series.std()}
                for stat, v in mine.items():
                    key = f"results_{metric}_{stat}"
                    assert math.isclose(float(summary[key]), v, rel_tol=1e-9), key
                    assert got[key]["check"] == "rows"
            duration = len(ok) * 60 / summary["results_num_completed_requests_per_min"]
            assert math.isclose(rep["duration_s"], duration, rel_tol=1e-12)
            assert math.isclose(ok["number_output_tokens"].sum() / duration, summary["results_mean_output_throughput_token_per_s"],
                                rel_tol=1e-9)
            assert got["results_num_completed_requests_per_min"]["check"] == "not recomputed"
            assert rep["completed"] == len(ok) and rep["failed"] == len(rows) - len(ok)
            cols = rep["requests"]
            np.testing.assert_allclose(cols["ttft_ms"], ok["ttft_s"] * 1000, atol=1e-6)
            np.testing.assert_allclose(cols["e2e_ms"], ok["end_to_end_latency_s"] * 1000, atol=1e-6)
            tpot = (ok["end_to_end_latency_s"] - ok["ttft_s"]) / (ok["number_output_tokens"] - 1) * 1000
            np.testing.assert_allclose(cols["tpot_ms"], tpot, atol=1e-6)
            assert cols["itl_ms"] == [None] * len(ok)  # LLMPerf's ITL counts the first token's wait: kept as stated only
    names = {s["file"] for s in doc["provenance"]["sources"]}
    assert "tgi/c4/01-ai-Yi-1-5-34B-Chat_550_150_individual_responses.json" in names
    pages = pages_of(tmp_path)
    assert "TGI" in pages["reports/llmperf/latency.html"] and "concurrency" in pages["reports/llmperf/load.html"].lower()


def test_llmperf_refuses_a_summary_its_requests_contradict(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(LLMPERF / "tgi" / "c4", src)
    f = next(src.glob("*_summary.json"))
    d = json.loads(f.read_text())
    d["results_ttft_s_quantiles_p90"] *= 1.01
    f.write_text(json.dumps(d, indent=4))
    r = import_here("import", "llmperf", "--candidate", str(src), "-o", str(tmp_path / "data" / "x"))
    one_error_line(r.returncode, r.stderr, f.name, "$.results_ttft_s_quantiles_p90", "individual responses")


def test_import_llmperf_is_a_format_and_a_missing_side_is_exit_1_with_what_to_do(tmp_path):
    r = import_here("import", "llmperf", "-o", str(tmp_path / "data" / "x"))
    one_error_line(r.returncode, r.stderr, "--candidate")
    help_text = sitegen_here("import", "--help").stdout
    for name in ("llmperf", "aiperf", "genai-perf", "vllm-sweep", "load-points", "prompts", "documents", "tasks"):
        assert name in help_text, name


# -- AIPerf, GenAI-Perf (made from their source) -------------------------------------------------------

def test_aiperf_recomputes_its_summary_from_the_profiling_requests(tmp_path):
    out = tmp_path / "data" / "aiperf"
    r = import_here("import", "aiperf", "--candidate", str(AIPERF / "aiperf"), "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert "skipped" in r.stdout and "inputs.json" in r.stdout and "profile_export_aiperf.csv" in r.stdout
    doc = receipt(out)
    side = doc["serving"]["sides"]["candidate"]
    assert side["format"] == "aiperf" and side["environment"]["model"]["value"] == "Qwen/Qwen3-0.6B"
    for lp in side["load_points"]:
        c = lp["load"]["max_concurrency"]
        lines = [json.loads(x) for x in (AIPERF / "aiperf" / f"c{c}" / "profile_export.jsonl").read_text().splitlines()]
        prof = [x for x in lines if x["metadata"]["benchmark_phase"] == "profiling"]
        ok = [x for x in prof if x["error"] is None]
        summary = json.loads((AIPERF / "aiperf" / f"c{c}" / "profile_export_aiperf.json").read_text())
        rep = lp["repeats"][0]
        got = stated(rep)
        assert rep["completed"] == len(ok) == summary["request_count"]["avg"] and rep["failed"] == len(prof) - len(ok) == 1
        ttft = np.array([x["metrics"]["time_to_first_token"]["value"] for x in ok])
        for q in (50, 90, 99):
            assert math.isclose(got[f"time_to_first_token.p{q}"]["value"], float(np.percentile(ttft, q)), abs_tol=1e-6)
            assert got[f"time_to_first_token.p{q}"]["check"] == "rows"
        assert math.isclose(got["time_to_first_token.std"]["value"], float(np.std(ttft)), abs_tol=1e-6)
        gaps = np.concatenate([x["metrics"]["inter_chunk_latency"]["value"] for x in ok])
        assert rep["itl_gaps"]["gaps"] == len(gaps)
        duration = (max(x["metadata"]["request_end_ns"] for x in ok) - min(x["metadata"]["request_start_ns"] for x in ok)) / 1e9
        assert math.isclose(rep["duration_s"], duration, rel_tol=1e-12)
        assert math.isclose(got["request_throughput.avg"]["value"], len(ok) / duration, rel_tol=1e-6)
        # AIPerf's inter-token latency is the receipt's TPOT, request by request
        itl = [x["metrics"]["inter_token_latency"]["value"] for x in sorted(ok, key=lambda x: x["metadata"]["request_start_ns"])]
        np.testing.assert_allclose([v for v in rep["requests"]["tpot_ms"] if v is not None], itl, atol=1e-6)
        assert all(s["check"] == "rows" for s in rep["stated"])
    assert "Files skipped" in {t["label"] for t in doc["report"]["tested"]}


def test_aiperf_refuses_a_contradicted_figure_and_reads_a_summary_alone(tmp_path):
    src = tmp_path / "src" / "c4"
    shutil.copytree(AIPERF / "aiperf" / "c4", src)
    f = src / "profile_export_aiperf.json"
    d = json.loads(f.read_text())
    d["time_to_first_token"]["p99"] += 1.0
    f.write_text(json.dumps(d))
    r = import_here("import", "aiperf", "--candidate", str(src), "-o", str(tmp_path / "data" / "x"))
    one_error_line(r.returncode, r.stderr, "profile_export_aiperf.json", "$.time_to_first_token.p99", "profile_export.jsonl")
    out = tmp_path / "data" / "old"
    r = import_here("import", "aiperf", "--candidate", str(AIPERF / "aiperf-0.1"), "-o", str(out))
    assert r.returncode == 0, r.stderr
    rep = receipt(out)["serving"]["sides"]["candidate"]["load_points"][0]["repeats"][0]
    records = json.loads((AIPERF / "aiperf-0.1" / "profile_export_aiperf.json").read_text())["records"]
    assert stated(rep)["time_to_first_token.p50"] == {"key": "time_to_first_token.p50", "check": "none",
                                                      "value": records["time_to_first_token"]["p50"]}
    pages = pages_of(tmp_path)
    assert f"{records['time_to_first_token']['p50']:,.1f}" in pages["reports/old/latency.html"]


def _genai_perf_requests(pa: dict) -> list[tuple[int, list[int]]]:
    """perf_analyzer's requests with the responses that carry content (GenAI-Perf leaves the others out)."""
    out = []
    for r in pa["experiments"][0]["requests"]:
        kept = []
        for t, o in zip(r["response_timestamps"], r["response_outputs"]):
            body = o["response"].strip().removeprefix("data: ")
            if body != "[DONE]" and json.loads(body)["choices"][0]["delta"].get("content"):
                kept.append(t)
        out.append((r["timestamp"], kept))
    return out


def test_genai_perf_checks_its_latencies_against_perf_analyzers_requests(tmp_path):
    out = tmp_path / "data" / "gp"
    r = import_here("import", "genai-perf", "--candidate", str(AIPERF / "genai-perf"), "-o", str(out))
    assert r.returncode == 0, r.stderr
    doc = receipt(out)
    rep = doc["serving"]["sides"]["candidate"]["load_points"][0]["repeats"][0]
    got = stated(rep)
    pa = json.loads((AIPERF / "genai-perf" / "c4" / "profile_export.json").read_text())
    reqs = _genai_perf_requests(pa)
    ttft = np.array([k[0] - t for t, k in reqs]) / 1e6
    lat = np.array([k[-1] - t for t, k in reqs]) / 1e6
    for q in (50, 99):
        assert math.isclose(got[f"time_to_first_token.p{q}"]["value"], float(np.percentile(ttft, q)), abs_tol=1e-6)
        assert math.isclose(got[f"request_latency.p{q}"]["value"], float(np.percentile(lat, q)), abs_tol=1e-6)
        assert got[f"time_to_first_token.p{q}"]["check"] == "rows"
    for key in ("output_sequence_length.avg", "inter_token_latency.p50", "output_token_throughput.avg"):
        assert got[key]["check"] == "not recomputed"  # GenAI-Perf counts tokens with its tokenizer
    assert any("not recomputed" in n for n in doc["report"]["not_covered"])
    duration = (max(k[-1] for _, k in reqs) - min(t for t, _ in reqs)) / 1e9
    assert math.isclose(got["request_throughput.avg"]["value"], len(reqs) / duration, rel_tol=1e-6)
    assert "profile_export.json" in {Path(s["file"]).name for s in doc["provenance"]["sources"]}


# -- vLLM folders, its summary table, and bench sweep --------------------------------------------------

def test_vllm_reads_a_folder_and_names_its_summary_table(tmp_path):
    need_real2()
    out = tmp_path / "data" / "v"
    r = import_here("import", "vllm-bench", "--baseline", str(VLLM / "01_tp8_pp1"), "--candidate",
                    *map(str, sorted((VLLM / "03_tp4_pp2_IB").glob("*.json"))), "--allow", "hardware", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("benchmark_results.json") == 2 and "its 4 rows agree with the runs given" in r.stdout
    doc = receipt(out)
    for role in ("baseline", "candidate"):
        assert len(doc["serving"]["sides"][role]["load_points"]) == 4
    tested = {t["label"]: t["text"] for t in doc["report"]["tested"]}
    assert "summary table" in tested["Files skipped"]
    src = tmp_path / "src"
    shutil.copytree(VLLM / "01_tp8_pp1", src)
    table = json.loads((src / "benchmark_results.json").read_text())
    table[2]["P99 TTFT (ms)"] += 1.0
    (src / "benchmark_results.json").write_text(json.dumps(table))
    r = import_here("import", "vllm-bench", "--candidate", str(src), "-o", str(tmp_path / "data" / "w"))
    one_error_line(r.returncode, r.stderr, "benchmark_results.json", '$[2]["P99 TTFT (ms)"]', "leave it out")


def test_vllm_sweep_reads_each_setting_as_a_side_and_its_runs_as_repeats(tmp_path):
    out = tmp_path / "data" / "sweep"
    r = import_here("import", "vllm-sweep", "--baseline", *map(str, sorted(SWEEP.glob("SERVE-max_num_seqs=32-*"))),
                    "--candidate", *map(str, sorted(SWEEP.glob("SERVE-max_num_seqs=128-*"))), "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert "run=1.failure.json: a run that failed, RuntimeError" in r.stdout and r.stdout.count("warmup.json") == 4
    doc = receipt(out)
    repeats = {role: {lp["load"]["request_rate"]: len(lp["repeats"]) for lp in doc["serving"]["sides"][role]["load_points"]}
               for role in ("baseline", "candidate")}
    assert repeats == {"baseline": {2: 2, 8: 2}, "candidate": {2: 2, 8: 1}}
    assert doc["report"]["engines"]["candidate"]["name"] == "max_num_seqs=128"
    assert all(m["paired"] for m in doc["serving"]["matched"])
    files = {s["id"]: s["file"] for s in doc["provenance"]["sources"]}
    for lp in doc["serving"]["sides"]["candidate"]["load_points"]:
        for rep in lp["repeats"]:
            run = json.loads((SWEEP / files[rep["source"]]).read_text())  # the run file, read here
            assert run["request_rate"] == lp["load"]["request_rate"]
            assert stated(rep)["p99_ttft_ms"] == {"key": "p99_ttft_ms", "value": run["p99_ttft_ms"], "check": "rows"}
            assert math.isclose(run["p99_ttft_ms"], float(np.percentile(run["ttfts"], 99)) * 1000, rel_tol=1e-9)
            np.testing.assert_allclose(rep["requests"]["ttft_ms"], np.array(run["ttfts"]) * 1000, atol=1e-6)
    r = import_here("import", "vllm-sweep", "--candidate", str(SWEEP), "-o", str(tmp_path / "data" / "two"))
    one_error_line(r.returncode, r.stderr, "2 server settings", "--baseline EXPERIMENT/SERVE-")
    src = tmp_path / "src"
    shutil.copytree(SWEEP / "SERVE-max_num_seqs=32-BENCH-request_rate=2", src / "SERVE-max_num_seqs=32-BENCH-request_rate=2")
    summary = src / "SERVE-max_num_seqs=32-BENCH-request_rate=2" / "summary.json"
    runs = json.loads(summary.read_text())
    runs[1]["mean_ttft_ms"] += 1
    summary.write_text(json.dumps(runs))
    r = import_here("import", "vllm-sweep", "--candidate", str(src), "-o", str(tmp_path / "data" / "bad"))
    one_error_line(r.returncode, r.stderr, "summary.json", "$[1]", "differs from run=1.json", "mean_ttft_ms")


# -- SGLang --------------------------------------------------------------------------------------------

def _sglang_line(rng: np.random.Generator, n: int, server_info: dict, details: bool) -> str:
    """A line as current SGLang's bench_serving writes it (`--output-details`: the arrays at the top
    level; its client times a request's end at the stream's last event, after the last token)."""
    inp = [200] * n
    out = [int(x) for x in rng.integers(10, 30, n)]
    ttft = rng.gamma(4, 0.01, n)
    itls = [list(rng.gamma(5, 0.002, o - 1)) for o in out]
    lat = ttft + np.array([sum(g) for g in itls]) + 0.0007  # the [DONE] event, after the last token
    dur = float(lat.max()) + 5.0
    gaps = np.concatenate([np.array(g) for g in itls])
    tpot = (lat - ttft) / (np.array(out) - 1)
    rec = {"backend": "sglang", "dataset_name": "random", "request_rate": 4.0, "max_concurrency": None,
           "random_input_len": 200, "random_output_len": 20, "random_range_ratio": 0.0, "server_info": server_info,
           "duration": dur, "completed": n, "total_input_tokens": sum(inp), "total_output_tokens": sum(out),
           "request_throughput": n / dur, "output_throughput": sum(out) / dur,
           "median_ttft_ms": float(np.median(ttft)) * 1000, "p99_ttft_ms": float(np.percentile(ttft, 99)) * 1000,
           "median_itl_ms": float(np.median(gaps)) * 1000, "p90_itl_ms": float(np.percentile(gaps, 90)) * 1000,
           "p99_itl_ms": float(np.percentile(gaps, 99)) * 1000, "median_e2e_latency_ms": float(np.median(lat)) * 1000,
           "p99_tpot_ms": float(np.percentile(tpot, 99)) * 1000, "concurrency": float(lat.sum()) / dur}
    if details:
        rec.update(input_lens=inp, output_lens=out, ttfts=list(ttft), itls=itls, generated_texts=["x"] * n, errors=[""] * n)
    return json.dumps(rec)


def test_sglang_reads_its_servers_model_and_versions_and_its_details(tmp_path):
    rng = np.random.default_rng(54)
    pd_info = {"prefill": [{"model_path": "Qwen/Qwen3-8B", "version": "0.5.3"}],
               "decode": [{"model_path": "Qwen/Qwen3-8B", "version": "0.5.3"}, {"model_path": "Qwen/Qwen3-8B", "version": "0.5.4"}]}
    f = tmp_path / "pd.jsonl"
    f.write_text(_sglang_line(rng, 60, pd_info, True) + "\n")
    out = tmp_path / "data" / "sg"
    r = import_here("import", "vllm-bench", "--candidate", str(f), "--set-candidate", "date=2025-10-01", "-o", str(out))
    assert r.returncode == 0, r.stderr
    doc = receipt(out)
    env = doc["serving"]["sides"]["candidate"]["environment"]
    assert env["model"]["value"] == "Qwen/Qwen3-8B" and "server_info.prefill[0].model_path" in env["model"]["origin"]
    assert env["engine_version"]["value"] == "decode/prefill 0.5.3; decode 0.5.4"
    got = stated(doc["serving"]["sides"]["candidate"]["load_points"][0]["repeats"][0])
    assert {k for k, s in got.items() if s["check"] == "not recomputed"} == {"median_e2e_latency_ms", "p99_tpot_ms", "concurrency"}
    assert got["p90_itl_ms"]["check"] == got["median_ttft_ms"]["check"] == "rows"
    f.write_text(_sglang_line(rng, 60, {"model_path": "meta-llama/Llama-3.1-8B", "version": "0.5.2"}, False) + "\n")
    out = tmp_path / "data" / "one"
    r = import_here("import", "vllm-bench", "--candidate", str(f), "--set-candidate", "date=2025-10-01", "-o", str(out))
    assert r.returncode == 0, r.stderr
    doc = receipt(out)
    assert doc["serving"]["sides"]["candidate"]["environment"]["model"]["value"] == "meta-llama/Llama-3.1-8B"
    line = json.loads(f.read_text())
    pages = pages_of(tmp_path)
    load = pages["reports/one/load.html"]
    for key in ("median_itl_ms", "p99_itl_ms"):  # the file's ITL over every gap, on the page (it showed a dash)
        assert f"{line[key]:,.1f}" in load, key


# -- GuideLLM report version 1 (made) ----------------------------------------------------------------------

def test_guidellm_report_version_1_is_read_by_its_own_rules(tmp_path):
    out = tmp_path / "data" / "g1"
    r = import_here("import", "guidellm", "--candidate", str(GUIDELLM_V1 / "benchmarks.json"), "-o", str(out))
    assert r.returncode == 0, r.stderr
    doc = receipt(out)
    src = json.loads((GUIDELLM_V1 / "benchmarks.json").read_text())
    differ = 0
    for lp in doc["serving"]["sides"]["candidate"]["load_points"]:
        rep = lp["repeats"][0]
        b = src["benchmarks"][int(rep["at"].split("[")[1].split("]")[0])]
        start, end = b["start_time"], b["end_time"]
        ok = [q for q in b["requests"]["successful"] if q["request_end_time"] >= start and q["request_start_time"] <= end]
        by_first = [q for q in ok if q["info"]["timings"]["first_token_iteration"] >= start]
        differ += len(by_first) != len(ok) or any(q["info"]["timings"]["first_token_iteration"] > end for q in ok)
        ttft = np.array([q["time_to_first_token_ms"] for q in ok])
        got = stated(rep)
        for p in (50, 90):
            key = "time_to_first_token_ms.successful." + ("median" if p == 50 else f"p{p}")
            near = {float(np.quantile(ttft, p / 100 + e, method="inverted_cdf")) for e in (-1e-9, 1e-9)}
            assert got[key]["value"] in near and got[key]["check"] == "rows", key
        assert math.isclose(got["time_to_first_token_ms.successful.mean"]["value"], float(ttft.mean()), rel_tol=1e-9)
    assert differ  # version 1 counts requests version 2 leaves out of TTFT: the file tells them apart
    forced = json.loads((GUIDELLM_V1 / "benchmarks.json").read_text())
    forced["metadata"]["version"] = 2
    f = tmp_path / "v2.json"
    f.write_text(json.dumps(forced))
    r = import_here("import", "guidellm", "--candidate", str(f), "-o", str(tmp_path / "data" / "x"))
    one_error_line(r.returncode, r.stderr, "time_to_first_token_ms.successful", "measurement window")
    r = import_here("import", "guidellm", "--candidate", str(GUIDELLM_V1 / "benchmarks-0.4.json"), "-o", str(tmp_path / "data" / "g04"))
    assert r.returncode == 0, r.stderr
    old = {"args": {"data": "x"}, "benchmarks": [{"type_": "generative_benchmark", "args": {}, "run_stats": {}}]}
    f.write_text(json.dumps(old))
    r = import_here("import", "guidellm", "--candidate", str(f), "-o", str(tmp_path / "data" / "y"))
    one_error_line(r.returncode, r.stderr, "0.3 or earlier", "report version 2", "report version 1")


# -- lm-eval ---------------------------------------------------------------------------------------------

def _binary_pairs(stamp: str) -> list[list[int]]:
    return [json.loads(x)["f1"] for x in (LMEVAL / f"samples_bias_classification_{stamp}.json").read_text().splitlines() if x.strip()]


def _f1s(pairs: list[list]) -> dict[str, float]:
    """Binary, macro, micro and weighted F1 and MCC, by hand from the confusion counts."""
    labels = sorted({x for p in pairs for x in p})
    per, support = {}, {}
    for c in labels:
        tp = sum(g == c and p == c for g, p in pairs)
        fp = sum(g != c and p == c for g, p in pairs)
        fn = sum(g == c and p != c for g, p in pairs)
        per[c] = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0
        support[c] = sum(g == c for g, _ in pairs)
    n = len(pairs)
    t = [support[c] for c in labels]
    pr = [sum(p == c for _, p in pairs) for c in labels]
    correct = sum(g == p for g, p in pairs)
    mcc = (correct * n - sum(a * b for a, b in zip(t, pr))) / math.sqrt((n * n - sum(b * b for b in pr)) * (n * n - sum(a * a for a in t)))
    return {"binary": per.get(1, 0.0), "macro": sum(per.values()) / len(labels), "micro": correct / n,
            "weighted": sum(per[c] * support[c] for c in labels) / n, "mcc": mcc}


def _lm_run(folder: Path, stamp: str, prefix: str, f1: float | None = None, extra: dict | None = None) -> Path:
    """A copy of a real run under `prefix` (`results` as the harness names it into a folder, or a file's
    stem), its f1 restated as another aggregation would give it (a made file, from the real samples)."""
    folder.mkdir(parents=True, exist_ok=True)
    d = json.loads((LMEVAL / f"results_{stamp}.json").read_text())
    if f1 is not None:
        d["results"]["bias_classification"]["f1,none"] = f1
    for key, value in (extra or {}).items():
        d["results"]["bias_classification"][key] = value
    out = folder / f"{prefix}_{stamp}.json"
    out.write_text(json.dumps(d))
    shutil.copy(LMEVAL / f"samples_bias_classification_{stamp}.json", folder / f"samples_bias_classification_{stamp}.jsonl")
    return out


@pytest.mark.slow
def test_lm_eval_names_the_aggregation_that_gives_back_a_corpus_metric(tmp_path):
    need_real2()
    aggs = {s: _f1s(_binary_pairs(s)) for s in (T0, T1)}
    out = tmp_path / "data" / "w"
    b = _lm_run(tmp_path / "b", T0, "results", aggs[T0]["weighted"])
    c = _lm_run(tmp_path / "c", T1, "results", aggs[T1]["weighted"])
    r = import_here("import", "lm-eval", "--baseline", str(b), "--candidate", str(c), "-o", str(out))
    assert r.returncode == 0, r.stderr
    results = {x["measure"]: x for x in receipt(out)["accuracy"]["results"]}
    f1 = results["bias_classification-f1-none"]
    assert f1["label"] == "bias_classification: f1 (weighted F1)" and f1["aggregation"].startswith("weighted F1")
    assert f1["baseline"]["value"] == aggs[T0]["weighted"] and f1["candidate"]["value"] == aggs[T1]["weighted"]
    assert f1["paired"] and math.isclose(f1["difference"], aggs[T1]["weighted"] - aggs[T0]["weighted"], rel_tol=1e-12)
    assert results["bias_classification-acc-none"]["paired"]
    # macro F1 and MCC stated under other names: each found and named
    for name, key in (("macro", "f1"), ("mcc", "mcc")):
        extra = {f"{key},none": aggs[T0][name]}  # no standard error stated: none to check
        r1 = _lm_run(tmp_path / name, T0, "results", extra=extra)
        if key == "mcc":  # per-document (gold, prediction) pairs under the metric's own name
            lines = [json.loads(x) for x in (r1.parent / f"samples_bias_classification_{T0}.jsonl").read_text().splitlines()]
            (r1.parent / f"samples_bias_classification_{T0}.jsonl").write_text("".join(json.dumps({**x, "mcc": x["f1"]}) + "\n" for x in lines))
        o = tmp_path / "data" / name
        r = import_here("import", "lm-eval", "--candidate", str(r1), "-o", str(o))
        assert r.returncode == 0, r.stderr
        got = {x["measure"]: x for x in receipt(o)["accuracy"]["results"]}[f"bias_classification-{key}-none"]
        assert ("macro F1" if name == "macro" else "MCC") in got["label"], got["label"]


def test_lm_eval_imports_a_metric_it_cannot_recompute_as_stated_and_the_rest(tmp_path):
    need_real2()
    out = tmp_path / "data" / "u"
    c = _lm_run(tmp_path / "c", T0, "results", 0.123456)
    r = import_here("import", "lm-eval", "--candidate", str(c), "-o", str(out))
    assert r.returncode == 0, r.stderr
    doc = receipt(out)
    results = {x["measure"]: x for x in doc["accuracy"]["results"]}
    f1 = results["bias_classification-f1-none"]
    assert f1["candidate"]["value"] == 0.123456 and "not recomputed" in f1["label"]
    assert f1["aggregation"].startswith("no known aggregation")
    assert any("not recomputed" in n for n in doc["report"]["not_covered"])
    assert "mean of the per-document scores" == results["bias_classification-acc-none"]["aggregation"]


def test_lm_eval_bleu_is_recomputed_with_sacrebleu_or_kept_as_stated_without_it(tmp_path, monkeypatch):
    import sacrebleu

    need_real2()
    refs = ["the cat sat on the mat", "a quick brown fox", "it is raining today", "we went home early"]
    preds = ["the cat sat on a mat", "a quick brown dog", "it rains today", "we went home early"]
    score = sacrebleu.corpus_bleu(preds, [refs]).score
    folder = tmp_path / "b"
    folder.mkdir()
    d = json.loads((LMEVAL / f"results_{T0}.json").read_text())
    d["results"] = {"wmt_toy": {"bleu,none": score, "bleu_stderr,none": 2.5, "alias": "wmt_toy"}}
    for key in ("configs", "versions", "n-shot", "higher_is_better"):
        d[key] = {"wmt_toy": d[key]["bias_classification"]}
    d["higher_is_better"] = {"wmt_toy": {"bleu": True}}
    d["n-samples"] = {"wmt_toy": {"original": 4, "effective": 4}}
    (folder / f"results_{T0}.json").write_text(json.dumps(d))
    (folder / f"samples_wmt_toy_{T0}.jsonl").write_text("".join(
        json.dumps({"doc_id": i, "doc_hash": str(i), "bleu": [r, p]}) + "\n" for i, (r, p) in enumerate(zip(refs, preds))))
    out = tmp_path / "data" / "bleu"
    r = import_here("import", "lm-eval", "--candidate", str(folder / f"results_{T0}.json"), "-o", str(out))
    assert r.returncode == 0, r.stderr
    got = receipt(out)["accuracy"]["results"][0]
    assert got["label"] == "wmt_toy: bleu (BLEU)" and got["candidate"]["value"] == score
    monkeypatch.setitem(sys.modules, "sacrebleu", None)
    r = import_here("import", "lm-eval", "--candidate", str(folder / f"results_{T0}.json"), "-o", str(out), "--force")
    assert r.returncode == 0, r.stderr
    got = receipt(out)["accuracy"]["results"][0]
    assert "not recomputed" in got["label"] and "sacrebleu is not installed" in got["aggregation"]


def test_lm_eval_finds_samples_beside_a_results_file_of_another_prefix_and_says_when_none(tmp_path):
    need_real2()
    b = _lm_run(tmp_path / "b", T0, "llama3-8b")  # --output_path b/llama3-8b.json: b/llama3-8b_<time>.json
    c = _lm_run(tmp_path / "c", T1, "llama3-8b")
    out = tmp_path / "data" / "p"
    r = import_here("import", "lm-eval", "--baseline", str(b), "--candidate", str(c), "-o", str(out))
    assert r.returncode == 0, r.stderr
    doc = receipt(out)
    assert all(x["paired"] for x in doc["accuracy"]["results"])
    (tmp_path / "c" / f"samples_bias_classification_{T1}.jsonl").unlink()
    r = import_here("import", "lm-eval", "--baseline", str(b), "--candidate", str(c), "-o", str(out), "--force")
    assert r.returncode == 0, r.stderr
    assert "no samples file for bias_classification beside the candidate's" in r.stdout
    doc = receipt(out)
    assert any("candidate's results file has no samples file" in n for n in doc["report"]["not_covered"])
    assert not any(x.get("paired") for x in doc["accuracy"]["results"])


def test_lm_eval_one_run_alone_makes_a_one_setup_report(tmp_path):
    need_real2()
    out = tmp_path / "data" / "one"
    r = import_here("import", "lm-eval", "--candidate", str(LMEVAL / f"results_{T0}.json"), "-o", str(out))
    assert r.returncode == 0, r.stderr
    doc = receipt(out)
    assert "baseline" not in doc["report"]["engines"]
    acc = [json.loads(x)["acc"] for x in (LMEVAL / f"samples_bias_classification_{T0}.json").read_text().splitlines() if x.strip()]
    got = {x["measure"]: x for x in doc["accuracy"]["results"]}["bias_classification-acc-none"]
    assert "baseline" not in got and "difference" not in got
    assert math.isclose(got["candidate"]["value"], float(np.mean(acc)), rel_tol=1e-12)
    se = float(np.std(acc, ddof=1)) / math.sqrt(len(acc))
    np.testing.assert_allclose(got["candidate"]["interval"], [np.mean(acc) - 1.959964 * se, np.mean(acc) + 1.959964 * se], rtol=1e-6)
    pages = pages_of(tmp_path)
    page = pages["reports/one/accuracy.html"]
    assert "One run of" in page and "no baseline" in page and "Paired difference" not in page
    assert f"{np.mean(acc) * 100:.1f}%" in page


# -- the guide's commands ----------------------------------------------------------------------------------

def guide_commands() -> list[list[str]]:
    """Every `sitegen import` command of docs/guide/formats.md, variables filled in and globs expanded."""
    import glob
    import re
    import shlex

    text = (ROOT / "docs" / "guide" / "formats.md").read_text(encoding="utf-8")
    out = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.DOTALL):
        env: dict[str, str] = {}
        for line in block.strip().splitlines():
            if m := re.fullmatch(r"(\w+)=(\S+)", line):
                env[m.group(1)] = m.group(2).replace("../shared/real2", str(REAL2))
            elif line.startswith("sitegen import"):
                words = []
                for w in shlex.split(line)[1:]:
                    if m := re.match(r"\$(\w+)", w):
                        w = env[m.group(1)] + w[m.end():]
                    if not w.startswith(("/", "-", "data/")) and ("/" in w):
                        w = str(ROOT / w)
                    words.extend(sorted(glob.glob(w)) if "*" in w else [w])
                out.append(words)
    return out


@pytest.mark.slow
def test_every_command_of_the_formats_guide_imports_a_receipt_that_checks_and_builds(tmp_path):
    need_real2()
    commands = guide_commands()
    formats = {c[1] for c in commands}
    assert formats >= {"vllm-bench", "vllm-sweep", "guidellm", "llmperf", "aiperf", "genai-perf", "lm-eval"}
    for args in commands:
        i = args.index("-o")
        args[i + 1] = str(tmp_path / args[i + 1])
        r = import_here(*args)
        assert r.returncode == 0, (args, r.stderr)
    pages = pages_of(tmp_path)
    for args in commands:
        rid = Path(args[args.index("-o") + 1]).name
        assert f"reports/{rid}/index.html" in pages, rid


@pytest.mark.slow
def test_a_damaged_file_of_each_new_format_is_refused_with_exit_1_never_a_crash(tmp_path):
    """Seeded damage (a field deleted, or set to null, text, a list, a huge or negative number) to one
    file of each new format: the import writes a receipt or stops with one `Error:` line, exit 1;
    never a crash (exit 2)."""
    import random

    rng = random.Random(54)
    bad_values = [None, "x", -1, 1e300, [], {}, True, 0, "NaN"]

    def damage(obj, depth=0):
        if isinstance(obj, dict) and obj:
            k = rng.choice(list(obj))
            if rng.random() < 0.3:
                del obj[k]
            elif rng.random() < 0.6 or depth > 4:
                obj[k] = rng.choice(bad_values)
            else:
                damage(obj[k], depth + 1)
        elif isinstance(obj, list) and obj:
            i = rng.randrange(len(obj))
            if rng.random() < 0.5:
                obj[i] = rng.choice(bad_values)
            else:
                damage(obj[i], depth + 1)

    cases = [("llmperf", LLMPERF / "tgi/c4", "*_summary.json"), ("llmperf", LLMPERF / "tgi/c4", "*_individual_responses.json"),
             ("aiperf", AIPERF / "aiperf/c4", "profile_export_aiperf.json"), ("aiperf", AIPERF / "aiperf/c4", "profile_export.jsonl"),
             ("genai-perf", AIPERF / "genai-perf/c4", "profile_export_genai_perf.json"),
             ("genai-perf", AIPERF / "genai-perf/c4", "profile_export.json"),
             ("vllm-sweep", SWEEP / "SERVE-max_num_seqs=32-BENCH-request_rate=2", "run=0.json"),
             ("guidellm", GUIDELLM_V1, "benchmarks.json")]
    for n in range(32):
        fmt, folder, pattern = cases[n % len(cases)]
        d = tmp_path / f"c{n}" / folder.name
        shutil.copytree(folder, d)
        f = next(d.glob(pattern))
        if f.suffix == ".jsonl":
            lines = f.read_text().splitlines()
            i = rng.randrange(len(lines))
            row = json.loads(lines[i])
            damage(row)
            lines[i] = json.dumps(row)
            f.write_text("\n".join(lines) + "\n")
        else:
            data = json.loads(f.read_text())
            for _ in range(rng.randint(1, 3)):
                damage(data)
            f.write_text(json.dumps(data))
        target = d / "benchmarks.json" if fmt == "guidellm" else d
        r = import_here("import", fmt, "--candidate", str(target), "--set-candidate", "date=2025-01-01",
                        "-o", str(tmp_path / "data" / f"r{n}"))
        assert r.returncode in (0, 1) and "internal error" not in r.stderr, (fmt, f, r.stderr)
        if r.returncode == 1:
            one_error_line(r.returncode, r.stderr)
