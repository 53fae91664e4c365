"""The one persistent store of a build, and the one recipe that names its entries.

An entry's name is a hash of its kind, of the build's environment (sitegen's own files and theme,
the custom_dir's files by content, the installed packages, Python, the options) and of the
entry's own inputs (a receipt folder's content, a dependency record). So a changed input is never
served an old entry. The entries are data (site_gen/building/cache.py: JSON and file bytes under this
user's HMAC); the kinds:

- `record`: a report's record (site_gen/building/environment.py), by its folder's content: a build
  after one receipt changed parses, checks and analyses that report only;
- `files`: a report's files, by its record and what its pages show of the site around them
  (navigation, assets, the reports it links to): a build renders that report's pages only;
- `site`: the list of the site's files by hash, by every input: nothing changed, nothing done
  (site_gen/building/site_cache.py);
- `references`: what a template's source names (site_gen/building/dependencies.py);
- the MkDocs plugin's records of reports and docs pages.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import stat
import sys
import time
from functools import lru_cache
from pathlib import Path

from typing import TYPE_CHECKING

from site_gen.building import cache
from site_gen.building.scan import entries
from site_gen.core.config import Config
from site_gen.core.diagnostics import Diagnostic, from_data
from site_gen.core.errors import SitegenError
from site_gen.core.files import hash_limited

if TYPE_CHECKING:
    from site_gen.building.environment import ReportRecord

_PACKAGE = Path(__file__).resolve().parent.parent


class Unsuitable(Exception):
    """An input the key cannot capture (a symbolic link, a section from outside sitegen)."""


def hash_tree(root: Path | None, h) -> None:
    """Every file under root, by name and content, into the hash `h`: each folder's files in name
    order (a link to a folder among them, which is Unsuitable), then its folders (`__pycache__`
    aside). One scandir a folder and names joined as text: a build of a thousand reports hashes
    their folders three times, and os.walk's work per folder was most of it."""
    if root is None or not root.exists():
        h.update(b"\0missing")
        return
    _hash_folder(os.fspath(root), "", h)


def _hash_folder(folder: str, below: str, h) -> None:
    found = entries(folder, follow_symlinks=True)
    if found is None:
        return  # as os.walk: a folder that cannot be listed adds nothing
    dirs = sorted(name for name, is_dir, _ in found if is_dir and name != "__pycache__")
    linked = {name for name, is_dir, link in found if is_dir and link and name != "__pycache__"}
    for name in sorted([name for name, is_dir, _ in found if not is_dir] + list(linked)):
        path = f"{folder}/{name}"
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode):
            raise Unsuitable(path)
        h.update((below + name).encode("utf-8", "surrogateescape") + b"\0")
        h.update(_digest(path, st))
    for name in dirs:
        if name not in linked:
            _hash_folder(f"{folder}/{name}", f"{below}{name}/", h)


# Each file's digest by its path, kept while its size, times, inode and device are unchanged (as
# git's index keeps them). A build hashes the receipts three times (the inputs' key before and
# after, each folder's record's name): with this, once; the second pass and the forked workers only
# stat them. A build whose store is on keeps them in the store too (`load_digests`, `save_digests`):
# the next build reads only the files changed since. The change time is in the signature, and no
# process can set it; a file changed within the clock tick of its hashing is not kept (`RACY_NS`).
_digests: dict[str, tuple[tuple[int, ...], bytes]] = {}
_DIGESTS = "digests"
# A file changed this close before a listing of it was made could change again within the same
# tick of the clock, unseen by its status (git's "racy" entries): such a file is read, not trusted.
RACY_NS = 2_000_000_000
_MAX_HASHED = 1 << 30


