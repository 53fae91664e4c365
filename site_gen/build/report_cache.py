"""One report's files (its pages, CSV tables, receipt copy, card) kept in the persistent cache
(site_gen/build/cache.py), so that a build after one receipt changed renders only that report's pages.

An entry is named by everything a report's files are made from: the receipt's bytes (its hash),
the lede, the config and the custom_dir's files (by content), the navigation a page draws (the site's entries, not the reports': see
`page_context`), the assets' names, and sitegen's own files with the theme, Python and the installed
packages (as for the whole site, site_gen/build/site_cache.py). A section registered from outside
sitegen turns it off. A damaged entry reads as missing (checksums) and the report is made again.
"""
from __future__ import annotations

import dataclasses
import hashlib
from functools import lru_cache
from pathlib import Path

from site_gen.build import cache, site_cache
from site_gen.core.config import Config

_KIND = "reports"
# On only for a `sitegen build` in a process of its own (commands/build.py): a caller in this
# process (the tests) may have patched the pipeline, and would be served what it did not make.
enabled = False


@lru_cache(maxsize=8)
def custom_hash(custom_dir: Path | None) -> str | None:
    """The custom_dir's files by name and content (None: not hashable, no cache): an edited template
    override must never be served a report rendered with the old one. Hashed once per process, the
    only kind of process where this cache is on (`enabled`)."""
    h = hashlib.sha256()
    try:
        site_cache.hash_tree(custom_dir, h)
    except (site_cache.Unsuitable, OSError):
        return None
    return h.hexdigest()


@lru_cache(maxsize=1)
def code_hash() -> str | None:
    """sitegen's files and the theme, hashed once per process (None: not hashable, no cache)."""
    h = hashlib.sha256()
    try:
        for root in site_cache.code_roots():
            site_cache.hash_tree(root, h)
    except (site_cache.Unsuitable, OSError):
        return None
    return h.hexdigest()


def key(a, config: Config, strict: bool, nav: list[dict], asset_urls: dict[str, str],
        related: tuple[tuple[str, str], ...] = ()) -> str | None:
    """The entry's name for analysis `a`'s report, or None when it cannot be told; `related`: the
    receipts of the other reports its pages link to (site_gen/render/related.py)."""
    code = code_hash() if enabled else None
    custom = custom_hash(config.custom_dir) if code is not None else None
    if code is None or custom is None or cache.folder() is None:
        return None
    try:
        site_cache.check_sections()
    except site_cache.Unsuitable:
        return None
    r = a.report
    shown_nav = [item for item in nav if not item.get("report")]
    return cache.key("report", code, custom, site_cache.packages(), r.id, r.sha256, r.lede, strict,
                     repr(dataclasses.replace(config, site_dir=Path("."))), repr(shown_nav), sorted(asset_urls.items()), related)


def get(name: str | None) -> tuple[dict[str, bytes], list[str], bool] | None:
    """(files, warnings, whether a page draws charts) of an entry, or None."""
    entry = cache.unpack(cache.read(_KIND, name) if name else None)
    if entry is None:
        return None
    head, files = entry
    warnings, charts = head.get("warnings"), head.get("charts")
    if not isinstance(warnings, list) or not all(isinstance(w, str) for w in warnings) or not isinstance(charts, bool):
        return None
    return files, list(warnings), charts


def put(name: str | None, files: dict[str, bytes], warnings: list[str], charts: bool) -> None:
    if name:
        cache.write(_KIND, name, cache.pack({"warnings": warnings, "charts": charts}, files))
