"""Versions' analysis: precision agreement and identical replies against the previous version,
from measured rows."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from site_gen.analysis.figures import Figure, need_rows
from site_gen.analysis.frames import empty, frame, from_rows, groups, missing
from site_gen.sections.contract import AnalysisPart


def precision(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per panel: bit-identical when every difference is exactly zero; resolved when an interval excludes zero."""
    if rows.empty:
        return empty(["panel", "checkpoints", "max_abs_difference", "identical", "resolved"])
    checkpoint, largest, interval = (rows[c].tolist() for c in ("checkpoint", "max_abs_difference", "interval"))
    found = groups(rows["panel"].tolist())
    out: dict[str, list] = {"panel": [k[0] for k in found], "checkpoints": [], "max_abs_difference": [],
                            "identical": [], "resolved": []}
    for at in found.values():
        known = [largest[i] for i in at if not missing(largest[i])]
        out["checkpoints"].append([checkpoint[i] for i in at])
        out["max_abs_difference"].append(max(known) if known else np.nan)
        out["identical"].append(all(largest[i] == 0 for i in at))
        out["resolved"].append(any(interval[i][0] > 0 or interval[i][1] < 0 for i in at))
    return frame(out)


def text(rows: pd.DataFrame) -> pd.DataFrame:
    """Replies grouped by whether every reply of a category was identical."""
    if rows.empty:
        return empty(["all_identical", "categories", "identical", "total", "differ"])
    category, identical, total = (rows[c].tolist() for c in ("category", "identical", "total"))
    found = groups([i == t for i, t in zip(identical, total)])
    # Every category identical first.
    keys = sorted(found, reverse=True)
    same = [sum(identical[i] for i in found[k] if not missing(identical[i])) for k in keys]
    of = [sum(total[i] for i in found[k] if not missing(total[i])) for k in keys]
    return frame({"all_identical": [k[0] for k in keys], "categories": [[category[i] for i in found[k]] for k in keys],
                         "identical": same, "total": of, "differ": [t - s for s, t in zip(same, of)]})


@dataclass
class VersionsResult:
    precision: pd.DataFrame   # one row per panel: bit-identical, largest difference, resolved
    text: pd.DataFrame        # replies grouped by whether every reply of a category was identical


def analyse(a, v: dict) -> VersionsResult:
    return VersionsResult(
        precision=precision(from_rows(v.get("precision", []), ["panel", "checkpoint", "max_abs_difference", "interval"])),
        text=text(from_rows(v.get("text", []), ["category", "identical", "total"])))


def versions_identical(a, panel: str) -> Figure:
    v = a.of("versions")
    row = need_rows(v.precision if v is not None else None, "version comparison", f"no version comparison on panel {panel}",
                    panel=panel)
    return Figure(bool(row["identical"].iloc[0]), "bool", f"largest difference on {panel}: {row['max_abs_difference'].iloc[0]}")


FIGURES = {"versions_identical": (versions_identical, "true when the previous version's results on one panel are "
                                                      "bit-identical (panel=…)")}


PART = AnalysisPart(analyse=analyse, figures=FIGURES)
