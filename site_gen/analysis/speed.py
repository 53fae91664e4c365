"""Speed: candidate / baseline per cell, verdicts against the noise band, counts and ranges."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from site_gen.analysis.frames import empty, frame, from_rows, groups, median, missing

VERDICTS = ("faster", "level", "slower")
METRICS = ("aggregate", "decode")
METRIC_LABELS = {"aggregate": "aggregate", "decode": "clean decode"}


def verdict(ratio: pd.Series, band: float) -> pd.Series:
    """|ratio - 1| <= band is level, edges included.

    Compared in a rounded form so that a ratio printed as 1.08 is never called faster
    because of a binary-float tail (1.08 is stored as 1.0800000000000000710...).
    """
    values = ratio.to_numpy(dtype=float)
    distance = np.round(np.abs(values - 1.0), 12)
    out = np.where(distance <= round(band, 12), "level", np.where(values > 1.0, "faster", "slower"))
    return pd.Series(out, index=ratio.index, dtype="object")


def verdict_of(ratio: float, band: float) -> str:
    """`verdict` of one ratio (the same rule and rounding, for a number a page prints)."""
    if np.round(abs(ratio - 1.0), 12) <= round(band, 12):
        return "level"
    return "faster" if ratio > 1.0 else "slower"


def cell_ratios(cells: pd.DataFrame, band: float) -> pd.DataFrame:
    """Adds `ratio` (candidate rate / baseline rate), `verdict` and `errors` per cell."""
    out = cells.copy(deep=False)  # copy on write: the caller's frame keeps its columns
    out["ratio"] = out["candidate_rate"] / out["baseline_rate"]
    out["verdict"] = verdict(out["ratio"], band)
    # Schema 1.1 may leave error counts out: a cell without them has NaN, never an invented 0.
    both = out["baseline_errors"], out["candidate_errors"]
    if all(pd.api.types.is_numeric_dtype(s) for s in both):
        out["errors"] = both[0] + both[1]  # the sum with min_count=2: NaN unless both are counted
    else:
        out["errors"] = out[["baseline_errors", "candidate_errors"]].sum(axis=1, min_count=2)
    return out


def verdict_counts(ratios: pd.DataFrame) -> pd.DataFrame:
    """Cells per checkpoint and metric, split by verdict; columns faster, level, slower, cells."""
    checkpoint, metric, verdicts = (ratios[c].tolist() for c in ("checkpoint", "metric", "verdict"))
    found = groups(checkpoint, metric)
    # Ordered as pandas' unstack leaves them: by checkpoint, then metric, each in order of first appearance.
    first_c = {k[0]: None for k in found}
    first_m = {k[1]: None for k in found}
    order_c, order_m = {k: i for i, k in enumerate(first_c)}, {k: i for i, k in enumerate(first_m)}
    keys = sorted(found, key=lambda k: (order_c[k[0]], order_m[k[1]]))
    counts = {v: [sum(verdicts[i] == v for i in found[k]) for k in keys] for v in VERDICTS}
    return frame({"checkpoint": [k[0] for k in keys], "metric": [k[1] for k in keys], **counts,
                         "cells": [sum(col[j] for col in counts.values()) for j in range(len(keys))]},
                        columns=["checkpoint", "metric", *VERDICTS, "cells"])


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

    def chooses(self, columns: dict[str, list], i: int) -> bool:
        """`mask` of row `i`, read from the frame's columns as lists."""
        return (columns["metric"][i] == self.metric
                and (self.concurrency is None or columns["concurrency"][i] == self.concurrency)
                and (self.min_input is None or columns["input_tokens"][i] >= self.min_input)
                and (self.max_input is None or columns["input_tokens"][i] <= self.max_input))


def ratio_ranges(ratios: pd.DataFrame, selections: tuple[Selection, ...]) -> pd.DataFrame:
    """Min and max ratio per checkpoint over each selection; `cells` says how many it covers."""
    rows = []
    columns = {c: ratios[c].tolist() for c in ("metric", "concurrency", "input_tokens", "checkpoint", "ratio")}
    for sel in selections:
        chosen = [i for i in range(len(ratios)) if sel.chooses(columns, i)]
        for (checkpoint,), at in groups([columns["checkpoint"][i] for i in chosen]).items():
            values = [columns["ratio"][chosen[j]] for j in at]
            known = [v for v in values if not missing(v)]
            rows.append({"selection": sel.key, "label": sel.label, "checkpoint": checkpoint,
                         "low": min(known) if known else np.nan, "high": max(known) if known else np.nan,
                         "cells": len(values)})
    return from_rows(rows, ["selection", "label", "checkpoint", "low", "high", "cells"])


def workload_gains(ratios: pd.DataFrame, band: float) -> pd.DataFrame:
    """Median ratio per workload over every checkpoint and metric, largest first, with the verdict
    of that median (a median inside the noise band is no gain, nor a loss)."""
    ratio = ratios["ratio"].tolist()
    found = [(w, median(ratio[i] for i in at)) for (w,), at in groups(ratios["workload"].tolist()).items()]
    # Largest median first, then by name; a NaN median last (pandas' na_position).
    found.sort(key=lambda wm: (wm[1] != wm[1], -wm[1] if wm[1] == wm[1] else 0.0, wm[0]))
    return frame({"workload": [w for w, _ in found], "median": [m for _, m in found],
                         "verdict": pd.Series([verdict_of(m, band) for _, m in found], dtype="object")},
                        columns=["workload", "median", "verdict"])


def ttft(ttft_records: pd.DataFrame) -> pd.DataFrame:
    """Time to first token per checkpoint, both engines, and candidate / baseline."""
    if ttft_records.empty:
        return empty(["checkpoint", "input_tokens", "baseline", "candidate", "ratio", "source"])
    r = ttft_records
    return pd.DataFrame({"checkpoint": r["checkpoint"], "input_tokens": r["input_tokens"], "baseline": r["baseline_seconds"],
                         "candidate": r["candidate_seconds"], "ratio": r["candidate_seconds"] / r["baseline_seconds"],
                         "source": r["source"]})


def error_counts(ratios: pd.DataFrame, checkpoint: str | None = None) -> dict[str, int]:
    """Failed requests over the cells (of one checkpoint): `errors` in all (None: no cell counted them),
    `cells_with_errors`, `cells_counted` (the cells whose receipt gives a count)."""
    errors = ratios["errors"].tolist()
    if checkpoint is not None:
        errors = [e for e, c in zip(errors, ratios["checkpoint"].tolist()) if c == checkpoint]
    counted = [e for e in errors if not missing(e)]
    return {"errors": int(sum(counted)) if counted else None, "cells_with_errors": sum(1 for e in counted if e > 0),
            "cells_counted": len(counted)}


def totals(ratios: pd.DataFrame, counts: pd.DataFrame) -> dict:
    """Headline totals over every checkpoint and metric: verdict counts, errors, the aggregate range."""
    out = {k: int(sum(counts[k].tolist())) for k in (*VERDICTS, "cells")}
    out["faster_share"] = out["faster"] / out["cells"] if out["cells"] else float("nan")
    out.update(error_counts(ratios))
    agg = [r for r, m in zip(ratios["ratio"].tolist(), ratios["metric"].tolist()) if m == "aggregate"]
    known = [r for r in agg if not missing(r)]
    out["aggregate"] = ((float(min(known)) if known else float("nan"), float(max(known)) if known else float("nan"),
                         len(agg)) if agg else None)
    return out
