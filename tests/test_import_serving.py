"""`sitegen import vllm-bench`, `guidellm` and `lm-eval` on the real files in ../shared/real2 (and
the GuideLLM fixtures): the guide's commands rewrite the committed receipts byte for byte, the
receipts pass `check --strict` and build, and every figure is recomputed here from the source files
with numpy, independently of the importers, and compared with the receipt and the pages."""
from __future__ import annotations

import glob
import hashlib
import json
import math
import os
import re
import shlex
from pathlib import Path

import numpy as np
import pytest

from conftest import strictly, ROOT, import_here, sitegen_here
from site_gen.building.builder import build_files
from site_gen.core.config import load_config

REAL2 = Path(os.environ.get("SITEGEN_REAL2_DIR", ROOT.parent / "shared" / "real2"))
VLLM = REAL2 / "vllm-bench/llm-k8s/results_serving_meta-llama-Llama-3.3-70B-Instruct"
SGLANG = REAL2 / "sglang-bench/datacrunch"
LMEVAL = REAL2 / "lm-eval/bias_classification-Meta-Llama-3-8B"
GUIDELLM = ROOT / "tests/fixtures/guidellm"
REPORTS = ("vllm-tp8-against-tp4pp2-ib", "vllm-tp4pp2-ib-against-no-ib", "vllm-tp4pp2-ib-aa", "sglang-llama-3.3-70b-sweep",
           "lm-eval-llama-3-8b-0-against-5-shot", "lm-eval-llama-3-8b-shots-study")


def need_real2() -> None:
    if not VLLM.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"{REAL2} is missing: CI places shared/ beside the checkout")
        pytest.skip(f"{REAL2} not found (set SITEGEN_REAL2_DIR to shared/real2)")


