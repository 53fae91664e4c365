"""`sitegen history --changes`: each series' change points as text, markdown for a pull-request
comment, or JSON for scripts (`site_gen/schema/history-output-1.schema.json`); and the words the
History page and the dashboard use for a change ("changed at v0.9.0 (2026-10-08): -12% [-15, -9]")."""
from __future__ import annotations

import json
import math
from typing import Any

from site_gen.analysis import changes as cp
from site_gen.analysis.series import Series
from site_gen.render import format as fmt
from site_gen.render.summary import markdown_text as _md, one_line

VERSION = 1
SCHEMA = f"history-output-{VERSION}.schema.json"  # in site_gen/schema/


def _pct(x: float) -> str:
    return fmt.signed(x * 100, 1)  # U+2212 minus, a tie rounded as every figure is


def change_text(s: Series, c: cp.ChangePoint) -> str:
    """−12.0% [−15.1, −9.2] (ratio scale) or +0.0123 [+0.0051, +0.0195] unit (difference scale)."""
    if c.scale == cp.RATIO:
        iv = f" [{_pct(c.low)}, {_pct(c.high)}]" if math.isfinite(c.low) else ""
        return f"{_pct(c.change)}%{iv}"
    digits = _digits(c.before, c.after, c.change)
    iv = f" [{fmt.signed(c.low, digits)}, {fmt.signed(c.high, digits)}]" if math.isfinite(c.low) else ""
    return f"{fmt.signed(c.change, digits)}{iv} {s.unit}".rstrip()


def _digits(*xs: float) -> int:
    m = max((abs(x) for x in xs if math.isfinite(x) and x != 0), default=1.0)
    return max(0, min(6, 3 - int(math.floor(math.log10(m)))))


def level_text(s: Series, v: float) -> str:
    d = _digits(v)
    return f"{fmt.grouped(v, d)} {s.unit}".rstrip()


def at_text(s: Series, c: cp.ChangePoint) -> str:
    """Where a change begins: 'v0.9.0 (2026-10-08)', its commit named when the receipt gives one."""
    p = s.at(c)
    return f"{p.name} ({p.date})" if p.name != p.date else p.date


def headline(s: Series, c: cp.ChangePoint) -> str:
    """The dashboard's and the page's line: 'changed at v0.9.0 (2026-10-08): -12.0% [-15.1, -9.2]'."""
    word = "changed" if c.status == cp.CONFIRMED else "may have changed"
    return f"{word} at {at_text(s, c)}: {change_text(s, c)}"


def _title(s: Series) -> str:
    return one_line(f"{s.key} · {s.label}" + (f" ({s.unit})" if s.unit else ""))


def _points_text(s: Series) -> str:
    return f"{len(s.points)} points, {s.points[0].date} to {s.points[-1].date}"


def _change_line(s: Series, i: int, c: cp.ChangePoint, failing: set[tuple[int, int]], k: int) -> str:
    flag = "  FAILS" if (k, i) in failing else ("  new" if i in s.new else "")
    return (f"  {c.status} {s.direction(c)}: {headline(s, c)}; {level_text(s, c.before)} -> {level_text(s, c.after)}, "
            f"p = {c.pvalue:.2g}, {c.points_before} points before, {c.points_after} after{flag}")


def as_text(all_series: list[Series], shown: list[tuple[int, list[int]]], failing: set[tuple[int, int]], meta: dict) -> str:
    out = [verdict(all_series, shown, failing, meta)]
    for k, idx in shown:
        s = all_series[k]
        out.append(f"{_title(s)}: {_points_text(s)}")
        out += [_change_line(s, i, s.changes[i], failing, k) for i in idx]
    out += [f"note: {n}" for n in meta.get("notes", [])]
    return "\n".join(out) + "\n"


def verdict(all_series: list[Series], shown: list[tuple[int, list[int]]], failing: set[tuple[int, int]], meta: dict) -> str:
    n = sum(len(idx) for _, idx in shown)
    since = f" since {meta['since']}" if meta.get("since") else ""
    head = (f"{n} change point{'s' if n != 1 else ''}{since} in {len(shown)} of {len(all_series)} series"
            f" ({meta['reports']} reports)")
    if failing:
        return head + f"; {len(failing)} fail{'s' if len(failing) == 1 else ''} by --fail-on {meta['fail_on']}."
    return head + "; none fails" + (f" by --fail-on {meta['fail_on']}." if meta["fail_on"] != "never" else " (--fail-on never).")


