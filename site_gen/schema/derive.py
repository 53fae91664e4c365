"""Schema 1.1 is schema 1 with what real harnesses write: this module derives it, and
`summary-1.1.schema.json` (published beside version 1) is its output.

    python -m site_gen.schema.derive        # rewrites summary-1.1.schema.json

A test checks that the published file is what this derivation gives, so the two cannot drift.
Every change opens something version 1 closed or adds an optional part; nothing version 1
accepts (but its `schema_version`) is refused.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path

HERE = Path(__file__).parent
V1 = HERE / "summary-1.schema.json"
V1_1 = HERE / "summary-1.1.schema.json"

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
    out = {"type": "array", "items": item}
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


if __name__ == "__main__":
    V1_1.write_text(text(), encoding="utf-8")
