"""Named figures that prose can cite (`{{ kv_ratio_range }}`) and checked statements can test.

Each figure is computed from one report's analysis and carries how it was computed, so a page
can say where the number in a sentence came from. Each section brings its own (`FIGURES` in its
analysis module); the figures of the report as a whole are here.
"""
from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass
from typing import Any
from collections.abc import Callable

from site_gen.analysis.report import Analysis
from site_gen.receipts.load import engine_label, version_text
from site_gen.sections import previous_version


@dataclass(frozen=True)
class Figure:
    value: Any
    kind: str  # how to print it: count, ratio, ratio_range, speed_ratio_range, seconds, phrase, bool
    explain: str
    band: float | None = None  # a speed ratio's noise band: its printed digits follow its verdict


class FigureError(ValueError):
    """A figure that does not exist, or lacks data or arguments."""


def need(frame, what: str):
    if frame is None or len(frame) == 0:
        raise FigureError(f"the report has no {what}")
    return frame


def need_rows(frame, what: str, missing: str, **match):
    """The rows of the report's `what` whose columns equal `match`; FigureError `missing` if none."""
    rows = need(frame, what)
    keep = _text_match(rows, match)
    if keep is not None:  # one selection of the rows, by a mask made on the columns' arrays
        rows = rows[keep]
    else:
        for column, value in match.items():
            rows = rows[rows[column] == value]
    if rows.empty:
        raise FigureError(missing)
    return rows


def _text_match(frame, match: dict[str, Any]) -> Any:
    """The rows whose text columns equal `match`'s texts, as a boolean array: what the Series'
    comparisons give (a missing value equals nothing), compared on each column's objects (a figure
    selects from a frame of a few rows: pandas' comparison and selection, twice, cost ~0.4 ms).
    None where a column is not text (or a value not a string): pandas compares those."""
    import numpy as np  # with the frame's pandas: this module is imported without them

    keep = np.ones(len(frame), dtype=bool)
    for column, value in match.items():
        if type(value) is not str or column not in frame.columns:
            return None
        values = frame[column].to_numpy()
        if values.dtype != object or not all(type(v) is str or v != v for v in values):
            return None
        keep &= np.array([v == value for v in values], dtype=bool)
    return keep


def engine(a: Analysis, role: str = "candidate", show: str = "label") -> Figure:
    r = a.report
    if role == "previous":
        found = previous_version(r.data)
        if found is None:
            raise FigureError("the report has no previous version to compare with")
        e = {"name": found[1]["name"], "version": found[1]["version"], "long_name": ""}
    elif role in ("candidate", "baseline"):
        eng = r.candidate if role == "candidate" else r.baseline
        e = {"name": eng.name, "version": eng.version, "long_name": eng.long_name}
    else:
        raise FigureError(f"role must be one of candidate, baseline, previous; got {role!r}")
    shown = {"label": engine_label(e["name"], e["version"]), "name": e["name"], "version": version_text(e["version"]),
             "long_name": e["long_name"] or e["name"]}
    if show not in shown:
        raise FigureError(f"show must be one of {', '.join(shown)}; got {show!r}")
    return Figure(shown[show], "phrase", f"the {role} engine as the receipt names it")


def hardware(a: Analysis) -> Figure:
    text = a.report.meta.get("hardware", "")
    if not text:
        raise FigureError("the report does not state its hardware")
    return Figure(text, "phrase", "report.hardware in the receipt")


def checkpoint_count(a: Analysis, paired: str = "false") -> Figure:
    if paired not in ("true", "false"):
        raise FigureError(f"paired must be true or false; got {paired!r}")
    cps = a.paired_checkpoints if paired == "true" else a.checkpoints
    return Figure(len(cps), "count", ("paired checkpoints: " if paired == "true" else "checkpoints: ") + ", ".join(cps))


_REPORT_FIGURES: dict[str, tuple[Callable[..., Figure], str]] = {
    "engine": (engine, "an engine's name and version (role=candidate|baseline|previous, show=label|name|version|long_name)"),
    "hardware": (hardware, "the hardware the report ran on, as the receipt states it"),
    "checkpoint_count": (checkpoint_count, "number of checkpoints (paired=true: only those both engines ran)"),
}


# Every figure by name, filled from the sections on first use (and again when the registry of
# sections changes): each section's figures in registry order, then the report's own.
REGISTRY: dict[str, tuple[Callable[..., Figure], str]] = {}
_filled_for: list[int] = []


def registry() -> dict[str, tuple[Callable[..., Figure], str]]:
    from site_gen.analysis.parts import analysis_part
    from site_gen.sections import all_sections, generation

    if _filled_for != [generation()]:
        found: dict[str, tuple[Callable[..., Figure], str]] = {}
        for s in all_sections():
            hooks = analysis_part(s)
            found.update(hooks.figures if hooks is not None else {})
        found.update(_REPORT_FIGURES)
        REGISTRY.clear()
        REGISTRY.update(found)
        _filled_for[:] = [generation()]
    return REGISTRY


def arguments(name: str) -> dict[str, bool]:
    """A figure's arguments (after the analysis), each with whether it is required."""
    return dict(_arguments_of(registry()[name][0]))


@functools.lru_cache(maxsize=1024)
def _arguments_of(function: Callable[..., Figure]) -> tuple[tuple[str, bool], ...]:
    # inspect.signature is ~20 us a call, and a report's prose cites a dozen figures
    params = list(inspect.signature(function).parameters.values())[1:]
    return tuple((p.name, p.default is inspect.Parameter.empty) for p in params)


def resolve(a: Analysis, name: str, args: dict[str, str]) -> Figure:
    """The figure `name` of a report, from arguments as a page writes them (every value text).

    The arguments are checked here, so that an error inside a figure is a bug, not bad input.
    A figure is a function of the analysis and its arguments only: each is made once per analysis
    (`Analysis.figures`; a figure that failed is not kept, so it fails again)."""
    known_figures = registry()
    kept = getattr(a, "figures", None)  # (a stand-in for an analysis may have none)
    memo = (_filled_for[0], name, tuple(sorted(args.items()))) if kept is not None and all(
        type(v) is str for v in args.values()) else None
    found = kept.get(memo) if kept is not None and memo is not None else None
    if found is not None:
        return found
    if name not in known_figures:
        raise FigureError(f"unknown figure '{name}'; known: {', '.join(sorted(known_figures))}")
    known = arguments(name)
    listed = ", ".join(known) or "none"
    for key, value in args.items():
        if key not in known:
            raise FigureError(f"figure '{name}' has no argument '{key}'; arguments: {listed}")
        if not isinstance(value, str):
            raise TypeError(f"figure argument {key} must be text, got {type(value).__name__}")
    missing = [key for key, required in known.items() if required and key not in args]
    if missing:
        raise FigureError(f"figure '{name}' needs {missing[0]}=…; arguments: {listed}")
    figure = known_figures[name][0](a, **args)
    if kept is not None and memo is not None:
        kept[memo] = figure
    return figure
