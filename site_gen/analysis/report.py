"""One report's analysis: every section's typed result, computed once and shared by all pages.

Each section's analysis (`<package>.analysis.analyse`) sees only the report's base (the receipt's
parts that are no section's, the settings) and its own part, and returns its result, kept in
`Analysis.results[name]`. So what it computed (a `Piece`) is a function of those inputs alone,
and a live builder reuses it after an edit of another part of the receipt (`section_keys`).
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from site_gen.analysis.parts import analysis_part
from site_gen.core.config import NOISE_BAND, RATIO_SCALE
from site_gen.receipts.load import Report
from site_gen.sections import all_sections


@dataclass
class Analysis:
    report: Report
    band: float
    scale: tuple[float, float]
    checkpoints: list[str]
    paired_checkpoints: list[str]
    headline_input: tuple[int, int] | None = None  # the config's input window of the aggregate headline range
    slo: tuple = ()  # the config's serving objectives: (metric, percentile, limit ms)
    # Each section's typed result by section name (a section whose analysis found nothing has none).
    results: dict[str, Any] = field(default_factory=dict)
    # Display data made from this analysis (render/views.py), kept by whoever draws it first: a
    # report's own pages and the author pages that show its blocks then share one computation.
    displayed: dict[str | tuple, Any] = field(default_factory=dict, repr=False, compare=False)
    # Each figure resolved from this analysis, by name and arguments (figures.resolve): a page drawn
    # again while its report is unchanged (a preview edit of its prose, an author page that shows
    # other reports' figures) looks them up instead of reading the frames again.
    figures: dict[tuple, Any] = field(default_factory=dict, repr=False, compare=False)

    def of(self, name: str) -> Any:
        """The result of the section `name`, or None."""
        return self.results.get(name)


@dataclass(frozen=True)
class Piece:
    """One section's analysis: the key of what it read, and its result."""
    key: str
    result: Any


def _part_hash(value: Any) -> str:
    # The JSON text names the value exactly: 1, 1.0 and true differ in it, as they may on a page.
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def section_keys(report: Report, band: float, scale: tuple[float, float], headline_input, slo: tuple = ()) -> dict[str, str]:
    """Each section's key: a hash of its part of the receipt, the parts that are no section's (the
    report part, provenance, ...) and the settings its analysis is given. Equal keys, equal pieces."""
    names = {s.name for s in all_sections() if s.name}
    rest = {k: v for k, v in report.data.items() if k not in names}
    base = _part_hash([report.id, str(report.file), band, list(scale), list(headline_input or ()), rest]
                      + ([[list(o) for o in slo]] if slo else []))
    return {name: _part_hash([base, report.data[name]]) for name in names if report.data.get(name) is not None}


def base(report: Report, band: float, scale: tuple[float, float], headline_input, slo: tuple = ()) -> Analysis:
    """The analysis before any section's: what every section's analysis is given."""
    checkpoints = report.checkpoints
    missing_baseline = {c["id"] for c in report.meta["checkpoints"] if "baseline" in c.get("missing", {})}
    return Analysis(report=report, band=band, scale=scale, checkpoints=checkpoints, headline_input=headline_input, slo=slo,
                    paired_checkpoints=[c for c in checkpoints if c not in missing_baseline])


def own(a: Analysis, name: str) -> Analysis:
    """`a` as the section `name`'s view and tables see it: the base and that section's own result."""
    mine = base(a.report, a.band, a.scale, a.headline_input, a.slo)
    if name in a.results:
        mine.results[name] = a.results[name]
    return mine


def analyse(report: Report, band: float = NOISE_BAND, scale: tuple[float, float] = RATIO_SCALE,
            headline_input: tuple[int, int] | None = None, pieces: dict[str, Piece] | None = None,
            slo: tuple = ()) -> Analysis:
    """The report's analysis. With `pieces` (a live builder's, from an earlier receipt of the report),
    a section whose key is unchanged takes its piece instead of analysing; `pieces` is then updated
    to this receipt's."""
    a = base(report, band, scale, headline_input, slo)
    keys = section_keys(report, band, scale, headline_input, slo) if pieces is not None else {}
    made: dict[str, Piece] = {}
    for s in all_sections():
        hooks = analysis_part(s)
        if hooks is None or s.name is None or (part := report.data.get(s.name)) is None:
            continue
        piece = pieces.get(s.name) if pieces is not None else None
        if piece is None or piece.key != keys.get(s.name):
            # Given a base of its own: it sees no other section's result.
            piece = Piece(keys.get(s.name, ""), hooks.analyse(base(report, band, scale, headline_input, slo), part))
        made[s.name] = piece
        if piece.result is not None:
            a.results[s.name] = piece.result
    if pieces is not None:
        pieces.clear()
        pieces.update(made)
    return a
