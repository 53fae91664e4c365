"""The ledger protocols this importer knows, each turning the two runs' rows into receipt parts.

Each recomputes its figures from results.jsonl and refuses a run whose summary.json says
otherwise: the receipt then holds only what the rows carry.
"""
from __future__ import annotations

import json
import random
import statistics
from typing import Any
from collections.abc import Callable

import numpy as np

from site_gen.core.errors import SitegenError
from site_gen.importers.common import (BOOTSTRAP_METHOD, BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, NUMBER, field_of,
                                       lines_text, paired_bootstrap, unique_rows)


def _agrees(run, path: list, computed: float, digits: int) -> None:
    """The run's own summary figure at `path` equals the rows' figure rounded as it rounds."""
    node: Any = run.summary
    for key in path:
        node = node.get(key) if isinstance(node, dict) else None
    where = "$." + ".".join(path)
    if node is None:
        return  # the summary does not carry it: the rows are the only source
    if not isinstance(node, NUMBER) or isinstance(node, bool) or round(computed, digits) != round(float(node), digits):
        raise SitegenError(f"summary.json says {node}, but results.jsonl gives {round(computed, digits)}",
                           run.summary_src.path, where)


# -- serving-probe/v1 --------------------------------------------------------------------------

def _batches(run) -> dict[str, dict]:
    """Per batch: its batch row and its request rows (with line numbers), checked for duplicates."""
    src = run.rows_src
    out: dict[str, dict] = {}
    for n, row in run.rows:
        kind = field_of(row, "kind", str, src, n)
        batch = field_of(row, "batch", str, src, n)
        b = out.setdefault(batch, {"meta": None, "requests": []})
        if kind == "batch":
            if b["meta"] is not None:
                raise SitegenError(f"duplicate row: batch '{batch}' again (first on line {b['meta'][0]})", src.path, f"line {n}")
            for key in ("concurrency", "max_tokens"):
                field_of(row, key, int, src, n, minimum=1)
            field_of(row, "wall_s", NUMBER, src, n, above=0)
            field_of(row, "temperature", NUMBER, src, n, minimum=0)
            _check_spec(row.get("spec"), src, n)
            b["meta"] = (n, row)
        elif kind == "request":
            field_of(row, "tokens", int, src, n, minimum=0)
            field_of(row, "doc_id", int, src, n)
            for key in ("decode_tok_s", "ttft_s"):
                field_of(row, key, NUMBER, src, n, minimum=0)
            b["requests"].append((n, row))
        else:
            raise SitegenError(f"unknown row kind '{kind}' (expected request or batch)", src.path, f"line {n}")
    for batch, b in out.items():
        unique_rows(b["requests"], lambda r: r["doc_id"], f"request of batch '{batch}' for doc_id", src)
        if b["meta"] is None or not b["requests"]:
            raise SitegenError(f"batch '{batch}' has no {'batch row' if b['meta'] is None else 'requests'}", src.path)
    return out


def _check_spec(spec: Any, src, n: int) -> None:
    """A batch's speculation counters: numbers, none negative, no more tokens accepted than drafted."""
    if spec is None:
        return
    if not isinstance(spec, dict):
        raise SitegenError(f"'spec' is {json.dumps(spec, ensure_ascii=False)[:40]}, not an object", src.path, f"line {n}")
    for key in ("accepted", "drafted", "drafts"):
        if key in spec:
            field_of(spec, key, NUMBER, src, n, minimum=0)
    accepted, drafted = spec.get("accepted"), spec.get("drafted")
    if isinstance(accepted, NUMBER) and isinstance(drafted, NUMBER) and accepted > drafted:
        raise SitegenError(f"spec accepts {accepted:g} tokens of {drafted:g} drafted: acceptance cannot pass 1",
                           src.path, f"line {n}")


def _workload(b: dict) -> tuple:
    """What makes two batches the same workload: sampling, token cap, concurrency and prompts."""
    m = b["meta"][1]
    return (float(m["temperature"]), m["max_tokens"], m["concurrency"], frozenset(r["doc_id"] for _, r in b["requests"]))


def pair_batches(base: dict[str, dict], cand: dict[str, dict]) -> list[tuple[str, str]]:
    """Batches of the same workload and concurrency, matched in name order where a run repeats one."""
    pairs = []
    by_key: dict[tuple, list[str]] = {}
    for name in sorted(cand):
        by_key.setdefault(_workload(cand[name]), []).append(name)
    for name in sorted(base):
        match = by_key.get(_workload(base[name]))
        if match:
            pairs.append((name, match.pop(0)))
    return pairs


