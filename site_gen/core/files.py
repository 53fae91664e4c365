"""Reading a file sitegen did not write, safely: only a regular file, its size asked of the file
system before any byte is read, never a blocking read (a FIFO, /proc/kmsg), never more than a limit;
and whether a path, its links followed, stays inside a folder.

Every reader of outside files goes through here: receipts and ledes (receipts/parse.py), importers'
sources (importers/reading.py), docs pages and files (render/docs.py), custom_dir (render/custom.py).
"""
from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from site_gen.core.errors import SitegenError
from site_gen.core.paths import resolve_path

_CHUNK = 1 << 20


def megabytes(size: int) -> str:
    """A limit in MB as messages write it: `256`, `0.5`."""
    return f"{round(size / 1048576, 3):g}"


def _open_regular(file: Path | str, what: str) -> tuple[int, os.stat_result]:
    """An open descriptor of a regular file and its status; a folder, a device, a FIFO or a socket
    is refused (opened without blocking, so a FIFO with no writer does not hang the open)."""
    try:
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise SitegenError(f"cannot read: {exc.strerror}", file) from None
    try:
        st = os.fstat(fd)
    except OSError as exc:
        os.close(fd)
        raise SitegenError(f"cannot read: {exc.strerror}", file) from None
    if stat.S_ISDIR(st.st_mode):
        os.close(fd)
        raise SitegenError("is a folder; expected a file", file)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise SitegenError(f"is not a regular file (a device, a pipe or a socket); sitegen reads no such {what}", file)
    return fd, st


def read_limited(file: Path | str, max_bytes: int, what: str, remedy: str) -> bytes:
    """A regular file's bytes, refused unread when the file system says it is over `max_bytes`, and
    refused when more than that comes (a file that grew, or one of /proc that states no size)."""
    fd, st = _open_regular(file, what)
    try:
        if st.st_size > max_bytes:
            raise SitegenError(f"{what} is {st.st_size / 1048576:.1f} MB, over the {megabytes(max_bytes)} MB limit "
                               f"({remedy}); refused unread", file)
        raw = _read_up_to(fd, min(st.st_size, max_bytes), max_bytes)
    except OSError as exc:
        raise SitegenError(f"cannot read: {exc.strerror}", file) from None
    finally:
        os.close(fd)
    if len(raw) > max_bytes:  # grew since it was measured
        raise SitegenError(f"{what} is over the {megabytes(max_bytes)} MB limit ({remedy})", file)
    return raw


def _read_up_to(fd: int, expected: int, max_bytes: int) -> bytes:
    """The file's bytes, up to max_bytes + 1: a buffer of the size the file states is asked for first
    (a read of the limit would allocate the limit, 256 MB for a file of 2 KB), then more while more
    comes (a file of /proc states no size)."""
    parts: list[bytes] = []
    total = 0
    ask = expected + 1
    while total <= max_bytes:
        chunk = os.read(fd, min(ask, max_bytes + 1 - total))
        if not chunk:
            break
        parts.append(chunk)
        total += len(chunk)
        ask = _CHUNK
    return parts[0] if len(parts) == 1 else b"".join(parts)


def hash_limited(file: Path | str, max_bytes: int, what: str, remedy: str) -> bytes:
    """The sha256 digest of a regular file, read a megabyte at a time (memory stays bounded), with
    `read_limited`'s refusals."""
    fd, st = _open_regular(file, what)
    h = hashlib.sha256()
    try:
        if st.st_size > max_bytes:
            raise SitegenError(f"{what} is {st.st_size / 1048576:.1f} MB, over the {megabytes(max_bytes)} MB limit "
                               f"({remedy}); refused unread", file)
        seen = 0
        while chunk := os.read(fd, _CHUNK):
            seen += len(chunk)
            if seen > max_bytes:
                raise SitegenError(f"{what} is over the {megabytes(max_bytes)} MB limit ({remedy})", file)
            h.update(chunk)
    except OSError as exc:
        raise SitegenError(f"cannot read: {exc.strerror}", file) from None
    finally:
        os.close(fd)
    return h.digest()


def leads_out(path: Path, root: Path) -> Path | None:
    """Where `path` leads, its links followed, when that is outside `root` (its links followed too);
    None when it stays inside."""
    real, top = resolve_path(path), resolve_path(root)
    return None if real == top or top in real.parents else real


def check_inside(path: Path, root: Path, what: str, hint: str) -> Path:
    """`path` with its links followed, or a refusal naming where it leads when that is outside `root`."""
    out = leads_out(path, root)
    if out is not None:
        raise SitegenError(f"leads out of {what} {root} (to {out}); {hint}", path)
    return resolve_path(path)


# custom_dir holds templates and the few static files that override sitegen's (a stylesheet, a script):
# sitegen reads from it only regular files inside it, each at most this large, and at most this many.
MAX_CUSTOM_FILE_BYTES = 16 << 20
MAX_CUSTOM_FILES = 5_000


def check_custom_dir(custom_dir: Path | None, file: Path | None = None, where: str = "custom_dir") -> None:
    """Refuses a custom_dir that holds what sitegen would not read (before anything of it is read): a
    link leading out of it, anything but folders and regular files (a device, a FIFO: `/proc/kmsg`
    blocks a read for ever), a file over MAX_CUSTOM_FILE_BYTES, more than MAX_CUSTOM_FILES entries."""
    if custom_dir is None or not os.path.isdir(custom_dir):
        return
    root = resolve_path(custom_dir)
    count = 0
    hint = "sitegen reads only regular files inside custom_dir"
    for folder, dirs, names in os.walk(root):
        for name in dirs + names:
            count += 1
            if count > MAX_CUSTOM_FILES:
                raise SitegenError(f"custom_dir holds more than {MAX_CUSTOM_FILES:,} files and folders; it is for "
                                   "templates and the static files that override sitegen's", file or custom_dir, where)
            path = Path(folder, name)
            if path.is_symlink():
                check_inside(path, root, "custom_dir", hint)
            try:
                st = os.stat(path)
            except OSError:
                continue  # a dangling link: no template there
            if stat.S_ISDIR(st.st_mode):
                continue
            if not stat.S_ISREG(st.st_mode):
                raise SitegenError(f"is not a regular file (a device, a pipe or a socket); {hint}", path)
            if st.st_size > MAX_CUSTOM_FILE_BYTES:
                raise SitegenError(f"is {st.st_size / 1048576:.1f} MB, over the {megabytes(MAX_CUSTOM_FILE_BYTES)} MB "
                                   f"limit of a file in custom_dir; refused unread", path)
