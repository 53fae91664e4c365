"""How often a study's verdicts are wrong, and how often they find a real difference (issue 53).

    python benchmarks/study_simulation.py                  # 200 studies of each kind, seed 0
    python benchmarks/study_simulation.py --studies 400 --seed 1

Each study holds 3 to 10 identical setups at the 4 loads of the real llm-k8s runs (../shared/real2,
200 ShareGPT requests a run). A study draws its prompts once (a bootstrap over one real setup's 200
requests at each load, the setup drawn per study) and every run of every setup sends them, as a real
study sends the same prompts everywhere. A run differs from another as the two repeated InfiniBand
runs differ (the measured A/A spread): each request's TTFT and TPOT by a factor drawn from the two
runs' per-request log ratios of the same request (centred, over √2: two drawn runs then differ as
the real two do, request by request), and the whole run by a shift drawn from the two runs' log
differences of p50 and p99 TTFT and TPOT at every load (their root mean square over √2), applied to
its TTFTs, and to its TPOTs and duration (throughput).

Rows:
- study rule, 3 runs a setup: `sitegen`'s study analysis (t over runs, Benjamini–Hochberg over every
  comparison of the study); the share of null studies with any faster or slower verdict (goal: at
  most 5%), and of studies with one setup 15% slower (every latency x1.15, throughput /1.15) where
  it is found (a verdict of it in the right direction; goal: at least 80%);
- study rule, 1 run a setup: the same analysis, every setup run once (within-run intervals, the
  band standing in for the allowance where nothing repeats);
- pair rule, 1 run each: today's pair comparison on every pair of the study's setups, one run each
  (the serving section's unpaired bootstrap over requests and interval rule, the band rule for
  throughput), with no correction for the number of comparisons.

Exits 1 when a goal is missed. `rows_of` is what tests/test_study_simulation.py runs at reduced size.
"""
from __future__ import annotations

import argparse
import glob
import itertools
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from site_gen.analysis import bootstrap as bs  # noqa: E402
from site_gen.sections.serving.analysis import latency, load as serving_load  # noqa: E402
from site_gen.sections.serving.analysis.points import Point  # noqa: E402
from site_gen.sections.study import analysis as study_analysis  # noqa: E402

REAL2 = ROOT.parent / "shared" / "real2"
LLM_K8S = "vllm-bench/llm-k8s/results_serving_meta-llama-Llama-3.3-70B-Instruct"
SETUPS = ("01_tp8_pp1", "02_tp4_pp2_no_IB", "03_tp4_pp2_IB", "04_tp4_pp2_IB")
RATES = ("01", "04", "16", "inf")
BAND = 0.08
SHIFT = 1.15


@dataclass
class Run:
    ttft: np.ndarray
    tpot: np.ndarray      # NaN where a request gave one token
    out: np.ndarray
    inputs: np.ndarray
    duration: float


def read_run(path: Path) -> Run:
    d = json.loads(path.read_text())
    ok = np.array([e == "" for e in d["errors"]])
    ttft = np.array(d["ttfts"], dtype=float)[ok] * 1000
    out = np.array(d["output_lens"])[ok]
    e2e = ttft + np.array([sum(x) for x, k in zip(d["itls"], ok) if k]) * 1000
    with np.errstate(invalid="ignore", divide="ignore"):
        tpot = np.where(out > 1, (e2e - ttft) / np.maximum(out - 1, 1), np.nan)
    return Run(ttft, tpot, out, np.array(d["input_lens"])[ok], float(d["duration"]))


def real_runs(real2: Path = REAL2) -> dict[str, list[Run]]:
    """Each real setup's run at each rate (lightest first)."""
    base = real2 / LLM_K8S
    return {s: [read_run(Path(glob.glob(str(base / s / f"*_qps_{r}.json"))[0])) for r in RATES] for s in SETUPS}


def _fig(x: np.ndarray, q: float) -> float:
    return float(np.percentile(x[~np.isnan(x)], q))


@dataclass
class Spread:
    """The measured A/A spread: per-request log ratios (centred) and the run-wide standard deviation."""
    request: dict[str, np.ndarray]
    run: dict[str, float]


