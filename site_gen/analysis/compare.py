"""Two reports of one setup at two releases, measure by measure (`sitegen compare OLD NEW`): which
figures of NEW are better than OLD's, which worse, which unchanged within noise.

Each section contributes its measures: its analysis module's `compare(old, new, band)` returns
`Change`s (one per comparable cell, gap or measure of both reports) and `Unmatched` ones; its
optional `setup(old, new)` returns what differs in how the two were measured (`Difference`).
This module names no section: it checks the report-wide setup (hardware, model, baseline), asks
every section, and counts.

One rule per kind of figure, the report's own (`verdict.py`): a figure of one run without rows
or repeats takes the band rule on new / old; a ratio with a 95% interval (rows: the unpaired
bootstrap over requests, the releases' requests being unpaired samples; repeats: t over runs)
takes the interval rule; a difference with its interval (precision gaps, accuracy) is better or
worse only when its interval excludes zero.
"""
from __future__ import annotations

import difflib
import math
from dataclasses import dataclass, field
from typing import Any

from site_gen.analysis import bootstrap as bs
from site_gen.analysis.parts import analysis_part
from site_gen.analysis.report import Analysis
from site_gen.analysis.verdict import FAIL_ON, UNRESOLVED, band_verdict, interval_verdict
from site_gen.core.errors import SitegenError
from site_gen.sections import all_sections

BETTER, WORSE, LEVEL, NOT_RESOLVED = "better", "worse", "level", UNRESOLVED
UNCHANGED = "unchanged"
__all__ = ["FAIL_ON"]  # analysis/verdict.py: the words `sitegen compare` and `sitegen history` share
# How each rule's interval was drawn, as the output names it.
ONE_RUN = "one run, no interval"
UNPAIRED = "unpaired interval of two estimates"
NO_INTERVAL = "no interval"
_WAY = {"faster": BETTER, "slower": WORSE, "level": LEVEL, UNRESOLVED: NOT_RESOLVED}


def way(speed_verdict: str) -> str:
    """A speed verdict (faster, level, slower, not resolved) of new against old, as better, level,
    worse or not resolved (faster is better, whichever way the figure goes)."""
    return _WAY[speed_verdict]


@dataclass(frozen=True)
class Difference:
    """What differs between the two reports' setups: `field` is the name `--allow` takes."""
    field: str
    old: str
    new: str
    where: str               # its JSON path in NEW's receipt
    refusable: bool = True   # False: said, never refused (an engine's name, its parallelism)


@dataclass
class Change:
    """One figure of both releases and what became of it."""
    section: str              # the section's part of the receipt (`speed`)
    kind: str                 # what is compared, as the section's view words it (`cell`, `ttft`, ...)
    where: dict[str, Any]     # the figure's coordinates (checkpoint, workload, load, ...), receipt values
    measure: str              # the measure's name in its section (`aggregate`, `ttft`, `kl_full`)
    unit: str
    higher_is_better: bool
    speed: bool               # a speed figure (`--fail-on slower` fails on these alone)
    old: float
    new: float
    change: float             # new / old (scale "ratio") or new - old (scale "difference")
    low: float                # the change's 95% interval; NaN: none
    high: float
    scale: str                # "ratio" or "difference"
    method: str               # how the interval was drawn (or that there is none)
    verdict: str              # better, worse, level or not resolved
    old_source: str = ""      # JSON paths in each receipt
    new_source: str = ""

    @property
    def outcome(self) -> str:
        """better, worse, or unchanged within noise (level or not resolved)."""
        return self.verdict if self.verdict in (BETTER, WORSE) else UNCHANGED


@dataclass(frozen=True)
class Unmatched:
    """A figure of one report with no comparable figure in the other."""
    section: str
    kind: str
    where: dict[str, Any]
    side: str                 # "old" or "new": the report that has it
    reason: str = ""
    measure: str = ""


@dataclass
class Comparison:
    old: Analysis
    new: Analysis
    band: float
    differences: list[Difference] = field(default_factory=list)  # every one (refused ones never get here)
    changes: list[Change] = field(default_factory=list)
    unmatched: list[Unmatched] = field(default_factory=list)
    uncompared: list[str] = field(default_factory=list)           # sections in both with no comparison

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys((WORSE, BETTER, LEVEL, NOT_RESOLVED), 0)
        for c in self.changes:
            out[c.verdict] += 1
        out["compared"] = len(self.changes)
        return out

    def failing(self, fail_on: str) -> list[Change]:
        """The changes that fail the comparison by `fail_on` (slower, worse, new-regression, any, never;
        in a comparison of two reports every regression is new: new-regression is worse)."""
        if fail_on not in FAIL_ON:
            raise ValueError(f"fail_on must be one of {FAIL_ON}, got {fail_on!r}")
        if fail_on == "never":
            return []
        if fail_on == "any":
            return [c for c in self.changes if c.outcome != UNCHANGED]
        return [c for c in self.changes if c.outcome == WORSE and (c.speed or fail_on != "slower")]


