"""Live preview: `sitegen serve` builds the site in memory, serves it, and follows every edit.

The pieces, each usable alone (the tests drive them one by one):

- `site_path(url)`: the only way from a request to a file; the answer is a key of the in-memory
  site, or None. Nothing is ever read from disk on a request, so a path outside the site cannot
  be served whatever its spelling.
- `Debouncer`: coalesces the burst of file events one save makes (temp file, rename, swap file,
  formatter) into one rebuild, and runs rebuilds one at a time on its own thread.
- `Preview`: the last good build, the current error, a version number bumped on every change,
  the watchdog observer and the HTTP server. Pages get a small script (static/preview.js) that
  listens on server-sent events and patches the changed parts of the page in place.
"""
from __future__ import annotations

import gc
import ipaddress
import json
import mimetypes
import os
import posixpath
import secrets
import socket
import sys
import threading
import time
import traceback
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable, Iterable
from urllib.parse import unquote, urlsplit

from site_gen.build import Builder
from site_gen.config import Config, load_config
from site_gen.errors import SitegenError
from site_gen.render.pages import theme_dir

EVENTS = "/__sitegen__/events"
WORKER = "/__sitegen__/worker.js"  # holds the one event stream a browser's preview tabs share
QUIET = 0.05        # seconds without a new event before a rebuild starts
SETTLE = 0.01       # ...when every changed file was closed, moved or deleted: its writer is done
MAX_WAIT = 1.0      # a rebuild starts after this long even if events keep coming
PING = 15.0         # keep-alive comment on idle event streams

# -- requests to files ---------------------------------------------------------------------------


def request_path(target: str) -> str:
    """The path of a request target, still encoded: no query, no fragment. `//x` stays a path."""
    if target.lower().startswith(("http://", "https://")):  # absolute form
        return urlsplit(target).path or "/"
    return target.split("?", 1)[0].split("#", 1)[0]


def site_path(url: str) -> str | None:
    """The site file a request path names, or None (404).

    The query and fragment are dropped, percent-encoding is decoded exactly once, and a path with
    a `..` or `.` segment, an empty segment, a backslash, a NUL or bytes that are not UTF-8 is
    refused rather than normalised: nothing can climb out of the site. `/` and `/dir/` name
    `index.html` in that folder.
    """
    path = request_path(url)
    if not path.startswith("/"):
        return None
    try:
        path = unquote(path, errors="strict")
    except UnicodeDecodeError:
        return None
    if "\\" in path or "\x00" in path or any(ord(ch) < 32 for ch in path):
        return None
    parts = path[1:].split("/")
    *dirs, name = parts
    if any(p in ("", ".", "..") for p in dirs) or name in (".", ".."):
        return None
    key = "/".join(parts)
    if key == "" or key.endswith("/"):
        key += "index.html"
    return key


def content_type(key: str) -> str:
    ext = posixpath.splitext(key)[1].lower()
    known = {".html": "text/html; charset=utf-8", ".css": "text/css; charset=utf-8",
             ".js": "text/javascript; charset=utf-8", ".json": "application/json",
             ".csv": "text/csv; charset=utf-8", ".svg": "image/svg+xml", ".md": "text/markdown; charset=utf-8"}
    return known.get(ext) or mimetypes.guess_type(key)[0] or "application/octet-stream"


def preview_script(name: str = "preview.js") -> str:
    return (theme_dir("static") / name).read_text(encoding="utf-8")


def inject(html: bytes, script: str, version: int, instance: str) -> bytes:
    """The preview's script, before the last `</body>` (or at the end): served pages only."""
    body = script.replace("</", "<\\/")
    tag = (f'<script data-sitegen-preview data-version="{version}" data-instance="{instance}">{body}</script>\n'
           ).encode("utf-8")
    at = html.lower().rfind(b"</body>")
    return html + tag if at < 0 else html[:at] + tag + html[at:]


def parse_addr(text: str) -> tuple[str, int]:
    """`IP:PORT`, `localhost:PORT` or `[IPv6]:PORT`, as `mkdocs serve -a` takes it."""
    host, sep, port = text.rpartition(":")
    if not sep or not host:
        raise SitegenError(f"expected ADDR:PORT, e.g. 127.0.0.1:8000, got {text!r}", where="--dev-addr")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    try:
        number = int(port)
    except ValueError:
        number = -1
    if not 0 <= number <= 65535:
        raise SitegenError(f"expected a port number from 0 to 65535, got {port!r}", where="--dev-addr")
    return host, number


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        return False


