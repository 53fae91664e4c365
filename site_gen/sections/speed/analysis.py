"""Speed's analysis: candidate / baseline per cell, verdicts against the noise band, counts and
ranges, time to first token; its inline figures and its history rows."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from site_gen.analysis.changes import DIFFERENCE, RATIO  # noqa: F401
from site_gen.analysis.compare import band_step, by_band, key_of
from site_gen.analysis.figures import Figure, FigureError, need_rows
from site_gen.analysis.frames import (
    empty,
    frame,
    from_rows,
    groups,
    median,
    missing,
    records,
    rows_of,
)
from site_gen.analysis.series import Measure
from site_gen.analysis.units import DASH, tokens_k
from site_gen.analysis.verdict import VERDICTS, verdict, verdict_of
from site_gen.sections.contract import AnalysisPart

METRICS = ("aggregate", "decode")
METRIC_LABELS = {"aggregate": "aggregate", "decode": "clean decode"}
# Fields schema 1.1 lets a cell leave out (or add): absent, they are columns of NaN.
OPTIONAL_CELL_FIELDS = ["input_tokens", "baseline_errors", "candidate_errors", "baseline_acceptance_rate",
                        "candidate_acceptance_rate", "baseline_acceptance_mean_length", "candidate_acceptance_mean_length"]


@dataclass
class SpeedResult:
    cells: pd.DataFrame           # one row per cell: rates, ratio, verdict, errors, source
    counts: pd.DataFrame          # verdicts per checkpoint and metric
    ranges: pd.DataFrame          # lowest and highest ratio per checkpoint over each selection
    gains: pd.DataFrame           # median ratio per workload, largest first
    totals: dict[str, Any]        # counts, errors and the aggregate range over every cell
    ttft: pd.DataFrame            # time to first token per checkpoint


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
    scope: str = ""  # what it chooses, in words: `at one stream`, `with 8K–16K input`

    def mask(self, ratios: pd.DataFrame) -> pd.Series:
        """The rows of `ratios` in the selection, as a boolean Series (what `chooses` says row by row)."""
        m = ratios["metric"] == self.metric
        if self.concurrency is not None:
            m &= ratios["concurrency"] == self.concurrency
        if self.min_input is not None:
            m &= ratios["input_tokens"] >= self.min_input
        if self.max_input is not None:
            m &= ratios["input_tokens"] <= self.max_input
        return m

    def chooses(self, columns: dict[str, list], i: int) -> bool:
        """Whether row `i` is in the selection, read from the frame's columns as lists."""
        return (columns["metric"][i] == self.metric
                and (self.concurrency is None or columns["concurrency"][i] == self.concurrency)
                and (self.min_input is None or columns["input_tokens"][i] >= self.min_input)
                and (self.max_input is None or columns["input_tokens"][i] <= self.max_input))


def selections(headline_input: tuple[int, int] | None) -> tuple[Selection, ...]:
    """The headline ranges: decode at one stream, and aggregate over the configured input window
    (`headline_input`), or over every input when none is set."""
    if headline_input is None:
        aggregate = Selection("aggregate_long_input", "Aggregate, every input", "aggregate", scope="at any input")
    else:
        low, high = tokens_k(headline_input[0]), tokens_k(headline_input[1])
        shown = low if low == high else f"{low}{DASH}{high}"
        aggregate = Selection("aggregate_long_input", f"Aggregate, {shown} input", "aggregate",
                              min_input=headline_input[0], max_input=headline_input[1], scope=f"with {shown} input")
    return (Selection("one_stream_decode", "Decode, one stream", "decode", concurrency=1, scope="at one stream"), aggregate)


def ratio_ranges(ratios: pd.DataFrame, chosen_by: tuple[Selection, ...]) -> pd.DataFrame:
    """Min and max ratio per checkpoint over each selection; `cells` says how many it covers."""
    rows = []
    columns = {c: ratios[c].tolist() for c in ("metric", "concurrency", "input_tokens", "checkpoint", "ratio")}
    for sel in chosen_by:
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
    # Its conditions go with it (schema 1.1's workload and concurrency, where the receipt gives them):
    # a time to first token without them is not a comparison a reader can place.
    if ttft_records.empty:
        return empty(["checkpoint", "workload", "input_tokens", "concurrency", "baseline", "candidate", "ratio", "source"])
    r = ttft_records
    return frame({"checkpoint": r["checkpoint"], "workload": r["workload"], "input_tokens": r["input_tokens"],
                         "concurrency": r["concurrency"], "baseline": r["baseline_seconds"],
                         "candidate": r["candidate_seconds"], "ratio": r["candidate_seconds"] / r["baseline_seconds"],
                         "source": r["source"]})


