"""Bits every subcommand shares: config flags, quiet/verbose, coloured messages on a terminal only."""
from __future__ import annotations

import argparse
import os
import sys

from site_gen import api


def add_common(p) -> None:
    p.add_argument("-f", "--config-file", metavar="CONFIG", default="mkdocs.yml", help="configuration file (default: mkdocs.yml)")
    # Also accepted after the command (`sitegen build --traceback`); SUPPRESS keeps the global value.
    p.add_argument("--traceback", action="store_true", default=argparse.SUPPRESS, help="show a Python traceback on errors")
    c = p.add_mutually_exclusive_group()
    c.add_argument("--cache-dir", metavar="DIR",
                   help="keep the build cache here (default: $XDG_CACHE_HOME/sitegen or ~/.cache/sitegen)")
    c.add_argument("--no-cache", action="store_true", help="neither read nor write the build cache")
    g = p.add_mutually_exclusive_group()
    g.add_argument("-q", "--quiet", action="store_true", help="print errors and warnings only")
    g.add_argument("-v", "--verbose", action="store_true", help="print more detail")


def load(args) -> api.Config:
    config = api.load_config(args.config_file, getattr(args, "site_dir", None))
    api.configure_cache(getattr(args, "cache_dir", None), enabled=not getattr(args, "no_cache", False), config=config)
    return config


def _colour(stream, code: str, text: str) -> str:
    if stream.isatty() and not os.environ.get("NO_COLOR"):
        return f"\033[{code}m{text}\033[0m"
    return text


def say(args, message: str) -> None:
    if not getattr(args, "quiet", False):
        print(message, flush=True)


def warn(message: str) -> None:
    print(_colour(sys.stderr, "33", "WARNING") + "  " + message, file=sys.stderr, flush=True)


def error(message: str) -> None:
    print(_colour(sys.stderr, "31", "Error") + ": " + message, file=sys.stderr, flush=True)


class Progress:
    """A one-line progress bar on a terminal; silent when piped, with -q, or for quick builds."""

    def __init__(self, args, stream=None, delay: float = 0.5):
        import time

        self.stream = stream or sys.stderr
        self.on = self.stream.isatty() and not getattr(args, "quiet", False)
        self.start, self.delay, self.shown = time.monotonic(), delay, False
        self._time = time.monotonic

    def __call__(self, what: str, done: int, total: int) -> None:
        if not self.on or total <= 0 or self._time() - self.start < self.delay:
            return
        width = 30
        filled = int(width * done / total)
        self.stream.write(f"\r{what:<8} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        self.stream.flush()
        self.shown = True

    def done(self) -> None:
        if self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.shown = False
