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

from site_gen.importers.common import stamp

import os
import re
import shlex
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

from site_gen.core.errors import SitegenError
from site_gen.importers import serving_common as sc
from site_gen.importers.vllm_rows import ARRAYS, request_columns, gap_summary, rows_of, stated_figures  # noqa: F401
from site_gen.importers.options import ImportResult, ServingOptions

# Keys that tell the formats apart (a record must carry one set whole).
VLLM_KEYS = {"request_throughput", "completed", "duration", "model_id"}
SGLANG_KEYS = {"completed", "duration", "backend", "dataset_name", "request_rate"}
SGLANG_MARK = ("mean_e2e_latency_ms", "median_e2e_latency_ms", "total_output_tokens_retokenized")
ENGINES = {"vllm": "vLLM", "vllm-chat": "vLLM", "sglang": "SGLang", "sglang-native": "SGLang", "sglang-oai": "SGLang",
           "sglang-oai-chat": "SGLang", "lmdeploy": "LMDeploy", "lmdeploy-chat": "LMDeploy", "trt": "TensorRT-LLM",
           "tensorrt-llm": "TensorRT-LLM", "tgi": "TGI", "deepspeed-mii": "DeepSpeed-MII"}
# Figures the clients state that the rows cannot give (serving_common.NOT_RECOMPUTABLE) are not
# imported; the guide (docs/guide/importing.md) lists them.


@dataclass
class Run:
    src: sc.Source
    line: int | None
    fmt: str
    rec: dict
    workload: str = ""
    dataset: str | None = None  # the dataset's name as the file or its client command records it
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
    rows_src: Any = None  # the file of the per-request rows, where not the run's own (LLMPerf, AIPerf)

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
    if run.fmt != "vllm-bench" or not os.path.lexists(path):
        return {}
    src = sc.read_found(path, run.src.path.parent, limit=1 << 20)  # beside the file named, never through a link out
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


def _dataset(run: Run, side: dict) -> str | None:
    """The dataset's name from the file's `dataset_name` or its client command's --dataset-name."""
    rec = run.rec
    name = rec.get("dataset_name") if isinstance(rec.get("dataset_name"), str) else None
    if name is None and side.get("client_command"):
        name = _flag(side["client_command"], "--dataset-name", "--dataset")
    return name


def _workload(rec: dict, name: str | None) -> str:
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


def stated_dataset(runs: list[Run], name: str, option: str) -> None:
    """`--set-candidate dataset=NAME`: the workload of each run whose files record no dataset (a
    result saved without its dataset's name); a file that records another one is refused, as any
    stated fact the files contradict is."""
    for r in runs:
        if r.dataset is None:
            r.dataset, r.workload = name, _workload(r.rec, name)
        elif r.dataset != name:
            recorded = isinstance(r.rec.get("dataset_name"), str)
            raise SitegenError(f"{option} dataset={name!r}, but the file records dataset {r.dataset!r}"
                               + ("" if recorded else " (its client command's --dataset-name)"),
                               r.src.path, r.where("$.dataset_name" if recorded else "$"))


def _environment(run: Run, side: dict) -> None:
    rec, env, sid = run.rec, run.env, run.src.name
    engine = ENGINES.get(str(rec.get("backend") or rec.get("endpoint_type") or "").lower())
    if engine:
        env.put("engine", engine, f"{sid} {run.where('$.backend')} ({rec.get('backend')})")
    for key in ("model_id", "model"):
        if isinstance(rec.get(key), str) and rec[key].strip():
            env.put("model", rec[key], f"{sid} {run.where('$.' + key)}")
            break
    _server_info(run, rec.get("server_info"))
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


def _server_info(run: Run, info: Any) -> None:
    """SGLang's `server_info` (its server's /server_info): the model it loaded (`model_path`) and its
    version; a prefill/decode (disaggregated) run's router answers with its servers under `prefill`
    and `decode`, each read (their versions named apart when they differ)."""
    if not isinstance(info, dict):
        return
    servers = [("", "$.server_info", info)]
    if not isinstance(info.get("version"), str):
        for role in ("prefill", "decode"):
            if isinstance(info.get(role), list):
                servers += [(role, f"$.server_info.{role}[{i}]", x) for i, x in enumerate(info[role]) if isinstance(x, dict)]
    found = [(role, at, x) for role, at, x in servers if isinstance(x.get("version"), str) or isinstance(x.get("model_path"), str)]
    sid = run.src.name
    models: dict[str, str] = {}
    for _, at, x in found:
        if isinstance(x.get("model_path"), str) and x["model_path"].strip():
            models.setdefault(x["model_path"], at)
    if len(models) == 1:
        model, at = next(iter(models.items()))
        run.env.put("model", model, f"{sid} {run.where(at + '.model_path')}")
    elif len(models) > 1:
        raise run.fail(f"the servers of this run loaded other models ({', '.join(sorted(models))}): one run is one model",
                       "$.server_info")
    versions: dict[str, list[tuple[str, str]]] = {}
    for role, at, x in found:
        if isinstance(x.get("version"), str) and x["version"].strip():
            versions.setdefault(x["version"], []).append((role, at))
    if len(versions) == 1:
        v, places = next(iter(versions.items()))
        run.env.put("engine_version", v, f"{sid} {run.where(places[0][1] + '.version')}"
                    + (f" (all {len(places)} prefill and decode servers)" if len(places) > 1 else ""))
    elif versions:
        text = "; ".join(f"{'/'.join(sorted({r for r, _ in places}))} {v}" for v, places in sorted(versions.items()))
        run.env.put("engine_version", text, f"{sid} {run.where('$.server_info')} (its prefill and decode servers)")


