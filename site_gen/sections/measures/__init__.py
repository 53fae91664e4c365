"""Measures: named figures with their own unit and orientation (higher or lower is better), each
engine's median, range and samples over repeated launches (schema 1.1). The declaration and the
meaning checks of the receipt's `measures` part."""
from __future__ import annotations

from site_gen.receipts.rules import require
from site_gen.sections.base import Section, paired_records


def check(part: dict, file, checkpoint_ref) -> None:
    seen: dict[tuple, int] = {}
    for i, r in enumerate(part["results"]):
        where = f"$.measures.results[{i}]"
        checkpoint_ref(r["checkpoint"], where + ".checkpoint")
        key = (r["checkpoint"], r["group"], r["measure"])
        require(key not in seen, f"duplicate measure (same checkpoint, group and measure as $.measures.results[{seen.get(key)}])",
                file, where)
        seen[key] = i
        for role in ("baseline", "candidate"):
            s = r[role]
            require(s["median"] != 0 or role == "candidate", "a baseline median of zero gives no change", file, f"{where}.{role}.median")
            if "low" in s and "high" in s:
                require(s["low"] <= s["median"] <= s["high"], f"median {s['median']} outside its range {s['low']}–{s['high']}",
                        file, f"{where}.{role}")


engine_records = paired_records("measures")

SECTION = Section(key="measures", title="Measures", package=__name__, name="measures", check=check, records="results",
                  engine_records=engine_records, provenance=True, legend=True, order=26)
