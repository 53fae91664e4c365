"""Accuracy: a score per engine on the same items (questions), their paired difference and its
interval, as the receipt's resampling method gives them (schema 1.1). The declaration and the
meaning checks of the receipt's `accuracy` part."""
from __future__ import annotations

from site_gen.receipts.rules import difference_agrees, inside_interval, require
from site_gen.sections.base import Section, paired_records


def check(part: dict, file, checkpoint_ref) -> None:
    seen: dict[tuple, int] = {}
    for i, r in enumerate(part["results"]):
        where = f"$.accuracy.results[{i}]"
        checkpoint_ref(r["checkpoint"], where + ".checkpoint")
        key = (r["checkpoint"], r["measure"])
        require(key not in seen, f"duplicate accuracy result (same checkpoint and measure as $.accuracy.results[{seen.get(key)}])",
                file, where)
        seen[key] = i
        require("baseline" in r or "difference" not in r, "a difference needs a baseline (a one-setup result has "
                "the candidate's value alone)", file, where)
        for name, iv in (("interval", r.get("interval")), ("baseline.interval", r.get("baseline", {}).get("interval")),
                         ("candidate.interval", r["candidate"].get("interval"))):
            if iv is not None:
                require(iv[0] <= iv[1], f"interval low {iv[0]} above high {iv[1]}", file, f"{where}.{name}")
        require(("difference" in r) == ("interval" in r), "a difference needs its interval and an interval its difference",
                file, where)
        # A figure outside its own interval, or a difference pointing against its values, is a receipt
        # that contradicts itself: no page could say both.
        for role in ("baseline", "candidate"):
            if "interval" in r.get(role, {}):
                inside_interval(r[role]["value"], r[role]["interval"], f"{role} value", file, f"{where}.{role}.value")
        if "difference" in r:
            inside_interval(r["difference"], r["interval"], "difference", file, f"{where}.difference")
            difference_agrees(r["difference"], r["baseline"]["value"], r["candidate"]["value"], file, f"{where}.difference")


engine_records = paired_records("accuracy")

SECTION = Section(key="accuracy", title="Accuracy", package=__name__, name="accuracy", check=check, records="results",
                  engine_records=engine_records, provenance=True, legend=True, order=22)
