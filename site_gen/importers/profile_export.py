"""What AIPerf's and GenAI-Perf's summaries share (`profile_export_aiperf.json`,
`profile_export_genai_perf.json`): each metric an object of statistics in its display unit; the
arguments of the run under `input_config`; the statistics computed as both compute them (numpy:
linear percentiles, population standard deviation) and how closely a stated one must agree."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from site_gen.importers import serving_common as sc

STATS = ("avg", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "min", "max", "std", "count", "sum")

TO_MS = {"ns": 1e-6, "us": 1e-3, "µs": 1e-3, "ms": 1.0, "s": 1000.0, "sec": 1000.0}

def metrics_of(data: dict) -> tuple[dict[str, dict], str]:
    """Each metric's statistics object and the JSON path they sit under."""
    if isinstance(data.get("records"), dict):
        return {k: v for k, v in data["records"].items() if isinstance(v, dict)}, "$.records"
    return {k: v for k, v in data.items() if isinstance(v, dict) and "unit" in v and k != "input_config"}, "$"


def is_summary(data: Any) -> bool:
    if not isinstance(data, dict):
        return False
    found, _ = metrics_of(data)
    return any(isinstance(v, dict) and "avg" in v for v in found.values())


def find(node: Any, key: str, depth: int = 0) -> Any:
    """`key`'s value at the shallowest level of a config that has it (AIPerf nests its load under
    `loadgen`, GenAI-Perf's arguments are flat, or nested by newer releases)."""
    if not isinstance(node, dict) or depth > 6:
        return None
    if key in node and node[key] is not None:
        return node[key]
    for v in node.values():
        found = find(v, key, depth + 1)
        if found is not None:
            return found
    return None


def stat(values: np.ndarray, stat: str) -> float:
    if stat == "count":
        return float(len(values))
    if stat == "sum":
        return float(values.sum())
    if len(values) == 0:
        return math.nan
    if stat == "avg":
        return float(np.mean(values))
    if stat == "std":
        return float(np.std(values))
    if stat in ("min", "max"):
        return float(values.min() if stat == "min" else values.max())
    return float(np.percentile(values, float(stat[1:])))


def agrees(stated: float, computed: float, key: str) -> bool:
    """Statistics to 1e-9 relative (latencies in ms to the microsecond); a duration and what is
    over it to 1e-6 relative (the requests' timestamps are the client's, to the nanosecond, but its
    duration is of its own clock); timestamps to the microsecond."""
    if key == "duration":
        return abs(stated - computed) <= 1e-6 * max(abs(stated), abs(computed))
    if key == "timestamp":
        return abs(stated - computed) <= 1e3
    return sc.agrees(stated, computed, key)


def load(cfg: Any) -> tuple[Any, int | None]:
    """The run's load: its request rate (or unlimited) and concurrency; neither given, one at a time."""
    conc, rate = find(cfg, "concurrency"), find(cfg, "request_rate")
    if isinstance(rate, (int, float)) and not isinstance(rate, bool) and rate > 0 and math.isfinite(rate):
        r: Any = int(rate) if float(rate).is_integer() else float(rate)
    else:
        r = "inf"
    c = conc if isinstance(conc, int) and not isinstance(conc, bool) and conc >= 1 else None
    if r == "inf" and c is None:
        c = 1  # neither given: the clients send one request at a time
    return r, c


def workload(cfg: dict) -> str:
    """The prompts: synthetic ones by their asked lengths (AIPerf's `input.prompt.input_tokens.mean`,
    GenAI-Perf's `synthetic_input_tokens_mean`), or the input file named."""
    prompt = ((cfg.get("input") or {}).get("prompt") or {}) if isinstance(cfg.get("input"), dict) else {}
    prompt = prompt if isinstance(prompt, dict) else {}
    isl = (prompt.get("input_tokens") or {}).get("mean") if isinstance(prompt.get("input_tokens"), dict) else None
    osl = (prompt.get("output_tokens") or {}).get("mean") if isinstance(prompt.get("output_tokens"), dict) else None
    isl = isl if isl is not None else find(cfg, "synthetic_input_tokens_mean")
    osl = osl if osl is not None else find(cfg, "output_tokens_mean")
    if sc.is_number(isl) and sc.is_number(osl):
        return f"synthetic {isl:g}→{osl:g} tokens"
    file = find(cfg, "input_file") or find(cfg, "file")
    return (f"prompts of {file}" if isinstance(file, str) else "prompts not recorded")[:200]
