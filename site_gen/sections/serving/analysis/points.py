"""The receipt's serving part as load points: per side and load point its repeats, each repeat's
request rows as numpy columns (NaN where a request has no value), its stated figures, and the
load's label and place on a load axis."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np


ROLES = ("baseline", "candidate")
METRICS = ("ttft", "tpot", "itl", "e2e")
METRIC_LABELS = {"ttft": "time to first token", "tpot": "time per output token",
                 "itl": "inter-token latency (the request's mean gap)", "e2e": "end-to-end latency"}
METRIC_SHORT = {"ttft": "TTFT", "tpot": "TPOT", "itl": "ITL", "e2e": "E2E"}
PERCENTILES = (50, 90, 95, 99)
# A figure the source states under one of these keys is that metric's percentile (the serving
# clients' names). Their ITL is over every gap, not a request's mean: kept apart (`gaps`), and the
# ITL of a load point only where it has no rows (no request's own mean to take; `latency.compare`
# never sets it against a side's rows).
_STATED_METRIC = {"ttft": ("ttft",), "tpot": ("tpot",), "e2e": ("e2el", "e2e_latency"), "itl": ("itl",)}
_STATED_Q = {50: "median", 90: "p90", 95: "p95", 99: "p99"}
# AIPerf's and GenAI-Perf's names (`METRIC.pNN`, ms): their inter-token latency is (end-to-end -
# TTFT) / (output tokens - 1), the receipt's TPOT.
_STATED_DOTTED = {"ttft": "time_to_first_token", "tpot": "inter_token_latency", "e2e": "request_latency"}
# Requests whose per-request ITL equals their TPOT to within this (ms): the same figure twice.
SAME_MS = 1e-3


@dataclass
class Point:
    """One side's load point."""
    role: str
    id: str
    index: int
    workload: str
    rate: float                # requests per second aimed at; inf: all sent at once
    concurrency: int | None
    repeats: list[dict]
    rows: list[dict[str, np.ndarray]] = field(default_factory=list)  # per repeat with rows

    @property
    def path(self) -> str:
        return f"$.serving.sides.{self.role}.load_points[{self.index}]"

    @property
    def has_rows(self) -> bool:
        return len(self.rows) == len(self.repeats)

    @property
    def axis(self) -> str:
        """The load's axis: request rate, or concurrency when every request is sent at once."""
        return "concurrency" if math.isinf(self.rate) and self.concurrency is not None else "rate"

    @property
    def x(self) -> float:
        # (`axis`'s rule, spelled out: the type checker sees the concurrency there.)
        return float(self.concurrency) if math.isinf(self.rate) and self.concurrency is not None else self.rate

    @property
    def load(self) -> str:
        return load_label(self.rate, self.concurrency)

    def pooled(self, column: str) -> np.ndarray:
        """A column over every repeat's rows."""
        return np.concatenate([r[column] for r in self.rows]) if self.rows else np.array([])

    def stated(self, repeat: int, key: str) -> float | None:
        for s in self.repeats[repeat]["stated"]:
            if s["key"] == key:
                return float(s["value"])
        return None

    def stated_path(self, repeat: int, key: str) -> str | None:
        """The JSON path of the figure the source states under `key` in a repeat, if it states one."""
        for j, s in enumerate(self.repeats[repeat]["stated"]):
            if s["key"] == key:
                return f"{self.path}.repeats[{repeat}].stated[{j}]"
        return None

    def column_path(self, column: str) -> str:
        """Where a request column lies: one run's, or every run's (`repeats[*]`) when pooled."""
        run = "0" if len(self.repeats) == 1 else "*"
        return f"{self.path}.repeats[{run}].requests.{column}"

    def stated_percentile(self, repeat: int, metric: str, q: int) -> tuple[float, str] | None:
        """The source's own figure for a metric's percentile, with its path, when it states one."""
        keys = [f"{_STATED_Q[q]}_{name}_ms" for name in _STATED_METRIC.get(metric, ())]
        if metric in _STATED_DOTTED:
            keys.append(f"{_STATED_DOTTED[metric]}.p{q}")
        for key in keys:
            for j, s in enumerate(self.repeats[repeat]["stated"]):
                if s["key"] == key:
                    return float(s["value"]), f"{self.path}.repeats[{repeat}].stated[{j}]"
        return None


