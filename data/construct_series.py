"""Writes the example's nightly series: ten illustrative nights of one vLLM setup, drawn from real noise.

No public benchmark we may redistribute holds a real nightly series of one engine benchmarked alike
(the ledger's serving probes are three releases, each against a different baseline). So each night
here is constructed: the figures of vLLM's tp4xpp2 InfiniBand run at 4 req/s (llm-k8s, Apache-2.0,
../shared/real2), each night's median and p99 TTFT and TPOT those of a bootstrap resample of the
requests of one of the setup's two real runs (drawn at random: the request scatter and the
run-to-run difference, both real), the throughput one of the two runs' own, moved by a lognormal of
their difference's spread. From night 7 on, TPOT is made 12% slower: an illustrative regression the
change points should find. Each night is written as vLLM's result JSON (summary only, as
`vllm bench serve --save-result` writes it without --save-detailed) and imported with the documented
command; the receipt then says it is illustrative. Run it from the repository root:

    python data/construct_series.py ../shared/real2
"""
from __future__ import annotations

import glob
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
NIGHTS = 10
STEP_AT = 6          # night 7 (0-based 6) on
STEP = 0.12
SEED = 55
SERIES = "vllm-nightly-illustrative"
NOTE = ("Illustrative: this night was constructed, not measured. Its figures are drawn from the request scatter and "
        "run-to-run difference of two real runs of one vLLM setup (llm-k8s, tp4×pp2 InfiniBand, 4 req/s); from night 7 "
        "on, TPOT is made 12% slower on purpose, and the throughput lower with it (data/construct_series.py).")


def _tpot(run: dict) -> np.ndarray:
    ok = [not e for e in run["errors"]]
    return np.array([sum(g) / (n - 1) * 1000 for g, n, good in zip(run["itls"], run["output_lens"], ok) if good and n > 1])


def main(real2: Path) -> None:
    rng = np.random.default_rng(SEED)
    folder = real2 / "vllm-bench/llm-k8s/results_serving_meta-llama-Llama-3.3-70B-Instruct"
    runs = [json.loads(Path(glob.glob(str(folder / f"{r}_tp4_pp2_IB" / "*qps_04.json"))[0]).read_text()) for r in ("03", "04")]
    spread = abs(math.log(runs[1]["output_throughput"] / runs[0]["output_throughput"])) / math.sqrt(2)
    with tempfile.TemporaryDirectory() as tmp:
        for night in range(NIGHTS):
            run = runs[int(rng.integers(2))]
            n = len(run["ttfts"])
            idx = rng.integers(0, n, n)
            ttft = np.asarray(run["ttfts"], dtype=float)[idx] * 1000
            tpot = _tpot(run)[rng.integers(0, len(_tpot(run)), len(_tpot(run)))]
            slower = 1 + STEP if night >= STEP_AT else 1.0
            tput = run["output_throughput"] * math.exp(rng.normal(0, spread)) / (1 + (slower - 1) * 0.8)
            duration = run["total_output_tokens"] / tput
            date = f"2025-05-{night + 1:02d}"
            doc = {"date": date.replace("-", "") + "-000000", "backend": "vllm", "model_id": run["model_id"],
                   "tokenizer_id": run["tokenizer_id"], "num_prompts": run["num_prompts"], "request_rate": run["request_rate"],
                   "burstiness": run.get("burstiness", 1.0), "max_concurrency": run.get("max_concurrency"),
                   "duration": duration, "completed": run["completed"], "total_input_tokens": run["total_input_tokens"],
                   "total_output_tokens": run["total_output_tokens"], "request_throughput": run["completed"] / duration,
                   "output_throughput": run["total_output_tokens"] / duration,
                   "total_token_throughput": (run["total_input_tokens"] + run["total_output_tokens"]) / duration}
            for name, x in (("ttft", ttft), ("tpot", tpot * slower)):
                doc.update({f"mean_{name}_ms": float(x.mean()), f"median_{name}_ms": float(np.median(x)),
                            f"std_{name}_ms": float(x.std()), f"p99_{name}_ms": float(np.percentile(x, 99))})
            path = Path(tmp) / f"vllm-nightly-{night + 1:02d}.json"
            path.write_text(json.dumps(doc))
            out = HERE / f"vllm-nightly-{night + 1:02d}"
            subprocess.run([sys.executable, "-m", "site_gen", "import", "vllm-bench", "--candidate", str(path),
                            "--label-candidate", "vLLM nightly (illustrative)", "--series", SERIES,
                            "--commit", f"night{night + 1:02d}", "--set-candidate", f"date={date}",
                            "--set-candidate", "hardware=Standard_ND96asr_v4 x 2 (illustrative)",
                            "--set-candidate", "engine_version=nightly", "--set-candidate", "dataset=sharegpt",
                            "--attribution", "Noise drawn from \"llm-k8s\" by Suraj Deshmukh (surajssd), "
                            "https://github.com/surajssd/llm-k8s, Apache-2.0. Changed: every figure constructed "
                            "from its runs' requests (data/construct_series.py).",
                            "-o", str(out), "--force", "-q"], check=True)
            receipt = json.loads((out / "SUMMARY.json").read_text())
            receipt = {"schema_version": receipt["schema_version"], "illustrative": NOTE,
                       **{k: v for k, v in receipt.items() if k != "schema_version"}}
            (out / "SUMMARY.json").write_text(json.dumps(receipt, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parent.parent / "shared" / "real2")