def as_markdown(all_series: list[Series], shown: list[tuple[int, list[int]]], failing: set[tuple[int, int]], meta: dict) -> str:
    out = [f"**{_md(verdict(all_series, shown, failing, meta))}**", ""]
    if shown:
        out += ["| series | figure | status | at | change [95% interval] | before → after | p |",
                "|---|---|---|---|--:|--:|--:|"]
        for k, idx in shown:
            s = all_series[k]
            for i in idx:
                c = s.changes[i]
                mark = " ❌" if (k, i) in failing else ""
                out.append(f"| {_md(s.key)} | {_md(s.label)} | {c.status} {s.direction(c)}{mark} | {_md(at_text(s, c))} | "
                           f"{_md(change_text(s, c))} | {_md(level_text(s, c.before))} → {_md(level_text(s, c.after))} | "
                           f"{c.pvalue:.2g} |")
    out += ["", *[f"_{_md(n)}_" for n in meta.get("notes", [])]]
    return "\n".join(out).rstrip() + "\n"


def _num(v: float) -> float | None:
    return float(v) if isinstance(v, (int, float)) and math.isfinite(v) else None


def as_json(all_series: list[Series], shown: list[tuple[int, list[int]]], failing: set[tuple[int, int]], meta: dict) -> str:
    wanted = dict(shown)
    doc: dict[str, Any] = {
        "format": "sitegen history --changes", "version": VERSION, "schema": SCHEMA, "since": meta.get("since"),
        "fail_on": meta["fail_on"], "failed": bool(failing), "verdict": verdict(all_series, shown, failing, meta),
        "reports": meta["reports"], "notes": meta.get("notes", []),
        "detector": {"library": "ruptures", "search": "PELT, least absolute deviation", "min_size": cp.MIN_SIZE,
                     "penalty": f"{cp.PENALTY:g} x log(n), in noise units", "alpha": cp.ALPHA, "confirm": cp.CONFIRM},
        "series": []}
    for k, s in enumerate(all_series):
        doc["series"].append({
            "key": s.key, "declared": s.declared or None, "kind": s.kind, "figure": s.label, "unit": s.unit, "where": s.where,
            "higher_is_better": s.higher_is_better, "scale": s.measure.scale, "spread": s.measure.spread or None,
            "points": [{"report": p.report, "date": p.date, "version": p.version or None, "commit": p.commit or None,
                        "value": _num(p.value), "low": _num(p.low), "high": _num(p.high)} for p in s.points],
            "changes": [{"index": c.index, "report": s.at(c).report, "date": s.at(c).date, "version": s.at(c).version or None,
                         "commit": s.at(c).commit or None, "status": c.status, "direction": s.direction(c),
                         "before": _num(c.before), "after": _num(c.after), "change": _num(c.change), "low": _num(c.low),
                         "high": _num(c.high), "pvalue": _num(c.pvalue), "points_before": c.points_before,
                         "points_after": c.points_after, "new": i in s.new, "failing": (k, i) in failing,
                         "text": headline(s, c)}
                        for i, c in enumerate(s.changes) if i in wanted.get(k, [])]})
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


FORMATS = {"text": as_text, "markdown": as_markdown, "json": as_json}


# -- the dashboard: the row of a series' newest report says where it changed -----------------------

def dashboard_changes(reports: list, shown: dict) -> dict[str, list[str]]:
    """Each report id -> its dashboard row's lines: for every series the History page draws (the same
    rows, `shown`, so the two pages agree) whose newest point is that report, its newest change
    ("output throughput (tok/s): changed at night07 (2025-05-07): -8.5% [-9.5, -7.5]"). Plain
    strings: the record-built home page keeps them, and the store keeps them by those rows."""
    from site_gen.analysis import series as ser

    files = {r.id: getattr(r, "file", "") for r in reports}
    ser.check(reports)
    rows = ((kind, row, files.get(row["report"], "")) for kind, (kept, _) in shown.items() for got in kept.values() for row in got)
    out: dict[str, list[str]] = {}
    for s in ser.from_rows(rows):
        if len(s.points) < cp.MIN_POINTS or not s.changes:
            continue
        c = s.changes[-1]
        where = f" at {s.where}" if s.where else ""
        out.setdefault(s.points[-1].report, []).append(one_line(f"{s.label}{where}: {headline(s, c)}"))
    return out


# -- the History page: each series drawn, its change points marked ------------------------------------

WIDTH, HEIGHT, LEFT, RIGHT, TOP, BOTTOM = 640, 200, 64, 12, 14, 30
MARGIN = 1 / 12   # of the values' span, above and below them


def _axis_number(v: float, span: float) -> str:
    d = max(0, min(4, 2 - int(math.floor(math.log10(span))))) if span > 0 else 2
    return f"{v:,.{d}f}"


