"""Quality gates' analysis: each gate one row with its JSON path."""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from site_gen.analysis.frames import records


@dataclass
class GatesResult:
    table: pd.DataFrame


def analyse(a, part: dict) -> GatesResult:
    return GatesResult(records(part["results"], "$.gates.results", ["group", "unit"]))
