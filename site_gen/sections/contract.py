"""The typed contract between a section and central code: what its analysis and view modules offer.

A section's analysis module declares `PART = AnalysisPart(analyse=..., figures=..., ...)` and its
view module `PART = ViewPart(view=..., headlines=..., ...)`. Central code reads the hooks as typed
attributes of these parts (`site_gen/analysis/parts.py`, `site_gen/render/parts.py`), never by a
name in a string; a hook left out is None (or empty) and simply adds nothing.

A part refuses what it does not know: a misspelled hook (`ViewPart(headline=...)`) is a TypeError
naming the hooks there are, raised when the module is imported, so when the section is registered
(`site_gen.sections.register`) or first used. A module that defines a function or table of a
hook's name without declaring it in its part is refused too (`declared`): a hook added beside the
part and forgotten in it would otherwise do nothing, silently.

Light, as the registry is: no pandas, no Jinja; the types the hooks take are named for the type
checker only.
"""
from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeVar

from site_gen.sections.base import BlockSpec

if TYPE_CHECKING:
    import pandas as pd

    from site_gen.analysis.report import Analysis

    # A hook's analysis: the report's (or, for a named section, its own part of it: render/parts.py `own_part`).
    AnalysisT = Analysis
else:
    AnalysisT = Any


def _refusing_unknown(cls: type) -> type:
    """`cls.__init__`, taking keywords only and refusing one that names no hook, with the hooks there are."""
    init: Callable[..., None] = cls.__init__  # type: ignore[misc]  # the dataclass's own
    known = tuple(f.name for f in fields(cls))

    @functools.wraps(init)
    def __init__(self: Any, **hooks: Any) -> None:
        for name in hooks:
            if name not in known:
                import difflib

                close = difflib.get_close_matches(name, known, n=1)
                raise TypeError(f"{cls.__name__}: unknown hook '{name}'"
                                + (f" (did you mean '{close[0]}'?)" if close else "")
                                + f"; the hooks of a section's {cls.__name__} are: {', '.join(known)}")
        init(self, **hooks)

    setattr(cls, "__init__", __init__)  # noqa: B010 (a method assigned: the type checker keeps the dataclass's)
    return cls


@_refusing_unknown
@dataclass(frozen=True)
class AnalysisPart:
    """A section's analysis (`<package>.analysis`, `PART`)."""
    # analyse(base, part) -> its typed result (kept in `Analysis.results[name]`), or None.
    analyse: Callable[[AnalysisT, dict], Any]
    # The inline figures an author may cite: name -> (figure(a, ...), how it is computed).
    figures: Mapping[str, tuple[Callable[..., Any], str]] = field(default_factory=dict)
    # Its rows on the History page: kind -> (rows(a, engines), columns).
    history: Mapping[str, tuple[Callable[[AnalysisT, dict[str, str]], list[dict]], list[str]]] = field(default_factory=dict)
    # A kind's rule from one release to the next: kind -> step(old_row, new_row, band) -> [Change].
    history_steps: Mapping[str, Callable[[dict, dict, float], list]] = field(default_factory=dict)
    # Its series figures (analysis/series.py): kind -> (Measure, ...).
    series: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    # `sitegen compare`: compare(old, new, band) -> (changes, unmatched).
    compare: Callable[[AnalysisT, AnalysisT, float], tuple[list, list]] | None = None
    # setup(old, new) -> [Difference]: what makes two reports of this section incomparable.
    setup: Callable[[AnalysisT, AnalysisT], list] | None = None
    allow: tuple[str, ...] = ()  # the differences of `setup` that `--allow` may name
    # lighten(result) -> the result without what only the analysis reads (building/workers.py).
    lighten: Callable[[Any], Any] | None = None


