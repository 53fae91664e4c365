"""The previous site's folder tree, kept in the build cache for the next build to write into.

A build stages the whole new site beside the old one, then swaps it in (write.py `Staging`). At a
thousand reports, most of a build with one receipt changed is making that staging tree: 2,000
folders and 20,000 hard links to the unchanged files, then removing the swapped-out site's 22,000
entries. The swapped-out site is nearly the next build's staging tree already (every unchanged
report's files are the very files of the site, hard links of the same inodes), so it is kept,
moved into the build cache's own folder (this user's alone, 0700: nobody else can change it), and
the next build that links from the previous site starts from it: a file already there as the
same inode as the site's file is kept as it is; anything else there is replaced or, if this build
did not write it, deleted before the swap.

Nothing in the spare tree is ever read, trusted or published by itself: a file stays only as the
same inode (and device) as the current site's file, which the build checked against its listing
(listing.py) as it does when it links it. Folders are entered only after an lstat says each is a
folder (a link is replaced, never followed), and everything it deletes lies inside the staging
folder. The tree moves only by rename on one file system; anything else (another file system, a
spare already kept, no cache) leaves the build as it was without one.
"""
from __future__ import annotations

import errno
import os
import shutil
import stat
from pathlib import Path

from site_gen.building import aside, cache
from site_gen.building.scan import entries


def _new_folder_mode() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o777 & ~mask


DIR_MODE = _new_folder_mode()  # what os.mkdir makes a folder here (the build's own folders)

_KIND = "site-spare"  # a folder of the cache, not an entry: it holds no data a build reads


def spare_of(site_dir: Path) -> Path | None:
    """Where the spare tree of this site folder is kept, or None when there is no cache."""
    root = cache.folder()
    return None if root is None else root / _KIND / cache.key(_KIND, os.path.realpath(site_dir))[:40]


def claim(site_dir: Path, staging: Path) -> tuple[bool, int | None]:
    """Moves the site's spare tree onto `staging` (an empty folder just made for the build):
    (whether it did, the lock it holds on the tree, which moved with it). Its top-level dot entries
    (the old manifest, the copies of .git and the like) go: the build writes or carries its own."""
    spare = spare_of(site_dir)
    if spare is None or not os.path.isdir(spare):
        return False, None
    # Locked before the move, so that no other build takes it, nor removes it as a dead build's
    # staging folder (aside.remove_stale) once it is beside the site.
    fd = aside.lock_folder(spare)
    if fd is None and aside.fcntl is not None:
        return False, None  # another build holds it
    try:
        if fd is not None and not os.path.samestat(os.fstat(fd), os.lstat(spare)):
            raise OSError("another tree took its place between the open and the lock")
        # Onto the empty folder: replaces it. Only a folder moves onto a folder; the cache folder is
        # this user's alone (cache.py), so the tree is what an earlier build of theirs kept.
        os.rename(spare, staging)
    except OSError:
        if fd is not None:
            os.close(fd)
        return False, None
    try:
        os.chmod(staging, 0o700)
        for entry in os.scandir(staging):
            if entry.name.startswith("."):
                remove(entry.path)
        return True, fd
    except OSError:  # a tree that cannot be cleared: an empty staging folder, as without a spare
        if fd is not None:
            os.close(fd)
        shutil.rmtree(staging, ignore_errors=True)
        os.mkdir(staging, 0o700)
        return False, None


def keep(site_dir: Path, old_site: Path) -> bool:
    """Moves the swapped-out site into the cache as the next build's spare tree: False (nothing
    moved) without a cache, on another file system, or when a spare is kept already."""
    spare = spare_of(site_dir)
    if spare is None:
        return False
    try:
        spare.parent.mkdir(mode=0o700, exist_ok=True)
        os.rename(old_site, spare)
        return True
    except OSError:
        return False


def remove(path: str) -> None:
    """A file, a link or a folder tree, gone (a link is removed, never followed)."""
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    else:
        os.unlink(path)


def folder_ready(root: str, folder: str, made: set[str], reused: bool = False) -> None:
    """root/folder made, each part of it a folder (`made`: the folders known ready). In a fresh
    staging folder, a file where a folder goes is an error, as for os.makedirs. In a spare tree
    (`reused`), what stands there is the old site's: a file or a link is removed (never followed),
    and a folder is made as a new one would be, this user's, of the mode a new folder gets (a
    folder left unreadable or open to all in the old site is not published so)."""
    if not folder or folder in made:
        return
    folder_ready(root, folder.rpartition("/")[0], made, reused)
    path = f"{root}/{folder}"
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISDIR(st.st_mode):
        if reused and (stat.S_IMODE(st.st_mode) != DIR_MODE or (hasattr(os, "getuid") and st.st_uid != os.getuid())):
            if hasattr(os, "getuid") and st.st_uid != os.getuid():
                remove(path)
                os.mkdir(path)
            else:
                os.chmod(path, DIR_MODE)
        made.add(folder)
        return
    if st is not None:
        if not reused:
            raise FileExistsError(errno.EEXIST, "a file stands where the site needs a folder", path)
        os.unlink(path)
    try:
        os.mkdir(path)
    except FileExistsError:  # another worker made it meanwhile
        if not stat.S_ISDIR(os.lstat(path).st_mode):
            raise
    made.add(folder)


def clear_for(path: str, inode: tuple[int, ...] | None = None) -> bool:
    """Makes way for a file at `path` in a spare tree: True when the file there already is `inode`
    (inode, device) and stays; else whatever is there is removed."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return False
    if inode is not None and stat.S_ISREG(st.st_mode) and (st.st_ino, st.st_dev) == inode:
        return True
    remove(path)
    return False


def tidy(root: Path, written) -> list[str]:
    """The spare tree made exactly this build's: the files it did not write (a report gone, a page
    no longer made) deleted, and every folder that holds none of its files removed whole (one the
    old site had empty, or unreadable); returns the files, as manifest.site_files lists them.
    `written`: what the build wrote or kept."""
    base = os.fspath(root)
    names: list[str] = []
    _tidy(base, "", written, names)
    return names


def _tidy(folder: str, prefix: str, written, names: list[str]) -> bool:
    """One folder of `tidy`: whether it holds a file of the build's (else the caller removes it)."""
    found = entries(folder, follow_symlinks=False)
    if found is None:
        return False  # unreadable: none of the build's files can be in it (folder_ready made those readable)
    kept = False
    for name in sorted(n for n, is_dir, _ in found if not is_dir):
        if prefix + name in written:
            names.append(prefix + name)
            kept = True
        else:
            os.unlink(f"{folder}/{name}")  # a file or a link, never followed
    for name in sorted(n for n, is_dir, _ in found if is_dir):
        if _tidy(f"{folder}/{name}", f"{prefix}{name}/", written, names):
            kept = True
        else:
            aside.remove_tree(Path(folder, name))  # made writable first where it must be
    return kept
