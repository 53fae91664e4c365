"""Front matter and page titles of author pages, read as MkDocs reads them."""
from __future__ import annotations

import posixpath
import re
import threading
from html import unescape
from pathlib import Path
from typing import Any

import yaml

from site_gen.core.errors import SitegenError
from site_gen.render import markdown as md

_FRONT_MATTER = re.compile(r"^-{3}[ \t]*\n(.*?\n)(?:\.{3}|-{3})[ \t]*\n", re.S)
_H1 = re.compile(r"^#[ \t](.+)$", re.M)
FRONT_MATTER_DEPTH = 50


class _FrontMatterLoader(yaml.SafeLoader):
    """SafeLoader that refuses nesting deeper than FRONT_MATTER_DEPTH: PyYAML composes nodes by
    recursion, so a deep enough page would end in RecursionError."""

    _depth = 0

    def compose_node(self, parent, index):
        self._depth += 1
        try:
            if self._depth > FRONT_MATTER_DEPTH:
                raise yaml.composer.ComposerError(None, None, f"nested deeper than {FRONT_MATTER_DEPTH} levels",
                                                  self.peek_event().start_mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def split_front_matter(text: str, file: str | Path) -> tuple[dict[str, Any], str, int]:
    """YAML front matter (as MkDocs reads it), the body, and how many lines came before the body."""
    m = _FRONT_MATTER.match(text)
    if not m:
        return {}, text, 0
    try:
        meta = yaml.load(m.group(1), Loader=_FrontMatterLoader) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise SitegenError(f"front matter is not valid YAML: {getattr(exc, 'problem', exc)}", file,
                           f"line {mark.line + 2}" if mark else "line 1") from None
    if not isinstance(meta, dict):
        meta = {}
    body = text[m.end():].lstrip("\n")
    return meta, body, text.count("\n", 0, len(text) - len(body))


def title_of(meta: dict[str, Any], body: str, fallback: str) -> str:
    """The page title as MkDocs picks it: front matter, else the first `# heading`, else the file name."""
    if isinstance(meta.get("title"), str) and meta["title"].strip():
        return meta["title"].strip()
    code = md.code_ranges(body)
    for m in _H1.finditer(body):
        if m.start() not in code:
            # The closing #s and blanks of an ATX heading are not its text (string methods: a
            # regex for them backtracks over a long run of #).
            heading = m.group(1).lstrip(" \t")
            words = heading.rstrip(" \t").rstrip("#").rstrip(" \t") or heading[:1]
            html = _heading_html(md.without_inline(words))
            return unescape(re.sub(r"<[^>]+>", "", html)).strip() or fallback
    return fallback


_TITLES = threading.local()


def _heading_html(text: str) -> str:
    """`markdown.markdown(text)`, with one converter reset each time rather than one made per heading:
    a converter refers to itself through its processors, so each one left was cyclic garbage (~27 kB a
    docs page, read twice a build) that only the collector frees, and a build's own process runs
    with it off until its first report is done (core/collector.py)."""
    converter = getattr(_TITLES, "md", None)
    if converter is None:
        import markdown

        converter = _TITLES.md = markdown.Markdown()
    return converter.reset().convert(text)


def file_title(src: str) -> str:
    """`getting-started.md` -> `Getting started` (MkDocs' rule for a page without a heading)."""
    stem = posixpath.splitext(posixpath.basename(src))[0]
    if stem in ("index", "README"):
        stem = posixpath.basename(posixpath.dirname(src)) or "Home"
    title = stem.replace("-", " ").replace("_", " ")
    return title[:1].upper() + title[1:] if title[:1].islower() else title


