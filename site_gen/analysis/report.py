"""One report's analysis: every section's DataFrames, computed once and shared by all pages.

Each section's analysis sees only the report's base (the receipt's parts that are no section's, the
settings) and its own part: it runs on an `Analysis` of its own whose fields it fills, and these are
then gathered into the report's. So what it computed (a `Piece`) is a function of those inputs
alone, and a live builder reuses it after an edit of another part of the receipt (`section_keys`).
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import pickle
from dataclasses import dataclass, field, fields
from typing import Any

import pandas as pd

from site_gen.core.config import NOISE_BAND, RATIO_SCALE
from site_gen.receipts.load import Report


@dataclass
class Analysis:
    report: Report
    band: float
    scale: tuple[float, float]
    checkpoints: list[str]
    paired_checkpoints: list[str]
    headline_input: tuple[int, int] | None = None  # the config's input window of the aggregate headline range
    # Each section's analysis fills its own fields (site_gen/sections/<name>.py `analyse`).
    # precision
    precision: pd.DataFrame | None = None
    precision_summary: dict[str, Any] = field(default_factory=dict)
    precision_gaps: pd.DataFrame | None = None
    precision_largest_gap: dict | None = None
    precision_direction: str = "mixed"
    # speed
    speed: pd.DataFrame | None = None
    speed_counts: pd.DataFrame | None = None
    speed_ranges: pd.DataFrame | None = None
    speed_gains: pd.DataFrame | None = None
    speed_totals: dict[str, Any] = field(default_factory=dict)
    ttft: pd.DataFrame | None = None
    # memory and startup
    kv: pd.DataFrame | None = None
    kv_range: tuple[float, float, int] | None = None
    startup: pd.DataFrame | None = None
    kv_references: pd.DataFrame | None = None
    # long outputs
    long_table: pd.DataFrame | None = None
    long_arms: list[str] = field(default_factory=list)
    long_caps: list[int] = field(default_factory=list)
    long_thinking: pd.DataFrame | None = None
    long_categories: dict[str, int] = field(default_factory=dict)
    long_looped: dict[str, int] = field(default_factory=dict)
    # versions
    versions_precision: pd.DataFrame | None = None
    versions_text: pd.DataFrame | None = None
    # tool calling
    tool_points: pd.DataFrame | None = None
    tool_totals: pd.DataFrame | None = None
    tool_ranges: pd.DataFrame | None = None
    tool_latency: pd.DataFrame | None = None
    tool_failed: list[str] = field(default_factory=list)
    tool_scenarios: pd.DataFrame | None = None
    tool_scale: dict = field(default_factory=dict)
    # What the analysis of a section that has no field above computed (a section added by a plugin).
    results: dict[str, Any] = field(default_factory=dict)
    # Display data made from this analysis (render/views.py), kept by whoever draws it first: a
    # report's own pages and the author pages that show its blocks then share one computation.
    displayed: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    # The fields each section's analysis filled (results: its entries), by section name: what
    # `own` hands to that section's view and tables.
    owned: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = field(default_factory=dict, repr=False, compare=False)


def deferred(a: Analysis) -> Analysis:
    """A copy of `a` whose section fields (its frames: most of an analysis' unpickling) travel as one
    pickled blob, read back the first time any of them is used. A forked build's main process is sent
    every report's analysis and reads most of them only for the report itself (the site's
    navigation, links, 404 page): unpickled at once, a thousand cost it ~10 s, one after another."""
    if isinstance(a, _Deferred):
        return a
    out = _Deferred.__new__(_Deferred)
    out.__dict__.update((name, a.__dict__[name]) for name in _BASE)
    out.__dict__["_deferred"] = pickle.dumps({name: a.__dict__[name] for name in _SET_ASIDE}, protocol=pickle.HIGHEST_PROTOCOL)
    return out


def set_aside(a: Analysis) -> bool:
    """Whether `a`'s section fields are still in their blob (`deferred`), unread."""
    return "_deferred" in a.__dict__


def with_report(a: Analysis, report: Report, **changed: Any) -> Analysis:
    """`dataclasses.replace(a, report=report, **changed)` for base fields, which leaves a deferred
    analysis' sections in their blob (replace would read every field, and so the blob)."""
    if not isinstance(a, _Deferred):
        return dataclasses.replace(a, report=report, **changed)
    out = _Deferred.__new__(_Deferred)
    out.__dict__.update(a.__dict__, report=report, **changed)
    if "_values" in out.__dict__:
        out.__dict__["_values"] = dict(out.__dict__["_values"])  # its fields, not the other's
    return out


