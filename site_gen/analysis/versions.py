"""Version against version: precision agreement and identical replies, from measured rows."""
from __future__ import annotations

import numpy as np
import pandas as pd

from site_gen.analysis.frames import empty, frame, groups, missing


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
