"""The registry of report sections, in page order. See `base.Section` for what one section holds."""
from __future__ import annotations

from site_gen.sections import (accuracy, checkpoints, gates, long_outputs, measures, memory, precision, serving, speed,
                               tool_calling, versions)
from site_gen.sections.base import BlockSpec, Section

_REGISTRY: list[Section] = [s.SECTION for s in (precision, accuracy, speed, measures, memory, gates, long_outputs,
                                                            versions, tool_calling, checkpoints, serving)]

__all__ = ["BlockSpec", "Section", "all_sections", "section", "register", "unregister"]


def all_sections() -> list[Section]:
    return list(_REGISTRY)


def section(key: str) -> Section | None:
    """The section of a page key (`long-outputs`), or None."""
    return next((s for s in _REGISTRY if s.key == key), None)


def register(section: Section) -> Section:
    """Adds a section (after the others; one of the same key is replaced in its place)."""
    keys = [s.key for s in _REGISTRY]
    if section.key in keys:
        _REGISTRY[keys.index(section.key)] = section
    else:
        _REGISTRY.append(section)
    _schema_changed()
    return section


def unregister(key: str) -> None:
    _REGISTRY[:] = [s for s in _REGISTRY if s.key != key]
    _schema_changed()


def _schema_changed() -> None:
    from site_gen import load

    load.schema_changed()
