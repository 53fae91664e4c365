"""Schema 1.1 is schema 1 with what real harnesses write: this module derives it, and
`summary-1.1.schema.json` (published beside version 1) is its output. Schema 1.2 is 1.1 with the
serving part (load points, per-request rows in columns, the source's stated figures) and the
accuracy fields of lm-evaluation-harness results (standard errors, documents, pairing, task
version, few-shot count): `summary-1.2.schema.json`, derived from 1.1 by `derive_1_2`. Schema 1.3 is
1.2 with a report's series and commit (`derive_1_3`). Schema 1.4 is 1.3 with the study part: two or
more serving setups, each with its runs per load point, an optional baseline setup, and what each
setup is (engine, version, parallelism, GPU count, hardware): `summary-1.4.schema.json`, derived
from 1.3 by `derive_1_4`.

    python -m site_gen.schema.derive        # rewrites summary-1.1 to summary-1.4.schema.json

A test checks that the published file is what this derivation gives, so the two cannot drift.
Every change opens something version 1 closed or adds an optional part; nothing version 1
accepts (but its `schema_version`) is refused.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
V1 = HERE / "summary-1.schema.json"
V1_1 = HERE / "summary-1.1.schema.json"
V1_2 = HERE / "summary-1.2.schema.json"
V1_3 = HERE / "summary-1.3.schema.json"
V1_4 = HERE / "summary-1.4.schema.json"

TEXT = {"type": "string", "minLength": 1, "pattern": "\\S"}
ID = {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9._-]*$", "maxLength": 100}
SHA256 = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
INTERVAL = {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2,
            "description": "95% interval [low, high]"}
LABEL = {**TEXT, "maxLength": 60, "description": "A label the receipt supplies (a vocabulary, a unit, a reply class)"}
# A container image by digest (`sha256:...`) or by reference (`registry/name:tag`, `name@sha256:...`).
IMAGE = {"type": "string", "maxLength": 300,
         "pattern": "^(sha256:[0-9a-f]{8,64}|[A-Za-z0-9][A-Za-z0-9._/-]*(:[A-Za-z0-9._-]+)?(@sha256:[0-9a-f]{64})?)$",
         "description": "a digest sha256:... or an image reference name[:tag][@sha256:...]"}
BETTER = {"enum": ["higher", "lower"], "description": "Which direction of the value is better"}


def _obj(required: list[str], **props) -> dict:
    return {"type": "object", "properties": props, "additionalProperties": False, "required": required}


def _arr(item: dict, min_items: int = 0) -> dict:
    out: dict[str, Any] = {"type": "array", "items": item}
    if min_items:
        out["minItems"] = min_items
    return out


SIDE_SPREAD = _obj(["median"], median={"type": "number"}, low={"type": "number"}, high={"type": "number"},
                   samples=_arr({"type": "number"}))

ACCURACY = _obj(
    ["method", "results"],
    note=TEXT,
    method=_obj(["name", "resamples", "seed", "level"], name=TEXT, resamples={"type": "integer", "minimum": 1},
                seed={"type": "integer", "minimum": 0}, level={"type": "number", "exclusiveMinimum": 0, "maximum": 1}),
    results=_arr(_obj(
        ["checkpoint", "measure", "label", "unit", "better", "items", "baseline", "candidate"],
        checkpoint=ID, measure=ID, label=TEXT, unit=LABEL, better=BETTER,
        items={"type": "integer", "minimum": 1, "description": "shared items (questions) the pairing is over"},
        baseline=_obj(["value"], value={"type": "number"}, interval=INTERVAL),
        candidate=_obj(["value"], value={"type": "number"}, interval=INTERVAL),
        difference={"type": "number", "description": "paired difference, candidate minus baseline"},
        interval=INTERVAL), 1),
)

MEASURES = _obj(
    ["results"],
    note=TEXT,
    results=_arr(_obj(
        ["checkpoint", "group", "measure", "label", "unit", "better", "baseline", "candidate"],
        checkpoint=ID, group=TEXT, measure=ID, label=TEXT, unit=LABEL, better=BETTER, vocabulary=LABEL,
        baseline=SIDE_SPREAD, candidate=SIDE_SPREAD), 1),
)

GATES = _obj(
    ["results"],
    note=TEXT,
    results=_arr(_obj(
        ["checkpoint", "gate", "label", "engine", "value", "threshold", "passes_when", "passed"],
        checkpoint=ID, group=TEXT, gate=ID, label=TEXT, engine={"enum": ["baseline", "candidate"]},
        value={"type": "number"}, threshold={"type": "number"}, unit=LABEL,
        passes_when={"enum": ["at_most", "at_least"]}, passed={"type": "boolean"}), 1),
)

PROVENANCE = _obj(
    ["sources", "figures"],
    sources=_arr(_obj(["id", "file", "sha256"], id=ID, file={**TEXT, "maxLength": 500}, sha256=SHA256,
                                                  url={"type": "string", "maxLength": 500, "pattern": "^https://[^\\s\"<>]+$"}), 1),
    figures=_arr(_obj(["path", "source", "at"], path={**TEXT, "pattern": "^\\$", "maxLength": 300,
                                                       "description": "a JSON path in this receipt, $.a.b[0]"},
                      source=ID, at={**TEXT, "maxLength": 500, "description": "line or JSON path in the source"})),
)

DIFFERS = _arr(_obj(["field", "baseline", "candidate"], field=TEXT, baseline={"type": "string"},
                    candidate={"type": "string"}, allowed={"type": "boolean"}))


def _report(r: dict) -> None:
    p = r["properties"]
    for role in ("baseline", "candidate"):
        p["engines"]["properties"][role]["properties"]["image"] = IMAGE
    p["checkpoints"]["items"]["properties"]["label"] = TEXT
    p["attribution"] = {**TEXT, "description": "Credit the source requires (a licence), shown on every page of the report"}
    p["comparison"] = _obj(["id"], id=TEXT, question=TEXT)
    p["differs"] = DIFFERS


def _speed(s: dict) -> None:
    cell = s["properties"]["cells"]["items"]
    cell["required"].remove("input_tokens")
    for role in ("baseline", "candidate"):
        side = cell["properties"][role]
        side["required"].remove("errors")
        side["properties"]["acceptance"] = _obj([], rate={"type": "number", "minimum": 0, "maximum": 1},
                                                mean_length={"type": "number", "minimum": 1})
    s["properties"]["ttft"]["items"]["required"].remove("input_tokens")
    s["properties"]["ttft"]["items"]["properties"]["workload"] = TEXT
    s["properties"]["ttft"]["items"]["properties"]["concurrency"] = {"type": "integer", "minimum": 1}


def _memory(m: dict) -> None:
    st = m["properties"]["startup"]["items"]
    st["properties"]["ready_s"] = {"type": "number", "exclusiveMinimum": 0, "description": "seconds until the server was ready"}
    st["required"] = ["checkpoint", "engine"]
    st["anyOf"] = [{"required": ["cold_s", "warm_s"]}, {"required": ["ready_s"]}]


def derive(v1: dict) -> dict:
    out = copy.deepcopy(v1)
    out["$id"] = "https://sitegen.invalid/schema/summary-1.1.json"
    out["title"] = "sitegen SUMMARY.json, schema version 1.1"
    p = out["properties"]
    p["schema_version"] = {"const": 1.1}
    _report(p["report"])
    for m in ("vocabulary", "unit"):
        p["precision"]["properties"]["measures"]["items"]["properties"][m] = LABEL
    _speed(p["speed"])
    _memory(p["memory"])
    p["long_outputs"]["properties"]["replies"]["items"]["properties"]["category"] = LABEL
    p["versions"]["properties"]["text"]["items"]["properties"]["category"] = LABEL
    p["versions"]["properties"]["previous"]["properties"]["image"] = IMAGE
    p["tool_calling"]["properties"]["runs"]["items"]["properties"]["scenarios"]["items"]["required"].remove("turn_latency_s")
    p["accuracy"], p["measures"], p["gates"], p["provenance"] = ACCURACY, MEASURES, GATES, PROVENANCE
    return out


def text() -> str:
    return json.dumps(derive(json.loads(V1.read_text(encoding="utf-8"))), indent=1, ensure_ascii=False) + "\n"


# -- schema 1.2 ---------------------------------------------------------------------------------
# Units are in the field names: `_ms` milliseconds, `_s` seconds, `_tokens` token counts.

def _column(item: dict, what: str) -> dict:
    return {"type": "array", "items": item, "description": what}


MS = {"type": ["number", "null"], "minimum": 0}
REQUESTS = _obj(
    ["ttft_ms", "tpot_ms", "itl_ms", "e2e_ms", "input_tokens", "output_tokens", "error"],
    ttft_ms=_column(MS, "time to first token of each request, ms; null where the request failed"),
    tpot_ms=_column(MS, "time per output token after the first, (end-to-end - TTFT) / (output tokens - 1), ms; null "
                        "where the request failed or gave one token"),
    itl_ms=_column(MS, "mean of the request's own inter-token gaps, ms; null where it has none"),
    e2e_ms=_column(MS, "end-to-end latency of each request, ms; null where the request failed"),
    input_tokens=_column({"type": "integer", "minimum": 0}, "prompt tokens of each request, in the order sent"),
    output_tokens=_column({"type": "integer", "minimum": 0}, "output tokens of each request (0 where it failed)"),
    error=_column({"type": "boolean"}, "true where the request failed"),
)
REQUESTS["description"] = ("Per-request rows in columns: equal-length arrays, one entry per request in the order the "
                           "source lists them (the order sent, where the client records it)")
GAPS = _obj(["gaps", "mean_ms", "median_ms", "std_ms", "p90_ms", "p95_ms", "p99_ms", "max_ms"],
            gaps={"type": "integer", "minimum": 0}, mean_ms={"type": "number", "minimum": 0},
            median_ms={"type": "number", "minimum": 0}, std_ms={"type": "number", "minimum": 0},
            p90_ms={"type": "number", "minimum": 0}, p95_ms={"type": "number", "minimum": 0},
            p99_ms={"type": "number", "minimum": 0}, max_ms={"type": "number", "minimum": 0})
GAPS["description"] = ("Every inter-token gap of the successful requests, summarised at import (the gaps themselves "
                       "are not kept); numpy's linear percentiles, population standard deviation; ms")
STATED = _arr(_obj(["key", "value", "check"], key={**TEXT, "maxLength": 100}, value={"type": "number"},
                   check={"enum": ["rows", "totals", "none", "not recomputed"],
                          "description": "rows: recomputed from the per-request rows and equal; totals: equal to the "
                                         "source's own counts over its duration; none: the source has no rows to "
                                         "recompute it from; not recomputed: the rows lack what it is made of (a "
                                         "tokenizer, a request's own end time), so it is as the source states it"}))
STATED["description"] = "The source's own summary figures, under its own key names and units"
REPEAT = _obj(
    ["source", "at", "duration_s", "completed", "stated"],
    source=ID, at={**TEXT, "maxLength": 500, "description": "where in the source file: $ or line N"},
    duration_s={"type": "number", "exclusiveMinimum": 0, "description": "the run's measured duration, s"},
    completed={"type": "integer", "minimum": 0},
    failed={"type": "integer", "minimum": 0, "description": "left out where the source does not say"},
    command={**TEXT, "maxLength": 4000, "description": "the client's exact command, where the source records it"},
    requests=REQUESTS, itl_gaps=GAPS, stated=STATED,
    window=_obj(["start_s", "end_s", "left_out"], start_s={"type": "number"}, end_s={"type": "number"},
                left_out={"type": "integer", "minimum": 0, "description": "requests of the file outside the window"}),
)
LOAD = _obj(["request_rate"],
            request_rate={"anyOf": [{"type": "number", "exclusiveMinimum": 0}, {"const": "inf"}],
                          "description": "requests per second the client aimed at, or inf (all sent at once)"},
            max_concurrency={"type": "integer", "minimum": 1, "description": "requests in flight at most"})
LOAD_POINT = _obj(["id", "workload", "load", "repeats"], id=ID, workload=TEXT, load=LOAD, repeats=_arr(REPEAT, 1))
ENV_VALUE = _obj(["value", "origin"], value={**TEXT, "maxLength": 2000},
                 origin={**TEXT, "maxLength": 500, "description": "source id and JSON path or line, or the command-line option"})
ENVIRONMENT = _obj([], **dict.fromkeys(("model", "engine", "engine_version", "hardware", "parallelism", "dataset", "command", "date"), ENV_VALUE))
SIDE = _obj(["label", "format", "environment", "load_points"], label={**TEXT, "maxLength": 100},
            format={"enum": ["vllm-bench", "sglang-bench-serving", "guidellm", "llmperf", "aiperf", "genai-perf"]}, environment=ENVIRONMENT,
            load_points=_arr(LOAD_POINT, 1))
SERVING = _obj(
    ["sides"],
    note=TEXT,
    sides=_obj(["candidate"], baseline=SIDE, candidate=SIDE),
    matched=_arr(_obj(["baseline", "candidate", "paired"], baseline=ID, candidate=ID,
                      paired={"type": "boolean", "description": "the same prompts in the same order on both sides "
                                                                "(input tokens equal request by request)"})),
)
SERVING["description"] = "Serving runs per side and load point (schema 1.2): latencies in ms, durations in s"

LM_SIDE = _obj(["value"], value={"type": "number"}, interval=INTERVAL,
               stderr={"type": "number", "minimum": 0, "description": "standard error recomputed from the samples"},
               stated_stderr={"type": "number", "minimum": 0, "description": "the source's own standard error"},
               documents={"type": "integer", "minimum": 1}, task_version=TEXT,
               fewshot={"type": "integer", "minimum": 0})


def derive_1_2(v1_1: dict) -> dict:
    out = copy.deepcopy(v1_1)
    out["$id"] = "https://sitegen.invalid/schema/summary-1.2.json"
    out["title"] = "sitegen SUMMARY.json, schema version 1.2"
    p = out["properties"]
    p["schema_version"] = {"const": 1.2}
    # A one-setup report (serving runs of one side) names its candidate only.
    p["report"]["properties"]["engines"]["required"] = ["candidate"]
    results = p["accuracy"]["properties"]["results"]["items"]
    for role in ("baseline", "candidate"):
        results["properties"][role] = LM_SIDE
    results["properties"]["task"] = TEXT
    results["properties"]["paired"] = {"type": "boolean", "description": "the difference is paired over shared items"}
    results["properties"]["interval_method"] = {**TEXT, "description": "how the difference's interval was made"}
    results["properties"]["aggregation"] = {**TEXT, "description": "how the value is made from the per-document samples "
                                            "(a mean, or a corpus aggregation such as weighted F1), or that it is as the "
                                            "results file states it, not recomputed"}
    # One setup (lm-eval --candidate alone): each result holds the candidate's value, no baseline.
    results["required"] = [k for k in results["required"] if k != "baseline"]
    p["serving"] = SERVING
    return out


def text_1_2() -> str:
    return json.dumps(derive_1_2(derive(json.loads(V1.read_text(encoding="utf-8")))), indent=1, ensure_ascii=False) + "\n"


# -- schema 1.3 ---------------------------------------------------------------------------------
# A report may name the series it belongs to (a nightly run of one setup) and the commit it measured:
# two optional fields of `report`, nothing else.

SERIES = {**TEXT, "maxLength": 200,
          "description": "The series this report is a point of: the runs of one setup over time (engine, model, "
                         "hardware, workload), ordered by date. Reports naming the same series must be of one setup."}
COMMIT = {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9._+/-]*$", "maxLength": 100,
          "description": "The revision the candidate was built from (a commit hash, a tag): names the point in its "
                         "series; two reports of one series never name the same commit."}


def derive_1_3(v1_2: dict) -> dict:
    out = copy.deepcopy(v1_2)
    out["$id"] = "https://sitegen.invalid/schema/summary-1.3.json"
    out["title"] = "sitegen SUMMARY.json, schema version 1.3"
    p = out["properties"]
    p["schema_version"] = {"const": 1.3}
    p["report"]["properties"]["series"] = SERIES
    p["report"]["properties"]["commit"] = COMMIT
    return out


def text_1_3() -> str:
    return json.dumps(derive_1_3(derive_1_2(derive(json.loads(V1.read_text(encoding="utf-8"))))), indent=1,
                      ensure_ascii=False) + "\n"


# -- schema 1.4 ---------------------------------------------------------------------------------
# A study: N >= 2 setups of one model and workload, each with one or more runs per load point.

GPUS = _obj(["value", "origin"], value={"type": "integer", "minimum": 1, "maximum": 100000,
                                        "description": "GPUs the setup's engine used (tensor x pipeline x data parallel)"},
            origin={**TEXT, "maxLength": 500, "description": "source id and JSON path, or the command-line option"})
SETUP = _obj(["id", "label", "format", "environment", "load_points"], id=ID, label={**TEXT, "maxLength": 100},
             format={"enum": ["vllm-bench", "sglang-bench-serving", "guidellm"]}, environment=ENVIRONMENT, gpus=GPUS,
             load_points=_arr(LOAD_POINT, 1))
SETUP["description"] = ("One setup (an engine, its version, parallelism and hardware): its load points, each with its "
                        "runs (repeats), as a serving side holds them")
STUDY_DIFFERS = _arr(_obj(["field", "values"], field=TEXT,
                          values=_arr(_obj(["setup", "value"], setup=ID, value={"type": "string", "maxLength": 500}), 2),
                          allowed={"type": "boolean", "description": "not comparable by the source's rules; let through "
                                                                     "with --allow"}))
STUDY = _obj(
    ["setups"],
    note=TEXT,
    baseline={**ID, "description": "the id of the setup the others are compared against, when there is one"},
    setups={**_arr(SETUP, 2), "maxItems": 100},
    differs=STUDY_DIFFERS,
)
STUDY["description"] = ("A study (schema 1.4): two or more serving setups, each with one or more runs per load point; "
                        "latencies in ms, durations in s")


# An accuracy study (lm-evaluation-harness): two or more setups (models, or one model's settings),
# each with one or more runs; per task and metric every run's value and its per-document scores.
SCORE = {"anyOf": [{"type": "number"}, {"type": "array", "minItems": 2, "maxItems": 2,
                                         "items": {"type": ["number", "string"]}}],
         "description": "a document's score, or its (gold, prediction) pair for a corpus metric"}
EVAL_RUN = _obj(["source"], source=ID, date={"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
                fewshot={"type": "object", "additionalProperties": {"type": ["integer", "null"], "minimum": 0},
                         "description": "few-shot examples per task"})
EVAL_SETUP = _obj(["id", "label", "runs"], id=ID, label={**TEXT, "maxLength": 100}, model={**TEXT, "maxLength": 2000},
                  runs={**_arr(EVAL_RUN, 1), "maxItems": 1000})
EVAL_VALUE = _obj(["setup", "run", "value"], setup=ID, run={"type": "integer", "minimum": 0}, value={"type": "number"},
                  stderr={"type": "number", "minimum": 0}, stated_stderr={"type": "number", "minimum": 0},
                  documents={"type": "integer", "minimum": 1}, scores={"type": "array", "items": SCORE})
EVAL_METRIC = _obj(["metric", "filter", "label", "better", "kind", "runs"], metric=TEXT, filter=TEXT,
                   label={**TEXT, "maxLength": 300}, better=BETTER,
                   kind={"enum": ["mean", "f1", "f1_weighted", "f1_macro", "f1_micro", "mcc", "bleu", "chrf", "ter", "stated"],
                         "description": "how a run's value is made from its scores (stated: as its file states it)"},
                   aggregation={**TEXT, "maxLength": 500}, runs=_arr(EVAL_VALUE, 2))
EVAL_TASK = _obj(["task", "metrics"], task=TEXT, documents={"type": "array", "items": {"type": "integer"}},
                 metrics=_arr(EVAL_METRIC, 1))
ACCURACY_STUDY = _obj(
    ["setups", "tasks"],
    note=TEXT,
    baseline={**ID, "description": "the id of the setup the others are compared against, when there is one"},
    method=_obj(["resamples", "seed", "level"], resamples={"type": "integer", "minimum": 1}, seed={"type": "integer"},
                level={"type": "number"}),
    setups={**_arr(EVAL_SETUP, 2), "maxItems": 100},
    tasks=_arr(EVAL_TASK, 1),
)
ACCURACY_STUDY["description"] = ("An accuracy study (schema 1.4): two or more lm-evaluation-harness setups, each with one "
                                 "or more runs; per task and metric each run's value and per-document scores")


def derive_1_4(v1_3: dict) -> dict:
    out = copy.deepcopy(v1_3)
    out["$id"] = "https://sitegen.invalid/schema/summary-1.4.json"
    out["title"] = "sitegen SUMMARY.json, schema version 1.4"
    out["properties"]["schema_version"] = {"const": 1.4}
    out["properties"]["study"] = STUDY
    out["properties"]["accuracy_study"] = ACCURACY_STUDY
    # A pair's side may say how many GPUs its engine used, as a study's setup does (`--set-baseline
    # gpus=N`, or tensor x pipeline parallel from its server command): throughput per GPU.
    for side in out["properties"]["serving"]["properties"]["sides"]["properties"].values():
        side["properties"]["gpus"] = GPUS
    return out


def text_1_4() -> str:
    return json.dumps(derive_1_4(derive_1_3(derive_1_2(derive(json.loads(V1.read_text(encoding="utf-8")))))), indent=1,
                      ensure_ascii=False) + "\n"


if __name__ == "__main__":
    V1_1.write_text(text(), encoding="utf-8")
    V1_2.write_text(text_1_2(), encoding="utf-8")
    V1_3.write_text(text_1_3(), encoding="utf-8")
    V1_4.write_text(text_1_4(), encoding="utf-8")
