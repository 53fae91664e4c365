"""Frontier: a study's output throughput per GPU against interactivity (output tokens/s per user), one
curve per setup across its loads, the Pareto frontier marked, a table of the best setup at round
levels of interactivity, each setup's area under its curve, and its latency against throughput. Drawn
from the study section's analysis (no part of the receipt of its own)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from site_gen.sections.base import Section


@dataclass(frozen=True)
class _FromStudy(Section):
    """Shown for a report with a study part."""

    def present(self, a: Any) -> bool:
        return a.report.section("study") is not None


SECTION = _FromStudy(key="frontier", title="Frontier", package=__name__, needs=("study",), provenance=True, order=44,
                     overview=True)
