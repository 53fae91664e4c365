"""Change points of a nightly series (issue 55): which detector finds level shifts without crying
wolf, on series drawn from real run-to-run noise.

    python benchmarks/changepoints.py                 # the full table (a few minutes)
    python benchmarks/changepoints.py --quick         # a tenth of the series
    python benchmarks/changepoints.py --markdown      # the table as the docs print it

The noise, all of it real:

- serving: vLLM's two runs of tp4xpp2 with InfiniBand (../shared/real2/vllm-bench/llm-k8s,
  `03_tp4_pp2_IB` and `04_tp4_pp2_IB`, 200 ShareGPT requests at each of 4 request rates): each
  night's figure (output throughput, median and p99 TTFT, median and p99 TPOT, at each rate) is
  that figure of a bootstrap resample of one of the two runs' requests, the run drawn at random:
  the request scatter of a run, and the difference between two runs of one setup;
- launches: the pooled standard deviation of log tokens/s (and seconds) over the repeated launches
  of data/cuteafd-fp8-recheck-study (3 launches an arm and layout), each measure's own, lognormal;
- outliers: the serving noise with one night in 20 off by 15-30% (a noisy neighbour, a thermal
  event) either way: a single point that no detector should call a change.

Series: 40 nights; unchanged ones, and ones with a step of 5, 10, 20 or 30% either way starting at
night 15-30. The goals (issue 55): at most 1 false change point per 100 unchanged nights, and at
least 90% of steps of 10% or more found within 3 nights (the series ending on the step's third
night holds a change point within one night of where it began). A change point farther than two
nights from a step counts as false.

Detectors, each at its library's defaults and as sitegen runs it:
- sitegen: `site_gen.analysis.changes.detect` (ruptures PELT, L1 cost, 3-point segments, penalty
  log n in noise units, Student's t p < 0.01 with and without each level's most extreme point,
  a three-point level then two points 3 noise units apart);
- ruptures defaults: PELT, L2 cost, its default min_size 2 and jump 5, BIC penalty 2 log n on the
  series in noise units (ruptures has no default penalty);
- Otava (apache-otava): `compute_change_points`, its defaults (window 50, p < 0.001);
- E-divisive means (MongoDB's signal-processing-algorithms): `e_divisive`, its defaults
  (p < 0.05, 100 permutations);
- asv: `detect_steps` (every step boundary), and with asv's default 5% regression threshold.
A library that is not installed is left out of the table (sitegen's own needs only ruptures).
"""
from __future__ import annotations

import argparse
import glob
import itertools
import json
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from site_gen.analysis import changes  # noqa: E402 (the checkout, put on the path above)

REAL2 = ROOT.parent / "shared" / "real2"
VLLM = REAL2 / "vllm-bench/llm-k8s/results_serving_meta-llama-Llama-3.3-70B-Instruct"
STUDY = ROOT / "data" / "cuteafd-fp8-recheck-study" / "SUMMARY.json"
RATES = ("01", "04", "16", "inf")
METRICS = ("output_throughput", "ttft_p50", "ttft_p99", "tpot_p50", "tpot_p99")
NIGHTS = 40
STEPS = (0.05, 0.10, 0.20, 0.30)
WITHIN = 3        # nights after a step begins
NEAR = 1          # a detected point this close to a step's start finds it
FALSE_FAR = 2     # a detected point farther than this from every step is false
PLACED = 3        # on the whole series: a detected point this close to the step's start places it
QUIET = 0.03      # the serving figures whose nightly noise (sd of the log) is at most this


# -- the noise --------------------------------------------------------------------------------------

def _figures(run: dict, idx: np.ndarray) -> dict[str, np.ndarray]:
    """Each metric of the resampled runs (rows of request indices), as vLLM computes it."""
    ok = np.array([not e for e in run["errors"]])
    ttft = np.where(ok, np.asarray(run["ttfts"], dtype=float) * 1000, np.nan)
    out_len = np.asarray(run["output_lens"], dtype=float)
    tpot = np.array([sum(g) / (n - 1) * 1000 if ok_ and n > 1 else np.nan
                     for g, n, ok_ in zip(run["itls"], out_len, ok)])
    tokens = np.where(ok, out_len, 0.0)
    return {"output_throughput": tokens[idx].sum(axis=1) / run["duration"],
            "ttft_p50": np.nanpercentile(ttft[idx], 50, axis=1), "ttft_p99": np.nanpercentile(ttft[idx], 99, axis=1),
            "tpot_p50": np.nanpercentile(tpot[idx], 50, axis=1), "tpot_p99": np.nanpercentile(tpot[idx], 99, axis=1)}


