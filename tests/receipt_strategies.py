"""Hypothesis strategies for receipts, drawn from the published JSON Schema.

`receipts()` walks sitegen's schema (site_gen.receipts.load.schema(): the published file and the sections'
fragments): objects become fixed dictionaries of their required and optional properties, arrays
short lists, and every leaf (a string with its pattern, a bounded integer, an enum, a date) is
drawn by hypothesis-jsonschema from its own schema. A field the schema adds tomorrow is drawn
without a change here.

What the schema cannot say (references to declared ids, unique keys, intervals that hold their
difference, counts within their totals, no record for an engine declared missing) is then made
true by `respect_meaning`, so that most receipts pass the meaning checks and go on to be analysed
and drawn: the part of sitegen where an accepted receipt of an unusual shape could still fail.
"""
from __future__ import annotations

import json
import math
import random
from functools import cache
from typing import Any
from collections.abc import Callable, Sequence

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

from site_gen.receipts import load
from site_gen.receipts.load import anchor_key, schema

# Ratios at and beside the edges of the default noise band (0.08) and of the ratio scale
# (0.8-1.8): where a rounded ratio and its verdict could part, and where bars are clipped.
EDGE_RATIOS = (0.5, 0.79, 0.8, 0.9149, 0.915, 0.919, 0.92, 0.9201, 0.95, 1.0, 1.05, 1.0799, 1.08, 1.0801, 1.081,
               1.085, 1.2, 1.8, 1.81, 2.5)
MAX_ITEMS = 3  # records per list: shapes matter here, not sizes (tests/test_large_receipt.py has sizes)


@cache
def _leaf(text: str) -> st.SearchStrategy:
    return from_schema(json.loads(text))


def leaf(node: dict) -> st.SearchStrategy:
    """A leaf value drawn by hypothesis-jsonschema from the leaf's own schema (cached by its text)."""
    return _leaf(json.dumps({k: v for k, v in node.items() if k != "description"}, sort_keys=True))


def walk(node: dict, path: str, overrides: dict[str, st.SearchStrategy]) -> st.SearchStrategy:
    """A strategy for the schema `node` at `path` (`speed.cells[].checkpoint`); `overrides` by path win."""
    if path in overrides:
        return overrides[path]
    if node.get("type") == "object" and "properties" in node:
        props = node["properties"]
        required = {k: walk(props[k], f"{path}.{k}".lstrip("."), overrides) for k in node.get("required", []) if k in props}
        optional = {k: walk(v, f"{path}.{k}".lstrip("."), overrides) for k, v in props.items() if k not in required}
        return st.fixed_dictionaries(required, optional=optional)
    if node.get("type") == "object" and isinstance(node.get("additionalProperties"), dict):
        return st.dictionaries(ids(), walk(node["additionalProperties"], path + "{}", overrides), max_size=3)
    if node.get("type") == "array" and isinstance(node.get("items"), dict):
        low = node.get("minItems", 0)
        return st.lists(walk(node["items"], path + "[]", overrides), min_size=low,
                        max_size=min(node.get("maxItems", MAX_ITEMS), max(MAX_ITEMS, low)))
    return leaf(node)


def _id_schema() -> dict:
    return schema()["properties"]["report"]["properties"]["checkpoints"]["items"]["properties"]["id"]


def ids() -> st.SearchStrategy:
    return leaf(_id_schema())


class Ref(int):
    """A placeholder for a checkpoint reference, made the declared checkpoint of its number later:
    the strategies then need not be made again for each example's checkpoints."""


# Parts no drawn receipt holds: provenance names places of the receipt and files an importer read
# (tests/test_fuzz.py imports real ones), serving is the serving tests' (tests/serving_receipts.py).
NOT_DRAWN = ("provenance", "serving")


@cache
def _parts(version: float = 1) -> dict[str, st.SearchStrategy]:
    s = schema(version)
    overrides = {path: st.integers(0, 2).map(Ref) for path in _checkpoint_paths(s)}
    # A lede naming a file (`x.md`) is read from disk; the text cases are what is drawn here.
    overrides["report.lede"] = leaf(s["properties"]["report"]["properties"]["lede"]).filter(lambda t: not t.endswith(".md"))
    optional = [k for k in s["properties"] if k not in s["required"] and s["properties"][k].get("type") == "object"
                and k not in NOT_DRAWN]
    return {k: walk(s["properties"][k], k, overrides) for k in ["report", *optional]}