def split_host(value: str) -> tuple[str, int | None] | None:
    """`name`, `name:port`, `[v6]` or `[v6]:port` (a Host header, an origin's netloc); None if malformed."""
    if value.startswith("["):
        name, sep, rest = value[1:].partition("]")
        if not sep or (rest and not rest.startswith(":")):
            return None
        port = rest[1:]
    else:
        name, _, port = value.partition(":")
    if not name or (port and not (port.isascii() and port.isdigit())) or (not port and value.endswith(":")):
        return None
    return name.lower(), int(port) if port else None


class AllowedHosts:
    """The host names a request may carry, so that a page of another site cannot read the preview.

    A page on an attacker's name that resolves to 127.0.0.1 (DNS rebinding) reaches this server
    as its own origin; its requests still carry the attacker's name in `Host` and `Origin`, so
    only loopback names and addresses (and the address `-a` names, when it names another one)
    with the serving port are answered. Served on a wildcard address (`-a 0.0.0.0:PORT`), any IP
    address and this machine's name are accepted too: an IP address cannot be rebound.
    """

    def __init__(self, bound: str, port: int):
        self.port = port
        self.wildcard = bound in ("", "0.0.0.0", "::")
        self.names = {"localhost", bound.lower()} | ({socket.gethostname().lower()} if self.wildcard else set())

    def host(self, value: str | None) -> bool:
        parsed = split_host(value or "")
        if parsed is None:
            return False
        name, port = parsed
        if (80 if port is None else port) != self.port:
            return False
        return name in self.names or is_loopback(name) or (self.wildcard and _is_ip(name))

    def origin(self, value: str | None) -> bool:
        """An `Origin` header: absent (a same-origin request), or this server's http origin."""
        if value is None:
            return True
        scheme, sep, netloc = value.partition("://")
        return bool(sep) and scheme.lower() == "http" and "/" not in netloc and self.host(netloc)


# -- file events -----------------------------------------------------------------------------------

_TEMP_SUFFIXES = ("~", ".swp", ".swo", ".swx", ".swn", ".tmp", ".temp", ".part", ".crdownload", "___jb_tmp___", "___jb_old___")
_SKIP_DIRS = {".git", ".hg", ".svn", "__pycache__", ".pytest_cache", ".hypothesis", ".mypy_cache", "node_modules"}


def ignored(path: str | Path) -> bool:
    """Editor and tool droppings: swap and backup files, temp files of atomic saves, dotfiles."""
    p = Path(path)
    name = p.name
    if name == "4913" or name.startswith((".", "#")) or name.endswith(_TEMP_SUFFIXES):
        return True
    return any(part in _SKIP_DIRS for part in p.parts)


class Debouncer:
    """Collects paths and calls `callback(paths)` once they have been quiet for `quiet` seconds.

    One worker thread runs the callbacks, so rebuilds never overlap; events that arrive during a
    rebuild make the next one. A steady stream of events still gets a rebuild every `max_wait`.

    Where the platform reports that a writer closed a file (inotify does), a file that was written
    to but not yet closed holds the rebuild back (up to `max_wait`): a slow writer that pauses
    between truncating and writing a receipt does not produce a build of half a file. And when
    every changed file's last event says its writer is done (closed, moved into place, deleted),
    only `settle` is waited for, to take in the rest of a burst of saves, not the whole `quiet`.
    """

    def __init__(self, callback: Callable[[list[str]], None], quiet: float = QUIET, max_wait: float = MAX_WAIT,
                 settle: float = SETTLE, closes: bool = False):
        self.callback = callback
        self.quiet = quiet
        self.max_wait = max_wait
        self.settle = min(settle, quiet)
        self._cond = threading.Condition()
        self._pending: dict[str, None] = {}
        self._writing: set[str] = set()
        self._done: set[str] = set()  # pending paths whose last event was a close, a move or a deletion
        # The platform reports closes (inotify does): known from the observer before the first
        # save, else learnt from the first close event, too late for the first slow save.
        self.closes = closes
        self._first = self._last = 0.0
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="sitegen-rebuild", daemon=True)

    def start(self) -> "Debouncer":
        self._thread.start()
        return self

    def add(self, paths: Iterable[str], kind: str = "") -> None:
        """`kind` is the event's: "modified" (being written), "closed" (written and closed), or other."""
        with self._cond:
            now = time.monotonic()
            if not self._pending:
                self._first = now
            for p in paths:
                p = str(p)
                self._pending[p] = None
                if kind == "modified":
                    self._writing.add(p)
                else:
                    self._writing.discard(p)
                    self.closes |= kind == "closed"
                if kind in ("closed", "moved", "deleted"):
                    self._done.add(p)
                else:
                    self._done.discard(p)
            self._last = now
            self._cond.notify_all()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._stopping and not self._pending:
                    self._cond.wait()
                while not self._stopping:
                    now = time.monotonic()
                    settled = self.closes and len(self._done) == len(self._pending)
                    due = self._last + (self.settle if settled else self.quiet)
                    if self.closes and self._writing:
                        due = max(due, self._first + self.max_wait)
                    due = min(due, self._first + self.max_wait)
                    if now >= due:
                        break
                    self._cond.wait(due - now)
                if self._stopping:
                    return
                batch = list(self._pending)
                self._pending.clear()
                self._writing.clear()
                self._done.clear()
            try:
                self.callback(batch)
            except Exception:  # a bug in a rebuild must not end the preview
                traceback.print_exc()

    def stop(self) -> None:
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._thread.is_alive():
            self._thread.join()


