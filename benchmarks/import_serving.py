"""The serving importers' speed and receipt sizes, in this process (the CLI's start-up left out).

    python benchmarks/import_serving.py            # ../shared/real2 beside the checkout
    python benchmarks/import_serving.py REAL2_DIR

Goals (issue 29): the 16 vLLM files of llm-k8s read and checked under 3 s; a receipt under a quarter
of its sources' size; a vLLM file of 5,000 requests (made here, with per-request arrays) imported
under 2 s. Exits 1 when one is missed. Each time is the best of three runs.
"""
from __future__ import annotations

import glob
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from site_gen.cli import main  # noqa: E402
from site_gen.importers.vllm_bench import read_files, source_root  # noqa: E402


def best(fn, n: int = 3) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def big_file(path: Path, n: int) -> None:
    """A vLLM result of n requests with its summary figures (the client's formulas, numpy)."""
    rng = np.random.default_rng(1)
    ttft = rng.uniform(0.03, 0.5, n)
    itls = [rng.uniform(0.01, 0.05, int(k)).tolist() for k in rng.integers(50, 400, n)]
    out = np.array([len(x) + 1 for x in itls])
    lat = ttft + np.array([sum(x) for x in itls])
    tpot = (lat - ttft) / (out - 1)
    gaps = np.concatenate([np.array(x) for x in itls])
    inputs = rng.integers(10, 2000, n).tolist()
    d = float(lat.max() + 1)
    rec = {"date": "20260101-000000", "backend": "vllm", "model_id": "org/model", "num_prompts": n, "request_rate": "inf",
           "max_concurrency": 256, "duration": d, "completed": n, "total_input_tokens": int(sum(inputs)),
           "total_output_tokens": int(out.sum()), "request_throughput": n / d, "output_throughput": float(out.sum()) / d,
           "input_lens": inputs, "output_lens": out.tolist(), "ttfts": ttft.tolist(), "itls": itls,
           "generated_texts": ["text " * 20] * n, "errors": [""] * n}
    for name, x in (("ttft", ttft), ("tpot", tpot), ("itl", gaps)):
        rec[f"mean_{name}_ms"], rec[f"median_{name}_ms"] = float(x.mean()) * 1000, float(np.median(x)) * 1000
        rec[f"std_{name}_ms"], rec[f"p99_{name}_ms"] = float(x.std()) * 1000, float(np.percentile(x, 99)) * 1000
    path.write_text(json.dumps(rec))


def main_(real2: Path) -> int:
    vllm = real2 / "vllm-bench/llm-k8s/results_serving_meta-llama-Llama-3.3-70B-Instruct"
    files = [Path(p) for p in sorted(glob.glob(str(vllm / "*/*_qps_*.json")))]
    assert len(files) == 16, f"expected the 16 llm-k8s files under {vllm}"
    sources = sum(f.stat().st_size for f in files)
    t16 = best(lambda: read_files(files, source_root(files)))
    print(f"16 vLLM files ({sources / 1e6:.1f} MB) read and checked: {t16:.2f} s (goal < 3 s)")
    ok = t16 < 3
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        # `sitegen import -o` names a report folder in the data folder of a config (`-f`).
        config = out / "mkdocs.yml"
        config.write_text("site_name: Imported\nplugins:\n  - sitegen:\n      data_dir: data\n")
        for base, cand in (("01_tp8_pp1", "03_tp4_pp2_IB"), ("03_tp4_pp2_IB", "04_tp4_pp2_IB")):
            b, c = sorted(glob.glob(str(vllm / base / "*_qps_*.json"))), sorted(glob.glob(str(vllm / cand / "*_qps_*.json")))
            args = ["import", "vllm-bench", "--baseline", *b, "--candidate", *c, "--allow", "hardware", "-o",
                    str(out / "data" / "r"), "--force", "-q", "-f", str(config)]
            t = best(lambda args=args: main(args))
            size = (out / "data/r/SUMMARY.json").stat().st_size
            src = sum(Path(p).stat().st_size for p in b + c)
            ratio = size / src
            print(f"{base} against {cand}, 4 + 4 files, written: {t:.2f} s; receipt {size / 1e3:.0f} kB = "
                  f"{ratio:.1%} of its sources (goal < 25%)")
            ok &= ratio < 0.25
        big = out / "big.json"
        big_file(big, 5000)
        args = ["import", "vllm-bench", "--candidate", str(big), "-o", str(out / "data" / "big"), "--force", "-q",
                "-f", str(config)]
        t = best(lambda: main(args))
        size = (out / "data/big/SUMMARY.json").stat().st_size
        print(f"one file of 5,000 requests ({big.stat().st_size / 1e6:.1f} MB) imported: {t:.2f} s (goal < 2 s); "
              f"receipt {size / 1e6:.2f} MB")
        ok &= t < 2
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main_(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "real2"))
