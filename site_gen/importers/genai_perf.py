"""GenAI-Perf's per-request file, perf_analyzer's `profile_export.json` (read from GenAI-Perf's
`genai_perf/profile_data_parser/llm_profile_data_parser.py`): `experiments[].requests[]`, each with
its `timestamp` and `response_timestamps` (ns) and the raw `response_outputs`. The responses
without content are left out, as GenAI-Perf leaves them out; the request latency, time to first
and to second token and request throughput of the summary are checked against what is left."""
from __future__ import annotations

import json
import math
from itertools import pairwise
from typing import Any

import numpy as np

from site_gen.core.errors import SitegenError
from site_gen.importers import profile_export as pe
from site_gen.importers import serving_common as sc


def content(text: Any) -> str | None:
    """A streamed or whole response's text as GenAI-Perf reads it (OpenAI completions or chat, or
    Triton generate), or None where sitegen cannot tell it."""
    if not isinstance(text, str):
        return None
    text = text.strip()
    if not text or text.startswith((":", "event:", "id:", "retry:")):
        return ""
    if text.startswith("data:"):
        text = text[5:].strip()
    if text == "[DONE]":
        return ""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # a response nested past the parser's depth is no text it can tell
        return None
    if not isinstance(data, dict):
        return None
    if "text_output" in data:
        return str(data["text_output"] or "")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return "" if choices == [] else None
    c = choices[0]
    for part in ("delta", "message"):
        if isinstance(c.get(part), dict):
            return str(c[part].get("content") or "")
    return str(c.get("text") or "")


def requests(src: Any, data: dict, load: tuple) -> dict[str, Any] | None:
    """The experiment of perf_analyzer's export that matches the summary's load (or its only one):
    per request its latency, TTFT and time to second token (ns), and the duration; None where a
    response's text cannot be told (the figures are then not recomputed)."""
    exps = data.get("experiments")
    if not isinstance(exps, list) or not exps:
        raise SitegenError("no experiments", src.path, "$.experiments")
    pick = 0
    if len(exps) > 1:
        want_mode, want_value = ("concurrency", load[1]) if load[1] is not None else ("request_rate", load[0])
        found = [i for i, e in enumerate(exps) if isinstance(e, dict) and (e.get("experiment") or {}).get("mode") == want_mode
                 and (e.get("experiment") or {}).get("value") == want_value]
        if len(found) != 1:
            raise SitegenError(f"{len(exps)} experiments, and {len(found)} at the summary's load ({want_mode} {want_value})",
                               src.path, "$.experiments")
        pick = found[0]
    reqs = exps[pick].get("requests") if isinstance(exps[pick], dict) else None
    if not isinstance(reqs, list):
        raise SitegenError("no requests", src.path, f"$.experiments[{pick}].requests")
    lat, ttft, ttst, first, last, gaps = [], [], [], [], [], []
    for i, r in enumerate(reqs):
        at = f"$.experiments[{pick}].requests[{i}]"
        if not isinstance(r, dict) or not isinstance(r.get("timestamp"), int) or not isinstance(r.get("response_timestamps"), list):
            raise SitegenError("a request needs its timestamp and response_timestamps (ns)", src.path, at)
        stamps, outs = r["response_timestamps"], r.get("response_outputs") or []
        if not isinstance(outs, list) or len(outs) != len(stamps) or not all(isinstance(t, int) for t in stamps):
            raise SitegenError("response_timestamps and response_outputs differ in length", src.path, at)
        kept = []
        for t, o in zip(stamps, outs):
            text = content(o.get("response") if isinstance(o, dict) and "response" in o else
                            json.dumps(o) if isinstance(o, dict) and "text_output" in o else None)
            if text is None:
                return None
            if text:
                kept.append(t)
        if not kept:
            continue
        t0 = r["timestamp"]
        if kept[0] < t0:
            raise SitegenError("a response before its request", src.path, at + ".response_timestamps[0]")
        lat.append(kept[-1] - t0)
        ttft.append(kept[0] - t0)
        if len(kept) > 1:
            ttst.append(kept[1] - kept[0])
        first.append(t0)
        last.append(kept[-1])
        gaps.append([b - a for a, b in pairwise(kept)])
    if not lat:
        raise SitegenError("no request has a response with content", src.path, f"$.experiments[{pick}].requests")
    duration = (max(last) - min(first)) / 1e9
    return {"request_latency": np.array(lat, float), "time_to_first_token": np.array(ttft, float),
            "time_to_second_token": np.array(ttst, float), "requests": len(reqs), "kept": len(lat), "duration": duration,
            "start": min(first), "pick": pick}


def stated(src: Any, metrics: dict, base: str, pa: dict | None, pa_name: str) -> tuple[list[dict], dict[str, str]]:
    out, at = [], {}
    for tag, entry in metrics.items():
        unit = entry.get("unit")
        for stat, value in entry.items():
            if stat not in pe.STATS or value is None:
                continue
            key, path = f"{tag}.{stat}", f"{base}.{tag}.{stat}"
            if not sc.is_number(value) or not math.isfinite(value):
                raise SitegenError(f"{key} is {json.dumps(value)[:40]}, not a finite number", src.path, path)
            computed, check, tol = None, ("none" if pa is None else "rows"), key
            if pa is not None:
                if tag in ("request_latency", "time_to_first_token", "time_to_second_token") and unit == "ms":
                    computed, tol = pe.stat(pa[tag], stat) * 1e-6, key + "_ms"
                elif tag == "request_throughput" and stat == "avg":
                    computed, tol = pa["requests"] / pa["duration"], "duration"
                else:
                    check = "not recomputed"
            if computed is not None and (math.isnan(computed) or not pe.agrees(float(value), computed, tol)):
                raise SitegenError(f"{key} says {value}, but the requests of {pa_name} give {computed}", src.path, path)
            out.append({"key": key, "value": value, "check": check})
            at[key] = path
    return out, at
