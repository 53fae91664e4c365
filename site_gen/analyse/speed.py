"""Speed: candidate / baseline per cell, verdicts against the noise band, counts and ranges."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

VERDICTS = ("faster", "level", "slower")
METRICS = ("aggregate", "decode")
METRIC_LABELS = {"aggregate": "aggregate", "decode": "clean decode"}


def verdict(ratio: pd.Series, band: float) -> pd.Series:
    """|ratio - 1| <= band is level, edges included.

    Compared in a rounded form so that a ratio printed as 1.08 is never called faster
    because of a binary-float tail (1.08 is stored as 1.0800000000000000710...).
    """
    distance = (ratio - 1.0).abs().round(12)
    out = np.where(distance <= round(band, 12), "level", np.where(ratio > 1.0, "faster", "slower"))
    return pd.Series(out, index=ratio.index, dtype="object")


def verdict_of(ratio: float, band: float) -> str:
    """`verdict` of one ratio (the same rule and rounding, for a number a page prints)."""
    if np.round(abs(ratio - 1.0), 12) <= round(band, 12):
        return "level"
    return "faster" if ratio > 1.0 else "slower"


def cell_ratios(cells: pd.DataFrame, band: float) -> pd.DataFrame:
    """Adds `ratio` (candidate rate / baseline rate), `verdict` and `errors` per cell."""
    out = cells.copy()
    out["ratio"] = out["candidate_rate"] / out["baseline_rate"]
    out["verdict"] = verdict(out["ratio"], band)
    # Schema 1.1 may leave error counts out: a cell without them has NaN, never an invented 0.
    out["errors"] = out[["baseline_errors", "candidate_errors"]].sum(axis=1, min_count=2)
    return out


def verdict_counts(ratios: pd.DataFrame) -> pd.DataFrame:
    """Cells per checkpoint and metric, split by verdict; columns faster, level, slower, cells."""
    counts = (ratios.groupby(["checkpoint", "metric"], sort=False)["verdict"]
              .value_counts().unstack(fill_value=0)
              .reindex(columns=list(VERDICTS), fill_value=0))
    counts.columns.name = None
    counts["cells"] = counts[list(VERDICTS)].sum(axis=1)
    return counts.reset_index()


@dataclass(frozen=True)
class Selection:
    """A named subset of cells whose ratios are summarised as a range."""

    key: str
    label: str
    metric: str
    concurrency: int | None = None
    min_input: int | None = None
    max_input: int | None = None

    def mask(self, ratios: pd.DataFrame) -> pd.Series:
        m = ratios["metric"] == self.metric
        if self.concurrency is not None:
            m &= ratios["concurrency"] == self.concurrency
        if self.min_input is not None:
            m &= ratios["input_tokens"] >= self.min_input
        if self.max_input is not None:
            m &= ratios["input_tokens"] <= self.max_input
        return m


def ratio_ranges(ratios: pd.DataFrame, selections: tuple[Selection, ...]) -> pd.DataFrame:
    """Min and max ratio per checkpoint over each selection; `cells` says how many it covers."""
    rows = []
    for sel in selections:
        chosen = ratios[sel.mask(ratios)]
        for checkpoint, group in chosen.groupby("checkpoint", sort=False):
            rows.append({"selection": sel.key, "label": sel.label, "checkpoint": checkpoint,
                         "low": group["ratio"].min(), "high": group["ratio"].max(), "cells": len(group)})
    return pd.DataFrame(rows, columns=["selection", "label", "checkpoint", "low", "high", "cells"])


def workload_gains(ratios: pd.DataFrame, band: float) -> pd.DataFrame:
    """Median ratio per workload over every checkpoint and metric, largest first, with the verdict
    of that median (a median inside the noise band is no gain, nor a loss)."""
    out = ratios.groupby("workload", sort=False)["ratio"].median().rename("median").reset_index()
    out["verdict"] = verdict(out["median"], band)
    return out.sort_values(["median", "workload"], ascending=[False, True], kind="stable").reset_index(drop=True)


def ttft(ttft_records: pd.DataFrame) -> pd.DataFrame:
    """Time to first token per checkpoint, both engines, and candidate / baseline."""
    if ttft_records.empty:
        return pd.DataFrame(columns=["checkpoint", "input_tokens", "baseline", "candidate", "ratio", "source"])
    out = ttft_records.rename(columns={"baseline_seconds": "baseline", "candidate_seconds": "candidate"})
    out["ratio"] = out["candidate"] / out["baseline"]
    return out[["checkpoint", "input_tokens", "baseline", "candidate", "ratio", "source"]]


def error_counts(ratios: pd.DataFrame, checkpoint: str | None = None) -> dict[str, int]:
    """Failed requests over the cells (of one checkpoint): `errors` in all (None: no cell counted them),
    `cells_with_errors`, `cells_counted` (the cells whose receipt gives a count)."""
    part = ratios if checkpoint is None else ratios[ratios["checkpoint"] == checkpoint]
    counted = part["errors"].dropna()
    return {"errors": int(counted.sum()) if len(counted) else None, "cells_with_errors": int((counted > 0).sum()),
            "cells_counted": int(len(counted))}


def totals(ratios: pd.DataFrame, counts: pd.DataFrame) -> dict:
    """Headline totals over every checkpoint and metric: verdict counts, errors, the aggregate range."""
    out = {k: int(counts[k].sum()) for k in (*VERDICTS, "cells")}
    out["faster_share"] = out["faster"] / out["cells"] if out["cells"] else float("nan")
    out.update(error_counts(ratios))
    agg = ratios.loc[ratios["metric"] == "aggregate", "ratio"]
    out["aggregate"] = (float(agg.min()), float(agg.max()), int(len(agg))) if len(agg) else None
    return out
