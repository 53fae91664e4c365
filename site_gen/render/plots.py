"""Geometry of small inline SVG plots: the tail of two sides' distributions (1 − CDF, log scale), a
line plot against load, a ratio's interval on a log scale, and one figure against another. Every position is computed here; templates
place what they are given (sections/serving/templates/_latency.html)."""
from __future__ import annotations

import math
from typing import Any, cast

import numpy as np

from site_gen.render import format as fmt

WIDTH, HEIGHT = 360, 210
LEFT, RIGHT, TOP, BOTTOM = 46, 14, 12, 34
# A tail is drawn as every step of its slowest TAIL_STEPS requests and, above them, a step at each of
# TAIL_LEVELS shares of requests spaced evenly on its log axis, in whole units of the 360-unit-wide
# drawing (about a pixel where it is shown): a path of about a kilobyte whatever the number of requests.
TAIL_STEPS, TAIL_LEVELS = 40, 48
# Side styles: colours are CSS variables (light and dark follow the theme), dashes tell them apart in print.
# The charts' lines take them by class (.s-baseline, .s-candidate in sitegen.css); the legends, from here.
STYLES = {"baseline": {"colour": "var(--series-decode)", "dash": "5 3", "marker": "square"},
          "candidate": {"colour": "var(--series-aggregate)", "dash": "", "marker": "circle"}}


def _nice(span: float) -> float:
    raw = span / 4 if span > 0 else 1.0
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 2.5, 5, 10) if raw <= m * power)


def linear_ticks(lo: float, hi: float) -> tuple[float, float, list[float]]:
    step = _nice(hi - lo)
    lo, hi = math.floor(lo / step) * step, math.ceil(hi / step) * step
    hi = max(hi, lo + step)
    return lo, hi, [lo + i * step for i in range(int(round((hi - lo) / step)) + 1)]


def log_ticks(lo: float, hi: float) -> tuple[float, float, list[float]]:
    """Ends at 1, 2 or 5 times a power of ten around [lo, hi] (both > 0), ticks at those steps
    between them; over many decades, at the powers of ten only."""
    steps = [m * 10.0 ** k for k in range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1) for m in (1, 2, 5)]
    start = max(v for v in steps if v <= lo * 1.0001)
    end = min(v for v in steps if v >= hi * 0.9999)
    ticks = [v for v in steps if start * 0.9999 <= v <= end * 1.0001]
    if len(ticks) > 7:
        ticks = [v for v in ticks if abs(math.log10(v) - round(math.log10(v))) < 1e-9] or [start, end]
    return start, end, ticks


class Axis:
    """A value -> position map on [lo, hi] (log or linear) onto [a, b] pixels."""

    def __init__(self, lo: float, hi: float, a: float, b: float, log: bool = False):
        self.lo, self.hi, self.a, self.b, self.log = lo, hi, a, b, log
        # The map's constants, computed once (a chart maps thousands of values): the same
        # operations in the same order as written out in each call, so the same positions.
        self._start = math.log(lo) if log else lo
        self._span = (math.log(hi) - math.log(lo)) if log else (hi - lo)
        self._width = b - a

    def __call__(self, v: float) -> float | int:
        if self.log and v <= 0:  # the lower end of a log axis, and anything below it (a noise band of 1 reaches 0)
            return round(self.a, 1) if self.a != int(self.a) else int(self.a)
        f = ((math.log(v) if self.log else v) - self._start) / self._span
        at = round(self.a + min(max(f, 0.0), 1.0) * self._width, 1)
        return int(at) if at == int(at) else at  # `46`, not `46.0`: a chart writes hundreds of them


def ms(value: float) -> str:
    """A latency as the plots label it: `85 ms`, `1,214 ms`, `12.3 ms`, `1.2 s` above ten seconds."""
    if value >= 10_000:
        return f"{value / 1000:,.1f} s"
    return f"{value:,.0f} ms" if value >= 100 else f"{value:.1f} ms"


