"""Quality gates: a value against a threshold, pass or fail, per engine (schema 1.1). The receipt
says whether each passed; the check refuses a verdict its own value and threshold contradict. The
declaration and the meaning checks of the receipt's `gates` part."""
from __future__ import annotations

from site_gen.receipts.rules import require
from site_gen.sections.base import Section


def gate_passes(value: float, threshold: float, passes_when: str) -> bool:
    return value <= threshold if passes_when == "at_most" else value >= threshold


RULE_WORDS = {"at_most": "at most", "at_least": "at least"}


def check(part: dict, file, checkpoint_ref) -> None:
    seen: dict[tuple, int] = {}
    for i, r in enumerate(part["results"]):
        where = f"$.gates.results[{i}]"
        checkpoint_ref(r["checkpoint"], where + ".checkpoint")
        key = (r["checkpoint"], r.get("group"), r["gate"], r["engine"])
        require(key not in seen, f"duplicate gate (same checkpoint, group, gate and engine as $.gates.results[{seen.get(key)}])",
                file, where)
        seen[key] = i
        expect = gate_passes(r["value"], r["threshold"], r["passes_when"])
        require(r["passed"] == expect, f"passed is {str(r['passed']).lower()}, but {r['value']} is "
                f"{'' if expect else 'not '}{RULE_WORDS[r['passes_when']]} {r['threshold']}", file, f"{where}.passed")


def engine_records(data: dict):
    for i, r in enumerate(data.get("gates", {}).get("results", [])):
        yield r["checkpoint"], r["engine"], f"$.gates.results[{i}]"


SECTION = Section(key="gates", title="Quality gates", package=__name__, name="gates", check=check, records="results",
                  engine_records=engine_records, provenance=True, legend=True, order=24)
