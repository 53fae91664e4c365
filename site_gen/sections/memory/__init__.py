"""Memory and startup: KV pool sizes, cold and warm startup, reference engines. The declaration
and the meaning checks of the receipt's `memory` part."""
from __future__ import annotations

from site_gen.receipts.rules import require
from site_gen.sections.base import DashboardColumn, Section


def check(memory: dict, file, checkpoint_ref) -> None:
    for part in ("kv_pool", "startup", "references"):
        seen_keys = set()
        for i, r in enumerate(memory.get(part, [])):
            checkpoint_ref(r["checkpoint"], f"$.memory.{part}[{i}].checkpoint")
            key = (r["checkpoint"], r.get("engine", r.get("version")))
            require(key not in seen_keys, f"duplicate {part} entry for {key[0]} / {key[1]}", file, f"$.memory.{part}[{i}]")
            seen_keys.add(key)


def engine_records(data: dict):
    for part in ("kv_pool", "startup"):
        for i, r in enumerate(data.get("memory", {}).get(part, [])):
            yield r["checkpoint"], r["engine"], f"$.memory.{part}[{i}]"


def references(memory: dict) -> list[dict]:
    """The engines its references name (a report of one of them is linked)."""
    return memory.get("references", [])


SECTION = Section(
    key="memory", title="Memory and startup", package=__name__, name="memory", check=check,
    engine_records=engine_records, provenance=True, legend=True, engines_named=references,
    dashboard=(DashboardColumn("kv", "KV pool", numeric=True),), order=30,
)
