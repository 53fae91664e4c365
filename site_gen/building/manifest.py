"""The site's list of its own files (`.sitegen-manifest`): names inside the site folder, nothing
more, checked one by one before anything is deleted or written; and the in-place replacement's
file operations, each reached from the site folder without following a link."""
from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path

from site_gen.building.aside import PREFIX
from site_gen.building.scan import entries
from site_gen.core.errors import SitegenError

# The list of files the last build wrote, kept in the site: a later build deletes only those.
MANIFEST = ".sitegen-manifest"


def _new_file_mode() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


FILE_MODE = _new_file_mode()


def site_files(root: Path, *, hidden: bool):
    """Files (and links) under root, as relative names in a stable order; `hidden=False` leaves out
    the top-level dot entries (.git, .well-known, .htaccess), which are never the build's to delete.

    Each folder's files and links in name order, then each of its folders in name order; a link to
    a folder is listed, never followed; a folder that cannot be read is passed over (as os.walk
    does). One scandir a folder, names joined as text: a site of a thousand reports has 2,000
    folders and 20,000 files, and os.walk's extra work per folder was half the time of listing them."""
    yield from _listed(os.fspath(root), "", hidden)


def _listed(folder: str, prefix: str, hidden: bool):
    found = entries(folder, follow_symlinks=False)
    if found is None:
        return
    if not hidden and not prefix:
        found = [f for f in found if not f[0].startswith(".")]
    yield from sorted(prefix + name for name, is_dir, _ in found if not is_dir)
    for name in sorted(name for name, is_dir, _ in found if is_dir):
        yield from _listed(f"{folder}/{name}", f"{prefix}{name}/", hidden)


def manifest_name_ok(name: str) -> bool:
    """A name the manifest may hold: a plain relative path inside the site, as `site_files` lists one
    (no `..`, `.`, empty or absolute part, no backslash or NUL, no top-level dot entry)."""
    parts = name.split("/")  # an empty name is one empty part; an absolute one starts with one
    return ("" not in parts and "." not in parts and ".." not in parts and name[0] != "." and "\\" not in name
            and "\0" not in name)


def file_and_folder(names: set[str], new) -> tuple[str, str] | None:
    """A name of `new` that another name of `names` needs as a folder, or that lies in a folder
    another name takes as a file: (that name, one inside it); None when there is none. A docs file
    named `reports` or `index.html/x` would otherwise replace what the build wrote under it."""
    if not new:
        return None  # a site without docs: nothing to look for among its 20,000 names
    for name in sorted(new):
        at = name.find("/")
        while at >= 0:
            if name[:at] in names:
                return name[:at], name
            at = name.find("/", at + 1)
    tops = {name.split("/", 1)[0] for name in new}
    folders: set[str] = set()
    for name in names:
        if name.split("/", 1)[0] in tops:
            at = name.find("/")
            while at >= 0:
                folders.add(name[:at])
                at = name.find("/", at + 1)
    found = min((name for name in new if name in folders), default=None)
    return (found, min(n for n in names if n.startswith(found + "/"))) if found is not None else None


class _BadManifest(Exception):
    """The site's manifest is not a list of names inside the site (a link, a name with `..`)."""


def _read_manifest(site_dir: Path) -> set[str] | None:
    """What the last build wrote into site_dir; None when no build left a readable list. A list
    that is a link, or names a path that is not inside the site, raises _BadManifest: it is
    never followed, nor any name of it trusted."""
    try:
        fd = os.open(site_dir / MANIFEST, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        if exc.errno == errno.ELOOP or os.path.islink(site_dir / MANIFEST):
            raise _BadManifest(f"{MANIFEST} is a symbolic link") from None
        return None
    try:
        with open(fd, "rb", closefd=False) as f:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            names = json.loads(f.read().decode("utf-8"))["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    finally:
        os.close(fd)
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        return None
    bad = next((n for n in names if not manifest_name_ok(n)), None)
    if bad is not None:
        raise _BadManifest(f"{MANIFEST} names {bad!r}, which is not a file inside the site folder")
    return set(names)


def manifest_names(site_dir: Path) -> set[str] | None:
    """The last build's list, or None when there is none to trust (missing, unreadable, a link, a bad name)."""
    try:
        return _read_manifest(site_dir)
    except _BadManifest:
        return None


def check_manifest(site_dir: Path) -> set[str] | None:
    """Refuses a site folder whose manifest was tampered with, before anything is deleted or written;
    else what it lists (None: no list)."""
    try:
        return _read_manifest(site_dir)
    except _BadManifest as exc:
        raise SitegenError(f"{exc}; the list is not to be trusted: delete it and build with --clean, "
                           "which removes every file in the site folder that this build does not write", site_dir) from None


def manifest_bytes(names) -> bytes:
    doc = {"about": "files the last sitegen build wrote here; the next build refuses others unless --clean",
           "files": sorted(names)}
    return (json.dumps(doc, indent=0) + "\n").encode("utf-8")


def write_manifest(root: Path, names) -> None:
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        replace_at(fd, MANIFEST, manifest_bytes(names), FILE_MODE)
    finally:
        os.close(fd)


def replace_at(folder_fd: int, name: str, data: bytes, mode: int) -> None:
    """Puts a file named `name` in the folder open as `folder_fd`: a new file renamed over the old
    name, so a link found there is replaced, never written through."""
    for _ in range(100):
        tmp = f"{PREFIX}{os.urandom(6).hex()}.tmp"
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600, dir_fd=folder_fd)
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError(errno.EEXIST, "no free temporary name", name)
    try:
        try:
            with open(fd, "wb", closefd=False) as f:
                f.write(data)
            os.fchmod(fd, mode)
        finally:
            os.close(fd)
        os.replace(tmp, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
    except BaseException:
        try:
            os.unlink(tmp, dir_fd=folder_fd)
        except OSError:
            pass
        raise


def open_folder(site_fd: int, parts, *, make: bool = False) -> int | None:
    """The folder site/PARTS opened without following a link on the way (made when `make`), or None
    when a part is a link or not a folder: a path that would lead out of the site reaches nothing."""
    fd = os.dup(site_fd)
    try:
        for part in parts:
            if make:
                try:
                    os.mkdir(part, 0o777, dir_fd=fd)
                except FileExistsError:
                    pass
            try:
                inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_NOFOLLOW", 0), dir_fd=fd)
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR, errno.ENOENT):
                    raise
                os.close(fd)
                return None
            os.close(fd)
            fd = inner
        return fd
    except BaseException:
        os.close(fd)
        raise


def strays(site_dir: Path, written: set[str] | None = None):
    """Files in site_dir the last build did not write (all of them when no build wrote there);
    `written`: its manifest's list, when already read."""
    if site_dir.is_dir():
        written = (written if written is not None else manifest_names(site_dir)) or set()
        yield from (n for n in site_files(site_dir, hidden=False) if n not in written)
