"""`sitegen import vllm-sweep`: the output folder of `vllm bench sweep serve` (read from vLLM's
`vllm/benchmarks/sweep/serve.py` and `param_sweep.py`) -> the serving part of a schema 1.2 receipt.

The sweep runs the server once per server setting (`--serve-params`) and the client once per
client setting (`--bench-params`), `--num-runs` times each, into
`EXPERIMENT/SERVE-<setting>-BENCH-<setting>/run=<N>.json` (a `vllm bench serve --save-result` file
with the settings and `run_number` added), `summary.json` (the combination's runs as a list),
`warmup.json` (a warm-up run), `run=<N>.failure.json` (a run that failed), and `summary.csv`
beside the combinations (every run as a table).

Each `run=N.json` is read as `vllm-bench` reads a result (its load from its own request rate and
maximum concurrency, every figure recomputed from its rows where it has them, or checked against
its totals); the runs of one combination are repeats of its load point. A side is one server
setting: a folder holding several is refused with the way to name one. Each combination's
`summary.json` must hold exactly its runs (a run it holds otherwise refuses the import); the
warm-up, failed runs and the CSV table are named as skipped, with why.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from site_gen.importers.common import stamp
from site_gen.core.errors import SitegenError
from site_gen.importers import common, inputs
from site_gen.importers import serving_common as sc
from site_gen.importers.vllm_bench import Run, read_run, source_root
from site_gen.importers.options import ImportResult, ServingOptions

RUN = re.compile(r"run=([0-9]+)\.json")


def _wanted(path: Path) -> str | None:
    name = path.name
    if RUN.fullmatch(name) or name == "summary.json":
        return None
    if name == "warmup.json":
        return "the warm-up run before the measured ones, not measured"
    if name.endswith(".failure.json"):
        return FAILED
    if name == "summary.csv":
        return "every run of the sweep as a table (the same figures as the run files)"
    return "not a file of vllm bench sweep serve (run=N.json, summary.json)" if path.suffix in (".json", ".csv") else ""


FAILED = "a run that failed"


def _failure(path: Path, root: Path) -> str:
    """Why a run failed, as its failure record says."""
    try:
        data = inputs.read_json(common.read_source(path, root))
    except SitegenError as exc:
        return f"{FAILED}; its failure record cannot be read ({exc.message[:80]})"
    if not isinstance(data, dict):
        return FAILED
    return f"{FAILED}, {str(data.get('error_type'))[:60]}: {str(data.get('error'))[:200]}"


def setting(folder: str) -> tuple[str, str]:
    """(server setting, client setting) of a combination's folder name `SERVE-a-BENCH-b`."""
    serve, bench = "", folder
    if folder.startswith("SERVE-"):
        serve, _, bench = folder[len("SERVE-"):].partition("-BENCH-")
    elif folder.startswith("BENCH-"):
        bench = folder[len("BENCH-"):]
    return serve, bench


def read_side(role: str, given: list[Path], root: Path, skipped: list[tuple[Path, str]]) -> list[Run]:
    picked = inputs.expand(given, _wanted, "run of vllm bench sweep serve (SERVE-…-BENCH-…/run=N.json)")
    skipped.extend((p, _failure(p, root) if why == FAILED else why) for p, why in picked.skipped)
    runs: list[Run] = []
    summaries: list[tuple[Any, Any]] = []
    for path, _ in picked.files:
        src: Any = common.read_source(path, root)  # a source as serving_common's readers take it
        records = sc.json_records(src, allow_infinity=True)
        if path.name == "summary.json":
            summaries.append((src, records[0][1] if len(records) == 1 else None))
            continue
        if len(records) != 1 or not isinstance(records[0][1], dict):
            raise SitegenError("expected one vLLM result object (a run of the sweep)", path)
        rec = records[0][1]
        run = read_run(src, None, rec)
        number = RUN.fullmatch(path.name)
        if number and isinstance(rec.get("run_number"), int) and rec["run_number"] != int(number.group(1)):
            raise SitegenError(f"run_number is {rec['run_number']}, but the file is {path.name}", path, "$.run_number")
        runs.append(run)
    if not runs:
        raise SitegenError("no run=N.json among the files given", given[0])
    settings = sorted({setting(r.src.path.parent.name)[0] for r in runs})
    if len(settings) > 1:
        shown = ", ".join(f"SERVE-{s}" if s else "(none)" for s in settings[:6])
        raise SitegenError(f"the {role} side holds {len(settings)} server settings ({shown}): a side is one setting; name one "
                           f"setting's folders on each side, e.g. --baseline EXPERIMENT/SERVE-{settings[0]}-* --candidate "
                           f"EXPERIMENT/SERVE-{settings[1]}-*", given[0])
    for src, data in summaries:
        _check_summary(src, data, [r for r in runs if r.src.path.parent == src.path.parent])
        skipped.append((src.path, "the combination's runs as one list; it holds exactly the run files given"))
    for r in runs:  # the server setting names the side, unless its runs carry a label of their own
        serve = setting(r.src.path.parent.name)[0]
        if serve:
            r.env.put("command", f"vllm serve with {serve}", f"{r.src.name} (the sweep's server setting, by its folder)")
        r.rec = {**r.rec, "label": r.rec.get("label") or (serve or None)}
    return runs


