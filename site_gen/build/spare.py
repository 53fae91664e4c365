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

import os
import shutil
import stat
from pathlib import Path

from site_gen.build import aside, cache

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
    # staging folder (aside._remove_stale) once it is beside the site.
    fd = aside._lock(spare)
    if fd is None and aside.fcntl is not None:
        return False, None  # another build holds it
    try:
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


def folder_ready(root: str, folder: str, made: set[str]) -> None:
    """root/folder made, each part of it a folder of its own: in a spare tree, a file or a link
    where a folder goes is removed first (never followed). `made`: the folders known ready."""
    if not folder or folder in made:
        return
    folder_ready(root, folder.rpartition("/")[0], made)
    path = f"{root}/{folder}"
    try:
        if stat.S_ISDIR(os.lstat(path).st_mode):
            made.add(folder)
            return
        os.unlink(path)
    except FileNotFoundError:
        pass
    try:
        os.mkdir(path)
    except FileExistsError:  # another worker made it meanwhile
        if not stat.S_ISDIR(os.lstat(path).st_mode):
            raise
    made.add(folder)


def clear_for(path: str, inode: tuple[int, int] | None = None) -> bool:
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


def drop_leftovers(root: Path, names: list[str], written) -> list[str]:
    """Deletes the files of a spare tree this build did not write (a report gone, a page no longer
    made), then the folders they leave empty; returns the names that stay. `names`: the tree's
    files as manifest._files lists them; `written`: what the build wrote or kept."""
    base = os.fspath(root)
    gone = [n for n in names if n not in written]
    for name in gone:
        os.unlink(f"{base}/{name}")  # a file or a link, as listed (a link to a folder is a name)
    emptied = {n.rsplit("/", i)[0] for n in gone for i in range(1, n.count("/") + 1)}
    for folder in sorted(emptied, key=lambda f: f.count("/"), reverse=True):
        try:
            os.rmdir(f"{base}/{folder}")
        except OSError:
            pass  # not empty: something of this build is in it
    dropped = set(gone)
    return [n for n in names if n not in dropped]