def read_run(src: sc.Source, line: int | None, rec: dict) -> Run:
    run = Run(src, line, _kind(rec, src, line), rec)
    _load(run)
    side = _sidecar(run)
    run.dataset = _dataset(run, side)
    run.workload = _workload(run.rec, run.dataset)
    _environment(run, side)
    duration = _number(run, "duration", positive=True)
    completed = _number(run, "completed", integer=True)
    raw = rows_of(run)
    figs = request_columns(run, raw) if raw is not None else None
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
        rep["itl_gaps"] = gap_summary(figs["gaps"])
    rep["stated"] = stated_figures(run, figs, duration)
    run.repeat = rep
    burst = rec.get("burstiness") if sc.is_number(rec.get("burstiness")) else 1.0
    run.protocol = (run.fmt, burst, rec.get("num_prompts"))
    return run


def _wanted(path: Path) -> str | None:
    """A folder's files: result JSON and JSON lines read (a summary table among them is named when
    read); the `.commands` sidecars read with their run; anything else left out unsaid."""
    return None if path.suffix in (".json", ".jsonl") else ""


def read_files(paths: list[Path], root: Path, skipped: list[tuple[Path, str]] | None = None) -> list[Run]:
    """The runs of the files and folders given. vLLM's summary table (`benchmark_results.json`)
    is no run: skipped, named, and its rows checked against the runs (`vllm_table`)."""
    from site_gen.importers import inputs, vllm_table

    skipped = [] if skipped is None else skipped
    picked = inputs.expand(paths, _wanted, "vLLM result JSON or SGLang JSON lines (*.json, *.jsonl)")
    skipped.extend(picked.skipped)
    runs, tables = [], []
    for p, _ in picked.files:
        if p.suffix == ".commands":  # vLLM's sidecar, named alone: its result is what is wanted
            raise SitegenError(f"a .commands file, not a result: give the result .json; {p.name} is read beside "
                               f"{p.stem}.json", p)
        src = sc.read_source(p, root)
        try:
            records = sc.json_records(src, allow_infinity=True)
        except SitegenError as exc:
            if p.suffix in (".json", ".jsonl"):
                raise
            raise SitegenError(f"{exc.message}; not a result file: give the result .json (or SGLang's .jsonl); "
                               "NAME.commands is read beside NAME.json", exc.file, exc.where) from None
        if len(records) == 1 and vllm_table.is_table(records[0][1]):
            tables.append((src, records[0][1]))
            continue
        for line, rec in records:
            runs.append(read_run(src, line, rec))
    for src, rows in tables:
        skipped.append((src.path, vllm_table.check(src, rows, runs, _flag)))
    if not runs:
        raise SitegenError("no run among the files given: " + "; ".join(f"{p.name}: {why}" for p, why in skipped[-5:]),
                           paths[0])
    return runs


def source_root(paths: list[Path]) -> Path:
    """The folder the receipt names source files from: the deepest one holding them all."""
    folders = [str(p.resolve().parent) for p in paths]
    return Path(os.path.commonpath(folders)) if folders else Path(".")


def side_files(opts: ServingOptions, role: str) -> list[Path]:
    return [Path(p) for p in (opts.side(role))]


CLIENTS = {"vllm-bench": "vLLM serving benchmark (result JSON)", "sglang-bench-serving": "SGLang bench_serving (JSONL)"}


def run_and_write(opts: ServingOptions) -> ImportResult:
    from site_gen.importers import serving_common as common, serving_report

    if opts.setup:  # a study of two setups or more (importers/serving_study.py)
        from site_gen.importers import serving_study

        return serving_study.run_and_write(opts, read_files, lambda runs: "; ".join(sorted({CLIENTS[r.fmt] for r in runs})))
    if opts.sources:
        raise SitegenError(f"{opts.format} takes its files through --baseline and --candidate, not as SOURCE "
                           f"({opts.sources[0]!r})", opts.sources[0])
    files = {role: side_files(opts, role) for role in ("baseline", "candidate")}
    if not files["candidate"]:
        raise SitegenError("name the candidate's files with --candidate FILE… (and --baseline FILE… to compare two setups)")
    from site_gen.importers import inputs

    root = source_root(files["baseline"] + files["candidate"])
    skipped: list[tuple[Path, str]] = []
    runs = {role: read_files(files[role], root, skipped) for role in files if files[role]}
    client = CLIENTS
    fmts = sorted({client[r.fmt] for rs in runs.values() for r in rs})
    stated = {role: common.stated_env(opts.stated(role), f"--set-{role}") for role in files}
    for role, facts in stated.items():
        if "dataset" in facts and role in runs:
            stated_dataset(runs[role], facts["dataset"], f"--set-{role}")
    doc, prov = serving_report.build(
        runs, labels={"baseline": opts.label_baseline, "candidate": opts.label_candidate},
        stated=stated,
        allow=set(opts.allow), attribution=opts.attribution, client="; ".join(fmts),
        notes=inputs.tested_note(skipped, root))
    return ImportResult(common.write(stamp(doc, opts), Path(opts.output), prov, opts.force, opts.data_folder),
                        tuple(f"skipped {p}: {why}" for p, why in skipped))
