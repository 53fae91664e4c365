"""Memory's analysis: KV pool sizes and their ratios, cold and warm startup, reference engines;
its inline figures and its history rows."""
from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from site_gen.analysis.compare import band_step, by_band, key_of
from site_gen.analysis.figures import Figure, need, need_rows
from site_gen.analysis.frames import cells, empty, frame, missing, records, rows_of
from site_gen.analysis.series import Measure
from site_gen.sections.contract import AnalysisPart

_ENGINES = ("baseline", "candidate")


def _ratio(top: list | np.ndarray, bottom: list | np.ndarray) -> np.ndarray:
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
    out: dict[str, list | np.ndarray] = {"checkpoint": checkpoints}
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
    # Its columns taken one by one into a new frame (a selection, `records[[...]]`, is a frame more).
    out = {c: records[c] for c in ["checkpoint", "engine", *times, "source"]}
    if all(out[t].dtype == np.float64 for t in times):  # the row maximum, NaN skipped, without a frame of the times
        columns = np.column_stack([out[t].to_numpy() for t in times])
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a row of NaN only: NaN, as pandas gives
            out["slowest"] = np.nanmax(columns, axis=1)
    else:
        out["slowest"] = records[times].max(axis=1)
    return frame(out)


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


@dataclass
class MemoryResult:
    kv: pd.DataFrame                            # one row per checkpoint: both engines' KV pool tokens, their ratio
    kv_range: tuple[float, float, int] | None   # lowest and highest ratio, and over how many checkpoints
    startup: pd.DataFrame                       # one row per engine and checkpoint: cold, warm (or ready) seconds
    references: pd.DataFrame                    # earlier versions' KV pools against the candidate's


def analyse(a, m: dict) -> MemoryResult:
    kv = records(m.get("kv_pool", []), "$.memory.kv_pool", ["checkpoint", "engine", "tokens"])
    wide = kv_pool(kv)
    return MemoryResult(
        kv=wide, kv_range=kv_range(wide),
        startup=startup(records(m.get("startup", []), "$.memory.startup", ["checkpoint", "engine", "cold_s", "warm_s"])),
        references=references(
            records(m.get("references", []), "$.memory.references", ["checkpoint", "name", "version", "kv_pool_tokens"]), kv))


# -- inline figures ---------------------------------------------------------------------------

def _kv(a):
    m = a.of("memory")
    return m.kv if m is not None else None


def kv_ratio_range(a) -> Figure:
    ratio = need(_kv(a), "KV pool sizes")["ratio"]  # min and max skip a missing ratio, count() counts the rest
    return Figure((ratio.min(), ratio.max()), "ratio_range",
                  f"min and max of candidate / baseline KV pool tokens over {ratio.count()} checkpoints")


def kv_ratio(a, checkpoint: str) -> Figure:
    row = need_rows(_kv(a), "KV pool sizes", f"no KV pool sizes for checkpoint {checkpoint}", checkpoint=checkpoint)
    return Figure(row["ratio"].iloc[0], "ratio", f"candidate / baseline KV pool tokens, {checkpoint}")


def startup_max(a, engine: str = "candidate") -> Figure:
    m = a.of("memory")
    s = need_rows(m.startup if m is not None else None, "startup times", f"no startup times for engine {engine}", engine=engine)
    # Counted as measured: a schema 1.1 receipt may give readiness alone, or one of cold and warm.
    times = {t: int(s[t].count()) for t in ("cold_s", "warm_s", "ready_s") if t in s}
    words = {"cold_s": "cold", "warm_s": "warm", "ready_s": "readiness"}
    total = sum(times.values())
    breakdown = ", ".join(f"{n} {words[t]}" for t, n in times.items() if n)
    return Figure(s["slowest"].max(), "seconds", f"largest of {total} startup time{'s' if total != 1 else ''} ({breakdown}), {engine}")


FIGURES: dict[str, tuple[Callable[..., Any], str]] = {
    "kv_ratio_range": (kv_ratio_range, "range of KV pool ratios (candidate / baseline) across checkpoints"),
    "kv_ratio": (kv_ratio, "KV pool ratio (candidate / baseline) on one checkpoint"),
    "startup_max": (startup_max, "slowest startup (cold or warm) of one engine (engine=candidate|baseline)"),
}


# -- history ----------------------------------------------------------------------------------

KV_COLUMNS = ["series", "report", "date", "candidate", "version", "baseline", "checkpoint", "candidate_tokens",
              "baseline_tokens", "ratio"]
STARTUP_COLUMNS = ["series", "report", "date", "candidate", "version", "baseline", "checkpoint", "cold_s", "warm_s", "ready_s"]


