"""`sitegen compare`'s words: one comparison (analysis/compare.py) as text for a terminal, markdown
for a pull-request comment, or JSON for scripts (`site_gen/schema/compare-output-1.schema.json`).

Each section words its own figures (its view's `compare_what(item)`: the figure's place and
measure; `compare_value(change, value, signed)`: a value in its unit); this module adds the
verdicts, the rule each verdict came from, and the counts, and names no section.
"""
from __future__ import annotations

import json
import math
import os
from typing import Any

from site_gen.analysis.compare import BETTER, LEVEL, NOT_RESOLVED, WORSE, Change, Comparison
from site_gen.render import format as fmt, parts
from site_gen.render.provenance import Fig
from site_gen.render.summary import markdown_text as _md, one_line
from site_gen.sections import all_sections

VERSION = 1
SCHEMA = f"compare-output-{VERSION}.schema.json"  # in site_gen/schema/, beside `sitegen summary`'s
GLYPHS = {BETTER: "▲", WORSE: "▼", LEVEL: "●", NOT_RESOLVED: "○"}
# The page's verdict colours, by meaning: better wears the faster colour, worse the slower one.
CLASSES = {BETTER: "faster", WORSE: "slower", LEVEL: "level", NOT_RESOLVED: "none"}
WORDS = {BETTER: "better", WORSE: "worse", LEVEL: "within noise", NOT_RESOLVED: "not resolved"}
ORDER = {WORSE: 0, BETTER: 1, LEVEL: 2, NOT_RESOLVED: 2}


def _section(name: str):
    return next((s for s in all_sections() if s.name == name), None)


def what(item) -> str:
    """A figure's place and measure, in its section's words (`Q4 · chat · 32K input · 16 streams · aggregate`)."""
    if item.kind == "section":
        return f"the {item.where['section']} section"
    s = _section(item.section)
    hook = parts.view_part(s).compare_what if s is not None else None
    if hook is not None:
        return one_line(hook(item))
    return one_line(" · ".join(str(v) for v in (*item.where.values(), item.measure) if v not in (None, "")))


def value(c: Change, v: float, signed: bool = False, more: int = 0) -> str:
    """A figure in its section's words (`compare_value`), with `more` decimals than its own where its
    neighbours need them (`pair`)."""
    s = _section(c.section)
    hook = parts.view_part(s).compare_value if s is not None else None
    if v != v:
        return fmt.MISSING
    if hook is None:
        return fmt.signed(v, 4 + more) if signed else fmt.fixed(v, 4 + more)
    return hook(c, v, signed, more=more) if more else hook(c, v, signed)


def pair(c: Change, band: float) -> tuple[str, str]:
    """The old and new figure as printed beside their change: with the decimals that change needs
    (format.pair_more: never equal beside a change, nor ordered against it)."""
    old, new = value(c, c.old), value(c, c.new)
    # As many decimals as the figures hold at most (counted on the receipt's values: a section may
    # print them scaled, a proportion in percent, which only leaves room to spare).
    most = fmt.useful_more((c.old, c.new), max(fmt.places(old), fmt.places(new)))
    more = fmt.pair_more(lambda k: (value(c, c.old, more=k), value(c, c.new, more=k)), change_text(c, band), c.scale, band, most)
    return value(c, c.old, more=more), value(c, c.new, more=more)


def unit(c: Change) -> str:
    s = _section(c.section)
    hook = parts.view_part(s).compare_unit if s is not None else None
    return one_line(hook(c) if hook is not None else c.unit)


def change_text(c: Change, band: float) -> str:
    """new / old with the digits its band verdict needs (`0.70x`, `1.081x`), or new − old in its unit."""
    if c.scale == "ratio":
        return fmt.speed_ratio(c.change, band) if c.change == c.change else fmt.MISSING
    # A difference better or worse beyond noise never prints as zero: as many decimals as show it.
    more = 0
    while c.verdict in (BETTER, WORSE) and more < fmt.MAX_MORE_DIGITS and fmt.read(value(c, c.change, True, more)) == 0:
        more += 1
    return value(c, c.change, signed=True, more=more)


def interval_text(c: Change, band: float) -> str:
    if c.low != c.low or c.high != c.high:
        return c.method
    if c.scale == "ratio":
        return f"{fmt.speed_ratio(c.low, band)}{fmt.DASH}{fmt.speed_ratio(c.high, band)} ({c.method})"
    return f"[{value(c, c.low, True)}, {value(c, c.high, True)}] ({c.method})"


def why(c: Change, band: float) -> str:
    """The verdict and the rule it came from, in a few words."""
    b = f"\u00b1{band * 100:g}%"
    way = "higher" if c.higher_is_better else "lower"
    has_interval = c.low == c.low and c.high == c.high
    if c.scale == "difference":
        reason = "no interval" if not has_interval else "interval holds 0" if c.verdict == NOT_RESOLVED else "interval excludes 0"
    elif not has_interval:
        reason = "no interval" if c.verdict == NOT_RESOLVED else f"inside the {b} band" if c.verdict == LEVEL else f"beyond the {b} band"
    elif c.verdict == LEVEL:
        reason = f"interval inside the {b} band"
    elif c.verdict == NOT_RESOLVED:
        reason = f"interval crosses the {b} band"
    else:
        reason = f"interval beyond the {b} band"
    return f"{WORDS[c.verdict]} ({reason}; {way} is better)"