class _Deferred(Analysis):
    """An Analysis whose section fields are read from their blob on first use (`deferred`)."""

    def _loaded(self) -> dict[str, Any]:
        values = self.__dict__.get("_values")
        if values is None:
            blob = self.__dict__.pop("_deferred", None)
            values = self.__dict__["_values"] = pickle.loads(blob) if blob is not None else {}
        return values


def _set_aside(name: str) -> property:
    # A property, not __getattr__: a field's default is a class attribute, found before __getattr__ runs.
    return property(lambda self: self._loaded()[name], lambda self, value: self._loaded().__setitem__(name, value))


# What every section's analysis is given rather than computes.
_BASE = ("report", "band", "scale", "checkpoints", "paired_checkpoints", "headline_input", "displayed", "owned")


@dataclass(frozen=True)
class Piece:
    """One section's analysis: the key of what it read, and the fields (and results entries) it filled."""
    key: str
    values: dict[str, Any]
    results: dict[str, Any]


def _part_hash(value: Any) -> str:
    # The JSON text names the value exactly: 1, 1.0 and true differ in it, as they may on a page.
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def section_keys(report: Report, band: float, scale: tuple[float, float], headline_input) -> dict[str, str]:
    """Each section's key: a hash of its part of the receipt, the parts that are no section's (the
    report part, provenance, ...) and the settings its analysis is given. Equal keys, equal pieces."""
    from site_gen.sections import all_sections

    names = {s.name for s in all_sections() if s.name}
    rest = {k: v for k, v in report.data.items() if k not in names}
    base = _part_hash([report.id, str(report.file), band, list(scale), list(headline_input or ()), rest])
    return {name: _part_hash([base, report.data[name]]) for name in names if report.data.get(name) is not None}


def _base(report: Report, band: float, scale: tuple[float, float], headline_input) -> Analysis:
    checkpoints = report.checkpoints
    missing_baseline = {c["id"] for c in report.meta["checkpoints"] if "baseline" in c.get("missing", {})}
    return Analysis(report=report, band=band, scale=scale, checkpoints=checkpoints, headline_input=headline_input,
                    paired_checkpoints=[c for c in checkpoints if c not in missing_baseline])


def _analysed(section, base: Analysis, part: dict, key: str) -> Piece:
    """The section's analysis run on an `Analysis` of its own: it sees no other section's fields."""
    mine = _base(base.report, base.band, base.scale, base.headline_input)
    before = dict(vars(mine))
    section.analyse(mine, part)
    values = {}
    for name, value in vars(mine).items():
        # A field replaced, or a container filled in place.
        if name not in _BASE and name != "results" and (value is not before[name] or (isinstance(value, (list, dict)) and value)):
            values[name] = value
    return Piece(key, values, dict(mine.results))


def own(a: Analysis, name: str) -> Analysis:
    """`a` as the section `name`'s view and tables see it: the base and that section's own fields."""
    mine = _base(a.report, a.band, a.scale, a.headline_input)
    names, results = a.owned.get(name, ((), ()))
    for f in names:
        setattr(mine, f, getattr(a, f))
    mine.results.update((k, a.results[k]) for k in results)
    return mine


def analyse(report: Report, band: float = NOISE_BAND, scale: tuple[float, float] = RATIO_SCALE,
            headline_input: tuple[int, int] | None = None, pieces: dict[str, Piece] | None = None) -> Analysis:
    """The report's analysis. With `pieces` (a live builder's, from an earlier receipt of the report),
    a section whose key is unchanged takes its piece instead of analysing; `pieces` is then updated
    to this receipt's."""
    from site_gen.sections import all_sections  # here, not above: the sections' views import this module

    a = _base(report, band, scale, headline_input)
    keys = section_keys(report, band, scale, headline_input) if pieces is not None else {}
    made: dict[str, Piece] = {}
    for s in all_sections():
        if s.analyse and (part := report.data.get(s.name)) is not None:
            piece = pieces.get(s.name) if pieces is not None else None
            if piece is None or piece.key != keys.get(s.name):
                piece = _analysed(s, a, part, keys.get(s.name, ""))
            made[s.name] = piece
            for f, value in piece.values.items():
                setattr(a, f, value)
            a.results.update(piece.results)
            a.owned[s.name] = (tuple(piece.values), tuple(piece.results))
    if pieces is not None:
        pieces.clear()
        pieces.update(made)
    return a


_SET_ASIDE = tuple(f.name for f in fields(Analysis) if f.name not in _BASE)
for _name in _SET_ASIDE:
    setattr(_Deferred, _name, _set_aside(_name))
