"""How fast a large study imports and builds (issue 53's goal), in this process (the CLI's start-up
left out of the import, included in the build: `sitegen build` in a new process).

    python benchmarks/study_speed.py                  # 10 setups x 3 runs x 8 loads x 1,000 requests
    python benchmarks/study_speed.py --setups 4 --runs 2 --loads 4 --requests 500

The files are vLLM result JSON written here (numpy, the client's formulas: each figure the file
states recomputes from its arrays), one a run and load, with per-request arrays: TTFT uniform
30-500 ms, 16 to 128 output tokens a request with its inter-token gaps (10-50 ms). The study is
imported with `sitegen import vllm-bench --setup NAME FILE…` and built with `sitegen build` in a
new process (a project of this one report, no docs pages), each the best of `--repeat` runs.

Goals: import under 5 s, build under 10 s (two cores). Exits 1 when one is missed. A timing on a
shared machine moves with its load: the load average and the CPU seconds spent (this process and the
workers it forked) are printed beside the wall times. A study of 16 files or more is read by forked
workers (importers/study_files.py read_all).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from site_gen.cli import main  # noqa: E402

IMPORT_GOAL, BUILD_GOAL = 5.0, 10.0
RATES = (1, 2, 4, 8, 16, 32, 64, "inf")


def run_file(path: Path, rng: np.random.Generator, n: int, rate, scale: float) -> None:
    """One vLLM result of n requests at `rate`, its summary figures computed with numpy."""
    ttft = rng.uniform(0.03, 0.5, n) * scale
    itls = [(rng.uniform(0.01, 0.05, int(k)) * scale).tolist() for k in rng.integers(15, 128, n)]
    out = np.array([len(x) + 1 for x in itls])
    lat = ttft + np.array([sum(x) for x in itls])
    tpot = (lat - ttft) / (out - 1)
    gaps = np.concatenate([np.array(x) for x in itls])
    inputs = rng.integers(10, 2000, n).tolist()
    d = float(lat.max() + 1)
    rec = {"date": "20260101-000000", "backend": "vllm", "model_id": "org/model", "num_prompts": n,
           "request_rate": rate, "max_concurrency": None, "burstiness": 1.0, "duration": d, "completed": n,
           "total_input_tokens": int(sum(inputs)), "total_output_tokens": int(out.sum()), "request_throughput": n / d,
           "output_throughput": float(out.sum()) / d, "input_lens": inputs, "output_lens": out.tolist(),
           "ttfts": ttft.tolist(), "itls": itls, "generated_texts": [""] * n, "errors": [""] * n}
    for name, x in (("ttft", ttft), ("tpot", tpot), ("itl", gaps)):
        rec[f"mean_{name}_ms"], rec[f"median_{name}_ms"] = float(x.mean()) * 1000, float(np.median(x)) * 1000
        rec[f"std_{name}_ms"], rec[f"p99_{name}_ms"] = float(x.std()) * 1000, float(np.percentile(x, 99)) * 1000
    path.write_text(json.dumps(rec))


def best(fn, n: int) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process and the processes it waited for), the best of n."""
    import resource

    def cpu() -> float:
        me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime

    times = []
    for _ in range(n):
        t, c = time.perf_counter(), cpu()
        fn()
        times.append((time.perf_counter() - t, cpu() - c))
    return min(times)


def main_() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--setups", type=int, default=10)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--loads", type=int, default=8)
    ap.add_argument("--requests", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "docs").mkdir()
        (root / "docs" / "index.md").write_text("# Study\n")
        (root / "mkdocs.yml").write_text("site_name: Study speed\nplugins:\n  - sitegen:\n      data_dir: data\n"
                                         "      slo: {ttft_p99_ms: 500, tpot_p50_ms: 50}\n")
        cmd = ["import", "vllm-bench"]
        size = 0
        for s in range(args.setups):
            scale = 1 + 0.05 * s
            for r in range(args.runs):
                files = []
                for rate in RATES[:args.loads]:
                    f = root / "runs" / f"s{s}" / f"run{r}_qps_{rate}.json"
                    f.parent.mkdir(parents=True, exist_ok=True)
                    run_file(f, rng, args.requests, rate, scale)
                    size += f.stat().st_size
                    files.append(str(f))
                cmd += ["--setup", f"s{s}", *files]
            cmd += ["--setup-set", f"s{s}:gpus={1 + s % 4}"]
        cmd += ["-o", str(root / "data" / "study"), "--force", "-q", "-f", str(root / "mkdocs.yml")]
        n_files = args.setups * args.runs * args.loads
        t_import, cpu_import = best(lambda: main(cmd), args.repeat)
        receipt = (root / "data/study/SUMMARY.json").stat().st_size
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        build = [sys.executable, "-m", "site_gen", "build", "-q", "--no-cache", "-d", str(root / "site"), "-f",
                 str(root / "mkdocs.yml")]
        t_build, cpu_build = best(lambda: subprocess.run(build, check=True, env=env, cwd=root), args.repeat)
        pages = sum(p.stat().st_size for p in (root / "site/reports/study").glob("*.html"))
    load = os.getloadavg()[0]
    print(f"study: {args.setups} setups x {args.runs} runs x {args.loads} loads x {args.requests:,} requests "
          f"({n_files} files, {size / 1e6:.0f} MB; receipt {receipt / 1e6:.1f} MB; pages {pages / 1e3:.0f} kB); "
          f"{os.cpu_count()} cores, load average {load:.2f}")
    print(f"import: {t_import:.2f} s, {cpu_import:.2f} s of CPU (goal under {IMPORT_GOAL:g} s): "
          f"{'met' if t_import < IMPORT_GOAL else 'not met'}")
    print(f"build:  {t_build:.2f} s, {cpu_build:.2f} s of CPU (goal under {BUILD_GOAL:g} s, a new process): "
          f"{'met' if t_build < BUILD_GOAL else 'not met'}")
    return 0 if t_import < IMPORT_GOAL and t_build < BUILD_GOAL else 1


if __name__ == "__main__":
    sys.exit(main_())
