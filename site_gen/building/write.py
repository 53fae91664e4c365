"""Atomic output: a build lands whole or not at all, and deletes nothing that is not the site's."""
from __future__ import annotations

import errno
import hashlib
import os
import shutil
import stat
import tempfile
from pathlib import Path, PurePosixPath

from site_gen.building import aside, spare
from site_gen.building.listing import previous_files, remember_files, same_bytes, signature
from site_gen.building.aside import (PREFIX, STALE_SECONDS, exchange, lock_folder, remove_stale, remove_tree,  # noqa: F401
                                  defer_removal, remove_aside)
from site_gen.building.manifest import (FILE_MODE, MANIFEST, site_files, manifest_names, manifest_bytes, open_folder,  # noqa: F401
                                     replace_at, write_manifest, check_manifest, manifest_name_ok, strays)
from site_gen.core.diagnostics import Diagnostic
from site_gen.core.errors import SitegenError
from site_gen.core.paths import resolve_path

VCS = (".git", ".hg", ".svn")
# A swap that fails with these cannot work for this folder (a mount point, a parent that is not
# writable, a sticky folder): the site is then replaced in place, file by file.
_CANNOT_SWAP = (errno.EXDEV, errno.EBUSY, errno.EACCES, errno.EPERM)


def site_inputs(config) -> list[Path]:
    """What a site is made from, which its site_dir may neither be, hold, nor lie inside: the config
    (and its folder's mkdocs.yml), the data, docs and custom_dir folders."""
    return [config.config_file.parent / "mkdocs.yml", config.data_dir, config.docs_dir, config.config_file,
            *([config.custom_dir] if config.custom_dir else [])]


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


def write_tree(files: dict[str, bytes], root: Path, previous: Path | None = None,
               stats: dict[str, tuple[int, ...]] | None = None, folders: set[str] | None = None,
               reused: bool = False) -> None:
    """Writes `files` under root; one whose bytes the `previous` site holds already is linked from it.
    `stats` gets each file's signature (`signature`) as it now stands; `folders`, the folders made
    (known ready); `reused`: root is a spare tree (spare.py), whatever stands at a name is replaced."""
    folders = set() if folders is None else folders
    base = os.fspath(root)
    for rel in sorted(files):
        _check_name(rel)
        target = root / rel
        spare.folder_ready(base, rel.rpartition("/")[0], folders, reused)
        if reused:
            spare.clear_for(f"{base}/{rel}")
        linked = _link_same(previous / rel, target, files[rel]) if previous is not None else None
        if linked is None:
            linked = _write_new(target, files[rel])
        if stats is not None:
            stats[rel] = signature(linked)


