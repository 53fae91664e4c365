"""The registry of report sections, in page order. See `base.Section` for what one section holds.

Light on purpose: the receipts layer validates each section's part with these declarations, so
nothing here imports pandas, Jinja or a section's analysis and view.
"""
from __future__ import annotations

import importlib

from site_gen.sections.base import BlockSpec, DashboardColumn, Section

# One line a section, in page order: a new section is its folder here plus its line.
PACKAGES = (
    "precision",
    "accuracy",
    "speed",
    "measures",
    "memory",
    "gates",
    "long_outputs",
    "versions",
    "tool_calling",
    "serving",
    "distributions",
    "load",
    "study",
    "frontier",
    "accuracy_study",
    "checkpoints",
)

_REGISTRY: list[Section] = [importlib.import_module(f"{__name__}.{name}").SECTION for name in PACKAGES]
_generation = 0  # bumped when the registry changes: what was made from it (the schema) is made again

__all__ = ["PACKAGES", "BlockSpec", "DashboardColumn", "Section", "all_sections", "generation", "section", "register", "unregister"]


def all_sections() -> list[Section]:
    return list(_REGISTRY)


def section(key: str) -> Section | None:
    """The section of a page key (`long-outputs`), or None."""
    return next((s for s in _REGISTRY if s.key == key), None)


def generation() -> int:
    return _generation


def register(section: Section) -> Section:
    """Adds a section (after the others; one of the same key is replaced in its place)."""
    global _generation
    keys = [s.key for s in _REGISTRY]
    if section.key in keys:
        _REGISTRY[keys.index(section.key)] = section
    else:
        _REGISTRY.append(section)
    _generation += 1
    return section


def unregister(key: str) -> None:
    global _generation
    _REGISTRY[:] = [s for s in _REGISTRY if s.key != key]
    _generation += 1
