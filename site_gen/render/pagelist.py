"""Which pages a report has and where they live, and the markdown texts of its receipt: what the
pages, the links between reports and the author blocks all need, without rendering anything."""
from __future__ import annotations

from typing import TYPE_CHECKING

from site_gen.receipts.markdown_bounds import receipt_texts  # noqa: F401 (where the pages find it)
from site_gen.render.parts import title_for
from site_gen.render.where import report_base  # noqa: F401 (a report's folder, beside its pages)
from site_gen.sections import Section, all_sections

if TYPE_CHECKING:
    from site_gen.analysis.report import Analysis

# The report-wide pages around the sections' own (site_gen/sections): (key, nav title, file name).
OVERVIEW = ("overview", "Overview", "index.html")
NUMBERS = ("numbers", "Numbers", "numbers.html")


def all_pages() -> list[tuple[str, str, str]]:
    """Every page a report can have, in navigation order."""
    return [OVERVIEW, *((s.key, s.title, s.file) for s in all_sections()), NUMBERS]


def section_of_view(name: str) -> Section:
    return next(s for s in all_sections() if s.view_key == name)


def present_sections(a: Analysis) -> list[tuple[str, str, str]]:
    """The report's pages: (key, title, file name) of the overview, each section it has, the numbers."""
    return [OVERVIEW, *((s.key, title_for(s, a), s.file) for s in all_sections() if s.present(a)), NUMBERS]