@st.composite
def receipts(draw, sections: tuple[str, ...] | None = None, version: float = 1) -> dict:
    """A receipt the schema of `version` accepts, with its references and relations made meaningful.

    `sections`: the optional parts to draw (default: each present or not, as drawn)."""
    parts = _parts(version)
    chosen = sections if sections is not None else tuple(k for k in parts if k != "report" and draw(st.booleans()))
    receipt = {"schema_version": version, "report": draw(parts["report"])}
    for name in chosen:
        receipt[name] = draw(parts[name])
    if draw(st.booleans()):
        receipt["illustrative"] = draw(leaf(schema(version)["properties"]["illustrative"]))
    respect_meaning(receipt, Choices(draw=draw))
    return receipt


# -- the same walk without hypothesis: thousands of receipts in seconds ------------------------
# hypothesis draws a receipt in ~0.2 s (its bookkeeping, not the values): too slow for thousands.
# `random_receipt` walks the same schema with a seeded random.Random, and takes each leaf from a
# pool that hypothesis-jsonschema drew once from that leaf's own schema (patterns, bounds, dates).
POOL = 40  # values per distinct leaf schema


@cache
def _pool(text: str) -> tuple:
    """Values of the leaf schema `text`, drawn once by hypothesis (fixed seed), without repeats."""
    values: dict[str, Any] = {}

    @settings(max_examples=POOL, derandomize=True, database=None, deadline=None, phases=(Phase.generate,),
              suppress_health_check=list(HealthCheck))
    @given(_leaf(text))
    def collect(value):
        values.setdefault(json.dumps(value), value)

    collect()
    return tuple(values.values())


_POOLS: dict[int, tuple[dict, tuple]] = {}  # id of a schema node -> (the node, kept alive; its pool)


def pool(node: dict) -> tuple:
    if id(node) not in _POOLS:
        _POOLS[id(node)] = node, _pool(json.dumps({k: v for k, v in node.items() if k != "description"}, sort_keys=True))
    return _POOLS[id(node)][1]


Pick = Callable[[random.Random], Any]


def walk_random(node: dict, path: str, overrides: dict[str, Pick], rng: random.Random) -> Any:
    """A value for the schema `node` at `path`, drawn with `rng`: `walk`'s shapes, as a value."""
    if path in overrides:
        return overrides[path](rng)
    if node.get("type") == "object" and "properties" in node:
        props, required = node["properties"], [k for k in node.get("required", []) if k in node["properties"]]
        keys = required + [k for k in props if k not in required and rng.random() < 0.5]
        return {k: walk_random(props[k], f"{path}.{k}".lstrip("."), overrides, rng) for k in keys}
    if node.get("type") == "object" and isinstance(node.get("additionalProperties"), dict):
        keys = [rng.choice(pool(_id_schema())) for _ in range(rng.randint(0, 3))]
        return {k: walk_random(node["additionalProperties"], path + "{}", overrides, rng) for k in keys}
    if node.get("type") == "array" and isinstance(node.get("items"), dict):
        low = node.get("minItems", 0)
        n = rng.randint(low, min(node.get("maxItems", MAX_ITEMS), max(MAX_ITEMS, low)))
        return [walk_random(node["items"], path + "[]", overrides, rng) for _ in range(n)]
    return rng.choice(pool(node))


@cache
def _random_parts(version: float = 1) -> tuple[dict[str, Pick], list[str]]:
    s = schema(version)
    overrides: dict[str, Pick] = {path: (lambda rng: Ref(rng.randint(0, 2))) for path in _checkpoint_paths(s)}
    ledes = tuple(t for t in pool(s["properties"]["report"]["properties"]["lede"]) if not t.endswith(".md"))
    overrides["report.lede"] = lambda rng: rng.choice(ledes)
    optional = [k for k in s["properties"] if k not in s["required"] and s["properties"][k].get("type") == "object"
                and k not in NOT_DRAWN]
    return overrides, optional


