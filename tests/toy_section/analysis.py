"""The toy section's analysis: its scores as a frame and their sum."""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from site_gen.analysis.figures import Figure
from site_gen.sections.contract import AnalysisPart


@dataclass
class ToyResult:
    scores: pd.DataFrame
    total: int


def analyse(a, part: dict) -> ToyResult:
    scores = pd.DataFrame(part["scores"], columns=["checkpoint", "score"])
    scores["source"] = [f"$.toy.scores[{i}].score" for i in range(len(scores))]
    return ToyResult(scores, int(scores["score"].sum()))


def toy_total(a) -> Figure:
    return Figure(a.of("toy").total, "count", f"sum of {len(a.of('toy').scores)} scores")


FIGURES = {"toy_total": (toy_total, "the sum of the toy scores")}


PART = AnalysisPart(analyse=analyse, figures=FIGURES)
