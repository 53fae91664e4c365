"""`sitegen import vllm-bench`: vLLM's serving benchmark result JSON (`vllm bench serve
--save-result [--save-detailed]`, older `benchmarks/benchmark_serving.py --save-result`, one object a
file, or one a line with --append-result) and SGLang's `bench_serving --output-file X.jsonl` (one
run a line; `Infinity` for an unlimited rate; per-request arrays at the top level or under
`details`), the format told from each record's keys -> a schema 1.2 receipt (`serving`).

Each record is one load point, read from it (request rate, or maximum concurrency); records of one
side at the same workload and load are repeats of it. Every summary figure the record states is
recomputed from its per-request arrays (numpy, as the clients compute them: successful requests
only, population standard deviation, linear percentiles, seconds x 1000) and must agree, or the
import is refused naming the file and the key. A record without arrays keeps its latency figures as
stated ("check": "none") and its throughputs checked against its own totals and duration.
"""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

from site_gen.core.errors import SitegenError
from site_gen.importers import serving_common as sc

# Keys that tell the formats apart (a record must carry one set whole).
VLLM_KEYS = {"request_throughput", "completed", "duration", "model_id"}
SGLANG_KEYS = {"completed", "duration", "backend", "dataset_name", "request_rate"}
SGLANG_MARK = ("mean_e2e_latency_ms", "median_e2e_latency_ms", "total_output_tokens_retokenized")
ARRAYS = ("input_lens", "output_lens", "ttfts", "itls", "errors")
STAT = re.compile(r"^(mean|median|std|max|p([0-9]+(?:\.[0-9]+)?))_(ttft|tpot|itl|e2el|e2e_latency)_ms$")
ENGINES = {"vllm": "vLLM", "vllm-chat": "vLLM", "sglang": "SGLang", "sglang-native": "SGLang", "sglang-oai": "SGLang",
           "sglang-oai-chat": "SGLang", "lmdeploy": "LMDeploy", "lmdeploy-chat": "LMDeploy", "trt": "TensorRT-LLM",
           "tensorrt-llm": "TensorRT-LLM", "tgi": "TGI", "deepspeed-mii": "DeepSpeed-MII"}
# Figures the clients state that the rows cannot give (serving_common.NOT_RECOMPUTABLE) are not
# imported; the README lists them.


@dataclass
class Run:
    src: sc.Source
    line: int | None
    fmt: str
    rec: dict
    workload: str = ""
    rate: Any = None
    concurrency: int | None = None
    protocol: tuple = ()
    repeat: dict = field(default_factory=dict)
    inputs: tuple | None = None
    env: sc.Env = field(default_factory=sc.Env)
    run_date: str | None = None
    anchor: str = "$"  # the record's place in its file: $ (vLLM, a JSONL line) or $.benchmarks[i] (GuideLLM)
    stated_at: dict = field(default_factory=dict)  # a stated figure's JSON path where it is not $.<key>
    rows_at: str = ""  # where the per-request rows are, where not vLLM's and SGLang's arrays

    def where(self, path: str = "$") -> str:
        return sc.at(self.line, self.anchor + path[1:] if path.startswith("$") else path)

    def fail(self, message: str, path: str = "$") -> SitegenError:
        return SitegenError(message, self.src.path, self.where(path))

    @property
    def key(self) -> tuple:
        return (self.workload, self.rate, self.concurrency)


def _kind(rec: Any, src: sc.Source, line: int | None) -> str:
    if not isinstance(rec, dict):
        raise SitegenError(f"expected a JSON object, got {type(rec).__name__}", src.path, sc.at(line))
    keys = set(rec)
    if SGLANG_KEYS <= keys and any(k in keys for k in SGLANG_MARK):
        return "sglang-bench-serving"
    if VLLM_KEYS <= keys:
        return "vllm-bench"
    missing_v, missing_s = sorted(VLLM_KEYS - keys), sorted(SGLANG_KEYS - keys)
    raise SitegenError("unknown key set: not a vLLM serving result (it would have " + ", ".join(missing_v)
                       + ") nor an SGLang bench_serving line (it would have " + (", ".join(missing_s) or SGLANG_MARK[0])
                       + f"); keys found: {', '.join(sorted(keys)[:12])}" + ("…" if len(keys) > 12 else ""), src.path, sc.at(line))