# -- the rules ----------------------------------------------------------------------------------

def band_change(old: float, new: float, band: float, higher_is_better: bool) -> tuple[float, str]:
    """new / old of one run each (no interval): the band rule."""
    if not (old > 0 and new >= 0 and math.isfinite(old) and math.isfinite(new)):
        return (math.nan, NOT_RESOLVED)
    ratio = new / old
    return ratio, way(band_verdict(ratio, band, higher_is_faster=higher_is_better))


def interval_change(ratio: float, low: float, high: float, band: float, higher_is_better: bool) -> str:
    """A ratio with its 95% interval: the interval rule."""
    return way(interval_verdict(ratio, low, high, band, higher_is_faster=higher_is_better))


def difference_change(old: tuple[float, float, float], new: tuple[float, float, float],
                      higher_is_better: bool) -> tuple[float, float, float, str]:
    """new - old of two estimates, each (value, low, high) with its own 95% interval: better or worse
    only when the difference's interval excludes zero (how a precision gap is resolved)."""
    d, low, high = bs.unpaired_difference(old[0], old[1], old[2], new[0], new[1], new[2])
    if low != low or high != high or (low <= 0 <= high):
        return d, low, high, NOT_RESOLVED
    return d, low, high, BETTER if (low > 0) == higher_is_better else WORSE


def key_of(*values: Any) -> tuple:
    """A match key of receipt values, a missing one (None, NaN) as None."""
    return tuple(None if v is None or (isinstance(v, float) and v != v) else v for v in values)


def match(old: dict[tuple, Any], new: dict[tuple, Any]) -> tuple[list[tuple], list[tuple], list[tuple]]:
    """(keys in both, keys only in old, keys only in new), each in its report's order."""
    return [k for k in new if k in old], [k for k in old if k not in new], [k for k in new if k not in old]


# -- the setup ----------------------------------------------------------------------------------

def _checkpoints(a: Analysis) -> dict[str, str]:
    return {c["id"]: c.get("label", c["id"]) for c in a.report.meta["checkpoints"]}


def setup_differences(old: Analysis, new: Analysis) -> list[Difference]:
    """What differs in how the two reports were measured: report-wide, then each section's."""
    o, n = old.report, new.report
    out: list[Difference] = []
    ho, hn = o.meta.get("hardware"), n.meta.get("hardware")
    if ho and hn and ho != hn:
        out.append(Difference("hardware", ho, hn, "$.report.hardware"))
    co, cn = _checkpoints(old), _checkpoints(new)
    shared = [c for c in cn if c in co]
    if not shared:
        out.append(Difference("model", "; ".join(co.values()), "; ".join(cn.values()), "$.report.checkpoints"))
    for c in shared:
        if co[c] != cn[c]:
            out.append(Difference("model", co[c], cn[c], f"$.report.checkpoints[{list(cn).index(c)}].label"))
    engines_o, engines_n = o.meta["engines"], n.meta["engines"]
    if "baseline" in engines_o and "baseline" in engines_n and o.baseline.label != n.baseline.label:
        out.append(Difference("baseline", o.baseline.label, n.baseline.label, "$.report.engines.baseline"))
    if o.candidate.name != n.candidate.name:
        # The name the pages give the candidate: an engine's name in a ledger's receipt, a side's label
        # (a folder's name by default) in an import; the engine a serving side ran is its section's.
        out.append(Difference("candidate label", o.candidate.name, n.candidate.name, "$.report.engines.candidate.name",
                              refusable=False))
    for s in all_sections():
        hooks = analysis_part(s)
        hook = hooks.setup if hooks is not None else None
        if hook is not None and s.name is not None and old.of(s.name) is not None and new.of(s.name) is not None:
            out.extend(hook(old, new))
    return out


# What `--allow` may name: the report-wide fields here, and each section's (`ALLOW` of its analysis).
ALLOW = ("hardware", "model", "baseline")


def allowable() -> tuple[str, ...]:
    names = list(ALLOW)
    for s in all_sections():
        hooks = analysis_part(s)
        names += [n for n in hooks.allow if n not in names] if hooks is not None else []
    return tuple(names)


def check_allow(allow) -> None:
    known = allowable()
    for name in allow:
        if name not in known:
            close = difflib.get_close_matches(name, known, n=1)
            raise SitegenError(f"--allow {name}: unknown field" + (f" (did you mean '{close[0]}'?)" if close else "")
                               + f"; fields: {', '.join(known)}")