def _side(run, b: dict, metric: str) -> tuple[dict, list[int]]:
    reqs = b["requests"]
    lines = [n for n, _ in reqs]
    if metric == "decode":
        return {"rate": statistics.median(r["decode_tok_s"] for _, r in reqs)}, lines
    m = b["meta"][1]
    out: dict[str, Any] = {"rate": sum(r["tokens"] for _, r in reqs) / m["wall_s"]}
    spec = m.get("spec")
    if isinstance(spec, dict) and all(isinstance(spec.get(k), NUMBER) and spec.get(k) for k in ("accepted", "drafted", "drafts")):
        out["acceptance"] = {"rate": spec["accepted"] / spec["drafted"], "mean_length": 1 + spec["accepted"] / spec["drafts"]}
    return out, lines + [b["meta"][0]]


def _check_batch(run, name: str, b: dict) -> None:
    s = _side(run, b, "aggregate")[0]
    _agrees(run, ["batches", name, "median_decode_tok_s"], _side(run, b, "decode")[0]["rate"], 3)
    _agrees(run, ["batches", name, "aggregate_tok_s"], s["rate"], 1)
    _agrees(run, ["batches", name, "median_ttft_s"], statistics.median(r["ttft_s"] for _, r in b["requests"]), 3)
    if "acceptance" in s:
        _agrees(run, ["batches", name, "acceptance_rate"], s["acceptance"]["rate"], 4)


def serving_probe(doc: dict, base, cand, prov, allow) -> None:
    bb, cb = _batches(base), _batches(cand)
    for run, batches in ((base, bb), (cand, cb)):
        for name, b in batches.items():
            _check_batch(run, name, b)
    pairs = pair_batches(bb, cb)
    if not pairs:
        raise SitegenError("no batch of the candidate has the workload and concurrency of one of the baseline's", cand.rows_src.path)
    checkpoint = doc["report"]["checkpoints"][0]["id"]
    cells: list[dict] = []
    measures: list[dict] = []
    for bname, cname in pairs:
        workload = bname if bname == cname else f"{bname} / {cname}"
        m = bb[bname]["meta"][1]
        for metric in ("aggregate", "decode"):
            i = len(cells)
            cell = {"checkpoint": checkpoint, "workload": workload, "output_tokens": m["max_tokens"],
                    "concurrency": m["concurrency"], "metric": metric, "unit": "tokens/s"}
            for role, run, batches, name in (("baseline", base, bb, bname), ("candidate", cand, cb, cname)):
                cell[role], lines = _side(run, batches[name], metric)
                prov.cite(f"$.speed.cells[{i}].{role}", run.rows_src, f"{lines_text(lines)} (batch '{name}')")
            prov.note(f"$.speed.cells[{i}]", base.rows_src.path, f"line {bb[bname]['meta'][0]} (batch '{bname}')")
            cells.append(cell)
        prov.note(f"$.measures.results[{len(measures)}]", base.rows_src.path, f"line {bb[bname]['meta'][0]} (batch '{bname}')")
        measures.append(_ttft_measure(checkpoint, workload, (base, bb[bname], bname), (cand, cb[cname], cname), len(measures), prov))
    doc["speed"] = {"cells": cells}
    doc["measures"] = {"results": measures,
                       "note": "Time to first token of each request, per batch: median, range and every request as a sample."}
    unpaired = sorted(set(bb) - {b for b, _ in pairs}) + sorted(set(cb) - {c for _, c in pairs})
    if unpaired:
        prov.note("$.report.not_covered", cand.rows_src.path, "the batch rows")
        doc["report"]["not_covered"] = [f"Batches without a batch of the same workload and concurrency on the other side: "
                                        f"{', '.join(unpaired)}."]


def _ttft_measure(checkpoint: str, workload: str, base: tuple, cand: tuple, i: int, prov) -> dict:
    out: dict[str, Any] = {"checkpoint": checkpoint, "group": workload, "measure": "ttft", "label": "time to first token",
                           "unit": "s", "better": "lower"}
    for role, (run, b, name) in (("baseline", base), ("candidate", cand)):
        samples = [r["ttft_s"] for _, r in b["requests"]]
        out[role] = {"median": statistics.median(samples), "low": min(samples), "high": max(samples), "samples": samples}
        prov.cite(f"$.measures.results[{i}].{role}", run.rows_src, f"{lines_text(n for n, _ in b['requests'])} (batch '{name}')")
    return out


# -- tool-eval-bench/v1 ------------------------------------------------------------------------

