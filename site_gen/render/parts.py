"""Each section's view part (`PART` of `<package>.view`: sections/contract.py `ViewPart`), and what
central code asks of it: its page's title, its blocks, its lines in the other outputs."""
from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from site_gen.analysis.report import Analysis, own
from site_gen.sections import all_sections
from site_gen.sections.base import BlockSpec, DashboardColumn, Section
from site_gen.sections.contract import ViewPart, part_of

NO_VIEW = ViewPart()  # a section that shows nothing (yet) of its own


def view_part(section: Section) -> ViewPart:
    """The section's view part (its hooks), empty for a section without a view module."""
    return part_of(section.view_module, ViewPart) or NO_VIEW


def own_part(a: Analysis, section: Section) -> Analysis:
    """What a section's view and tables are given: a named section's own part of the analysis (so
    they come out the same whatever else changed, and a live builder keeps them: building/reports.py)."""
    return own(a, section.name) if section.name else a


def title_for(section: Section, a) -> str:
    """The section's page title for one report (a section may make it from the report)."""
    page_title = view_part(section).page_title
    return page_title(a) if page_title else section.title


def blocks(section: Section) -> dict[str, BlockSpec]:
    return dict(view_part(section).blocks)


def macros() -> list[tuple[str, tuple[str, ...]]]:
    """(template, macro names) of every section's macros that its blocks use."""
    return [(f"_{s.key}.html", names) for s in all_sections() if (names := view_part(s).macros)]


def sides(a) -> dict[str, str] | None:
    """How a section names the report's sides where a pair's words would not fit (a study of many
    setups): its view's `sides(a)` -> {"opening": the sentence's subject and the dashboard's engines
    cell, "against": the "Against" row of What was tested, "legend": whom the colours call better};
    None when no section does."""
    for s in ordered():
        fn = view_part(s).sides
        if fn is not None and s.present(a) and (found := fn(a)):
            return found
    return None


def ordered() -> list[Section]:
    """The sections in the order their lines stand in the summary, the share card and the dashboard."""
    return sorted(all_sections(), key=lambda s: s.order)


def lines(a, hook: Callable[[ViewPart], Callable[..., list] | None], *args: Any) -> list:
    """Every section's contribution `hook(part)(a, ...)` (a list each), in `ordered()` order."""
    out: list = []
    for s in ordered():
        fn = hook(view_part(s))
        if fn is not None and s.present(a):
            out.extend(fn(a, *args))
    return out


# The sections with no column of their own speak in this one, by their headlines (`headlines` of their view).
OTHER = DashboardColumn("other", "Other verdicts")


@cache
def dashboard_columns_of(generation: int) -> tuple:
    return (*(c for s in ordered() for c in s.dashboard), OTHER)


def dashboard_columns() -> tuple:
    from site_gen.sections import generation

    return dashboard_columns_of(generation())