def refuse(differences: list[Difference], allow: set[str], old: Analysis, new: Analysis) -> None:
    """The first difference that makes the reports incomparable, unless `allow` names it."""
    for d in differences:
        if d.refusable and d.field not in allow:
            raise SitegenError(f"not comparable with {old.report.id}: {d.field} differs: {d.old!r} in {old.report.id}, "
                               f"{d.new!r} in {new.report.id} (pass --allow {d.field} to compare anyway; the output "
                               "will say so)", new.report.file, d.where)


def refuse_itself(old: Any, new: Any) -> None:
    """Refuses a report compared with itself (`old`, `new`: the two receipts loaded, receipts/load.py
    `Report`s): one receipt file, or two holding the same bytes. Its figures would read "no change",
    and a job that picked one report as both sides would pass without comparing anything."""
    if old.file.resolve() == new.file.resolve():
        raise SitegenError(f"a report against itself: OLD and NEW are the same report ({new.id}); name an earlier "
                           "report as OLD", new.file)
    if old.sha256 == new.sha256:
        raise SitegenError(f"a report against itself: OLD ({old.file}) and NEW hold the same receipt bytes (SHA-256 "
                           f"{new.sha256[:12]}…); name an earlier report as OLD", new.file)


def compare(old: Analysis, new: Analysis, allow: set[str] | frozenset = frozenset()) -> Comparison:
    """Every comparable figure of NEW against OLD, with its verdict, by the band of NEW's analysis.
    Refuses (SitegenError at NEW's receipt) reports whose setups differ, unless `allow` names it."""
    check_allow(allow)
    differences = setup_differences(old, new)
    refuse(differences, set(allow), old, new)
    out = Comparison(old=old, new=new, band=new.band, differences=differences)
    for s in all_sections():
        if s.name is None:
            continue
        mine, theirs = old.of(s.name), new.of(s.name)
        hooks = analysis_part(s)
        hook = hooks.compare if hooks is not None else None
        if mine is None or theirs is None:
            side = "old" if mine is not None else "new" if theirs is not None else None
            if side is not None:
                out.unmatched.append(Unmatched(s.name, "section", {"section": s.title}, side))
            continue
        if hook is None:
            out.uncompared.append(s.title)
            continue
        changes, unmatched = hook(old, new, new.band)
        out.changes += changes
        out.unmatched += unmatched
    return out


# -- for the sections: figures of one run each, matched by key ------------------------------------

def _missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and v != v)


def by_band(section: str, kind: str, old: dict[tuple, dict], new: dict[tuple, dict], band: float, *, value: str,
            describe, higher_is_better: bool, speed: bool, source) -> tuple[list[Change], list[Unmatched]]:
    """Rows of both reports by key (`key_of`), each row's `value` new against old by the band rule.
    `describe(row)` gives (where, measure, unit) and `source(row)` the JSON path of its value; a row
    whose value one report leaves out is unmatched ("not measured")."""
    both, only_old, only_new = match(old, new)
    changes, unmatched = [], []
    for k in both:
        o, n = old[k], new[k]
        where, measure, unit = describe(n)
        if _missing(o[value]) or _missing(n[value]):
            unmatched.append(Unmatched(section, kind, where, "old" if _missing(n[value]) else "new", "not measured in both", measure))
            continue
        ratio, verdict = band_change(float(o[value]), float(n[value]), band, higher_is_better)
        changes.append(Change(section, kind, where, measure, unit, higher_is_better, speed, float(o[value]), float(n[value]),
                              ratio, math.nan, math.nan, "ratio", ONE_RUN, verdict, source(o), source(n)))
    for side, keys, rows in (("old", only_old, old), ("new", only_new, new)):
        unmatched += [Unmatched(section, kind, (d := describe(rows[k]))[0], side, "", d[1]) for k in keys]
    return changes, unmatched


# -- release after release (the history page's marks) -----------------------------------------------

def band_step(section: str, measure: str, unit: str, old: float, new: float, band: float, higher_is_better: bool,
              method: str = ONE_RUN) -> Change:
    """One series' figure from a release to the next, without an interval: the band rule."""
    ratio, verdict = band_change(old, new, band, higher_is_better)
    return Change(section, "history", {}, measure, unit, higher_is_better, False, old, new, ratio, math.nan, math.nan,
                  "ratio", method, verdict)


def difference_step(section: str, measure: str, unit: str, old: tuple[float, float, float], new: tuple[float, float, float],
                    higher_is_better: bool) -> Change:
    """One series' estimate with its interval from a release to the next: the difference rule."""
    d, low, high, verdict = difference_change(old, new, higher_is_better)
    return Change(section, "history", {}, measure, unit, higher_is_better, False, old[0], new[0], d, low, high,
                  "difference", UNPAIRED, verdict)
