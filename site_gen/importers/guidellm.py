"""`sitegen import guidellm`: GuideLLM's `benchmarks.json` -> the serving part of a schema 1.2
receipt. Report version 2 as release 0.8.1 writes it (`metadata.version` 2; read from the
package's `guidellm/benchmark/schemas/` and `guidellm/schemas/base/`), and report version 1 as
releases 0.5 and 0.6 write it (`metadata.version` 1), or 0.4 before the version was written (no
`metadata`; `args` and `benchmarks`): the same fields, read from those releases' source
(`benchmark/schemas/generative/metrics.py` `GenerativeMetrics.compile`), each by its own rules.
A file of GuideLLM 0.3 or earlier (benchmarks of another shape) is refused, naming the versions
read.

Each benchmark of the file is one load point (its strategy: synchronous is concurrency 1,
concurrent N streams is concurrency N, throughput is an unlimited rate, constant and poisson a
request rate). Only the requests GuideLLM itself counts are kept: those whose span meets the
benchmark's measurement window (`start_time`..`end_time`, after warm-up and before cool-down: a
request counts when it ends at or after the start and starts at or before the end), as its
`GenerativeMetrics.compile` selects them. Its stated distributions of the successful requests
(request latency, time to first token, inter-token latency, time per output token, prompt and
output tokens: mean, median, standard deviation, min, max, count and every percentile) are
recomputed from those rows with GuideLLM's own estimator (each value weighted, as it weights them,
percentiles the smallest value whose cumulative weight reaches the quantile) and must agree, or the
import is refused. A file that keeps only a sample of its requests (`--sample-requests`) cannot be
recomputed and is refused.

GuideLLM's names differ from vLLM's: its inter-token latency, (last token - first token) / (output
tokens - 1), is the receipt's `tpot_ms`; the receipt's `itl_ms` is the mean gap between its
streaming iterations; its time per output token (which counts the first token's wait) is checked
against the file's per-request values, not kept. Its rows are never paired across sides: GuideLLM
keeps no identity of the prompts, and each side's window selects its own requests.
"""
from __future__ import annotations

from site_gen.importers.common import stamp

import math
from pathlib import Path
from typing import Any

import numpy as np

from site_gen.core.errors import SitegenError
from site_gen.importers import serving_common as sc
from site_gen.importers.vllm_bench import Run, source_root
from site_gen.importers.options import ImportResult, ServingOptions

PERCENTILES = {"p001": 0.001, "p01": 0.01, "p05": 0.05, "p10": 0.1, "p25": 0.25, "p50": 0.5, "p75": 0.75, "p90": 0.9,
               "p95": 0.95, "p99": 0.99, "p999": 0.999}
STATS = ("mean", "median", "std_dev", "min", "max", "count")
NOT_RECOMPUTED = ("requests_per_second", "request_concurrency", "output_tokens_per_second", "tokens_per_second",
                  "prompt_tokens_per_second")


def _get(node: Any, path: list, src: sc.Source, where: str, kind=dict) -> Any:
    for key in path:
        if not isinstance(node, dict) or key not in node:
            raise SitegenError(f"no {'.'.join(map(str, path))}", src.path, where + "".join(f".{k}" for k in path))
        node = node[key]
    if not isinstance(node, kind) or (kind in (int, float, (int, float)) and isinstance(node, bool)):
        raise SitegenError(f"{'.'.join(map(str, path))} is {str(node)[:40]!r}, not the expected kind", src.path,
                           where + "".join(f".{k}" for k in path))
    return node