def _tick_label(v: float) -> str:
    """A latency tick on a log axis: ms below a second, then seconds, each with its unit (`500ms`,
    `1s`, `20s`): a bare `100` under `1s` read as 100 seconds."""
    return f"{v / 1000:g}s" if v >= 1000 else f"{v:g}ms"


def _ms_label(v: float, top: float) -> str:
    """A linear latency axis' tick: every tick in seconds when the axis reaches 2 s, else in ms,
    with its unit (zero needs none)."""
    if v == 0:
        return "0"
    return f"{v / 1000:g}s" if top >= 2000 else f"{v:g}ms"


def _count_label(v: float) -> str:
    return f"{v:,.0f}" if v >= 1000 else f"{v:g}"


def tail(series: list[dict[str, Any]], marks: tuple[int, ...], x_range: tuple[float, float] | None = None) -> dict[str, Any]:
    """Both sides' tails on one axis: the share of requests slower than each latency (1 − the
    empirical CDF) on a log scale from 100% down to one request, so p90, p95 and p99 stand apart
    (on a CDF they share its top sliver). `series` of {role, label, values (sorted), percentiles:
    {q: value}}; `x_range` (lowest, highest): the latency axis every load of a sweep shares, so the
    tail moves right on the page as the load grows. Log latency axis when it spans more than 20x."""
    lo = min(float(s["values"][0]) for s in series)
    hi = max(float(s["values"][-1]) for s in series)
    if x_range:
        lo, hi = min(lo, x_range[0]), max(hi, x_range[1])
    log = lo > 0 and hi / lo > 20
    lo, hi, ticks = log_ticks(lo, hi) if log else linear_ticks(min(lo, 0.0) if lo < hi * 0.2 else lo, hi)
    x = Axis(lo, hi, LEFT, WIDTH - RIGHT, log)
    most = max(int(s["values"].size) for s in series)
    floor = 1 / most  # one request of the largest side: the axis' bottom
    y = Axis(floor, 1.0, HEIGHT - BOTTOM, TOP, log=True)
    out = []
    for s in series:
        v = s["values"]
        n = int(v.size)
        # The steps drawn: every one of the last TAIL_STEPS requests, and above them a step at each of
        # TAIL_LEVELS shares spaced evenly on the log axis: a path of about a kilobyte at any size.
        above = np.unique(np.concatenate([np.arange(min(n, TAIL_STEPS) + 1),
                                          np.round(n * np.geomspace(1 / n, 1, TAIL_LEVELS)).astype(int)]))
        above = above[(above >= 0) & (above <= n)][::-1]  # requests slower, from all of them down to none
        xs, ys = [round(x(float(v[0])))], [round(y(1.0))]
        for k in above[1:]:
            xs.append(round(x(float(v[n - k - 1]))))  # the latency at which only k requests stay slower
            ys.append(round(y(max(k / n, floor))) if k else HEIGHT - BOTTOM)
        pts = [{"x": round(x(val)), "y": round(y(1 - q / 100)), "label": f"p{q} {ms(val)}"}
               for q, val in s["percentiles"].items() if val == val and q in marks]
        out.append({"role": s["role"], "label": s["label"], "d": _steps(xs, ys), "marks": pts, **STYLES[s["role"]]})
    placed = []
    for t in ticks:  # a label stays inside the chart: one near an end anchored at it
        at, label = x(t), _tick_label(t) if log else _ms_label(t, hi)
        anchor = "start" if at - 4 * len(label) < 0 else "end" if at + 4 * len(label) > WIDTH else ""
        placed.append({"x": at, "label": label, "anchor": anchor})
    return {"width": WIDTH, "height": HEIGHT, "series": out, "log": log, "x_ticks": placed,
            "y_ticks": [{"y": y(1.0), "label": "all"}] + [{"y": y(1 - q / 100), "label": f"p{q}"} for q in marks if 1 - q / 100 >= floor],
            "plot": {"left": LEFT, "right": WIDTH - RIGHT, "top": TOP, "bottom": HEIGHT - BOTTOM},
            "x_title": "latency, log scale" if log else "latency"}