def reports_closes(observer) -> bool:
    """Whether a watchdog observer reports that a writer closed a file: inotify's does."""
    return type(observer).__module__.endswith(".inotify")


class _Events:
    """watchdog handler: forwards the paths of writes, creations, deletions and moves that matter."""

    KINDS = {"created", "modified", "deleted", "moved", "closed"}

    def __init__(self, preview: "Preview"):
        self.preview = preview

    def dispatch(self, event) -> None:
        if event.event_type not in self.KINDS or (event.is_directory and event.event_type in ("modified", "closed")):
            return
        paths = [event.src_path] + ([event.dest_path] if getattr(event, "dest_path", "") else [])
        paths = [os.fsdecode(p) for p in paths]
        relevant = [p for p in paths if not ignored(p) and self.preview.watches(p)]
        if event.event_type == "moved" and not event.is_directory and len(relevant) == 2:
            self.preview.moved_from(relevant[0])  # an editor's temporary file, saved over the real one
        if relevant:
            kind = event.event_type if not event.is_directory else ""
            self.preview.debouncer.add(relevant, kind)


# -- the preview -----------------------------------------------------------------------------------


class Preview:
    """Builds, watches and serves; `start()` returns once the first build is done and the port is open."""

    def __init__(self, config_file: str | Path = "mkdocs.yml", *, dev_addr: str | None = None, strict: bool = False,
                 quiet: float = QUIET, out: Callable[[str], None] | None = None, err: Callable[[str], None] | None = None,
                 log_requests: bool = False, show_traceback: bool = False):
        self.config_file = Path(config_file).resolve()
        self.dev_addr = dev_addr
        self.strict = strict
        self.out = out or (lambda m: print(m, flush=True))
        self.err = err or (lambda m: print(f"Error: {m}", file=sys.stderr, flush=True))
        self.log_requests = log_requests
        self.show_traceback = show_traceback
        self.config: Config | None = None
        self.builder: Builder | None = None
        self.files: dict[str, bytes] = {}
        self.error: str | None = None
        self.version = 0
        self.changed: list[str] = []
        self.warnings: set[str] = set()
        self.instance = secrets.token_hex(4)
        self.cond = threading.Condition()
        self.stopping = False
        self.builds = 0
        self.debouncer = Debouncer(self.rebuild, quiet=quiet)
        self.observer = None
        self.httpd: _Server | None = None
        self._serve_thread: threading.Thread | None = None
        self._roots: list[tuple[Path, bool]] = []
        self._folders: set[str] = set()
        self._moved_from: set[str] = set()
        self._moved_lock = threading.Lock()
        self._script, self._worker = preview_script(), preview_script("preview-worker.js")

    # -- building ----------------------------------------------------------------------------
    def _display(self, path: str | Path) -> str:
        # abspath, not resolve: a path in a symlink loop is still shown (resolving it raises).
        path = Path(os.path.abspath(path))
        try:
            return path.relative_to(self.config_file.parent).as_posix()
        except ValueError:
            return str(path)

    def rebuild(self, paths: list[str] | None = None) -> None:
        """One build (the first, or after `paths` changed): swaps in the new files or records the error.

        Whatever goes wrong ends here, not in the rebuild thread: bad input (a SitegenError) and a
        bug in sitegen alike show their one-line message over the last good pages.
        """
        start = time.perf_counter()
        try:
            self._rebuild(paths, start)
        except SitegenError as exc:
            self._failed(str(exc))
        except Exception as exc:  # a bug in sitegen: say so, keep serving the last good pages
            if self.show_traceback:
                traceback.print_exc()
            first_line = (str(exc).splitlines() or [""])[0]
            self._failed(f"internal error: {type(exc).__name__}: {first_line}"
                         + ("" if self.show_traceback else " (run with --traceback for details)"))

    def _failed(self, error: str) -> None:
        """The last good pages stay; the error is shown (and printed) once, not again on every save."""
        self.builds += 1
        with self.cond:
            again = error == self.error
            self.error = error
            if not again:
                self.changed = []
                self.version += 1
                self.cond.notify_all()
        if not again:
            self.err(error)

    def _rebuild(self, paths: list[str] | None, start: float) -> None:
        # realpath, not resolve: a changed path may be a symlink loop, which resolve() raises on.
        real = [Path(os.path.realpath(p)) for p in paths or []]
        config_changed = paths is None or self.config_file in real
        replaced = paths is not None and self._replaced_roots(paths)
        scripts = {theme_dir("static").resolve() / name for name in ("preview.js", "preview-worker.js")}
        if scripts.intersection(real):
            self._script, self._worker = preview_script(), preview_script("preview-worker.js")
        if config_changed or replaced or self.builder is None:
            self.builder = None  # a config that fails to load is retried on the next event
            gc.unfreeze()  # the previous builder's site may now be collected
            try:
                self.config = load_config(self.config_file)
            finally:
                self._rewatch(force=replaced)
            self.builder = Builder(self.config, strict=self.strict, watched=True)
        else:
            self.builder.changed(paths or [])
        result = self.builder.build()
        seconds = time.perf_counter() - start
        self.builds += 1
        if paths is None or config_changed or replaced:
            # A whole site just built is long-lived: leave it out of the collector's full passes,
            # which on a site of a thousand reports (millions of objects) would pause a later edit
            # for a second or more. Only this build's objects are frozen (the previous builder's
            # were unfrozen before it): freezing after every edit would keep each edit's cyclic
            # garbage forever.
            gc.freeze()
        old = self.files
        changed = sorted(k for k, v in result.files.items() if old.get(k) != v)
        removed = sorted(set(old) - set(result.files))
        with self.cond:
            had_error = self.error is not None
            self.files = result.files
            self.error = None
            if changed or removed or had_error or paths is None:
                self.version += 1
                self.changed = (changed + removed) if paths is not None else []
                self.cond.notify_all()
        new_warnings = [w for w in result.warnings if w not in self.warnings]
        self.warnings = set(result.warnings)
        for w in new_warnings:
            self.out(f"WARNING  {w}")
        if paths is None:
            self.out(f"Built {result.pages} pages from {result.reports} report{'s' if result.reports != 1 else ''} "
                     f"in {seconds:.2f} s")
        else:
            self.out(f"Rebuilt {describe(changed, removed, result.files)}{self._why(paths)} in {seconds:.2f} s")

    def _why(self, paths: list[str]) -> str:
        """` (data/r/SUMMARY.json changed)`: the files saved, not the temporary files they were saved through."""
        with self._moved_lock:
            temps = {p for p in paths if p in self._moved_from}
            self._moved_from -= temps
        shown = [self._display(p) for p in paths if p not in temps] or [self._display(p) for p in paths]
        return " (" + ", ".join(shown[:3]) + (f" and {len(shown) - 3} more" if len(shown) > 3 else "") + " changed)"

    # -- watching ----------------------------------------------------------------------------
    def watch_roots(self) -> list[tuple[Path, bool]]:
        """(folder, recursive) pairs: receipts, pages, overrides, the theme in a source checkout, the config."""
        roots: list[tuple[Path, bool]] = [(self.config_file.parent, False)]
        c = self.config
        if c is not None:
            for folder in (c.data_dir, c.docs_dir, c.custom_dir):
                if folder is not None and folder.is_dir():
                    roots.append((folder.resolve(), True))
            for name in ("templates", "static"):
                folder = theme_dir(name).resolve()
                if not {"site-packages", "dist-packages"} & set(folder.parts):
                    roots.append((folder, True))
        return roots

    def _input_folders(self) -> set[str]:
        """The folders the config names, as given and resolved, whether they exist now or not."""
        c = self.config
        folders = [f for f in ((c.data_dir, c.docs_dir, c.custom_dir) if c else ()) if f is not None]
        return {os.path.abspath(f) for f in folders} | {os.path.realpath(f) for f in folders}

    def moved_from(self, path: str) -> None:
        with self._moved_lock:
            self._moved_from.add(path)

    def watches(self, path: str) -> bool:
        p = Path(path)
        if p == self.config_file or os.path.abspath(p) in self._folders:
            return True
        return any(recursive and root in p.parents for root, recursive in self._roots)

    def _replaced_roots(self, paths: list[str]) -> bool:
        """An input folder itself was created, moved or deleted (`mv data.new data`): its watch is stale."""
        return any(os.path.abspath(p) in self._folders for p in paths)

    def _rewatch(self, force: bool = False) -> None:
        """Schedules a watch on every root; `force` re-arms them all, as after a root was replaced
        (inotify watches a folder, not its name: the old watch follows the folder moved away)."""
        self._folders = self._input_folders()
        roots = self.watch_roots()
        if roots == self._roots and not force:
            return
        self._roots = roots
        if self.observer is None:
            return
        self.observer.unschedule_all()
        handler = _Events(self)
        for root, recursive in roots:
            self.observer.schedule(handler, str(root), recursive=recursive)

    # -- serving -----------------------------------------------------------------------------
    def start(self) -> "Preview":
        from watchdog.observers import Observer

        # Watching starts before the first build reads a file (the first build schedules the
        # folders once it has read the config): a save during that build is not missed.
        self.observer = Observer()
        self.observer.daemon = True
        self.debouncer.closes = reports_closes(self.observer)
        self.observer.start()
        try:
            self.rebuild(None)
            if self.dev_addr is None:
                self.dev_addr = self.config.dev_addr if self.config else "127.0.0.1:8000"
            host, port = parse_addr(self.dev_addr)
            try:
                self.httpd = _Server(host, port, self)
            except OSError as exc:
                raise SitegenError(f"cannot listen on {self.dev_addr}: {exc.strerror or exc}", where="--dev-addr") from None
        except BaseException:
            self.observer.stop()
            self.observer.join()
            raise
        self.debouncer.start()
        self._serve_thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.1},
                                              name="sitegen-http", daemon=True)
        self._serve_thread.start()
        return self

    @property
    def url(self) -> str:
        assert self.httpd is not None
        host, port = self.httpd.server_address[:2]
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{port}/"

    def stop(self) -> None:
        """Stops the watcher, the rebuild thread and the server, and joins every thread they started."""
        if self.observer is not None:
            self.observer.stop()
            if self.observer.is_alive():
                self.observer.join()
        self.debouncer.stop()
        with self.cond:
            self.stopping = True
            self.cond.notify_all()
        if self.httpd is not None:
            self.httpd.shutdown()
            if self._serve_thread is not None:
                self._serve_thread.join()
            self.httpd.close_connections()
            self.httpd.server_close()  # joins the request threads

    def __enter__(self) -> "Preview":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def state(self) -> dict:
        return {"version": self.version, "instance": self.instance, "error": self.error, "changed": self.changed}

    def wait_version(self, after: int, timeout: float) -> bool:
        """Waits until the version passes `after` (tests and benchmarks use it)."""
        with self.cond:
            return self.cond.wait_for(lambda: self.version > after, timeout)