def _number(run: Run, key: str, *, positive: bool = False, integer: bool = False) -> Any:
    v = run.rec.get(key)
    ok = sc.is_number(v) and np.isfinite(v) and (v > 0 if positive else v >= 0) and (not integer or isinstance(v, int))
    if not ok:
        what = "a whole number" if integer else "a positive number" if positive else "a number at least 0"
        raise run.fail(f"'{key}' is {str(v)[:40]!r}, expected {what}", f"$.{key}")
    return v


def _load(run: Run) -> None:
    rate = run.rec.get("request_rate")
    if rate in ("inf", "Infinity") or (isinstance(rate, float) and rate == float("inf")):
        run.rate = "inf"
    elif sc.is_number(rate) and np.isfinite(rate) and rate > 0:
        run.rate = int(rate) if float(rate).is_integer() else float(rate)
    else:
        raise run.fail(f"request_rate is {str(rate)[:40]!r}: expected a positive number or inf", "$.request_rate")
    mc = run.rec.get("max_concurrency")
    if mc is not None and not (isinstance(mc, int) and not isinstance(mc, bool) and mc >= 1):
        raise run.fail(f"max_concurrency is {str(mc)[:40]!r}: expected a whole number at least 1, or null", "$.max_concurrency")
    run.concurrency = mc


def _sidecar(run: Run) -> dict:
    """vLLM's nightly suite writes `<name>.commands` beside `<name>.json`: the client (and server)
    command and the GPU type."""
    path = run.src.path.with_suffix(".commands")
    if run.fmt != "vllm-bench" or not path.is_file():
        return {}
    src = sc.read_source(path, limit=1 << 20)
    value = sc.json_records(src)
    if len(value) != 1 or not isinstance(value[0][1], dict):
        raise SitegenError("expected one JSON object (client_command, gpu_type)", path)
    return {"file": str(Path(run.src.name).with_suffix(".commands")), **{k: v for k, v in value[0][1].items() if isinstance(v, str)}}


def _flag(command: str, *names: str) -> str | None:
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    for i, w in enumerate(words):
        for n in names:
            if w == n and i + 1 < len(words):
                return words[i + 1]
            if w.startswith(n + "="):
                return w.split("=", 1)[1]
    return None


def _workload(run: Run, side: dict) -> str:
    rec = run.rec
    name = rec.get("dataset_name") if isinstance(rec.get("dataset_name"), str) else None
    if name is None and side.get("client_command"):
        name = _flag(side["client_command"], "--dataset-name", "--dataset")
    if name is None:
        return "unrecorded workload"
    out = name
    if name.startswith("random"):
        i, o = rec.get("random_input_len"), rec.get("random_output_len")
        if sc.is_number(i) and sc.is_number(o):
            out += f" {i:g}→{o:g} tokens"
        r = rec.get("random_range_ratio")
        if sc.is_number(r) and r:
            out += f", range ratio {r:g}"
    elif name == "sharegpt" and sc.is_number(rec.get("sharegpt_output_len")):
        out += f", output {rec['sharegpt_output_len']:g} tokens"
    return out


def _environment(run: Run, side: dict) -> None:
    rec, env, sid = run.rec, run.env, run.src.name
    engine = ENGINES.get(str(rec.get("backend") or rec.get("endpoint_type") or "").lower())
    if engine:
        env.put("engine", engine, f"{sid} {run.where('$.backend')} ({rec.get('backend')})")
    for key in ("model_id", "model"):
        if isinstance(rec.get(key), str) and rec[key].strip():
            env.put("model", rec[key], f"{sid} {run.where('$.' + key)}")
            break
    info = rec.get("server_info")
    if isinstance(info, dict) and isinstance(info.get("version"), str):
        env.put("engine_version", info["version"], f"{sid} {run.where('$.server_info.version')}")
    d = rec.get("date")
    if isinstance(d, str) and (m := re.fullmatch(r"([0-9]{4})([0-9]{2})([0-9]{2})-[0-9]{6}", d)):
        try:
            run.run_date = date(int(m[1]), int(m[2]), int(m[3])).isoformat()
        except ValueError:
            raise run.fail(f"date {d!r} is not a calendar date", "$.date") from None
    if side:
        f = side["file"]
        if side.get("gpu_type"):
            env.put("hardware", side["gpu_type"], f"{f} $.gpu_type")
        server = side.get("server_command")
        if server:
            env.put("command", server, f"{f} $.server_command")
            tp = _flag(server, "--tensor-parallel-size", "-tp", "--tp-size", "--tp")
            pp = _flag(server, "--pipeline-parallel-size", "-pp", "--pp-size")
            if tp or pp:
                env.put("parallelism", f"tensor parallel {tp or 1} × pipeline parallel {pp or 1}", f"{f} $.server_command")
        if side.get("client_command"):
            run.repeat["command"] = " ".join(side["client_command"].split())[:4000]


