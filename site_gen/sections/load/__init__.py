"""Load: the serving runs against load, from the serving section's analysis (no part of the receipt
of its own): throughput and latency percentiles against request rate or concurrency for both sides,
the saturation point, the service-level objectives (`slo:` in the config) drawn on the curves,
goodput, and the heaviest load at which each side meets every objective."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from site_gen.sections.base import Section


@dataclass(frozen=True)
class _FromServing(Section):
    """Shown for a report with a serving part."""

    def present(self, a: Any) -> bool:
        return a.report.section("serving") is not None


SECTION = _FromServing(key="load", title="Load", package=__name__, needs=("serving",), provenance=True, order=41)