def random_receipt(rng: random.Random, version: float = 1) -> dict:
    """What `receipts()` draws, from a seeded random.Random: a receipt the schema accepts, made meaningful."""
    s = schema(version)
    overrides, optional = _random_parts(version)
    receipt = {"schema_version": version, "report": walk_random(s["properties"]["report"], "report", overrides, rng)}
    for name in optional:
        if rng.random() < 0.5:
            receipt[name] = walk_random(s["properties"][name], name, overrides, rng)
    if rng.random() < 0.5:
        receipt["illustrative"] = rng.choice(pool(s["properties"]["illustrative"]))
    respect_meaning(receipt, Choices(rng=rng))
    return receipt


class Choices:
    """The choices `respect_meaning` makes, by hypothesis's `draw` or by a random.Random."""

    def __init__(self, draw=None, rng: random.Random | None = None):
        self.draw, self.rng = draw, rng

    def one_of(self, values: Sequence) -> Any:
        return self.draw(st.sampled_from(values)) if self.draw else self.rng.choice(values)

    def ratio(self) -> float:
        """A candidate/baseline ratio: often one beside an edge of the band or of the scale."""
        if self.draw:
            return self.draw(st.sampled_from(EDGE_RATIOS) | st.floats(0.2, 4.0))
        return self.rng.choice(EDGE_RATIOS) if self.rng.random() < 0.5 else self.rng.uniform(0.2, 4.0)


def _checkpoint_paths(node: dict, path: str = "") -> list[str]:
    """Paths of every field that names a checkpoint (`speed.cells[].checkpoint`), found in the schema."""
    out = []
    if node.get("type") == "object":
        for k, v in node.get("properties", {}).items():
            p = f"{path}.{k}".lstrip(".")
            out += [p] if k == "checkpoint" else _checkpoint_paths(v, p)
    elif node.get("type") == "array" and isinstance(node.get("items"), dict):
        out += _checkpoint_paths(node["items"], path + "[]")
    return out


# -- what the schema cannot say ---------------------------------------------------------------
def _unique(items: list[dict], key) -> list[dict]:
    seen, out = set(), []
    for item in items:
        k = key(item)
        if k not in seen:
            seen.add(k)
            out.append(item)
    return out