def _array(run: Run, arrays: dict, key: str, base: str) -> list:
    v = arrays.get(key)
    if not isinstance(v, list):
        raise run.fail(f"'{key}' is not a list", f"{base}.{key}")
    return v


def _rows(run: Run) -> dict | None:
    """The per-request arrays, checked and turned into columns (None where the record has none)."""
    rec = run.rec
    base, arrays = "$", rec
    if isinstance(rec.get("details"), dict):
        base, arrays = "$.details", rec["details"]
    present = [k for k in ARRAYS if k in arrays]
    if not present:
        return None
    missing = [k for k in ARRAYS if k not in arrays]
    if missing:
        raise run.fail(f"has per-request {', '.join(present)} but no {', '.join(missing)}", base)
    cols = {k: _array(run, arrays, k, base) for k in ARRAYS}
    lat = _array(run, arrays, "latencies", base) if "latencies" in arrays else None
    if lat is not None:
        cols["latencies"] = lat
    n = len(cols["ttfts"])
    unequal = {k: len(v) for k, v in cols.items() if len(v) != n}
    if unequal:
        k = next(iter(unequal))
        raise run.fail(f"arrays of unequal length: ttfts has {n} entries, {k} has {unequal[k]}", f"{base}.{k}")
    return {"base": base, **cols}


def _value(run: Run, v: Any, where: str, integer: bool = False) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or (integer and not isinstance(v, int)):
        raise run.fail(f"expected {'a whole number' if integer else 'a number'}, got {str(v)[:40]!r}", where)
    if not np.isfinite(v):
        raise run.fail(f"{v} is not a finite number", where)
    if v < 0:
        raise run.fail(f"negative value {v}: a latency or count is never below 0", where)
    return v


def _typed(values: list, kinds: set) -> bool:
    return set(map(type, values)) <= kinds


def _columns(run: Run, raw: dict) -> dict:
    """Seconds arrays of the successful requests (as the client computes its figures) and the receipt's columns.

    Checked whole with numpy; a column that fails is walked again value by value (`_slow_check`) for
    the first bad entry's place."""
    base = raw["base"]
    n = len(raw["ttfts"])
    errors, itls = raw["errors"], raw["itls"]
    ok_types = (_typed(raw["input_lens"], {int}) and _typed(raw["output_lens"], {int}) and _typed(raw["ttfts"], {int, float})
                and _typed(errors, {str, type(None)}) and _typed(itls, {list}) and
                ("latencies" not in raw or _typed(raw["latencies"], {int, float})))
    flat = [g for its in itls for g in its] if ok_types else []
    if not ok_types or not _typed(flat, {int, float}):
        _slow_check(run, raw)
    inputs = np.array(raw["input_lens"], dtype=np.int64)
    outputs = np.array(raw["output_lens"], dtype=np.int64)
    ttft_all = np.array(raw["ttfts"], dtype=float)
    gaps_all = np.array(flat, dtype=float)
    lat_given = np.array(raw["latencies"], dtype=float) if "latencies" in raw else None
    if (inputs < 0).any() or (outputs < 0).any() or not np.isfinite(ttft_all).all() or (ttft_all < 0).any() \
            or not np.isfinite(gaps_all).all() or (gaps_all < 0).any() \
            or (lat_given is not None and (not np.isfinite(lat_given).all() or (lat_given < 0).any())):
        _slow_check(run, raw)
    lengths = np.fromiter(map(len, itls), dtype=np.int64, count=n)
    ends = np.cumsum(lengths)
    cs = np.concatenate([[0.0], np.cumsum(gaps_all)])
    sums = cs[ends] - cs[ends - lengths]
    ok = np.array([not e for e in errors], dtype=bool)
    lat = lat_given if lat_given is not None else ttft_all + sums
    late = ok & (ttft_all > lat + 1e-6)
    if late.any():
        i = int(np.argmax(late))
        raise run.fail(f"time to first token {ttft_all[i]} s above the request's latency {lat[i]} s", f"{base}.ttfts[{i}]")
    with np.errstate(divide="ignore", invalid="ignore"):
        tpot_all = np.where(outputs > 1, (lat - ttft_all) / np.maximum(outputs - 1, 1), np.nan)
        itl_all = np.where(lengths > 0, sums / np.maximum(lengths, 1), np.nan)
    gap_ok = np.repeat(ok, lengths)

    def column(values: np.ndarray, keep: np.ndarray) -> list:
        ms = np.round(values * 1000, 6).tolist()
        return [v if k else None for v, k in zip(ms, keep.tolist())]

    cols = {"ttft_ms": column(ttft_all, ok), "tpot_ms": column(tpot_all, ok & (outputs > 1)),
            "itl_ms": column(itl_all, ok & (lengths > 0)), "e2e_ms": column(lat, ok),
            "input_tokens": inputs.tolist(), "output_tokens": outputs.tolist(), "error": (~ok).tolist()}
    return {"ok": ok, "ttft": ttft_all[ok], "e2e": lat[ok], "tpot": tpot_all[ok & (outputs > 1)], "gaps": gaps_all[gap_ok],
            "inputs": inputs, "outputs": outputs, "columns": cols}