@_refusing_unknown
@dataclass(frozen=True)
class ViewPart:
    """A section's view (`<package>.view`, `PART`): its page's data and its lines in every other output."""
    view: Callable[[AnalysisT], Any] | None = None  # its page's display data (what its template takes)
    csv: Callable[[AnalysisT], dict[str, pd.DataFrame]] | None = None  # its tables
    blocks: Mapping[str, BlockSpec] = field(default_factory=dict)  # its author blocks
    macros: tuple[str, ...] = ()  # the macros of `templates/_<key>.html` its blocks use
    summary: Callable[[AnalysisT, dict | None], dict[str, Any] | None] | None = None  # `sitegen summary` JSON
    summary_rows: Callable[[dict[str, Any]], list[tuple[str, str]]] | None = None  # its text and markdown lines
    verdict: Callable[[AnalysisT], str | None] | None = None  # its clause of the opening sentence
    headlines: Callable[[AnalysisT], list[tuple[str, str, str]]] | None = None  # share card, meta description
    dashboard: Callable[[AnalysisT], dict[str, Any]] | None = None  # its dashboard cells
    card_strip: Callable[[AnalysisT], tuple[tuple, str] | None] | None = None  # the share card's strip
    history_parts: Mapping[str, tuple[int, Callable[..., list[dict[str, Any]]]]] = field(default_factory=dict)
    # Its words on the History page (markup, not data): what else its series' points share to be
    # one series, and where its tables mark a change since the build before.
    history_series: str = ""
    history_marks: str = ""
    page_title: Callable[[AnalysisT], str] | None = None  # its page's title, from the report
    page_context: Callable[[AnalysisT, dict], None] | None = None  # adds to its page's context
    markup: Callable[[dict, Callable[..., Any]], None] | None = None  # renders receipt markdown in its view
    sides: Callable[[AnalysisT], dict[str, str] | None] | None = None  # how it names the report's sides
    compare_what: Callable[[Any], str] | None = None  # its words in `sitegen compare`
    compare_value: Callable[..., str] | None = None
    compare_unit: Callable[[Any], str] | None = None


Part = TypeVar("Part", AnalysisPart, ViewPart)

# The module-level names a hook went by before the parts (and goes by in a section's own code):
# a module that holds one of them, not declared in its part, is refused (`declared`).
MODULE_NAMES = {"figures": "FIGURES", "history": "HISTORY", "history_steps": "HISTORY_STEPS", "series": "SERIES",
            "allow": "ALLOW", "blocks": "BLOCKS", "macros": "MACROS", "history_parts": "HISTORY_PARTS"}


def declared(module: ModuleType, kind: type[Part]) -> Part:
    """The part `module` declares (its `PART`, of `kind`); a TypeError saying what is wrong when it
    declares none, or defines a hook's function or table without declaring it."""
    part = vars(module).get("PART")
    if not isinstance(part, kind):
        raise TypeError(f"{module.__name__} declares no {kind.__name__}: a section's module holds "
                        f"PART = {kind.__name__}(...) naming its hooks (site_gen/sections/contract.py)")
    for f in fields(kind):
        name = MODULE_NAMES.get(f.name, f.name)
        if name in vars(module) and not _same(vars(module)[name], getattr(part, f.name)):
            raise TypeError(f"{module.__name__} defines {name} but its {kind.__name__} does not declare it: "
                            f"add {f.name}={name} to its PART")
    return part


def _same(value: object, declared_value: object) -> bool:
    return value is declared_value or (isinstance(value, (dict, tuple)) and value == declared_value)


def module(name: str) -> ModuleType | None:
    """The module `name`, or None when there is none (a section without an analysis or a view of its own)."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name == name:
            return None
        raise


_checked: dict[str, tuple[ModuleType, Any]] = {}  # module name -> (the module, its part), checked once
_missing: set[str] = set()  # names of modules there are not (a section drawn from the others has no analysis)


def part_of(name: str, kind: type[Part]) -> Part | None:
    """The part the module `name` declares (None: no such module), checked once per module object."""
    kept = _checked.get(name)
    found = sys.modules.get(name) or (None if name in _missing else module(name))
    if found is None:
        _missing.add(name)
        return None
    if kept is not None and kept[0] is found:
        return kept[1]
    part = declared(found, kind)
    _checked[name] = (found, part)
    return part


def check(analysis_module: str, view_module: str) -> None:
    """A section's analysis and view modules imported and checked against the contract, as
    `site_gen.sections.register` does: a misspelled or undeclared hook is refused there."""
    for name, kind in ((analysis_module, AnalysisPart), (view_module, ViewPart)):
        _missing.discard(name)
        _checked.pop(name, None)
        part_of(name, kind)  # type: ignore[type-var]
