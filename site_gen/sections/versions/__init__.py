"""Versions: this candidate against its previous version (precision and long-output text). The
declaration and the meaning checks of the receipt's `versions` part."""
from __future__ import annotations

from site_gen.core.names import engine_label
from site_gen.receipts.rules import require
from site_gen.sections.base import Section


def check(versions: dict, file, checkpoint_ref) -> None:
    seen_panels = set()
    for i, r in enumerate(versions.get("precision", [])):
        checkpoint_ref(r["checkpoint"], f"$.versions.precision[{i}].checkpoint")
        key = (r["panel"], r["checkpoint"])
        require(key not in seen_panels, f"duplicate comparison for panel {key[0]} / {key[1]}", file, f"$.versions.precision[{i}]")
        seen_panels.add(key)
        low, high = r["interval"]
        require(low <= high, f"interval low end {low} is above its high end {high}", file, f"$.versions.precision[{i}].interval")
        _consistent(r, file, f"$.versions.precision[{i}]")
    seen_categories = set()
    for i, r in enumerate(versions.get("text", [])):
        require(r["category"] not in seen_categories, f"duplicate category '{r['category']}'", file, f"$.versions.text[{i}].category")
        seen_categories.add(r["category"])
        require(r["identical"] <= r["total"], "identical cannot exceed total", file, f"$.versions.text[{i}].identical")


def _consistent(r: dict, file, where: str) -> None:
    """A row's largest difference and its interval tell one story: every difference within
    ±max_abs_difference puts their mean there too, so an interval wholly beyond it (or anything but
    [0, 0] beside a largest difference of 0, bit-identical) contradicts the row."""
    largest, (low, high) = r["max_abs_difference"], r["interval"]
    if largest == 0:
        require(low == 0 and high == 0, f"max_abs_difference 0 says every value is bit-identical, but the interval "
                f"[{low:g}, {high:g}] is not [0, 0]", file, where + ".interval")
    require(high >= -largest and low <= largest, f"the interval [{low:g}, {high:g}] lies wholly beyond ±{largest:g}, the largest "
            "difference: the mean of the differences cannot", file, where + ".interval")


def check_receipt(data: dict, file) -> None:
    """A comparison of the candidate with itself compares nothing: the previous version must be another."""
    prev, candidate = data["versions"]["previous"], data["report"]["engines"]["candidate"]
    require((prev["name"], prev["version"]) != (candidate["name"], candidate["version"]),
            f"is the candidate itself ({engine_label(candidate['name'], candidate['version'])}); "
            "the previous version must be another one", file, "$.versions.previous.version")


def previous(versions: dict) -> dict | None:
    """The engine the candidate's previous version is: its page compares the two, and links that
    version's report where the site has one."""
    return versions.get("previous")


SECTION = Section(
    key="versions", title="Versions", package=__name__, name="versions", check=check, check_receipt=check_receipt,
    texts=("note", "explanations"), provenance=True, order=60, previous=previous,
)