def aa_spread(runs: dict[str, list[Run]]) -> Spread:
    """From the two InfiniBand runs (the same 200 prompts in the same order): each request's log ratio
    of TTFT and of TPOT, centred on its load's median; and the run-wide shift's standard deviation,
    sqrt(mean d² / 2) over the log differences d of p50 and p99 at every load."""
    request, run = {}, {}
    for metric in ("ttft", "tpot"):
        ratios, d2 = [], []
        for a, b in zip(runs[SETUPS[2]], runs[SETUPS[3]]):
            xa, xb = getattr(a, metric), getattr(b, metric)
            n = min(xa.size, xb.size)
            r = np.log(xb[:n] / xa[:n])
            r = r[np.isfinite(r)]
            ratios.append(r - np.median(r))
            for q in (50, 99):
                d2.append(math.log(_fig(xb, q) / _fig(xa, q)) ** 2)
        request[metric] = np.concatenate(ratios) / math.sqrt(2)
        run[metric] = math.sqrt(float(np.mean(d2)) / 2)
    return Spread(request, run)


def draw_run(base: Run, idx: np.ndarray, rng: np.random.Generator, spread: Spread, scale: float = 1.0) -> dict:
    """One run of the study's prompts (`idx` into `base`): each request's TTFT and TPOT times its own
    drawn factor, the run's TTFTs and TPOTs (and duration) times the run's shift, as receipt rows."""
    n = idx.size
    s_ttft = math.exp(rng.normal(0, spread.run["ttft"])) * scale
    s_tpot = math.exp(rng.normal(0, spread.run["tpot"])) * scale
    ttft = base.ttft[idx] * s_ttft * np.exp(rng.choice(spread.request["ttft"], n))
    tpot = base.tpot[idx] * s_tpot * np.exp(rng.choice(spread.request["tpot"], n))
    out = base.out[idx]
    e2e = ttft + np.where(out > 1, tpot * (out - 1), 0.0)
    tp = [None if t != t else float(t) for t in tpot]
    return {"requests": {"ttft_ms": ttft.tolist(), "tpot_ms": tp, "itl_ms": tp, "e2e_ms": e2e.tolist(),
                         "input_tokens": base.inputs[idx].tolist(), "output_tokens": out.tolist(), "error": [False] * n},
            "duration_s": base.duration * s_tpot, "completed": n, "failed": 0, "stated": [], "source": "s", "at": "$"}


def study_part(runs: list[Run], setups: int, repeats: int, rng: np.random.Generator, spread: Spread,
               shifted: int | None = None) -> dict:
    prompts = [rng.integers(0, base.ttft.size, base.ttft.size) for base in runs]  # the study's prompts at each load
    part = []
    for i in range(setups):
        scale = SHIFT if i == shifted else 1.0
        lps = [{"id": f"rate-{r}", "workload": "sharegpt", "load": {"request_rate": "inf" if r == "inf" else int(r)},
                "repeats": [draw_run(base, idx, rng, spread, scale) for _ in range(repeats)]}
               for r, base, idx in zip(RATES, runs, prompts)]
        part.append({"id": f"s{i}", "label": f"setup {i}", "format": "vllm-bench", "environment": {},
                     "gpus": {"value": 8, "origin": "drawn"}, "load_points": lps})
    return {"setups": part}


class _Base:
    """What a section's analysis is given (analysis/report.py base): the band and no objectives."""
    band = BAND
    slo = ()


def judge(verdicts: list[tuple[str, str, str, str]], shifted: str | None) -> tuple[bool, bool]:
    """(any wrong verdict, the shifted setup found) from (a, b, kind, verdict): a verdict is right only
    when it says the shifted setup is the slower one."""
    wrong, found = False, False
    for a, b, _kind, v in verdicts:
        if v not in ("faster", "slower"):
            continue
        # `v` is a's verdict against b: a latency "slower" or a throughput "slower" both say a is worse.
        worse = a if v == "slower" else b
        if shifted is not None and worse == shifted:
            found = True
        else:
            wrong = True
    return wrong, found


def study_verdicts(part: dict) -> list[tuple[str, str, str, str]]:
    s = study_analysis.analyse(_Base(), part)
    c = s.comparisons
    return list(zip(c["a"], c["b"], c["metric"], c["verdict"]))


def _point(setup: str, index: int, lp: dict) -> Point:
    rate = lp["load"]["request_rate"]
    p = Point(role=setup, id=lp["id"], index=index, workload=lp["workload"], rate=math.inf if rate == "inf" else float(rate),
              concurrency=None, repeats=lp["repeats"])
    from site_gen.sections.serving.analysis.points import point_columns

    p.rows = [point_columns(rep["requests"]) for rep in lp["repeats"]]
    return p


