"""The site's own navigation (the top bar, and a section's side list) as `nav:` of mkdocs.yml gives it.

Without `nav:`, every docs page is an entry, in the order of its file's path, and History (a site of
several reports) follows them. With `nav:`, as MkDocs reads it: its pages in its order and under its
titles; a section (`Guide: [...]`) is one entry of the top bar, leading to its first page, and its pages
are listed beside each of them; a docs page that `nav:` leaves out is built but not listed. `history.md`
places the History page; `reports/ID/NAME.md` names a report's page; an http(s) URL is a link out.
An entry that names no page is a warning (an error under `--strict`), as it is under MkDocs.

An entry is a dict: `title`, `url` (the site path, or the URL of a link out), `report` (None: reports'
own entries, which the builder adds, carry their id and are not shown), and optionally `children`,
`history` (the place `nav:` gives History) and `external`.
"""
from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from site_gen.core.diagnostics import Diagnostic
from site_gen.core.nav import NavEntry
from site_gen.render.contexts import NavItem
from site_gen.render.where import HISTORY_URL, REPORTS_DIR, rel

MARKDOWN_SUFFIXES = (".md", ".markdown")


def docs_nav(entries: tuple[NavEntry, ...], pages: dict[str, tuple[str, str]], config_file: Any,
             reports: Iterable[str] | None = None) -> tuple[list[dict[str, Any]], list[Diagnostic]]:
    """`nav:` as entries of the site's navigation, and a warning for each that names no page.

    `pages`: each docs page's source path (`guide/cli.md`) -> (site path, title). `reports`: the ids of
    the site's reports, to check `reports/ID/...` entries against (None: not checked)."""
    warnings: list[Diagnostic] = []
    known = set(reports) if reports is not None else None

    def one(e: NavEntry) -> dict[str, Any] | None:
        if e.target is None:
            children = [c for c in (one(child) for child in e.children) if c is not None]
            first = next((c["url"] for c in _pages(children) if not c.get("external")), None)
            if first is None:
                return None
            return {"title": e.title, "url": first, "report": None, "children": children}
        target = e.target
        if "://" in target:
            return {"title": e.title or target, "url": target, "report": None, "external": True}
        path, _, anchor = target.partition("#")
        src = posixpath.normpath(path) if path else ""
        if src in pages:
            url, title = pages[src]
            return {"title": e.title or title, "url": url + (f"#{anchor}" if anchor else ""), "report": None}
        stem, suffix = posixpath.splitext(src)
        if suffix.lower() in MARKDOWN_SUFFIXES and stem == posixpath.splitext(HISTORY_URL)[0]:
            return {"title": e.title or "History", "url": HISTORY_URL, "report": None, "history": True}
        parts = stem.split("/")
        if suffix.lower() in MARKDOWN_SUFFIXES and len(parts) == 3 and parts[0] == REPORTS_DIR.strip("/"):
            if known is not None and parts[1] not in known:
                warnings.append(Diagnostic(f"{e.where}: '{target}' names no report of the site", config_file))
            return {"title": e.title or parts[1], "url": f"{parts[0]}/{parts[1]}/{parts[2]}.html", "report": None}
        warnings.append(Diagnostic(f"{e.where}: '{target}' is not a page of the site (nav names pages by their "
                                   "path inside docs_dir)", config_file))
        return None

    items = [i for i in (one(e) for e in entries) if i is not None]
    return items, warnings


def _pages(items: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Every entry that is a page or a link, sections opened, in order."""
    for item in items:
        if "children" in item:
            yield from _pages(item["children"])
        else:
            yield item


def shown(site_nav: list[dict[str, Any]], page_url: str) -> list[NavItem]:
    """The entries a page shows (reports' own are reached from the dashboard: every report on every
    page would make a site of n reports cost n² links), relative to it. History stands where `nav:`
    places it, when the site has the page; else where the builder put it."""
    own = [item for item in site_nav if not item.get("report")]
    has_history = any(item["url"] == HISTORY_URL and not item.get("history") for item in own)
    placed = has_history and any(item.get("history") for item in _pages(own))

    def keep(item: dict[str, Any]) -> bool:
        if item.get("history"):
            return placed
        return not (placed and item["url"] == HISTORY_URL)

    return [n for n in (_made(item, page_url, keep) for item in own if keep(item)) if n is not None]


def _made(item: dict[str, Any], page_url: str, keep: Callable[[dict[str, Any]], bool]) -> NavItem | None:
    """One entry as `page_url` shows it (a function of the module: a nested function that calls
    itself is a reference cycle, left to the garbage collector on every page)."""
    if "children" in item:
        children = tuple(c for c in (_made(child, page_url, keep) for child in item["children"] if keep(child))
                         if c is not None)
        if not children:
            return None
        return NavItem(item["title"], next((c.url for c in _items(children) if not c.external), children[0].url), None,
                       any(c.current for c in children), children)
    if item.get("external"):
        return NavItem(item["title"], item["url"], None, False, external=True)
    return NavItem(item["title"], rel(page_url, item["url"]), item.get("report"),
                   item["url"].partition("#")[0] == page_url)


def _items(items: tuple[NavItem, ...]) -> Iterator[NavItem]:
    for item in items:
        if item.children:
            yield from _items(item.children)
        else:
            yield item
