"""Each section's analysis module (`<package>.analysis`), found from its declaration."""
from __future__ import annotations

import importlib
from types import ModuleType

from site_gen.sections.base import Section


def analysis_of(section: Section) -> ModuleType | None:
    """The section's analysis module, or None for a section drawn from the others' (no part of its own)."""
    if section.name is None:
        return None
    try:
        return importlib.import_module(section.analysis_module)
    except ModuleNotFoundError as exc:
        if exc.name == section.analysis_module:
            return None
        raise