def error_counts(ratios: pd.DataFrame, checkpoint: str | None = None) -> dict[str, int | None]:
    """Failed requests over the cells (of one checkpoint): `errors` in all, `cells_with_errors`,
    `cells_counted` (the cells whose receipt gives a count) of `cells`. Where no cell counted them,
    the errors and the cells with errors are unknown (None), not none."""
    mine = [checkpoint is None or c == checkpoint for c in ratios["checkpoint"].tolist()]
    errors = [e for e, m in zip(ratios["errors"].tolist(), mine) if m]
    counted = [e for e in errors if not missing(e)]
    out = {"errors": int(sum(counted)) if counted else None,
           "cells_with_errors": sum(1 for e in counted if e > 0) if counted else None,
           "cells_counted": len(counted), "cells": len(errors)}
    # Which engine failed them: each side's own count, where the receipt gives it.
    for role in ("baseline", "candidate"):
        side = [e for e, m in zip(ratios[f"{role}_errors"].tolist(), mine) if m and not missing(e)]
        out[f"{role}_errors"] = int(sum(side)) if side else None
    return out


def totals(ratios: pd.DataFrame, counts: pd.DataFrame) -> dict:
    """Headline totals over every checkpoint and metric: verdict counts, errors, the aggregate range."""
    out: dict[str, Any] = {k: int(sum(counts[k].tolist())) for k in (*VERDICTS, "cells")}
    out["faster_share"] = out["faster"] / out["cells"] if out["cells"] else float("nan")
    out.update(error_counts(ratios))
    agg = [r for r, m in zip(ratios["ratio"].tolist(), ratios["metric"].tolist()) if m == "aggregate"]
    known = [r for r in agg if not missing(r)]
    out["aggregate"] = ((float(min(known)) if known else float("nan"), float(max(known)) if known else float("nan"),
                         len(agg)) if agg else None)
    return out


def analyse(a, s: dict) -> SpeedResult | None:
    if not s["cells"]:
        return None
    cells = cell_ratios(records(s["cells"], "$.speed.cells", OPTIONAL_CELL_FIELDS), a.band)
    counts = verdict_counts(cells)
    return SpeedResult(cells=cells, counts=counts, ranges=ratio_ranges(cells, selections(a.headline_input)),
                       gains=workload_gains(cells, a.band), totals=totals(cells, counts),
                       ttft=ttft(records(s.get("ttft", []), "$.speed.ttft", ["input_tokens", "workload", "concurrency"])))


# -- inline figures ---------------------------------------------------------------------------

def _counts(a, checkpoint: str | None = None, metric: str | None = None) -> dict[str, int]:
    chosen = {k: v for k, v in (("checkpoint", checkpoint), ("metric", metric)) if v is not None}
    speed = a.results.get("speed")
    counts = need_rows(speed.counts if speed else None, "speed cells",
                       f"no speed cells for checkpoint={checkpoint} metric={metric}", **chosen)
    return {k: int(counts[k].sum()) for k in ("faster", "level", "slower", "cells")}


def speed_verdict(a, checkpoint: str | None = None, metric: str | None = None) -> Figure:
    c = _counts(a, checkpoint, metric)
    if c["slower"] == 0 and c["level"] == 0:
        text = "faster in every speed cell"
    elif c["slower"] == 0:
        text = "faster or level in every speed cell"
    elif c["faster"] == 0 and c["level"] == 0:
        text = "slower in every speed cell"
    else:
        text = f"slower in {c['slower']} of {c['cells']} speed cells"
    return Figure(text, "phrase", f"{c['faster']} faster, {c['level']} level, {c['slower']} slower of {c['cells']} cells "
                  f"(noise band ±{a.band:.0%})")


def speed_count(a, verdict: str = "cells", checkpoint: str | None = None, metric: str | None = None) -> Figure:
    c = _counts(a, checkpoint, metric)
    if verdict not in c:
        raise FigureError(f"verdict must be one of faster, level, slower, cells; got {verdict!r}")
    return Figure(c[verdict], "count", f"{verdict} cells of {c['cells']}"
                  + (f", {checkpoint}" if checkpoint else "") + (f", {metric}" if metric else ""))


def speed_range(a, checkpoint: str, selection: str = "one_stream_decode") -> Figure:
    speed = a.results.get("speed")
    row = need_rows(speed.ranges if speed else None, "speed cells", f"no range for checkpoint={checkpoint} selection={selection}",
                    checkpoint=checkpoint, selection=selection).iloc[0]
    return Figure((row["low"], row["high"]), "speed_ratio_range",
                  f"min and max of {row['cells']} cell ratios: {row['label']}, {checkpoint}", band=a.band)


