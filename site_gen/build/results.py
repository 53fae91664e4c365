"""What a build gives back: the whole site's result, and one report's part of it."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from site_gen.core.diagnostics import Diagnostic
from site_gen.render.related import Related

if TYPE_CHECKING:
    from site_gen.render.pages import Page


@dataclass
class BuildResult:
    files: dict[str, bytes]
    pages: int
    reports: int
    warnings: list[Diagnostic] = field(default_factory=list)
    seconds: float = 0.0
    listing: dict[str, str] | None = None  # the site folder's files by hash, when the build knows them (`Staging`)


@dataclass
class Made:
    """One report's part of the site: its pages (and their warnings) and its other files (CSVs, receipt)."""
    pages: list[Page]
    files: dict[str, bytes]
    warnings: list[Diagnostic]


@dataclass
class Streamed:
    """What a one-shot build wrote for one report: file names, page warnings, whether a page draws charts."""
    sha256: str
    names: list[str]
    warnings: list[Diagnostic]
    charts: bool
    hashes: dict[str, str] = field(default_factory=dict)  # each file's sha256, as written
    stats: dict[str, tuple] = field(default_factory=dict)  # and its signature (write.signature)
    related: Related | None = None  # the links to other reports its pages were made with (None: none)
