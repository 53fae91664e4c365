"""The study part as setups: each setup's facts (engine, version, parallelism, GPU count, hardware) and
its load points, read as the serving part's are (`sections/serving/analysis/points.py`: a load point's
runs, each run's request rows as numpy columns), under the study's JSON paths."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from site_gen.sections.serving.analysis.points import Point, point_columns


@dataclass
class SetupPoint(Point):
    """One setup's load point (`role` is the setup's id)."""
    setup_index: int = 0

    @property
    def path(self) -> str:
        return f"$.study.setups[{self.setup_index}].load_points[{self.index}]"


@dataclass
class Setup:
    index: int
    id: str
    label: str
    format: str
    environment: dict
    gpus: int | None
    gpus_origin: str
    points: list[SetupPoint] = field(default_factory=list)

    @property
    def path(self) -> str:
        return f"$.study.setups[{self.index}]"

    def fact(self, key: str) -> str | None:
        v = self.environment.get(key)
        return v["value"] if v else None

    @property
    def runs(self) -> int:
        """The most runs any of its load points has."""
        return max(len(p.repeats) for p in self.points)


def read(part: dict) -> list[Setup]:
    out = []
    for i, s in enumerate(part["setups"]):
        g = s.get("gpus")
        setup = Setup(index=i, id=s["id"], label=s["label"], format=s["format"], environment=s.get("environment", {}),
                      gpus=g["value"] if g else None, gpus_origin=g["origin"] if g else "")
        for k, lp in enumerate(s["load_points"]):
            rate = lp["load"]["request_rate"]
            p = SetupPoint(role=s["id"], id=lp["id"], index=k, workload=lp["workload"],
                           rate=math.inf if rate == "inf" else float(rate), concurrency=lp["load"].get("max_concurrency"),
                           repeats=lp["repeats"], setup_index=i)
            p.rows = [point_columns(rep["requests"]) for rep in lp["repeats"] if rep.get("requests") is not None]
            setup.points.append(p)
        out.append(setup)
    return out


def load_of(p: Point) -> tuple:
    """What makes two setups' load points the same load point: workload, rate and concurrency."""
    return (p.workload, p.rate, p.concurrency)


@dataclass
class Load:
    """A load point of the study: its key, how the pages name it, and the setups that ran it."""
    key: tuple
    id: str
    workload: str
    label: str
    axis: str
    x: float
    setups: list[str]
