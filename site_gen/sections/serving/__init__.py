"""Serving runs (schema 1.2): per side, load points (a request rate or a concurrency), their repeats
(files of one side at one load point), each repeat's per-request rows in columns and the source's own
summary figures. The importers (`sitegen import vllm-bench`, `guidellm`) write it.

This module is the part's declaration and its meaning checks. Its analysis (`analysis/`) computes
latency percentiles with their intervals and verdicts, throughputs, saturation and the service-level
objectives; its page (`view/`, templates) shows the latency side by side, with distributions; the
`load` section's page shows the same analysis against load (curves, objectives, goodput).
"""
from __future__ import annotations

from pathlib import Path
from collections.abc import Iterator

from site_gen.receipts.rules import gpus_disagree, require
from site_gen.sections.base import DashboardColumn, Section

COLUMNS = ("ttft_ms", "tpot_ms", "itl_ms", "e2e_ms", "input_tokens", "output_tokens", "error")
LATENCIES = ("ttft_ms", "tpot_ms", "itl_ms", "e2e_ms")
# e2e is measured on the client a little after the last token it times (microseconds, by the clock
# the serving clients read): a TTFT above the end-to-end latency by more than this is not a measurement.
SLACK_MS = 1e-3


def load_key(lp: dict) -> tuple:
    load = lp["load"]
    return (lp["workload"], load["request_rate"], load.get("max_concurrency"))


def check_repeat(rep: dict, file: Path, where: str) -> None:
    rows = rep.get("requests")
    if rows is None:
        return
    require("failed" in rep, "request rows need the failed count", file, where)
    total = rep["completed"] + rep["failed"]
    lengths = {c: len(rows[c]) for c in COLUMNS}
    require(len(set(lengths.values())) == 1, "the request columns differ in length ("
            + ", ".join(f"{c} {n}" for c, n in lengths.items()) + ")", file, where + ".requests")
    require(lengths["error"] == total, f"{lengths['error']} request rows, but completed + failed is {total}",
            file, where + ".requests")
    failed = sum(rows["error"])
    require(failed == rep["failed"], f"{failed} rows are errors, but failed is {rep['failed']}", file, where + ".requests.error")
    bad_row = _first_bad_row(rows)
    if bad_row is not None:
        _check_row(rows, bad_row, file, where)
    keys = [s["key"] for s in rep["stated"]]
    for i, k in enumerate(keys):
        require(k not in keys[:i], f"figure '{k}' stated twice", file, f"{where}.stated[{i}].key")
    if rep.get("itl_gaps"):
        g = rep["itl_gaps"]
        require(g["gaps"] == 0 or g["mean_ms"] <= g["max_ms"] and g["median_ms"] <= g["p90_ms"] <= g["p95_ms"] <= g["p99_ms"] <= g["max_ms"],
                "inter-token gap summary out of order (median ≤ p90 ≤ p95 ≤ p99 ≤ max)", file, where + ".itl_gaps")


def _first_bad_row(rows: dict) -> int | None:
    """The first request row that breaks a rule of `_check_row`, found without building its
    messages (a formatted message a row made a 1,000-request load point's check ~30 ms)."""
    columns = [rows[c] for c in LATENCIES]
    ttft, e2e = rows["ttft_ms"], rows["e2e_ms"]
    for i, bad in enumerate(rows["error"]):
        if bad:
            if any(col[i] is not None for col in columns):
                return i
        elif ttft[i] is None or e2e[i] is None or not ttft[i] <= e2e[i] + SLACK_MS:
            return i
    return None


def _check_row(rows: dict, i: int, file: Path, where: str) -> None:
    """The rules of one request row, each with its message (raises on the first one broken)."""
    ttft, e2e = rows["ttft_ms"], rows["e2e_ms"]
    at = f"{where}.requests"
    if rows["error"][i]:
        for c in LATENCIES:
            require(rows[c][i] is None, f"request {i} failed, but has a {c}", file, f"{at}.{c}[{i}]")
        return
    require(ttft[i] is not None, f"request {i} succeeded without a time to first token", file, f"{at}.ttft_ms[{i}]")
    require(e2e[i] is not None, f"request {i} succeeded without an end-to-end latency", file, f"{at}.e2e_ms[{i}]")
    require(ttft[i] <= e2e[i] + SLACK_MS, f"request {i}: time to first token {ttft[i]} ms above its end-to-end "
            f"latency {e2e[i]} ms", file, f"{at}.ttft_ms[{i}]")