FIGURES: dict[str, tuple[Callable[..., Any], str]] = {
    "speed_verdict": (speed_verdict, "phrase: how the candidate compares across every speed cell"),
    "speed_count": (speed_count, "count of speed cells with a verdict (verdict=faster|level|slower|cells)"),
    "speed_range": (speed_range, "range of speed ratios over a selection (selection=one_stream_decode|aggregate_long_input)"),
}


# -- history ----------------------------------------------------------------------------------

SPEED_COLUMNS = ["series", "report", "date", "candidate", "version", "baseline", "checkpoint", "metric",
                 "median", "low", "high", "cells", "faster", "level", "slower"]


def speed_rows(a, engines: dict[str, str]) -> list[dict]:
    """Per checkpoint and metric of one report: median and range of cell ratios, and the verdict counts."""
    rows: list[dict] = []
    speed = a.results.get("speed")
    if speed is None:
        return rows
    e = engines
    ratio = speed.cells["ratio"].tolist()
    # Read as whole columns: a row lookup (`.loc`, `iterrows`) costs pandas ~1 ms a group.
    counts = {(c["checkpoint"], c["metric"]): c
              for c in rows_of(speed.counts, ["checkpoint", "metric", "faster", "level", "slower"])}
    for (checkpoint, metric), at in groups(speed.cells["checkpoint"].tolist(), speed.cells["metric"].tolist()).items():
        known = [ratio[i] for i in at if not missing(ratio[i])]
        mid, low, high, n = median(known), min(known, default=float("nan")), max(known, default=float("nan")), len(known)
        c = counts[(checkpoint, metric)]
        label = METRIC_LABELS.get(metric, metric)  # the word every page uses ("clean decode")
        rows.append({**e, "series": f"{e['candidate']} / {e['baseline']} · {checkpoint} · {label}", "checkpoint": checkpoint,
                     "metric": metric, "median": mid, "low": low, "high": high, "cells": int(n),
                     "faster": int(c["faster"]), "level": int(c["level"]), "slower": int(c["slower"])})
    return rows


HISTORY = {"speed": (speed_rows, SPEED_COLUMNS)}


def speed_step(old: dict, new: dict, band: float) -> list:
    """A series' median ratio from one release to the next: the band rule (one run a cell)."""
    return [band_step("speed", "median ratio", "x", old["median"], new["median"], band, True, "band rule on the medians")]


HISTORY_STEPS = {"speed": speed_step}
SERIES = {"speed": (Measure("median", "median {metric} speed ratio", "x", True, RATIO, "low", "high", "range of the cells",
                            "{checkpoint}", speed=True),)}


# -- against an earlier release (`sitegen compare`) ----------------------------------------------

_CELL_KEY = ["checkpoint", "workload", "input_tokens", "concurrency", "metric"]


def compare(old, new, band: float) -> tuple[list, list]:
    """Each cell's candidate rate (higher is better) and each checkpoint's time to first token of the
    candidate (lower is better), new against old: one run each, so the band rule."""
    so, sn = old.of("speed"), new.of("speed")

    def by_cell(s) -> dict[tuple, dict]:
        return {key_of(*(r[c] for c in _CELL_KEY)): r for r in rows_of(s.cells, [*_CELL_KEY, "unit", "candidate_rate", "source"])}

    def by_checkpoint(s) -> dict[tuple, dict]:
        return {key_of(r["checkpoint"]): r for r in rows_of(s.ttft, ["checkpoint", "input_tokens", "candidate", "source"])}

    changes, unmatched = by_band(
        "speed", "cell", by_cell(so), by_cell(sn), band, value="candidate_rate", higher_is_better=True, speed=True,
        describe=lambda r: ({c: r[c] for c in _CELL_KEY}, r["metric"], r["unit"]),
        source=lambda r: f"{r['source']}.candidate.rate")
    more, missing_ = by_band(
        "speed", "ttft", by_checkpoint(so), by_checkpoint(sn), band, value="candidate", higher_is_better=False, speed=True,
        describe=lambda r: ({"checkpoint": r["checkpoint"], "input_tokens": r["input_tokens"]}, "ttft", "s"),
        source=lambda r: f"{r['source']}.candidate.seconds")
    return changes + more, unmatched + missing_


PART = AnalysisPart(analyse=analyse, figures=FIGURES, history=HISTORY, history_steps=HISTORY_STEPS, series=SERIES,
                    compare=compare)