def describe(changed: list[str], removed: list[str], files: dict[str, bytes]) -> str:
    """`reports/x` when several of a report's pages changed, page paths otherwise."""
    pages = [k for k in changed if k.endswith(".html")]
    gone = [k for k in removed if k.endswith(".html")]
    if not pages and not gone:
        if changed or removed:
            return ", ".join((changed + removed)[:3]) + (f" and {len(changed) + len(removed) - 3} more" if len(changed) + len(removed) > 3 else "")
        return "nothing (no page changed)"
    every = [k for k in files if k.endswith(".html")]
    if len(pages) > 1 and len(pages) == len(every):
        out = [f"all {len(pages)} pages"]
    else:
        groups: dict[str, list[str]] = {}
        for k in pages:
            parts = k.split("/")
            group = "/".join(parts[:2]) if len(parts) > 2 and parts[0] == "reports" else k
            groups.setdefault(group, []).append(k)
        out = [g if len(ks) > 1 else ks[0] for g, ks in groups.items()]
        if len(out) > 4:
            out = out[:3] + [f"{len(out) - 3} more"]
    if gone:
        out.append("removed " + (gone[0] if len(gone) == 1 else f"{len(gone)} pages"))
    return ", ".join(out)


class _Handler(BaseHTTPRequestHandler):
    server_version = "sitegen"
    protocol_version = "HTTP/1.0"
    timeout = 30  # an idle connection does not hold a thread for ever
    server: "_Server"

    def setup(self) -> None:
        super().setup()
        self.server.track(self.connection, True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.track(self.connection, False)

    def log_message(self, format: str, *args) -> None:
        if self.server.preview.log_requests:
            super().log_message(format, *args)

    def do_HEAD(self) -> None:
        self.do_GET(body=False)

    def do_GET(self, body: bool = True) -> None:
        preview = self.server.preview
        allowed = self.server.allowed
        if not allowed.host(self.headers.get("Host")):
            return self._refuse("this server answers to localhost, 127.0.0.1 or [::1] (or the name -a gives) only")
        path = request_path(self.path)
        if path == EVENTS:
            if not allowed.origin(self.headers.get("Origin")):
                return self._refuse("a page of another site may not follow this preview")
            return self._events()
        if path == WORKER:
            return self._send(HTTPStatus.OK, preview._worker.encode("utf-8"), "text/javascript; charset=utf-8",
                              "no-store", body)
        key = site_path(self.path)
        with preview.cond:  # one build's files and its version: a rebuild swaps both under this lock
            files, version, instance = preview.files, preview.version, preview.instance
        if key is not None and key in files:
            data = files[key]
            ctype = content_type(key)
            if ctype.startswith("text/html"):
                data = inject(data, preview._script, version, instance)
            cache = "max-age=3600" if key.startswith("assets/") else "no-store"
            return self._send(HTTPStatus.OK, data, ctype, cache, body)
        if key is not None and not key.endswith("index.html") and key + "/index.html" in files:
            self.send_response(HTTPStatus.MOVED_PERMANENTLY)
            self.send_header("Location", request_path(self.path) + "/")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if not files:
            page = _placeholder("Build failed", "No page could be built yet; the message below says why.")
            return self._send(HTTPStatus.SERVICE_UNAVAILABLE, inject(page, preview._script, version, instance),
                              "text/html; charset=utf-8", "no-store", body)
        page = _placeholder("404 · Not found", "No page at this address in the site.")
        return self._send(HTTPStatus.NOT_FOUND, inject(page, preview._script, version, instance),
                          "text/html; charset=utf-8", "no-store", body)

    def _send(self, status: HTTPStatus, data: bytes, ctype: str, cache: str, body: bool) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", cache)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        if body:
            try:
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass

    def _refuse(self, why: str) -> None:
        data = f"403 Forbidden: {why}\n".encode("utf-8")
        self._send(HTTPStatus.FORBIDDEN, data, "text/plain; charset=utf-8", "no-store", self.command != "HEAD")

    def _events(self) -> None:
        """Server-sent events: the state now, then one `build` event per new version."""
        preview = self.server.preview
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        seen = None
        try:
            self.wfile.write(b"retry: 500\n\n")
            while True:
                with preview.cond:
                    if seen is not None:
                        preview.cond.wait_for(lambda: preview.version != seen or preview.stopping, PING)
                    if preview.stopping:
                        return
                    state = preview.state()
                if state["version"] != seen:
                    seen = state["version"]
                    self.wfile.write(f"event: build\ndata: {json.dumps(state)}\n\n".encode("utf-8"))
                else:
                    self.wfile.write(b": ping\n\n")
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, OSError):
            return


def _placeholder(title: str, text: str) -> bytes:
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title></head>'
            f'<body data-sitegen-placeholder><main><h1>{title}</h1><p>{text}</p></main></body></html>').encode("utf-8")


class _Server(ThreadingHTTPServer):
    daemon_threads = False  # server_close() joins every request thread: none is left behind
    block_on_close = True

    def __init__(self, host: str, port: int, preview: Preview):
        self.preview = preview
        self._conns: set[socket.socket] = set()
        self._conns_lock = threading.Lock()
        self.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        super().__init__((host, port), _Handler)
        self.allowed = AllowedHosts(host, self.server_address[1])

    def server_bind(self) -> None:
        # Like http.server.HTTPServer.server_bind without its reverse DNS lookup (slow on some hosts).
        import socketserver
        socketserver.TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name, self.server_port = host, port

    def track(self, conn: socket.socket, alive: bool) -> None:
        with self._conns_lock:
            (self._conns.add if alive else self._conns.discard)(conn)

    def close_connections(self) -> None:
        with self._conns_lock:
            conns = list(self._conns)
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