def distribution(values: np.ndarray, weights: np.ndarray) -> dict[str, float]:
    """GuideLLM's DistributionSummary.from_values: equal values merged, zero weights dropped,
    weights normalised to probabilities; moments of that distribution; percentile q is the first
    value whose cumulative probability reaches q; count is the weights' sum."""
    count = round(float(weights.sum()))
    if len(values) == 0:
        return {"mean": 0.0, "median": 0.0, "std_dev": 0.0, "min": 0.0, "max": 0.0, "count": 0,
                **dict.fromkeys(PERCENTILES, 0.0)}
    order = np.argsort(values, kind="stable")
    v, w = values[order], weights[order]
    uniq, inverse = np.unique(v, return_inverse=True)
    comb = np.zeros_like(uniq, dtype=float)
    np.add.at(comb, inverse, w)
    keep = comb > 0
    uniq, comb = uniq[keep], comb[keep]
    if comb.sum() <= 1e-6:
        comb = np.ones_like(uniq)
    p = comb / comb.sum()
    cdf = np.cumsum(p)
    pct = {k: float(uniq[min(int(np.searchsorted(cdf, q, side="left")), len(uniq) - 1)]) for k, q in PERCENTILES.items()}
    mean = float(np.sum(uniq * p))
    return {"mean": mean, "median": pct["p50"], "std_dev": math.sqrt(float(np.sum((uniq - mean) ** 2 * p))),
            "min": float(uniq[0]), "max": float(uniq[-1]), "count": count, **pct}


def _in_window(req: dict, start: float, end: float, end_key: str = "request_end_time") -> bool:
    timings = (req.get("info") or {}).get("timings") or {}
    stop = req.get(end_key) if end_key == "request_end_time" else timings.get(end_key)
    if not sc.is_number(stop):
        return False
    begin = req.get("request_start_time")
    begin = begin if sc.is_number(begin) else stop
    return stop >= start and begin <= end


def _load(strategy: dict, src: sc.Source, where: str) -> tuple[Any, int | None]:
    kind = strategy.get("type_")
    mc = strategy.get("max_concurrency") if isinstance(strategy.get("max_concurrency"), int) else None
    if kind == "synchronous":
        return "inf", 1
    if kind == "concurrent":
        streams = strategy.get("streams")
        if not isinstance(streams, int) or isinstance(streams, bool) or streams < 1:
            raise SitegenError("a concurrent strategy without a whole number of streams", src.path, where + ".streams")
        return "inf", streams
    if kind == "throughput":
        return "inf", mc
    if kind in ("constant", "poisson"):
        rate = strategy.get("rate")
        if not sc.is_number(rate) or not rate > 0 or not math.isfinite(rate):
            raise SitegenError(f"a {kind} strategy without a positive rate", src.path, where + ".rate")
        return (int(rate) if float(rate).is_integer() else float(rate)), mc
    raise SitegenError(f"strategy {kind!r} is not one this importer reads (synchronous, concurrent, throughput, "
                       "constant, poisson)", src.path, where + ".type_")


def _num(req: dict, key: str) -> float | None:
    v = req.get(key)
    return float(v) if sc.is_number(v) and math.isfinite(v) else None


def _benchmark(src: sc.Source, report: dict, i: int, b: Any, version: int = 2) -> Run:
    """One benchmark of the file: its requests inside GuideLLM's measurement window as rows, every
    figure it states recomputed from them (refused where one disagrees), and its setup."""
    where = f"$.benchmarks[{i}]"
    if not isinstance(b, dict) or b.get("type_") != "generative_benchmark":
        raise SitegenError("expected a generative_benchmark", src.path, where)
    cfg = _get(b, ["config"], src, where)
    rate, conc = _load(_get(cfg, ["strategy"], src, where + ".config"), src, where + ".config.strategy")
    start = _get(b, ["start_time"], src, where, (int, float))
    end = _get(b, ["end_time"], src, where, (int, float))
    if not end > start:
        raise SitegenError(f"end_time {end} is not after start_time {start}", src.path, where + ".end_time")
    metrics = _get(b, ["metrics"], src, where)
    rows = _all_requests(b, src, where)
    counted = [r for r in rows if _in_window(r[2], start, end)]
    by_status = _check_totals(counted, cfg, metrics, src, where)
    counted.sort(key=lambda r: (r[2].get("request_start_time") or 0, r[0], r[1]))
    cols, raw = _columns(counted, src, where)
    series = _series(rows, raw, start, end) if version >= 2 else _series_v1(raw)
    stated, stated_at = _stated(series, metrics, src, where)
    for s in ("successful", "errored", "incomplete"):
        stated.append({"key": f"request_totals.{s}", "value": by_status[s], "check": "rows"})
        stated_at[f"request_totals.{s}"] = f"$.metrics.request_totals.{s}"
    run = Run(src, None, "guidellm", b, anchor=where, stated_at=stated_at,
              rows_at=f"{where}.requests.successful, .errored, .incomplete (those in the measurement window)")
    run.rate, run.concurrency = rate, conc
    run.repeat = {"duration_s": float(end - start), "completed": by_status["successful"],
                  "failed": by_status["errored"] + by_status["incomplete"], "requests": cols,
                  "stated": stated, "window": {"start_s": float(start), "end_s": float(end), "left_out": len(rows) - len(counted)}}
    _setup(run, report, cfg, src, where, start)
    run.protocol = (f"guidellm-v{version}", *run.protocol[1:])  # the versions count requests by other rules
    return run


