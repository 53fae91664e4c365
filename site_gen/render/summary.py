"""A report's verdicts for the terminal, a pull-request comment or a script.

Built from the same views as the site's pages, so every string is the one the site shows.
"""
from __future__ import annotations

import html
import json
import re
from typing import Any

from site_gen.analysis.report import Analysis
from site_gen.render import format as fmt
from site_gen.sections import section


def summary_data(a: Analysis) -> dict[str, Any]:
    """Plain data (str/int/bool) of the report's headline verdicts."""
    out: dict[str, Any] = {"report": a.report.id, "title": a.report.title, "date": a.report.date,
                           "candidate": a.report.candidate.label, "baseline": a.report.baseline.label}
    s = section("speed").view(a)
    if s:
        speed: dict[str, Any] = {}
        labels: dict[str, str] = {}
        for i, c in enumerate(s["checkpoints"]):
            entry: dict[str, Any] = {}
            counts = a.speed_counts[a.speed_counts["checkpoint"] == c].set_index("metric")
            for metric, row in counts.iterrows():
                entry[metric] = {k: int(row[k]) for k in ("faster", "level", "slower", "cells")}
            for row in s["range_rows"]:
                entry[row["key"]] = str(row["cells"][i]["text"])
                labels[row["key"]] = row["label"]
            if s["ttft"] and s["ttft"]["cells"][i]:
                t = s["ttft"]["cells"][i]
                entry["ttft"] = {"candidate": str(t["candidate"]), "baseline": str(t["baseline"])}
            speed[c] = entry
        out["speed"] = {"noise_band": s["band"], "errors": s["errors"], "ranges": labels, "checkpoints": speed}
    p = section("precision").view(a)
    if p:
        out["precision"] = {
            "reference": p["reference"],
            "resolved": p["summary"]["resolved"], "pairs": p["summary"]["pairs"],
            "further": p["summary"]["further"], "closer": p["summary"]["closer"], "unresolved": p["summary"]["unresolved"],
            "rows": [{"checkpoint": g["checkpoint"], "measure": str(r["label"]), "baseline": str(r["baseline"]),
                      "candidate": str(r["candidate"]), "difference": str(r["difference"]), "interval": str(r["interval"]),
                      "resolved": r["is_resolved"], "direction": str(r["direction"])} for g in p["groups"] for r in g["rows"]],
        }
    m = section("memory").view(a)
    if m:  # the memory table's candidate KV pool row, by name rather than by its place in the table
        kv = a.kv.set_index("checkpoint")
        out["kv_pool"] = {c: {"candidate": fmt.thousands(kv.loc[c, "candidate"]), "ratio": fmt.ratio(kv.loc[c, "ratio"])}
                          for c in m["checkpoints"]}
    return out


def as_json(items: list[dict[str, Any]]) -> str:
    return json.dumps(items if len(items) != 1 else items[0], indent=2, ensure_ascii=False, sort_keys=False) + "\n"


def _rows(d: dict[str, Any]) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    speed = d.get("speed", {}).get("checkpoints", {})
    for c, e in speed.items():
        for metric in ("aggregate", "decode"):
            if metric in e:
                v = e[metric]
                name = "aggregate" if metric == "aggregate" else "clean decode"
                rows.append((f"Speed {c}, {name}", f"{fmt.verdicts(v)} (of {v['cells']})"))
        for key, label in d["speed"]["ranges"].items():
            if key in e:
                rows.append((f"Speed {c}, {label[0].lower()}{label[1:]}", e[key]))
    if "precision" in d:
        p = d["precision"]
        rows.append(("Precision gaps resolved", f"{p['resolved']} of {p['pairs']}: {p['further']} further from {p['reference']}, "
                                                f"{p['closer']} closer; {p['unresolved']} not resolved"))
        for r in p["rows"]:
            rows.append((f"{r['checkpoint']} {r['measure']}", f"{r['difference']} {r['interval']} {r['direction']}"))
    for c, kv in d.get("kv_pool", {}).items():
        rows.append((f"KV pool {c}", f"{kv['candidate']} tokens, {kv['ratio']}"))
    return rows


def _one_line(text: Any) -> str:
    """A receipt string on one line: its line breaks (a carriage return rewrites a terminal's line,
    a newline ends a table row) and runs of spaces become one space."""
    return " ".join(str(text).split())


def as_text(items: list[dict[str, Any]]) -> str:
    out = []
    for d in items:
        out.append(f"{_one_line(d['title'])} ({d['date']})")
        rows = [(_one_line(label), _one_line(value)) for label, value in _rows(d)]
        width = max((len(r[0]) for r in rows), default=0)
        out += [f"  {label.ljust(width)}  {value}" for label, value in rows]
        out.append("")
    return "\n".join(out)


# Characters that start markdown syntax anywhere in a line (code, emphasis, links and images,
# headings, tables, strikethrough, math); `<`, `>` and `&` become entities, so no HTML (nor `<!--`).
_MD_SYNTAX = re.compile(r"([\\`*_\[\]!#|~$])")
# What makes a line a list item or a rule when it starts one.
_BLOCK_START = re.compile(r"^(\d{0,9})([-+=.)])")


def _md(text: str, line_start: bool = False) -> str:
    """A string from a receipt as markdown text: one line, every character that could make markup escaped."""
    out = _MD_SYNTAX.sub(r"\\\1", _one_line(text))
    out = html.escape(out, quote=False)
    return _BLOCK_START.sub(r"\1\\\2", out) if line_start else out


def as_markdown(items: list[dict[str, Any]]) -> str:
    out = []
    for d in items:
        out += [f"### {_md(d['title'])} ({_md(d['date'])})", "",
                f"{_md(d['candidate'], line_start=True)} against {_md(d['baseline'])}", "", "| | |", "|---|---|"]
        out += [f"| {_md(label)} | {_md(value)} |" for label, value in _rows(d)]
        out.append("")
    return "\n".join(out)