def _steps(xs: list[int], ys: list[int]) -> str:
    """A staircase through (xs[i], ys[i]), each step across then up, in relative moves (`h3v-2`),
    runs of moves one way merged."""
    out = [f"M{xs[0]} {ys[0]}"]
    moves: list[list] = []
    for (x0, y0), (x1, y1) in zip(zip(xs, ys), zip(xs[1:], ys[1:])):
        for kind, d in (("h", x1 - x0), ("v", y1 - y0)):
            if d == 0:
                continue
            if moves and moves[-1][0] == kind:
                moves[-1][1] += d
            else:
                moves.append([kind, d])
    return out[0] + "".join(f"{k}{d}" for k, d in moves)


def load_axis(xs: list[float]) -> tuple[Axis, list[dict[str, Any]], float | None]:
    """The load axis of a sweep: log2 spacing of the finite loads, an unlimited one (inf) a step
    past the heaviest, so the curve keeps its shape and "all at once" its place."""
    finite = sorted({v for v in xs if math.isfinite(v)})
    lo, hi = (finite[0], finite[-1]) if finite else (1.0, 1.0)
    if hi <= lo:
        lo, hi = lo / 2, hi * 2
    inf_at = hi * 2 ** max(1.0, math.log2(hi / lo) / max(len(finite) - 1, 1)) if any(math.isinf(v) for v in xs) else None
    axis = Axis(lo / 1.25, (inf_at or hi) * 1.25, LEFT + 6, WIDTH - RIGHT - 6, log=True)
    ticks = [{"x": axis(v), "label": f"{v:g}"} for v in finite]
    if inf_at:
        ticks.append({"x": axis(inf_at), "label": "∞"})
    return axis, ticks, inf_at


def lines(series: list[dict[str, Any]], y_label: str, limit: dict | None = None,
          marks: list[dict] | None = None, kind: str = "count") -> dict[str, Any]:
    """A line plot against load: `series` of {role, label, dash?, points: [{x, y, low, high, label}]}.
    `limit` {value, label}: a horizontal objective line; `marks` [{x, label, role}]: vertical marks
    (the saturation point); `kind`: the y axis' values, "count", "ms" or "share" (0-100%)."""
    share = kind == "share"
    xs = [p["x"] for s in series for p in s["points"]] + [m["x"] for m in marks or ()]
    xa, x_ticks, inf_at = load_axis(xs)
    place = (lambda v: xa(cast(float, inf_at)) if math.isinf(v) else xa(v))  # an inf load has its place
    ys = [v for s in series for p in s["points"] for v in (p["y"], p.get("low", math.nan), p.get("high", math.nan)) if v == v]
    if limit:
        ys.append(limit["value"])
    # A latency that grows by more than 20x over the sweep (queueing) gets a log axis: on a linear
    # one every load before saturation would sit on the floor.
    log = kind == "ms" and bool(ys) and min(ys) > 0 and max(ys) / min(ys) > 20
    if share:
        lo, hi, ticks = 0.0, 1.0, [0.0, 0.25, 0.5, 0.75, 1.0]
    elif log:
        lo, hi, ticks = log_ticks(min(ys), max(ys))
    else:
        lo, hi, ticks = linear_ticks(0.0, max(ys) * 1.08 if ys else 1.0)
    ya = Axis(lo, hi, HEIGHT - BOTTOM, TOP, log=log)
    out = []
    for s in series:
        pts = [{"x": place(p["x"]), "y": ya(p["y"]), "label": p["label"],
                "low": ya(p["low"]) if p.get("low", math.nan) == p.get("low", math.nan) else None,
                "high": ya(p["high"]) if p.get("high", math.nan) == p.get("high", math.nan) else None}
               for p in s["points"] if p["y"] == p["y"]]
        d = "".join(("M" if i == 0 else "L") + f"{p['x']} {p['y']}" for i, p in enumerate(pts))
        out.append({**STYLES[s["role"]], **{k: v for k, v in s.items() if k in ("dash", "marker")},
                    "role": s["role"], "label": s["label"], "d": d, "points": pts})
    return {"width": WIDTH, "height": HEIGHT, "series": out, "x_ticks": x_ticks,
            "y_ticks": [{"y": ya(t), "label": f"{t * 100:g}%" if share else _tick_label(t) if log
                         else _ms_label(t, hi) if kind == "ms" else _count_label(t)} for t in ticks],
            "log": log,
            "plot": {"left": LEFT, "right": WIDTH - RIGHT, "top": TOP, "bottom": HEIGHT - BOTTOM},
            "y_title": y_label,
            "limit": {"y": ya(limit["value"]), "label": limit["label"]} if limit else None,
            "marks": [{"x": place(m["x"]), "label": m["label"], "text_y": TOP + 10 + 12 * i, **STYLES[m["role"]]}
                      for i, m in enumerate(marks or ())]}