def _slow_check(run: Run, raw: dict) -> None:
    """Finds the first bad value of the arrays, for its place (raises)."""
    base = raw["base"]
    for i in range(len(raw["ttfts"])):
        err = raw["errors"][i]
        if err is not None and not isinstance(err, str):
            raise run.fail(f"expected an error text or empty string, got {str(err)[:40]!r}", f"{base}.errors[{i}]")
        _value(run, raw["input_lens"][i], f"{base}.input_lens[{i}]", integer=True)
        _value(run, raw["output_lens"][i], f"{base}.output_lens[{i}]", integer=True)
        _value(run, raw["ttfts"][i], f"{base}.ttfts[{i}]")
        if "latencies" in raw:
            _value(run, raw["latencies"][i], f"{base}.latencies[{i}]")
        itl = raw["itls"][i]
        if not isinstance(itl, list):
            raise run.fail("expected a list of inter-token gaps", f"{base}.itls[{i}]")
        for j, g in enumerate(itl):
            _value(run, g, f"{base}.itls[{i}][{j}]")
    raise run.fail("the per-request arrays hold a value sitegen cannot read", base)


def _stat(x: np.ndarray, what: str, sglang_e2e: bool) -> float:
    """A client's figure of an array of seconds, in ms: as they write it, `np.mean(x or 0)` (an empty
    array gives 0), except SGLang's end-to-end figures, which take the array as it is."""
    if len(x) == 0 and not sglang_e2e:
        x = np.zeros(1)
    if what == "mean":
        v = np.mean(x)
    elif what == "median":
        v = np.median(x)
    elif what == "std":
        v = np.std(x)
    elif what == "max":
        v = np.max(x)
    else:
        v = np.percentile(x, float(what[1:]))
    return float(v) * 1000


def _gap_summary(gaps: np.ndarray) -> dict:
    if len(gaps) == 0:
        return {"gaps": 0, **{k: 0.0 for k in ("mean_ms", "median_ms", "std_ms", "p90_ms", "p95_ms", "p99_ms", "max_ms")}}
    ms = gaps * 1000
    p90, p95, p99 = np.percentile(ms, [90, 95, 99])
    return {"gaps": int(len(gaps)), "mean_ms": sc.r6(ms.mean()), "median_ms": sc.r6(np.median(ms)), "std_ms": sc.r6(ms.std()),
            "p90_ms": sc.r6(p90), "p95_ms": sc.r6(p95), "p99_ms": sc.r6(p99), "max_ms": sc.r6(ms.max())}