def readme_commands() -> list[list[str]]:
    """The import commands of the guide's serving block (docs/guide/importing.md), variables filled in and
    globs expanded."""
    text = (ROOT / "docs" / "guide" / "importing.md").read_text(encoding="utf-8")
    block = text.split("### From vLLM, SGLang and lm-evaluation-harness files", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    env: dict[str, str] = {}
    out = []
    for line in block.strip().splitlines():
        if m := re.fullmatch(r"(\w+)=(.*)", line):
            env[m.group(1)] = shlex.split(m.group(2))[0].replace("../shared/real2", str(REAL2))
        elif line.startswith("sitegen import"):
            words = []
            for w in shlex.split(line)[1:]:
                if m := re.match(r"\$(\w+)", w):
                    w = env[m.group(1)] + w[m.end():]
                words.extend(sorted(glob.glob(w)) if "*" in w else [w])
            out.append(words)
    return out


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    need_real2()
    root = tmp_path_factory.mktemp("serving")
    (root / "mkdocs.yml").write_text("site_name: Real2\nplugins:\n  - sitegen:\n      data_dir: data\n")
    commands = readme_commands()
    assert len(commands) == len(REPORTS)
    for args in commands:
        i = args.index("-o")
        args[i + 1] = str(root / args[i + 1])
        r = import_here(*args, "-q")
        assert r.returncode == 0, r.stderr
    check = sitegen_here("check", "--strict", "-f", str(root / "mkdocs.yml"))
    assert check.returncode == 0, check.stderr
    files = strictly(build_files(load_config(root / "mkdocs.yml"))).files
    return root, {k: v.decode() for k, v in files.items() if k.endswith(".html")}


def receipt(root: Path, name: str) -> dict:
    return json.loads((root / "data" / name / "SUMMARY.json").read_text())


@pytest.mark.slow
def test_the_guides_commands_rewrite_the_committed_receipts(imported):
    root, _ = imported
    for name in REPORTS:
        assert (root / "data" / name / "SUMMARY.json").read_bytes() == (ROOT / "data" / name / "SUMMARY.json").read_bytes(), name
        assert (root / "data" / name / "SUMMARY.json").stat().st_mode & 0o777 == 0o644


def test_receipts_are_under_a_quarter_of_their_sources(imported):
    """Where the sources carry per-request rows (a summary-only JSONL line is smaller than its
    provenance)."""
    root, _ = imported
    for name in (*REPORTS[:3], REPORTS[4]):
        doc = receipt(root, name)
        base = VLLM if name.startswith("vllm") else SGLANG if name.startswith("sglang") else LMEVAL
        sources = sum((base / s["file"]).stat().st_size for s in doc["provenance"]["sources"])
        assert (root / "data" / name / "SUMMARY.json").stat().st_size < sources / 4, name


def test_every_file_a_figure_names_is_a_source_with_the_hash_of_its_bytes(imported):
    """Provenance runs to the original files: a file named in a figure's place (an lm-eval value is
    cited to its results file and recomputed from the samples file beside it) is among the sources,
    and each source's SHA-256 is that of the file in ../shared/real2."""
    root, _ = imported
    for name in REPORTS:
        doc = receipt(root, name)
        base = VLLM if name.startswith("vllm") else SGLANG if name.startswith("sglang") else LMEVAL
        listed = {s["file"]: s["sha256"] for s in doc["provenance"]["sources"]}
        named = {m for f in doc["provenance"]["figures"] for m in re.findall(r"[\w.-]+\.jsonl?\b", f["at"])}
        assert {Path(f).name for f in listed} >= named, (name, named)
        for file, digest in listed.items():
            assert hashlib.sha256((base / file).read_bytes()).hexdigest() == digest, (name, file)
    lm = receipt(root, REPORTS[4])["provenance"]["sources"]
    assert sorted(s["file"] for s in lm) == sorted(p.name for p in LMEVAL.glob("*.json"))  # both runs' results and samples


# -- vLLM: every row and figure from the source arrays ---------------------------------------------

def source_of(doc: dict, rep: dict) -> Path:
    name = next(s["file"] for s in doc["provenance"]["sources"] if s["id"] == rep["source"])
    return VLLM / name


def numpy_figures(d: dict) -> dict:
    """vLLM's summary figures from its arrays, written here with numpy alone."""
    ok = np.array([e == "" for e in d["errors"]])
    ttft = np.array(d["ttfts"], dtype=float)[ok]
    itls = [np.array(x, dtype=float) for x, k in zip(d["itls"], ok) if k]
    out = np.array(d["output_lens"])[ok]
    lat = ttft + np.array([x.sum() for x in itls])
    tpot = (lat - ttft)[out > 1] / (out[out > 1] - 1)
    gaps = np.concatenate(itls)
    figs = {"completed": ok.sum(), "total_input_tokens": np.array(d["input_lens"])[ok].sum(),
            "total_output_tokens": np.array(d["output_lens"]).sum()}
    for name, x in (("ttft", ttft), ("tpot", tpot), ("itl", gaps)):
        figs[f"mean_{name}_ms"] = x.mean() * 1000
        figs[f"median_{name}_ms"] = np.median(x) * 1000
        figs[f"std_{name}_ms"] = x.std() * 1000
        figs[f"p99_{name}_ms"] = np.percentile(x, 99) * 1000
    figs["request_throughput"] = ok.sum() / d["duration"]
    figs["output_throughput"] = figs["total_output_tokens"] / d["duration"]
    figs["total_token_throughput"] = (figs["total_input_tokens"] + figs["total_output_tokens"]) / d["duration"]
    return {"figs": figs, "ttft": ttft * 1000, "lat": lat * 1000, "tpot": tpot * 1000, "gaps": gaps * 1000,
            "itl_mean": np.array([x.mean() * 1000 for x in itls if len(x)]), "ok": ok}


@pytest.mark.parametrize("name", REPORTS[:3])
def test_vllm_rows_and_figures_recompute_from_the_source_arrays(imported, name):
    root, _ = imported
    doc = receipt(root, name)
    seen = 0
    for _role, side in doc["serving"]["sides"].items():
        for lp in side["load_points"]:
            for rep in lp["repeats"]:
                src = json.loads(source_of(doc, rep).read_text())
                want = numpy_figures(src)
                rows = rep["requests"]
                assert len(rows["ttft_ms"]) == len(src["ttfts"]) == rep["completed"] + rep["failed"]
                assert rows["input_tokens"] == src["input_lens"] and rows["output_tokens"] == src["output_lens"]
                np.testing.assert_allclose([x for x in rows["ttft_ms"] if x is not None], want["ttft"], atol=1e-6)
                np.testing.assert_allclose([x for x in rows["e2e_ms"] if x is not None], want["lat"], atol=1e-6)
                np.testing.assert_allclose([x for x in rows["tpot_ms"] if x is not None], want["tpot"], atol=1e-6)
                np.testing.assert_allclose([x for x in rows["itl_ms"] if x is not None], want["itl_mean"], atol=1e-6)
                g = rep["itl_gaps"]
                assert g["gaps"] == len(want["gaps"])
                np.testing.assert_allclose([g["mean_ms"], g["median_ms"], g["p99_ms"], g["max_ms"]],
                                           [want["gaps"].mean(), np.median(want["gaps"]), np.percentile(want["gaps"], 99),
                                            want["gaps"].max()], atol=1e-6)
                stated = {s["key"]: s for s in rep["stated"]}
                for key, v in want["figs"].items():
                    assert stated[key]["check"] == "rows"
                    assert stated[key]["value"] == src[key], key  # the file's own figure, kept as written
                    assert math.isclose(float(v), src[key], rel_tol=1e-9, abs_tol=1e-3 if key.endswith("_ms") else 0), key
                assert lp["load"]["request_rate"] == (src["request_rate"] if src["request_rate"] == "inf" else int(src["request_rate"]))
                seen += 1
    assert seen == 8


def test_the_same_prompts_pair_and_the_aa_report_matches_every_rate(imported):
    root, _ = imported
    doc = receipt(root, "vllm-tp4pp2-ib-aa")
    assert [m["paired"] for m in doc["serving"]["matched"]] == [True] * 4
    sides = doc["serving"]["sides"]
    for m in doc["serving"]["matched"]:
        b = next(lp for lp in sides["baseline"]["load_points"] if lp["id"] == m["baseline"])
        c = next(lp for lp in sides["candidate"]["load_points"] if lp["id"] == m["candidate"])
        assert b["repeats"][0]["requests"]["input_tokens"] == c["repeats"][0]["requests"]["input_tokens"]
    assert {d["field"] for d in doc["report"]["differs"]} >= {"hardware"}
    assert all(d.get("allowed") for d in doc["report"]["differs"] if d["field"] == "hardware")


def test_what_was_allowed_is_on_the_report(imported):
    _, pages = imported
    overview = pages["reports/vllm-tp4pp2-ib-aa/index.html"]
    assert "Standard_ND96asr_v4-GPUDirect-RDMA-Infiniband x 2" in overview and "allowed on import with --allow" in overview


def test_the_high_load_median_ttft_of_the_two_repeats_is_what_issue_30_quotes(imported):
    root, _ = imported
    doc = receipt(root, "vllm-tp4pp2-ib-aa")
    medians = []
    for role in ("baseline", "candidate"):
        lp = next(lp for lp in doc["serving"]["sides"][role]["load_points"] if lp["load"]["request_rate"] == "inf")
        ttft = np.array([x for x in lp["repeats"][0]["requests"]["ttft_ms"] if x is not None])
        medians.append(np.median(ttft))
    assert round(medians[0]) == 893 and round(medians[1]) == 1002


# -- SGLang ------------------------------------------------------------------------------------------

def test_the_sglang_sweep_is_a_one_setup_report_of_every_line(imported):
    root, pages = imported
    doc = receipt(root, "sglang-llama-3.3-70b-sweep")
    assert "baseline" not in doc["serving"]["sides"] and "baseline" not in doc["report"]["engines"]
    lines = [(f, n, json.loads(t)) for f in ("llama_3_3_70b_online_output.jsonl", "llama_3_3_70b_offline_output.jsonl")
             for n, t in enumerate((SGLANG / f).read_text().splitlines(), 1) if t.strip()]
    reps = [rep for lp in doc["serving"]["sides"]["candidate"]["load_points"] for rep in lp["repeats"]]
    assert len(reps) == len(lines) == 14
    by_at = {}
    for rep in reps:
        file = next(s["file"] for s in doc["provenance"]["sources"] if s["id"] == rep["source"])
        by_at[(file, rep["at"])] = rep
    for f, n, rec in lines:
        rep = by_at[(f, f"line {n}")]
        stated = {s["key"]: s for s in rep["stated"]}
        assert rep["completed"] == rec["completed"] and rep["duration_s"] == rec["duration"]
        for key in ("median_ttft_ms", "median_itl_ms", "mean_e2e_latency_ms", "median_e2e_latency_ms"):
            assert stated[key]["value"] == rec[key] and stated[key]["check"] == "none"
        assert stated["output_throughput"]["check"] == "totals"
        assert math.isclose(rec["total_output_tokens"] / rec["duration"], rec["output_throughput"], rel_tol=1e-12)
    overview = pages["reports/sglang-llama-3.3-70b-sweep/index.html"]
    assert "no baseline" in overview and "16 req/s" in overview and "rate inf" not in overview
    # The home row of a one-setup sweep names one setup, with no role ("candidate") to tell apart.
    home = pages["index.html"]
    assert "SGLang, Llama 3.3 70B, one setup (no baseline)" in home and "vs no baseline" not in home
    assert "candidate unknown" not in home


def sglang_details_line(rng: np.random.Generator, n: int, rate: str) -> str:
    """An SGLang line of the newest key set: arrays under `details`, per-request latencies absent."""
    ttft = rng.uniform(0.05, 0.3, n)
    itls = [list(rng.uniform(0.01, 0.03, int(k))) for k in rng.integers(1, 40, n)]
    out = [len(x) + 1 for x in itls]
    lat = ttft + np.array([sum(x) for x in itls])
    tpot = (lat - ttft) / (np.array(out) - 1)
    gaps = np.concatenate([np.array(x) for x in itls])
    duration = float(lat.max() + 1.0)
    rec = {"backend": "sglang", "dataset_name": "random", "request_rate": "RATE", "max_concurrency": 16,
           "random_input_len": 512, "random_output_len": 64, "random_range_ratio": 0.0, "duration": duration,
           "completed": n, "total_input_tokens": 512 * n, "total_output_tokens": int(sum(out)),
           "request_throughput": n / duration, "output_throughput": sum(out) / duration,
           "mean_e2e_latency_ms": lat.mean() * 1000, "median_e2e_latency_ms": float(np.median(lat)) * 1000,
           "p99_e2e_latency_ms": float(np.percentile(lat, 99)) * 1000, "median_ttft_ms": float(np.median(ttft)) * 1000,
           "p99_tpot_ms": float(np.percentile(tpot, 99)) * 1000, "p95_itl_ms": float(np.percentile(gaps, 95)) * 1000,
           "max_itl_ms": float(gaps.max()) * 1000, "concurrency": float(lat.sum()) / duration,
           "server_info": {"version": "0.5.23"},
           "details": {"input_lens": [512] * n, "output_lens": out, "ttfts": list(ttft), "itls": itls,
                       "generated_texts": ["x"] * n, "errors": [""] * n}}
    return json.dumps(rec).replace('"RATE"', rate)


def test_sglang_details_and_bare_infinity_recompute(tmp_path):
    rng = np.random.default_rng(5)
    f = tmp_path / "run.jsonl"
    f.write_text(sglang_details_line(rng, 300, "Infinity") + "\n" + sglang_details_line(rng, 200, "4.0") + "\n")
    out = tmp_path / "data" / "sg"
    r = import_here("import", "vllm-bench", "--candidate", str(f), "--set-candidate", "date=2026-01-02",
                     "--set-candidate", "model=m/x", "-o", str(out), "-q")
    assert r.returncode == 0, r.stderr
    doc = json.loads((out / "SUMMARY.json").read_text())
    side = doc["serving"]["sides"]["candidate"]
    assert side["environment"]["engine_version"]["value"] == "0.5.23"
    lps = {lp["load"]["request_rate"]: lp for lp in side["load_points"]}
    assert set(lps) == {4, "inf"} and lps["inf"]["load"]["max_concurrency"] == 16
    rep = lps["inf"]["repeats"][0]
    assert len(rep["requests"]["ttft_ms"]) == 300
    # SGLang's rows hold no request's end: its end-to-end, TPOT and concurrency figures are kept as stated
    no_end = {"mean_e2e_latency_ms", "median_e2e_latency_ms", "p99_e2e_latency_ms", "p99_tpot_ms", "concurrency"}
    assert all(s["check"] == ("not recomputed" if s["key"] in no_end else "rows") or s["check"] == "totals"
               for s in rep["stated"]), rep["stated"]
    assert {s["key"] for s in rep["stated"]} >= {"max_itl_ms", "concurrency", "p95_itl_ms", "p99_tpot_ms"}


# -- lm-eval -----------------------------------------------------------------------------------------

def samples(stamp: str) -> list[dict]:
    text = (LMEVAL / f"samples_bias_classification_{stamp}.json").read_text()
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_lm_eval_values_errors_and_paired_differences_recompute(imported):
    root, pages = imported
    doc = receipt(root, "lm-eval-llama-3-8b-0-against-5-shot")
    b, c = samples("2024-06-17T15-44-37.867068"), samples("2024-06-17T12-20-26.826621")
    assert [x["doc_id"] for x in b] == [x["doc_id"] for x in c]
    assert all(x["doc_hash"] == y["doc_hash"] for x, y in zip(b, c))
    res = {r["measure"]: r for r in doc["accuracy"]["results"]}
    for metric in ("acc", "acc_norm"):
        r = res[f"bias_classification-{metric}-none"]
        xb, xc = np.array([x[metric] for x in b]), np.array([x[metric] for x in c])
        assert r["paired"] and r["items"] == 609
        assert math.isclose(r["baseline"]["value"], xb.mean(), rel_tol=1e-12)
        assert math.isclose(r["baseline"]["stderr"], xb.std(ddof=1) / np.sqrt(609), rel_tol=1e-12)
        d = xc - xb
        se = d.std(ddof=1) / np.sqrt(len(d))
        assert math.isclose(r["difference"], d.mean(), rel_tol=1e-12)
        np.testing.assert_allclose(r["interval"], [d.mean() - 1.959964 * se, d.mean() + 1.959964 * se], rtol=1e-6)
    r = res["bias_classification-f1-none"]

    def f1(pairs: np.ndarray) -> np.ndarray:
        g, p = pairs[..., 0] == 1, pairs[..., 1] == 1
        tp, fp, fn = (g & p).sum(-1), (~g & p).sum(-1), (g & ~p).sum(-1)
        return 2 * tp / (2 * tp + fp + fn)

    pb, pc = np.array([x["f1"] for x in b]), np.array([x["f1"] for x in c])
    assert math.isclose(r["baseline"]["value"], f1(pb), rel_tol=1e-12)
    assert math.isclose(r["difference"], f1(pc) - f1(pb), rel_tol=1e-12)
    idx = np.random.default_rng(0).integers(0, 609, size=(2000, 609))
    boot = np.sort(f1(pc[idx]) - f1(pb[idx]))
    assert r["interval"] == [float(boot[int(np.floor(0.025 * 1999))]), float(boot[int(np.floor(0.975 * 1999))])]
    assert r["interval"][1] < 0  # five shots lower the F1 beyond noise
    page = pages["reports/lm-eval-llama-3-8b-0-against-5-shot/accuracy.html"]
    assert f"{(f1(pc) - f1(pb)) * 100:.1f}".replace("-", "−") in page and "unpaired" not in page
    assert any(d["field"] == "bias_classification: few-shot examples" and d["baseline"] == "0" and d["candidate"] == "5"
               for d in doc["report"]["differs"])


def test_lm_eval_without_samples_is_unpaired_and_says_so(tmp_path):
    need_real2()
    for side in ("a", "b"):
        (tmp_path / side).mkdir()
    (tmp_path / "a" / "results_x.json").write_bytes((LMEVAL / "results_2024-06-17T15-44-37.867068.json").read_bytes())
    (tmp_path / "b" / "results_y.json").write_bytes((LMEVAL / "results_2024-06-17T12-20-26.826621.json").read_bytes())
    root = tmp_path / "site"
    r = import_here("import", "lm-eval", "--baseline", str(tmp_path / "a/results_x.json"), "--candidate",
                     str(tmp_path / "b/results_y.json"), "-o", str(root / "data" / "u"), "-q")
    assert r.returncode == 0, r.stderr
    doc = json.loads((root / "data/u/SUMMARY.json").read_text())
    acc = doc["accuracy"]["results"][0]
    res = {k: json.loads((LMEVAL / f).read_text())["results"]["bias_classification"] for k, f in
           (("b", "results_2024-06-17T15-44-37.867068.json"), ("c", "results_2024-06-17T12-20-26.826621.json"))}
    se = math.hypot(res["b"]["acc_stderr,none"], res["c"]["acc_stderr,none"])
    diff = res["c"]["acc,none"] - res["b"]["acc,none"]
    assert acc["paired"] is False and "unpaired" in acc["interval_method"]
    np.testing.assert_allclose(acc["interval"], [diff - 1.959964 * se, diff + 1.959964 * se], rtol=1e-6)
    (root / "mkdocs.yml").write_text("site_name: U\nplugins:\n  - sitegen:\n      data_dir: data\n")
    pages = strictly(build_files(load_config(root / "mkdocs.yml"))).files
    assert "unpaired" in pages["reports/u/accuracy.html"].decode()


# -- GuideLLM (fixtures) ------------------------------------------------------------------------------

def test_guidellm_keeps_the_window_and_its_figures_recompute(tmp_path):
    out = tmp_path / "data" / "g"
    r = import_here("import", "guidellm", "--baseline", str(GUIDELLM / "baseline/benchmarks.json"), "--candidate",
                     str(GUIDELLM / "candidate/benchmarks.json"), "-o", str(out), "-q")
    assert r.returncode == 0, r.stderr
    doc = json.loads((out / "SUMMARY.json").read_text())
    src = json.loads((GUIDELLM / "candidate/benchmarks.json").read_text())
    side = doc["serving"]["sides"]["candidate"]
    assert len(side["load_points"]) == len(src["benchmarks"]) == 3
    for lp in side["load_points"]:
        rep = lp["repeats"][0]
        i = int(re.search(r"\[(\d+)\]", rep["at"]).group(1))
        b = src["benchmarks"][i]
        start, end = b["start_time"], b["end_time"]
        ok = [q for q in b["requests"]["successful"] if q["request_end_time"] >= start and q["request_start_time"] <= end]
        bad = [q for q in b["requests"]["errored"] if q["request_end_time"] >= start and q["request_start_time"] <= end]
        assert rep["completed"] == len(ok) and rep["failed"] == len(bad)
        assert rep["window"]["left_out"] == len(b["requests"]["successful"]) + len(b["requests"]["errored"]) - len(ok) - len(bad)
        lat = np.array([q["request_latency"] for q in ok])
        rows = rep["requests"]
        np.testing.assert_allclose(sorted(x for x in rows["e2e_ms"] if x is not None), np.sort(lat * 1000), atol=1e-6)
        # unweighted figures: GuideLLM's percentile is numpy's inverted CDF
        for name, values in (("request_latency", lat), ("output_token_count", np.array([q["output_tokens"] for q in ok]))):
            stated = {s["key"]: s["value"] for s in rep["stated"]}
            for p in (50, 90, 99):
                key = f"{name}.successful." + ("median" if p == 50 else f"p{p}")
                dist = b["metrics"][name]["successful"]
                assert stated[key] == (dist["median"] if p == 50 else dist["percentiles"][f"p{p}"])
                # where q x n is whole, the cumulative sum's rounding decides between two neighbours
                near = {float(np.quantile(values, p / 100 + e, method="inverted_cdf")) for e in (-1e-9, 1e-9)}
                assert stated[key] in near, (key, stated[key], near)
            assert math.isclose(stated[f"{name}.successful.mean"], float(values.mean()), rel_tol=1e-9)
            assert math.isclose(stated[f"{name}.successful.std_dev"], float(values.std()), rel_tol=1e-9)
    assert all(not m["paired"] for m in doc["serving"]["matched"])


def test_a_report_of_serving_data_alone_builds(imported):
    _, pages = imported
    for name in REPORTS[:4]:
        assert f"reports/{name}/index.html" in pages and f"reports/{name}/numbers.html" in pages


def test_runs_are_counted_from_the_source_files_and_one_count_reads_as_one(imported):
    """'What was tested' counts each side's runs and requests from the result files themselves; a
    range whose ends are equal is said as the one count (never '200–200')."""
    root, _ = imported
    tested = {t["label"]: t["text"] for t in receipt(root, "vllm-tp4pp2-ib-aa")["report"]["tested"]}
    for label, folder in (("Baseline runs", "03_tp4_pp2_IB"), ("Candidate runs", "04_tp4_pp2_IB")):
        counts = {len(json.loads(f.read_text())["ttfts"]) for f in sorted((VLLM / folder).glob("*_qps_*.json"))}
        runs = len(list((VLLM / folder).glob("*_qps_*.json")))
        assert len(counts) == 1
        assert tested[label] == f"{runs} runs, {counts.pop():,} requests a run"
    for name in REPORTS:
        for t in receipt(root, name)["report"]["tested"]:
            assert not re.search(r"(?<![\d,.])([\d,.]+)–\1(?![\d,.])", t["text"]), (name, t)