def _grouped(run, fields: dict[str, type], key: tuple[str, ...], what: str, group: str) -> dict[Any, list[tuple[int, dict]]]:
    """The rows, typed and unique by `key`, grouped by `group` (each with its line number)."""
    src = run.rows_src
    for n, row in run.rows:
        for name, kind in fields.items():
            field_of(row, name, kind, src, n)
    unique_rows(run.rows, lambda r: tuple(r[k] for k in key) if len(key) > 1 else r[key[0]], what, src)
    out: dict[Any, list] = {}
    for n, row in run.rows:
        out.setdefault(row[group], []).append((n, row))
    return out


def _tool_rows(run) -> dict[int, list[tuple[int, dict]]]:
    reps = _grouped(run, {"rep": int, "scenario_id": str, "points": int}, ("rep", "scenario_id"), "repeat and scenario", "rep")
    for n, row in run.rows:
        field_of(row, "points", int, run.rows_src, n, minimum=0)
    for rep, rows in reps.items():
        _agrees(run, ["reps", str(rep), "points"], sum(r["points"] for _, r in rows), 0)
    return reps


def _max_points(run, reps: dict) -> int:
    """Points a scenario can score: the summary's max_points over its scenarios (the rows do not carry it)."""
    for rep, rows in reps.items():
        s = (run.summary.get("reps") or {}).get(str(rep)) or {}
        if not isinstance(s, dict):
            raise SitegenError("expected an object", run.summary_src.path, f"$.reps.{rep}")
        if isinstance(s.get("max_points"), int) and s["max_points"] > 0 and s["max_points"] % len(rows) == 0:
            return s["max_points"] // len(rows)
    raise SitegenError("summary.json gives no max_points for a repeat; the points scale is not known", run.summary_src.path, "$.reps")


def tool_eval(doc: dict, base, cand, prov, allow) -> None:
    checkpoint = doc["report"]["checkpoints"][0]["id"]
    runs: list[dict] = []
    scale: set = set()
    sets: dict = {}
    if not isinstance(base.summary.get("reps", {}), dict) or not isinstance(cand.summary.get("reps", {}), dict):
        bad = base if not isinstance(base.summary.get("reps", {}), dict) else cand
        raise SitegenError("expected an object", bad.summary_src.path, "$.reps")
    for role, run in (("baseline", base), ("candidate", cand)):
        reps = _tool_rows(run)
        scale.add(_max_points(run, reps))
        sets[role] = {r["scenario_id"] for rows in reps.values() for _, r in rows}
        for rep in sorted(reps):
            rows = reps[rep]
            prov.cite(f"$.tool_calling.runs[{len(runs)}]", run.rows_src, f"{lines_text(n for n, _ in rows)} (repeat {rep})")
            runs.append({"id": f"{role}-rep{rep}", "checkpoint": checkpoint, "engine": role, "date": run.meta["date"],
                         "scenarios": [{"id": r["scenario_id"], "points": r["points"]} for _, r in rows]})
    if len(scale) != 1:
        raise SitegenError(f"the runs score scenarios on different scales ({sorted(scale)})", cand.summary_src.path, "$.reps")
    _same_items(sets["baseline"], sets["candidate"], "scenarios", doc, allow, cand.rows_src.path)
    harness = (base.meta.get("software") or {}).get("harness")
    prov.note("$.tool_calling.benchmark", base.meta_src.path, "$.software.harness")
    prov.note("$.tool_calling.max_points", cand.summary_src.path, "$.reps")
    doc["tool_calling"] = {"benchmark": harness if isinstance(harness, str) and harness.strip() else base.protocol,
                           "max_points": scale.pop(), "runs": runs}


def _same_items(a: set, b: set, what: str, doc: dict, allow: set, where) -> set:
    """The items both runs hold; different sets are refused unless `--allow questions`."""
    if a != b:
        if "questions" not in allow:
            raise SitegenError(f"the runs hold different {what} ({len(a - b)} only in the baseline, {len(b - a)} only in the "
                               "candidate); not comparable (pass --allow questions to pair the shared ones)", where)
        doc["report"].setdefault("differs", []).append(
            {"field": what, "baseline": f"{len(a)} ({len(a - b)} not in the candidate)",
             "candidate": f"{len(b)} ({len(b - a)} not in the baseline)", "allowed": True})
    return a & b


# -- gpqa-diamond/v1 ---------------------------------------------------------------------------

def _gpqa_rows(run) -> dict[Any, list[tuple[int, dict]]]:
    out = _grouped(run, {"doc_id": int, "pass": int, "correct_flexible": bool}, ("doc_id", "pass"), "question and pass", "doc_id")
    for n, row in run.rows:
        if "correct_stated" in row:
            field_of(row, "correct_stated", bool, run.rows_src, n)
        for key in ("prompt_hash", "target_hash"):
            if row.get(key) is not None:
                field_of(row, key, str, run.rows_src, n)
    return out


