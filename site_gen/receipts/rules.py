"""Small rules every meaning check uses (the receipts layer's and each section's own)."""
from __future__ import annotations

import re
from pathlib import Path

from site_gen.core.errors import SitegenError


def require(condition: bool, message: str, file: Path, where: str) -> None:
    if not condition:
        raise SitegenError(message, file, where)


def anchor_key(ident: str) -> str:
    """What is left of an id in a page anchor (`Q3.5` -> `q3-5`): case and punctuation go."""
    return re.sub(r"[^a-z0-9]+", "-", ident.lower()).strip("-")


def unique_ids(ids: list[str], what: str, where: str, file: Path) -> None:
    """Ids must differ, and differ in more than case and punctuation: pages use them as anchors,
    and two checkpoints sharing one would share a chart."""
    seen: dict[str, str] = {}
    for i, ident in enumerate(ids):
        require(ident not in ids[:i], f"duplicate {what} id '{ident}'", file, f"{where}[{i}].id")
        key = anchor_key(ident)
        require(key not in seen, f"{what} ids '{seen.get(key)}' and '{ident}' differ only in case or punctuation; "
               "on the pages both would be '" + key + "'", file, f"{where}[{i}].id")
        seen[key] = ident


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def difference_agrees(difference: float, baseline: float, candidate: float, file: Path, where: str) -> None:
    """A measured difference (candidate minus baseline) points the way its two values do. Rounding is
    monotonic, so rounded values never reverse the sign of their difference: strictly opposite signs
    are a contradiction, never a rounding."""
    went = candidate - baseline
    require(_sign(difference) * _sign(went) >= 0,
            f"difference {difference:+g} contradicts its two values: candidate {candidate:g} minus baseline {baseline:g} "
            f"is {went:+g}", file, where)


def inside_interval(value: float, interval: list, what: str, file: Path, where: str) -> None:
    """A figure lies inside its own interval (an interval that leaves out its own estimate is not one)."""
    low, high = interval
    require(low <= value <= high, f"{what} {value:g} lies outside its own interval [{low:g}, {high:g}]", file, where)


PARALLELISM = re.compile(r"tensor parallel (\d+) × pipeline parallel (\d+)")


def parallel_gpus(parallelism: str | None) -> int | None:
    """Tensor x pipeline parallel of a setup's parallelism as the importers write it (`tensor parallel
    4 × pipeline parallel 2`): the GPUs one replica of the engine uses; None for other words."""
    m = PARALLELISM.fullmatch(parallelism or "")
    return int(m[1]) * int(m[2]) if m else None


def gpus_disagree(gpus: int, parallelism: str | None) -> str | None:
    """Why a GPU count contradicts the parallelism recorded beside it, or None: a setup's GPUs are
    tensor x pipeline x data parallel, so a whole multiple of tensor x pipeline parallel."""
    one = parallel_gpus(parallelism)
    if one is None or gpus % one == 0:
        return None
    return (f"{gpus} GPU{'s' if gpus != 1 else ''}, but its parallelism is {parallelism} ({one} GPUs a replica): "
            f"a GPU count is a whole multiple of tensor × pipeline parallel")
