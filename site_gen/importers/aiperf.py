"""`sitegen import aiperf` and `sitegen import genai-perf`: NVIDIA AIPerf's and GenAI-Perf's
artifact folders -> the serving part of a schema 1.2 receipt. One folder (or one summary file with
its per-request file beside it) is one run, one load point.

AIPerf (read from its source, `aiperf/exporters/json_exporter.py`, `metrics/metric_dicts.py`,
`metrics/types/*.py`, `post_processors/record_export_results_processor.py`):
- `profile_export_aiperf.json`: each metric an object of statistics in its display unit (`unit`,
  `avg`, `p1`...`p99`, `min`, `max`, `std`, and in later releases `count` and `sum`) at the top level
  (0.2 and later, the shape GenAI-Perf writes), or under `records` with `tag` and `header` (0.1);
  `input_config` (the load: `loadgen.concurrency`, `loadgen.request_rate`; the model:
  `endpoint.model_names`), `start_time`.
- `profile_export.jsonl`: one request a line, `metadata` (`request_start_ns`, `request_end_ns`,
  `benchmark_phase`), `metrics` (each `{"value", "unit"}` in display units; `inter_chunk_latency`
  a list) and `error` (null when it succeeded).
Recomputed from the profiling requests without an error, as AIPerf computes them (numpy: linear
percentiles, population standard deviation): every statistic of every per-request metric
(`inter_chunk_latency` over every gap of every request), the request and error counts, the
token totals, the duration (first request sent to last response, from the requests' own
timestamps, to the microsecond) and the throughputs over it. Goodput and any metric sitegen has no
rule for are kept as stated and marked "not recomputed"; none is refused for it.

GenAI-Perf (`genai_perf/metrics/statistics.py`, `profile_data_parser/llm_profile_data_parser.py`):
- `profile_export_genai_perf.json`: the same statistics objects, `input_config` (its arguments).
- `profile_export.json`, perf_analyzer's: `experiments[].requests[]`, each with `timestamp` and
  `response_timestamps` (ns) and the raw `response_outputs`.
Recomputed (responses without content left out as GenAI-Perf leaves them out; a request with none
left is skipped): request latency, time to first and to second token, and the request throughput
over first request to last response (every request counted, as GenAI-Perf counts them). Token
counts need GenAI-Perf's tokenizer: input and output sequence lengths, inter-token latency and token
throughputs are kept as stated, "not recomputed", and the requests are checked but not kept as
rows (a row needs its token counts).

The receipt's per-request columns (AIPerf): TTFT, end-to-end latency (request latency), TPOT as
(end-to-end - TTFT) / (output tokens - 1), which is AIPerf's inter-token latency, and ITL as the
mean of the request's own chunk gaps; a summary of every chunk gap. AIPerf's ITL is the receipt's
TPOT. Rows are never paired across sides.
"""
from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np

from site_gen.importers.common import stamp
from site_gen.core.errors import SitegenError
from site_gen.importers import common, genai_perf, inputs
from site_gen.importers import profile_export as pe
from site_gen.importers import serving_common as sc
from site_gen.importers.vllm_bench import Run, source_root
from site_gen.importers.vllm_rows import gap_summary
from site_gen.importers.options import ImportResult, ServingOptions

SUMS = {"total_osl": "output_sequence_length", "total_isl": "input_sequence_length", "total_output_tokens": "output_token_count",
        "total_reasoning_tokens": "reasoning_token_count", "total_error_isl": "error_isl"}
NEEDS_TOKENIZER = ("input_sequence_length", "output_sequence_length", "inter_token_latency", "output_token_throughput",
                   "output_token_throughput_per_user", "output_token_throughput_per_request")
LABELS = {"aiperf": "NVIDIA AIPerf (profile_export_aiperf.json and profile_export.jsonl)",
          "genai-perf": "NVIDIA GenAI-Perf (profile_export_genai_perf.json and perf_analyzer's profile_export.json)"}


def _wanted(fmt: str):
    summary = "_aiperf.json" if fmt == "aiperf" else "_genai_perf.json"

    def wanted(path: Path) -> str | None:
        name = path.name
        if name.endswith(summary):
            return None
        if name == "inputs.json":
            return "the inputs the client sent, not results"
        if name.endswith((".csv", "_telemetry_data.json")):
            return "the same figures as the JSON summary, as CSV" if name.endswith(".csv") else "GPU telemetry, not read"
        if fmt == "aiperf" and name.endswith(".jsonl"):
            return None
        if fmt == "genai-perf" and name.endswith(".json"):
            return None
        return f"not an {fmt} export (by its name)" if path.suffix in (".json", ".jsonl") else ""
    return wanted