def check_gpus(setup: dict, file: Path, where: str) -> None:
    """A side's or a setup's GPU count (schema 1.4) never contradicts its recorded parallelism."""
    if "gpus" in setup:
        why = gpus_disagree(setup["gpus"]["value"], setup["environment"].get("parallelism", {}).get("value"))
        require(why is None, str(why), file, where + ".gpus.value")


def _check_side(side: dict, role: str, file: Path) -> None:
    check_gpus(side, file, f"$.serving.sides.{role}")
    ids: dict[str, int] = {}
    keys: dict[tuple, int] = {}
    for i, lp in enumerate(side["load_points"]):
        where = f"$.serving.sides.{role}.load_points[{i}]"
        require(lp["id"] not in ids, f"duplicate load point id '{lp['id']}'", file, where + ".id")
        ids[lp["id"]] = i
        key = load_key(lp)
        require(key not in keys, f"the same workload and load as load_points[{keys.get(key)}]: files of one side at one "
                "load point are repeats of it, in one load point", file, where)
        keys[key] = i
        for j, rep in enumerate(lp["repeats"]):
            check_repeat(rep, file, f"{where}.repeats[{j}]")


def check(part: dict, file: Path, checkpoint_ref) -> None:
    sides = part["sides"]
    for role, side in sides.items():
        _check_side(side, role, file)
    matched = part.get("matched", [])
    require(not matched or "baseline" in sides, "matched load points need a baseline side", file, "$.serving.matched")
    if "baseline" not in sides:
        return
    by_id = {role: {lp["id"]: lp for lp in sides[role]["load_points"]} for role in ("baseline", "candidate")}
    seen: dict[str, set] = {"baseline": set(), "candidate": set()}
    for i, m in enumerate(matched):
        where = f"$.serving.matched[{i}]"
        for role in ("baseline", "candidate"):
            require(m[role] in by_id[role], f"unknown {role} load point '{m[role]}'", file, f"{where}.{role}")
            require(m[role] not in seen[role], f"{role} load point '{m[role]}' matched twice", file, f"{where}.{role}")
            seen[role].add(m[role])
        b, c = by_id["baseline"][m["baseline"]], by_id["candidate"][m["candidate"]]
        require(load_key(b) == load_key(c), "matched load points differ in workload or load", file, where)
        if m["paired"]:
            rows = [lp["repeats"][0].get("requests") for lp in (b, c)]
            require(all(rows) and rows[0]["input_tokens"] == rows[1]["input_tokens"],
                    "paired, but the two sides' input tokens differ request by request", file, f"{where}.paired")


def check_receipt(data: dict, file: Path) -> None:
    sides = data["serving"]["sides"]
    engines = data["report"]["engines"]
    require(("baseline" in sides) == ("baseline" in engines),
            "the serving part and report.engines must agree on whether there is a baseline", file, "$.report.engines")
    sources = {s["id"] for s in (data.get("provenance") or {}).get("sources", [])}
    for role, side in sides.items():
        for i, lp in enumerate(side["load_points"]):
            for j, rep in enumerate(lp["repeats"]):
                require(rep["source"] in sources, f"source '{rep['source']}' is not in $.provenance.sources", file,
                        f"$.serving.sides.{role}.load_points[{i}].repeats[{j}].source")


def engine_records(data: dict) -> Iterator[tuple[str, str, str]]:
    checkpoint = data["report"]["checkpoints"][0]["id"]
    for role in data.get("serving", {}).get("sides", {}):
        yield checkpoint, role, f"$.serving.sides.{role}"


SECTION = Section(key="latency", title="Latency", package=__name__, name="serving", check=check,
                  check_receipt=check_receipt, engine_records=engine_records, provenance=True,
                  dashboard=(DashboardColumn("serving", "Latency cells"),), order=40)
