"""Study receipts (schema 1.4) made here from numbers a test chooses: N setups, each with its runs per
load point of per-request rows drawn from one distribution (times a setup's scale and a run's shift),
the way `sitegen import vllm-bench --setup …` writes them. What the study tests and
benchmarks/study_simulation.py analyse."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from serving_receipts import repeat, rows

RATES = (1, 4, 16, "inf")


def study(per_setup: dict[str, list[list[dict]]], rates=RATES, gpus: dict[str, int] | None = None,
          baseline: str | None = None, durations: dict | None = None) -> dict:
    """A receipt of `per_setup` (setup id -> per load point, its runs' request rows), one load point a rate."""
    sources, setups = [], []
    for sid, per_point in per_setup.items():
        points = []
        for rate, reps in zip(rates, per_point):
            lp = {"id": f"rate-{rate}", "workload": "synthetic", "load": {"request_rate": rate}, "repeats": []}
            for j, req in enumerate(reps):
                src = f"s{len(sources) + 1}"
                sources.append({"id": src, "file": f"{sid}/rate-{rate}-{j}.json", "sha256": "0" * 64})
                # A run's duration follows its latency (a slower run serves its requests for longer).
                e2e = [v for v in req["e2e_ms"] if v is not None]
                d = (durations or {}).get((sid, rate, j), round(50 * sum(e2e) / len(e2e) / 1000, 6) if e2e else 60.0)
                lp["repeats"].append(repeat(src, req, duration=d))
            points.append(lp)
        setup = {"id": sid, "label": f"setup {sid}", "format": "vllm-bench", "environment": {}, "load_points": points}
        if gpus and sid in gpus:
            setup["gpus"] = {"value": gpus[sid], "origin": f"--setup-set {sid}:gpus"}
        setups.append(setup)
    part: dict = {"setups": setups}
    engines: dict = {"candidate": {"name": f"{len(setups)} setups", "version": "unrecorded"}}
    if baseline:
        part["baseline"] = baseline
        engines["baseline"] = {"name": f"setup {baseline}", "version": "unrecorded"}
    return {"schema_version": 1.4,
            "report": {"title": "Synthetic study", "date": "2026-01-01", "engines": engines,
                       "checkpoints": [{"id": "model", "label": "org/model"}]},
            "study": part, "provenance": {"sources": sources, "figures": []}}


def drawn(seed: int = 0, setups: int = 3, runs: int | list[int] = 2, n: int = 200, points: int = 4,
          scales: dict[int, float] | None = None, shift: float = 0.03, gpus: int | None = 8, **kw) -> dict:
    """A study of `setups` setups drawn alike (setup i's times its scale), each run's rows times a run
    shift drawn from a lognormal of sigma `shift` (run-to-run noise)."""
    rng = np.random.default_rng(seed)
    counts = runs if isinstance(runs, list) else [runs] * setups
    per = {}
    for i in range(setups):
        scale = (scales or {}).get(i, 1.0)
        per[chr(ord("a") + i)] = [[rows(rng, n, scale * float(np.exp(rng.normal(0, shift)))) for _ in range(counts[i])]
                                  for _ in range(points)]
    return study(per, RATES[:points], gpus=dict.fromkeys(per, gpus) if gpus else None, **kw)


def write(folder: Path, doc: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SUMMARY.json").write_text(json.dumps(doc), encoding="utf-8")
    return folder
