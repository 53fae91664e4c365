"""Live preview: `sitegen serve` builds the site in memory, serves it, and follows every edit.

`Preview` is the wiring, as MkDocs' `commands/serve.py` is over its LiveReloadServer: a watchdog
observer feeds a `Debouncer` (site_gen/preview/watch.py), whose rebuilds run the `Builder`; the preview
keeps the last good build, the current error and a version number bumped on every change, and is
the `Source` the HTTP server (site_gen/preview/server.py) serves. Pages get a small script
(static/preview.js) that listens on server-sent events and patches the changed parts in place.
"""
from __future__ import annotations

import gc
import os
import sys
import threading
import time
import traceback
from pathlib import Path
from collections.abc import Callable

from typing import TYPE_CHECKING, cast

from site_gen import api
from site_gen.api import Config, Diagnostic, SitegenError, load_config, theme_dir
from site_gen.preview.server import Client, Server, Snapshot, parse_addr
from site_gen.preview.watch import QUIET, Debouncer, Forward, reports_closes, watched_events

if TYPE_CHECKING:
    from watchdog.events import FileSystemEventHandler
    from watchdog.observers.api import BaseObserver

    from site_gen.api import Builder

_SCRIPTS = ("preview.js", "preview-worker.js")
OPEN_PAGES = 8  # the pages last served that a rebuild shows first: a few tabs
EARLY_WAIT = 0.1  # seconds a rebuild waits for browsers to fetch the open pages it showed first


def preview_client() -> Client:
    """The theme's preview scripts, read now (a source checkout's edits to them are followed)."""
    page, worker = ((theme_dir("static") / name).read_text(encoding="utf-8") for name in _SCRIPTS)
    return Client(page, worker)


# -- the preview -----------------------------------------------------------------------------------


