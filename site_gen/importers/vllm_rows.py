"""A vLLM or SGLang run's per-request arrays as the receipt's columns, and every summary figure
the run states recomputed from them as the clients compute them (successful requests only,
population standard deviation, linear percentiles, seconds x 1000): one that disagrees refuses the
import, naming the file and the key."""
from __future__ import annotations

import itertools
import re
from typing import TYPE_CHECKING, Any

import numpy as np

from site_gen.importers import serving_common as sc

if TYPE_CHECKING:
    from site_gen.importers.vllm_bench import Run

ARRAYS = ("input_lens", "output_lens", "ttfts", "itls", "errors")
STAT = re.compile(r"^(mean|median|std|max|p([0-9]+(?:\.[0-9]+)?))_(ttft|tpot|itl|e2el|e2e_latency)_ms$")


def _array(run: Run, arrays: dict, key: str, base: str) -> list:
    v = arrays.get(key)
    if not isinstance(v, list):
        raise run.fail(f"'{key}' is not a list", f"{base}.{key}")
    return v


def rows_of(run: Run) -> dict | None:
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


def request_columns(run: Run, raw: dict) -> dict:
    """Seconds arrays of the successful requests (as the client computes its figures) and the receipt's columns.

    Checked whole with numpy; a column that fails is walked again value by value (`_slow_check`) for
    the first bad entry's place."""
    base = raw["base"]
    n = len(raw["ttfts"])
    errors, itls = raw["errors"], raw["itls"]
    ok_types = (_typed(raw["input_lens"], {int}) and _typed(raw["output_lens"], {int}) and _typed(raw["ttfts"], {int, float})
                and _typed(errors, {str, type(None)}) and _typed(itls, {list}) and
                ("latencies" not in raw or _typed(raw["latencies"], {int, float})))
    flat = list(itertools.chain.from_iterable(itls)) if ok_types else []
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
            "inputs": inputs, "outputs": outputs, "columns": cols, "end_measured": lat_given is not None}


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


def gap_summary(gaps: np.ndarray) -> dict:
    if len(gaps) == 0:
        return {"gaps": 0, **dict.fromkeys(("mean_ms", "median_ms", "std_ms", "p90_ms", "p95_ms", "p99_ms", "max_ms"), 0.0)}
    ms = gaps * 1000
    p90, p95, p99 = np.percentile(ms, [90, 95, 99])
    return {"gaps": int(len(gaps)), "mean_ms": sc.r6(ms.mean()), "median_ms": sc.r6(np.median(ms)), "std_ms": sc.r6(ms.std()),
            "p90_ms": sc.r6(p90), "p95_ms": sc.r6(p95), "p99_ms": sc.r6(p99), "max_ms": sc.r6(ms.max())}


def stated_figures(run: Run, figs: dict | None, duration: float) -> list[dict]:
    """Every summary figure of the record, each checked against what the rows (or its totals) give."""
    rec, out = run.rec, []
    totals: dict[str, Any] = {k: rec.get(k) for k in ("completed", "total_input_tokens", "total_output_tokens")}
    # SGLang's rows hold no request's end (its client times it at the stream's last event, after the
    # last token): its end-to-end, TPOT and concurrency figures are not recomputed; nor its ITL where
    # it spread each chunk's gap over the chunk's retokenized tokens (speculative decoding, OpenAI API).
    sglang = run.fmt == "sglang-bench-serving" and figs is not None
    no_end = figs is not None and sglang and not figs["end_measured"]
    retokenized = sglang and sc.is_number(rec.get("accept_length")) and rec["accept_length"] > 0 \
        and str(rec.get("backend")) in ("sglang-oai", "sglang-oai-chat")
    for key, v in rec.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            continue
        m = STAT.match(key)
        computed, check = None, "rows"
        if m and (no_end and m.group(3) in ("tpot", "e2e_latency", "e2el") or retokenized and m.group(3) == "itl"):
            check = "not recomputed"
        elif m:
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
            elif no_end:
                check = "not recomputed"
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