def serving_pools(rng: np.random.Generator, resamples: int = 400) -> dict[str, np.ndarray]:
    """Per rate and metric, nightly figures relative to the two runs' mean: bootstrap figures of run
    1 and of run 2 (half each)."""
    pools: dict[str, np.ndarray] = {}
    for rate in RATES:
        runs = [json.loads(Path(glob.glob(str(VLLM / f"{r}_tp4_pp2_IB" / f"*qps_{rate}.json"))[0]).read_text())
                for r in ("03", "04")]
        per = [_figures(run, rng.integers(0, len(run["ttfts"]), (resamples, len(run["ttfts"])))) for run in runs]
        for m in METRICS:
            if m == "output_throughput":
                # The same prompts every night: a run's token count barely moves, so resampling its
                # requests overstates the noise ~10x. The two runs' own figures, and a lognormal of
                # their difference's spread, instead.
                a, b = (float(run[m]) for run in runs)
                sigma = abs(math.log(b / a)) / math.sqrt(2)
                both = np.concatenate([a * np.exp(rng.normal(0, sigma, resamples)), b * np.exp(rng.normal(0, sigma, resamples))])
            else:
                both = np.concatenate([per[0][m], per[1][m]])
            pools[f"{m} @ {rate}"] = both / both.mean()
    return pools


def study_sigmas() -> dict[str, float]:
    """Pooled standard deviation of the log of each measure over the study's repeated launches."""
    doc = json.loads(STUDY.read_text())
    squares: dict[str, float] = {}
    dof: dict[str, int] = {}
    for r in doc["measures"]["results"]:
        for side in ("baseline", "candidate"):
            s = np.asarray(r[side].get("samples", []), dtype=float)
            if s.size >= 2 and np.all(s > 0):
                logs = np.log(s)
                squares[r["measure"]] = squares.get(r["measure"], 0.0) + float(((logs - logs.mean()) ** 2).sum())
                dof[r["measure"]] = dof.get(r["measure"], 0) + s.size - 1
    return {m: math.sqrt(squares[m] / dof[m]) for m in squares if squares[m] > 0}


@dataclass
class Noise:
    name: str
    draw: Callable[[np.random.Generator, int], np.ndarray]   # relative noise of n nights
    kinds: int


def noises(rng: np.random.Generator) -> list[Noise]:
    pools = serving_pools(rng)
    names = sorted(pools)
    sigmas = study_sigmas()
    measures = sorted(sigmas)

    quiet = [k for k in names if float(np.log(pools[k]).std()) <= QUIET]
    noisy = [k for k in names if k not in quiet]

    def from_pools(keys: list[str]) -> Callable[[np.random.Generator, int], np.ndarray]:
        def draw(r: np.random.Generator, n: int) -> np.ndarray:
            pool = pools[keys[r.integers(len(keys))]]
            return pool[r.integers(0, pool.size, n)]
        return draw

    serving = from_pools(names)

    def outliers(r: np.random.Generator, n: int) -> np.ndarray:
        x = serving(r, n)
        hit = r.random(n) < 0.05
        x[hit] *= 1 + r.choice([-1, 1], hit.sum()) * r.uniform(0.15, 0.30, hit.sum())
        return x

    def launches(r: np.random.Generator, n: int) -> np.ndarray:
        return np.exp(r.normal(0, sigmas[measures[r.integers(len(measures))]], n))

    return [Noise("serving, all 20 figures", serving, len(names)),
            Noise(f"serving, {len(quiet)} figures sd <= {QUIET:.0%}", from_pools(quiet), len(quiet)),
            Noise(f"serving, {len(noisy)} figures sd > {QUIET:.0%}", from_pools(noisy), len(noisy)),
            Noise("serving + outliers", outliers, len(names)),
            Noise(f"launches, {len(measures)} measures", launches, len(measures))]


# -- the detectors -----------------------------------------------------------------------------------

def _sitegen(values: np.ndarray) -> list[int]:
    return [c.index for c in changes.detect(values)]


def _ruptures_defaults(values: np.ndarray) -> list[int]:
    import ruptures

    y = np.log(values)
    sigma = changes.noise(y) or 1.0
    ends = ruptures.Pelt(model="l2").fit(((y - y.mean()) / sigma).reshape(-1, 1)).predict(pen=2 * math.log(y.size))
    return [int(e) for e in ends[:-1]]


def _otava(values: np.ndarray) -> list[int]:
    from otava.analysis import compute_change_points

    return [cp.index for cp in compute_change_points(list(values))[0]]


def _edivisive(values: np.ndarray) -> list[int]:
    from signal_processing_algorithms.energy_statistics.energy_statistics import (
        e_divisive,
    )

    return [int(i) for i in e_divisive(values)]


def _asv_steps(values: np.ndarray) -> list[int]:
    from asv.step_detect import detect_steps

    return [int(s[0]) for s in detect_steps(list(values))[1:]]


def _asv_threshold(values: np.ndarray) -> list[int]:
    """asv's steps, keeping those of at least its default regression threshold (5%)."""
    from asv.step_detect import detect_steps

    steps = detect_steps(list(values))
    return [int(b[0]) for a, b in itertools.pairwise(steps) if abs(b[2] / a[2] - 1) >= 0.05]