# -- AIPerf's per-request records ----------------------------------------------------------------

def _records(src: Any) -> dict[str, Any]:
    """The profiling requests of profile_export.jsonl: per metric the values of those that
    succeeded (in its unit), the errors' input lengths, the timestamps, and the rows."""
    ok_rows: list[dict] = []
    err_rows: list[dict] = []
    units: dict[str, Any] = {}
    for line, rec in inputs.read_jsonl(src):
        meta = rec.get("metadata")
        if not isinstance(meta, dict) or "metrics" not in rec:
            raise SitegenError("expected an AIPerf record (metadata, metrics, error)", src.path, f"line {line}")
        if meta.get("benchmark_phase", "profiling") != "profiling":
            continue
        metrics = rec.get("metrics") or {}
        if not isinstance(metrics, dict):
            raise SitegenError("metrics is not an object", src.path, f"line {line} $.metrics")
        values = {}
        for tag, m in metrics.items():
            if not isinstance(m, dict) or "value" not in m:
                raise SitegenError(f"metric {tag!r} has no value", src.path, f"line {line} $.metrics.{tag}")
            v = m["value"]
            vals = v if isinstance(v, list) else [v]
            if not all(sc.is_number(x) and math.isfinite(x) and x >= 0 for x in vals):
                raise SitegenError(f"metric {tag!r} is {json.dumps(v)[:40]}: expected numbers at least 0", src.path,
                                   f"line {line} $.metrics.{tag}.value")
            if tag in units and units[tag] != m.get("unit"):
                raise SitegenError(f"metric {tag!r} in {m.get('unit')!r} here but {units[tag]!r} before", src.path,
                                   f"line {line} $.metrics.{tag}.unit")
            units[tag] = m.get("unit")
            values[tag] = v
        start: Any = meta.get("request_start_ns")
        end: Any = meta.get("request_end_ns")
        for key, v in (("request_start_ns", start), ("request_end_ns", end)):
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise SitegenError(f"{key} is {json.dumps(v)[:40]}: expected whole nanoseconds since 1970", src.path,
                                   f"line {line} $.metadata.{key}")
        if end < start:
            raise SitegenError(f"request_end_ns {end} is before request_start_ns {start}", src.path,
                               f"line {line} $.metadata.request_end_ns")
        entry = {"line": line, "values": values, "start": start, "end": end}
        (ok_rows if rec.get("error") is None else err_rows).append(entry)
    arrays: dict[str, np.ndarray] = {}
    for tag in units:
        if tag == "error_isl":
            vals = [r["values"][tag] for r in err_rows if tag in r["values"]]
        else:
            vals = []
            for r in ok_rows:
                v = r["values"].get(tag)
                if v is not None:
                    vals.extend(v if isinstance(v, list) else [v])
        arrays[tag] = np.array(vals, dtype=float)
    return {"ok": ok_rows, "errors": err_rows, "arrays": arrays, "units": units}


