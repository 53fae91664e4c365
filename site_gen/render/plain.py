"""Values for `sitegen summary --format json`: numbers as JSON numbers (never printed text), a
missing one as null, intervals and ranges as objects with their ends. The sections' summaries are
made with these, so a script reads 1.06 where a page prints "1.06x"."""
from __future__ import annotations

import math
from typing import Any


def number(value: Any) -> float | int | None:
    """A finite number as JSON holds it (an integral float as an integer: 5799424, not 5799424.0); NaN, None: null."""
    if value is None or isinstance(value, bool):
        return None
    try:
        v = float(value)
    except (TypeError, ValueError):
        return None
    if not math.isfinite(v):
        return None
    return int(v) if v == int(v) and abs(v) < 2 ** 53 else v


def integer(value: Any) -> int | None:
    v = number(value)
    return None if v is None else int(v)


def span(low: Any, high: Any, **more: Any) -> dict[str, Any] | None:
    """`{"low": 1.06, "high": 1.46, ...}`, or null when either end is missing."""
    lo, hi = number(low), number(high)
    return None if lo is None or hi is None else {"low": lo, "high": hi, **more}


def text(value: Any) -> str | None:
    """Receipt text as given; a missing value (None, NaN) null."""
    if value is None or (isinstance(value, float) and value != value):
        return None
    return str(value)


def engine(e) -> dict[str, Any]:
    """An engine (site_gen.receipts.load.Engine): its name, version and label as the pages write it."""
    return {"name": e.name, "version": e.version, "label": e.label}