def ratio_scale(lows: list[float], highs: list[float]) -> tuple[float, float]:
    """A log scale for latency ratios: [1/2, 2] widened by powers of two to hold every interval (at most [1/8, 8])."""
    known_lo = [v for v in lows if v == v and v > 0]
    known_hi = [v for v in highs if v == v and v > 0]
    lo = min([0.5, *known_lo])
    hi = max([2.0, *known_hi])
    return (max(2 ** math.floor(math.log2(lo)), 0.125), min(2 ** math.ceil(math.log2(hi)), 8.0))


BAR = 200


def interval_bar(ratio: float, low: float, high: float, verdict: str, scale: tuple[float, float], band: float) -> dict[str, Any]:
    """A ratio and its interval on a log scale, the band shaded, a line at 1; the colour says the verdict."""
    axis = Axis(scale[0], scale[1], 0.0, BAR, log=True)
    one = axis(1.0)
    has = low == low and high == high
    a, b = (axis(low), axis(high)) if has else (axis(ratio), axis(ratio))
    kind = {"faster": "above", "slower": "below", "level": "within"}.get(verdict, "straddles")
    label = f"{fmt.ratio(ratio, 3)}" + (f", 95% interval {fmt.ratio(low, 3)} to {fmt.ratio(high, 3)}" if has else ", no interval")
    return {"width": BAR, "band_x": axis(1 / (1 + band)) if False else axis(1 - band), "band_w": round(axis(1 + band) - axis(1 - band), 1),
            "one": one, "bar_x": a, "bar_w": max(round(b - a, 1), 2.0), "at": axis(ratio), "kind": kind,
            "has_interval": has, "clipped_low": (low if has else ratio) < scale[0], "clipped_high": (high if has else ratio) > scale[1],
            "label": f"{label}, {verdict}"}


def scale_ticks(scale: tuple[float, float]) -> list[dict[str, Any]]:
    axis = Axis(scale[0], scale[1], 0.0, BAR, log=True)
    out, v = [], scale[0]
    while v <= scale[1] * 1.0001:
        out.append({"x": axis(v), "label": f"{v:g}" if v >= 1 else f"1/{1 / v:g}"})
        v *= 2
    return out


# -- many setups: one style each, and a chart of one figure against another -------------------------
# A study draws up to ten setups on one chart: a colour each (CSS variables, light and dark follow the
# theme; sitegen.css `--s0`…`--s9`), and a marker and a dash that tell them apart without colour (print,
# colour vision). A pair drawn as a study of two takes the first two.
MARKERS = ("circle", "square", "triangle", "diamond", "cross")
DASHES = ("", "5 3", "2 2", "8 3 2 3", "1 3")
PALETTE = 10