def _aiperf_stated(src: Any, metrics: dict, base: str, rec: Any) -> tuple[list[dict], dict[str, str], float | None]:
    """Every statistic of the summary, recomputed from the records where AIPerf's rule is known;
    and the duration the records give (s)."""
    out, at = [], {}
    duration = None
    if rec is not None and rec["ok"]:
        starts = [r["start"] for r in rec["ok"]]
        ends = [r["end"] for r in rec["ok"]]
        duration = (max(ends) - min(starts)) / 1e9 if max(ends) > min(starts) else None
    for tag, entry in metrics.items():
        unit = entry.get("unit") if isinstance(entry.get("unit"), str) else None  # a unit is a name, or none
        for stat, value in entry.items():
            if stat not in pe.STATS or value is None:
                continue
            key, path = f"{tag}.{stat}", f"{base}.{tag}.{stat}"
            if not sc.is_number(value) or not math.isfinite(value):
                raise SitegenError(f"{key} is {json.dumps(value)[:40]}, not a finite number", src.path, path)
            computed, check, tol_key = None, ("none" if rec is None else "rows"), key
            if rec is not None:
                arrays, units = rec["arrays"], rec["units"]
                if tag in arrays and units.get(tag) == unit:
                    computed = pe.stat(arrays[tag], stat)
                    tol_key = key + ("_ms" if unit == "ms" else "")
                elif tag in arrays and unit in pe.TO_MS and units.get(tag) in pe.TO_MS:
                    computed = pe.stat(arrays[tag] * pe.TO_MS[units[tag]] / pe.TO_MS[unit], stat)
                    tol_key = key + "_ms"
                elif tag == "request_count" and stat in ("avg", "min", "max"):
                    computed = float(len(rec["ok"]))
                elif tag == "error_request_count" and stat in ("avg", "min", "max"):
                    computed = float(len(rec["errors"]))
                elif tag in SUMS and stat in ("avg", "min", "max"):
                    computed = float(rec["arrays"].get(SUMS[tag], np.array([])).sum())
                elif tag in ("benchmark_duration", "request_throughput", "output_token_throughput") and stat == "avg" \
                        and duration is not None and unit in (None, "sec", "s", "requests/sec", "tokens/sec"):
                    total_osl = float(rec["arrays"].get("output_sequence_length", np.array([])).sum())
                    computed = {"benchmark_duration": duration, "request_throughput": len(rec["ok"]) / duration,
                                "output_token_throughput": total_osl / duration}[tag]
                    tol_key = "duration"
                elif tag == "min_request_timestamp" and stat in ("avg", "min", "max") and unit == "ns":
                    computed, tol_key = float(min(r["start"] for r in rec["ok"])), "timestamp"
                elif tag == "max_response_timestamp" and stat in ("avg", "min", "max") and unit == "ns":
                    computed, tol_key = float(max(r["end"] for r in rec["ok"])), "timestamp"
                else:
                    check = "not recomputed"
            if computed is not None and (math.isnan(computed) or not pe.agrees(float(value), computed, tol_key)):
                raise SitegenError(f"{key} says {value}, but the profiling requests of {rec_name(rec)} give {computed}",
                                   src.path, path)
            if tag in ("min_request_timestamp", "max_response_timestamp"):
                continue  # clock readings (ns since 1970), checked above, not figures to keep
            out.append({"key": key, "value": value, "check": check})
            at[key] = path
    return out, at, duration


def rec_name(rec: dict) -> str:
    return rec.get("name", "the per-request file")


def _aiperf_columns(rec: dict) -> tuple[dict[str, list], dict | None]:
    """The successful requests, then the failed, as the receipt's columns; and every chunk gap's summary."""
    unit = rec["units"]
    scale = {t: pe.TO_MS.get(unit.get(t) or "ms", 1.0) for t in unit}
    cols: dict[str, list] = {k: [] for k in ("ttft_ms", "tpot_ms", "itl_ms", "e2e_ms", "input_tokens", "output_tokens", "error")}
    for r in sorted(rec["ok"] + rec["errors"], key=lambda r: (r["start"], r["line"])):
        v = r["values"]
        failed = r in rec["errors"]
        isl = v.get("input_sequence_length", v.get("error_isl", 0))
        cols["input_tokens"].append(int(isl) if float(isl).is_integer() else round(isl))
        cols["error"].append(failed)
        if failed:
            cols["output_tokens"].append(0)
            for k in ("ttft_ms", "tpot_ms", "itl_ms", "e2e_ms"):
                cols[k].append(None)
            continue
        osl = v.get("output_sequence_length", 0)
        cols["output_tokens"].append(int(osl))
        e2e = v["request_latency"] * scale["request_latency"] if "request_latency" in v else None
        ttft = v["time_to_first_token"] * scale["time_to_first_token"] if "time_to_first_token" in v else None
        if ttft is None:  # not streamed: the whole response is its first token
            ttft = e2e
        gaps = v.get("inter_chunk_latency")
        cols["ttft_ms"].append(sc.r6(ttft))
        cols["e2e_ms"].append(sc.r6(e2e))
        cols["tpot_ms"].append(sc.r6((e2e - ttft) / (osl - 1)) if e2e is not None and ttft is not None and osl > 1 else None)
        cols["itl_ms"].append(sc.r6(float(np.mean(gaps)) * scale["inter_chunk_latency"]) if isinstance(gaps, list) and gaps else None)
    gaps = rec["arrays"].get("inter_chunk_latency")
    summary = gap_summary(gaps * scale.get("inter_chunk_latency", 1.0) / 1000) if gaps is not None else None
    return cols, summary