def _digest(path: str, st: os.stat_result) -> bytes:
    sig = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)
    kept = _digests.get(path)
    if kept is not None and kept[0] == sig:
        return kept[1]
    try:  # a megabyte at a time, never a blocking read (a file of /proc), never past a gigabyte
        digest = hash_limited(path, _MAX_HASHED, "file", "too large to key the build cache by")
    except SitegenError:
        raise Unsuitable(path) from None
    _digests[path] = (sig, digest)
    return digest


def load_digests() -> None:
    """The digests the last build with a store kept (`save_digests`), where this process has none."""
    data = cache.read(_DIGESTS, cache.key(_DIGESTS)) if cache.folder() is not None else None
    if data is None:
        return
    try:
        entry = json.loads(data)
        _, files = entry["at"], entry["files"]  # an entry without its time is not one
        for path, (size, mtime, ctime, ino, dev, digest) in files.items():
            if all(isinstance(v, int) for v in (size, mtime, ctime, ino, dev)) and isinstance(path, str):
                _digests.setdefault(path, ((size, mtime, ctime, ino, dev), bytes.fromhex(digest)))
    except (ValueError, KeyError, TypeError, AttributeError):
        return


def save_digests() -> None:
    """Keeps this process's digests in the store for the next build, but those of files changed in
    the last moments (their next change could fall in the same clock tick, unseen)."""
    if cache.folder() is None or not _digests:
        return
    now = time.time_ns()
    files = {path: [*sig, digest.hex()] for path, (sig, digest) in _digests.items()
             if sig[1] < now - RACY_NS and sig[2] < now - RACY_NS}
    cache.write(_DIGESTS, cache.key(_DIGESTS), json.dumps({"at": now, "files": files}).encode("utf-8"))


def packages() -> list[str]:
    """The installed distributions and their versions, from the names of their metadata folders."""
    out = []
    for entry in sys.path:
        if os.path.basename(entry) not in ("site-packages", "dist-packages"):
            continue  # the script's folder, a test runner's: no installed package lives there
        try:
            out += sorted(n for n in os.listdir(entry) if n.endswith((".dist-info", ".egg-info")))
        except OSError:
            continue
    return out


def check_sections() -> None:
    """Sections registered from outside sitegen are code the key cannot follow."""
    from site_gen.sections import all_sections

    for section in all_sections():
        if not (section.package or "site_gen.").startswith("site_gen."):
            raise Unsuitable(f"section {section.name} from {section.package}")
        for value in vars(section).values():
            if callable(value) and not getattr(value, "__module__", "site_gen.").startswith("site_gen."):
                raise Unsuitable(f"section {section.name} from {value.__module__}")


def code_roots() -> list[Path]:
    """sitegen's own files: its code, its theme (templates/, static/) and every section's folder."""
    return [_PACKAGE]


@lru_cache(maxsize=1)
def code_hash() -> str | None:
    """sitegen's files and the theme, hashed once per process (None: not hashable, no cache)."""
    h = hashlib.sha256()
    try:
        for root in code_roots():
            hash_tree(root, h)
    except (Unsuitable, OSError):
        return None
    return h.hexdigest()


def environment_key(config: Config) -> str | None:
    """What every entry of a build is made under besides its own inputs; None when one of them
    cannot be told (a symbolic link in custom_dir, a section from outside sitegen)."""
    code = code_hash()
    if code is None:
        return None
    h = hashlib.sha256()
    try:
        hash_tree(config.custom_dir, h)
        check_sections()
    except (Unsuitable, OSError):
        return None
    return cache.key("environment", code, h.hexdigest(), packages(),
                     repr(dataclasses.replace(config, site_dir=Path("."))))


def folder_hash(folder: Path) -> str | None:
    """A report folder's files by name and content (None: one is a link, or unreadable)."""
    h = hashlib.sha256()
    try:
        hash_tree(folder, h)
    except (Unsuitable, OSError):
        return None
    return h.hexdigest()


