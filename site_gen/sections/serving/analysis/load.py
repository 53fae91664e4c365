"""What a load point delivers: throughputs (over runs when repeated), token counts, every-gap
inter-token summaries, the saturation point of a sweep, and the service-level objectives: each
objective's percentile against its limit, goodput, and the highest load meeting them all."""
from __future__ import annotations

import math

import numpy as np

from site_gen.analysis import bootstrap as bs
from site_gen.analysis.verdict import band_verdict, interval_verdict
from site_gen.sections.serving.analysis.points import PERCENTILES, Point

THROUGHPUTS = ("output_tokens_per_s", "requests_per_s")
THROUGHPUT_LABELS = {"output_tokens_per_s": "output tokens/s", "requests_per_s": "requests/s"}
# A sweep saturates where requests start to queue before their prefill: the lightest load whose
# median time to first token is more than this many times that of the sweep's lightest load.
SATURATION = 2.0


def run_throughputs(p: Point) -> dict[str, list[float]]:
    """Each run's output tokens/s (its rows' output tokens, else the source's figure) and
    requests/s (completed requests), over the run's measured duration."""
    out: dict[str, list[float]] = {k: [] for k in THROUGHPUTS}
    for j, rep in enumerate(p.repeats):
        d = rep["duration_s"]
        if p.has_rows:
            tokens = float(p.rows[j]["output_tokens"].sum())
        else:
            stated = p.stated(j, "output_throughput")
            tokens = stated * d if stated is not None else math.nan
        out["output_tokens_per_s"].append(tokens / d)
        out["requests_per_s"].append(rep["completed"] / d)
    return out


def throughput(p: Point, b: bs.Bootstrap) -> dict[str, tuple[float, float, float, float, float]]:
    """(value, low, high, lowest run, highest run) per throughput: the run's figure, or the geometric
    mean of the runs with its t interval."""
    nan = math.nan
    out = {}
    for k, values in run_throughputs(p).items():
        v = np.array(values, dtype=float)
        if np.isnan(v).any() or (v <= 0).any():
            out[k] = (float(v[0]) if v.size == 1 else nan, nan, nan, nan, nan)
        elif v.size == 1:
            out[k] = (float(v[0]), nan, nan, nan, nan)
        else:
            m, lo, hi = bs.log_mean(v, b)
            out[k] = (m, lo, hi, float(v.min()), float(v.max()))
    return out


def throughput_cells(pb: Point, pc: Point, band: float, b: bs.Bootstrap) -> list[dict]:
    """Candidate / baseline of each throughput (higher is faster): Welch's t over runs when both
    sides repeated the load point, else the band rule (one run, no interval)."""
    rb, rc = run_throughputs(pb), run_throughputs(pc)
    out = []
    for k in THROUGHPUTS:
        vb, vc = np.array(rb[k], dtype=float), np.array(rc[k], dtype=float)
        if np.isnan(vb).any() or np.isnan(vc).any() or (vb <= 0).any() or (vc <= 0).any():
            continue
        if vb.size >= 2 and vc.size >= 2:
            ratio, lo, hi = bs.log_ratio(vb, vc, b)
            gb, gc = float(np.exp(np.log(vb).mean())), float(np.exp(np.log(vc).mean()))
            out.append({"metric": k, "baseline": gb, "candidate": gc, "ratio": ratio, "low": lo, "high": hi,
                        "method": "t over runs", "verdict": interval_verdict(ratio, lo, hi, band)})
        else:
            ratio = float(vc.mean() / vb.mean())
            out.append({"metric": k, "baseline": float(vb.mean()), "candidate": float(vc.mean()), "ratio": ratio,
                        "low": math.nan, "high": math.nan, "method": "one run, no interval",
                        "verdict": band_verdict(ratio, band)})
    return out


def tokens(p: Point) -> list[dict]:
    """Input and output token counts of a load point's requests (every run's, successful or not)."""
    out = []
    for kind in ("input", "output"):
        if p.has_rows:
            x = p.pooled(f"{kind}_tokens")
            ok = x[~p.pooled("error")] if kind == "output" else x
            out.append({"kind": kind, "requests": int(ok.size), "mean": float(ok.mean()) if ok.size else math.nan,
                        "median": bs.percentile(ok, 50), "p90": bs.percentile(ok, 90),
                        "max": float(ok.max()) if ok.size else math.nan, "total": float(x.sum()),
                        "path": p.column_path(f"{kind}_tokens")})
        else:
            stated = [p.stated(j, f"total_{kind}_tokens") for j in range(len(p.repeats))]
            total = float(sum(s for s in stated if s is not None)) if all(s is not None for s in stated) else math.nan
            # One run: the figure the source states; several: their sum, each run's under this key.
            path = (p.stated_path(0, f"total_{kind}_tokens") if len(p.repeats) == 1
                    else f"{p.path}.repeats[*].stated (total_{kind}_tokens)")
            out.append({"kind": kind, "requests": sum(r["completed"] for r in p.repeats), "mean": math.nan,
                        "median": math.nan, "p90": math.nan, "max": math.nan, "total": total, "path": path or ""})
    return out


def saturation(curve: list[Point], ttft_p50: dict[str, float]) -> str | None:
    """The first load point of a sweep (lightest first) whose median TTFT exceeds SATURATION times
    the lightest's; None when none does, or the sweep has one point or no TTFT."""
    if len(curve) < 2:
        return None
    first = ttft_p50.get(curve[0].id, math.nan)
    if not first > 0:
        return None
    for p in curve[1:]:
        v = ttft_p50.get(p.id, math.nan)
        if v == v and v > SATURATION * first:
            return p.id
    return None


# -- service-level objectives ----------------------------------------------------------------

def objective_key(o: tuple[str, int, float]) -> str:
    return f"{o[0]}_p{o[1]}_ms"


def meets(value: float, low: float, high: float, limit: float) -> tuple[bool | None, bool]:
    """Whether a percentile meets its limit (point estimate), and whether its interval says so too."""
    if value != value:
        return None, False
    met = value <= limit
    sure = (high <= limit) if met else (low > limit)
    return met, bool(sure) if high == high else False


def goodput(p: Point, slo: tuple) -> dict | None:
    """The requests meeting every objective, counted request by request (each objective's limit
    applied to the request's own value; a request without a value of a metric, a one-token reply's
    TPOT, meets that one; a failed request meets none); their share with Wilson's interval."""
    if not p.has_rows or not slo:
        return None
    good = ~p.pooled("error")
    for metric, _, limit in slo:
        x = p.pooled(metric)
        good &= np.isnan(x) | (x <= limit)
    n = int(good.size)
    k = int(good.sum())
    lo, hi = bs.wilson(k, n)
    seconds = sum(r["duration_s"] for r in p.repeats)
    # Good requests per second, its interval the share's at the load point's served rate (n / seconds).
    return {"good": k, "requests": n, "share": k / n if n else math.nan, "low": lo, "high": hi, "per_s": k / seconds,
            "per_s_low": lo * n / seconds, "per_s_high": hi * n / seconds}


def capacity(curve: list[Point], met: dict[str, bool | None]) -> tuple[str | None, bool]:
    """The heaviest load of a sweep at which the objectives are met, at it and at every lighter load;
    and whether the sweep says so (False when a load of it has no figure of an objective)."""
    best = None
    for p in curve:
        m = met.get(p.id)
        if m is None:
            return best, False
        if not m:
            return best, True
        best = p.id
    return best, True


__all__ = ["PERCENTILES", "THROUGHPUTS", "capacity", "goodput", "meets", "objective_key", "saturation", "throughput",
           "throughput_cells", "tokens"]