def _all_requests(b: dict, src: sc.Source, where: str) -> list[tuple[str, int, dict]]:
    """(status, index, request) of every request the file lists, whatever its window."""
    requests = _get(b, ["requests"], src, where)
    rows: list[tuple[str, int, dict]] = []
    for status in ("successful", "errored", "incomplete"):
        lst = requests.get(status) or []
        if not isinstance(lst, list):
            raise SitegenError(f"requests.{status} is not a list", src.path, f"{where}.requests.{status}")
        for j, req in enumerate(lst):
            at = f"{where}.requests.{status}[{j}]"
            if not isinstance(req, dict):
                raise SitegenError("expected a request object", src.path, at)
            info = req.get("info")
            if info is not None and not isinstance(info, dict):
                raise SitegenError(f"info is {type(info).__name__}, expected an object", src.path, f"{at}.info")
            timings = (info or {}).get("timings")
            if timings is not None and not isinstance(timings, dict):
                raise SitegenError(f"info.timings is {type(timings).__name__}, expected an object", src.path, f"{at}.info.timings")
            for node, key, place in [(req, k, at) for k in ("request_start_time", "request_end_time")] + \
                    [(timings or {}, k, f"{at}.info.timings") for k in ("first_token_iteration", "last_token_iteration",
                                                                         "token_iterations")]:
                v = node.get(key)
                if v is not None and not (sc.is_number(v) and math.isfinite(v)):
                    raise SitegenError(f"{key} is {str(v)[:40]!r}, expected a finite number", src.path, f"{place}.{key}")
            rows.append((status, j, req))
    return rows


def _check_totals(counted: list, cfg: dict, metrics: dict, src: sc.Source, where: str) -> dict[str, int]:
    """The requests of each status in the window, checked against the file's own totals."""
    totals = _get(metrics, ["request_totals"], src, where + ".metrics")
    by_status = {s: sum(1 for r in counted if r[0] == s) for s in ("successful", "errored", "incomplete")}
    for s, n in by_status.items():
        stated = totals.get(s)
        if not isinstance(stated, int):
            raise SitegenError(f"request_totals.{s} is not a whole number", src.path, f"{where}.metrics.request_totals.{s}")
        if stated != n:
            what = ("the file keeps a sample of its requests (--sample-requests), so its figures cannot be recomputed"
                    if stated > n and isinstance(cfg.get("sample_size"), int) else "")
            raise SitegenError(f"request_totals.{s} says {stated}, but {n} of the file's {s} requests fall in the "
                               f"measurement window" + (f": {what}" if what else ""), src.path,
                               f"{where}.metrics.request_totals.{s}")
    return by_status