def _clean_text(node: Any) -> Any:
    """Strings without the control and non-characters a receipt must not hold (and still not blank),
    integers that JSON holds exactly."""
    if isinstance(node, dict):
        return {k: _clean_text(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_clean_text(v) for v in node]
    if isinstance(node, str) and load.BAD_CHAR.search(node):
        text = load.BAD_CHAR.sub("", node)
        return text if text.strip() else "x"
    if isinstance(node, int) and not isinstance(node, bool):
        return max(-2 ** 53, min(node, 2 ** 53))  # beyond, JSON integers are not exact: refused
    return node


def _resolve_refs(node: Any, checkpoints: list[str]) -> None:
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for k, v in list(items):
        if isinstance(v, Ref):
            node[k] = checkpoints[v % len(checkpoints)]
        else:
            _resolve_refs(v, checkpoints)


def respect_meaning(r: dict, draw: Choices) -> None:
    """Makes the drawn receipt meaningful in place: what sitegen's meaning checks require."""
    r["report"]["checkpoints"] = _unique(r["report"]["checkpoints"], lambda c: anchor_key(c["id"]))
    _resolve_refs(r, [c["id"] for c in r["report"]["checkpoints"]])
    r.update(_clean_text(r))
    r["report"].pop("supersedes", None)  # names another report: a one-report site has none
    missing = {(c["id"], role) for c in r["report"]["checkpoints"] for role in c.get("missing", {})}
    for name, fix in (("precision", _precision), ("speed", _speed), ("memory", _memory),
                      ("long_outputs", _long_outputs), ("versions", _versions), ("tool_calling", _tool_calling),
                      ("accuracy", _accuracy), ("gates", _gates), ("measures", _measures)):
        if name in r:
            fix(r[name], missing, draw)
    for name, records in (("precision", "results"), ("speed", "cells"), ("long_outputs", "replies"), ("tool_calling", "runs"),
                          ("accuracy", "results"), ("gates", "results"), ("measures", "results")):
        if name in r and not r[name][records]:
            del r[name]  # a section without records is refused ("leave the section out"), tested elsewhere


def _precision(p: dict, missing: set, draw) -> None:
    p["measures"] = _unique(p["measures"], lambda m: anchor_key(m["id"]))
    measures = {m["id"]: m for m in p["measures"]}
    results = []
    for res in _unique(p["results"], lambda x: (x["checkpoint"], x["measure"])):
        res["measure"] = res["measure"] if res["measure"] in measures else draw.one_of(sorted(measures))
        if any((res["checkpoint"], x["measure"]) == (res["checkpoint"], res["measure"]) for x in results):
            continue
        m = measures[res["measure"]]
        row_id = next((k for k, v in p["rows"].items() if v["panel"] == m["panel"]), None)
        if row_id is None:
            row_id = f"rows-{len(p['rows'])}"
            p["rows"][row_id] = {"panel": m["panel"], "plan": "plan", "teacher": "teacher", "sha256": "0" * 64}
        for role in ("baseline", "candidate"):
            if (res["checkpoint"], role) in missing:
                res.pop(role, None)
            if role in res:
                res[role]["rows"] = row_id  # a pair needs identical rows
                if m["unit"] == "percent":
                    res[role]["value"] = min(100.0, abs(res[role]["value"]) % 101)
        if "baseline" not in res and "candidate" not in res:
            continue
        if "baseline" in res and "candidate" in res:
            d = draw.one_of((0.0, 0.25, -0.25, 1.5, -1.5, 1e-4))
            low, high = sorted((d - draw.one_of((0.0, 0.1, 0.3, 2.0)), d + draw.one_of((0.0, 0.1, 0.3, 2.0))))
            res["difference"], res["interval"] = d, [low, high]
            # The two values go the way their difference says (a receipt against itself is refused).
            base = res["baseline"]["value"]
            if m["unit"] == "percent" and not 0 <= base + d <= 100:
                base = 50.0
            res["baseline"]["value"], res["candidate"]["value"] = base, base + d
        else:
            res.pop("difference", None)
            res.pop("interval", None)
        results.append(res)
    p["results"] = results


def _speed(s: dict, missing: set, draw) -> None:
    cells = [c for c in s["cells"] if not {(c["checkpoint"], "baseline"), (c["checkpoint"], "candidate")} & missing]
    cells = _unique(cells, lambda c: (c["checkpoint"], c["workload"], c.get("input_tokens"), c["concurrency"], c["metric"]))
    for c in cells:
        base = min(max(abs(c["baseline"]["rate"]), 0.5), 1e6)
        c["baseline"]["rate"] = base
        c["candidate"]["rate"] = base * draw.ratio()
    s["cells"] = cells
    if "ttft" in s:
        s["ttft"] = _unique([t for t in s["ttft"] if not {(t["checkpoint"], "baseline"), (t["checkpoint"], "candidate")} & missing],
                            lambda t: t["checkpoint"])


def _memory(m: dict, missing: set, draw) -> None:
    for part in ("kv_pool", "startup", "references"):
        if part in m:
            kept = [x for x in m[part] if (x["checkpoint"], x.get("engine")) not in missing]
            m[part] = _unique(kept, lambda x: (x["checkpoint"], x.get("engine", x.get("version"))))
    for x in m.get("startup", []):
        if not {"cold_s", "warm_s"} <= set(x) and "ready_s" not in x:
            x["ready_s"] = x.get("cold_s", x.get("warm_s", 60.0))  # readiness alone, where both startups are not given


def _long_outputs(lo: dict, missing: set, draw) -> None:
    lo["caps"] = sorted(set(lo["caps"]))
    lo["arms"] = _unique([a for a in lo["arms"] if (a["checkpoint"], a["engine"]) not in missing], lambda a: a["id"])
    lo["arms"] = _unique(lo["arms"], lambda a: (a["checkpoint"], a["engine"], a["run"]))
    arms = [a["id"] for a in lo["arms"]]
    replies = []
    for x in lo["replies"] if arms else []:
        x["arm"] = x["arm"] if x["arm"] in arms else draw.one_of(arms)
        x["cap"] = x["cap"] if x["cap"] in lo["caps"] else draw.one_of(lo["caps"])
        x["reply_tokens"] = min(x["reply_tokens"], x["cap"])
        x["thinking_tokens"] = min(x["thinking_tokens"], x["reply_tokens"])
        if x["finished"]:
            x["still_thinking"] = False
        else:
            x["reply_tokens"] = x["cap"]  # an unfinished reply ran into its cap
        if x["still_thinking"]:
            x["thinking_tokens"] = x["reply_tokens"]
        for flag, category in (("tests_passed", "code"), ("json_valid", "json")):
            if x["category"] != category:
                x.pop(flag, None)
        replies.append(x)
    lo["replies"] = _unique(replies, lambda x: (x["arm"], x["cap"], x["prompt"]))


def _versions(v: dict, missing: set, draw) -> None:
    if "precision" in v:
        v["precision"] = _unique(v["precision"], lambda x: (x["panel"], x["checkpoint"]))
        for x in v["precision"]:
            low, high = sorted(x["interval"])
            largest = x["max_abs_difference"]
            # A largest difference of 0 is bit-identical ([0, 0]); an interval never lies wholly beyond it.
            x["interval"] = [0, 0] if largest == 0 else [low, high] if high >= -largest and low <= largest else [-largest, largest]
    if "text" in v:
        v["text"] = _unique(v["text"], lambda x: x["category"])
        for x in v["text"]:
            x["identical"] = min(x["identical"], x["total"])


def _tool_calling(t: dict, missing: set, draw) -> None:
    # Points a scenario can score: a rubric's few (sums of them stay exact integers, as any benchmark's do).
    t["max_points"] = min(t["max_points"], 1000)
    runs = _unique([x for x in t["runs"] if (x["checkpoint"], x["engine"]) not in missing], lambda x: x["id"])
    for x in runs:
        x["scenarios"] = _unique(x["scenarios"], lambda sc: sc["id"])
        for sc in x["scenarios"]:
            sc["points"] = min(sc["points"], t["max_points"])
            if "turn_latency_s" in sc and not math.isfinite(sc["turn_latency_s"]):
                sc["turn_latency_s"] = 1.0
    t["runs"] = runs


def _around(interval: list, value: float) -> list:
    """`interval` (sorted) widened to hold `value`: a figure lies inside its own interval."""
    low, high = sorted(interval)
    return [min(low, value), max(high, value)]


def _accuracy(acc: dict, missing: set, draw) -> None:
    results = []
    for r in _unique(acc["results"], lambda x: (x["checkpoint"], x["measure"])):
        if {(r["checkpoint"], "baseline"), (r["checkpoint"], "candidate")} & missing:
            continue  # both engines' values are required: a checkpoint missing one has no result
        for role in ("baseline", "candidate"):
            if "interval" in r[role]:
                r[role]["interval"] = _around(r[role]["interval"], r[role]["value"])
        if ("difference" in r) != ("interval" in r):
            r.pop("difference", None)
            r.pop("interval", None)
        if "difference" in r:
            r["difference"] = r["candidate"]["value"] - r["baseline"]["value"]
            r["interval"] = _around(r["interval"], r["difference"])
        results.append(r)
    acc["results"] = results


def _gates(g: dict, missing: set, draw) -> None:
    kept = [x for x in g["results"] if (x["checkpoint"], x["engine"]) not in missing]
    g["results"] = _unique(kept, lambda x: (x["checkpoint"], x.get("group"), x["gate"], x["engine"]))
    for x in g["results"]:
        x["passed"] = x["value"] <= x["threshold"] if x["passes_when"] == "at_most" else x["value"] >= x["threshold"]


def _measures(m: dict, missing: set, draw) -> None:
    kept = [x for x in m["results"] if not {(x["checkpoint"], "baseline"), (x["checkpoint"], "candidate")} & missing]
    m["results"] = _unique(kept, lambda x: (x["checkpoint"], x["group"], x["measure"]))
    for x in m["results"]:
        for role in ("baseline", "candidate"):
            side = x[role]
            if role == "baseline" and side["median"] == 0:
                side["median"] = 1.0
            if "low" in side and "high" in side:
                side["low"], side["high"] = min(side["low"], side["median"]), max(side["high"], side["median"])


def shape(r: dict) -> dict[str, Any]:
    """A short description of a receipt for a failure message: its sections and their sizes."""
    out: dict[str, Any] = {"checkpoints": [c["id"] for c in r["report"]["checkpoints"]]}
    for name, part in r.items():
        if isinstance(part, dict) and name != "report":
            out[name] = {k: len(v) for k, v in part.items() if isinstance(v, (list, dict))}
    return out
