"""A shown figure together with where it came from.

`Fig` renders in a template as the figure's text wrapped in a focusable span whose title names
its source: the receipt's JSON path (and the receipt's date) for a measured value, or how it was
computed for a derived one. Views build Figs from the analysis' `source` columns, so provenance
travels with the data instead of being recovered from HTML afterwards.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from site_gen.render.escaping import escape_str, escape_text


class Fig:
    __slots__ = ("text", "path", "how", "date", "origin", "dense", "detail")

    def __init__(self, text: str, path: str | None = None, how: str | None = None, date: str | None = None,
                 dense: bool = False, detail: str | None = None):
        self.text, self.path, self.how, self.date = text, path, how, date
        # What a computed figure was read from (`$.serving…requests.ttft_ms`), after its `how`: on the
        # Numbers page and in a full title, not in a dense cell's (a page of hundreds stays light).
        self.detail = detail
        self.origin: str | None = None  # the original file an importer read it from (schema 1.1 provenance)
        # A figure of a dense table (every cell of a speed or scenario grid): its source shows on
        # hover and on the Numbers page, but it is no tab stop (hundreds would bury the page's own
        # controls) and carries its source once, in its title.
        self.dense = dense

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Fig({self.text!r}, path={self.path!r}, how={self.how!r})"

    def __eq__(self, other) -> bool:
        return str(self) == str(other)

    def __hash__(self) -> int:
        return hash(self.text)

    @property
    def source(self) -> str:
        if self.path:
            return f"SUMMARY.json {self.path}" + (f" (receipt of {self.date})" if self.date else "") + (
                f"; from {self.origin}" if self.origin else "")
        return f"computed: {self.how}" + (f"; {self.detail}" if self.detail else "")

    def __html__(self) -> str:
        # Plain escaped text (render/escaping.py), as markupsafe escapes each part: a page has
        # hundreds of figures, and a Markup object of each part would be made for nothing.
        if self.dense and (self.path or self.how):
            # Its place in the receipt only: the original file and lines are the row's (its title) and
            # on the Numbers page, not repeated in each of hundreds of cells; so is a computed figure's detail.
            short = f"SUMMARY.json {self.path}" if self.path else f"computed: {self.how}"
            return f'<span class="fig" title="{escape_str(short)}">{escape_text(self.text)}</span>'
        if self.path:
            return (f'<span class="fig" tabindex="0" data-source="{escape_str(self.path)}" '
                    f'title="{escape_str(self.source)}">{escape_text(self.text)}</span>')
        if self.how:
            return (f'<span class="fig" tabindex="0" data-computed="{escape_str(self.how)}" '
                    f'title="{escape_str(self.source)}">{escape_text(self.text)}</span>')
        return escape_text(self.text)


class Parts(list):
    """Figures and words shown together in one place (`1.2–3.4; runs 1.0–3.9`, `12 of 200`): each
    figure keeps its own source, the words are plain text. A template prints it as one value; the
    Numbers page finds the figures in it as in any list."""
    __slots__ = ()

    def __str__(self) -> str:
        return "".join(str(p) for p in self)

    def __html__(self) -> str:
        return "".join(escape_text(p) for p in self)


# What a view holds most of and never holds a Fig in: passed over without a call (a report's views
# hold thousands of them).
_LEAVES = frozenset({str, int, float, bool, type(None)})


def collect(value, out: list[Fig]) -> None:
    """Every Fig inside a view (dicts and lists, in order)."""
    if isinstance(value, Fig):
        out.append(value)
        return
    items: Iterable[Any]
    if isinstance(value, dict):
        items = value.values()
    elif isinstance(value, (list, tuple)):
        items = value
    else:
        return
    for v in items:
        kind = type(v)
        if kind is Fig:  # most of what is not a leaf: taken without a call
            out.append(v)
        elif kind not in _LEAVES:
            collect(v, out)


def origins(data: dict) -> dict[str, str]:
    """Receipt JSON path -> where an importer read it (`file (SHA-256 …), line 3`), from `$.provenance`."""
    part = data.get("provenance")
    if not part:
        return {}
    files = {s["id"]: f"{s['file']} (SHA-256 {s['sha256']})" for s in part["sources"]}
    return {f["path"]: f"{files[f['source']]}, {f['at']}" for f in part["figures"]}


def origin_of(path: str, table: dict[str, str]) -> str | None:
    """The record's origin: the longest recorded path that `path` is, or lies inside."""
    probe = path.split(" ", 1)[0]
    while probe:
        if probe in table:
            return table[probe]
        cut = max(probe.rfind("."), probe.rfind("["))
        if cut <= 1:
            return None
        probe = probe[:cut]
    return None


def row_origin(path: str, table: dict[str, str]) -> str | None:
    """Where both sides of a paired record came from (`$.speed.cells[3]`): its hover text."""
    if not table:
        return None  # a receipt without provenance (most): nothing to look for, row by row
    found = [f"{role}: {o}" for role in ("baseline", "candidate") if (o := origin_of(f"{path}.{role}", table))]
    return "; ".join(found) or origin_of(path, table)


def attach_origins(view, table: dict[str, str]) -> None:
    """Gives every Fig of a view whose path the provenance records its original source."""
    if not table:
        return
    found: list[Fig] = []
    collect(view, found)
    for f in found:
        if f.path:
            f.origin = origin_of(f.path, table)