def _checked_request(req: dict, src: sc.Source, at: str) -> None:
    for key in ("request_latency", "time_to_first_token_ms", "inter_token_latency_ms", "time_per_output_token_ms"):
        v = req.get(key)
        if v is not None and (not sc.is_number(v) or not math.isfinite(v) or v < 0):
            raise SitegenError(f"{key} is {str(v)[:40]!r}: a latency is a finite number at least 0", src.path, f"{at}.{key}")
    for key in ("prompt_tokens", "output_tokens"):
        v = req.get(key)
        if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 0):
            raise SitegenError(f"{key} is {str(v)[:40]!r}: expected a whole number at least 0", src.path, f"{at}.{key}")


def _columns(counted: list, src: sc.Source, where: str) -> tuple[dict[str, list], dict[str, list]]:
    """The window's requests as the receipt's columns, and the raw values its figures are made from."""
    cols: dict[str, list] = {k: [] for k in ("ttft_ms", "tpot_ms", "itl_ms", "e2e_ms", "input_tokens", "output_tokens", "error")}
    raw: dict[str, list] = {k: [] for k in ("ttft", "itl_g", "tpot_g", "lat", "prompt", "output", "gap")}
    for status, j, req in counted:
        at = f"{where}.requests.{status}[{j}]"
        _checked_request(req, src, at)
        ok = status == "successful"
        pt, ot = req.get("prompt_tokens") or 0, req.get("output_tokens") or 0
        cols["input_tokens"].append(pt)
        cols["output_tokens"].append(ot)
        cols["error"].append(not ok)
        if not ok:
            for k in ("ttft_ms", "tpot_ms", "itl_ms", "e2e_ms"):
                cols[k].append(None)
            continue
        timings = (req.get("info") or {}).get("timings") or {}
        lat, ttft, itl = _num(req, "request_latency"), _num(req, "time_to_first_token_ms"), _num(req, "inter_token_latency_ms")
        if lat is None or ttft is None:
            raise SitegenError("a successful request without request_latency or time_to_first_token_ms", src.path, at)
        first, last, iters = timings.get("first_token_iteration"), timings.get("last_token_iteration"), timings.get("token_iterations")
        gap = ((last - first) * 1000 / (iters - 1) if sc.is_number(first) and sc.is_number(last)
               and isinstance(iters, int) and iters > 1 else None)
        cols["ttft_ms"].append(sc.r6(ttft))
        cols["e2e_ms"].append(sc.r6(lat * 1000))
        cols["tpot_ms"].append(sc.r6(itl))
        cols["itl_ms"].append(sc.r6(gap))
        raw["lat"].append(lat)
        raw["ttft"].append(ttft)
        raw["prompt"].append(pt)
        raw["output"].append(ot)
        raw["itl_g"].append(itl or 0.0)
        raw["tpot_g"].append(_num(req, "time_per_output_token_ms") or 0.0)
    return cols, raw


def _series(rows: list, raw: dict, start: float, end: float) -> dict[str, tuple]:
    """Each distribution GuideLLM states, as (values, weights) of the requests it counts for it."""
    # TTFT counts the requests whose first token (not their end) meets the window.
    ttft_rows = [r for r in rows if r[0] == "successful" and _in_window(r[2], start, end, "first_token_iteration")]
    ttft_vals = np.array([_num(r[2], "time_to_first_token_ms") or 0.0 for r in ttft_rows])
    outs = np.array(raw["output"], dtype=float)
    itl_rows = [r for r in rows if r[0] == "successful" and _after_first(r[2], start, end)]
    return {
        "request_latency": (np.array(raw["lat"]), np.ones(len(raw["lat"]))),
        "time_to_first_token_ms": (ttft_vals, np.ones(len(ttft_vals))),
        "time_per_output_token_ms": (np.array(raw["tpot_g"]), outs),
        "inter_token_latency_ms": (np.array([_num(r[2], "inter_token_latency_ms") or 0.0 for r in itl_rows]),
                                   np.array([float((r[2].get("output_tokens") or 1) - 1) for r in itl_rows])),
        "prompt_token_count": (np.array(raw["prompt"], dtype=float), np.ones(len(raw["prompt"]))),
        "output_token_count": (outs, np.ones(len(outs))),
    }