def series_style(i: int) -> dict[str, str]:
    """The i-th setup's colour, marker and dash (markers and dashes cycle apart: ten distinct pairs)."""
    return {"colour": f"var(--s{i % PALETTE})", "marker": MARKERS[i % len(MARKERS)],
            "dash": DASHES[(i // len(MARKERS) + i) % len(DASHES)]}


def _axis_of(values: list[float], kind: str, a: float, b: float) -> tuple[Axis, list[dict[str, Any]], bool]:
    """An axis over the values: log when they span more than 20x (all positive), else linear from 0."""
    vs = [v for v in values if v == v and math.isfinite(v)]
    if not vs:
        vs = [0.0, 1.0]
    log = min(vs) > 0 and max(vs) / min(vs) > 20
    if log:
        lo, hi, ticks = log_ticks(min(vs), max(vs))
    else:
        lo, hi, ticks = linear_ticks(0.0, max(vs) * 1.06 if max(vs) > 0 else 1.0)
    axis = Axis(lo, hi, a, b, log=log)
    label = (lambda t: _tick_label(t) if log else _ms_label(t, hi)) if kind == "ms" else _count_label
    return axis, [{"at": axis(t), "label": label(t)} for t in ticks], log


def xy(series: list[dict[str, Any]], x_kind: str = "count", y_kind: str = "count", frontier: list[tuple[float, float]] | None = None,
       limit: dict | None = None, width: int = WIDTH, height: int = HEIGHT) -> dict[str, Any]:
    """One figure against another, a curve per setup through its load points (in load order):
    `series` of {key, label, style (series_style), points: [{x, y, x_low, x_high, y_low, y_high,
    label, mark}]}; whiskers where a point has an interval on an axis; `frontier`: the Pareto points
    (x, y) drawn as one line under the curves; `limit` {value, label, axis: "x" or "y"}: an objective
    line. `x_kind`/`y_kind`: "count" or "ms" (tick labels). Throughput per GPU against interactivity
    (the frontier) and latency against throughput are both this chart."""
    xs = [v for s in series for p in s["points"] for v in (p["x"], p.get("x_low", math.nan), p.get("x_high", math.nan))]
    ys = [v for s in series for p in s["points"] for v in (p["y"], p.get("y_low", math.nan), p.get("y_high", math.nan))]
    if limit:
        (xs if limit.get("axis") == "x" else ys).append(limit["value"])
    xa, x_ticks, x_log = _axis_of(xs, x_kind, LEFT + 6, width - RIGHT - 6)
    ya, y_ticks, y_log = _axis_of(ys, y_kind, height - BOTTOM, TOP)

    def at(axis: Axis, v: float) -> float | int | None:
        return axis(v) if v == v and math.isfinite(v) and (not axis.log or v > 0) else None

    out = []
    for s in series:
        pts = []
        for p in s["points"]:
            x, y = at(xa, p["x"]), at(ya, p["y"])
            if x is None or y is None:
                continue
            pts.append({"x": x, "y": y, "label": p["label"], "mark": bool(p.get("mark")), "tag": p.get("tag", ""),
                        "x_low": at(xa, p.get("x_low", math.nan)), "x_high": at(xa, p.get("x_high", math.nan)),
                        "y_low": at(ya, p.get("y_low", math.nan)), "y_high": at(ya, p.get("y_high", math.nan))})
        d = "".join(("M" if i == 0 else "L") + f"{p['x']} {p['y']}" for i, p in enumerate(pts))
        out.append({**s["style"], "key": s["key"], "label": s["label"], "d": d, "points": pts})
    front = ""
    if frontier:
        placed = [(at(xa, x), at(ya, y)) for x, y in sorted(frontier)]
        front = "".join(("M" if i == 0 else "L") + f"{x} {y}" for i, (x, y) in enumerate(p for p in placed if None not in p))
    lim = None
    if limit:
        v = at(xa if limit.get("axis") == "x" else ya, limit["value"])
        lim = {"at": v, "label": limit["label"], "axis": limit.get("axis", "y")} if v is not None else None
    return {"width": width, "height": height, "series": out, "frontier": front, "limit": lim,
            "x_ticks": [{"x": t["at"], "label": t["label"]} for t in x_ticks],
            "y_ticks": [{"y": t["at"], "label": t["label"]} for t in y_ticks], "x_log": x_log, "y_log": y_log,
            "plot": {"left": LEFT, "right": width - RIGHT, "top": TOP, "bottom": height - BOTTOM}}
