"""Each section's analysis part (`PART` of `<package>.analysis`: sections/contract.py `AnalysisPart`)."""
from __future__ import annotations

from site_gen.sections.base import Section
from site_gen.sections.contract import AnalysisPart, part_of


def analysis_part(section: Section) -> AnalysisPart | None:
    """The section's analysis part, or None for a section drawn from the others' (no part of its own)."""
    if section.name is None:
        return None
    return part_of(section.analysis_module, AnalysisPart)
