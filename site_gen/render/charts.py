"""Chart geometry shared by sections: inline SVG ratio and range bars on the fixed scale, its ticks
(a section's own charts are drawn by its view).

Positions are mapped onto fixed scales here so that templates only place what they are given.
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

from site_gen.analysis.verdict import verdict_of
from site_gen.render import format as fmt

BAR_WIDTH = 200.0


def _x(value: float, low: float, high: float, width: float = BAR_WIDTH) -> float:
    return round((min(max(value, low), high) - low) / (high - low) * width, 2)


@lru_cache(maxsize=64)
def _marks(low: float, high: float, band: float) -> tuple[float, float, float]:
    """Where 1.0 and the noise band lie on a scale (1.0's x, the band's x and width): the same for
    every bar drawn on it (a report draws a hundred)."""
    return _x(1.0, low, high), _x(1.0 - band, low, high), round(_x(1.0 + band, low, high) - _x(1.0 - band, low, high), 2)


def ratio_bar(ratio: float, verdict: str, scale: tuple[float, float], band: float) -> dict[str, Any]:
    """One ratio on the fixed scale: a bar from 1.0 to the ratio, the band shaded, clipped ends marked."""
    low, high = scale
    one, band_x, band_w = _marks(low, high, band)
    at = _x(ratio, low, high)
    return {
        "width": BAR_WIDTH,
        "band_x": band_x, "band_w": band_w,
        "one": one, "bar_x": min(one, at), "bar_w": max(round(abs(at - one), 2), 1.0), "at": at,
        "verdict": verdict, "clipped_low": ratio < low, "clipped_high": ratio > high,
        "label": f"{fmt.speed_ratio(ratio, band)}, {verdict}" + (" (beyond the scale)" if not low <= ratio <= high else ""),
    }


RANGE_KINDS = {"above": "every ratio faster", "within": "every ratio level", "below": "every ratio slower",
               "straddles": "ratios on both sides of a band edge"}


def range_kind(lo: float, hi: float, band: float) -> str:
    """What a min–max span says against the noise band: wholly above it, within it, below it, or
    across an edge (then its cells do not share one verdict)."""
    ends = {verdict_of(lo, band), verdict_of(hi, band)}
    if len(ends) == 1:
        return {"faster": "above", "level": "within", "slower": "below"}[ends.pop()]
    return "straddles"


def range_bar(lo: float, hi: float, scale: tuple[float, float], band: float) -> dict[str, Any]:
    """A min–max span on the same fixed scale as the cell bars, coloured by `range_kind`; each end
    beyond the scale is marked (a span can leave it on both sides)."""
    low, high = scale
    a, b = _x(lo, low, high), _x(hi, low, high)
    kind = range_kind(lo, hi, band)
    beyond = [side for side, out in (("low", lo < low), ("high", hi > high)) if out]
    one, band_x, band_w = _marks(low, high, band)
    return {
        "width": BAR_WIDTH,
        "band_x": band_x, "band_w": band_w,
        "one": one, "bar_x": a, "bar_w": max(round(b - a, 2), 2.0),
        "kind": kind, "clipped_low": "low" in beyond, "clipped_high": "high" in beyond, "band_text": f"\u00b1{band * 100:g}%",
        "label": f"from {fmt.speed_ratio(lo, band)} to {fmt.speed_ratio(hi, band)}, {RANGE_KINDS[kind]}"
                 + (f" ({' and '.join(beyond)} end beyond the scale)" if beyond else ""),
    }


# The scale's axis holds at most this many ticks, whatever `ratio_scale` is (a scale of [0.5, 100000]
# at 0.2 a step was half a million ticks: seconds and a gigabyte for one line of labels).
MAX_SCALE_TICKS = 11


def scale_ticks(scale: tuple[float, float], step: float = 0.2) -> list[dict[str, Any]]:
    """Ticks every `step` from the scale's low end; on a scale too wide for that, at most
    MAX_SCALE_TICKS at round steps (multiples of 1, 2, 2.5 or 5 times a power of ten)."""
    low, high = scale
    n = int(round((high - low) / step))
    if n < MAX_SCALE_TICKS:
        return [{"x": _x(low + i * step, low, high), "label": f"{low + i * step:.1f}"} for i in range(n + 1)]
    step = nice_step(high - low)
    first = math.ceil(low / step)
    values = [k * step for k in range(first, first + MAX_SCALE_TICKS) if k * step <= high * (1 + 1e-12)]
    digits = 0 if step >= 1 else 1 if step >= 0.1 else 2
    return [{"x": _x(v, low, high), "label": f"{v:,.{digits}f}"} for v in values]


def nice_step(span: float) -> float:
    """A round step (1, 2, 2.5 or 5 times a power of ten) that cuts `span` into about four."""
    raw = span / 4
    power = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if raw <= m * power:
            return m * power
    return 10 * power
