"""Which other reports of the site a report links to, decided from the receipts.

- its versions section's `previous` engine (name and version) is another report's candidate: the
  versions page links that report, and that report links back to the versions page;
- a memory reference names an engine that another report's candidate is;
- `report.supersedes` names the run it reruns: each of the two links the other;
- receipt markdown links `page:REPORT/NAME` to a page of another report.

Pages that show such a link draw on the other report's receipt, so the builder adds `receipts`
(and `files`) to their records: an edit of the other report, or a report that comes or goes, remakes them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable

from site_gen.analyse.report import Analysis

# A receipt's link to another report's page (`page:REPORT/NAME`); the id is a report folder's name.
_MENTION = re.compile(r"page:([A-Za-z0-9][A-Za-z0-9._-]*)/", re.IGNORECASE)


@dataclass(frozen=True)
class Target:
    """Another report, as a link to it needs it: its title and its pages (key -> site path)."""
    id: str
    title: str
    label: str                     # its candidate, "name vVERSION"
    pages: tuple[tuple[str, str], ...]

    def url(self, key: str = "overview") -> str | None:
        return dict(self.pages).get(key)


@dataclass(frozen=True)
class Related:
    engines: tuple[tuple[tuple[str, str], str], ...] = ()  # (engine name, version) -> the report of that candidate
    compared_by: tuple[str, ...] = ()                      # reports whose previous version is this candidate
    supersedes: str | None = None
    superseded_by: str | None = None
    targets: tuple[Target, ...] = ()                       # every report above, and those linked from markdown
    # (id, sha256) of every report consulted, ("id", "") for one linked from markdown but not in the site
    receipts: tuple[tuple[str, str], ...] = ()
    files: frozenset[str] = field(default=frozenset())

    def target(self, report_id: str | None) -> Target | None:
        return next((t for t in self.targets if t.id == report_id), None)

    def engine(self, name: str, version: str) -> Target | None:
        return self.target(dict(self.engines).get((name, version)))


NONE = Related()


def _engine(e: dict | Any) -> tuple[str, str]:
    return (e["name"], e["version"]) if isinstance(e, dict) else (e.name, e.version)


def named_engines(a: Analysis) -> list[tuple[str, str]]:
    """The engines other than its own that a report names: its previous version, its memory references."""
    r = a.report
    versions = r.section("versions") or {}
    out = [_engine(versions["previous"])] if versions.get("previous") else []
    out += [_engine(ref) for ref in (r.section("memory") or {}).get("references", [])]
    return list(dict.fromkeys(out))


def mentions(texts: Iterable[str]) -> list[str]:
    """The reports that receipt markdown links to (`page:REPORT/NAME`)."""
    return list(dict.fromkeys(m.group(1) for text in texts for m in _MENTION.finditer(text)))


def _pages(a: Analysis) -> tuple[tuple[str, str], ...]:
    from site_gen.render.pages import present_sections, report_base

    return tuple((key, report_base(a.report.id) + file) for key, _, file in present_sections(a))


def relations(analyses: list[Analysis]) -> dict[str, Related]:
    """Each report's links to the others (reports without any are left out). `analyses` newest
    first, so an engine version with several reports links the newest."""
    from site_gen.render.pages import receipt_texts

    by_id = {a.report.id: a for a in analyses}
    by_candidate: dict[tuple[str, str], list[Analysis]] = {}
    for a in analyses:
        by_candidate.setdefault(_engine(a.report.candidate), []).append(a)
    compared_by: dict[str, list[str]] = {}
    superseded_by: dict[str, str] = {}
    for a in analyses:
        previous = (a.report.section("versions") or {}).get("previous")
        for b in by_candidate.get(_engine(previous), []) if previous else []:
            if b is not a:
                compared_by.setdefault(b.report.id, []).append(a.report.id)
        if a.report.meta.get("supersedes") in by_id:
            superseded_by[a.report.meta["supersedes"]] = a.report.id
    out = {}
    for a in analyses:
        rid = a.report.id
        engines, consulted = [], []
        for engine in named_engines(a):
            matches = [b for b in by_candidate.get(engine, []) if b is not a]
            consulted += matches  # which one is linked depends on all of them
            if matches:
                engines.append((engine, matches[0].report.id))
        supersedes = a.report.meta.get("supersedes") if a.report.meta.get("supersedes") in by_id else None
        named = mentions(text for _, text in receipt_texts(a.report))
        linked = [t for _, t in engines] + compared_by.get(rid, []) + [supersedes, superseded_by.get(rid)] + named
        linked = [t for t in dict.fromkeys(linked) if t and t != rid]
        if not linked:
            continue
        consulted += [by_id[t] for t in linked if t in by_id]
        seen = {b.report.id: b for b in consulted if b is not a}
        receipts = {(i, b.report.sha256) for i, b in seen.items()} | {(t, "") for t in linked if t not in by_id}
        out[rid] = Related(
            engines=tuple(engines), compared_by=tuple(compared_by.get(rid, [])), supersedes=supersedes,
            superseded_by=superseded_by.get(rid),
            targets=tuple(Target(t, by_id[t].report.title, by_id[t].report.candidate.label, _pages(by_id[t]))
                          for t in linked if t in by_id),
            receipts=tuple(sorted(receipts)), files=frozenset(str(b.report.file) for b in seen.values()))
    return out