def page_series(reports: list, shown: dict) -> list[dict[str, Any]]:
    """Display data of each series of at least MIN_POINTS points the page shows (`shown`: the rows of
    each kind it shows, history.shown), with its change points: the chart's geometry (points,
    whiskers of each point's own interval, each level as a line, a dashed line where a change begins)
    and its text equivalent (a table and a sentence per change)."""
    from site_gen.analysis import series as ser

    files = {r.id: getattr(r, "file", "") for r in reports}
    ser.check(reports)
    rows = ((kind, row, files.get(row["report"], "")) for kind, (kept, _) in shown.items() for got in kept.values() for row in got)
    out = []
    for s in ser.from_rows(rows):
        if len(s.points) < cp.MIN_POINTS:
            continue
        out.append(_drawn(s))
    return out


def block_series(reports: list, shown: dict, series: str | None, figure: str | None, report_url) -> list[dict[str, Any]]:
    """The series a `series` author block draws (render/blocks.py): those the History page draws
    (`page_series`), named by `series` (the name receipts give, or the series key) and `figure` (its
    label, "median TPOT"), each left out to take them all; `report_url(id)` links each point.
    Raises KeyError with what there is when nothing matches."""
    drawn = page_series(reports, shown)
    names = sorted({d["declared"] or d["key"] for d in drawn} | {d["key"] for d in drawn})
    chosen = [d for d in drawn if series is None or series in (d["declared"], d["key"])]
    if not chosen:
        raise KeyError(("series", series, names))
    figures = sorted({d["label"] for d in chosen})
    chosen = [d for d in chosen if figure is None or figure == d["label"]]
    if not chosen:
        raise KeyError(("figure", figure, figures))
    out = []
    for d in chosen:
        d = {**d, "points": [{**p, "url": report_url(p["report"])} for p in d["points"]]}
        out.append(d)
    return out


def _drawn(s: Series) -> dict[str, Any]:
    n = len(s.points)
    ys = [v for p in s.points for v in (p.value, p.low, p.high) if math.isfinite(v)]
    lo, hi = min(ys), max(ys)
    pad = (hi - lo) * MARGIN or abs(hi) * 0.05 or 1.0
    lo, hi = lo - pad, hi + pad

    def x(i: float) -> float:
        return round(LEFT + (WIDTH - LEFT - RIGHT) * (i + 0.5) / n, 1)

    def y(v: float) -> float:
        return round(TOP + (HEIGHT - TOP - BOTTOM) * (hi - v) / (hi - lo), 1)

    edges = [0, *[c.index for c in s.changes if c.status == cp.CONFIRMED], n]
    levels = []
    for a, b in zip(edges, edges[1:]):
        vals = [p.value for p in s.points[a:b]]
        level = (math.exp(sum(math.log(v) for v in vals) / len(vals)) if s.measure.scale == cp.RATIO
                 else sum(vals) / len(vals))
        levels.append({"x1": x(a - 0.4), "x2": x(b - 0.6), "y": y(level)})
    ticks = [{"y": y(v), "text": _axis_number(v, hi - lo)} for v in (lo + pad, (lo + hi) / 2, hi - pad)]
    changes = []
    for c in s.changes:
        changes.append({"x": round((x(c.index - 1) + x(c.index)) / 2, 1), "status": c.status, "direction": s.direction(c),
                        "text": headline(s, c), "before": level_text(s, c.before), "after": level_text(s, c.after),
                        "pvalue": f"{c.pvalue:.2g}", "points_after": c.points_after})
    every = max(1, math.ceil(n / 8))
    intervals = any(math.isfinite(p.low) for p in s.points)
    return {
        "title": f"{s.key} · {s.label}", "label": s.label, "unit": s.unit, "key": s.key, "declared": s.declared,
        "spread": s.measure.spread, "width": WIDTH, "height": HEIGHT, "left": LEFT, "bottom": HEIGHT - BOTTOM,
        "right": WIDTH - RIGHT, "ticks": ticks, "levels": levels, "changes": changes,
        "summary": "; ".join(str(ch["text"]) for ch in changes) or f"no change of level in {n} points",
        "intervals": intervals,
        "points": [{"x": x(i), "y": y(p.value), "low": y(p.low) if math.isfinite(p.low) else None,
                    "high": y(p.high) if math.isfinite(p.high) else None, "name": p.name, "date": p.date,
                    "report": p.report, "value": level_text(s, p.value),
                    "interval": (f"{level_text(s, p.low)} to {level_text(s, p.high)}" if math.isfinite(p.low) else "none"),
                    # Counted from the newest (always named), evenly: no two names side by side.
                    "label": p.name if (n - 1 - i) % every == 0 else ""} for i, p in enumerate(s.points)],
    }
