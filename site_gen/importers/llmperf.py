"""`sitegen import llmperf`: Ray LLMPerf's `token_benchmark_ray.py --results-dir` output, a run's
`<model>_<in>_<out>_summary.json` (results version "2023-08-31": the flattened `results_*`
figures) and `<model>_<in>_<out>_individual_responses.json` (one object per request) -> the
serving part of a schema 1.2 receipt.

Each summary is one load point: `num_concurrent_requests` requests in flight, every one sent as
soon as a slot frees (an unlimited rate at that concurrency). Its requests are the rows: those
whose `error_code` is null succeeded, as LLMPerf counts them. Every figure the summary states is
recomputed from the rows as LLMPerf computes it (pandas over the successful requests: linear
quantiles p25-p99, mean, min, max, sample standard deviation with n - 1): time to first token,
end-to-end latency, LLMPerf's inter-token latency (the request's gaps, its wait for the first token
included, over its output tokens), per-request output throughput, input and output tokens; and the
counts (requests started, errors, error rate, completed). LLMPerf keeps no start or end time: the
run's duration is the completed requests over `results_num_completed_requests_per_min`, and the
output throughput over that duration is checked. A summary without its individual responses keeps
its figures as stated ("check": "none"); a `results_*` figure sitegen has no rule for is kept as
stated and marked "not recomputed", never refused.

The receipt's per-request columns: TTFT and end-to-end latency in ms, TPOT as (end-to-end - TTFT)
/ (output tokens - 1); its `itl_ms` (a request's mean gap after the first token) is not what
LLMPerf records, so it is left empty and LLMPerf's own figure kept under its name. LLMPerf's token
counts are its own tokenizer's (a Llama tokenizer), not the server's. Rows are never paired across
sides: they are listed in the order they completed, not sent.
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
from site_gen.importers import common, inputs
from site_gen.importers import serving_common as sc
from site_gen.importers.vllm_bench import Run, source_root
from site_gen.receipts.parse import parse_text
from site_gen.importers.options import ImportResult, ServingOptions

METRICS = ("inter_token_latency_s", "ttft_s", "end_to_end_latency_s", "request_output_throughput_token_per_s",
           "number_input_tokens", "number_output_tokens")
STAT = re.compile(r"^results_(" + "|".join(METRICS) + r")_(?:quantiles_p([0-9]+)|(mean|min|max|stddev))$")
SUMMARY_KEYS = {"num_concurrent_requests", "results_num_completed_requests", "results_num_completed_requests_per_min"}
ROW_KEYS = ("error_code", "ttft_s", "end_to_end_latency_s", "inter_token_latency_s", "number_input_tokens",
            "number_output_tokens")
_STRING_OR_NAN = re.compile(r'("(?:[^"\\]|\\.)*")|\bNaN\b')


def _json(src: Any) -> Any:
    """The file's JSON. LLMPerf writes pandas' NaN (the standard deviation of one request) as a bare
    NaN, which JSON has not: read as null (never inside a string), everything else as strictly as any
    source."""
    try:
        return common.parse_json(src)
    except SitegenError as exc:
        if "NaN" not in exc.message:
            raise
    text = _STRING_OR_NAN.sub(lambda m: m.group(1) or "null", src.text)
    return parse_text(text, text.encode("utf-8", "surrogatepass"), src.path)


def kind(data: Any) -> str | None:
    """"summary", "responses", or None: told from the content, not the name."""
    if isinstance(data, dict) and SUMMARY_KEYS <= set(data):
        return "summary"
    if isinstance(data, list) and data and all(isinstance(r, dict) and {"ttft_s", "end_to_end_latency_s"} <= set(r)
                                               for r in data[:3]):
        return "responses"
    return None


def _wanted(path: Path) -> str | None:
    if path.name.endswith(("_summary.json", "_individual_responses.json")):
        return None
    return "not an LLMPerf summary or individual-responses file (by its name)" if path.suffix == ".json" else ""


def _number(v: Any) -> float | None:
    """A figure as LLMPerf writes it: a number, or a number as text (numpy integers pass through
    json.dump's `default=str`)."""
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        try:
            out = float(v)
        except ValueError:
            return None
        return out if math.isfinite(out) else None
    return None


def _rows(src: Any, data: list) -> dict[str, Any]:
    """The requests as arrays, every field checked at its place."""
    ok: list[bool] = []
    cols: dict[str, list[float]] = {k: [] for k in METRICS}
    for i, r in enumerate(data):
        at = f"$[{i}]"
        if not isinstance(r, dict):
            raise SitegenError("expected one object per request", src.path, at)
        missing = [k for k in ROW_KEYS if k not in r]
        if missing:
            raise SitegenError(f"request has no {', '.join(missing)}", src.path, at)
        good = r["error_code"] is None
        ok.append(good)
        for k in METRICS:
            v = r.get(k)
            if v is None and not good:
                cols[k].append(math.nan)
                continue
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
                raise SitegenError(f"'{k}' is {json.dumps(v)[:40]}: expected a finite number at least 0", src.path, f"{at}.{k}")
            if k.startswith("number_") and not float(v).is_integer():
                raise SitegenError(f"'{k}' is {v}: a token count is a whole number", src.path, f"{at}.{k}")
            cols[k].append(float(v))
    arrays = {k: np.array(v, dtype=float) for k, v in cols.items()}
    arrays["ok"] = np.array(ok, dtype=bool)
    late = arrays["ok"] & (arrays["ttft_s"] > arrays["end_to_end_latency_s"] + 1e-6)
    if late.any():
        i = int(np.argmax(late))
        raise SitegenError(f"time to first token {arrays['ttft_s'][i]} s above the request's end-to-end latency "
                           f"{arrays['end_to_end_latency_s'][i]} s", src.path, f"$[{i}].ttft_s")
    return arrays


def _stat(x: np.ndarray, q: str | None, name: str | None) -> float:
    """LLMPerf's figure of a series (pandas over the non-missing values): linear quantile, mean, min,
    max, or sample standard deviation."""
    x = x[~np.isnan(x)]
    if len(x) == 0 or (name == "stddev" and len(x) < 2):
        return math.nan
    if q is not None:
        return float(np.percentile(x, float(q)))
    if name == "mean":
        return float(np.mean(x))
    if name == "min":
        return float(np.min(x))
    if name == "max":
        return float(np.max(x))
    return float(np.std(x, ddof=1))


def _stated(src: Any, summary: dict, rows: dict | None, duration: float) -> tuple[list[dict], dict[str, str]]:
    """Every `results_*` figure the summary states, each recomputed from the rows (refused where one
    disagrees), checked against the summary's own counts, or kept as stated."""
    out, at = [], {}
    ok: Any = rows["ok"] if rows is not None else None
    for key, raw in summary.items():
        if not key.startswith("results_") or key == "results_error_code_frequency":
            continue
        value = _number(raw)
        if value is None:
            if raw is None:
                continue  # NaN in the file: a figure of too few requests; so is ours
            raise SitegenError(f"'{key}' is {json.dumps(raw)[:40]}, not a number", src.path, f"$.{key}")
        computed, check = None, "none" if rows is None else "rows"
        m = STAT.match(key)
        if m and rows is not None:
            computed = _stat(rows[m.group(1)][ok], m.group(2), m.group(3))
        elif key == "results_num_requests_started" and rows is not None:
            computed = float(len(ok))
        elif key == "results_number_errors" and rows is not None:
            computed = float((~ok).sum())
        elif key == "results_error_rate" and rows is not None:
            computed = float((~ok).sum() / len(ok)) if len(ok) else 0.0
        elif key == "results_num_completed_requests" and rows is not None:
            computed = float(ok.sum())
        elif key == "results_mean_output_throughput_token_per_s":
            if rows is not None:
                computed = float(rows["number_output_tokens"][ok].sum()) / duration
            else:
                mean_out = _number(summary.get("results_number_output_tokens_mean"))
                n = _number(summary.get("results_num_completed_requests"))
                if mean_out is not None and n is not None:
                    computed, check = mean_out * n / duration, "totals"
        elif not m:
            check = "not recomputed"  # the duration's own source, or a figure sitegen has no rule for
        if computed is not None and math.isnan(computed):
            raise SitegenError(f"'{key}' says {value}, but the rows give no value ({int(ok.sum())} successful requests)",
                               src.path, f"$.{key}")
        if computed is not None and not sc.agrees(value, computed, key):
            raise SitegenError(f"'{key}' says {raw}, but the " + ("requests in the individual responses give " if check == "rows"
                               else "summary's own mean output tokens × completed requests over its duration give ")
                               + f"{computed}", src.path, f"$.{key}")
        out.append({"key": key, "value": value, "check": check})
        at[key] = f"$.{key}"
    return out, at


def _columns(rows: dict) -> dict[str, list]:
    ok = rows["ok"]
    ttft, e2e, n_out = rows["ttft_s"], rows["end_to_end_latency_s"], rows["number_output_tokens"]
    with np.errstate(divide="ignore", invalid="ignore"):
        tpot = np.where(n_out > 1, (e2e - ttft) / np.maximum(n_out - 1, 1), np.nan)

    def ms(values: np.ndarray, keep: np.ndarray) -> list:
        return [sc.r6(v * 1000) if k else None for v, k in zip(values.tolist(), keep.tolist())]

    return {"ttft_ms": ms(ttft, ok), "tpot_ms": ms(tpot, ok & (n_out > 1)), "itl_ms": [None] * len(ok), "e2e_ms": ms(e2e, ok),
            "input_tokens": [0 if math.isnan(v) else int(v) for v in rows["number_input_tokens"].tolist()],
            "output_tokens": [int(v) if k else 0 for v, k in zip(n_out.tolist(), ok.tolist())],
            "error": (~ok).tolist()}


def read_run(summary_src: Any, summary: dict, responses_src: Any, responses: list | None) -> Run:
    where = "$"
    conc = summary.get("num_concurrent_requests")
    if not isinstance(conc, int) or isinstance(conc, bool) or conc < 1:
        raise SitegenError(f"num_concurrent_requests is {json.dumps(conc)[:40]}: expected a whole number at least 1",
                           summary_src.path, "$.num_concurrent_requests")
    n, per_min = _number(summary.get("results_num_completed_requests")), _number(summary.get("results_num_completed_requests_per_min"))
    if n is None or per_min is None or n <= 0 or per_min <= 0:
        raise SitegenError("no request completed (results_num_completed_requests and _per_min are 0): LLMPerf records no "
                           "duration then, and there is nothing to compare; leave this run out", summary_src.path,
                           "$.results_num_completed_requests")
    rows = _rows(responses_src, responses) if responses is not None else None
    if rows is not None and int(rows["ok"].sum()) != n:
        raise SitegenError(f"results_num_completed_requests says {n:g}, but {int(rows['ok'].sum())} requests of "
                           f"{responses_src.name} have no error_code: is it this run's individual responses?",
                           summary_src.path, "$.results_num_completed_requests")
    duration = n * 60.0 / per_min
    stated, stated_at = _stated(summary_src, summary, rows, duration)
    run = Run(summary_src, None, "llmperf", {"label": None}, anchor=where, stated_at=stated_at)
    run.rate, run.concurrency = "inf", conc
    sizes = [summary.get(k) for k in ("mean_input_tokens", "stddev_input_tokens", "mean_output_tokens", "stddev_output_tokens")]
    if all(isinstance(s, (int, float)) and not isinstance(s, bool) for s in sizes):
        run.workload = f"sonnet {sizes[0]:g}±{sizes[1]:g}→{sizes[2]:g}±{sizes[3]:g} tokens"
    else:
        run.workload = "sonnet prompts"
    run.protocol = ("llmperf", summary.get("version"))
    errors = _number(summary.get("results_number_errors"))
    rep: dict[str, Any] = {"duration_s": duration, "completed": int(n)}
    if rows is not None:
        rep["failed"] = int((~rows["ok"]).sum())
        rep["requests"] = _columns(rows)
        run.rows_src = responses_src
        run.rows_at = f"$ of {responses_src.name} (every request; error_code null where it succeeded)"
    elif errors is not None:
        rep["failed"] = int(errors)
    rep["stated"] = stated
    run.repeat = rep
    model = summary.get("model")
    if isinstance(model, str):
        run.env.put("model", model, f"{summary_src.name} $.model")
    run.run_date = sc.day_of(summary.get("timestamp"), summary_src.path, "$.timestamp")  # refused past the year 9999
    return run


def read_side(given: list[Path], root: Path, skipped: list[tuple[Path, str]]) -> list[Run]:
    """A side's runs: its summaries, each with the individual responses of the same name beside it
    (or, given one of each, with that one)."""
    picked = inputs.expand(given, _wanted, "LLMPerf summary (*_summary.json)")
    skipped.extend(picked.skipped)
    summaries: list[tuple[Any, Any]] = []
    responses: list[tuple[Any, Any]] = []
    for path, _ in picked.files:
        src = common.read_source(path, root)
        data = _json(src)
        k = kind(data)
        if k is None:
            raise SitegenError("not an LLMPerf file: a summary has num_concurrent_requests and results_num_completed_requests; "
                               "individual responses are a list of requests with ttft_s and end_to_end_latency_s", path, "$")
        (summaries if k == "summary" else responses).append((src, data))
    if not summaries:
        raise SitegenError("individual responses without their summary: pass the run's *_summary.json too (it holds the "
                           "concurrency and the model)", responses[0][0].path)
    used: set[int] = set()
    runs = []
    for src, data in summaries:
        stem = src.path.name[: -len("_summary.json")] if src.path.name.endswith("_summary.json") else None
        match = [i for i, (r, _) in enumerate(responses) if stem and r.path.parent == src.path.parent
                 and r.path.name == f"{stem}_individual_responses.json"]
        if not match and len(summaries) == 1 and len(responses) == 1:
            match = [0]
        if match:
            used.add(match[0])
            runs.append(read_run(src, data, *responses[match[0]]))
        else:
            runs.append(read_run(src, data, None, None))
    for i, (src, _) in enumerate(responses):
        if i not in used:
            why = ("individual responses of no summary given (a summary NAME_summary.json beside it pairs with "
                   "NAME_individual_responses.json)")
            skipped.append((src.path, why))
    return runs


def run_and_write(opts: ServingOptions) -> ImportResult:
    from site_gen.importers import serving_report

    if opts.sources:
        raise SitegenError(f"llmperf takes its files through --baseline and --candidate, not as SOURCE ({opts.sources[0]!r})",
                           opts.sources[0])
    files = {role: [Path(p) for p in (opts.side(role))] for role in ("baseline", "candidate")}
    if not files["candidate"]:
        raise SitegenError("name the candidate's LLMPerf results with --candidate (folders or *_summary.json files, with "
                           "the *_individual_responses.json beside them), and --baseline to compare two setups")
    root = source_root(files["baseline"] + files["candidate"])
    skipped: list[tuple[Path, str]] = []
    runs = {role: read_side(files[role], root, skipped) for role in files if files[role]}
    doc, prov = serving_report.build(
        runs, labels={"baseline": opts.label_baseline, "candidate": opts.label_candidate},
        stated={role: sc.stated_env(opts.stated(role), f"--set-{role}") for role in files},
        allow=set(opts.allow), attribution=opts.attribution, client="Ray LLMPerf (summary and individual responses)",
        notes=inputs.tested_note(skipped, root))
    return ImportResult(sc.write(stamp(doc, opts), Path(opts.output), prov, opts.force, opts.data_folder),
                        tuple(f"skipped {p}: {why}" for p, why in skipped))

