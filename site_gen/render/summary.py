"""A report's verdicts for the terminal, a pull-request comment or a script.

The JSON (`summary_data`, `as_json`) is made for scripts: figures are JSON numbers, units, rules and
directions are fields of their own, text is only what is text (names, labels, the opening
sentence). Its shape is published as a JSON Schema, versioned: `site_gen/schema/
summary-output-1.schema.json` (`VERSION`). The text and markdown lines are printed from that same
JSON, each section's by its own `summary_rows`, so the three formats never disagree.
"""
from __future__ import annotations

import html
import json
import re
from typing import Any

from site_gen.analysis.report import Analysis, own
from site_gen.render import opening, parts, plain

VERSION = 1
SCHEMA = f"summary-output-{VERSION}.schema.json"  # in site_gen/schema/, beside the receipt schemas


def summary_data(a: Analysis) -> dict[str, Any]:
    """One report's summary: who against whom, the opening sentence, and each section's part
    (`summary` of its view module, made from the view its page shows)."""
    r = a.report
    out: dict[str, Any] = {
        "report": r.id, "title": r.title, "date": r.date,
        "candidate": plain.engine(r.candidate), "baseline": plain.engine(r.baseline) if "baseline" in r.meta["engines"] else None,
        "hardware": r.meta.get("hardware"),
        "checkpoints": [{"id": c["id"], "label": c.get("label"), "missing": dict(c.get("missing", {}))} for c in r.meta["checkpoints"]],
        "verdict": opening.sentence(a),
    }
    for s in parts.ordered():
        make = parts.view_part(s).summary
        if make is None or not s.present(a):
            continue
        view = parts.view_part(s).view
        shown = view(own(a, s.name) if s.name else a) if view is not None else None
        out.update(make(own(a, s.name) if s.name else a, shown) or {})
    return out


def as_json(items: list[dict[str, Any]]) -> str:
    """Always one object, whatever the number of reports: `{"format", "version", "reports": [...]}`."""
    return json.dumps({"format": "sitegen summary", "version": VERSION, "schema": SCHEMA, "reports": items},
                      indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def _rows(d: dict[str, Any]) -> list[tuple[str, ...]]:
    """Each section's lines of the text and markdown summary, from the JSON data."""
    rows: list[tuple[str, ...]] = []
    for s in parts.ordered():
        make = parts.view_part(s).summary_rows
        if make is not None:
            rows.extend(make(d))
    return rows


def _one_line(text: Any) -> str:
    """A receipt string on one line: its line breaks (a carriage return rewrites a terminal's line,
    a newline ends a table row) and runs of spaces become one space."""
    return " ".join(str(text).split())


def _alike(items: list[dict[str, Any]]) -> set[str]:
    """The reports whose heading (title and date) another report's reads too: runs of one setup
    imported on one day. Their headings name their ids."""
    seen: dict[tuple[str, str], list[str]] = {}
    for d in items:
        seen.setdefault((_one_line(d["title"]), d["date"]), []).append(d["report"])
    return {rid for ids in seen.values() if len(ids) > 1 for rid in ids}


def _when(d: dict[str, Any], alike: set[str]) -> str:
    """`2026-01-15`, or `2026-01-15; report run-…` where another report's heading would read the same."""
    return f"{d['date']}; report {d['report']}" if d["report"] in alike else d["date"]


def as_text(items: list[dict[str, Any]]) -> str:
    out = []
    alike = _alike(items)
    for d in items:
        out.append(f"{_one_line(d['title'])} ({_one_line(_when(d, alike))})")
        out.append(f"  {_one_line(d['verdict'])}")
        rows = [(_one_line(label), _one_line(value)) for label, value in _rows(d)]
        width = max((len(r[0]) for r in rows), default=0)
        out += [f"  {label.ljust(width)}  {value}" for label, value in rows]
        out.append("")
    return "\n".join(out)


# Characters that start markdown syntax anywhere in a line (code, emphasis, links and images,
# headings, tables, strikethrough, math); `<`, `>` and `&` become entities, so no HTML (nor `<!--`).
_MD_SYNTAX = re.compile(r"([\\`*_\[\]!#|~$])")
# GitHub's autolink extension links a bare `scheme://…` and `www.…` with no markup around them:
# the `:` before `//` and the dot after `www` escaped, they are text.
_AUTOLINK = re.compile(r"(?i):(?=//)|(?<=www)\.")
# GitHub links an email address found in a text node after it has joined the node's escapes and
# entities, so no escape stops it: a word joiner (U+2060, invisible, no line break) after `@` leaves
# no address to find.
_AT = "@\u2060"
# What makes a line a list item or a rule when it starts one.
_BLOCK_START = re.compile(r"^(\d{0,9})([-+=.)])")


def _md(text: str, line_start: bool = False) -> str:
    """A string from a receipt as markdown text: one line, every character that could make markup
    or a link (GitHub's autolinks included) escaped."""
    out = _MD_SYNTAX.sub(r"\\\1", _one_line(text))
    out = _AUTOLINK.sub(lambda m: "\\" + m.group(0), out).replace("@", _AT)
    out = html.escape(out, quote=False)
    return _BLOCK_START.sub(r"\1\\\2", out) if line_start else out


def as_markdown(items: list[dict[str, Any]]) -> str:
    out = []
    alike = _alike(items)
    for d in items:
        out += [f"### {_md(d['title'])} ({_md(_when(d, alike))})", "", _md(d["verdict"], line_start=True), ""]
        rows = _rows(d)
        if rows:  # no empty table: a report with no lines says only its sentence
            out += ["| | |", "|---|---|"] + [f"| {_md(label)} | {_md(value)} |" for label, value in rows]
            out.append("")
    return "\n".join(out)


# The same guards for other commands' output (`sitegen compare`): one rule for receipt text in a comment.
markdown_text = _md
one_line = _one_line
