"""What a build gives back: the whole site's result, and one report's part of it. Light to import
(a site found already built returns its result without the pipeline)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from site_gen.core.diagnostics import Diagnostic

if TYPE_CHECKING:
    from site_gen.render.pages import Page


@dataclass
class BuildResult:
    """What a build gives back to its front end: every file of the site in memory (those a one-shot
    build did not write out as it went), how many pages and reports it holds, every warning, and the
    time it took; `reused`: the site was found already built (building/site_cache.py), nothing made."""
    files: dict[str, bytes]
    pages: int
    reports: int
    warnings: list[Diagnostic] = field(default_factory=list)
    seconds: float = 0.0
    listing: dict[str, str] | None = None  # the site folder's files by hash, when the build knows them (`Staging`)
    reused: bool = False


@dataclass
class Made:
    """One report's part of the site: its pages (and their warnings) and its other files (CSVs, receipt)."""
    pages: list[Page]
    files: dict[str, bytes]
    warnings: list[Diagnostic]
