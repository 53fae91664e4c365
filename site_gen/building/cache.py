"""The persistent cache: what a build can reuse from an earlier process (a report's rendered files,
the list of the site's files, the MkDocs plugin's records).

It holds data only: JSON and file bytes. Nothing read from it is ever executed, unpickled or
unmarshalled; compiled templates and schema validators are made in memory by each process. An
entry is trusted only when it is this user's own:

- each entry carries an HMAC-SHA256 of its kind, name and bytes under a secret of this user's
  (32 random bytes, kept 0600 in the user's own cache root): an entry written by anyone else (another
  user, a cache restored from a shared store, a folder shipped inside a repository) fails the check
  and reads as missing, then is made again;
- the cache folder and the secret's folder must belong to this user and be writable by nobody else
  (as git's `safe.directory`): otherwise the cache is off for the run, with one warning;
- the default folder is `$XDG_CACHE_HOME/sitegen`, else `~/.cache/sitegen`, only where those are
  absolute paths (with `HOME` unset and no account entry, `~` would be a folder named `~` inside the
  project): otherwise there is no cache.

Every entry is named by a hash of everything it was made from (sitegen's version among them), so a
stale entry is never found. Writing the cache never fails a build.

Beside the entries, `site-spare/` holds the site a build swapped out, for the next build to write
into (spare.py): files that are never read, only kept where they are the site's own (the same inode).
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import signal
import stat
import sys
import tempfile
from pathlib import Path

import site_gen
from site_gen.core.diagnostics import Diagnostic

_MAGIC = b"sitegen-cache 2\n"
_SECRET = "secret"
# None: the default folder; False: no cache; a Path: that folder.
_where: Path | bool | None = None
# This process's verdict on the folder in use, by what it was made from (the folder asked for, the
# user's root): (folder, (root, secret)), or (None, None) when the cache is off.
_checked: tuple[tuple, tuple[Path | None, tuple[Path, bytes] | None]] | None = None
notes: list[Diagnostic] = []  # warnings about the cache itself (not yours, unreadable), each said once


def configure(directory: str | Path | None = None, *, enabled: bool = True) -> None:
    """Where this process keeps its cache (`--cache-dir`), or no cache at all (`--no-cache`)."""
    global _where, _checked
    _where = False if not enabled else (Path(os.path.abspath(Path(directory).expanduser())) if directory else None)
    _checked = None
    notes.clear()


def user_root() -> Path | None:
    """The user's own cache root (`$XDG_CACHE_HOME/sitegen`, else `~/.cache/sitegen`), or None when
    neither names an absolute folder: a relative one would put the cache inside the project."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if os.path.isabs(xdg):
        return Path(xdg) / "sitegen"
    home = os.environ.get("HOME", "")
    if not os.path.isabs(home):
        try:
            import pwd

            home = pwd.getpwuid(os.getuid()).pw_dir
        except (ImportError, KeyError, OSError):
            home = ""
    return Path(home) / ".cache" / "sitegen" if os.path.isabs(home) else None


def chosen() -> Path | None:
    """The folder asked for (`--cache-dir`, or the default), before any check; None when off."""
    if _where is False or (_where is None and os.environ.get("SITEGEN_NO_CACHE")):
        return None
    return _where if isinstance(_where, Path) else user_root()


def folder() -> Path | None:
    """The cache folder in use, or None when the cache is off or is not this user's alone."""
    return _verdict()[0]


def _note(message: str, file: Path | None = None) -> None:
    note = Diagnostic(message, file)
    if note not in notes:
        notes.append(note)


def _private(path: Path, *, make: bool) -> str | None:
    """Why `path` is not a folder of this user's alone (None: it is). Made 0700 when missing."""
    try:
        if make and not os.path.lexists(path):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.mkdir(mode=0o700, exist_ok=True)
        st = os.stat(path)
    except OSError as exc:
        return f"cannot be used ({exc.strerror or exc})"
    if not stat.S_ISDIR(st.st_mode):
        return "is not a folder"
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        return f"belongs to another user (uid {st.st_uid})"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"may be written by others (mode {stat.S_IMODE(st.st_mode):04o})"
    return None


def _read_secret(root: Path) -> bytes | None:
    """The user's secret in `root`, made on first use (0600, written whole)."""
    path = root / _SECRET
    for _ in range(2):
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            with open(fd, "rb") as f:
                st = os.fstat(f.fileno())
                data = f.read(65)
            if (hasattr(os, "getuid") and st.st_uid != os.getuid()) or st.st_mode & 0o077 or len(data) != 32:
                _note("the build cache's key is not this user's alone (or damaged): the build cache is off; "
                      "delete the file to make a new one", path)
                return None
            return data
        except FileNotFoundError:
            try:
                fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=root)
                with os.fdopen(fd, "wb") as f:
                    f.write(os.urandom(32))
                try:
                    os.link(tmp, path)  # never replaces a secret another process made meanwhile
                except FileExistsError:
                    pass
                finally:
                    os.unlink(tmp)
            except OSError:
                return None
        except OSError:
            return None
    return None


def _probe() -> tuple:
    """What the verdict is made from (the option, the environment): a change is seen at the next
    entry. Compared as it is, not as paths (a build reads thousands of entries)."""
    env = os.environ
    return _where, env.get("XDG_CACHE_HOME"), env.get("HOME"), env.get("SITEGEN_NO_CACHE")


