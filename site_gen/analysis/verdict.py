"""The band rule of a speed ratio: level inside the noise band (edges included), else faster or
slower. One module under both the analysis (which counts verdicts) and the views (which print a
ratio with as many digits as its verdict needs, and colour it), so both read the same rule."""
from __future__ import annotations

from typing import TYPE_CHECKING

# numpy and pandas are imported in the functions: the formatting of the dashboard and history pages
# imports this module, and a build that makes neither page again never needs them (~0.3 s).
if TYPE_CHECKING:
    import pandas as pd

VERDICTS = ("faster", "level", "slower")
# What makes `sitegen compare` and `sitegen history --changes` exit 1: one vocabulary for both.
# slower: a speed figure got worse; worse: any figure got worse; new-regression: a regression that
# is new (in a comparison of two reports every one is: the same as worse); any: any change beyond
# noise, either way; never: none.
FAIL_ON = ("slower", "worse", "new-regression", "any", "never")


def verdict(ratio: pd.Series, band: float) -> pd.Series:
    """|ratio - 1| <= band is level, edges included.

    Compared in a rounded form so that a ratio printed as 1.08 is never called faster
    because of a binary-float tail (1.08 is stored as 1.0800000000000000710...).
    """
    import numpy as np
    import pandas as pd

    values = ratio.to_numpy(dtype=float)
    distance = np.round(np.abs(values - 1.0), 12)
    out = np.where(distance <= round(band, 12), "level", np.where(values > 1.0, "faster", "slower"))
    return pd.Series(out, index=ratio.index, dtype="object")


def verdict_of(ratio: float, band: float) -> str:
    """`verdict` of one ratio (the same rule and rounding, for a number a page prints)."""
    import numpy as np  # numpy's rounding, as `verdict` rounds: Python's `round` differs in the last place

    if np.round(abs(ratio - 1.0), 12) <= round(band, 12):
        return "level"
    return "faster" if ratio > 1.0 else "slower"


# -- the rule of a ratio that carries an interval ---------------------------------------------------
# One run of each side and no rows (speed cells) leaves no interval: the band rule above alone says
# faster, level or slower. A ratio with a 95% interval (per-request rows, or repeated runs) is held
# to its interval as well: `interval_verdict`.
UNRESOLVED = "not resolved"
INTERVAL_VERDICTS = ("faster", "level", "slower", UNRESOLVED)
INTERVAL_RULE = ("faster or slower only when the whole 95% interval of the ratio lies beyond the noise band on one "
                 "side (so it lies wholly on one side of 1, and the ratio is outside the band); level when the whole "
                 "interval lies inside the band; otherwise not resolved, counted apart and never as faster or slower")


def interval_verdict(ratio: float, low: float, high: float, band: float, higher_is_faster: bool = True) -> str:
    """Faster or slower only when [low, high] lies wholly beyond the band (1 ± band) on one side; level
    when it lies wholly inside (edges included, as the band rule counts them); else not resolved.

    Why beyond the band, not only beyond 1: an interval over one run's requests sees how those
    requests scatter, not how a second run of the same setup would differ (two runs of one setup
    differ by more than their requests' scatter: see the guide, docs/guide/reading.md, "Latency under load").
    The band stands for that run-to-run noise, so a difference is called only when even the end of
    its interval nearest to 1 is beyond it."""
    if any(v != v for v in (ratio, low, high)):
        return UNRESOLVED
    import numpy as np

    b = round(band, 12)
    below, above = np.round(1.0 - low, 12), np.round(high - 1.0, 12)
    if below <= b and above <= b:
        return "level"
    if np.round(low - 1.0, 12) > b:
        return "faster" if higher_is_faster else "slower"
    if np.round(1.0 - high, 12) > b:
        return "slower" if higher_is_faster else "faster"
    return UNRESOLVED


def band_verdict(ratio: float, band: float, higher_is_faster: bool = True) -> str:
    """`verdict_of` for a ratio where higher may be slower (a latency)."""
    v = verdict_of(ratio, band)
    if higher_is_faster or v == "level":
        return v
    return "slower" if v == "faster" else "faster"
