"""Speed: candidate / baseline token rates per cell, verdicts against the noise band, counts and
ranges, time to first token. The declaration and the meaning checks of the receipt's `speed` part."""
from __future__ import annotations

import math

from site_gen.core.errors import SitegenError
from site_gen.receipts.rules import require
from site_gen.sections.base import DashboardColumn, Section


def check(speed: dict, file, checkpoint_ref) -> None:
    # Each message and path is made only for the record at fault: a receipt holds thousands of cells.
    seen_cells: dict[tuple, int] = {}
    for i, cell in enumerate(speed["cells"]):
        checkpoint_ref(cell["checkpoint"], f"$.speed.cells[{i}].checkpoint")
        base, cand = cell["baseline"]["rate"], cell["candidate"]["rate"]
        if not (base > 0 and cand > 0 and 0 < cand / base < math.inf):
            _bad_rates(cell, file, f"$.speed.cells[{i}]")
        key = (cell["checkpoint"], cell["workload"], cell.get("input_tokens"), cell["concurrency"], cell["metric"])
        if key in seen_cells:
            raise SitegenError(f"duplicate speed cell (same checkpoint, workload, input, concurrency, metric as "
                               f"$.speed.cells[{seen_cells[key]}])", file, f"$.speed.cells[{i}]")
        seen_cells[key] = i
    seen_ttft: dict[str, int] = {}
    for i, t in enumerate(speed.get("ttft", [])):
        checkpoint_ref(t["checkpoint"], f"$.speed.ttft[{i}].checkpoint")
        require(t["checkpoint"] not in seen_ttft,
                f"duplicate time to first token for checkpoint '{t['checkpoint']}' (also $.speed.ttft[{seen_ttft.get(t['checkpoint'])}]); "
                "one per checkpoint", file, f"$.speed.ttft[{i}]")
        seen_ttft[t["checkpoint"]] = i


def _bad_rates(cell: dict, file, where: str) -> None:
    for role in ("baseline", "candidate"):
        rate = cell[role]["rate"]
        require(rate > 0, f"rate must be above zero, got {rate}", file, f"{where}.{role}.rate")
    ratio = cell["candidate"]["rate"] / cell["baseline"]["rate"]
    require(0 < ratio < math.inf, f"the rates' ratio {cell['candidate']['rate']} / {cell['baseline']['rate']} "
            "is not a representable number", file, where)


def engine_records(data: dict):
    for part in ("cells", "ttft"):
        for i, r in enumerate(data.get("speed", {}).get(part, [])):
            for role in ("baseline", "candidate"):
                yield r["checkpoint"], role, f"$.speed.{part}[{i}].{role}"


SECTION = Section(
    key="speed", title="Speed", package=__name__, name="speed", check=check, records="cells", light=True,
    engine_records=engine_records, provenance=True, legend=True, charts=True,
    dashboard=(DashboardColumn("speed", "Speed cells"),), order=10,
)
