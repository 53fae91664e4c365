"""The build environment: what the site-wide pages need of each report, as data.

As Sphinx's environment collectors do for a document, a report is processed once (loaded,
analysed, its files made) and leaves a `ReportRecord`: its title, date and engines, its pages, what
its receipt says about other reports, its row of the table of reports, its history rows and its
warnings. The home page, the history page, the navigation, the links between reports, 404.html and
the sitemap are made from records alone; a report's analysis is needed only to make its own files
(and for an author block that shows it). A record is plain JSON: a forked worker sends it back, the
persistent store keeps it, and a later build takes it without parsing the receipt again.
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from site_gen.analysis.history import report_rows
from site_gen.analysis.report import Analysis
from site_gen.core.diagnostics import Diagnostic
from site_gen.core.records import content_hash
from site_gen.render import dashboard
from site_gen.render.pagelist import present_sections
from site_gen.render.provenance import Fig
from site_gen.render.related import own as own_facts
from site_gen.render.where import report_base


@dataclass
class ReportRecord:
    """One report, as the site-wide pages see it."""
    id: str
    sha256: str                    # of SUMMARY.json
    lede: str                      # content hash of the lede text
    folder: str
    file: str
    title: str
    date: str
    supersedes: str | None
    attribution: str
    candidate: tuple[str, str, str]  # name, version, label
    baseline: str                    # its label
    checkpoints: list[str]
    pages: list[tuple[str, str, str]]  # (key, title, file) of each of its pages
    own: dict[str, Any]              # what its receipt says about other reports (render/related.py `Own`)
    dashboard: dict[str, Any]        # its row of the table of reports (without its URL)
    history: dict[str, list[dict]]   # its rows of each history kind
    warnings: list[Diagnostic] = field(default_factory=list)  # its receipt's, from loading it
    inputs: list[str] = field(default_factory=list)  # the files it is read from: the receipt, a lede file

    @property
    def url(self) -> str:
        return report_base(self.id) + "index.html"


def collect(a: Analysis) -> ReportRecord:
    """The record of an analysed report."""
    r = a.report
    checkpoints, pages, own, row, history = _analysed(a)
    return ReportRecord(
        id=r.id, sha256=r.sha256, lede=content_hash(r.lede), folder=str(r.folder), file=str(r.file),
        title=r.title, date=r.date, supersedes=r.meta.get("supersedes"), attribution=r.meta.get("attribution", ""),
        candidate=(r.candidate.name, r.candidate.version, r.candidate.label), baseline=r.baseline.label,
        checkpoints=checkpoints, pages=pages, own=own, dashboard=row, history=history,
        warnings=list(r.warnings), inputs=_inputs(r))


def _analysed(a: Analysis) -> tuple:
    """The parts of a record made from the analysis alone (its pages, dashboard row, history rows):
    once per analysis, which a prose edit keeps (the receipt unchanged), so the preview's record of
    a report whose lede changed does not read the frames again. Records never change these parts
    (the dashboard copies each row before adding to it), so records may share them."""
    parts = a.displayed.get("record parts")
    if parts is None:
        parts = (list(a.checkpoints), [tuple(p) for p in present_sections(a)], asdict(own_facts(a)),
                 _plain(dashboard.row(a, url="")), _plain(report_rows(a)))
        a.displayed["record parts"] = parts
    return parts


def _inputs(r) -> list[str]:
    lede = r.meta.get("lede", "")
    return [str(r.file)] + ([os.path.realpath(r.folder / lede)] if lede.endswith(".md") else [])


# -- as JSON --------------------------------------------------------------------------------------

def _plain(value: Any) -> Any:
    """numpy's scalars as Python's (what a JSON round trip gives back), containers walked."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    item = getattr(value, "item", None)
    if item is not None and type(value).__module__ == "numpy":
        return item()
    return value


def _encode(value: Any) -> Any:
    if isinstance(value, Fig):
        return {"$fig": [value.text, value.path, value.how, value.date, value.origin, value.detail]}
    if isinstance(value, Diagnostic):
        return {"$diagnostic": [value.message, value.file, value.where]}
    if isinstance(value, float) and not math.isfinite(value):
        return {"$float": repr(value)}
    if isinstance(value, tuple):
        return {"$tuple": [_encode(v) for v in value]}
    if isinstance(value, dict):
        return {k: _encode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    return value


def _decoded(value: dict) -> Any:
    """One object of the JSON as `_encode` tagged it (json's object_hook: inner objects first, so
    a list needs no walk of its own; a record holds hundreds of thousands of values)."""
    if len(value) == 1:
        (tag, inner), = value.items()
        if tag == "$fig":
            fig = Fig(*inner[:4])
            fig.origin = inner[4]
            fig.detail = inner[5] if len(inner) > 5 else None
            return fig
        if tag == "$diagnostic":
            return Diagnostic(*inner)
        if tag == "$float":
            return float(inner)
        if tag == "$tuple":
            return tuple(inner)
    return value


def encoded(value: Any) -> str:
    """`value` as the records' JSON (every part of a figure, a diagnostic, a tuple kept apart from a
    list): text that differs whenever the value does, for a store entry's name."""
    return json.dumps(_encode(value), ensure_ascii=False, allow_nan=False)


def dumps(record: ReportRecord) -> bytes:
    return json.dumps(_encode({f.name: getattr(record, f.name) for f in fields(ReportRecord)}),
                      ensure_ascii=False, allow_nan=False).encode("utf-8")


def loads(data: bytes | None) -> ReportRecord | None:
    """A record from `dumps`' bytes, or None when they are not such bytes (another version's, damage)."""
    if data is None:
        return None
    try:
        raw = json.loads(data, object_hook=_decoded)
        record = ReportRecord(**raw)
    except (ValueError, TypeError, RecursionError):
        return None
    if not (isinstance(record.id, str) and isinstance(record.pages, list) and isinstance(record.dashboard, dict)
            and isinstance(record.history, dict) and isinstance(record.own, dict)):
        return None
    return record
