"""Atomic output: a build lands whole or not at all, and deletes nothing that is not the site's."""
from __future__ import annotations

import ctypes
import errno
import hashlib
import json
import os
import shutil
import stat
import sys
import tempfile
import time
from functools import lru_cache
from pathlib import Path, PurePosixPath

from site_gen.core.errors import SitegenError
from site_gen.core.paths import resolve_path

try:
    import fcntl
except ImportError:  # Windows: no locks, so stale staging folders are never removed there
    fcntl = None

# The list of files the last build wrote, kept in the site: a later build deletes only those.
MANIFEST = ".sitegen-manifest"
# Staging and old-site folders beside site_dir are named `.sitegen-<site>.new-*` / `.old-*`
# (the .gitignore of `sitegen new` covers the prefix).
PREFIX = ".sitegen-"
STALE_SECONDS = 60
VCS = (".git", ".hg", ".svn")
# A swap that fails with these cannot work for this folder (a mount point, a parent that is not
# writable, a sticky folder): the site is then replaced in place, file by file.
_CANNOT_SWAP = (errno.EXDEV, errno.EBUSY, errno.EACCES, errno.EPERM)


def check_site_dir(site_dir: Path, inputs: list[Path]) -> None:
    """Refuse a site folder that is, holds or lies inside a source of the site, or lies in a VCS folder."""
    site = resolve_path(site_dir)
    vcs = next((part for part in site.parts if part in VCS), None)
    if vcs:
        raise SitegenError(f"site_dir lies in a version-control folder ({vcs}); choose another output folder", site_dir)
    for path in inputs:
        path = resolve_path(path)
        if site == path or site in path.parents:
            raise SitegenError(f"site_dir would contain or replace {path}; choose another output folder", site_dir)
        if path in site.parents:
            raise SitegenError(f"site_dir lies inside {path}, a source of the site; choose another output folder", site_dir)


def write_tree(files: dict[str, bytes], root: Path, previous: Path | None = None) -> None:
    """Writes `files` under root; one whose bytes the `previous` site holds already is linked from it."""
    for rel in sorted(files):
        parts = PurePosixPath(rel).parts
        if not parts or PurePosixPath(rel).is_absolute() or ".." in parts or "\\" in rel:
            raise ValueError(f"refusing to write outside the site folder: {rel!r}")
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if previous is None or not _link_same(previous / rel, target, files[rel]):
            target.write_bytes(files[rel])


def _new_file_mode() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


_FILE_MODE = _new_file_mode()