def load_label(rate: float, concurrency: int | None) -> str:
    """`4 req/s`, `all at once`, `at most 64 in flight` (sent as fast as that allows), `4 req/s, at most 64 in flight`."""
    if concurrency is None:
        return "all at once" if math.isinf(rate) else f"{rate:g} req/s"
    return f"at most {concurrency} in flight" if math.isinf(rate) else f"{rate:g} req/s, at most {concurrency} in flight"


def point_columns(requests: dict) -> dict[str, np.ndarray]:
    out = {m: np.array([np.nan if v is None else v for v in requests[f"{m}_ms"]], dtype=float) for m in METRICS}
    out["input_tokens"] = np.array(requests["input_tokens"], dtype=float)
    out["output_tokens"] = np.array(requests["output_tokens"], dtype=float)
    out["error"] = np.array(requests["error"], dtype=bool)
    return out


def read(part: dict) -> dict[str, list[Point]]:
    """Each side's load points, in the receipt's order."""
    out: dict[str, list[Point]] = {}
    for role in ROLES:
        side = part["sides"].get(role)
        if side is None:
            continue
        points = []
        for i, lp in enumerate(side["load_points"]):
            rate = lp["load"]["request_rate"]
            p = Point(role=role, id=lp["id"], index=i, workload=lp["workload"],
                      rate=math.inf if rate == "inf" else float(rate),
                      concurrency=lp["load"].get("max_concurrency"), repeats=lp["repeats"])
            p.rows = [point_columns(rep["requests"]) for rep in lp["repeats"] if rep.get("requests") is not None]
            points.append(p)
        out[role] = points
    return out


def itl_is_tpot(sides: dict[str, list[Point]], band: float = 0.0) -> bool:
    """Whether every request of every repeat with rows has the same ITL as TPOT (the serving clients
    compute a request's TPOT from its gaps: its mean gap is its TPOT, and the column says nothing new);
    with `band`, the same to within that share of its TPOT (`itl_agreement`)."""
    found = itl_agreement(sides)
    return found is not None and found[2] <= band


def itl_agreement(sides: dict[str, list[Point]]) -> tuple[int, int, float] | None:
    """How a request's ITL (its mean gap) agrees with its TPOT over every repeat with rows: the
    requests with both equal (within SAME_MS), the requests with either, and the largest difference
    as a share of the TPOT (0 when every one is equal; inf when a request has one without the other).
    A request's mean gap differs from its TPOT only where a streamed chunk carried several tokens.
    None without rows."""
    equal = total = 0
    worst = 0.0
    seen = False
    for points in sides.values():
        for p in points:
            for r in p.rows:
                seen = True
                a, b = r["itl"], r["tpot"]
                na, nb = np.isnan(a), np.isnan(b)
                total += int(np.count_nonzero(~(na & nb)))
                if not np.array_equal(na, nb):
                    worst = math.inf
                both = ~(na | nb)
                diff = np.abs(a[both] - b[both])
                same = diff <= SAME_MS
                equal += int(np.count_nonzero(same))
                if np.any(~same):
                    with np.errstate(divide="ignore", invalid="ignore"):
                        worst = max(worst, float(np.max(np.where(same, 0.0, diff / np.abs(b[both])))))
    return (equal, total, worst) if seen else None


def curves(points: list[Point]) -> dict[tuple[str, str], list[Point]]:
    """A side's load points by (workload, axis), each list from the lightest load to the heaviest."""
    out: dict[tuple[str, str], list[Point]] = {}
    for p in points:
        out.setdefault((p.workload, p.axis), []).append(p)
    for key in out:
        out[key].sort(key=lambda p: (p.x, p.rate, p.concurrency or 0))
    return out
