"""lm-evaluation-harness figures recomputed from per-document samples: a metric's value and
standard error (exactly, for per-document scores; a seeded bootstrap for corpus metrics such as
f1), and the paired difference of two runs over the documents both scored, with its interval."""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from site_gen.core.errors import SitegenError
from site_gen.importers import serving_common as sc

if TYPE_CHECKING:
    from site_gen.importers.lm_eval import Task

Z95 = 1.959963984540054
RESAMPLES = 2000
SEED = 0
# The harness's own standard error of a corpus metric is a bootstrap of its own (100 resamples,
# an unrecorded seed): the recomputed one must land within this share of it.
BOOTSTRAP_TOLERANCE = 0.30
CORPUS = {"f1": "binary F1 of the (gold, prediction) pairs, positive label 1"}


def _per_doc(t: Task, metric: str, filt: str) -> tuple[list[int], list[Any], list[int | None]]:
    rows = [d for d in t.docs if d["filter"] == filt or (filt == "none" and d["filter"] in (None, "none"))]
    return [d["doc_id"] for d in rows], [d[metric] for d in rows], [d["line"] for d in rows]


def _f1(pairs: np.ndarray) -> float:
    gold, pred = pairs[..., 0], pairs[..., 1]
    tp = ((gold == 1) & (pred == 1)).sum(axis=-1)
    fp = ((gold != 1) & (pred == 1)).sum(axis=-1)
    fn = ((gold == 1) & (pred != 1)).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(2 * tp + fp + fn > 0, 2 * tp / (2 * tp + fp + fn), 0.0)


def _boot_idx(n: int) -> np.ndarray:
    return np.random.default_rng(SEED).integers(0, n, size=(RESAMPLES, n))


@dataclass
class Figures:
    kind: str                     # "mean" or a corpus metric name
    value: float
    stderr: float
    docs: list[int]
    hashes: list[str | None]
    values: np.ndarray            # per document: scores, or (gold, prediction) pairs


def figures(t: Task, metric: str, filt: str, stated: dict, src_path: Path) -> Figures | None:
    if t.samples is None:
        return None
    ids, vals, lines = _per_doc(t, metric, filt)
    hashes = {d["doc_id"]: d["doc_hash"] for d in t.docs}
    if not ids:
        return None
    where = lambda i: sc.at(lines[i], f"$.{metric}")
    if metric in CORPUS:
        for i, v in enumerate(vals):
            if not (isinstance(v, list) and len(v) == 2 and all(sc.is_number(x) for x in v)):
                raise SitegenError(f"expected a [gold, prediction] pair for {metric}, got {str(v)[:40]}", t.samples.path, where(i))
        arr = np.array(vals, dtype=float)
        value = float(_f1(arr))
        boot = _f1(arr[_boot_idx(len(arr))])
        stderr = float(np.std(boot, ddof=1))
        kind = metric
    else:
        for i, v in enumerate(vals):
            if not sc.is_number(v) or not math.isfinite(v):
                raise SitegenError(f"expected a number for {metric}, got {str(v)[:40]}", t.samples.path, where(i))
        arr = np.array(vals, dtype=float)
        value = float(arr.mean())
        stderr = float(arr.std(ddof=1) / math.sqrt(len(arr))) if len(arr) > 1 else 0.0
        kind = "mean"
    if abs(value - stated["value"]) > 1e-9 * max(1.0, abs(value)):
        raise SitegenError(f"'{stated['key']}' says {stated['value']}, but the samples give {value}", src_path,
                           f"$.results.{t.name}[\"{stated['key']}\"]")
    s = stated["stderr"]
    if s is not None:
        ok = abs(s - stderr) <= 1e-9 * max(1.0, s) if kind == "mean" else abs(s - stderr) <= BOOTSTRAP_TOLERANCE * max(s, stderr)
        if not ok:
            raise SitegenError(f"'{stated['stderr_key']}' says {s}, but the samples give {stderr}"
                               + ("" if kind == "mean" else f" (a bootstrap: {RESAMPLES} resamples, seed {SEED})"),
                               src_path, f"$.results.{t.name}[\"{stated['stderr_key']}\"]")
    return Figures(kind, value, stderr, ids, [hashes[i] for i in ids], arr)


def paired(b: Figures, c: Figures, shared: list[int]) -> tuple[float, list[float], str]:
    ib = {d: i for i, d in enumerate(b.docs)}
    ic = {d: i for i, d in enumerate(c.docs)}
    xb = b.values[[ib[d] for d in shared]]
    xc = c.values[[ic[d] for d in shared]]
    if b.kind == "mean":
        d = xc - xb
        diff = float(d.mean())
        se = float(d.std(ddof=1) / math.sqrt(len(d))) if len(d) > 1 else 0.0
        return diff, [diff - Z95 * se, diff + Z95 * se], ("paired over documents: mean of the per-document differences "
                                                          "± 1.96 of their standard error")
    idx = _boot_idx(len(shared))
    diff = float(_f1(xc) - _f1(xb))
    boot = np.sort(_f1(xc[idx]) - _f1(xb[idx]))
    low, high = np.quantile(boot, [0.025, 0.975], method="lower")
    return diff, [float(low), float(high)], (f"paired bootstrap over documents ({RESAMPLES} resamples, seed {SEED}), "
                                             "percentile interval")