def detectors() -> list[tuple[str, Callable[[np.ndarray], list[int]]]]:
    out: list[tuple[str, Callable[[np.ndarray], list[int]]]] = [("sitegen (ruptures PELT L1 + t-test)", _sitegen)]
    for name, fn, module in (("ruptures defaults (PELT L2, BIC)", _ruptures_defaults, "ruptures"),
                             ("Otava defaults (E-divisive, t-test)", _otava, "otava.analysis"),
                             ("E-divisive means (MongoDB) defaults", _edivisive,
                              "signal_processing_algorithms.energy_statistics.energy_statistics"),
                             ("asv detect_steps", _asv_steps, "asv.step_detect"),
                             ("asv steps >= 5% (its threshold)", _asv_threshold, "asv.step_detect")):
        try:
            __import__(module)
        except ImportError:
            continue
        out.append((name, fn))
    return out


# -- the measure -------------------------------------------------------------------------------------

def measure(detect: Callable[[np.ndarray], list[int]], noise: Noise, seed: int, unchanged: int, stepped: int,
            level: float = 100.0) -> dict[str, float]:
    """False change points per 100 unchanged nights; for each step size, the share found within
    WITHIN nights (and the false points of those prefixes, counted with the unchanged nights)."""
    rng = np.random.default_rng(seed)
    false, nights = 0, 0
    for _ in range(unchanged):
        found = detect(level * noise.draw(rng, NIGHTS))
        false += len(found)
        nights += NIGHTS
    out: dict[str, float] = {}
    for step in STEPS:
        hits = 0
        for i in range(stepped):
            start = int(rng.integers(15, 31))
            sign = 1 if i % 2 else -1
            x = level * noise.draw(rng, start + WITHIN)
            x[start:] *= 1 + sign * step
            found = detect(x)
            hits += any(abs(f - start) <= NEAR for f in found)
            false += sum(abs(f - start) > FALSE_FAR for f in found)
            nights += start          # the unchanged nights before the step
        out[f"{step:.0%}"] = hits / stepped
        placed = 0
        for i in range(stepped // 2):
            start = int(rng.integers(15, 31))
            x = level * noise.draw(rng, NIGHTS)
            x[start:] *= 1 + (1 if i % 2 else -1) * step
            found = detect(x)
            placed += any(abs(f - start) <= PLACED for f in found)
            false += sum(abs(f - start) > FALSE_FAR for f in found)
            nights += NIGHTS - (2 * FALSE_FAR + 1)
        out[f"placed {step:.0%}"] = placed / (stepped // 2)
    out["false_per_100"] = 100 * false / nights
    return out


def table(seed: int = 0, unchanged: int = 100, stepped: int = 60, names: tuple[str, ...] | None = None) -> list[dict]:
    rng = np.random.default_rng(seed)
    rows = []
    for noise in noises(rng):
        for name, fn in detectors():
            if names is not None and name not in names:
                continue
            t0 = time.perf_counter()
            m = measure(fn, noise, seed, unchanged, stepped)
            rows.append({"noise": noise.name, "detector": name, **m, "seconds": time.perf_counter() - t0})
    return rows


def met(row: dict) -> bool:
    """Both goals: false change points, and steps of 10% or more found within WITHIN nights."""
    return row["false_per_100"] <= 1.0 and all(row[f"{s:.0%}"] >= 0.9 for s in STEPS if s >= 0.10)


def columns() -> list[tuple[str, str]]:
    return ([("false_per_100", "false per 100 nights")] + [(f"{s:.0%}", f"{s:.0%} in {WITHIN}") for s in STEPS]
            + [(f"placed {s:.0%}", f"{s:.0%} placed") for s in STEPS])


def render(rows: list[dict], markdown: bool) -> str:
    cols = columns()
    cell = (lambda k, v: f"{v:.2f}" if k == "false_per_100" else f"{v:.0%}")
    if markdown:
        out = ["| noise | detector | " + " | ".join(label for _, label in cols) + " | goals |",
               "|---|---|" + "--:|" * len(cols) + "---|"]
        out += [f"| {r['noise']} | {r['detector']} | " + " | ".join(cell(k, r[k]) for k, _ in cols)
                + f" | {'met' if met(r) else 'not met'} |" for r in rows]
        return "\n".join(out) + "\n"
    out = [f"{'noise':30} {'detector':38} " + " ".join(f"{label:>10}" for _, label in cols) + "  goals    time"]
    out += [f"{r['noise']:30} {r['detector']:38} " + " ".join(f"{cell(k, r[k]):>10}" for k, _ in cols)
            + f"  {'met' if met(r) else 'not met':8} {r['seconds']:5.1f}s" for r in rows]
    return "\n".join(out) + "\n"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="a tenth of the series")
    p.add_argument("--markdown", action="store_true", help="the table as the docs print it")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--only", action="append", help="a detector's name (repeatable)")
    args = p.parse_args()
    unchanged, stepped = (10, 10) if args.quick else (100, 60)
    rows = table(args.seed, unchanged, stepped, tuple(args.only) if args.only else None)
    if not args.markdown:
        print(f"{unchanged} unchanged series of {NIGHTS} nights; per step size and noise {stepped} series ending "
              f"{WITHIN} nights into the step and {stepped // 2} of {NIGHTS} nights; seed {args.seed}")
    sys.stdout.write(render(rows, args.markdown))
    return 0


if __name__ == "__main__":
    sys.exit(main())
