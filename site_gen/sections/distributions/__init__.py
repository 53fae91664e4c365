"""Distributions: per load point and latency metric, both sides' empirical distribution with the
percentiles marked, and each side's token counts and every-gap inter-token latency. Drawn from the
serving section's analysis (no part of the receipt of its own); shown when a side has per-request
rows."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from site_gen.sections.base import Section


@dataclass(frozen=True)
class _FromServingRows(Section):
    def present(self, a: Any) -> bool:
        if a.report.section("serving") is None:
            return False
        s = a.of("serving")
        return s is not None and bool(s.samples)


SECTION = _FromServingRows(key="distributions", title="Distributions", package=__name__, needs=("serving",),
                            provenance=True, order=42)