def _number_key(value: Any) -> Any:
    """A run number as a key: itself when it can be one, else its JSON text (a list or an object)."""
    return value if value is None or isinstance(value, (int, float, str)) else json.dumps(value, sort_keys=True)


def _check_summary(src: Any, data: Any, runs: list[Run]) -> None:
    """A combination's summary.json is the list of its runs as run=N.json holds them."""
    if not isinstance(data, list) or not all(isinstance(x, dict) for x in data):
        raise SitegenError("expected the list of the combination's runs", src.path, "$")
    mine = {_number_key(r.rec.get("run_number")): r for r in runs}
    for i, entry in enumerate(data):
        n = entry.get("run_number")
        run = mine.get(_number_key(n))
        if run is None:
            raise SitegenError(f"run_number {n} is not among the run files of its folder: give its run={n}.json too, or "
                               "leave summary.json out", src.path, f"$[{i}].run_number")
        if entry != run.rec:
            key = next((k for k in sorted(set(entry) | set(run.rec)) if entry.get(k) != run.rec.get(k)), "?")
            raise SitegenError(f"differs from {run.src.path.name} at '{key}' ({str(entry.get(key))[:40]} against "
                               f"{str(run.rec.get(key))[:40]}): the summary is of other runs", src.path, f"$[{i}]")
    missing = sorted(set(mine) - {e.get("run_number") for e in data}, key=str)
    if missing:
        raise SitegenError(f"holds no entry for run {missing[0]}, whose run file is given: the summary is of other runs",
                           src.path, "$")


def run_and_write(opts: ServingOptions) -> ImportResult:
    from site_gen.importers import serving_report

    if opts.sources:
        raise SitegenError(f"vllm-sweep takes its folders through --baseline and --candidate, not as SOURCE ({opts.sources[0]!r})",
                           opts.sources[0])
    files = {role: [Path(p) for p in (opts.side(role))] for role in ("baseline", "candidate")}
    if not files["candidate"]:
        raise SitegenError("name the candidate's sweep folder with --candidate (EXPERIMENT, or its SERVE-…-BENCH-… folders), "
                           "and --baseline for another server setting")
    root = source_root(files["baseline"] + files["candidate"])
    skipped: list[tuple[Path, str]] = []
    runs = {role: read_side(role, files[role], root, skipped) for role in files if files[role]}
    doc, prov = serving_report.build(
        runs, labels={"baseline": opts.label_baseline, "candidate": opts.label_candidate},
        stated={role: sc.stated_env(opts.stated(role), f"--set-{role}") for role in files},
        allow=set(opts.allow), attribution=opts.attribution, client="vLLM bench sweep serve (result JSON of each run)",
        notes=inputs.tested_note(skipped, root))
    return ImportResult(sc.write(stamp(doc, opts), Path(opts.output), prov, opts.force, opts.data_folder),
                        tuple(f"skipped {p}: {why}" for p, why in skipped))