def _stated(run: Run, figs: dict | None, duration: float) -> list[dict]:
    """Every summary figure of the record, each checked against what the rows (or its totals) give."""
    rec, out = run.rec, []
    totals = {k: rec.get(k) for k in ("completed", "total_input_tokens", "total_output_tokens")}
    for key, v in rec.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            continue
        m = STAT.match(key)
        computed, check = None, "rows"
        if m:
            if figs is not None:
                series = {"ttft": figs["ttft"], "tpot": figs["tpot"], "itl": figs["gaps"], "e2el": figs["e2e"],
                          "e2e_latency": figs["e2e"]}[m.group(3)]
                computed = _stat(series, m.group(1), m.group(3) == "e2e_latency")
            else:
                check = "none"
        elif key in ("completed", "failed", "total_input_tokens", "total_output_tokens"):
            if figs is None:
                continue  # counts are the record's own; kept below as the repeat's fields
            ok = figs["ok"]
            computed = {"completed": int(ok.sum()), "failed": int((~ok).sum()), "total_input_tokens": int(figs["inputs"][ok].sum()),
                        "total_output_tokens": int(figs["outputs"].sum())}[key]
        elif key in ("request_throughput", "output_throughput", "total_token_throughput", "input_throughput", "total_throughput"):
            if figs is not None:
                ok = figs["ok"]
                c, i, o = int(ok.sum()), int(figs["inputs"][ok].sum()), int(figs["outputs"].sum())
            else:
                c, i, o = totals["completed"], totals["total_input_tokens"], totals["total_output_tokens"]
                check = "totals"
                if not all(sc.is_number(x) for x in (c, i, o)):
                    raise run.fail(f"'{key}' cannot be checked: the record lacks completed and token totals", f"$.{key}")
            computed = {"request_throughput": c, "output_throughput": o, "input_throughput": i,
                        "total_token_throughput": i + o, "total_throughput": i + o}[key] / duration
        elif key == "concurrency" and run.fmt == "sglang-bench-serving":
            if figs is None:
                check = "none"
            else:
                computed = float(figs["e2e"].sum()) / duration
        else:
            continue
        if not np.isfinite(v):
            raise run.fail(f"'{key}' is {v}, not a finite number", f"$.{key}")
        if computed is not None and not sc.agrees(float(v), float(computed), key):
            raise run.fail(f"'{key}' says {v}, but the per-request arrays give {computed}", f"$.{key}")
        out.append({"key": key, "value": v, "check": check})
    return out


def read_run(src: sc.Source, line: int | None, rec: dict) -> Run:
    run = Run(src, line, _kind(rec, src, line), rec)
    _load(run)
    side = _sidecar(run)
    run.workload = _workload(run, side)
    _environment(run, side)
    duration = _number(run, "duration", positive=True)
    completed = _number(run, "completed", integer=True)
    raw = _rows(run)
    figs = _columns(run, raw) if raw is not None else None
    rep: dict[str, Any] = {"duration_s": duration, "completed": completed}
    if figs is not None:
        rep["failed"] = int((~figs["ok"]).sum())
        if int(figs["ok"].sum()) != completed:
            raise run.fail(f"'completed' says {completed}, but {int(figs['ok'].sum())} requests have no error", "$.completed")
        run.inputs = tuple(figs["columns"]["input_tokens"])
    elif "failed" in rec:
        rep["failed"] = _number(run, "failed", integer=True)
    if "command" in run.repeat:
        rep["command"] = run.repeat["command"]
    if figs is not None:
        rep["requests"] = figs["columns"]
        rep["itl_gaps"] = _gap_summary(figs["gaps"])
    rep["stated"] = _stated(run, figs, duration)
    run.repeat = rep
    burst = rec.get("burstiness") if sc.is_number(rec.get("burstiness")) else 1.0
    run.protocol = (run.fmt, burst, rec.get("num_prompts"))
    return run


def read_files(paths: list[Path], root: Path) -> list[Run]:
    runs = []
    for p in paths:
        src = sc.read_source(p, root)
        for line, rec in sc.json_records(src, allow_infinity=True):
            runs.append(read_run(src, line, rec))
    return runs


def source_root(paths: list[Path]) -> Path:
    """The folder the receipt names source files from: the deepest one holding them all."""
    import os

    folders = [str(p.resolve().parent) for p in paths]
    return Path(os.path.commonpath(folders)) if folders else Path(".")


def side_files(args, role: str) -> list[Path]:
    return [Path(p) for p in (getattr(args, role) or [])]


def run_and_write(args) -> Path:
    from site_gen.importers import serving_common as common, serving_report

    if args.sources:
        raise SitegenError(f"{args.format} takes its files through --baseline and --candidate, not as SOURCE "
                           f"({args.sources[0]!r})", args.sources[0])
    files = {role: side_files(args, role) for role in ("baseline", "candidate")}
    if not files["candidate"]:
        raise SitegenError("name the candidate's files with --candidate FILE… (and --baseline FILE… to compare two setups)")
    root = source_root(files["baseline"] + files["candidate"])
    runs = {role: read_files(files[role], root) for role in files if files[role]}
    client = {"vllm-bench": "vLLM serving benchmark (result JSON)", "sglang-bench-serving": "SGLang bench_serving (JSONL)"}
    fmts = sorted({client[r.fmt] for rs in runs.values() for r in rs})
    doc, prov = serving_report.build(
        runs, labels={"baseline": args.label_baseline, "candidate": args.label_candidate},
        stated={role: common.stated_env(getattr(args, f"set_{role}") or [], f"--set-{role}") for role in files},
        allow=set(args.allow), attribution=args.attribution, client="; ".join(fmts))
    return common.write(doc, Path(args.output), prov, args.force, args.data_dir)
