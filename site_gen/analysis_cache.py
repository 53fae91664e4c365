"""A report's analysis kept in the persistent cache (site_gen/cache.py), so that a build after one
receipt changed loads and analyses that report only, not the thousand beside it.

An entry is named by everything the analysis is made from: the receipt's bytes (their hash), its
folder, the options the load and the analysis read (strict, size limit, noise band, scale,
headline window) and sitegen's own code with the installed packages (as report_cache.py). The
lede is read again on every build (it is prose beside the receipt, cheap to read, and the
analysis does not depend on it). The safety checks of a load (a receipt that is a link out of the
data folder, a size over the limit) run every time, before the cache is asked.

Entries are pickles, as Sphinx keeps its environment: only an entry whose checksum matches is
read, and only from folders that this user owns and nobody else may write to (`put` makes them
so). On only where report_cache.py is (a `sitegen build` in a process of its own).
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
import pickle
import stat
from pathlib import Path

from site_gen import cache, report_cache, site_cache
from site_gen.analyse.report import Analysis, deferred, with_report
from site_gen.config import Config
from site_gen.errors import SitegenError

_KIND = "analyses"


def _ours(path: Path, *, group_may_write: bool = False) -> bool:
    st = os.stat(path)
    others = stat.S_IWOTH | (0 if group_may_write else stat.S_IWGRP)
    return st.st_uid == os.getuid() and not st.st_mode & others


def _trusted(name: str) -> bool:
    """Whether the entry's folders are this user's alone (a pickle is code as much as data): the
    cache folder (group-writable is common with a private group per user) and the entry's own
    folders, which `put` makes for this user only."""
    entry = cache._path(_KIND, name)
    if entry is None:
        return False
    try:
        return _ours(entry.parent.parent.parent, group_may_write=True) and _ours(entry.parent.parent) and _ours(entry.parent)
    except OSError:
        return False


def _make_folders(name: str) -> bool:
    """The entry's folders, made for this user only (whatever the umask), and trusted."""
    entry = cache._path(_KIND, name)
    if entry is None:
        return False
    try:
        entry.parent.parent.parent.mkdir(parents=True, exist_ok=True)
        for folder in (entry.parent.parent, entry.parent):
            folder.mkdir(mode=0o700, exist_ok=True)
    except OSError:
        return False
    return _trusted(name)


def key(folder: Path, sha256: str, config: Config, strict: bool) -> str | None:
    """The entry's name, or None when the cache is off or cannot be told apart (see report_cache.key)."""
    if not report_cache.enabled or cache.folder() is None:
        return None
    code = report_cache.code_hash()
    if code is None:
        return None
    try:
        site_cache.check_sections()
    except site_cache.Unsuitable:
        return None
    return cache.key("analysis", code, site_cache.packages(), os.path.realpath(folder), sha256, strict,
                     config.max_receipt_bytes, config.noise_band, tuple(config.ratio_scale), config.headline_input)


def get(folder: Path, config: Config, strict: bool) -> tuple[Analysis, tuple | None] | None:
    """The cached analysis of the receipt in `folder` as it is now, with the dashboard and history rows
    a forked build kept beside it (or None), or None (then load it as usual). Its section fields are
    unpickled when first used (`deferred`): a build that takes the report's files from the cache too
    never reads them."""
    from site_gen import load

    if not report_cache.enabled:
        return None
    try:
        file = load.receipt_file(folder, config.data_dir)
        raw = load.read_receipt(file, config.max_receipt_bytes)
    except (SitegenError, OSError):
        return None  # the usual load says what is wrong
    name = key(folder, hashlib.sha256(raw).hexdigest(), config, strict)
    blob = cache.read(_KIND, name) if name and _trusted(name) else None
    if blob is None:
        return None
    try:
        a, summaries = pickle.loads(blob)
        if not isinstance(a, Analysis) or not (summaries is None or isinstance(summaries, tuple) and len(summaries) == 2):
            return None
        lede = load.read_lede(folder, a.report.meta.get("lede", ""), config.data_dir, config.max_receipt_bytes)
    except SitegenError:
        return None
    except Exception:  # noqa: BLE001 - an entry from another build of the same code that does not read back
        return None
    return with_report(a, dataclasses.replace(a.report, folder=folder, file=file, raw=raw, lede=lede)), summaries


def put(a: Analysis | None, config: Config, strict: bool, summaries: tuple | None = None) -> None:
    """Keeps a fresh analysis (without the receipt's bytes, which the next build reads anyway), and
    the report's dashboard and history rows when a forked build made them."""
    if a is None:
        return
    name = key(a.report.folder, a.report.sha256, config, strict)
    if not name or not _make_folders(name):
        return
    try:
        kept = deferred(with_report(a, dataclasses.replace(a.report, raw=b""), displayed={}))  # views are remade where used
        blob = pickle.dumps((kept, summaries), protocol=5)
    except Exception:  # noqa: BLE001 - an analysis that does not pickle (a section from outside sitegen) is not kept
        return
    cache.write(_KIND, name, blob)