def _series_v1(raw: dict) -> dict[str, tuple]:
    """Report version 1 (GuideLLM 0.4 to 0.6): every distribution over the same requests, those
    meeting the measurement window; inter-token latency weighted by output tokens - 1, time per
    output token by output tokens."""
    outs = np.array(raw["output"], dtype=float)
    return {
        "request_latency": (np.array(raw["lat"]), np.ones(len(raw["lat"]))),
        "time_to_first_token_ms": (np.array(raw["ttft"]), np.ones(len(raw["ttft"]))),
        "time_per_output_token_ms": (np.array(raw["tpot_g"]), outs),
        "inter_token_latency_ms": (np.array(raw["itl_g"]), np.maximum(outs, 1.0) - 1.0),
        "prompt_token_count": (np.array(raw["prompt"], dtype=float), np.ones(len(raw["prompt"]))),
        "output_token_count": (outs, np.ones(len(outs))),
    }


def _stated(series: dict, metrics: dict, src: sc.Source, where: str) -> tuple[list[dict], dict[str, str]]:
    """Every statistic the file states of each distribution, recomputed from `series` (refused where
    one disagrees), and where each was read."""
    stated, stated_at = [], {}
    for name, (values, weights) in series.items():
        if metrics.get(name) is None:
            continue
        dist = _get(metrics, [name, "successful"], src, where + ".metrics")
        mine = distribution(values, weights)
        for key in (*STATS, *PERCENTILES):
            percentiles = dist.get("percentiles") or {}
            if not isinstance(percentiles, dict):
                raise SitegenError(f"{name}.successful.percentiles is not an object", src.path,
                                   f"{where}.metrics.{name}.successful.percentiles")
            v = dist.get(key) if key in STATS else percentiles.get(key)
            path = f"{where}.metrics.{name}.successful." + (key if key in STATS else f"percentiles.{key}")
            if not sc.is_number(v):
                raise SitegenError(f"{name}.successful.{key} is not a number", src.path, path)
            tol_key = "x_ms" if name.endswith("_ms") or name == "request_latency" else "x"
            computed = mine[key] * (1000 if name == "request_latency" else 1)
            value = v * (1000 if name == "request_latency" else 1)
            if not sc.agrees(float(value), float(computed), tol_key):
                raise SitegenError(f"{name}.successful.{key} says {v}, but the requests in the measurement window give "
                                   f"{mine[key]}", src.path, path)
            stated.append({"key": f"{name}.successful.{key}", "value": v, "check": "rows"})
            stated_at[f"{name}.successful.{key}"] = "$" + path[len(where):]
    return stated, stated_at


def _setup(run: Run, report: dict, cfg: dict, src: sc.Source, where: str, start: float) -> None:
    """What the file says of the run's setup: workload, protocol, model, date, GuideLLM's version."""
    top = report.get("config") if isinstance(report.get("config"), dict) else report.get("args")  # version 1: args
    top = top if isinstance(top, dict) else {}
    data = top.get("data")
    run.workload = f"data {data if isinstance(data, str) else ', '.join(map(str, data)) if isinstance(data, list) else 'not recorded'}"[:200]
    # GuideLLM keeps no prompt identity, and each side's window selects its own requests: its rows
    # are never paired across sides (the pairing needs the same prompts in the same order).
    run.inputs = None
    run.protocol = ("guidellm", (cfg.get("strategy") or {}).get("type_"), (cfg.get("strategy") or {}).get("rate"))
    backend = given if isinstance(given := cfg.get("backend"), dict) else {}
    model = backend.get("model") or top.get("model")
    if isinstance(model, str):
        run.env.put("model", model, f"{src.name} {where}.config.backend.model")
    version = (report.get("metadata") or {}).get("guidellm_version")
    run.run_date = sc.day_of(start, src.path, where + ".start_time")
    run.rec = {"label": None}
    if isinstance(version, str):
        run.repeat["command"] = f"guidellm {version} benchmark (strategy {(cfg.get('strategy') or {}).get('type_')})"


