"""File events for the preview: which paths matter, and one rebuild per burst of saves.

- `ignored(path)`: editor and tool droppings that never start a rebuild.
- `Debouncer`: coalesces the burst of file events one save makes (temp file, rename, swap file,
  formatter) into one rebuild, and runs rebuilds one at a time on its own thread.
- `Forward`: a watchdog handler that passes the paths that matter on to a `Debouncer`.
"""
from __future__ import annotations

import os
import re
import threading
import time
import traceback
from pathlib import Path
from collections.abc import Callable, Iterable

QUIET = 0.05        # seconds without a new event before a rebuild starts
SETTLE = 0.01       # ...when every changed file was closed, moved or deleted: its writer is done
MAX_WAIT = 1.0      # a rebuild starts after this long even if events keep coming

_TEMP_SUFFIXES = ("~", ".swp", ".swo", ".swx", ".swn", ".tmp", ".temp", ".part", ".crdownload", "___jb_tmp___", "___jb_old___")
# `sed -i` writes "sed" and six random letters and digits beside the file, then renames it over.
_SED_TEMP = re.compile(r"sed[A-Za-z0-9]{6}")
_SKIP_DIRS = {".git", ".hg", ".svn", "__pycache__", ".pytest_cache", ".hypothesis", ".mypy_cache", "node_modules"}


def ignored(path: str | Path) -> bool:
    """Editor and tool droppings: swap and backup files, temp files of atomic saves (vim's 4913,
    sed's sedXXXXXX), dotfiles."""
    p = Path(path)
    name = p.name
    if name == "4913" or name.startswith((".", "#")) or name.endswith(_TEMP_SUFFIXES) or _SED_TEMP.fullmatch(name):
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

    def start(self) -> Debouncer:
        self._thread.start()
        return self

    def add(self, paths: Iterable[str], kind: str = "") -> None:
        """`kind` is the event's: "modified" (being written), "closed" (written and closed), "attrib"
        (its mode or times changed, as by chmod: no write), or other."""
        with self._cond:
            now = time.monotonic()
            if not self._pending:
                self._first = now
            for p in paths:
                p = str(p)
                self._pending[p] = None
                if kind == "attrib":
                    # A file made readable again needs a rebuild, but says nothing of a write in
                    # progress: one being written still holds the rebuild back until it is closed.
                    if p not in self._writing:
                        self._done.add(p)
                    continue
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

    def due(self) -> float:
        """When the pending paths are due (on `time.monotonic`'s clock): `settle` after the last event
        when every changed file's writer is done, else `quiet` after it; a file still being written
        holds them back up to `max_wait` after the first event, and nothing waits longer."""
        settled = self.closes and len(self._done) == len(self._pending)
        due = self._last + (self.settle if settled else self.quiet)
        if self.closes and self._writing:
            due = max(due, self._first + self.max_wait)
        return min(due, self._first + self.max_wait)

    def _next_batch(self) -> list[str] | None:
        """The paths of the next rebuild once they are due; None once stopping."""
        with self._cond:
            while not self._stopping and not self._pending:
                self._cond.wait()
            while not self._stopping:
                wait = self.due() - time.monotonic()
                if wait <= 0:
                    break
                self._cond.wait(wait)
            if self._stopping:
                return None
            batch = list(self._pending)
            self._pending.clear()
            self._writing.clear()
            self._done.clear()
            return batch

    def _run(self) -> None:
        while (batch := self._next_batch()) is not None:
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


def watched_events() -> list[type]:
    """The watchdog event types `Forward` acts on, for `schedule(event_filter=...)`, which makes
    inotify report those only. Unfiltered, every file the rebuild itself opens (a receipt, a
    template, a page) comes back as two events, opened and closed unwritten, and each wakes the
    watcher's threads, which take the interpreter from the rebuild."""
    import watchdog.events as ev
    from watchdog.events import (DirCreatedEvent, DirDeletedEvent, DirMovedEvent, FileClosedEvent,
                                 FileCreatedEvent, FileDeletedEvent, FileModifiedEvent, FileMovedEvent)

    # A change of mode (chmod: a receipt made readable again) is an event of its own in newer
    # watchdogs (older ones report a modification): without it, a file fixed so waits for a write.
    attrib = [cls for cls in (getattr(ev, "FileAttribEvent", None), getattr(ev, "DirAttribEvent", None)) if cls]
    return [FileCreatedEvent, FileModifiedEvent, FileDeletedEvent, FileMovedEvent, FileClosedEvent,
            DirCreatedEvent, DirDeletedEvent, DirMovedEvent, *attrib]


class Forward:
    """watchdog handler: forwards the paths of writes, creations, deletions and moves that matter.

    `wanted(path)` says whether a path is an input; `moved_from(path)` hears of a file moved over
    another one (an editor's temporary file, saved over the real one)."""

    KINDS = {"created", "modified", "deleted", "moved", "closed", "attrib"}

    def __init__(self, debouncer: Debouncer, wanted: Callable[[str], bool], moved_from: Callable[[str], None]):
        self.debouncer = debouncer
        self.wanted = wanted
        self.moved_from = moved_from

    def dispatch(self, event) -> None:
        if event.event_type not in self.KINDS or (event.is_directory and event.event_type in ("modified", "closed")):
            return
        paths = [event.src_path] + ([event.dest_path] if getattr(event, "dest_path", "") else [])
        paths = [os.fsdecode(p) for p in paths]
        relevant = [p for p in paths if not ignored(p) and self.wanted(p)]
        if event.event_type == "moved" and not event.is_directory and len(relevant) == 2:
            self.moved_from(relevant[0])
        if relevant:
            kind = event.event_type if not event.is_directory or event.event_type == "attrib" else ""
            self.debouncer.add(relevant, kind)
