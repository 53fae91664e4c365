"""Memory and startup: KV pool sizes and their ratios, cold and warm startup."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from site_gen.analysis.frames import cells, empty, frame, missing

_ENGINES = ("baseline", "candidate")


def _ratio(top: list, bottom: list) -> np.ndarray:
    """top / bottom as pandas divides two columns (a zero gives inf or NaN, not an error)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(top, dtype=float) / np.asarray(bottom, dtype=float)


def kv_pool(kv: pd.DataFrame) -> pd.DataFrame:
    """One row per checkpoint: each engine's KV pool tokens and candidate / baseline."""
    if kv.empty:
        return empty(["checkpoint", "baseline", "candidate", "ratio"])
    tokens = cells(kv["checkpoint"].tolist(), kv["engine"].tolist(), kv["tokens"].tolist())
    checkpoints = list(dict.fromkeys(kv["checkpoint"].tolist()))
    present = {e for _, e in tokens if not missing(e)}
    # As pandas reshapes: a checkpoint lacking an engine that others have makes both columns float;
    # an engine no checkpoint has is a column of NaN, which makes the other float too when the rows
    # are not in sorted order (one reindex of both axes).
    gap = len(tokens) < len(checkpoints) * len(present)
    gap |= checkpoints != sorted(checkpoints) and not present >= set(_ENGINES)
    out: dict[str, list] = {"checkpoint": checkpoints}
    for engine in _ENGINES:
        if engine not in present:
            out[engine] = [np.nan] * len(checkpoints)
        elif gap:
            out[engine] = [float(tokens[c, engine]) if (c, engine) in tokens else np.nan for c in checkpoints]
        else:
            out[engine] = [tokens[c, engine] for c in checkpoints]
    out["ratio"] = _ratio(out["candidate"], out["baseline"])
    return frame(out)


def startup(records: pd.DataFrame) -> pd.DataFrame:
    """One row per engine and checkpoint: cold and warm startup seconds."""
    if records.empty:
        return empty(["checkpoint", "engine", "cold_s", "warm_s", "slowest"])
    # Schema 1.1 may give readiness alone (`ready_s`) where schema 1 gave cold and warm startup.
    times = ["cold_s", "warm_s"] + (["ready_s"] if "ready_s" in records else [])
    out = records[["checkpoint", "engine", *times, "source"]]  # a new frame (copy on write)
    if all(out[t].dtype == np.float64 for t in times):  # the row maximum, NaN skipped, without a frame of the times
        columns = np.column_stack([out[t].to_numpy() for t in times])
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a row of NaN only: NaN, as pandas gives
            out["slowest"] = np.nanmax(columns, axis=1)
    else:
        out["slowest"] = out[times].max(axis=1)
    return out


def references(refs: pd.DataFrame, kv: pd.DataFrame) -> pd.DataFrame:
    """Earlier versions' KV pools against this report's candidate on the same checkpoint."""
    if refs.empty:
        return empty(["checkpoint", "name", "version", "kv_pool_tokens", "candidate", "ratio"])
    tokens: dict = {}
    for checkpoint, engine, t in zip(kv["checkpoint"].tolist(), kv["engine"].tolist(), kv["tokens"].tolist()):
        if engine == "candidate":
            tokens.setdefault(checkpoint, []).append(t)
    if any(len(t) > 1 for t in tokens.values()):  # a merge would repeat the reference: kept as it was
        cand = kv[kv["engine"] == "candidate"][["checkpoint", "tokens"]].rename(columns={"tokens": "candidate"})
        out = refs.merge(cand, on="checkpoint", how="left")
        out["ratio"] = out["candidate"] / out["kv_pool_tokens"]
        return out
    out = refs.reset_index(drop=True)
    candidate = [tokens[c][0] if c in tokens else np.nan for c in out["checkpoint"].tolist()]
    out["candidate"] = pd.Series(candidate, dtype=object) if kv["tokens"].dtype == object else candidate
    out["ratio"] = out["candidate"] / out["kv_pool_tokens"]
    return out


def kv_range(wide: pd.DataFrame) -> tuple[float, float, int] | None:
    """Lowest and highest candidate / baseline KV pool ratio across checkpoints, and how many."""
    ratios = [r for r in (wide["ratio"] if "ratio" in wide else wide).tolist() if not missing(r)]
    return (float(min(ratios)), float(max(ratios)), len(ratios)) if ratios else None