# -- GenAI-Perf's perf_analyzer export -------------------------------------------------------------

# -- a run ----------------------------------------------------------------------------------------

def _aiperf_repeat(run: Run, src: Any, data: dict, metrics: dict, base: str, other: Any) -> tuple[dict, str | None]:
    """An AIPerf run's repeat (from its requests where its JSON lines are given) and its date."""
    rec = _records(other) if other is not None else None
    if rec is not None:
        rec["name"] = other.name
    stated, run.stated_at, duration = _aiperf_stated(src, metrics, base, rec)
    rep: dict[str, Any] = {}
    if rec is not None:
        if duration is None:
            raise SitegenError("no profiling request succeeded, or they all began and ended at once: the run's duration "
                               "cannot be told", other.path)
        cols, gaps = _aiperf_columns(rec)
        rep.update(duration_s=duration, completed=len(rec["ok"]), failed=len(rec["errors"]), requests=cols)
        if gaps is not None:
            rep["itl_gaps"] = gaps
        run.rows_src, run.rows_at = other, f"every profiling request of {other.name} (error null where it succeeded)"
    else:
        count: Any = (metrics.get("request_count") or {}).get("avg")
        dur: Any = (metrics.get("benchmark_duration") or {}).get("avg")
        if not (sc.is_number(dur) and dur > 0 and sc.is_number(count)):
            raise SitegenError("the summary states no benchmark_duration and request_count: pass the profile_export.jsonl "
                               "beside it", src.path, base)
        unit = (metrics.get("benchmark_duration") or {}).get("unit") or "sec"
        rep.update(duration_s=float(dur) * pe.TO_MS.get(unit, 1000.0) / 1000, completed=int(count))
        errs: Any = (metrics.get("error_request_count") or {}).get("avg")
        if sc.is_number(errs):
            rep["failed"] = int(errs)
    rep["stated"] = stated
    return rep, data["start_time"][:10] if isinstance(data.get("start_time"), str) else None


def _genai_repeat(run: Run, src: Any, cfg: dict, metrics: dict, base: str, other: Any, other_data: Any) -> tuple[dict, str | None]:
    """A GenAI-Perf run's repeat (checked against perf_analyzer's requests where given) and its date."""
    pa = genai_perf.requests(other, other_data, (run.rate, run.concurrency)) if other is not None else None
    stated, run.stated_at = genai_perf.stated(src, metrics, base, pa, other.name if other is not None else "")
    if pa is not None:
        run.rows_src = other
        return ({"duration_s": pa["duration"], "completed": pa["kept"], "failed": pa["requests"] - pa["kept"],
                 "stated": stated}, sc.day_of(pa["start"] / 1e9, other.path, f"$.experiments[{pa['pick']}].requests"))
    thr: Any = (metrics.get("request_throughput") or {}).get("avg")
    count: Any = (metrics.get("request_count") or {}).get("avg") or pe.find(cfg, "request_count")
    if not (sc.is_number(thr) and thr > 0 and sc.is_number(count) and count > 0):
        raise SitegenError("the summary states no request count to know its duration by: pass perf_analyzer's "
                           "profile_export.json beside it", src.path, base)
    return {"duration_s": float(count) / float(thr), "completed": int(count), "stated": stated}, None


def read_run(fmt: str, src: Any, data: dict, other: Any, other_data: Any) -> Run:
    metrics, base = pe.metrics_of(data)
    cfg: dict[str, Any] = data["input_config"] if isinstance(data.get("input_config"), dict) else {}
    run = Run(src, None, fmt, {"label": None})
    run.rate, run.concurrency = pe.load(cfg)
    model: Any
    if fmt == "aiperf":
        run.repeat, date_stamp = _aiperf_repeat(run, src, data, metrics, base, other)
        endpoint = cfg.get("endpoint") if isinstance(cfg.get("endpoint"), dict) else cfg
        model = pe.find(endpoint, "model_names") or pe.find(cfg, "model_names")
    else:
        run.repeat, date_stamp = _genai_repeat(run, src, cfg, metrics, base, other, other_data)
        model = pe.find(cfg, "model") or pe.find(cfg, "model_names")
    if isinstance(model, list) and model and isinstance(model[0], str):
        model = model[0]
    if isinstance(model, str):
        run.env.put("model", model, f"{src.name} $.input_config")
    if date_stamp and re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", date_stamp):
        run.run_date = date_stamp
    run.workload = pe.workload(cfg)
    run.protocol = (fmt, pe.find(cfg, "streaming"))
    return run


