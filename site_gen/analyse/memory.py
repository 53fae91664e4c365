"""Memory and startup: KV pool sizes and their ratios, cold and warm startup."""
from __future__ import annotations

import pandas as pd


def kv_pool(kv: pd.DataFrame) -> pd.DataFrame:
    """One row per checkpoint: each engine's KV pool tokens and candidate / baseline."""
    if kv.empty:
        return pd.DataFrame(columns=["checkpoint", "baseline", "candidate", "ratio"])
    wide = kv.pivot(index="checkpoint", columns="engine", values="tokens")
    wide = wide.reindex(index=list(dict.fromkeys(kv["checkpoint"])), columns=["baseline", "candidate"])
    wide.columns.name = None
    wide["ratio"] = wide["candidate"] / wide["baseline"]
    return wide.reset_index()


def startup(records: pd.DataFrame) -> pd.DataFrame:
    """One row per engine and checkpoint: cold and warm startup seconds."""
    if records.empty:
        return pd.DataFrame(columns=["checkpoint", "engine", "cold_s", "warm_s", "slowest"])
    # Schema 1.1 may give readiness alone (`ready_s`) where schema 1 gave cold and warm startup.
    times = ["cold_s", "warm_s"] + (["ready_s"] if "ready_s" in records else [])
    out = records[["checkpoint", "engine", *times, "source"]].copy()
    out["slowest"] = out[times].max(axis=1)
    return out


def references(refs: pd.DataFrame, kv: pd.DataFrame) -> pd.DataFrame:
    """Earlier versions' KV pools against this report's candidate on the same checkpoint."""
    if refs.empty:
        return pd.DataFrame(columns=["checkpoint", "name", "version", "kv_pool_tokens", "candidate", "ratio"])
    cand = kv[kv["engine"] == "candidate"][["checkpoint", "tokens"]].rename(columns={"tokens": "candidate"})
    out = refs.merge(cand, on="checkpoint", how="left")
    out["ratio"] = out["candidate"] / out["kv_pool_tokens"]
    return out


def kv_range(wide: pd.DataFrame) -> tuple[float, float, int] | None:
    """Lowest and highest candidate / baseline KV pool ratio across checkpoints, and how many."""
    ratios = wide["ratio"].dropna() if "ratio" in wide else wide
    return (float(ratios.min()), float(ratios.max()), int(len(ratios))) if len(ratios) else None
