"""A warm `sitegen build`: when nothing the site is made from has changed, and the site folder
still holds exactly what the last build wrote, there is nothing to do.

The persistent cache (site_gen/building/cache.py) keeps, under a hash of every input (each receipt's and
page's bytes, the parsed config, the templates, sitegen's own files, Python and the installed
packages), one hash of the list of every file the build wrote with each file's hash, and what it
reported. A later build with the same inputs lists the site folder the same way, by content, and
compares: a file edited, added or removed by hand, a damaged entry or any input changed, and the
build runs in full as before. Only
reading the inputs is saved from nothing; importing pandas, analysing and rendering are skipped.
"""
from __future__ import annotations

import hashlib
import json
import os
import stat
import time
from pathlib import Path

from site_gen.building import cache
from site_gen.building.store import Store, Unsuitable, hash_tree, save_digests
from site_gen.core.config import Config
from site_gen.building.results import BuildResult
from site_gen.core.diagnostics import from_data

_KIND = "sites"
_CLEANUP = ("the previous site's copy", "could not remove")


def inputs_key(config: Config) -> str | None:
    """The store's name for the site (`Store.name`: the build's environment, with sitegen's code, the
    custom_dir, the options), from every input's content: None when that cannot be told."""
    store = Store(config, enabled=True)
    h = hashlib.sha256()
    try:
        for root in (config.data_dir, config.docs_dir):
            h.update(b"\1tree")
            hash_tree(root, h)
    except (Unsuitable, OSError):
        return None
    return store.name(_KIND, h.hexdigest())


def _listing(site_dir: Path, known: dict[str, tuple[str, tuple[int, ...]]] | None = None) -> dict[str, str] | None:
    """Each file of the site folder (its top-level dot entries aside, the manifest in) by its hash:
    read, but where `known` (listing.previous_files) has the file as the last build left it, by its
    signature (a thousand reports are 700 MB to read)."""
    from site_gen.building.listing import signature
    from site_gen.building.write import MANIFEST

    known = known or {}
    out = {}
    root = os.fspath(site_dir)
    for folder, dirs, names in os.walk(root):
        top = folder == root
        if top:
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            names = [n for n in names if not n.startswith(".") or n == MANIFEST]
        # os.walk joins each folder onto `root` as given: its name below the site is the rest of
        # it (os.path.relpath normalises both paths on every call: 1.0 of the 1.3 s a listing of
        # a thousand reports' 30,000 files took, profiled).
        below = "" if top else folder[len(root):].lstrip(os.sep).replace(os.sep, "/") + "/"
        for name in names + [d for d in dirs if os.path.islink(os.path.join(folder, d))]:
            path = os.path.join(folder, name)
            st = os.lstat(path)
            if not stat.S_ISREG(st.st_mode):
                return None
            rel = below + name
            kept = known.get(rel)
            if kept is not None and kept[1] == signature(st):
                out[rel] = kept[0]
                continue
            with open(path, "rb") as f:
                out[rel] = hashlib.sha256(f.read()).hexdigest()
    return out


def unchanged(config: Config, key: str | None) -> BuildResult | None:
    """The last build's report when the site folder holds, byte for byte, what `key`'s inputs give."""
    from site_gen.core.errors import SitegenError
    from site_gen.building.listing import listing_digest, previous_files
    from site_gen.building.write import check_site_dir

    start = time.perf_counter()
    data = cache.read(_KIND, key) if key else None
    if data is None:
        return None
    try:
        check_site_dir(config.site_dir, [config.data_dir, config.docs_dir, config.config_file,
                                         *([config.custom_dir] if config.custom_dir else [])])
        entry = json.loads(data)
        files, pages, reports, warnings = entry["listing"], entry["pages"], entry["reports"], from_data(entry["warnings"])
        if not (isinstance(files, str) and isinstance(pages, int) and isinstance(reports, int) and warnings is not None):
            return None
        if not config.site_dir.is_dir():
            return None
        found = _listing(config.site_dir, previous_files(config.site_dir))
        if found is None or listing_digest(found) != files:
            return None
    except (ValueError, KeyError, TypeError, OSError, SitegenError):
        return None  # the full build says what is wrong, if anything is
    return BuildResult(files={}, pages=pages, reports=reports, warnings=warnings, seconds=time.perf_counter() - start,
                       reused=True)


def record(config: Config, key: str | None, result: BuildResult) -> None:
    """After a build: what it wrote, under the inputs' key, if the inputs did not change meanwhile."""
    if not key or inputs_key(config) != key:
        return
    save_digests()
    try:
        # The build's own listing of what it swapped in, else the folder read back file by file.
        files = result.listing if result.listing is not None else _listing(config.site_dir)
    except OSError:
        return
    # A warning of the clean-up belongs to that build only, not to one that reuses its site.
    if files is not None and not any(w.message.startswith(_CLEANUP) for w in result.warnings):
        from site_gen.building.listing import listing_digest

        # The listing's digest, not the listing: at a thousand reports, 20,000 names (~0.1 s to write
        # each build); the site folder read back is compared with it whole, as it was name by name.
        entry = {"listing": listing_digest(files), "pages": result.pages, "reports": result.reports,
                 "warnings": [w.as_data() for w in result.warnings]}
        cache.write(_KIND, key, json.dumps(entry, sort_keys=True).encode("utf-8"))
