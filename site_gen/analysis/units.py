"""Units the analysis names its selections in (a view's format module prints the same way)."""
from __future__ import annotations

import math
from typing import Any

MISSING = "\u2014"
DASH = "\u2013"


def tokens_k(value: Any) -> str:
    """Context sizes in KiB-tokens as engines name them: 32768 -> `32K`."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    k = value / 1024
    return f"{k:g}K" if k >= 1 else f"{value}"
