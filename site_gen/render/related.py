"""Which other reports of the site a report links to, decided from the receipts.

- the previous version a section's part names (`Section.previous`, name and version) is another
  report's candidate: that section's page links that report, and that report links back to it;
- an engine a section's part names (`Section.engines_named`) is another report's candidate;
- `report.supersedes` names the run it reruns: each of the two links the other;
- receipt markdown links `page:REPORT/NAME` to a page of another report.

Pages that show such a link draw on the other report's receipt, so the builder adds `receipts`
(and `files`) to their records: an edit of the other report, or a report that comes or goes, remakes them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from site_gen.analysis.report import Analysis
from site_gen.render.pagelist import receipt_texts
from site_gen.render.where import report_base
from site_gen.sections import engines_named, previous_version

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
    """One report's links to the others, and what the pages that show them draw on."""
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


@dataclass(frozen=True)
class Own:
    """What one receipt says about other reports: the part of `relations` that needs only it."""
    candidate: tuple[str, str]
    previous: tuple[str, str] | None      # the previous version its parts name
    engines: tuple[tuple[str, str], ...]  # engines other than its own it names: previous, then its parts' others
    supersedes: str | None
    mentions: tuple[str, ...]             # reports its markdown links (`page:REPORT/NAME`)


def own(a: Analysis) -> Own:
    r = a.report
    found = previous_version(r.data)
    previous = found[1] if found else None
    engines = ([_engine(previous)] if previous else []) + [_engine(ref) for ref in engines_named(r.data)]
    texts = [text for _, text in receipt_texts(r) if "page:" in text.lower()]
    return Own(_engine(r.candidate), _engine(previous) if previous else None, tuple(dict.fromkeys(engines)),
               r.meta.get("supersedes"), tuple(dict.fromkeys(m.group(1) for t in texts for m in _MENTION.finditer(t))))


def _pages(record) -> tuple[tuple[str, str], ...]:
    return tuple((key, report_base(record.id) + file) for key, _, file in record.pages)


def relations(records: list) -> dict[str, Related]:
    """Each report's links to the others (reports without any are left out), from their records
    (site_gen/building/environment.py: what each receipt says of others, titles, pages). `records`
    newest first, so an engine version with several reports links the newest."""
    facts = {r.id: Own(**r.own) for r in records}
    by_id = {r.id: r for r in records}
    by_candidate: dict[tuple[str, str], list[str]] = {}
    for rid, f in facts.items():
        by_candidate.setdefault(f.candidate, []).append(rid)
    compared_by: dict[str, list[str]] = {}
    superseded_by: dict[str, str] = {}
    for rid, f in facts.items():
        for other in by_candidate.get(f.previous, []) if f.previous else []:
            if other != rid:
                compared_by.setdefault(other, []).append(rid)
        if f.supersedes is not None and f.supersedes in by_id:
            superseded_by[f.supersedes] = rid
    out: dict[str, Related] = {}
    targets: dict[str, Target] = {}  # each linked report made a target once
    for rid, f in facts.items():
        engines, consulted = [], set()
        for engine in f.engines:
            matches = [other for other in by_candidate.get(engine, []) if other != rid]
            consulted.update(matches)  # which one is linked depends on all of them
            if matches:
                engines.append((engine, matches[0]))
        supersedes = f.supersedes if f.supersedes in by_id else None
        named = [t for _, t in engines] + compared_by.get(rid, []) + [supersedes, superseded_by.get(rid), *f.mentions]
        linked = [t for t in dict.fromkeys(named) if t and t != rid]
        if linked:
            for t in linked:
                if t in by_id and t not in targets:
                    b = by_id[t]
                    targets[t] = Target(t, b.title, b.candidate[2], _pages(b))
            consulted.update(t for t in linked if t in by_id)
            out[rid] = Related(
                engines=tuple(engines), compared_by=tuple(compared_by.get(rid, [])), supersedes=supersedes,
                superseded_by=superseded_by.get(rid), targets=tuple(targets[t] for t in linked if t in by_id),
                receipts=tuple(sorted({(t, by_id[t].sha256) for t in consulted} | {(t, "") for t in linked if t not in by_id})),
                files=frozenset(str(by_id[t].file) for t in consulted))
    return out


def _shape(r) -> tuple:
    """All of a record that `relations` reads but its receipt's hash: what links exist, and how they look."""
    return (r.id, r.file, r.title, r.candidate[2], tuple(map(tuple, r.pages)), repr(r.own))


@dataclass
class Memo:
    """`relations` of the last build, with what they were found from, for the next (the preview's)."""
    made_from: tuple = ()   # (id, sha256, file) of each record
    shapes: tuple = ()      # `_shape` of each
    found: dict[str, Related] = field(default_factory=dict)
    # (id, sha256, file) -> its shape: a record is made from its receipt and file (the lede aside)
    _shapes: dict[tuple, tuple] = field(default_factory=dict)


def relations_again(records: list, memo: Memo) -> dict[str, Related]:
    """`relations(records)`, from `memo` where it can be: a receipt edited without changing what
    links to what (the usual preview edit) changes only the hashes that the records of the pages
    consulting it hold, not a search through every report (at a thousand reports, ~40 ms an edit)."""
    made_from = tuple((r.id, r.sha256, r.file) for r in records)
    if made_from == memo.made_from:
        return memo.found
    shapes = {key: memo._shapes.get(key) or _shape(r) for key, r in zip(made_from, records)}
    ordered = tuple(shapes.values())
    if ordered == memo.shapes and len(shapes) == len(records):
        sha = {r.id: r.sha256 for r in records}
        found = {rid: rel if all(not h or sha[t] == h for t, h in rel.receipts) else
                 replace(rel, receipts=tuple(sorted((t, sha[t] if h else h) for t, h in rel.receipts)))
                 for rid, rel in memo.found.items()}
    else:
        found = relations(records)
    memo.made_from, memo.shapes, memo.found, memo._shapes = made_from, ordered, found, shapes
    return found
