"""The persistent cache: what a build can reuse from an earlier process (compiled templates, the
schema validator's code, a report's rendered files).

It lives in the user's cache folder (`$XDG_CACHE_HOME/sitegen`, else `~/.cache/sitegen`), or where
`--cache-dir` says; `--no-cache` turns it off. Every entry is named by a hash of everything it was
made from (sitegen's version among them), so a stale entry is never found, only a fresh one. Each
entry carries a checksum of its bytes: one that does not match (a torn write, a disk fault, a
hand edit) reads as missing and is made again, never used. Writing the cache never fails a build.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path

import site_gen

_MAGIC = b"sitegen-cache 1\n"
# None: the default folder; False: no cache; a Path: that folder.
_where: Path | bool | None = None


def configure(directory: str | Path | None = None, *, enabled: bool = True) -> None:
    """Where this process keeps its cache (`--cache-dir`), or no cache at all (`--no-cache`)."""
    global _where
    _where = False if not enabled else (Path(directory).expanduser() if directory else None)


def folder() -> Path | None:
    """The cache folder in use, or None when the cache is off."""
    if _where is False:
        return None
    if isinstance(_where, Path):
        return _where
    if os.environ.get("SITEGEN_NO_CACHE"):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "sitegen"


def key(*parts: object) -> str:
    """A hash of what an entry is made from, with what makes any entry stale (sitegen, Python)."""
    h = hashlib.sha256()
    for part in (site_gen.__version__, sys.version, *parts):
        data = part if isinstance(part, bytes) else repr(part).encode("utf-8", "surrogatepass")
        h.update(len(data).to_bytes(8, "big"))
        h.update(data)
    return h.hexdigest()


def _path(kind: str, name: str) -> Path | None:
    root = folder()
    return None if root is None else root / kind / name[:2] / name


def read(kind: str, name: str) -> bytes | None:
    """The entry's bytes, or None when it is missing, unreadable or fails its checksum."""
    path = _path(kind, name)
    if path is None:
        return None
    try:
        blob = path.read_bytes()
    except OSError:
        return None
    head = len(_MAGIC) + 64
    if not blob.startswith(_MAGIC) or blob[head:head + 1] != b"\n":
        return None
    payload = blob[head + 1:]
    if hashlib.sha256(payload).hexdigest().encode() != blob[len(_MAGIC):head]:
        return None
    return payload


def write(kind: str, name: str, payload: bytes) -> None:
    """Stores an entry whole (a reader sees the old entry or the new one), or not at all."""
    path = _path(kind, name)
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(_MAGIC + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        pass  # a read-only or full cache folder: the build goes on without it


def pack(head: dict, files: dict[str, bytes]) -> bytes:
    """A JSON-able `head` and named files as one entry's bytes (`unpack` reads them back)."""
    names = sorted(files)
    meta = json.dumps({"head": head, "names": names, "lengths": [len(files[n]) for n in names]},
                      sort_keys=True).encode("utf-8")
    return len(meta).to_bytes(8, "big") + meta + b"".join(files[n] for n in names)


def unpack(blob: bytes | None) -> tuple[dict, dict[str, bytes]] | None:
    """(head, files) of bytes `pack` made, or None when they are not such bytes."""
    if blob is None:
        return None
    try:
        size = int.from_bytes(blob[:8], "big")
        meta = json.loads(blob[8:8 + size])
        head, names, lengths = meta["head"], meta["names"], meta["lengths"]
        files, at = {}, 8 + size
        for name, length in zip(names, lengths, strict=True):
            files[name] = blob[at:at + length]
            at += length
        if at != len(blob) or not isinstance(head, dict):
            return None
    except (ValueError, KeyError, TypeError):
        return None
    return head, files