class Preview:
    """Builds, watches and serves; `start()` returns once the first build is done and the port is open."""

    def __init__(self, config_file: str | Path = "mkdocs.yml", *, dev_addr: str | None = None, strict: bool = False,
                 quiet: float = QUIET, out: Callable[[str], None] | None = None, err: Callable[[str], None] | None = None,
                 warn: Callable[[Diagnostic], None] | None = None, log_requests: bool = False, show_traceback: bool = False):
        self.config_file = Path(config_file).resolve()
        self.dev_addr = dev_addr
        self.strict = strict
        self.out = out or (lambda m: print(m, flush=True))
        self.err = err or (lambda m: print(f"Error: {m}", file=sys.stderr, flush=True))
        # Each new warning of a rebuild, as the build found it (its file, place and message).
        self.warn = warn or (lambda d: self.out(f"WARNING  {d}"))
        self.log_requests = log_requests
        self.show_traceback = show_traceback
        self.config: Config | None = None
        self.builder: Builder | None = None  # api.live_builder's, once the config loads
        self.files: dict[str, bytes] = {}
        self.error: str | None = None
        self.version = 0
        self.changed: list[str] = []
        self.warnings: set[Diagnostic] = set()
        self.cond = threading.Condition()
        self.stopping = False
        self.builds = 0
        self.debouncer = Debouncer(self.rebuild, quiet=quiet)
        self.observer: BaseObserver | None = None
        self.httpd: Server | None = None
        self._roots: list[tuple[Path, bool]] = []
        self._folders: set[str] = set()
        self._moved_from: set[str] = set()
        self._moved_lock = threading.Lock()
        self.client = preview_client()
        # The pages browsers asked for last (the server tells), newest last: a rebuild renders those of
        # them it remakes first and shows them before the rest of the site is done (`_show_early`).
        self._open: dict[str, None] = {}
        self._open_lock = threading.Lock()
        self._served = threading.Condition(self._open_lock)  # notified as the server serves a page
        self._fetched: set[str] = set()  # pages served since the last early showing
        self._early_from: tuple[dict[str, bytes], list[str]] | None = None  # the files before an early showing

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
        """The last good pages stay; the error is shown (and printed) once, not again on every save.
        Pages this build showed early are taken back: the last good build is the one shown."""
        self.builds += 1
        with self.cond:
            undone = self._undo_early()
            again = error == self.error and not undone
            self.error = error
            if not again:
                self.changed = undone
                self.version += 1
                self.cond.notify_all()
        if not again:
            self.err(error)

    # -- the open pages first ---------------------------------------------------------------
    def viewed(self, key: str) -> None:
        """The server served page `key` to a browser (on opening it, or on patching it after a rebuild)."""
        with self._open_lock:
            self._open.pop(key, None)
            self._open[key] = None
            while len(self._open) > OPEN_PAGES:
                del self._open[next(iter(self._open))]
            self._fetched.add(key)
            self._served.notify_all()

    def open_pages(self) -> list[str]:
        with self._open_lock:
            return list(self._open)

    def _show_early(self, pages: dict[str, bytes]) -> None:
        """Serves the open pages a rebuild has rendered so far, as their own version, and waits (a
        moment at most) until browsers have fetched them: a request served while the rest of the
        build runs waits for the interpreter's lock at every step. A page not fetched in that time is
        no longer open anywhere: it is dropped from the open pages until it is served again."""
        with self.cond:
            changed = sorted(k for k, v in pages.items() if self.files.get(k) != v)
            if not changed:
                return
            with self._open_lock:
                self._fetched = set()
            # A build may show pages twice (a report's first, then the home page): the files before
            # the first showing are the ones to go back to, and every page shown is named.
            before, shown = self._early_from or (self.files, [])
            self._early_from = (before, sorted({*shown, *changed}))
            self.files = {**self.files, **pages}
            self.version += 1
            self.changed = changed
            self.cond.notify_all()
        with self._open_lock:
            self._served.wait_for(lambda: self._fetched.issuperset(changed), EARLY_WAIT)
            for key in set(changed) - self._fetched:
                self._open.pop(key, None)

    def _undo_early(self) -> list[str]:
        """Called with `cond` held: the files as they were before this rebuild showed pages early."""
        if self._early_from is None:
            return []
        self.files, shown = self._early_from
        self._early_from = None
        return shown

    def _rebuild(self, paths: list[str] | None, start: float) -> None:
        # realpath, not resolve: a changed path may be a symlink loop, which resolve() raises on.
        real = [Path(os.path.realpath(p)) for p in paths or []]
        config_changed = paths is None or self.config_file in real
        replaced = paths is not None and self._replaced_roots(paths)
        if {theme_dir("static").resolve() / name for name in _SCRIPTS}.intersection(real):
            fresh = preview_client()
            self.client.page, self.client.worker = fresh.page, fresh.worker
        if config_changed or replaced or self.builder is None:
            self.builder = None  # a config that fails to load is retried on the next event
            gc.unfreeze()  # the previous builder's site may now be collected
            try:
                self.config = load_config(self.config_file)
            finally:
                self._rewatch(force=replaced)
            self.builder = api.live_builder(self.config)
        else:
            self.builder.changed(paths or [])
        # Not with --strict (a warning refuses the build after the pages are made), nor over an error.
        early = (self.open_pages, self._show_early) if paths and not self.strict and self.error is None else None
        self._early_from = None
        result = self.builder.build(early=early)
        if self.strict:  # decided here, once, on every warning of this rebuild: shown as its error
            api.refuse_warnings(result.warnings)
        seconds = time.perf_counter() - start
        self.builds += 1
        if paths is None or config_changed or replaced:
            # A whole site just built is long-lived: leave it out of the collector's full passes,
            # which on a site of a thousand reports (millions of objects) would pause a later edit
            # for a second or more. Only this build's objects are frozen (the previous builder's
            # were unfrozen before it): freezing after every edit would keep each edit's cyclic
            # garbage forever.
            gc.freeze()
        with self.cond:
            # What the rebuild changed (the message says it all); the version only what an early
            # showing of the open pages has not shown already.
            shown = self.files
            shown_early: set[str] = set(self._early_from[1] if self._early_from else ())
            old = self._early_from[0] if self._early_from else shown
            changed = sorted(k for k, v in result.files.items() if old.get(k) != v)
            removed = sorted(set(old) - set(result.files))
            had_error = self.error is not None
            self._early_from = None
            self.files = result.files
            self.error = None
            news = [k for k in changed if k not in shown_early or shown.get(k) != result.files[k]] + removed
            if news or had_error or paths is None:
                self.version += 1
                self.changed = news if paths is not None else []
                self.cond.notify_all()
        new_warnings = [w for w in result.warnings if w not in self.warnings]
        self.warnings = set(result.warnings)
        for w in new_warnings:
            self.warn(w)
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
            for folder in api.watched_folders():
                folder = folder.resolve()
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
        # A handler by its methods (watchdog calls its `dispatch`), not by its class: watch.py imports no watchdog.
        handler = cast("FileSystemEventHandler", Forward(self.debouncer, self.watches, self.moved_from))
        for root, recursive in roots:
            try:
                self.observer.schedule(handler, str(root), recursive=recursive, event_filter=watched_events())
            except TypeError:  # a watchdog before 4.0: every event, which Forward sorts
                self.observer.schedule(handler, str(root), recursive=recursive)

    # -- serving -----------------------------------------------------------------------------
    def start(self) -> Preview:
        from watchdog.observers import Observer

        # Watching starts before the first build reads a file (the first build schedules the
        # folders once it has read the config): a save during that build is not missed.
        self.observer = observer = Observer()
        observer.daemon = True
        self.debouncer.closes = reports_closes(observer)
        observer.start()
        try:
            self.rebuild(None)
            if self.dev_addr is None:
                self.dev_addr = self.config.dev_addr if self.config else "127.0.0.1:8000"
            host, port = parse_addr(self.dev_addr)
            try:
                self.httpd = Server(host, port, self, self.client, log_requests=self.log_requests)
            except OSError as exc:
                raise SitegenError(f"cannot listen on {self.dev_addr}: {exc.strerror or exc}", where="--dev-addr") from None
        except BaseException:
            observer.stop()
            observer.join()
            raise
        self.debouncer.start()
        self.httpd.start()
        return self

    @property
    def url(self) -> str:
        assert self.httpd is not None
        return self.httpd.url

    def stop(self) -> None:
        """Stops the watcher, the rebuild thread and the server, and joins every thread they started."""
        if self.observer is not None:
            self.observer.stop()
            if self.observer.is_alive():
                self.observer.join()
        self.debouncer.stop()
        with self.cond:  # first: the server's event streams wait on this source
            self.stopping = True
            self.cond.notify_all()
        if self.httpd is not None:
            self.httpd.stop()

    def __enter__(self) -> Preview:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- the server's source ----------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        with self.cond:  # a rebuild swaps files and version together under this lock
            return Snapshot(self.files, self.version, self.error, tuple(self.changed))

    def wait_for_change(self, after: int, timeout: float) -> Snapshot | None:
        with self.cond:
            self.cond.wait_for(lambda: self.version > after or self.stopping, timeout)
            return None if self.stopping else self.snapshot()

    def wait_version(self, after: int, timeout: float) -> bool:
        """Waits until the version passes `after` (tests and benchmarks use it)."""
        with self.cond:
            return self.cond.wait_for(lambda: self.version > after, timeout)


def describe(changed: list[str], removed: list[str], files: dict[str, bytes]) -> str:
    """`reports/x` when several of a report's pages changed, page paths otherwise; reports first (the
    pages that summarise them, the docs pages showing their figures among them, after)."""
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
        ordered = sorted(groups.items(), key=lambda item: not item[0].startswith("reports/"))
        out = [g if len(ks) > 1 else ks[0] for g, ks in ordered]
        if len(out) > 4:
            out = out[:3] + [f"{len(out) - 3} more"]
    if gone:
        out.append("removed " + (gone[0] if len(gone) == 1 else f"{len(gone)} pages"))
    return ", ".join(out)
