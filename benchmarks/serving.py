"""What the serving sections (Latency, Distributions, Load) add to a build, against issue 30's goal.

    python benchmarks/serving.py            # 5 cold builds each way
    python benchmarks/serving.py --runs 9

A site of one report of 2 sides x 4 load points x 1,000 requests (made by tests/serving_receipts.py,
with failed and one-token requests and service-level objectives) is built cold, each build in a
fresh process without the build cache, with the serving sections and with them unregistered (the
receipt is then still read and validated, its pages are the overview, checkpoints and numbers).
Goal: under 1 s more with them. Prints the medians (wall and CPU: the CPU time moves little when
other work shares the machine) and the in-process split (analysis: the bootstrap; views and
pages); exits 1 when the goal is missed.
"""
from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import serving_receipts as sr  # noqa: E402

GOAL_S = 1.0
SLO = "      slo: {ttft_p99_ms: 500, tpot_p50_ms: 50}\n"
BUILD = ("import sys\nimport site_gen.sections as s\n"
         "if sys.argv[3] == 'without':\n    s.unregister('latency'); s.unregister('distributions'); s.unregister('load')\n"
         "from site_gen.cli import main\n"
         "raise SystemExit(main(['build', '-q', '--no-cache', '-f', sys.argv[1], '-d', sys.argv[2]]))\n")


def make_site(folder: Path) -> Path:
    sr.write(folder / "data" / "serving-2x4x1000", sr.pair(seed=1, n=1000, points=4, scale=1.03, failed=5, one_token=3))
    config = folder / "mkdocs.yml"
    config.write_text(f"site_name: Serving benchmark\nplugins:\n  - sitegen:\n      data_dir: data\n{SLO}")
    return config


def cold_build(config: Path, site: Path, mode: str) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one build in a fresh process: the CPU time
    hardly moves when other work shares the machine, the wall time does."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", BUILD, str(config), str(site), mode], capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise SystemExit(f"build failed ({mode}): {out.stderr}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def split(config: Path) -> dict[str, float]:
    """In this process, CPU seconds: the analysis (bootstrap included), then the report's pages and CSV files."""
    from site_gen.analysis.report import analyse
    from site_gen.core.config import load_config
    from site_gen.receipts.load import load_report
    from site_gen.render.pages import ReportPages

    cfg = load_config(config)
    report = load_report(cfg.data_dir / "serving-2x4x1000", cfg.data_dir)
    analyse(report, slo=cfg.slo)  # imports and first calls out of the way
    t0 = time.process_time()
    a = analyse(report, cfg.noise_band, cfg.ratio_scale, cfg.headline_input, slo=cfg.slo)
    t1 = time.process_time()
    pages = ReportPages(a, cfg, [])
    from site_gen.render.pages import render_page

    for page in pages.pages():
        render_page(page, cfg, [], {k: f"assets/{k}" for k in ("css", "js", "page", "dashboard", "plotly", "plotly_charts")})
    pages.files()
    t2 = time.process_time()
    return {"analysis": t1 - t0, "pages and CSV": t2 - t1}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        config = make_site(Path(tmp))
        times: dict[str, list[tuple[float, float]]] = {"with": [], "without": []}
        for i in range(args.runs):
            for mode in ("without", "with"):  # interleaved: a busy machine slows both alike
                times[mode].append(cold_build(config, Path(tmp) / f"site-{mode}-{i}", mode))
        med = {k: statistics.median(w for w, _ in v) for k, v in times.items()}
        cpu = {k: statistics.median(c for _, c in v) for k, v in times.items()}
        parts = split(config)
        size = sum(p.stat().st_size for p in (Path(tmp) / "site-with-0" / "reports" / "serving-2x4x1000").glob("*.html"))
    added, added_cpu = med["with"] - med["without"], cpu["with"] - cpu["without"]
    print(f"report: 2 sides x 4 load points x 1,000 requests; {args.runs} cold builds each, in fresh processes, no cache")
    print(f"build without the serving sections: {med['without']:.2f} s wall, {cpu['without']:.2f} s CPU (medians)")
    print(f"build with them:                    {med['with']:.2f} s wall, {cpu['with']:.2f} s CPU")
    print(f"added:                              {added:.2f} s wall, {added_cpu:.2f} s CPU  (goal: under {GOAL_S:.0f} s)")
    print(f"in one process, CPU: analysis {parts['analysis']:.2f} s (bootstrap: 2,000 resamples a load point), "
          f"pages and CSV {parts['pages and CSV']:.2f} s; the report's HTML pages {size / 1024:.0f} kB")
    return 0 if max(added, added_cpu) < GOAL_S else 1


if __name__ == "__main__":
    sys.exit(main())
