"""The band rule of a speed ratio: level inside the noise band (edges included), else faster or
slower. One module under both the analysis (which counts verdicts) and the views (which print a
ratio with as many digits as its verdict needs, and colour it), so both read the same rule."""
from __future__ import annotations

import numpy as np
import pandas as pd

VERDICTS = ("faster", "level", "slower")


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
