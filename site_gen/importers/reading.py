"""The one place an importer opens a file: what it may read, and how.

- A file the user named on the command line (`--candidate run.json`, the study's comparison.json) is
  read wherever a link they named leads: they named it (`read_named`).
- A file the importer finds by itself (a `NAME.commands` sidecar, lm-eval's samples beside its
  results, a ledger's runs and configs, a licence, a CITATION.cff) is read only when it lies inside
  the folder the user named or the folder holding a file they named, its links followed: a link
  that leads out of it is refused, never followed (`read_found`).
- Either way: a regular file only (no folder, device, FIFO or socket), its size asked of the file
  system before any byte is read, never more than a limit (core/files.py).
- A licence is credited only from a file beside the sources; one in a folder above them is named in
  a note that asks for `--attribution`, never read (`licence_credit`).

Every importer (and any new one) reads through these functions, or through `common.read_source`
and `serving_common.read_source` / `read_found`, which call them.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

from site_gen.core.diagnostics import Diagnostic
from site_gen.core.errors import SitegenError
from site_gen.core.files import check_inside, read_limited

MAX_SOURCE_BYTES = 256 << 20
LICENCE_NAMES = ("LICENSE", "LICENSE.md", "LICENSE.txt", "LICENCE", "LICENCE.md", "LICENCE.txt", "COPYING")
MAX_LICENCE_BYTES = 1 << 20
LICENCE_LEVELS = 5  # folders above the sources where a licence is looked for (to be named, never read)
_REMEDY = "sources are read whole; split the file"
_LEADS_OUT = "an importer reads only inside the folders you name: copy the file in, or remove the link"
# The first line of a licence names it (`MIT License`, `Apache License`, `Creative Commons …`);
# a file of that name whose first line does not is not credited (it may be anything).
_LICENCE_WORDS = re.compile(r"(?i)\b(licen[cs]e|copyright|public domain|creative commons|cc[- ]by|cc0|unlicense)\b")
_COPYRIGHT = re.compile(r"(?i)copyright\s+(\(c\)|©)?\s*[0-9]{4}")

# What an import noticed but did not refuse: printed as warnings once the receipt is written.
NOTES: list[Diagnostic] = []


def note(message: str, file: Path) -> None:
    d = Diagnostic(message, file)
    if d not in NOTES:
        NOTES.append(d)


def read_named(path: Path, limit: int = MAX_SOURCE_BYTES, what: str = "source file") -> bytes:
    """A file the user named, refused unread past `limit`."""
    if not os.path.lexists(path):
        raise SitegenError("not found (expected a file)", path)
    return read_limited(path, limit, what, _REMEDY)


def read_found(path: Path, folder: Path, limit: int = MAX_SOURCE_BYTES, what: str = "source file") -> bytes:
    """A file an importer found by itself in `folder` (one the user named, or the one holding a file
    they named): refused when it leads out of the folder, and unread past `limit`."""
    if not os.path.lexists(path):
        raise SitegenError("not found (expected a file)", path)
    real = check_inside(path, folder, "the source folder", _LEADS_OUT)
    return read_limited(real, limit, what, _REMEDY)


def licence_credit(paths: list[Path]) -> str | None:
    """The credit a licence file beside the sources words itself (its first line and its copyright
    line): read under `read_found`'s rules, from the folder holding each named file. A licence only
    in a folder above them is never read: a note names it and asks for `--attribution`."""
    folders: list[Path] = []
    for p in paths:
        folder = Path(os.path.abspath(p)).parent
        if folder not in folders:
            folders.append(folder)
    for folder in folders:
        for name in LICENCE_NAMES:
            f = folder / name
            if os.path.lexists(f):
                text = read_found(f, folder, MAX_LICENCE_BYTES, "licence file").decode("utf-8", "replace")
                lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
                title = lines[0] if lines else ""
                holder = next((ln for ln in lines[:40] if _COPYRIGHT.match(ln)), None)
                if not title or len(title) > 120 or not _LICENCE_WORDS.search(title) or not title.isprintable():
                    note("its first line names no licence, so it is not credited on the pages; "
                         "pass --attribution TEXT to credit the data", f)
                    return None
                return title + (f"; {holder[:200]}" if holder else "") + f" (the source files' {f.name})"
    above = _licence_above(folders)
    if above is not None:
        note("lies in a folder above the source files and is not read: sitegen credits only a licence in "
             "the folder of the files it reads. If the data's licence asks for credit, pass --attribution TEXT", above)
    return None


def _licence_above(folders: list[Path]) -> Path | None:
    for folder in folders:
        up = folder
        for _ in range(LICENCE_LEVELS):
            if up.parent == up:
                break
            up = up.parent
            for name in LICENCE_NAMES:
                if os.path.lexists(up / name):
                    return up / name
    return None
