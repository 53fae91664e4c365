"""The previous site, moved aside by a swap, and staging folders of builds that died: removed off
the build's critical path (`remove_aside`, by a process of its own), or by the next build."""
from __future__ import annotations

import ctypes
import os
import shutil
import sys
import time
from functools import lru_cache
from pathlib import Path

from site_gen.core.diagnostics import Diagnostic

try:
    import fcntl
except ImportError:  # Windows: no locks, so stale staging folders are never removed there
    fcntl = None  # type: ignore[assignment]  # tested for None where it is used

# Staging and old-site folders beside site_dir are named `.sitegen-<site>.new-*` / `.old-*`
# (the .gitignore of `sitegen new` covers the prefix).
PREFIX = ".sitegen-"
STALE_SECONDS = 60


# What a warning of the clean-up begins with (building/site_cache.py: it belongs to that build only).
STAYS_BEHIND = "the previous site's copy stays behind: "


def remove_tree(path: Path) -> Diagnostic | None:
    """Removes a folder; a read-only part is made writable first. A warning when it still cannot be."""
    try:
        shutil.rmtree(path)
        return None
    except FileNotFoundError:
        return None
    except OSError:
        _make_writable(path)
    try:
        shutil.rmtree(path)
    except FileNotFoundError:
        pass
    except OSError as exc:
        return Diagnostic(f"could not remove it ({exc.strerror or exc}: {exc.filename}); delete it by hand", path)
    return None


def _make_writable(root: Path) -> None:
    """Gives the owner every right on each folder under root, before os.walk lists it."""
    def allow(path: str) -> None:
        if not os.path.islink(path):
            try:
                os.chmod(path, os.stat(path).st_mode | 0o700)
            except OSError:
                pass

    allow(str(root))
    for folder, dirs, _ in os.walk(root):
        for name in dirs:
            allow(os.path.join(folder, name))


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


def exchange(a: Path, b: Path) -> bool:
    """Swaps two folders in one step, so a reader sees the old site or the new, never neither."""
    fn = _renameat2()
    if fn is None:
        return False
    AT_FDCWD = -100
    return fn(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0


def lock_folder(path: Path) -> int | None:
    """An exclusive lock on a folder, held while this process (or a forked worker) lives; None if taken."""
    if fcntl is None:
        return None
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return fd
    except OSError:  # held by another process, or a file system without locks
        os.close(fd)
        return None


def remove_stale(site_dir: Path) -> list[Diagnostic]:
    """Staging folders of builds that died (kill -9, a power cut): their lock went with them.

    A running build holds its staging folder's lock, so its folder is never taken. An old site
    moved aside is removed only once a site is in place again.
    """
    if fcntl is None:
        return []
    warnings: list[Diagnostic] = []
    try:
        entries = list(os.scandir(site_dir.parent))
    except OSError:
        return []
    ours = f"{PREFIX}{site_dir.name}."
    for entry in entries:
        rest = entry.name[len(ours):] if entry.name.startswith(ours) else ""
        if rest[:4] not in ("new-", "old-") or "." in rest or entry.is_symlink():
            continue
        if rest.startswith("old-") and not site_dir.is_dir():
            continue
        try:
            # Young folders are left alone: a build starting now has made its folder but not yet locked it.
            if time.time() - entry.stat(follow_symlinks=False).st_mtime < STALE_SECONDS:
                continue
            fd = lock_folder(Path(entry.path))
        except OSError:
            continue
        if fd is not None:
            try:
                warning = remove_tree(Path(entry.path))
            finally:
                os.close(fd)
            warnings += [warning] if warning else []
    return warnings


# Previous sites a swap moved aside, when their removal is put off (see `defer_removal`).
moved_aside: list[Path] | None = None


def defer_removal() -> None:
    """From now on a swap leaves the previous site aside (`.sitegen-<site>.old-*`) instead of removing
    it at once: `remove_aside()` does it after the build, off its critical path."""
    global moved_aside
    if moved_aside is None:
        moved_aside = []


def stays_behind(warning: Diagnostic | None) -> Diagnostic | None:
    """A previous site's copy that could not be removed, said as such."""
    return Diagnostic(STAYS_BEHIND + warning.message, warning.file, warning.where) if warning else None


def remove_aside(*, detach: bool) -> list[Diagnostic]:
    """Removes the previous sites moved aside; warnings for what could not be removed.

    With `detach` (the CLI, about to exit) a child process removes them while the command returns;
    it holds each folder's lock, so no other build takes it meanwhile. A removal cut short (the
    machine stops) leaves a hidden `.old-` folder that the next build removes (`remove_stale`).
    """
    global moved_aside
    folders, moved_aside = moved_aside or [], None
    if not folders:
        return []
    if detach and hasattr(os, "fork") and fcntl is not None:
        locks = [fd for fd in (lock_folder(f) for f in folders) if fd is not None]
        if _detach():
            try:
                for folder in folders:
                    remove_tree(folder)
            finally:
                os._exit(0)
        for fd in locks:
            os.close(fd)  # the child's copies hold the locks now
        return []
    return [w for w in (stays_behind(remove_tree(f)) for f in folders) if w]


def _detach() -> bool:
    """Forks a process of its own (no zombie left, no terminal, no pipe of the caller held open):
    True in it, False in the caller."""
    pid = os.fork()
    if pid:
        os.waitpid(pid, 0)
        return False
    try:
        os.setsid()
        if os.fork():
            os._exit(0)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        return True
    except BaseException:
        os._exit(1)
