"""Series: the reports of one setup over time, each figure's points in date order, and their
change points (`changes.py`).

A report joins a series by its history rows (`history.py`): reports whose rows share a series key
(the same engines, checkpoint, measure; for serving the same workload and load) are points of one
series. A receipt may name its series (`report.series`, schema 1.3): its rows' keys then start with
that name, and every report naming it must be of one setup (model, hardware, baseline, engine:
`setup` of history.py), or the series is refused. A receipt may name its commit (`report.commit`):
the point is named by it, and a series never holds one commit twice.

Each section says which columns of its history rows are series figures (`SERIES` of its
analysis: `Measure`s). This module names no section. It reads plain rows (a build's records keep
them), imports numpy where it detects and never pandas.
"""
from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from site_gen.analysis import changes as cp
from site_gen.analysis.parts import analysis_part
from site_gen.analysis.verdict import FAIL_ON
from site_gen.core.errors import SitegenError
from site_gen.sections import all_sections

WORSE, BETTER = "worse", "better"


@dataclass(frozen=True)
class Measure:
    """A figure of a history kind's rows that makes a series."""
    column: str                      # the row's value
    label: str                       # its name, a format string over the row ("{label} gap")
    unit: str                        # its unit, a format string over the row
    higher_is_better: bool
    scale: str = cp.RATIO            # RATIO: searched and changed as a ratio; DIFFERENCE: as a difference
    low: str | None = None           # the row's columns of the point's own interval or range
    high: str | None = None
    spread: str = ""                 # what that interval is ("95% interval over requests", "range of the cells")
    where: str = ""                  # the figure's place in the series, over the row ("{checkpoint}")
    better: str | None = None        # a row column saying "higher" or "lower" is better, where the row says it
    speed: bool = False              # a speed figure (throughput, latency, speed ratio, startup): `--fail-on slower`


@dataclass
class Point:
    report: str
    date: str
    version: str
    commit: str
    value: float
    low: float
    high: float
    file: str = ""

    @property
    def name(self) -> str:
        """How the point is named: its commit (short), else its version, else its date."""
        if self.commit:
            return self.commit[:12]
        return self.version if self.version and self.version != "unrecorded" else self.date


@dataclass
class Series:
    kind: str
    key: str                          # the rows' series key
    declared: str                     # the series name receipts give, or ""
    measure: Measure
    label: str                        # the figure's name
    unit: str
    where: str
    points: list[Point]
    higher_is_better: bool = True
    changes: list[cp.ChangePoint] = field(default_factory=list)
    new: set[int] = field(default_factory=set)   # indexes of changes that are new regressions

    @property
    def name(self) -> str:
        return f"{self.key} · {self.label}"

    def direction(self, c: cp.ChangePoint) -> str:
        up = c.change > 0
        return BETTER if up == self.higher_is_better else WORSE

    def at(self, c: cp.ChangePoint) -> Point:
        return self.points[c.index]


def measures() -> dict[str, tuple[Measure, ...]]:
    """Every history kind's series figures (`SERIES` of its section's analysis)."""
    out: dict[str, tuple[Measure, ...]] = {}
    for s in all_sections():
        hooks = analysis_part(s)
        out.update(hooks.series if hooks is not None else {})
    return out


def _finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _number(x: Any) -> float:
    return float(x) if _finite(x) else math.nan


def _version_key(v: str) -> tuple[int, ...] | None:
    m = re.fullmatch(r"v?(\d+(?:\.\d+)*)", v.strip())
    return tuple(int(x) for x in m.group(1).split(".")) if m else None


def check(reports: Iterable, new: str | None = None) -> None:
    """Refuses what cannot be one series: a commit named twice in a series, reports naming one series
    that are of different setups, versions whose dates run the other way. `reports`: records with
    `id`, `file` and `history` (their rows carry `series_name`, `commit`, `setup`, `version`, `date`).
    `new`: the report being added (an import), the one a refusal names against the others."""
    declared: dict[str, list[dict]] = {}
    for r in reports:
        row = _first_row(r)
        if row is not None and row.get("series_name"):
            declared.setdefault(row["series_name"], []).append({**row, "file": getattr(r, "file", "")})
    for name, rows in declared.items():
        rows.sort(key=lambda x: (x["date"], x["report"]))
        ordered = sorted(rows, key=lambda x: x["report"] == new)  # the report being added last (stable)
        first = ordered[0]
        for r in ordered[1:]:
            if r.get("setup") != first.get("setup"):
                # The pair in one order: the refused report's value first, as the sentence names it first.
                what = _setup_difference(r.get("setup", ""), first.get("setup", ""))
                raise SitegenError(f"series {name!r}: report {r['report']} is of another setup than {first['report']} "
                                   f"({what}); name another series, or import it with the same setup", r["file"],
                                   "$.report.series")
        _commits(name, ordered)
        _dates(name, rows)


def _first_row(record) -> dict | None:
    for rows in (getattr(record, "history", None) or {}).values():
        if rows:
            return rows[0]
    return None


def _setup_difference(a: str, b: str) -> str:
    fa = dict(part.split("=", 1) for part in a.split("; ") if "=" in part)
    fb = dict(part.split("=", 1) for part in b.split("; ") if "=" in part)
    diffs = [f"{k}: {fa.get(k, 'none')} against {fb.get(k, 'none')}" for k in sorted(set(fa) | set(fb)) if fa.get(k) != fb.get(k)]
    return "; ".join(diffs) or "its setup"