def _write_new(target: Path, data: bytes) -> os.stat_result:
    """A new file at `target`. A name written twice in one build (a report written again for its
    links) is unlinked first: its first copy may be a hard link to the previous site's file, which
    is never written through."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(target, flags, 0o666)
    except FileExistsError:
        os.unlink(target)
        fd = os.open(target, flags, 0o666)
    with open(fd, "wb", buffering=0) as f:  # unbuffered: the status below is of every byte written
        view = memoryview(data)
        while view:
            view = view[f.write(view):]
        return os.fstat(fd)


def _check_name(rel: str) -> None:
    parts = PurePosixPath(rel).parts
    if not parts or PurePosixPath(rel).is_absolute() or ".." in parts or "\\" in rel:
        raise ValueError(f"refusing to write outside the site folder: {rel!r}")


def _link_same(old: Path, target: Path, data: bytes) -> os.stat_result | None:
    """Links the previous site's copy of a file when it is a plain file with the same bytes and mode:
    an unchanged file is not written again and keeps its time (rsync and deploy tools see it
    unchanged). Its status when linked, else None."""
    try:
        st = os.lstat(old)
        if not stat.S_ISREG(st.st_mode) or st.st_size != len(data) or stat.S_IMODE(st.st_mode) != FILE_MODE:
            return None
        fd = os.open(old, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with open(fd, "rb") as f:
            if f.read(len(data) + 1) != data:
                return None
        os.link(old, target, follow_symlinks=False)
        return os.lstat(target)  # as it now stands: the link changed its change time
    except OSError:  # gone, unreadable, another file system, no hard links: write it
        return None


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

    def __init__(self, site_dir: Path, *, clean: bool = False, remember: bool = False):
        self.site_dir = Path(site_dir).resolve()
        self.clean, self.committed = clean, False
        self.warnings: list[Diagnostic] = []
        if os.path.lexists(self.site_dir) and not self.site_dir.is_dir():
            raise SitegenError("site_dir exists and is not a folder; refusing to replace it", self.site_dir)
        written = None if clean else check_manifest(self.site_dir)
        found = None if clean else next(strays(self.site_dir, written), None)  # one is enough: a home folder is large
        if found is not None:
            raise SitegenError(f"the site folder holds files the last build did not write, such as {found}; "
                               "move them away, or pass --clean to delete them", self.site_dir)
        self.warnings += remove_stale(self.site_dir)
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
        # With `remember` (a build whose store is on), each file's signature as staged, and the
        # previous site's files as the last such build left them (`previous_files`): an unchanged
        # report's files are then linked from the previous site by name, without reading them; and
        # the staging folder starts as the site the last build swapped out (spare.py), when kept.
        self.remember = remember
        self.stats: dict[str, tuple[int, ...]] = {}
        self.previous = previous_files(self.site_dir) if remember and self.beside and self.site_dir.is_dir() else {}
        self.reused, self._fd = spare.claim(self.site_dir, self.path) if self.previous else (False, None)
        self._folders: set[str] = set()
        if not self.reused:
            self._fd = lock_folder(self.path)
        # Each file's sha256 as written (a forked worker's files: added by the builder from what the
        # worker sends back), and after a swap the site folder's listing: the build cache's record
        # of the site (site_cache.py) without reading back every file just written.
        self.hashes: dict[str, str] = {}
        self.listing: dict[str, str] | None = None

    def write(self, files: dict[str, bytes]) -> None:
        try:
            write_tree(files, self.path, self.site_dir if self.beside and self.site_dir.is_dir() else None, self.stats,
                       self._folders, self.reused)
        except OSError as exc:  # disk full, permissions: the machine's problem, not a bug
            raise SitegenError(f"cannot write the site: {exc.strerror or exc}; the previous site is unchanged",
                               exc.filename or self.site_dir) from exc
        self.hashes.update((name, hashlib.sha256(data).hexdigest()) for name, data in files.items())

    def link_previous(self, hashes: dict[str, str]) -> bool:
        """Links every one of these files (name -> sha256) from the previous site, where the last
        build left each with these bytes and it is still the file that build wrote (its signature:
        size, modification time, inode, device); False, and nothing linked, when one is not."""
        site, staged = f"{self.site_dir}/", f"{self.path}/"  # joined as text: tens of thousands of names
        for name, sha in hashes.items():
            kept = self.previous.get(name)
            if kept is None or kept[0] != sha:
                return False
            try:
                st = os.lstat(site + name)
            except OSError:
                return False
            if not stat.S_ISREG(st.st_mode) or stat.S_IMODE(st.st_mode) != FILE_MODE:
                return False
            sig = signature(st)
            # Only its change time moved (a hard link to it made or removed): trusted by its bytes.
            if sig != kept[1] and (sig[:4] != kept[1][:4] or not same_bytes(site + name, sha)):
                return False
        made, base = [], os.fspath(self.path)
        try:
            for name in hashes:
                spare.folder_ready(base, name.rpartition("/")[0], self._folders, self.reused)
                # In a spare tree, a file that is already the site's own (the same inode) stays.
                if self.reused and spare.clear_for(staged + name, self.previous[name][1][2:4]):
                    continue
                os.link(site + name, staged + name, follow_symlinks=False)
                made.append(staged + name)
        except OSError:
            for target in made:
                os.unlink(target)
            return False
        self.hashes.update(hashes)
        try:  # as they now stand: a link made changes the file's change time
            self.stats.update((name, signature(os.lstat(staged + name))) for name in hashes)
        except OSError:
            pass  # not remembered: the next build reads it
        return True

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
            # In a spare tree, what this build did not write goes, and every folder that holds none of it.
            names = spare.tidy(self.path, self.hashes) if self.reused else list(site_files(self.path, hidden=True))
            os.chmod(self.path, 0o755)
            write_manifest(self.path, names)
        except OSError as exc:
            raise SitegenError(f"cannot write the site: {exc.strerror or exc}; the previous site is unchanged",
                               exc.filename or self.site_dir) from exc
        if self.beside:
            try:
                listing = self._listing(names)
                self._carry_dot_entries(set(names))
                self._swap()
                self.committed, self.listing = True, listing
                if self.remember and listing is not None:
                    remember_files(self.site_dir, listing, self.stats)
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
        if site_dir.is_dir() and not site_dir.is_symlink() and exchange(staging, site_dir):
            # The staging path now holds the previous site: the next build's staging tree, if kept.
            if self.remember and spare.keep(site_dir, staging):
                self._release()
            elif aside.moved_aside is None:
                self._discard_staging()
            else:
                old = staging.with_name(staging.name.replace(".new-", ".old-", 1))
                os.rename(staging, old)
                self._release()
                aside.moved_aside.append(old)
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
            if aside.moved_aside is None:
                self._note(remove_tree(old))
            else:
                aside.moved_aside.append(old)
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
        old = manifest_names(site) or set()
        gone = (old | set(strays(site) if self.clean else ())) - new
        site_fd = os.open(site, os.O_RDONLY | os.O_DIRECTORY)
        try:
            # Listed first, so a build that dies half-way leaves nothing the next build takes for a stray.
            replace_at(site_fd, MANIFEST, manifest_bytes(old | new), FILE_MODE)
            for name in sorted(gone):
                *folders, last = name.split("/")
                fd = open_folder(site_fd, folders)
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
                fd = open_folder(site_fd, parts[:-1])
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
                fd = open_folder(site_fd, folders, make=True)
                if fd is None:
                    raise OSError(errno.ENOTDIR, "a link or a file stands where the site needs a folder",
                                  str(site.joinpath(*folders)))
                try:
                    source = self.path / name
                    replace_at(fd, last, source.read_bytes(), stat.S_IMODE(os.lstat(source).st_mode))
                finally:
                    os.close(fd)
            replace_at(site_fd, MANIFEST, manifest_bytes(new), FILE_MODE)
        finally:
            os.close(site_fd)

    def _note(self, warning: Diagnostic | None) -> None:
        said = aside.stays_behind(warning)
        if said is not None:
            self.warnings.append(said)

    def _release(self) -> None:
        fd = getattr(self, "_fd", None)
        if fd is not None:
            os.close(fd)
            self._fd = None

    def _discard_staging(self) -> None:
        self._release()
        self._note(remove_tree(self.path))

    def discard(self) -> None:
        if not self.committed:
            self._release()
            remove_tree(self.path)  # a read-only folder of a spare tree made writable first

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_fd": None}  # the lock stays with the process that took it

    def __enter__(self) -> Staging:
        return self

    def __exit__(self, kind, exc, tb) -> None:
        self.discard()  # after a commit, nothing to do


def _link_or_copy(src, dst) -> None:
    try:
        os.link(src, dst, follow_symlinks=False)
    except OSError:  # a file system without hard links, or a file we may not link
        shutil.copy2(src, dst, follow_symlinks=False)


def write_site(files: dict[str, bytes], site_dir: Path, *, clean: bool = False) -> list[Diagnostic]:
    """Writes every file into a fresh folder beside site_dir, then swaps it in (see `Staging`);
    returns the warnings of the clean-up."""
    with Staging(site_dir, clean=clean) as staging:
        staging.write(files)
        staging.commit()
    return staging.warnings
