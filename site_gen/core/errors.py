"""The one error type users see: where the problem is and what was expected."""
from __future__ import annotations

import os
from pathlib import Path


def json_path(parts) -> str:
    """Render a path of keys and indexes as `$.a.b[3]`."""
    out = "$"
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def shown_path(path: str | Path) -> str:
    """A path as the user typed it: relative to the working folder when inside it."""
    try:
        # abspath, not resolve: a path through a symlink is shown as the user reaches it.
        return str(Path(os.path.abspath(path)).relative_to(os.path.abspath(os.getcwd())))
    except (ValueError, OSError):
        return str(path)


def suggest(word: str, known) -> str:
    """` (did you mean 'X'?)` for the known name closest to a mistyped one, or nothing."""
    import difflib  # only on a mistake: its import costs a build that makes none a few ms

    close = difflib.get_close_matches(word, sorted(known), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


def located(message: str, file: str | Path | None, where: str | None) -> str:
    """`FILE: WHERE: MESSAGE`, the file as the user typed it: how errors and warnings are printed."""
    location = ""
    if file:
        location = shown_path(file) + (f": {where}" if where else "")
    elif where:
        location = where
    return f"{location}: {message}" if location else message


class SitegenError(Exception):
    """A problem with the user's input, reported without a traceback.

    `where` is a JSON path (`$.speed.cells[3].baseline.rate`) or `line N` for pages.
    """

    def __init__(self, message: str, file: str | Path | None = None, where: str | None = None):
        super().__init__(message)
        self.message = message
        self.file = str(file) if file is not None else None
        self.where = where

    def __str__(self) -> str:
        return located(self.message, self.file, self.where)