def read_side(fmt: str, given: list[Path], root: Path, skipped: list[tuple[Path, str]]) -> list[Run]:
    name = "profile_export_aiperf.json" if fmt == "aiperf" else "profile_export_genai_perf.json"
    picked = inputs.expand(given, _wanted(fmt), f"{fmt} summary ({name})")
    skipped.extend(picked.skipped)
    summaries: list[tuple[Any, Any]] = []
    others: list[tuple[Any, Any]] = []
    for path, _ in picked.files:
        src = common.read_source(path, root)
        if fmt == "aiperf" and path.name.endswith(".jsonl"):
            others.append((src, None))
            continue
        data = inputs.read_json(src)
        if pe.is_summary(data):
            summaries.append((src, data))
        elif fmt == "genai-perf" and isinstance(data, dict) and "experiments" in data:
            others.append((src, data))
        else:
            raise SitegenError(f"not a {fmt} export: a summary has metrics such as time_to_first_token with avg"
                               + (", perf_analyzer's export has experiments" if fmt == "genai-perf" else ""), path, "$")
    if not summaries:
        raise SitegenError(f"a per-request file without its summary: pass the {fmt} summary JSON too", others[0][0].path)
    used: set[int] = set()
    runs = []
    suffix = "_aiperf.json" if fmt == "aiperf" else "_genai_perf.json"
    for src, data in summaries:
        stem = src.path.name[: -len(suffix)] if src.path.name.endswith(suffix) else None
        want = f"{stem}.jsonl" if fmt == "aiperf" else f"{stem}.json"
        match = [i for i, (o, _) in enumerate(others) if o.path.parent == src.path.parent and o.path.name == want]
        if not match:
            match = [i for i, (o, _) in enumerate(others) if o.path.parent == src.path.parent]
            match = match if len(match) == 1 else []
        if match:
            used.add(match[0])
            runs.append(read_run(fmt, src, data, *others[match[0]]))
        else:
            runs.append(read_run(fmt, src, data, None, None))
    for i, (o, _) in enumerate(others):
        if i not in used:
            skipped.append((o.path, "a per-request file of no summary given (it pairs with the summary in its folder)"))
    return runs


def run_and_write(opts: ServingOptions) -> ImportResult:
    from site_gen.importers import serving_report

    fmt = opts.format
    if opts.sources:
        raise SitegenError(f"{fmt} takes its folders through --baseline and --candidate, not as SOURCE ({opts.sources[0]!r})",
                           opts.sources[0])
    files = {role: [Path(p) for p in (opts.side(role))] for role in ("baseline", "candidate")}
    if not files["candidate"]:
        raise SitegenError(f"name the candidate's {fmt} artifact folders with --candidate (one a load point), and --baseline "
                           "to compare two setups")
    root = source_root(files["baseline"] + files["candidate"])
    skipped: list[tuple[Path, str]] = []
    runs = {role: read_side(fmt, files[role], root, skipped) for role in files if files[role]}
    notes = inputs.tested_note(skipped, root)
    if fmt == "genai-perf" and any(r.rows_src is None and any(s["check"] == "rows" for s in r.repeat["stated"])
                                   for rs in runs.values() for r in rs):
        notes.append({"label": "Requests", "text": "perf_analyzer's per-request file was read and checked against the summary; "
                      "its requests are not kept as rows, for it has no token counts (GenAI-Perf counts them with its tokenizer)"})
    doc, prov = serving_report.build(
        runs, labels={"baseline": opts.label_baseline, "candidate": opts.label_candidate},
        stated={role: sc.stated_env(opts.stated(role), f"--set-{role}") for role in files},
        allow=set(opts.allow), attribution=opts.attribution, client=LABELS[fmt], notes=notes)
    return ImportResult(sc.write(stamp(doc, opts), Path(opts.output), prov, opts.force, opts.data_folder),
                        tuple(f"skipped {p}: {why}" for p, why in skipped))