def row(c: Change, band: float) -> dict[str, Any]:
    old, new = pair(c, band)
    return {"glyph": GLYPHS[c.verdict], "class": CLASSES[c.verdict], "what": what(c), "unit": unit(c),
            "old": old, "new": new, "change": change_text(c, band),
            "interval": interval_text(c, band), "why": why(c, band)}


def ordered(changes: list[Change]) -> list[Change]:
    """Worse first, then better, then within noise; in each, the sections' order and the receipt's."""
    return sorted(changes, key=lambda c: ORDER[c.verdict])


# -- the one-line verdict -------------------------------------------------------------------------

def _release(a) -> str:
    r = a.report
    return f"{r.candidate.label} ({r.id}, {r.date})"


def verdict_line(cmp: Comparison, fail_on: str) -> str:
    n = cmp.counts()
    within = n[LEVEL] + n[NOT_RESOLVED]
    failing = cmp.failing(fail_on)
    if n[WORSE]:
        head = f"Worse beyond noise: {n[WORSE]} of {n['compared']} figures; {n[BETTER]} better, {within} within noise"
    elif n[BETTER]:
        head = f"Better beyond noise: {n[BETTER]} of {n['compared']} figures; none worse, {within} within noise"
    else:
        head = f"No change beyond noise: {within} of {n['compared']} figures within noise"
    tail = f"fails (--fail-on {fail_on}: {len(failing)})" if failing else f"passes (--fail-on {fail_on})"
    return f"{head}; {tail}"


def context_line(cmp: Comparison) -> str:
    band = f"\u00b1{cmp.band * 100:g}%"
    return (f"{one_line(_release(cmp.new))} against {one_line(_release(cmp.old))}; noise band {band}, "
            "intervals 95%")


def differences_lines(cmp: Comparison) -> list[str]:
    return [one_line(f"{d.field}: {d.old} \u2192 {d.new}" + (" (allowed)" if d.refusable else ""))
            for d in cmp.differences]


def unmatched_lines(cmp: Comparison) -> list[str]:
    out = [one_line(f"only in {cmp.old.report.id if u.side == 'old' else cmp.new.report.id}: {what(u)}"
                    + (f" ({u.reason})" if u.reason else "")) for u in cmp.unmatched]
    out += [f"no comparison across releases: {title}" for title in cmp.uncompared]
    return out


# -- text -----------------------------------------------------------------------------------------

def _table(rows: list[dict[str, Any]]) -> list[str]:
    cells = [(f"{r['glyph']} {r['what']}", f"{r['old']} \u2192 {r['new']} {r['unit']}", r["change"], r["why"]) for r in rows]
    widths = [max((len(c[i]) for c in cells), default=0) for i in range(3)]
    return [f"  {a.ljust(widths[0])}  {b.ljust(widths[1])}  {c.rjust(widths[2])}  {d}" for a, b, c, d in cells]


def as_text(cmp: Comparison, fail_on: str) -> str:
    rows = [row(c, cmp.band) for c in ordered(cmp.changes)]
    out = [verdict_line(cmp, fail_on), context_line(cmp)]
    out += [f"What differs: {line}" for line in differences_lines(cmp)]
    for title, keep in (("Worse", (WORSE,)), ("Better", (BETTER,)), ("Within noise", (LEVEL, NOT_RESOLVED))):
        chosen = [r for r, c in zip(rows, ordered(cmp.changes)) if c.verdict in keep]
        if chosen:
            out += ["", f"{title} ({len(chosen)})", *_table(chosen)]
    notes = unmatched_lines(cmp)
    if notes:
        out += ["", f"Not compared ({len(notes)})", *(f"  {line}" for line in notes)]
    return "\n".join(out) + "\n"


# -- markdown ---------------------------------------------------------------------------------------

_RULE = "|---|---|---:|---:|---:|---|---|"


def _head(cmp: Comparison) -> str:
    return f"| | Figure | {_md(cmp.old.report.id)} | {_md(cmp.new.report.id)} | Change | 95% interval | Verdict |"


def _md_rows(rows: list[dict[str, Any]]) -> list[str]:
    return [f"| {r['glyph']} | {_md(r['what'])} ({_md(r['unit'])}) | {_md(r['old'])} | {_md(r['new'])} | {_md(r['change'])} | "
            f"{_md(r['interval'])} | {_md(r['why'])} |" for r in rows]


