"""Named figures that prose can cite (`{{ kv_ratio_range }}`) and checked statements can test.

Each figure is computed from one report's analysis and carries how it was computed, so a page
can say where the number in a sentence came from.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Callable

from site_gen.analysis.report import Analysis


@dataclass(frozen=True)
class Figure:
    value: Any
    kind: str  # how to print it: count, ratio, ratio_range, speed_ratio_range, seconds, phrase, bool
    explain: str
    band: float | None = None  # a speed ratio's noise band: its printed digits follow its verdict


class FigureError(ValueError):
    """A figure that does not exist, or lacks data or arguments."""


REGISTRY: dict[str, tuple[Callable[..., Figure], str]] = {}


def figure(name: str, doc: str):
    def register(fn):
        REGISTRY[name] = (fn, doc)
        return fn
    return register


def _need(frame, what: str):
    if frame is None or len(frame) == 0:
        raise FigureError(f"the report has no {what}")
    return frame


def _rows(frame, what: str, missing: str, **match):
    """The rows of the report's `what` whose columns equal `match`; FigureError `missing` if none."""
    rows = _need(frame, what)
    for column, value in match.items():
        rows = rows[rows[column] == value]
    if rows.empty:
        raise FigureError(missing)
    return rows


def _speed_counts(a: Analysis, checkpoint: str | None = None, metric: str | None = None):
    chosen = {k: v for k, v in (("checkpoint", checkpoint), ("metric", metric)) if v is not None}
    counts = _rows(a.speed_counts, "speed cells", f"no speed cells for checkpoint={checkpoint} metric={metric}", **chosen)
    return {k: int(counts[k].sum()) for k in ("faster", "level", "slower", "cells")}


@figure("speed_verdict", "phrase: how the candidate compares across every speed cell")
def speed_verdict(a: Analysis, checkpoint: str | None = None, metric: str | None = None) -> Figure:
    c = _speed_counts(a, checkpoint, metric)
    if c["slower"] == 0 and c["level"] == 0:
        text = "faster in every speed cell"
    elif c["slower"] == 0:
        text = "faster or level in every speed cell"
    elif c["faster"] == 0 and c["level"] == 0:
        text = "slower in every speed cell"
    else:
        text = f"slower in {c['slower']} of {c['cells']} speed cells"
    return Figure(text, "phrase", f"{c['faster']} faster, {c['level']} level, {c['slower']} slower of {c['cells']} cells "
                  f"(noise band ±{a.band:.0%})")


@figure("speed_count", "count of speed cells with a verdict (verdict=faster|level|slower|cells)")
def speed_count(a: Analysis, verdict: str = "cells", checkpoint: str | None = None, metric: str | None = None) -> Figure:
    c = _speed_counts(a, checkpoint, metric)
    if verdict not in c:
        raise FigureError(f"verdict must be one of faster, level, slower, cells; got {verdict!r}")
    return Figure(c[verdict], "count", f"{verdict} cells of {c['cells']}"
                  + (f", {checkpoint}" if checkpoint else "") + (f", {metric}" if metric else ""))


@figure("speed_range", "range of speed ratios over a selection (selection=one_stream_decode|aggregate_long_input)")
def speed_range(a: Analysis, checkpoint: str, selection: str = "one_stream_decode") -> Figure:
    row = _rows(a.speed_ranges, "speed cells", f"no range for checkpoint={checkpoint} selection={selection}",
                checkpoint=checkpoint, selection=selection).iloc[0]
    return Figure((row["low"], row["high"]), "speed_ratio_range",
                  f"min and max of {row['cells']} cell ratios: {row['label']}, {checkpoint}", band=a.band)


@figure("kv_ratio_range", "range of KV pool ratios (candidate / baseline) across checkpoints")
def kv_ratio_range(a: Analysis) -> Figure:
    kv = _need(a.kv, "KV pool sizes").dropna(subset=["ratio"])
    return Figure((kv["ratio"].min(), kv["ratio"].max()), "ratio_range",
                  f"min and max of candidate / baseline KV pool tokens over {len(kv)} checkpoints")


@figure("kv_ratio", "KV pool ratio (candidate / baseline) on one checkpoint")
def kv_ratio(a: Analysis, checkpoint: str) -> Figure:
    row = _rows(a.kv, "KV pool sizes", f"no KV pool sizes for checkpoint {checkpoint}", checkpoint=checkpoint)
    return Figure(row["ratio"].iloc[0], "ratio", f"candidate / baseline KV pool tokens, {checkpoint}")


@figure("startup_max", "slowest startup (cold or warm) of one engine (engine=candidate|baseline)")
def startup_max(a: Analysis, engine: str = "candidate") -> Figure:
    s = _rows(a.startup, "startup times", f"no startup times for engine {engine}", engine=engine)
    return Figure(s["slowest"].max(), "seconds", f"largest of {2 * len(s)} cold and warm startups, {engine}")


