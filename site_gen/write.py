"""Atomic output: a build lands whole or not at all."""
from __future__ import annotations

import ctypes
import os
import shutil
import sys
import tempfile
from functools import lru_cache
from pathlib import Path, PurePosixPath

from site_gen.errors import SitegenError


def check_site_dir(site_dir: Path, protected: list[Path]) -> None:
    """Refuse a site folder that would replace the project's sources on the next build."""
    site = site_dir.resolve()
    for path in protected:
        path = path.resolve()
        if site == path or site in path.parents:
            raise SitegenError(f"site_dir would contain or replace {path}; choose another output folder", site_dir)


def write_tree(files: dict[str, bytes], root: Path) -> None:
    for rel in sorted(files):
        parts = PurePosixPath(rel).parts
        if not parts or PurePosixPath(rel).is_absolute() or ".." in parts or "\\" in rel:
            raise ValueError(f"refusing to write outside the site folder: {rel!r}")
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(files[rel])


_RENAME_EXCHANGE = 2


@lru_cache(maxsize=1)
def _renameat2():
    """Linux's renameat2(2), or None where it is missing (other systems, old libc)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    fn.restype = ctypes.c_int
    return fn


def _exchange(a: Path, b: Path) -> bool:
    """Swaps two folders in one step, so a reader sees the old site or the new, never neither."""
    fn = _renameat2()
    if fn is None:
        return False
    AT_FDCWD = -100
    return fn(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0


class Staging:
    """A fresh folder beside site_dir that a build writes into as it goes, then swaps in whole.

    A failure before `commit()` (bad input found late, a full disk, Ctrl-C) removes the folder and
    leaves the previous site byte for byte as it was; files of removed reports do not survive a
    commit, since the new tree replaces the old one whole. On Linux the swap is one atomic exchange;
    elsewhere two renames, the old site put back if the second fails. Forked workers may write into
    it too (it pickles as its path).
    """

    def __init__(self, site_dir: Path):
        self.site_dir = Path(site_dir).resolve()
        if os.path.lexists(self.site_dir) and not self.site_dir.is_dir():
            raise SitegenError("site_dir exists and is not a folder; refusing to replace it", self.site_dir)
        parent = self.site_dir.parent
        try:
            parent.mkdir(parents=True, exist_ok=True)
            self.path = Path(tempfile.mkdtemp(prefix=f".{self.site_dir.name}.new-", dir=parent))
        except OSError as exc:
            raise SitegenError(f"cannot write the site: {exc.strerror or exc}", exc.filename or parent) from exc
        self.committed = False

    def write(self, files: dict[str, bytes]) -> None:
        try:
            write_tree(files, self.path)
        except OSError as exc:  # disk full, permissions: the machine's problem, not a bug
            raise SitegenError(f"cannot write the site: {exc.strerror or exc}; the previous site is unchanged",
                               exc.filename or self.site_dir) from exc

    def commit(self) -> None:
        site_dir, staging, parent = self.site_dir, self.path, self.site_dir.parent
        try:
            os.chmod(staging, 0o755)
            if site_dir.is_dir() and not site_dir.is_symlink() and _exchange(staging, site_dir):
                shutil.rmtree(staging, ignore_errors=True)  # now holds the previous site
            elif site_dir.is_dir():
                old = Path(tempfile.mkdtemp(prefix=f".{site_dir.name}.old-", dir=parent))
                old.rmdir()
                os.rename(site_dir, old)
                try:
                    os.rename(staging, site_dir)
                except BaseException:
                    os.rename(old, site_dir)
                    raise
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.rename(staging, site_dir)
            self.committed = True
        except OSError as exc:
            raise SitegenError(f"cannot write the site: {exc.strerror or exc}; the previous site is unchanged",
                               exc.filename or site_dir) from exc

    def discard(self) -> None:
        if not self.committed:
            shutil.rmtree(self.path, ignore_errors=True)

    def __enter__(self) -> "Staging":
        return self

    def __exit__(self, kind, exc, tb) -> None:
        self.discard()  # after a commit, nothing to do


def write_site(files: dict[str, bytes], site_dir: Path) -> None:
    """Writes every file into a fresh folder beside site_dir, then swaps it in (see `Staging`)."""
    with Staging(site_dir) as staging:
        staging.write(files)
        staging.commit()