def _after_first(req: dict, start: float, end: float) -> bool:
    timings = (req.get("info") or {}).get("timings") or {}
    first, stop = timings.get("first_token_iteration"), req.get("request_end_time")
    if not sc.is_number(stop):
        return False
    begin = first if sc.is_number(first) else stop
    return stop >= start and begin <= end


def read_file(path: Path, root: Path) -> list[Run]:
    src = sc.read_source(path, root)
    records = sc.json_records(src)
    report = records[0][1]
    if len(records) != 1 or not isinstance(report, dict):
        raise SitegenError("expected one JSON object (GuideLLM's benchmarks.json)", path)
    version = report_version(report, path)
    if not report["benchmarks"]:
        raise SitegenError("no benchmarks", path, "$.benchmarks")
    return [_benchmark(src, report, i, b, version) for i, b in enumerate(report["benchmarks"])]


READ = ("report version 2 (GuideLLM 0.7 and later), report version 1 (GuideLLM 0.5 and 0.6), and GuideLLM 0.4's "
        "report before versions were written")


def report_version(report: dict, path: Path) -> int:
    """The report's version, each read by its own rules; one this importer cannot read is refused,
    naming the versions it reads."""
    if not isinstance(report.get("benchmarks"), list):
        raise SitegenError("unknown key set: not GuideLLM's benchmarks.json (it has metadata, config or args, and "
                           f"benchmarks); keys found: {', '.join(sorted(report)[:12])}", path, "$")
    meta = report.get("metadata")
    if meta is None and isinstance(report.get("args"), dict):
        benches = report["benchmarks"]
        if all(isinstance(b, dict) and isinstance(b.get("config"), dict) and "scheduler_metrics" in b for b in benches):
            return 1  # GuideLLM 0.4: version 1's fields, before the report said its version
        raise SitegenError(f"a GuideLLM report of 0.3 or earlier (benchmarks without config and scheduler_metrics): this "
                           f"importer reads {READ}; run the benchmark again with a later GuideLLM", path, "$.benchmarks")
    if not isinstance(meta, dict):
        raise SitegenError("no metadata: not a GuideLLM benchmarks.json sitegen knows; it reads " + READ, path, "$")
    version = meta.get("version")
    if version not in (1, 2) or isinstance(version, bool):
        raise SitegenError(f"report version {str(version)[:20]!r}: this importer reads {READ}", path, "$.metadata.version")
    return int(version)


def run_and_write(opts: ServingOptions) -> ImportResult:
    from site_gen.importers import serving_report

    if opts.setup:  # a study of two setups or more (importers/serving_study.py)
        from site_gen.importers import serving_study

        return serving_study.run_and_write(opts, lambda paths, root: [r for p in paths for r in read_file(p, root)],
                                           lambda runs: "GuideLLM benchmarks.json (report version 2)")
    if opts.sources:
        raise SitegenError(f"guidellm takes its files through --baseline and --candidate, not as SOURCE ({opts.sources[0]!r})",
                           opts.sources[0])
    files = {role: [Path(p) for p in (opts.side(role))] for role in ("baseline", "candidate")}
    if not files["candidate"]:
        raise SitegenError("name the candidate's benchmarks.json with --candidate (and --baseline to compare two setups)")
    root = source_root(files["baseline"] + files["candidate"])
    runs = {role: [r for p in files[role] for r in read_file(p, root)] for role in files if files[role]}
    versions = sorted({r.protocol[0] for rs in runs.values() for r in rs})
    doc, prov = serving_report.build(
        runs, labels={"baseline": opts.label_baseline, "candidate": opts.label_candidate},
        stated={role: sc.stated_env(opts.stated(role), f"--set-{role}") for role in files},
        allow=set(opts.allow), attribution=opts.attribution,
        client="GuideLLM benchmarks.json (" + " and ".join(v.replace("guidellm-v", "report version ") for v in versions) + ")")
    return ImportResult(sc.write(stamp(doc, opts), Path(opts.output), prov, opts.force, opts.data_folder))
