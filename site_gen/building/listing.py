"""The site's files as the last build that kept its store left them: each file's sha256 and its
signature (size, modification time, inode, device, change time), in the build cache under the site
folder's path. A later build links an unchanged report's files from the previous site by these
alone, without reading them (write.py `Staging.link_previous`).

Data, under this user's HMAC like every entry. A name it holds is only ever linked into the new
site when the file there is still the one that build wrote: a file edited since has another change
time, which no process can set back (an edit that keeps the size and puts the modification time
back is caught by it); a file whose change time alone moved (a hard link to it made or removed) is
trusted by its content hash, read again. Within `_RACY_NS` of the listing its bytes are compared.
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

from site_gen.building import cache
from site_gen.building.manifest import MANIFEST, manifest_name_ok
from site_gen.building.store import RACY_NS


def signature(st: os.stat_result) -> tuple[int, ...]:
    """What identifies one file as written (size, modification time, inode, device, change time): a
    hard link shares it, an edit changes it (the change time at least: `touch -d` and os.utime set
    the modification time back, nothing but the clock sets the change time)."""
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev, st.st_ctime_ns)


SIGNATURE_FIELDS = 5


def same_bytes(path: str, sha256: str) -> bool:
    """Whether the file at `path` (a regular file, never followed if a link) holds bytes of this sha256:
    a file whose change time alone moved since it was listed, trusted by its content."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return False
    h = hashlib.sha256()
    try:
        while chunk := os.read(fd, 1 << 20):
            h.update(chunk)
    except OSError:
        return False
    finally:
        os.close(fd)
    return h.hexdigest() == sha256


_FILES_KIND = "site-files"
_RACY_NS = RACY_NS  # a file written this close before the listing: its bytes are compared instead


def listing_digest(files: dict[str, str]) -> str:
    """One sha256 of a listing (name -> sha256): what a build wrote, compared whole with what the
    site folder holds (site_cache.py) without keeping 20,000 names twice."""
    h = hashlib.sha256()
    for name in sorted(files):
        h.update(f"{name}\0{files[name]}\n".encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def _files_name(site_dir: Path) -> str:
    return cache.key(_FILES_KIND, _FORMAT, os.path.realpath(site_dir))


# The entry's shape: the names, their sha256 digests as one string, their signatures as one list of
# integers (four a file). A site of a thousand reports lists 20,000 files: as a dict of lists, the
# entry took ~0.1 s to write and as long to read, each build (a fifth of the builder's own time in
# a build with one receipt changed); in this shape, a quarter of that.
_FORMAT = 3


def remember_files(site_dir: Path, listing: dict[str, str], stats: dict[str, tuple[int, ...]]) -> None:
    names = [n for n in listing if n != MANIFEST and n in stats]
    if len(names) != len(listing) - (MANIFEST in listing) or any(len(stats[n]) != SIGNATURE_FIELDS for n in names):
        return
    entry = {"at": time.time_ns(), "names": names, "sha256": "".join(listing[n] for n in names),
             "signatures": [v for n in names for v in stats[n]]}
    cache.write(_FILES_KIND, _files_name(site_dir), json.dumps(entry).encode("utf-8"))


def previous_files(site_dir: Path) -> dict[str, tuple[str, tuple[int, ...]]]:
    """{name: (sha256, signature)} of the site's files as the last build left them, without the
    racy ones; empty when no readable listing is kept."""
    data = cache.read(_FILES_KIND, _files_name(site_dir)) if cache.folder() is not None else None
    if data is None:
        return {}
    try:
        entry = json.loads(data)
        at, names, shas, sigs = entry["at"], entry["names"], entry["sha256"], entry["signatures"]
        n = len(names)
        if not (type(at) is int and type(names) is list and type(shas) is str and len(shas) == 64 * n
                and type(sigs) is list and len(sigs) == SIGNATURE_FIELDS * n and all(type(v) is int for v in sigs)
                and all(type(name) is str and manifest_name_ok(name) for name in names)):
            return {}
        each = iter(sigs)
        limit = at - _RACY_NS
        # A change time within the racy window (a link the last build made to an unchanged file) is
        # listed as none (-1): such a file is trusted by its bytes, read again, not by its status.
        return {name: (shas[64 * i:64 * i + 64], sig if sig[4] < limit else sig[:4] + (-1,))
                for i, (name, sig) in enumerate(zip(names, zip(*[each] * SIGNATURE_FIELDS))) if sig[1] < limit}
    except (ValueError, KeyError, TypeError, AttributeError):
        return {}