# The ledger's own interval of a run's accuracy (SCHEMA.md, tools/verify.py): 2,000 resamples of the
# questions, each with all its passes, drawn by Python's random.Random(0), the 2.5th and 97.5th
# percentiles of the sorted means, rounded to 4 digits. Made again here so that the summary's
# interval is shown only when the rows give it.
LEDGER_RESAMPLES = 2000
LEDGER_SEED = 0


def ledger_blocks(n: int, count: int, block: int):
    """`random.Random(LEDGER_SEED).randrange(n)`, `count` of them, in blocks of `block` (the last shorter).

    The same Mersenne Twister seeded the same way (numpy's RandomState seeded with a sequence
    initialises by array, as Python's seed does with an int), and randrange's own rule: take the top
    `n.bit_length()` bits of each 32-bit output, keep those below n. Python's loop took 50 ms for a
    run of 198 questions, a third of an import's time; tests/test_import_safety.py compares the two."""
    if n <= 0:
        random.Random(LEDGER_SEED).randrange(n)  # Python's own error for an empty range
    bits = n.bit_length()
    if bits > 32:  # randrange's rule differs above 32 bits; no ledger run holds 4 billion questions
        raise ValueError(f"{n} questions: too many to draw as the ledger does")
    stream, kept, made = np.random.RandomState([LEDGER_SEED]), np.empty(0, np.intp), 0
    while made < count:
        want = min(block, count - made)
        if len(kept) < want:
            # Enough outputs for what is still missing, at the least likely rate of keeping (n / 2**bits).
            raw = stream.randint(0, 2 ** 32, size=(want - len(kept)) * (1 << bits) // n + 64, dtype=np.uint32)
            raw >>= np.uint32(32 - bits)
            kept = np.concatenate([kept, raw[raw < n].astype(np.intp)])
            continue
        yield kept[:want]
        kept, made = kept[want:], made + want


def ledger_interval(by: dict[Any, list[tuple[int, dict]]], key: str) -> tuple[float, float]:
    ids = sorted(by)
    hits = np.array([sum(1 for _, r in by[i] if r[key]) for i in ids], dtype=np.int64)
    sizes = np.array([len(by[i]) for i in ids], dtype=np.int64)
    # Resamples a block at a time (about a million draws): a run of many questions holds no
    # resamples x questions matrix. Sums of whole counts, then one int / int each, as the ledger's.
    n = len(ids)
    parts = []
    for drawn in ledger_blocks(n, n * LEDGER_RESAMPLES, max(1, 1_000_000 // n) * n):
        picks = drawn.reshape(-1, n)
        parts.append(hits[picks].sum(axis=1) / sizes[picks].sum(axis=1))
    means = np.sort(np.concatenate(parts))
    return (round(float(means[int(0.025 * LEDGER_RESAMPLES)]), 4), round(float(means[int(0.975 * LEDGER_RESAMPLES) - 1]), 4))


def _hash_mismatch(a: dict, b: dict, ids) -> Any:
    for i in sorted(ids):
        ka = {(r.get("prompt_hash"), r.get("target_hash")) for _, r in a[i]}
        kb = {(r.get("prompt_hash"), r.get("target_hash")) for _, r in b[i]}
        if ka != kb:
            return i
    return None


def _per_item(by: dict, ids: list, key: str) -> np.ndarray:
    """Each question's score over its passes (1.0 correct, 0.0 not)."""
    return np.array([np.mean([1.0 if r[key] else 0.0 for _, r in by[i]]) for i in ids])


def _accuracy_result(key: str, ids: list, bq: dict, cq: dict, base, cand, doc: dict, prov, i: int) -> dict:
    b, c = _per_item(bq, ids, key), _per_item(cq, ids, key)
    diff, low, high = paired_bootstrap(b, c)
    out = {"checkpoint": doc["report"]["checkpoints"][0]["id"], "measure": key, "label": f"accuracy ({key})",
           "unit": "proportion", "better": "higher", "items": len(ids)}
    for role, run, by, vals in (("baseline", base, bq, b), ("candidate", cand, cq, c)):
        rows = [r for q in by.values() for _, r in q]
        everything = sum(1.0 if r[key] else 0.0 for r in rows) / len(rows)
        _agrees(run, [key.replace("correct_", "accuracy_")], everything, 4)
        out[role] = {"value": float(np.mean(vals))}
        prov.cite(f"$.accuracy.results[{i}].{role}.value", run.rows_src, lines_text(n for q in ids for n, _ in by[q]))
        name = key.replace("correct_", "accuracy_") + "_ci95"
        ci = run.summary.get(name)
        if ci is not None:
            if not (isinstance(ci, list) and len(ci) == 2 and all(isinstance(x, NUMBER) and not isinstance(x, bool) for x in ci)):
                raise SitegenError("expected an interval [low, high]", run.summary_src.path, f"$.{name}")
            rows_ci = ledger_interval(by, key)
            if (round(float(ci[0]), 4), round(float(ci[1]), 4)) != rows_ci:
                raise SitegenError(f"summary.json says {ci}, but results.jsonl gives {list(rows_ci)} (the ledger's bootstrap "
                                   f"over questions: {LEDGER_RESAMPLES} resamples, seed {LEDGER_SEED})",
                                   run.summary_src.path, f"$.{name}")
        # The run's own interval covers all its questions: shown only when the pairing kept them all.
        if len(ids) == len(by) and ci is not None:
            out[role]["interval"] = [float(ci[0]), float(ci[1])]
            prov.cite(f"$.accuracy.results[{i}].{role}.interval", run.summary_src, f"$.{name}")
    out["difference"], out["interval"] = diff, [low, high]
    prov.cite(f"$.accuracy.results[{i}].difference", cand.rows_src,
              f"{lines_text(n for q in ids for n, _ in cq[q])}, paired by doc_id with {base.rows_src.name}")
    return out


def _empty_result(ids: list, bq: dict, cq: dict, base, cand, doc: dict, prov, i: int) -> dict:
    """The share of answers left empty (no answer after reasoning), per run and paired by question;
    each run's count must be the one its summary states."""
    b, c = _per_item(bq, ids, "empty"), _per_item(cq, ids, "empty")
    diff, low, high = paired_bootstrap(b, c)
    out = {"checkpoint": doc["report"]["checkpoints"][0]["id"], "measure": "empty", "label": "empty answers (no answer after reasoning)",
           "unit": "proportion", "better": "lower", "items": len(ids)}
    for role, run, by, vals in (("baseline", base, bq, b), ("candidate", cand, cq, c)):
        _agrees(run, ["empty"], sum(1 for q in by.values() for _, r in q if r["empty"]), 0)
        out[role] = {"value": float(np.mean(vals))}
        prov.cite(f"$.accuracy.results[{i}].{role}.value", run.rows_src, lines_text(n for q in ids for n, _ in by[q]))
    out["difference"], out["interval"] = diff, [low, high]
    prov.cite(f"$.accuracy.results[{i}].difference", cand.rows_src,
              f"{lines_text(n for q in ids for n, _ in cq[q])}, paired by doc_id with {base.rows_src.name}")
    return out


def gpqa(doc: dict, base, cand, prov, allow) -> None:
    bq, cq = _gpqa_rows(base), _gpqa_rows(cand)
    shared = _same_items(set(bq), set(cq), "questions", doc, allow, cand.rows_src.path)
    bad = _hash_mismatch(bq, cq, shared)
    if bad is not None:
        line = cq[bad][0][0]
        raise SitegenError(f"question {bad} has other prompt or target hashes than in the baseline; not the same question",
                           cand.rows_src.path, f"line {line}")
    ids = sorted(shared)
    keys = ["correct_flexible"] + (["correct_stated"] if all("correct_stated" in r for q in (bq, cq) for rows in q.values()
                                                            for _, r in rows) else [])
    for i, _ in enumerate(keys):
        prov.note(f"$.accuracy.results[{i}]", cand.rows_src.path, "the question rows")
    results = [_accuracy_result(k, ids, bq, cq, base, cand, doc, prov, i) for i, k in enumerate(keys)]
    # "Scores or finishes differently": the questions left without an answer after reasoning are the
    # other half of that question, paired by question as the scores are.
    if all(isinstance(r.get("empty"), bool) for q in (bq, cq) for rows in q.values() for _, r in rows):
        prov.note(f"$.accuracy.results[{len(results)}]", cand.rows_src.path, "the question rows' empty")
        results.append(_empty_result(ids, bq, cq, base, cand, doc, prov, len(results)))
    doc["accuracy"] = {"method": {"name": BOOTSTRAP_METHOD, "resamples": BOOTSTRAP_RESAMPLES, "seed": BOOTSTRAP_SEED,
                                  "level": 0.95}, "results": results,
                       "note": "Each question's score is its mean over the run's passes; the difference pairs questions by doc_id."}


KNOWN: dict[str, Callable] = {"serving-probe/v1": serving_probe, "tool-eval-bench/v1": tool_eval, "gpqa-diamond/v1": gpqa}
