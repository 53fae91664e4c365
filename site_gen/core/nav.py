"""`nav:` of mkdocs.yml, checked as MkDocs reads it (the site's own navigation: render/sitenav.py)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from site_gen.core.errors import SitegenError
from site_gen.core.values import described, check_key, check_text, check_url


@dataclass(frozen=True)
class NavEntry:
    """One entry of `nav:` as MkDocs reads it: a page (`guide/cli.md`, a docs path), an http(s) link, or
    a section of entries. `title` None: the page's own title."""
    title: str | None
    target: str | None = None                  # None for a section
    children: tuple[NavEntry, ...] = ()
    where: str = "nav"                         # its place in the config, for messages


def nav_entries(value: Any, where: str, file: Path | None) -> tuple[NavEntry, ...]:
    """`nav:` checked: a list whose items are a path or URL, `{title: path or URL}` or `{title: [items]}`."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise SitegenError(f"expected a list of pages and sections, got {described(value)}", file, where)
    out = []
    for i, item in enumerate(value):
        at = f"{where}[{i}]"
        if isinstance(item, str):
            out.append(NavEntry(None, _nav_target(item, at, file), where=at))
            continue
        if not (isinstance(item, dict) and len(item) == 1):
            raise SitegenError(f"expected a page, {{title: page}} or {{title: [pages]}}, got {described(item)}", file, at)
        (title, inner), = item.items()
        title = check_text(check_key(title, at, file), at, file, "a title")
        if isinstance(inner, list):
            children = nav_entries(inner, f"{at}.{title}", file)
            if not children:
                raise SitegenError("expected a section with at least one page, got an empty list", file, f"{at}.{title}")
            out.append(NavEntry(title, None, children, at))
        else:
            out.append(NavEntry(title, _nav_target(inner, f"{at}.{title}", file), where=at))
    return tuple(out)


def _nav_target(value: Any, where: str, file: Path | None) -> str:
    target = check_text(value, where, file, "a page path or an http(s) URL")
    if "://" in target or target.lower().startswith(("javascript:", "data:", "vbscript:")):
        return check_url(target, where, file)
    if target.startswith("/") or ".." in target.split("/") or "\\" in target:
        raise SitegenError(f"expected a page path inside docs_dir, got {target!r}", file, where)
    return target