class Store:
    """The build's persistent entries; off (every get misses, every put is dropped) unless enabled,
    which only a `sitegen build` in a process of its own does (a caller in this process, the
    tests, may have patched the pipeline, and would be served what it did not make)."""

    def __init__(self, config: Config, *, enabled: bool = False):
        if enabled and cache.folder() is not None and not _digests:
            load_digests()
        self.base = environment_key(config) if enabled and cache.folder() is not None else None

    @property
    def on(self) -> bool:
        return self.base is not None

    def name(self, kind: str, *parts: object) -> str | None:
        """The one key recipe: the kind, the environment, the entry's inputs."""
        return cache.key(kind, self.base, *parts) if self.base is not None else None

    def get(self, kind: str, *parts: object) -> bytes | None:
        name = self.name(kind, *parts)
        return cache.read(kind, name) if name else None

    def put(self, kind: str, payload: bytes, *parts: object) -> None:
        name = self.name(kind, *parts)
        if name:
            cache.write(kind, name, payload)

    # -- a report's record, by its folder -------------------------------------------------------
    # (Here, not above: a warm build that finds the whole site built imports none of the pipeline.)
    def record(self, folder: Path, content: str | None) -> ReportRecord | None:
        from site_gen.building.environment import loads

        return loads(self.get("record", folder.name, content)) if content else None

    def put_record(self, folder: Path, content: str | None, record: ReportRecord) -> None:
        from site_gen.building.environment import dumps

        if content:
            self.put("record", dumps(record), folder.name, content)

    # -- a report's files, by what they are made from -------------------------------------------
    def files(self, *inputs: object) -> tuple[dict[str, bytes], list[Diagnostic], bool] | None:
        """(files, warnings, whether a page draws charts) made from `inputs`, or None."""
        entry = cache.unpack(self.get("files", *inputs))
        if entry is None:
            return None
        head, files = entry
        warnings, charts = from_data(head.get("warnings")), head.get("charts")
        if warnings is None or not isinstance(charts, bool):
            return None
        return files, warnings, charts

    def put_files(self, files: dict[str, bytes], warnings: list[Diagnostic], charts: bool, *inputs: object,
                  hashes: dict[str, str] | None = None, index_only: bool = False) -> None:
        head = {"warnings": [w.as_data() for w in warnings], "charts": charts}
        if not index_only:
            self.put("files", cache.pack(head, files), *inputs)
        if hashes is not None:  # and what they are, without their bytes (`files_index`)
            self.put("files-index", json.dumps({**head, "hashes": hashes}, sort_keys=True).encode("utf-8"), *inputs)

    def page(self, key: str) -> tuple[bytes, bool] | None:
        """(HTML, whether it draws charts) of a site-wide page made from what `key` names (the history
        page's: Builder.history_key), or None."""
        data = self.get("page", key)
        try:
            entry = json.loads(data) if data is not None else None
            html, charts = (entry["html"], entry["charts"]) if isinstance(entry, dict) else (None, None)
        except (ValueError, KeyError):
            return None
        return (html.encode("utf-8"), charts) if isinstance(html, str) and isinstance(charts, bool) else None

    def put_page(self, key: str, html: bytes, charts: bool) -> None:
        self.put("page", json.dumps({"charts": charts, "html": html.decode("utf-8")}, ensure_ascii=False).encode("utf-8"), key)

    def files_index(self, *inputs: object) -> tuple[dict[str, str], list[Diagnostic], bool] | None:
        """(each file's sha256 by name, warnings, whether a page draws charts) of the files made from
        `inputs`, without their bytes: what a build needs to link them from the previous site."""
        data = self.get("files-index", *inputs)
        if data is None:
            return None
        try:
            head = json.loads(data)
            hashes, warnings, charts = head["hashes"], from_data(head["warnings"]), head["charts"]
        except (ValueError, KeyError, TypeError):
            return None
        if not (isinstance(hashes, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in hashes.items())
                and warnings is not None and isinstance(charts, bool)):
            return None
        return hashes, warnings, charts