def as_markdown(cmp: Comparison, fail_on: str) -> str:
    """A pull-request comment: the verdict line first, the changes, the unchanged folded away."""
    changes = ordered(cmp.changes)
    rows = [row(c, cmp.band) for c in changes]
    moved = [r for r, c in zip(rows, changes) if c.verdict in (WORSE, BETTER)]
    still = [r for r, c in zip(rows, changes) if c.verdict not in (WORSE, BETTER)]
    out = [f"**{_md(verdict_line(cmp, fail_on), line_start=True)}**", "", _md(context_line(cmp), line_start=True), ""]
    out += [f"What differs: {_md(line)}  " for line in differences_lines(cmp)]
    if cmp.differences:
        out.append("")
    if moved:
        out += [_head(cmp), _RULE, *_md_rows(moved), ""]
    if still:
        out += [f"<details><summary>{len(still)} within noise</summary>", "", _head(cmp), _RULE, *_md_rows(still), "",
                "</details>", ""]
    notes = unmatched_lines(cmp)
    if notes:
        out += [f"<details><summary>{len(notes)} not compared</summary>", "", *(f"- {_md(n)}" for n in notes), "",
                "</details>", ""]
    return "\n".join(out)


# -- JSON -------------------------------------------------------------------------------------------

def _number(v: float) -> float | None:
    return float(v) if v is not None and v == v and math.isfinite(v) else None


def _plain(v: Any) -> Any:
    """A receipt value as JSON holds it: numbers as numbers, a missing one as null."""
    if isinstance(v, float):
        return _number(v)
    return v


def _path(file) -> str:
    """A receipt's path as a script would name it: relative to the working folder when inside it."""
    here = os.path.abspath(os.curdir)
    full = os.path.abspath(file)
    return os.path.relpath(full, here) if full.startswith(here + os.sep) else full


def _report(a) -> dict[str, Any]:
    r = a.report
    return {"report": r.id, "title": r.title, "date": r.date, "candidate": r.candidate.label,
            "baseline": r.baseline.label if "baseline" in r.meta["engines"] else None,
            "receipt": _path(r.file), "sha256": r.sha256}


def _change(c: Change, band: float) -> dict[str, Any]:
    return {"section": c.section, "kind": c.kind, "figure": what(c), "where": {k: _plain(v) for k, v in c.where.items()},
            "measure": c.measure, "unit": c.unit, "better": "higher" if c.higher_is_better else "lower", "speed": c.speed,
            "old": _number(c.old), "new": _number(c.new),
            "change": {"scale": c.scale, "value": _number(c.change), "low": _number(c.low), "high": _number(c.high),
                       "method": c.method},
            "verdict": c.verdict, "outcome": c.outcome, "why": why(c, band),
            "source": {"old": c.old_source, "new": c.new_source}}


def as_json(cmp: Comparison, fail_on: str) -> str:
    n = cmp.counts()
    doc = {"format": "sitegen compare", "version": VERSION, "schema": SCHEMA, "old": _report(cmp.old), "new": _report(cmp.new),
           "noise_band": cmp.band,
           "fail_on": fail_on, "failed": bool(cmp.failing(fail_on)), "verdict": verdict_line(cmp, fail_on),
           "counts": {"worse": n[WORSE], "better": n[BETTER], "level": n[LEVEL], "not_resolved": n[NOT_RESOLVED],
                      "compared": n["compared"]},
           "differs": [{"field": d.field, "old": d.old, "new": d.new, "where": d.where, "allowed": d.refusable}
                       for d in cmp.differences],
           "changes": [_change(c, cmp.band) for c in ordered(cmp.changes)],
           "not_compared": [{"section": u.section, "kind": u.kind, "figure": what(u), "only_in": u.side, "reason": u.reason}
                            for u in cmp.unmatched],
           "sections_not_compared": list(cmp.uncompared)}
    return json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


# -- the history page: what changed from one release to the next ------------------------------------

def history_mark(previous: str, changes: list[Change], band: float, phrase) -> dict[str, Any]:
    """A release's cell in a history table: each change since the release before it that is beyond
    noise, marked by its verdict's glyph and colour (`marks`) and said in words (`text`, the same
    verdicts); "within noise" when none is. `phrase(change)` words one change in its section's terms."""
    moved = [c for c in changes if c.verdict in (BETTER, WORSE)]
    how = "; ".join(f"{phrase(c)}: {why(c, band)}" for c in changes) or "nothing to compare"
    if not moved:
        known = any(c.change == c.change for c in changes)
        return {"text": Fig(f"within noise of {previous}" if known else f"no figure to compare with {previous}", how=how),
                "marks": []}
    said = "; ".join(f"{WORDS[c.verdict]} than {previous}: {phrase(c)}" if i == 0 else f"{WORDS[c.verdict]}: {phrase(c)}"
                     for i, c in enumerate(moved))
    return {"text": Fig(said, how=how), "marks": [{"glyph": GLYPHS[c.verdict], "cls": CLASSES[c.verdict]} for c in moved]}


FORMATS = {"text": as_text, "markdown": as_markdown, "json": as_json}
