"""What a one-shot build's worker wrote for one report (building/workers.py `write_report`)."""
from __future__ import annotations

from dataclasses import dataclass, field

from site_gen.core.diagnostics import Diagnostic
from site_gen.render.related import Related


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