def _verdict() -> tuple[Path | None, tuple[Path, bytes] | None]:
    global _checked
    probe = _probe()
    if _checked is None or _checked[0] != probe:
        where, root = chosen(), user_root()
        verdict: tuple[Path | None, tuple[Path, bytes] | None] = (None, None)
        if where is not None and root is None:
            _note("the build cache is off: no absolute home or XDG_CACHE_HOME folder to keep its key in")
        elif where is not None and root is not None:
            why_root = _private(root, make=True)
            why = why_root if where == root else _private(where, make=True)
            if why_root is not None:
                _note(f"the build cache is off: it {why_root}", root)
            elif why is not None:
                _note(f"the build cache is off: it {why}", where)
            elif (secret := _read_secret(root)) is not None:
                verdict = (where, (root, secret))
        _checked = (probe, verdict)
    return _checked[1]


def refuse_inside(paths) -> None:
    """Turns the cache off, with a warning, when its folder lies inside one of `paths` (the site, an
    input): a cache there would be published, or shipped with the project."""
    global _checked
    where = folder()
    if where is None:
        return
    for p in paths:
        p = Path(os.path.abspath(p))
        if where == p or p in where.parents:
            _note(f"the build cache is off: its folder lies inside {p}", where)
            _checked = (_probe(), (None, None))
            return


def key(*parts: object) -> str:
    """A hash of what an entry is made from, with what makes any entry stale (sitegen, Python)."""
    h = hashlib.sha256()
    for part in (site_gen.__version__, sys.version, *parts):
        data = part if isinstance(part, bytes) else repr(part).encode("utf-8", "surrogatepass")
        h.update(len(data).to_bytes(8, "big"))
        h.update(data)
    return h.hexdigest()


def _path(kind: str, name: str) -> str | None:
    root = folder()
    if root is None or not name.isalnum() or not kind.replace("-", "").isalnum():
        return None
    # Joined as text: a build of a thousand reports reads two entries a report.
    return f"{root}/{kind}/{name[:2]}/{name}"


def _mac(kind: str, name: str, payload: bytes) -> bytes:
    secret = _verdict()[1][1]  # type: ignore[index]
    m = hmac.new(secret, digestmod=hashlib.sha256)
    m.update(f"{kind}\0{name}\0".encode("ascii"))
    m.update(payload)
    return m.hexdigest().encode("ascii")


def read(kind: str, name: str) -> bytes | None:
    """The entry's bytes, or None when it is missing, unreadable, or not this user's (its HMAC)."""
    path = _path(kind, name)
    if path is None:
        return None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with open(fd, "rb") as f:
            blob = f.read()
    except OSError:
        return None
    head = len(_MAGIC) + 64
    if not blob.startswith(_MAGIC) or blob[head:head + 1] != b"\n":
        return None
    payload = blob[head + 1:]
    if not hmac.compare_digest(_mac(kind, name, payload), blob[len(_MAGIC):head]):
        return None
    return payload


# Signals held while an entry is written (`hold_while_writing`): none in the builder process.
_held: frozenset = frozenset()


def hold_while_writing(signals: frozenset) -> None:
    """In a process that such a signal kills at once (a forked worker, which the builder stops with
    SIGTERM), the signal waits while an entry is written: it would leave the half-written `.tmp-`
    file behind, in a folder no build sweeps. It is taken as soon as the entry is in place."""
    global _held
    _held = signals if hasattr(signal, "pthread_sigmask") else frozenset()


def write(kind: str, name: str, payload: bytes) -> None:
    """Stores an entry whole (a reader sees the old entry or the new one), or not at all."""
    where = _path(kind, name)
    if where is None:
        return
    path = Path(where)
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, _held) if _held else None
    try:
        for sub in (path.parent.parent, path.parent):
            sub.mkdir(mode=0o700, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(_MAGIC + _mac(kind, name, payload) + b"\n" + payload)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        pass  # a read-only or full cache folder: the build goes on without it
    finally:
        if mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)


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
            if not isinstance(name, str) or not isinstance(length, int) or length < 0:
                return None
            files[name] = blob[at:at + length]
            at += length
        if at != len(blob) or not isinstance(head, dict):
            return None
    except (ValueError, KeyError, TypeError, RecursionError):
        return None
    return head, files


def check_directory(folder: Path, config, shown: str) -> None:
    """Refuses a cache folder in a folder the build reads or writes: in the site or docs_dir a build
    would publish it, in data_dir or custom_dir read it as input."""
    from site_gen.core.errors import SitegenError
    from site_gen.core.paths import resolve_path

    where = resolve_path(folder)
    places = [("the site folder", config.site_dir, "where a build would publish it"),
              ("docs_dir", config.docs_dir, "whose files a build publishes"),
              ("data_dir", config.data_dir, "an input of the site"),
              *([("custom_dir", config.custom_dir, "an input of the site")] if config.custom_dir else [])]
    for name, path, why in places:
        path = resolve_path(path)
        if where == path or path in where.parents:
            raise SitegenError(f"--cache-dir lies in {name} ({path}), {why}; keep the cache outside the project's "
                               "inputs and site (the default is ~/.cache/sitegen)", shown)