def kv_rows(a, engines: dict[str, str]) -> list[dict]:
    """Per checkpoint of one report: both engines' KV pool tokens and their ratio."""
    rows: list[dict] = []
    kv = _kv(a)
    if kv is None:
        return rows
    e = engines
    for k in rows_of(kv, ["checkpoint", "candidate", "baseline", "ratio"]):
        rows.append({**e, "series": f"{e['candidate']} / {e['baseline']} · {k['checkpoint']}", "checkpoint": k["checkpoint"],
                     "candidate_tokens": k["candidate"], "baseline_tokens": k["baseline"], "ratio": k["ratio"]})
    return rows


def startup_rows(a, engines: dict[str, str]) -> list[dict]:
    rows: list[dict] = []
    m = a.of("memory")
    if m is None or m.startup is None or m.startup.empty:
        return rows
    e = engines
    ready = "ready_s" in m.startup  # schema 1.1: readiness alone, where a receipt gives no cold and warm startup
    for s in rows_of(m.startup, ["engine", "checkpoint", "cold_s", "warm_s", *(["ready_s"] if ready else [])]):
        if s["engine"] != "candidate":
            continue
        rows.append({**e, "series": f"{e['candidate']} · {s['checkpoint']}", "checkpoint": s["checkpoint"],
                     "cold_s": s["cold_s"], "warm_s": s["warm_s"], "ready_s": s.get("ready_s", float("nan"))})
    return rows


HISTORY = {"kv": (kv_rows, KV_COLUMNS), "startup": (startup_rows, STARTUP_COLUMNS)}


def kv_step(old: dict, new: dict, band: float) -> list:
    """The candidate's KV pool from one release to the next (higher is better): the band rule."""
    return [band_step("memory", "kv_pool", "tokens", old["candidate_tokens"], new["candidate_tokens"], band, True)]


def startup_step(old: dict, new: dict, band: float) -> list:
    """Cold and warm startup (or readiness) from one build to the next (lower is better): the band rule, each."""
    return [band_step("memory", t, "s", old[t], new[t], band, False) for t in ("cold_s", "warm_s", "ready_s")
            if not (missing(old.get(t)) or missing(new.get(t)))]


HISTORY_STEPS = {"kv": kv_step, "startup": startup_step}
SERIES = {"kv": (Measure("candidate_tokens", "KV pool of {candidate}", "tokens", True, where="{checkpoint}"),),
          "startup": tuple(Measure(t, label, "s", False, where="{checkpoint}", speed=True)
                           for t, label in (("cold_s", "cold startup"), ("warm_s", "warm startup"), ("ready_s", "readiness")))}


# -- against an earlier release (`sitegen compare`) ----------------------------------------------

_STARTUPS = ("cold_s", "warm_s", "ready_s")


def _candidate_kv(a) -> dict[tuple, dict]:
    """The candidate's KV pool per checkpoint, each with its JSON path."""
    kv = records(a.report.section("memory").get("kv_pool", []), "$.memory.kv_pool", ["checkpoint", "engine", "tokens"])
    return {key_of(r["checkpoint"]): r for r in rows_of(kv, ["checkpoint", "engine", "tokens", "source"]) if r["engine"] == "candidate"}


def compare(old, new, band: float) -> tuple[list, list]:
    """The candidate's KV pool per checkpoint (higher is better) and its startup times (lower is
    better), new against old: one figure each, so the band rule."""
    changes, unmatched = by_band(
        "memory", "kv", _candidate_kv(old), _candidate_kv(new), band, value="tokens", higher_is_better=True, speed=False,
        describe=lambda r: ({"checkpoint": r["checkpoint"]}, "kv_pool", "tokens"), source=lambda r: f"{r['source']}.tokens")
    starts: dict[str, dict] = {}
    for side, a in (("old", old), ("new", new)):
        st = a.of("memory").startup
        if st.empty:
            starts[side] = {}
            continue
        cols = [c for c in _STARTUPS if c in st.columns]
        starts[side] = {key_of(r["checkpoint"], t): {**r, "value": r[t], "time": t} for r in rows_of(st, ["checkpoint", "engine", *cols, "source"])
                        if r["engine"] == "candidate" for t in cols if not (r[t] is None or r[t] != r[t])}
    more, missing_ = by_band(
        "memory", "startup", starts["old"], starts["new"], band, value="value", higher_is_better=False, speed=True,
        describe=lambda r: ({"checkpoint": r["checkpoint"]}, r["time"], "s"), source=lambda r: f"{r['source']}.{r['time']}")
    return changes + more, unmatched + missing_


PART = AnalysisPart(analyse=analyse, figures=FIGURES, history=HISTORY, history_steps=HISTORY_STEPS, series=SERIES,
                    compare=compare)
