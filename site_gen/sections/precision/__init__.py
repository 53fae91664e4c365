"""Precision: paired differences of accuracy measures, with 95% intervals. The declaration and
the meaning checks of the receipt's `precision` part."""
from __future__ import annotations

from site_gen.core.errors import SitegenError
from site_gen.receipts.rules import difference_agrees, require, unique_ids
from site_gen.sections.base import DashboardColumn, Section, paired_records


def check(p: dict, file, checkpoint_ref) -> None:
    unique_ids([m["id"] for m in p["measures"]], "measure", "$.precision.measures", file)
    measures = {m["id"]: m for m in p["measures"]}
    seen = set()
    for i, r in enumerate(p["results"]):
        where = f"$.precision.results[{i}]"
        checkpoint_ref(r["checkpoint"], where + ".checkpoint")
        require(r["measure"] in measures, f"unknown measure '{r['measure']}'; declared: {', '.join(measures)}", file, where + ".measure")
        key = (r["checkpoint"], r["measure"])
        require(key not in seen, f"duplicate result for {key[0]} / {key[1]}", file, where)
        seen.add(key)
        require("candidate" in r or "baseline" in r, "a result needs at least one engine's value", file, where)
        _check_values(r, measures[r["measure"]], p["rows"], file, where)
        _check_pair(r, p["rows"], file, where)
        if measures[r["measure"]]["unit"] == "percent":
            _check_percent_gap(r, file, where)


def _check_values(r: dict, measure: dict, rows: dict, file, where: str) -> None:
    for role in ("baseline", "candidate"):
        if role in r:
            rid = r[role]["rows"]
            require(rid in rows, f"unknown rows '{rid}'; declared in $.precision.rows: {', '.join(rows)}", file, f"{where}.{role}.rows")
            require(rows[rid]["panel"] == measure["panel"],
                    f"rows '{rid}' are panel {rows[rid]['panel']} but measure '{measure['id']}' is on panel {measure['panel']}: "
                    "values from different panels are not comparable", file, f"{where}.{role}.rows")
            value = r[role]["value"]
            if measure["unit"] == "percent" and not 0 <= value <= 100:
                raise SitegenError(f"value {value} is not a percentage (0 to 100), the unit of measure '{measure['id']}'",
                                   file, f"{where}.{role}.value")


def _check_pair(r: dict, rows: dict, file, where: str) -> None:
    if "baseline" in r and "candidate" in r:
        b, c = rows[r["baseline"]["rows"]], rows[r["candidate"]["rows"]]
        for part in ("panel", "plan", "teacher", "sha256"):
            require(b[part] == c[part],
                    f"not comparable: baseline rows have {part} {b[part]!r}, candidate rows have {c[part]!r}; "
                    "a paired difference needs identical rows", file, f"{where}.candidate.rows")
        require("difference" in r and "interval" in r,
                "a result with both engines needs the measured 'difference' and its 'interval'", file, where)
    elif "difference" in r or "interval" in r:
        raise SitegenError("a difference needs both engines' values", file, where)
    if "interval" in r:
        low, high = r["interval"]
        require(low <= high, f"interval low end {low} is above its high end {high}", file, where + ".interval")
        require(low <= r["difference"] <= high,
                f"interval [{low}, {high}] does not contain its difference {r['difference']}", file, where + ".interval")
    if "difference" in r and "baseline" in r and "candidate" in r:
        difference_agrees(r["difference"], r["baseline"]["value"], r["candidate"]["value"], file, where + ".difference")


def _check_percent_gap(r: dict, file, where: str) -> None:
    """Two values in percent (0 to 100) differ by at most 100 points, and so does their interval."""
    for field, values in (("difference", [r.get("difference")]), ("interval", r.get("interval", []))):
        for v in values:
            require(v is None or -100 <= v <= 100, f"{field} {v} is more than 100 points: the measure is in percent, "
                    "so two of its values differ by at most 100", file, f"{where}.{field}")


engine_records = paired_records("precision")

SECTION = Section(
    key="precision", title="Precision", package=__name__, name="precision", needs=("checkpoints",),
    check=check, records="results", engine_records=engine_records, provenance=True, legend=True, texts=("note", "explanations"),
    dashboard=(DashboardColumn("precision", "Precision gaps"),), order=20,
)