def _link_same(old: Path, target: Path, data: bytes) -> bool:
    """Links the previous site's copy of a file when it is a plain file with the same bytes and mode:
    an unchanged file is not written again and keeps its time (rsync and deploy tools see it unchanged)."""
    try:
        st = os.lstat(old)
        if not stat.S_ISREG(st.st_mode) or st.st_size != len(data) or stat.S_IMODE(st.st_mode) != _FILE_MODE:
            return False
        fd = os.open(old, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with open(fd, "rb") as f:
            if f.read(len(data) + 1) != data:
                return False
        os.link(old, target, follow_symlinks=False)
        return True
    except OSError:  # gone, unreadable, another file system, no hard links: write it
        return False


def _files(root: Path, *, hidden: bool):
    """Files (and links) under root, as relative names in a stable order; `hidden=False` leaves out
    the top-level dot entries (.git, .well-known, .htaccess), which are never the build's to delete."""
    for folder, dirs, names in os.walk(root):
        rel = Path(folder).relative_to(root)
        if not hidden and rel == Path("."):
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            names = [n for n in names if not n.startswith(".")]
        links = [d for d in dirs if os.path.islink(os.path.join(folder, d))]
        dirs[:] = sorted(d for d in dirs if d not in links)
        yield from ((rel / n).as_posix() for n in sorted(names + links))


def manifest_name_ok(name: str) -> bool:
    """A name the manifest may hold: a plain relative path inside the site, as `_files` lists one
    (no `..`, `.`, empty or absolute part, no backslash or NUL, no top-level dot entry)."""
    parts = name.split("/")
    return (bool(name) and "\\" not in name and "\0" not in name and not parts[0].startswith(".")
            and all(part not in ("", ".", "..") for part in parts))


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


def _manifest(site_dir: Path) -> set[str] | None:
    """The last build's list, or None when there is none to trust (missing, unreadable, a link, a bad name)."""
    try:
        return _read_manifest(site_dir)
    except _BadManifest:
        return None


def check_manifest(site_dir: Path) -> None:
    """Refuses a site folder whose manifest was tampered with, before anything is deleted or written."""
    try:
        _read_manifest(site_dir)
    except _BadManifest as exc:
        raise SitegenError(f"{exc}; the list is not to be trusted: delete it and build with --clean, "
                           "which removes every file in the site folder that this build does not write", site_dir) from None


def _manifest_bytes(names) -> bytes:
    doc = {"about": "files the last sitegen build wrote here; the next build refuses others unless --clean",
           "files": sorted(names)}
    return (json.dumps(doc, indent=0) + "\n").encode("utf-8")


def _write_manifest(root: Path, names) -> None:
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        _replace_at(fd, MANIFEST, _manifest_bytes(names), _FILE_MODE)
    finally:
        os.close(fd)


def _replace_at(folder_fd: int, name: str, data: bytes, mode: int) -> None:
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


def _open_folder(site_fd: int, parts, *, make: bool = False) -> int | None:
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


def strays(site_dir: Path):
    """Files in site_dir the last build did not write (all of them when no build wrote there)."""
    if site_dir.is_dir():
        written = _manifest(site_dir) or set()
        yield from (n for n in _files(site_dir, hidden=False) if n not in written)


def _remove_tree(path: Path) -> str | None:
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
        return f"could not remove {path} ({exc.strerror or exc}: {exc.filename}); delete it by hand"
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


def _exchange(a: Path, b: Path) -> bool:
    """Swaps two folders in one step, so a reader sees the old site or the new, never neither."""
    fn = _renameat2()
    if fn is None:
        return False
    AT_FDCWD = -100
    return fn(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0


def _lock(path: Path) -> int | None:
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


def _remove_stale(site_dir: Path) -> list[str]:
    """Staging folders of builds that died (kill -9, a power cut): their lock went with them.

    A running build holds its staging folder's lock, so its folder is never taken. An old site
    moved aside is removed only once a site is in place again.
    """
    if fcntl is None:
        return []
    warnings = []
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
            fd = _lock(Path(entry.path))
        except OSError:
            continue
        if fd is not None:
            try:
                warning = _remove_tree(Path(entry.path))
            finally:
                os.close(fd)
            warnings += [warning] if warning else []
    return warnings


# Previous sites a swap moved aside, when their removal is put off (see `defer_removal`).
_aside: list[Path] | None = None


def defer_removal() -> None:
    """From now on a swap leaves the previous site aside (`.sitegen-<site>.old-*`) instead of removing
    it at once: `remove_aside()` does it after the build, off its critical path."""
    global _aside
    if _aside is None:
        _aside = []


def remove_aside(*, detach: bool) -> list[str]:
    """Removes the previous sites moved aside; warnings for what could not be removed.

    With `detach` (the CLI, about to exit) a child process removes them while the command returns;
    it holds each folder's lock, so no other build takes it meanwhile. A removal cut short (the
    machine stops) leaves a hidden `.old-` folder that the next build removes (`_remove_stale`).
    """
    global _aside
    folders, _aside = _aside or [], None
    if not folders:
        return []
    if detach and hasattr(os, "fork") and fcntl is not None:
        locks = [fd for fd in (_lock(f) for f in folders) if fd is not None]
        if _detach():
            try:
                for folder in folders:
                    _remove_tree(folder)
            finally:
                os._exit(0)
        for fd in locks:
            os.close(fd)  # the child's copies hold the locks now
        return []
    warnings = [w for w in (_remove_tree(f) for f in folders) if w]
    return [f"the previous site's copy stays behind: {w}" for w in warnings]


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


class Staging:
    """A fresh folder beside site_dir that a build writes into as it goes, then swaps in whole.

    A failure before `commit()` (bad input found late, a full disk, Ctrl-C) removes the folder and
    leaves the previous site byte for byte as it was; files of removed reports do not survive a
    commit, since the new tree replaces the old one whole. The old site's top-level dot entries
    (.git, .well-known, .htaccess) are kept, as MkDocs keeps them. On Linux the swap is one atomic
    exchange; elsewhere two renames, the old site put back if the second fails. Where no swap can
    work (site_dir is a mount point, or its parent is not writable) the build is still made whole
    first, then replaces the files the last build wrote, one by one. Forked workers may write into
    it too (it pickles as its paths).

    A site folder holding files that no build wrote (by hand, another tool's) is refused unless
    `clean`, so nothing but the site's own files is ever deleted.
    """

    def __init__(self, site_dir: Path, *, clean: bool = False):
        self.site_dir = Path(site_dir).resolve()
        self.clean, self.committed, self.warnings = clean, False, []
        if os.path.lexists(self.site_dir) and not self.site_dir.is_dir():
            raise SitegenError("site_dir exists and is not a folder; refusing to replace it", self.site_dir)
        if not clean:
            check_manifest(self.site_dir)
        found = None if clean else next(strays(self.site_dir), None)  # one is enough: a home folder is large
        if found is not None:
            raise SitegenError(f"the site folder holds files the last build did not write, such as {found}; "
                               "move them away, or pass --clean to delete them", self.site_dir)
        self.warnings += _remove_stale(self.site_dir)
        parent = self.site_dir.parent
        self.beside = True
        try:
            parent.mkdir(parents=True, exist_ok=True)
            self.path = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{self.site_dir.name}.new-", dir=parent))
        except OSError as exc:
            if not self.site_dir.is_dir():
                raise SitegenError(f"cannot write the site: {exc.strerror or exc}", exc.filename or parent) from exc
            self.beside = False  # a parent we cannot write in: build elsewhere, then replace in place
            self.path = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{self.site_dir.name}.new-"))
        self._fd = _lock(self.path)
        # Each file's sha256 as written (a forked worker's files: added by the builder from what the
        # worker sends back), and after a swap the site folder's listing: the build cache's record
        # of the site (site_cache.py) without reading back every file just written.
        self.hashes: dict[str, str] = {}
        self.listing: dict[str, str] | None = None

    def write(self, files: dict[str, bytes]) -> None:
        try:
            write_tree(files, self.path, self.site_dir if self.beside and self.site_dir.is_dir() else None)
        except OSError as exc:  # disk full, permissions: the machine's problem, not a bug
            raise SitegenError(f"cannot write the site: {exc.strerror or exc}; the previous site is unchanged",
                               exc.filename or self.site_dir) from exc
        self.hashes.update((name, hashlib.sha256(data).hexdigest()) for name, data in files.items())

    def _listing(self, names: list[str]) -> dict[str, str] | None:
        """The staged files by hash, as site_cache lists a site folder (its top-level dot entries aside,
        the manifest in), or None when one of them was not written through `write`."""
        listed = [n for n in names if not n.split("/", 1)[0].startswith(".")]
        if any(n not in self.hashes for n in listed):
            return None
        out = {n: self.hashes[n] for n in listed}
        with open(self.path / MANIFEST, "rb") as f:
            out[MANIFEST] = hashlib.sha256(f.read()).hexdigest()
        return out

    def commit(self) -> None:
        """Puts the built site in place; anything that could not be cleaned up after is in `warnings`."""
        try:
            names = list(_files(self.path, hidden=True))
            os.chmod(self.path, 0o755)
            _write_manifest(self.path, names)
        except OSError as exc:
            raise SitegenError(f"cannot write the site: {exc.strerror or exc}; the previous site is unchanged",
                               exc.filename or self.site_dir) from exc
        if self.beside:
            try:
                listing = self._listing(names)
                self._carry_dot_entries(set(names))
                self._swap()
                self.committed, self.listing = True, listing
                return
            except OSError as exc:
                if exc.errno not in _CANNOT_SWAP:
                    raise SitegenError(f"cannot write the site: {exc.strerror or exc}; the previous site is unchanged",
                                       exc.filename or self.site_dir) from exc
        try:
            self._replace_in_place(names)
        except OSError as exc:
            raise SitegenError(f"cannot write the site in place ({self.site_dir} cannot be swapped whole): "
                               f"{exc.strerror or exc}; it may hold part of the new site, build again",
                               exc.filename or self.site_dir) from exc
        self.committed = True
        self._discard_staging()

    def _carry_dot_entries(self, names: set[str]) -> None:
        """The old site's .git, .well-known, .htaccess ... into the new one, as hard links (no copy)."""
        if not self.site_dir.is_dir():
            return
        for entry in os.scandir(self.site_dir):
            if not entry.name.startswith(".") or entry.name == MANIFEST or entry.name in names:
                continue
            target = self.path / entry.name
            if entry.is_dir(follow_symlinks=False):
                shutil.copytree(entry.path, target, symlinks=True, copy_function=_link_or_copy)
            else:
                _link_or_copy(entry.path, target)

    def _swap(self) -> None:
        site_dir, staging, parent = self.site_dir, self.path, self.site_dir.parent
        if site_dir.is_dir() and not site_dir.is_symlink() and _exchange(staging, site_dir):
            # The staging path now holds the previous site.
            if _aside is None:
                self._discard_staging()
            else:
                old = staging.with_name(staging.name.replace(".new-", ".old-", 1))
                os.rename(staging, old)
                self._release()
                _aside.append(old)
        elif site_dir.is_dir():
            old = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{site_dir.name}.old-", dir=parent))
            old.rmdir()
            os.rename(site_dir, old)
            try:
                os.rename(staging, site_dir)
            except BaseException:
                os.rename(old, site_dir)
                raise
            self._release()
            if _aside is None:
                self._note(_remove_tree(old))
            else:
                _aside.append(old)
        else:
            os.rename(staging, site_dir)
            self._release()

    def _replace_in_place(self, names: list[str]) -> None:
        """Replaces the site's files one by one: those the last build wrote (and, with `clean`,
        the strays) go, the new ones come, each through a rename in its own folder.

        Every path is reached from the site folder one part at a time without following a link,
        so neither a name of the list nor a folder of the site replaced by a link leads outside it.
        """
        site = self.site_dir
        site.mkdir(exist_ok=True)
        new = set(names)
        old = _manifest(site) or set()
        gone = (old | set(strays(site) if self.clean else ())) - new
        site_fd = os.open(site, os.O_RDONLY | os.O_DIRECTORY)
        try:
            # Listed first, so a build that dies half-way leaves nothing the next build takes for a stray.
            _replace_at(site_fd, MANIFEST, _manifest_bytes(old | new), _FILE_MODE)
            for name in sorted(gone):
                *folders, last = name.split("/")
                fd = _open_folder(site_fd, folders)
                if fd is None:
                    continue  # under a link or a file: nothing of the site's is there
                try:
                    if not stat.S_ISDIR(os.lstat(last, dir_fd=fd).st_mode):
                        os.unlink(last, dir_fd=fd)
                except FileNotFoundError:
                    pass
                finally:
                    os.close(fd)
            # Folders left empty, deepest first: never the site folder itself, nor anything above it.
            emptied = {tuple(n.split("/")[:i]) for n in gone for i in range(1, n.count("/") + 1)}
            for parts in sorted(emptied, key=len, reverse=True):
                fd = _open_folder(site_fd, parts[:-1])
                if fd is None:
                    continue
                try:
                    os.rmdir(parts[-1], dir_fd=fd)
                except OSError:
                    pass  # not empty, gone, or not a folder: kept
                finally:
                    os.close(fd)
            for name in names:
                *folders, last = name.split("/")
                fd = _open_folder(site_fd, folders, make=True)
                if fd is None:
                    raise OSError(errno.ENOTDIR, "a link or a file stands where the site needs a folder",
                                  str(site.joinpath(*folders)))
                try:
                    source = self.path / name
                    _replace_at(fd, last, source.read_bytes(), stat.S_IMODE(os.lstat(source).st_mode))
                finally:
                    os.close(fd)
            _replace_at(site_fd, MANIFEST, _manifest_bytes(new), _FILE_MODE)
        finally:
            os.close(site_fd)

    def _note(self, warning: str | None) -> None:
        if warning:
            self.warnings.append(f"the previous site's copy stays behind: {warning}")

    def _release(self) -> None:
        if getattr(self, "_fd", None) is not None:
            os.close(self._fd)
            self._fd = None

    def _discard_staging(self) -> None:
        self._release()
        self._note(_remove_tree(self.path))

    def discard(self) -> None:
        if not self.committed:
            self._release()
            shutil.rmtree(self.path, ignore_errors=True)

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_fd": None}  # the lock stays with the process that took it

    def __enter__(self) -> "Staging":
        return self

    def __exit__(self, kind, exc, tb) -> None:
        self.discard()  # after a commit, nothing to do


def _link_or_copy(src, dst) -> None:
    try:
        os.link(src, dst, follow_symlinks=False)
    except OSError:  # a file system without hard links, or a file we may not link
        shutil.copy2(src, dst, follow_symlinks=False)


def write_site(files: dict[str, bytes], site_dir: Path, *, clean: bool = False) -> list[str]:
    """Writes every file into a fresh folder beside site_dir, then swaps it in (see `Staging`);
    returns the warnings of the clean-up."""
    with Staging(site_dir, clean=clean) as staging:
        staging.write(files)
        staging.commit()
    return staging.warnings