@figure("looped_replies", "replies that looped, every arm and cap")
def looped_replies(a: Analysis) -> Figure:
    t = _need(a.long_table, "long outputs")
    return Figure(int(t["looped"].sum()), "count", f"looped replies over {int(t['replies'].sum())} replies")


@figure("precision_further", "resolved paired precision gaps where the candidate is further from the reference")
def precision_further(a: Analysis) -> Figure:
    s = _need(a.precision_summary, "precision results")
    return Figure(s["further"], "count", f"{s['further']} of {s['pairs']} paired differences are resolved and point away from the reference")


@figure("precision_closer", "resolved paired precision gaps where the candidate is closer to the reference")
def precision_closer(a: Analysis) -> Figure:
    s = _need(a.precision_summary, "precision results")
    return Figure(s["closer"], "count", f"{s['closer']} of {s['pairs']} paired differences are resolved and point towards the reference")


@figure("precision_unresolved", "paired precision gaps whose 95% interval includes zero")
def precision_unresolved(a: Analysis) -> Figure:
    s = _need(a.precision_summary, "precision results")
    return Figure(s["pairs"] - s["resolved"], "count", f"{s['pairs'] - s['resolved']} of {s['pairs']} intervals include zero")


@figure("versions_identical", "true when the previous version's results on one panel are bit-identical (panel=…)")
def versions_identical(a: Analysis, panel: str) -> Figure:
    row = _rows(a.versions_precision, "version comparison", f"no version comparison on panel {panel}", panel=panel)
    return Figure(bool(row["identical"].iloc[0]), "bool", f"largest difference on {panel}: {row['max_abs_difference'].iloc[0]}")


@figure("engine", "an engine's name and version (role=candidate|baseline|previous, show=label|name|version|long_name)")
def engine(a: Analysis, role: str = "candidate", show: str = "label") -> Figure:
    r = a.report
    if role == "previous":
        v = r.section("versions")
        if v is None:
            raise FigureError("the report has no previous version to compare with")
        e = {"name": v["previous"]["name"], "version": v["previous"]["version"], "long_name": ""}
    elif role in ("candidate", "baseline"):
        eng = r.candidate if role == "candidate" else r.baseline
        e = {"name": eng.name, "version": eng.version, "long_name": eng.long_name}
    else:
        raise FigureError(f"role must be one of candidate, baseline, previous; got {role!r}")
    shown = {"label": f"{e['name']} v{e['version']}", "name": e["name"], "version": f"v{e['version']}",
             "long_name": e["long_name"] or e["name"]}
    if show not in shown:
        raise FigureError(f"show must be one of {', '.join(shown)}; got {show!r}")
    return Figure(shown[show], "phrase", f"the {role} engine as the receipt names it")


@figure("precision_reference", "what precision is measured against (e.g. BF16)")
def precision_reference(a: Analysis) -> Figure:
    p = a.report.section("precision")
    if p is None:
        raise FigureError("the report has no precision results")
    return Figure(p["reference"], "phrase", "the reference of the precision measures")


@figure("hardware", "the hardware the report ran on, as the receipt states it")
def hardware(a: Analysis) -> Figure:
    text = a.report.meta.get("hardware", "")
    if not text:
        raise FigureError("the report does not state its hardware")
    return Figure(text, "phrase", "report.hardware in the receipt")


@figure("checkpoint_count", "number of checkpoints (paired=true: only those both engines ran)")
def checkpoint_count(a: Analysis, paired: str = "false") -> Figure:
    if paired not in ("true", "false"):
        raise FigureError(f"paired must be true or false; got {paired!r}")
    cps = a.paired_checkpoints if paired == "true" else a.checkpoints
    return Figure(len(cps), "count", ("paired checkpoints: " if paired == "true" else "checkpoints: ") + ", ".join(cps))


def arguments(name: str) -> dict[str, bool]:
    """A figure's arguments (after the analysis), each with whether it is required."""
    params = list(inspect.signature(REGISTRY[name][0]).parameters.values())[1:]
    return {p.name: p.default is inspect.Parameter.empty for p in params}


def resolve(a: Analysis, name: str, args: dict[str, str]) -> Figure:
    """The figure `name` of a report, from arguments as a page writes them (every value text).

    The arguments are checked here, so that an error inside a figure is a bug, not bad input."""
    if name not in REGISTRY:
        raise FigureError(f"unknown figure '{name}'; known: {', '.join(sorted(REGISTRY))}")
    known = arguments(name)
    listed = ", ".join(known) or "none"
    for key, value in args.items():
        if key not in known:
            raise FigureError(f"figure '{name}' has no argument '{key}'; arguments: {listed}")
        if not isinstance(value, str):
            raise TypeError(f"figure argument {key} must be text, got {type(value).__name__}")
    missing = [key for key, required in known.items() if required and key not in args]
    if missing:
        raise FigureError(f"figure '{name}' needs {missing[0]}=…; arguments: {listed}")
    return REGISTRY[name][0](a, **args)
