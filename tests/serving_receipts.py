"""Serving receipts (schema 1.2) made here from numbers a test chooses: per side, load points with
repeats of per-request rows drawn from a distribution, the way an importer writes them. What the
serving tests and benchmarks/serving.py build sites from."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np


def rows(rng: np.random.Generator, n: int, scale: float = 1.0, failed: int = 0, one_token: int = 0) -> dict:
    """n requests: TTFT, TPOT and E2E drawn from lognormals times `scale` (the same draw function on
    both sides makes an A/A pair); `failed` of them failed, `one_token` gave one output token."""
    ttft = rng.lognormal(np.log(120), 0.5, n) * scale
    out = rng.integers(20, 400, n)
    out[:one_token] = 1
    tpot = rng.lognormal(np.log(40), 0.2, n) * scale
    e2e = ttft + tpot * (out - 1)
    tpot_col = [None if o == 1 else round(float(t), 6) for o, t in zip(out, tpot)]
    err = np.zeros(n, dtype=bool)
    err[n - failed:] = True
    col = lambda a: [None if e else round(float(v), 6) for v, e in zip(a, err)]  # noqa: E731
    return {"ttft_ms": col(ttft), "tpot_ms": [None if e else t for t, e in zip(tpot_col, err)],
            "itl_ms": [None if e else t for t, e in zip(tpot_col, err)], "e2e_ms": col(e2e),
            "input_tokens": rng.integers(10, 2000, n).tolist(), "output_tokens": [0 if e else int(o) for o, e in zip(out, err)],
            "error": err.tolist()}


def repeat(source: str, requests: dict, duration: float) -> dict:
    failed = sum(requests["error"])
    return {"source": source, "at": "$", "duration_s": duration, "completed": len(requests["error"]) - failed,
            "failed": failed, "requests": requests, "stated": []}


RATES = (1, 4, 16, "inf")


def receipt(sides: dict[str, list[list[dict]]], rates=RATES, paired: bool = True, workload: str = "synthetic") -> dict:
    """A receipt of `sides` (role -> per load point, its repeats' request rows), one load point per rate."""
    sources, points = [], {}
    for role, per_point in sides.items():
        points[role] = []
        for rate, reps in zip(rates, per_point):
            lp = {"id": f"rate-{rate}", "workload": workload, "load": {"request_rate": rate}, "repeats": []}
            for j, req in enumerate(reps):
                sid = f"s{len(sources) + 1}"
                sources.append({"id": sid, "file": f"{role}/rate-{rate}-{j}.json", "sha256": "0" * 64})
                lp["repeats"].append(repeat(sid, req, duration=60.0 + len(sources)))
            points[role].append(lp)
    engines = {role: {"name": f"setup {role}", "version": "unrecorded"} for role in sides}
    serving = {"sides": {role: {"label": f"setup {role}", "format": "vllm-bench", "environment": {},
                                "load_points": pts} for role, pts in points.items()}}
    if "baseline" in sides:
        serving["matched"] = [{"baseline": f"rate-{r}", "candidate": f"rate-{r}", "paired": paired} for r in rates]
    return {"schema_version": 1.2,
            "report": {"title": "Synthetic serving report", "date": "2026-01-01", "engines": engines,
                       "checkpoints": [{"id": "model", "label": "org/model"}]},
            "serving": serving, "provenance": {"sources": sources, "figures": []}}


def pair(seed: int = 0, n: int = 200, points: int = 4, scale: float = 1.0, repeats: int = 1, paired: bool = True,
         **kw) -> dict:
    """A two-sided receipt: both sides' rows from one distribution, the candidate's times `scale`."""
    rng = np.random.default_rng(seed)
    sides = {role: [[rows(rng, n, scale if role == "candidate" else 1.0, **kw) for _ in range(repeats)]
                    for _ in range(points)] for role in ("baseline", "candidate")}
    if paired and repeats == 1:  # the same prompts in the same order: equal input tokens, request by request
        for b, c in zip(sides["baseline"], sides["candidate"]):
            c[0]["input_tokens"] = list(b[0]["input_tokens"])
    return receipt(sides, RATES[:points], paired=paired and repeats == 1)


def write(folder: Path, doc: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SUMMARY.json").write_text(json.dumps(doc), encoding="utf-8")
    return folder


def stated(doc: dict) -> dict:
    """`doc` as a source without per-request rows writes it: each repeat's rows replaced by the
    percentiles it states of them (median, p90, p99 of TTFT, TPOT, E2E), one run a side, unpaired."""
    for side in doc["serving"]["sides"].values():
        for p in side["load_points"]:
            for rep in p["repeats"]:
                req = rep.pop("requests")
                figures = []
                for m, name in (("ttft", "ttft"), ("tpot", "tpot"), ("e2e", "e2el")):
                    x = np.array([v for v in req[f"{m}_ms"] if v is not None])
                    for q, word in ((50, "median"), (90, "p90"), (99, "p99")):
                        figures.append({"key": f"{word}_{name}_ms", "value": round(float(np.percentile(x, q)), 3), "check": "none"})
                figures.append({"key": "output_throughput", "value": round(float(sum(req["output_tokens"])) / rep["duration_s"], 3),
                                "check": "none"})
                rep["stated"] = figures
    for m in doc["serving"].get("matched", []):
        m["paired"] = False
    return doc