def pair_verdicts(part: dict) -> list[tuple[str, str, str, str]]:
    """Today's pair rule on every pair of the study's setups (one run each): the serving section's own
    comparison of a baseline and a candidate, paired (both sides sent the same prompts in the same
    order, as the importer marks them), the band rule for throughput."""
    b = bs.Bootstrap()
    metrics = ("ttft", "tpot", "e2e")
    points = {s["id"]: [_point(s["id"], i, lp) for i, lp in enumerate(s["load_points"])] for s in part["setups"]}
    figures = {(sid, p.id): latency.side_figures(p, metrics, b) for sid, pts in points.items() for p in pts}
    out = []
    for (sa, pa), (sb, pb) in itertools.combinations(points.items(), 2):
        for xa, xb in zip(pa, pb):
            # Ratio sb / sa, as a candidate against its baseline; a cell's verdict is the candidate's.
            for metric, cells in latency.compare(xa, xb, figures[sa, xa.id], figures[sb, xb.id], True, BAND, b).items():
                for c in cells:
                    if c.percentile in (50, 99):
                        out.append((sb, sa, metric, c.verdict))
            for c in serving_load.throughput_cells(xa, xb, BAND, b):
                if c["metric"] == "output_tokens_per_s":
                    out.append((sb, sa, "output_tokens_per_s", c["verdict"]))
    return out


def simulate(runs: dict[str, list[Run]], studies: int, seed: int, repeats: int, rule: str, shifted: bool,
             spread: Spread) -> dict[str, int]:
    rng = np.random.default_rng(seed)
    wrong = found = comparisons = 0
    for _ in range(studies):
        setups = int(rng.integers(3, 11))
        base = runs[SETUPS[int(rng.integers(0, len(SETUPS)))]]
        part = study_part(base, setups, repeats, rng, spread, shifted=0 if shifted else None)
        v = study_verdicts(part) if rule == "study" else pair_verdicts(part)
        comparisons += len(v)
        w, f = judge(v, "s0" if shifted else None)
        wrong += w
        found += f
    return {"studies": studies, "wrong": wrong, "found": found, "comparisons": comparisons}


def rows_of(runs, studies: int, seed: int, spread: Spread, repeats: int, rule: str) -> dict[str, dict[str, int]]:
    return {"null": simulate(runs, studies, seed, repeats, rule, False, spread),
            "shift": simulate(runs, studies, seed + 1, repeats, rule, True, spread)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--studies", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--real2", type=Path, default=REAL2)
    ap.add_argument("--quick", action="store_true", help="50 studies of each kind, the pair rule on 20")
    args = ap.parse_args()
    n = 50 if args.quick else args.studies
    runs = real_runs(args.real2)
    spread = aa_spread(runs)
    print(f"A/A spread: run-wide log sd TTFT {spread.run['ttft']:.4f}, TPOT {spread.run['tpot']:.4f}; per-request log sd "
          f"TTFT {spread.request['ttft'].std():.4f}, TPOT {spread.request['tpot'].std():.4f} (each run's); band ±{BAND:.0%}; "
          f"one setup of each 'shift' study {SHIFT:.2f}x slower")
    rows = [("study rule, 3 runs a setup", rows_of(runs, n, args.seed, spread, 3, "study")),
            ("study rule, 1 run a setup", rows_of(runs, n, args.seed, spread, 1, "study")),
            ("pair rule, 1 run each (today)", rows_of(runs, 20 if args.quick else max(n // 4, 20), args.seed, spread, 1, "pair"))]
    print(f"{'rule':32} {'studies':>8} {'any verdict (null)':>20} {'found 15%':>11} {'comparisons a study':>21}")
    ok = True
    for label, r in rows:
        null, shift = r["null"], r["shift"]
        share_wrong = null["wrong"] / null["studies"]
        share_found = shift["found"] / shift["studies"]
        print(f"{label:32} {null['studies']:>8} {share_wrong:>19.1%} {share_found:>10.1%} "
              f"{null['comparisons'] / null['studies']:>21,.0f}")
        if label.startswith("study rule, 3"):
            ok = share_wrong <= 0.05 and share_found >= 0.80
    print("goals (study rule, 3 runs): any verdict in at most 5% of null studies, the 15% shift found in at least 80%:",
          "met" if ok else "not met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
