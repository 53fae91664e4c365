"""Tool calling: a multi-turn benchmark's points per run and scenario, and turn latency. The
declaration and the meaning checks of the receipt's `tool_calling` part."""
from __future__ import annotations

from site_gen.core.errors import SitegenError
from site_gen.receipts.rules import require
from site_gen.sections.base import Section


def check(tools: dict, file, checkpoint_ref) -> None:
    # Each message and path is made only for the record at fault: a receipt holds thousands of scenarios.
    ids = set()
    max_points = tools["max_points"]
    for i, run in enumerate(tools["runs"]):
        checkpoint_ref(run["checkpoint"], f"$.tool_calling.runs[{i}].checkpoint")
        require(run["id"] not in ids, f"duplicate run id '{run['id']}'", file, f"$.tool_calling.runs[{i}].id")
        ids.add(run["id"])
        names = set()
        for j, s in enumerate(run["scenarios"]):
            if s["points"] > max_points:
                raise SitegenError(f"points {s['points']} above max_points {max_points}", file,
                                   f"$.tool_calling.runs[{i}].scenarios[{j}].points")
            if s["id"] in names:
                raise SitegenError(f"duplicate scenario '{s['id']}'", file, f"$.tool_calling.runs[{i}].scenarios[{j}].id")
            names.add(s["id"])


def engine_records(data: dict):
    for i, r in enumerate(data.get("tool_calling", {}).get("runs", [])):
        yield r["checkpoint"], r["engine"], f"$.tool_calling.runs[{i}]"


SECTION = Section(
    key="tool-calling", title="Tool calling", package=__name__, name="tool_calling", check=check,
    records="runs", light=True, engine_records=engine_records, texts=("note", "explanations"), provenance=True, order=40,
)
