"""The registry of report sections, in page order. See `base.Section` for what one section holds.

Light on purpose: the receipts layer validates each section's part with these declarations, so
nothing here imports pandas, Jinja or a section's analysis and view.
"""
from __future__ import annotations

import importlib

from site_gen.sections import contract
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

__all__ = ["PACKAGES", "BlockSpec", "DashboardColumn", "Section", "all_sections", "engines_named", "generation",
           "previous_version", "section", "register", "unregister"]


def all_sections() -> list[Section]:
    return list(_REGISTRY)


def section(key: str) -> Section | None:
    """The section of a page key (`long-outputs`), or None."""
    return next((s for s in _REGISTRY if s.key == key), None)


def previous_version(data: dict) -> tuple[Section, dict] | None:
    """The engine a receipt names as its candidate's previous version, with the section whose part
    names it (its page is where the two are compared), or None (`Section.previous`)."""
    for s in _REGISTRY:
        if s.previous is not None and s.name and (part := data.get(s.name)) is not None:
            found = s.previous(part)
            return (s, found) if found else None
    return None


def engines_named(data: dict) -> list[dict]:
    """The engines other than its own that a receipt's parts name (`Section.engines_named`), in page order."""
    return [e for s in _REGISTRY if s.engines_named is not None and s.name and (part := data.get(s.name)) is not None
            for e in s.engines_named(part)]


def generation() -> int:
    return _generation


def register(section: Section) -> Section:
    """Adds a section (after the others; one of the same key is replaced in its place). Its analysis
    and view modules are imported and checked against the contract first (`contract.check`): one
    that declares an unknown or misspelled hook, or leaves one undeclared, is refused (TypeError)."""
    global _generation
    contract.check(section.analysis_module, section.view_module)
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
