"""The site's files as the last build that kept its store left them: each file's sha256 and its
signature (size, modification time, inode, device), in the build cache under the site folder's
path. A later build links an unchanged report's files from the previous site by these alone,
without reading them (write.py `Staging.link_previous`).

Data, under this user's HMAC like every entry. A name it holds is only ever linked into the new
site when the file there is still the one that build wrote: a file edited since has another time
(an edit that keeps the size and sets the time back to the nanosecond is taken for the file it
poses as; its bytes are compared instead only within `_RACY_NS` of the listing).
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

from site_gen.build import cache
from site_gen.build.manifest import MANIFEST, manifest_name_ok
from site_gen.build.store import RACY_NS


def signature(st: os.stat_result) -> tuple[int, ...]:
    """What identifies one file as written (size, modification time, inode, device): a hard link
    shares it, an edit changes it (the time at least)."""
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev)


_FILES_KIND = "site-files"
_RACY_NS = RACY_NS  # a file written this close before the listing: its bytes are compared instead


def _files_name(site_dir: Path) -> str:
    return cache.key(_FILES_KIND, os.path.realpath(site_dir))


def remember_files(site_dir: Path, listing: dict[str, str], stats: dict[str, tuple[int, ...]]) -> None:
    files = {n: [sha, *stats[n]] for n, sha in listing.items() if n != MANIFEST and n in stats}
    if len(files) == len(listing) - (MANIFEST in listing):
        cache.write(_FILES_KIND, _files_name(site_dir), json.dumps({"at": time.time_ns(), "files": files}).encode("utf-8"))


def previous_files(site_dir: Path) -> dict[str, tuple[str, tuple[int, ...]]]:
    """{name: (sha256, signature)} of the site's files as the last build left them, without the
    racy ones; empty when no readable listing is kept."""
    data = cache.read(_FILES_KIND, _files_name(site_dir)) if cache.folder() is not None else None
    if data is None:
        return {}
    try:
        entry = json.loads(data)
        at, files = entry["at"], entry["files"]
        out = {}
        for name, (sha, *sig) in files.items():
            if not (len(sig) == 4 and type(sha) is str and type(sig[0]) is int and type(sig[1]) is int
                    and type(sig[2]) is int and type(sig[3]) is int and manifest_name_ok(name)):
                return {}
            if sig[1] < at - _RACY_NS:
                out[name] = (sha, tuple(sig))
        return out
    except (ValueError, KeyError, TypeError, AttributeError):
        return {}
