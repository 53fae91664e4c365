"""How a study's figures are named and printed on its pages and in its other outputs."""
from __future__ import annotations

from site_gen.render import format as fmt
from site_gen.sections.serving.analysis.points import METRIC_LABELS, METRIC_SHORT
from site_gen.sections.study.analysis.figures import THROUGHPUT


def figure_label(metric: str, q: int) -> str:
    """`TTFT p99`, `output tokens/s`."""
    return "output tokens/s" if metric == THROUGHPUT else f"{METRIC_SHORT[metric]} p{q}"


def figure_long(metric: str, q: int) -> str:
    return "output tokens per second" if metric == THROUGHPUT else f"p{q} {METRIC_LABELS[metric]}"


def number(value: float, metric: str = "") -> str:
    """A latency in ms or a throughput in tokens/s, as the study's tables print them."""
    if value != value:
        return fmt.MISSING
    return f"{value:,.1f}"
