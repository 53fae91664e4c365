"""Quality gates' analysis: each gate one row with its JSON path, and how many passed and failed
(counted here, once: the page, summary, dashboard and verdict only phrase them)."""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from site_gen.analysis.frames import records
from site_gen.sections.contract import AnalysisPart


@dataclass
class GatesResult:
    table: pd.DataFrame
    total: int
    failed: int

    @property
    def passed(self) -> int:
        return self.total - self.failed


def analyse(a, part: dict) -> GatesResult:
    table = records(part["results"], "$.gates.results", ["group", "unit"])
    return GatesResult(table, len(table), int((~table["passed"].astype(bool)).sum()) if len(table) else 0)


PART = AnalysisPart(analyse=analyse)