def _commits(name: str, rows: list[dict]) -> None:
    seen: dict[str, dict] = {}
    for r in rows:
        c = r.get("commit") or ""
        if c and c in seen:
            raise SitegenError(f"series {name!r}: reports {seen[c]['report']} and {r['report']} both name commit {c}; "
                               "a commit is one point of a series (re-import one of them with its own --commit, or remove "
                               "the duplicate)", r["file"], "$.report.commit")
        seen[c] = r


def _dates(name: str, rows: list[dict]) -> None:
    """Versions that are all numbers (0.9.1, v4.0.0) must not run backwards in date order."""
    keys = [_version_key(r.get("version", "")) for r in rows]
    if any(k is None for k in keys):
        return
    for (a, ka), (b, kb) in zip(zip(rows, keys), list(zip(rows, keys))[1:]):
        if kb < ka:  # type: ignore[operator]
            raise SitegenError(f"series {name!r}: dates out of order: version {b['version']} ({b['report']}) is dated "
                               f"{b['date']}, version {a['version']} ({a['report']}) {a['date']}; a series is ordered by "
                               "date, so a later version must not be dated earlier (correct $.report.date)",
                               b["file"], "$.report.date")


def assemble(reports: list, *, detect: bool = True) -> list[Series]:
    """Every series figure with at least two points, each in date order, with its change points."""
    check(reports)
    return from_rows(((kind, row, getattr(r, "file", "")) for r in reports
                      for kind, rows in (getattr(r, "history", None) or {}).items() for row in rows), detect=detect)


def from_rows(rows: Iterable[tuple[str, dict, str]], *, detect: bool = True) -> list[Series]:
    """The series of (kind, history row, receipt file) triples (the History page gives the rows it shows)."""
    kinds = measures()
    by_key: dict[tuple[str, str], list[tuple[dict, str]]] = {}
    for kind, row, file in rows:
        if kind in kinds:
            by_key.setdefault((kind, row["series"]), []).append((row, file))
    out: list[Series] = []
    for (kind, key), got in by_key.items():
        if len(got) < 2:
            continue
        got.sort(key=lambda x: (x[0]["date"], x[0]["report"]))
        for m in kinds[kind]:
            points = [Point(row["report"], row["date"], row.get("version", ""), row.get("commit", ""), _number(row.get(m.column)),
                            _number(row.get(m.low)) if m.low else math.nan, _number(row.get(m.high)) if m.high else math.nan,
                            file)
                      for row, file in got]
            points = [p for p in points if _finite(p.value) and (p.value > 0 or m.scale != cp.RATIO)]
            if len(points) < 2:
                continue
            row = got[-1][0]
            s = Series(kind, key, row.get("series_name", ""), m, _format(m.label, row), _format(m.unit, row),
                       _format(m.where, row), points,
                       higher_is_better=(row.get(m.better) != "lower") if m.better else m.higher_is_better)
            if detect:
                find(s)
            out.append(s)
    out.sort(key=lambda s: (s.declared or s.key, s.kind, s.label))
    return out


def _format(text: str, row: dict) -> str:
    try:
        return text.format(**row)
    except (KeyError, IndexError, ValueError):
        return text


def find(s: Series) -> None:
    """The series' change points, and which confirmed regressions are new: confirmed with its newest
    point, not yet with the point before (the night a nightly job should fail)."""
    values = [p.value for p in s.points]
    if len(values) < cp.MIN_POINTS:
        return
    s.changes = cp.detect(values, s.measure.scale)
    before = cp.detect(values[:-1], s.measure.scale) if len(values) - 1 >= cp.MIN_POINTS else []
    for i, c in enumerate(s.changes):
        if c.status != cp.CONFIRMED or s.direction(c) != WORSE:
            continue
        if not any(b.status == cp.CONFIRMED and abs(b.index - c.index) <= 1 and (b.change > 0) == (c.change > 0) for b in before):
            s.new.add(i)


# -- what `sitegen history --changes` reports ---------------------------------------------------------

__all__ = ["FAIL_ON"]  # analysis/verdict.py: the words `sitegen compare` and `sitegen history` share


def since_filter(s: Series, since: str | None) -> list[int]:
    """The indexes of a series' changes that begin on or after `since` (every one without it)."""
    return [i for i, c in enumerate(s.changes) if since is None or s.at(c).date >= since]


def failing(all_series: list[Series], fail_on: str, since: str | None) -> list[tuple[Series, int]]:
    """The changes that make `sitegen history --changes` exit 1 (the words of `sitegen compare`,
    analysis/verdict.py `FAIL_ON`). new-regression: a confirmed regression the newest point confirms
    (or, with --since, any confirmed regression beginning since then); worse: any confirmed regression
    beginning since then (all, without --since); slower: the same, of a speed figure (throughput,
    latency, speed ratio, startup); any: any confirmed change beginning since then; never: none."""
    if fail_on not in FAIL_ON:
        raise ValueError(f"fail_on must be one of {FAIL_ON}, got {fail_on!r}")
    out = []
    for s in all_series:
        for i in since_filter(s, since):
            c = s.changes[i]
            if fail_on == "never" or c.status != cp.CONFIRMED:
                continue
            if fail_on == "any":
                out.append((s, i))
            elif s.direction(c) == WORSE and (fail_on != "slower" or s.measure.speed) \
                    and (fail_on != "new-regression" or since is not None or i in s.new):
                out.append((s, i))
    return out
