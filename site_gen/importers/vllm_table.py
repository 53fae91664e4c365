"""The summary table vLLM's benchmark scripts write beside their runs (`benchmark_results.json`, the
nightly suite's `convert-results-json-to-markdown.py`: one row a run, "Test name" and its figures
under display names): named for what it is, never read as a run, and each of its rows checked
against the run it names when that run is among those given (its `.commands` sidecar's
`--result-filename`, or the run file's own name, ends with the test name)."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from site_gen.core.errors import SitegenError
from site_gen.importers import serving_common as sc

# The table's columns and the run's own keys they copy.
COLUMNS = {"Tput (req/s)": "request_throughput", "Output Tput (tok/s)": "output_throughput",
           "Total Tput (tok/s)": "total_token_throughput", "Mean TTFT (ms)": "mean_ttft_ms",
           "Median TTFT (ms)": "median_ttft_ms", "P99 TTFT (ms)": "p99_ttft_ms", "Mean TPOT (ms)": "mean_tpot_ms",
           "Median TPOT (ms)": "median_tpot_ms", "P99 TPOT (ms)": "p99_tpot_ms", "Mean ITL (ms)": "mean_itl_ms",
           "Median ITL (ms)": "median_itl_ms", "P99 ITL (ms)": "p99_itl_ms"}
WHAT = "vLLM's summary table of the runs beside it (its benchmark scripts write it), not a run"


def is_table(data: Any) -> bool:
    return isinstance(data, list) and bool(data) and all(isinstance(r, dict) and "Test name" in r for r in data)


def _names(run: Any, flag: Callable[[str, str], str | None]) -> set[str]:
    """The names a table may give a run: its file's stem and its command's --result-filename stem."""
    out = {Path(run.src.name).stem}
    command = run.repeat.get("command")
    if command:
        given = flag(command, "--result-filename")
        if given:
            out.add(Path(given).stem)
    return out


def check(src: Any, rows: list, runs: list, flag: Callable[[str, str], str | None]) -> str:
    """The note on the table: its rows, how many were checked against the runs given (a figure that
    disagrees refuses the import, saying to leave the table out if it is of other runs)."""
    checked = 0
    for i, row in enumerate(rows):
        name = str(row.get("Test name"))
        match = [r for r in runs if r.src.path.parent == src.path.parent and any(n == name or n.endswith("_" + name) for n in _names(r, flag))]
        if len(match) != 1:
            continue
        run = match[0]
        stated = {s["key"]: s["value"] for s in run.repeat.get("stated", [])}
        for col, key in COLUMNS.items():
            if col in row and key in stated and sc.is_number(row[col]) and not sc.agrees(float(row[col]), float(stated[key]), key):
                raise SitegenError(f"row '{name}' says {col} {row[col]}, but its run {run.src.name} says {key} {stated[key]}: the table "
                                   "is of other runs; leave it out of the files given", src.path, f"$[{i}][\"{col}\"]")
        checked += 1
    if checked == len(rows):
        return f"{WHAT}; its {checked} rows agree with the runs given"
    return f"{WHAT}; {checked} of its {len(rows)} rows agree with the runs given, the others name runs not given"
