"""Memory and startup: KV pool sizes, cold and warm startup, reference engines."""
from __future__ import annotations

from site_gen.analyse import memory as calc
from site_gen.analyse.frames import records
from site_gen.load import require
from site_gen.render import views
from site_gen.sections.base import BlockSpec, Section


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


def analyse(a, m: dict) -> None:
    kv = records(m.get("kv_pool", []), "$.memory.kv_pool", ["checkpoint", "engine", "tokens"])
    a.kv = calc.kv_pool(kv)
    a.kv_range = calc.kv_range(a.kv)
    a.startup = calc.startup(records(m.get("startup", []), "$.memory.startup", ["checkpoint", "engine", "cold_s", "warm_s"]))
    a.kv_references = calc.references(
        records(m.get("references", []), "$.memory.references", ["checkpoint", "name", "version", "kv_pool_tokens"]), kv)


def csv(a) -> dict:
    if a.kv is None:
        return {}
    tables = {"kv-pool": a.kv}
    if a.startup is not None and not a.startup.empty:
        tables["startup"] = a.startup
    return tables


SECTION = Section(
    key="memory", title="Memory and startup", name="memory", view=views.memory, check=check,
    engine_records=engine_records, analyse=analyse, csv=csv, provenance=True,
    blocks={"memory-table": BlockSpec("memory", "memory", (), "{{ memory_table(memory, id=id) }}",
                                      "KV pool sizes and startup times", "memory-table")},
)
